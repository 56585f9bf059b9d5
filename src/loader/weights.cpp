#include "loader/weights.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>

#include "core/file.hpp"
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

/// Throws with the reason `error`, an errno value.
[[noreturn]] void io_error(const std::string& path, const std::string& what, int error) {
  ErrorContext c;
  c.file = path;
  throw Error(ErrorCode::io, what + ": " + std::strerror(error), std::move(c));
}

}  // namespace

Weights map_weights(const std::filesystem::path& path) {
  Weights w;
  w.path = path.string();
  const InputFile file = InputFile::open(path, "weights file");
  const int fd = file.fd();
  auto mapping = std::make_shared<Mapping>();
  mapping->size = static_cast<std::size_t>(file.size());
  if (mapping->size > 0) {
    void* p = ::mmap(nullptr, mapping->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) io_error(w.path, "cannot map weights file", errno);
    mapping->address = p;
  }
  w.bytes = {static_cast<const std::byte*>(mapping->address), mapping->size};
  w.owner = std::move(mapping);
  w.present = true;
  return w;
}

}  // namespace irlite
