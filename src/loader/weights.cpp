#include "loader/weights.hpp"

#include <sys/mman.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <new>

#include "core/buffer.hpp"
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

/// Reads the whole of `file` (its size when opened) into a buffer of its own.
void copy_file(Weights& w, const InputFile& file) {
  const auto size = static_cast<std::size_t>(file.size());
  std::shared_ptr<void> buffer;
  try {
    buffer = allocate_buffer(size);
  } catch (const std::bad_alloc&) {
    ErrorContext c;
    c.file = w.path;
    throw Error(ErrorCode::io,
                fmt::format("not enough memory to copy the weights file ({} bytes); "
                            "WeightsMode::map maps it instead",
                            size),
                std::move(c));
  }
  const std::size_t done = file.read_at(0, buffer.get(), size);
  if (done < size) {
    // The file shrank since it was opened: what was read is no snapshot of anything.
    ErrorContext c;
    c.file = w.path;
    throw Error(ErrorCode::io,
                fmt::format("the weights file shrank to {} bytes while being read ({} expected)",
                            done, size),
                std::move(c));
  }
  w.bytes = {static_cast<const std::byte*>(buffer.get()), size};
  w.owner = std::move(buffer);
}

}  // namespace

Weights open_weights(const std::filesystem::path& path, WeightsMode mode) {
  Weights w;
  w.path = path.string();
  const InputFile file = InputFile::open(path, "weights file");
  if (mode == WeightsMode::automatic)
    mode = file.size() < kCopyWeightsBelow ? WeightsMode::copy : WeightsMode::map;
  if (mode == WeightsMode::copy) {
    copy_file(w, file);
  } else {
    auto mapping = std::make_shared<Mapping>();
    mapping->size = static_cast<std::size_t>(file.size());
    if (mapping->size > 0) {
      void* p = ::mmap(nullptr, mapping->size, PROT_READ, MAP_PRIVATE, file.fd(), 0);
      if (p == MAP_FAILED) io_error(w.path, "cannot map weights file", errno);
      mapping->address = p;
    }
    w.bytes = {static_cast<const std::byte*>(mapping->address), mapping->size};
    w.owner = std::move(mapping);
  }
  w.present = true;
  return w;
}

}  // namespace irlite
