#include "loader/xml_text.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <new>
#include <string>
#include <tuple>
#include <utility>

#include "core/buffer.hpp"
#include "core/file.hpp"
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
  const InputFile file = InputFile::open(path, "model file");
  // The whole text is held at once: a file larger than the memory (a sparse one, say) is
  // refused before anything is read.
  const std::uint64_t memory = physical_memory();
  if (file.size() > memory) {
    ErrorContext c;
    c.file = file.path();
    throw Error(ErrorCode::io,
                "the model file is " + std::to_string(file.size()) +
                    " bytes, more than this machine's memory (" + std::to_string(memory) +
                    " bytes)",
                std::move(c));
  }
  XmlText text;
  // The size is known before reading: a regular file is read up to that size and no further,
  // whatever is appended to it meanwhile.
  const auto size = static_cast<std::size_t>(file.size());
  std::tie(text.data_, text.mapped_) = map_memory(size);
  text.size_ = file.read_at(0, text.data_, size);
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
