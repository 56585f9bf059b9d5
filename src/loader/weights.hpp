#pragma once
// The weights (.bin) file: copied or memory-mapped read-only, shared by every Const that views it.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "irlite/model_info.hpp"

namespace irlite {

struct Weights {
  std::string path;                  ///< for messages; empty for weights given in memory
  std::span<const std::byte> bytes;  ///< the whole file
  std::shared_ptr<const void> owner;  ///< keeps the copy or the mapping alive
  bool present = false;
};

/// WeightsMode::automatic copies files smaller than this and maps the others.
inline constexpr std::uint64_t kCopyWeightsBelow = std::uint64_t{64} << 20;

/// Opens `path` and holds its bytes as `mode` says: a private copy read now, or a read-only
/// mapping. Throws Error(io) when it cannot be opened, read or mapped.
Weights open_weights(const std::filesystem::path& path, WeightsMode mode);

}  // namespace irlite
