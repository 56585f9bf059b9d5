#pragma once
// Reading and writing NumPy .npz archives: ZIP files whose members are .npy images named
// `NAME.npy`, as np.savez (stored) and np.savez_compressed (deflate) write them.

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "irlite/tensor.hpp"

namespace irlite::npz {

/// One array of an archive: the member's name without ".npy", and its data.
struct Array {
  std::string name;
  Tensor tensor;
};

/// Decodes a whole .npz image held in memory, arrays in the archive's order. Members may be
/// stored or deflate-compressed, with ZIP64 sizes; each one's CRC-32 is checked. Every problem
/// (a truncated or inconsistent archive, sizes beyond what the bytes can hold, a member that is
/// not NAME.npy, a name given twice, a bad .npy inside) is an Error(input) naming `source` and
/// the member.
std::vector<Array> decode(std::span<const std::byte> bytes, const std::string& source);

/// Reads a .npz file. Errors as decode(), plus Error(io) when it cannot be read.
std::vector<Array> read(const std::filesystem::path& path);

/// Encodes arrays as an uncompressed archive (stored members, each NAME.npy as npy::encode
/// writes it). Throws Error(usage) for names given twice and for an archive beyond what ZIP
/// without its ZIP64 extension holds (4 GiB, 65535 members).
std::string encode(const std::vector<Array>& arrays);

/// Writes encode(arrays) to `path`. Throws Error(io) when the file cannot be written.
void write(const std::filesystem::path& path, const std::vector<Array>& arrays);

}  // namespace irlite::npz
