#pragma once
// How the reductions (ReduceMax, ReduceSum...) see their input: blocks of kept and reduced axes.

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace irlite {

/// The shape of a reduction once size-1 axes are dropped and neighbouring axes of the same kind
/// are merged.
struct ReducePlan {
  std::vector<std::int64_t> dims;  ///< merged extents, outermost first
  std::vector<bool> reduced;       ///< whether each merged block is reduced
  std::int64_t input_size = 1;
  std::int64_t output_size = 1;
};

/// Plans the reduction of a tensor of `shape` over `axes` (each in [0, rank); duplicates are
/// allowed and count once).
inline ReducePlan plan_reduce(std::span<const std::int64_t> shape,
                              std::span<const std::int64_t> axes) {
  std::vector<bool> is_reduced(shape.size(), false);
  for (const std::int64_t a : axes) is_reduced[static_cast<std::size_t>(a)] = true;
  ReducePlan plan;
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) {
    // An empty input: the product of the other extents may not even fit int64 ([0, 2^40, 2^40]
    // is a valid tensor), so only the output's size is computed, and it fits: it was allocated.
    plan.input_size = 0;
    for (std::size_t i = 0; i < shape.size() && plan.output_size != 0; ++i)
      if (!is_reduced[i]) plan.output_size *= shape[i];
    return plan;
  }
  for (std::size_t i = 0; i < shape.size(); ++i) {
    plan.input_size *= shape[i];
    if (!is_reduced[i]) plan.output_size *= shape[i];
    if (shape[i] == 1) continue;
    if (!plan.dims.empty() && plan.reduced.back() == is_reduced[i]) {
      plan.dims.back() *= shape[i];
    } else {
      plan.dims.push_back(shape[i]);
      plan.reduced.push_back(is_reduced[i]);
    }
  }
  return plan;
}

/// ReduceMax's names for the same.
using ReduceMaxPlan = ReducePlan;
inline ReducePlan plan_reduce_max(std::span<const std::int64_t> shape,
                                  std::span<const std::int64_t> axes) {
  return plan_reduce(shape, axes);
}

}  // namespace irlite
