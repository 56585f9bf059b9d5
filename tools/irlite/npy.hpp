#pragma once
// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0), as described in
// numpy/lib/format.py: the magic "\x93NUMPY", a version, a little-endian header length, a
// Python dict literal {'descr', 'fortran_order', 'shape'} and the raw C-order data.

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>

#include "irlite/tensor.hpp"

namespace irlite::npy {

/// The dtype string written for an element type: "<f4", "|b1"... bf16 has no NumPy dtype and
/// is written as its raw bits, "<u2".
std::string descr(ElementType type);

/// The longest header read by default, in bytes: NumPy's default max_header_size.
inline constexpr std::size_t kMaxHeader = 10000;

/// Decodes a whole .npy image held in memory. Every problem is an Error(input) whose context
/// names `source`; a header longer than `max_header` bytes is one. Booleans other than 0 are
/// read as 1, as NumPy does.
Tensor decode(std::span<const std::byte> bytes, const std::string& source,
              std::size_t max_header = kMaxHeader);

/// Reads a .npy file. Errors as decode(), plus Error(io) when the file cannot be opened or read
/// or is not a regular file (a FIFO or a device is refused without waiting on it).
Tensor read(const std::filesystem::path& path, std::size_t max_header = kMaxHeader);

/// Encodes a tensor as a version 1.0 image (2.0 when the header does not fit 1.0), the header
/// padded with spaces and a newline so that the data starts at a multiple of 64 bytes.
std::string encode(const Tensor& tensor);

/// Writes encode(tensor) to `path`. Throws Error(io) when the file cannot be written.
void write(const std::filesystem::path& path, const Tensor& tensor);

}  // namespace irlite::npy
