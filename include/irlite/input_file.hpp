#pragma once
// Opening a file the way irlite opens the files a user names (the model, its weights): only
// regular files are read, and they are opened without blocking, so that a FIFO or a device is
// refused at once instead of hanging the caller or being read without end. A program reading
// files of its own the same way (the irlite command's .npy and .npz inputs) can use it too.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

namespace irlite {

/// A regular file open for reading; closed when destroyed.
class InputFile {
 public:
  /// Opens `path` for reading. `what` names the file in messages ("model file", "weights
  /// file", ".npy file"). Throws Error(io), placed at the path, with the system's reason when it
  /// cannot be opened, or with what the path is when it is not a regular file ("is a FIFO, not
  /// a model file").
  static InputFile open(const std::filesystem::path& path, std::string_view what);

  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  /// The file descriptor, open read-only (to map the file, for instance).
  int fd() const { return fd_; }
  /// The size when it was opened.
  std::uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

  /// Reads up to `n` bytes at `offset` into `dst`; fewer only where the file ends. Throws
  /// Error(io), placed at the path, on a read error.
  std::size_t read_at(std::uint64_t offset, void* dst, std::size_t n) const;

 private:
  InputFile(int fd, std::uint64_t size, std::string path)
      : fd_(fd), size_(size), path_(std::move(path)) {}

  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::string path_;
};

}  // namespace irlite
