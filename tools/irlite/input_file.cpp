#include "input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

#include "irlite/error.hpp"

namespace irlite::cli {
namespace {

[[noreturn]] void io_error(const std::string& path, std::string message) {
  throw Error(ErrorCode::io, std::move(message), file_context(path));
}

// What a file that is not a regular one is, for the message.
const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

}  // namespace

InputFile InputFile::open(const std::filesystem::path& path, std::string_view what) {
  const std::string name = path.string();
  if (name.empty()) io_error(name, "cannot open " + std::string(what) + " '': the path is empty");
  // A device is refused before it is opened at all; O_NONBLOCK keeps a FIFO swapped in since
  // from blocking the open, and fstat below refuses it.
  struct stat st {};
  if (::stat(name.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    io_error(name, std::string("is ") + kind_of(st.st_mode) + ", not a " + std::string(what));
  const int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) io_error(name, "cannot open " + std::string(what) + ": " + std::strerror(errno));
  InputFile file(fd, name);
  if (::fstat(fd, &st) != 0)
    io_error(name, "cannot read " + std::string(what) + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    io_error(name, std::string("is ") + kind_of(st.st_mode) + ", not a " + std::string(what));
  file.size_ = st.st_size > 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  return file;
}

InputFile::InputFile(InputFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), size_(other.size_), path_(std::move(other.path_)) {}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::size_t InputFile::read_at(std::uint64_t offset, void* dst, std::size_t n) const {
  std::size_t done = 0;
  while (done < n) {
    const ssize_t got =
        ::pread(fd_, static_cast<char*>(dst) + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0)
      io_error(path_,
               "read error at byte " + std::to_string(offset + done) + ": " + std::strerror(errno));
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return done;
}

std::size_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return SIZE_MAX;
  const auto n = static_cast<std::size_t>(pages), size = static_cast<std::size_t>(page);
  return n > SIZE_MAX / size ? SIZE_MAX : n * size;
}

}  // namespace irlite::cli
