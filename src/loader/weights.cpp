#include "loader/weights.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "irlite/error.hpp"

namespace irlite {
namespace {

struct Mapping {
  void* address = nullptr;
  std::size_t size = 0;
  ~Mapping() {
    if (address) ::munmap(address, size);
  }
};

/// Closes `fd` (when open) and throws with the reason `error` (an errno value taken before the
/// close could change it).
[[noreturn]] void io_error(const std::string& path, const std::string& what, int error, int fd = -1) {
  if (fd >= 0) ::close(fd);
  ErrorContext c;
  c.file = path;
  throw Error(ErrorCode::io, what + ": " + std::strerror(error), std::move(c));
}

}  // namespace

Weights map_weights(const std::filesystem::path& path) {
  Weights w;
  w.path = path.string();
  const int fd = ::open(w.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) io_error(w.path, "cannot open weights file", errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0) io_error(w.path, "cannot read weights file", errno, fd);
  if (!S_ISREG(st.st_mode)) io_error(w.path, "weights path is not a regular file", EISDIR, fd);
  auto mapping = std::make_shared<Mapping>();
  mapping->size = static_cast<std::size_t>(st.st_size);
  if (mapping->size > 0) {
    void* p = ::mmap(nullptr, mapping->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) io_error(w.path, "cannot map weights file", errno, fd);
    mapping->address = p;
  }
  ::close(fd);
  w.bytes = {static_cast<const std::byte*>(mapping->address), mapping->size};
  w.owner = std::move(mapping);
  w.present = true;
  return w;
}

}  // namespace irlite
