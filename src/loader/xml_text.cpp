#include "loader/xml_text.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <string>
#include <tuple>
#include <utility>

#include "irlite/error.hpp"

namespace irlite {
namespace {

// Texts from this size on ask for huge pages.
constexpr std::size_t kHugeText = std::size_t{1} << 23;

std::size_t page_size() {
  static const std::size_t size = [] {
    const long p = ::sysconf(_SC_PAGESIZE);
    return p > 0 ? static_cast<std::size_t>(p) : std::size_t{4096};
  }();
  return size;
}

/// Anonymous memory of at least `size` bytes (a whole number of pages); throws bad_alloc.
std::pair<char*, std::size_t> map_memory(std::size_t size) {
  const std::size_t page = page_size();
  const std::size_t length = (size / page + 1) * page;
  void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
  // Fewer page faults for a large text (where the system has transparent huge pages).
  if (length >= kHugeText) ::madvise(p, length, MADV_HUGEPAGE);
#endif
  return {static_cast<char*>(p), length};
}

}  // namespace

XmlText XmlText::read_file(const std::filesystem::path& path) {
  ErrorContext c;
  c.file = path.string();
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(ErrorCode::io, "is a directory, not a model file", std::move(c));
  const int fd = ::open(c.file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(ErrorCode::io, "cannot open model file", std::move(c));
  struct stat st {};
  const std::size_t expected =
      ::fstat(fd, &st) == 0 && st.st_size > 0 ? static_cast<std::size_t>(st.st_size) : 0;
  XmlText text;
  try {
    std::tie(text.data_, text.mapped_) = map_memory(expected);
    // Read to the end whatever the size said: the file may have grown, or be a pipe.
    for (;;) {
      if (text.size_ == text.mapped_) {
        const auto [data, mapped] = map_memory(2 * text.mapped_);
        std::memcpy(data, text.data_, text.size_);
        ::munmap(text.data_, text.mapped_);
        text.data_ = data;
        text.mapped_ = mapped;
      }
      const ssize_t got = ::read(fd, text.data_ + text.size_, text.mapped_ - text.size_);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0)
        throw Error(ErrorCode::io, std::string("cannot read model file: ") + std::strerror(errno),
                    c);
      if (got == 0) break;
      text.size_ += static_cast<std::size_t>(got);
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return text;
}

XmlText::XmlText(XmlText&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      mapped_(std::exchange(other.mapped_, 0)),
      released_(std::exchange(other.released_, 0)) {}

XmlText& XmlText::operator=(XmlText&& other) noexcept {
  if (this != &other) {
    XmlText gone(std::move(*this));
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, 0);
    released_ = std::exchange(other.released_, 0);
  }
  return *this;
}

XmlText::~XmlText() {
  if (data_) ::munmap(data_, mapped_);
}

void XmlText::release(std::size_t offset) {
  // Whole steps, so that huge pages are given back whole; the steps are few system calls.
  const std::size_t end = std::min(offset, size_) / kReleaseStep * kReleaseStep;
  if (end <= released_) return;
#if defined(__linux__) && defined(MADV_DONTNEED)
  // Linux frees the pages at once (and would read them back as zeros).
  ::madvise(data_ + released_, end - released_, MADV_DONTNEED);
#endif
  released_ = end;
}

}  // namespace irlite
