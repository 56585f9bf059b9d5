#pragma once
// The weights (.bin) file: memory-mapped, read-only, shared by every Const that views it.

#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

namespace irlite {

struct Weights {
  std::string path;                  ///< for messages; empty for weights given in memory
  std::span<const std::byte> bytes;  ///< the whole file
  std::shared_ptr<const void> owner; ///< keeps the mapping alive
  bool present = false;
};

/// Maps `path` read-only. Throws Error(io) when it cannot be opened or mapped.
Weights map_weights(const std::filesystem::path& path);

}  // namespace irlite
