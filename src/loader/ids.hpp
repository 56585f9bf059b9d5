#pragma once
// Layer and port ids: how the IR writes them, and the indexes the loader looks them up in. The
// schema reader fills the layer index as it reads the layers; the wiring resolves the edges'
// layer ids through it.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/text.hpp"

namespace irlite::loader {

/// No position: a layer id not in the index, a port not found, an input no edge feeds.
inline constexpr std::size_t kNone = SIZE_MAX;
/// A layer with up to this many ports has them searched one by one; one with more gets a hash
/// index, so that a layer with 10^5 ports is not read in quadratic time.
inline constexpr std::size_t kFewPorts = 16;

/// An id or port number: an unsigned decimal that fits int64.
inline std::optional<std::int64_t> parse_id(const char* text) {
  // Up to 18 digits cannot overflow: the common case, without the general parser.
  std::int64_t v = 0;
  std::size_t n = 0;
  for (; n < 18 && text[n] >= '0' && text[n] <= '9'; ++n) v = 10 * v + (text[n] - '0');
  if (n > 0 && text[n] == '\0') return v;
  const auto u = parse_uint64(text);
  if (!u || *u > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  return static_cast<std::int64_t>(*u);
}

/// Layer ids to node positions: a table for the small ids IR files use, a hash map for others.
class IdIndex {
 public:
  void reserve(std::size_t layers) { dense_.assign(2 * layers + 64, kNone); }
  /// Records `id` at `index` unless it is already there; returns the position it has.
  std::size_t insert(std::int64_t id, std::size_t index) {
    if (static_cast<std::uint64_t>(id) < dense_.size()) {
      std::size_t& slot = dense_[static_cast<std::size_t>(id)];
      if (slot == kNone) slot = index;
      return slot;
    }
    return sparse_.emplace(id, index).first->second;
  }
  std::size_t find(std::int64_t id) const {
    if (static_cast<std::uint64_t>(id) < dense_.size()) return dense_[static_cast<std::size_t>(id)];
    const auto it = sparse_.find(id);
    return it == sparse_.end() ? kNone : it->second;
  }

 private:
  std::vector<std::size_t> dense_;
  std::unordered_map<std::int64_t, std::size_t> sparse_;
};

/// The port ids seen so far on one layer.
class PortIdSet {
 public:
  void clear() {
    few_.clear();
    if (!many_.empty()) many_ = {};
  }
  /// Adds `id`; false when it is already there.
  bool insert(std::int64_t id) {
    if (!many_.empty()) return many_.insert(id).second;
    if (std::find(few_.begin(), few_.end(), id) != few_.end()) return false;
    few_.push_back(id);
    if (few_.size() > kFewPorts) many_.insert(few_.begin(), few_.end());
    return true;
  }

 private:
  std::vector<std::int64_t> few_;
  std::unordered_set<std::int64_t> many_;
};

}  // namespace irlite::loader
