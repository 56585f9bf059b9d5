#pragma once
// The files the command reads itself (.npy inputs): regular files only, opened without
// blocking, so that a FIFO or a device given as an input is refused at once instead of hanging.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

#include "irlite/error.hpp"

namespace irlite::cli {

/// An error location that is a file alone: an input, an output or a folder the command uses.
inline ErrorContext file_context(std::string path) {
  ErrorContext context;
  context.file = std::move(path);
  return context;
}

/// A regular file open for reading; closed when destroyed.
class InputFile {
 public:
  /// Opens `path`; `what` names the file in messages (".npy file"). Throws Error(io) placed at
  /// the path with the system's reason, or with what the path is when it is not a regular file
  /// ("is a FIFO, not a .npy file").
  static InputFile open(const std::filesystem::path& path, std::string_view what);

  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) = delete;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  /// The size when it was opened.
  std::uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

  /// Reads up to `n` bytes at `offset` into `dst`; fewer only where the file ends. Throws
  /// Error(io) on a read error.
  std::size_t read_at(std::uint64_t offset, void* dst, std::size_t n) const;

 private:
  InputFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}

  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::string path_;
};

/// The machine's physical memory in bytes (SIZE_MAX when unknown): what a size read from a file
/// may ask the command to allocate at most.
std::size_t physical_memory();

}  // namespace irlite::cli
