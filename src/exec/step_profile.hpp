#pragma once
// The bytes a run holds at each of its steps, as the buffer plan adds holds to them.

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace irlite {

/// The bytes in use at each step of a run, with a range add and a range maximum. Steps are kept
/// in blocks of kBlock with a per-block addition and maximum: a range touches its two end blocks
/// element by element and the blocks between as wholes. The holds asked about are mostly a step
/// or two long (a buffer that fell free just before), which then costs a few operations; a long
/// one costs n / kBlock. Additions are never negative, so a block's maximum only grows.
class StepProfile {
 public:
  explicit StepProfile(std::vector<double> bytes)
      : bytes_(std::move(bytes)),
        block_max_((bytes_.size() + kBlock - 1) / kBlock, 0),
        block_add_(block_max_.size(), 0) {
    for (std::size_t i = 0; i < bytes_.size(); ++i)
      block_max_[i / kBlock] = std::max(block_max_[i / kBlock], bytes_[i]);
  }
  /// The most in use over steps [lo, hi]; 0 for an empty range.
  double max(std::size_t lo, std::size_t hi) const {
    double m = 0;
    visit(
        lo, hi, [&](std::size_t i) { m = std::max(m, bytes_[i] + block_add_[i / kBlock]); },
        [&](std::size_t b) { m = std::max(m, block_max_[b] + block_add_[b]); });
    return m;
  }
  /// Adds `bytes` (not negative) to steps [lo, hi].
  void add(std::size_t lo, std::size_t hi, double bytes) {
    visit(
        lo, hi,
        [&](std::size_t i) {
          bytes_[i] += bytes;
          block_max_[i / kBlock] = std::max(block_max_[i / kBlock], bytes_[i]);
        },
        [&](std::size_t b) { block_add_[b] += bytes; });
  }

 private:
  static constexpr std::size_t kBlock = 64;

  /// Calls step(i) for the steps of [lo, hi] in partly covered blocks, block(b) for the blocks
  /// it covers whole.
  template <class Step, class Block>
  static void visit(std::size_t lo, std::size_t hi, Step&& step, Block&& block) {
    if (lo > hi) return;
    const std::size_t first = lo / kBlock, last = hi / kBlock;
    if (first == last) {
      for (std::size_t i = lo; i <= hi; ++i) step(i);
      return;
    }
    for (std::size_t i = lo; i < (first + 1) * kBlock; ++i) step(i);
    for (std::size_t b = first + 1; b < last; ++b) block(b);
    for (std::size_t i = last * kBlock; i <= hi; ++i) step(i);
  }

  std::vector<double> bytes_;      // per step, without its block's addition
  std::vector<double> block_max_;  // the largest of the block's bytes_
  std::vector<double> block_add_;  // added to every step of the block
};

}  // namespace irlite
