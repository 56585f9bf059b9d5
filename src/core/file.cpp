#include "core/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "irlite/error.hpp"

namespace irlite {
namespace {

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

ErrorContext at_path(const std::string& path) {
  ErrorContext c;
  c.file = path;
  return c;
}

[[noreturn]] void not_regular(const std::string& path, mode_t mode, std::string_view what) {
  throw Error(ErrorCode::io, "is " + kind_of(mode) + ", not a " + std::string(what), at_path(path));
}

}  // namespace

InputFile InputFile::open(const std::filesystem::path& path, std::string_view what) {
  const std::string name = path.string();
  if (name.empty())
    throw Error(ErrorCode::io, "cannot open " + std::string(what) + " '': the path is empty");
  // Looked at before opening, so that no device is opened at all; fstat below closes the race.
  struct stat st {};
  if (::stat(name.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) not_regular(name, st.st_mode, what);
  // O_NONBLOCK: a FIFO that became one since the stat must not block the open.
  const int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    const int error = errno;
    throw Error(ErrorCode::io, "cannot open " + std::string(what) + ": " + std::strerror(error),
                at_path(name));
  }
  InputFile file(fd, 0, name);
  if (::fstat(fd, &st) != 0) {
    const int error = errno;
    throw Error(ErrorCode::io, "cannot read " + std::string(what) + ": " + std::strerror(error),
                at_path(name));
  }
  if (!S_ISREG(st.st_mode)) not_regular(name, st.st_mode, what);
  // A regular file ignores O_NONBLOCK, but reads should not depend on that.
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  file.size_ = st.st_size > 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  return file;
}

InputFile::InputFile(InputFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), size_(other.size_), path_(std::move(other.path_)) {}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    size_ = other.size_;
    path_ = std::move(other.path_);
  }
  return *this;
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::size_t InputFile::read_at(std::uint64_t offset, void* dst, std::size_t n) const {
  std::size_t done = 0;
  while (done < n) {
    const ssize_t got =
        ::pread(fd_, static_cast<char*>(dst) + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int error = errno;
      throw Error(
          ErrorCode::io,
          "read error at byte " + std::to_string(offset + done) + ": " + std::strerror(error),
          at_path(path_));
    }
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return done;
}

std::string special_file_kind(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return {};
  return kind_of(st.st_mode);
}

}  // namespace irlite
