#include "loader/weights.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <new>

#include "core/buffer.hpp"
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

/// Reads the `size` bytes of open file `fd` into a buffer of their own, closing `fd` on error.
void copy_file(Weights& w, int fd, std::size_t size) {
  std::shared_ptr<void> buffer;
  try {
    buffer = allocate_buffer(size);
  } catch (const std::bad_alloc&) {
    ::close(fd);
    ErrorContext c;
    c.file = w.path;
    throw Error(ErrorCode::io,
                fmt::format("not enough memory to copy the weights file ({} bytes); "
                            "WeightsMode::map maps it instead",
                            size),
                std::move(c));
  }
  auto* out = static_cast<char*>(buffer.get());
  std::size_t done = 0;
  while (done < size) {
    const ::ssize_t n = ::pread(fd, out + done, size - done, static_cast<::off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) io_error(w.path, "cannot read weights file", errno, fd);
    if (n == 0) {
      // The file shrank since it was measured: what was read is no snapshot of anything.
      ::close(fd);
      ErrorContext c;
      c.file = w.path;
      throw Error(ErrorCode::io,
                  fmt::format("the weights file shrank to {} bytes while being read ({} expected)",
                              done, size),
                  std::move(c));
    }
    done += static_cast<std::size_t>(n);
  }
  w.bytes = {static_cast<const std::byte*>(buffer.get()), size};
  w.owner = std::move(buffer);
}

}  // namespace

Weights open_weights(const std::filesystem::path& path, WeightsMode mode) {
  Weights w;
  w.path = path.string();
  const int fd = ::open(w.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) io_error(w.path, "cannot open weights file", errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0) io_error(w.path, "cannot read weights file", errno, fd);
  if (!S_ISREG(st.st_mode)) io_error(w.path, "weights path is not a regular file", EISDIR, fd);
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (mode == WeightsMode::automatic)
    mode = size < kCopyWeightsBelow ? WeightsMode::copy : WeightsMode::map;
  if (mode == WeightsMode::copy) {
    copy_file(w, fd, static_cast<std::size_t>(size));
  } else {
    auto mapping = std::make_shared<Mapping>();
    mapping->size = static_cast<std::size_t>(size);
    if (mapping->size > 0) {
      void* p = ::mmap(nullptr, mapping->size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) io_error(w.path, "cannot map weights file", errno, fd);
      mapping->address = p;
    }
    w.bytes = {static_cast<const std::byte*>(mapping->address), mapping->size};
    w.owner = std::move(mapping);
  }
  ::close(fd);
  w.present = true;
  return w;
}

}  // namespace irlite
