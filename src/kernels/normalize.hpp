#pragma once
// Normalisation over a set of axes (MVN, NormalizeL2): the data falls into groups, one per index
// of the axes that are kept, each group holding the elements along the reduced axes. A group's
// statistics (mean and variance, or sum of squares) are summed in double by one thread in
// element order, and its elements are then written from them (f16 and bf16 through float,
// rounded once); groups are split over threads, so the result is the same on any number of
// threads.
//
// When the reduced axes are the innermost ones (NCHW normalised over H*W per channel, or over
// C*H*W per sample) each group is one contiguous run: that is the fast path. Any other set of
// axes walks each group through its strides.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/parallel.hpp"
#include "irlite/shape.hpp"
#include "kernels/element.hpp"
#include "kernels/simd.hpp"

namespace irlite {

/// How the elements fall into groups: extents and strides (in elements) of the merged kept and
/// reduced axes, outer to inner.
struct GroupPlan {
  struct Axis {
    std::size_t extent;
    std::size_t stride;
  };
  std::vector<Axis> kept;
  std::vector<Axis> reduced;
  std::size_t groups = 1;      ///< product of the kept extents
  std::size_t group_size = 1;  ///< product of the reduced extents
  /// The reduced axes are innermost: group g is elements [g * group_size, (g + 1) * group_size).
  bool contiguous = true;
};

/// The plan for data of `shape` reduced over the axes `reduced[i]` marks. Axes of extent 1
/// are dropped and neighbours of the same kind merged.
inline GroupPlan plan_groups(const Shape& shape, const std::vector<bool>& reduced) {
  GroupPlan plan;
  std::size_t stride = 1;
  // Walk from the innermost axis, merging as we go, then reverse into outer-to-inner order.
  std::vector<GroupPlan::Axis> kept_rev, reduced_rev;
  int last = -1;  // kind of the previous axis kept: 0 kept, 1 reduced
  for (std::size_t i = shape.size(); i-- > 0;) {
    const auto extent = static_cast<std::size_t>(shape[i]);
    if (extent == 1) continue;
    const int kind = reduced[i] ? 1 : 0;
    auto& list = kind ? reduced_rev : kept_rev;
    if (kind == last)
      list.back().extent *= extent;
    else
      list.push_back({extent, stride});
    last = kind;
    stride *= extent;
  }
  plan.kept.assign(kept_rev.rbegin(), kept_rev.rend());
  plan.reduced.assign(reduced_rev.rbegin(), reduced_rev.rend());
  for (const auto& a : plan.kept) plan.groups *= a.extent;
  for (const auto& a : plan.reduced) plan.group_size *= a.extent;
  plan.contiguous = plan.reduced.empty() || (plan.reduced.size() == 1 && plan.reduced[0].stride == 1);
  return plan;
}

namespace normalize_detail {

/// Offset of the element at flat position `index` of the given axes (outer to inner).
inline std::size_t offset_of(const std::vector<GroupPlan::Axis>& axes, std::size_t index) {
  std::size_t offset = 0;
  for (std::size_t i = axes.size(); i-- > 0;) {
    offset += (index % axes[i].extent) * axes[i].stride;
    index /= axes[i].extent;
  }
  return offset;
}

/// Calls fn(offset) for each element of the group at `base`, in element order.
template <class F>
IRLITE_INLINE void for_each_in_group(const GroupPlan& plan, std::size_t base, F&& fn) {
  if (plan.contiguous) {
    for (std::size_t j = 0; j < plan.group_size; ++j) fn(base + j);
    return;
  }
  // The innermost reduced axis is the loop; the outer ones are decoded once per run of it.
  const GroupPlan::Axis inner = plan.reduced.back();
  const std::size_t runs = plan.group_size / inner.extent;
  for (std::size_t r = 0; r < runs; ++r) {
    std::size_t index = r, offset = base;
    for (std::size_t i = plan.reduced.size() - 1; i-- > 0;) {
      offset += (index % plan.reduced[i].extent) * plan.reduced[i].stride;
      index /= plan.reduced[i].extent;
    }
    for (std::size_t j = 0; j < inner.extent; ++j) fn(offset + j * inner.stride);
  }
}

/// Runs fn(group_base) for every group, groups split over threads.
template <class F>
void for_each_group(const Parallel& parallel, const GroupPlan& plan, F&& fn) {
  if (plan.groups == 0 || plan.group_size == 0) return;
  const std::size_t grain = std::max<std::size_t>(1, (std::size_t{1} << 15) / plan.group_size);
  parallel.for_range(plan.groups, grain, [&](std::size_t begin, std::size_t end, std::size_t) {
    for (std::size_t g = begin; g < end; ++g)
      fn(plan.contiguous ? g * plan.group_size : offset_of(plan.kept, g));
  });
}

}  // namespace normalize_detail

/// How MVN's divisor is made from the variance.
enum class MvnEpsMode { inside_sqrt, outside_sqrt };

/// MVN: each group's mean subtracted, and with `normalize_variance` the result divided by
/// sqrt(variance + eps) (inside_sqrt) or sqrt(variance) + eps (outside_sqrt).
template <class T>
void mvn(const Parallel& parallel, const GroupPlan& plan, const T* in, T* out,
         bool normalize_variance, double eps, MvnEpsMode eps_mode) {
  using C = compute_t<T>;
  using normalize_detail::for_each_in_group;
  const double count = static_cast<double>(plan.group_size);
  normalize_detail::for_each_group(parallel, plan, [&](std::size_t base) {
    double sum = 0;
    for_each_in_group(plan, base, [&](std::size_t i) { sum += static_cast<C>(in[i]); });
    const double mean = sum / count;
    double scale = 1;
    if (normalize_variance) {
      double squares = 0;
      for_each_in_group(plan, base, [&](std::size_t i) {
        const double d = static_cast<double>(static_cast<C>(in[i])) - mean;
        squares += d * d;
      });
      const double variance = squares / count;
      scale = 1 / (eps_mode == MvnEpsMode::inside_sqrt ? std::sqrt(variance + eps)
                                                       : std::sqrt(variance) + eps);
    }
    // Each element's own arithmetic: in double for float and double, which then round once;
    // in float for f16 and bf16, which round once from there. The subtraction cancels for a
    // group whose spread is small against its mean, so it is not done in float for f32.
    using W = std::conditional_t<std::is_same_v<T, C>, double, C>;
    const auto m = static_cast<W>(mean);
    const auto s = static_cast<W>(scale);
    for_each_in_group(plan, base, [&](std::size_t i) {
      out[i] = static_cast<T>(static_cast<C>((static_cast<W>(static_cast<C>(in[i])) - m) * s));
    });
  });
}

/// How NormalizeL2 joins eps to the sum of squares.
enum class L2EpsMode { add, max };

/// NormalizeL2: each element divided by sqrt(eps_mode(sum of its group's squares, eps)).
template <class T>
void normalize_l2(const Parallel& parallel, const GroupPlan& plan, const T* in, T* out, double eps,
                  L2EpsMode eps_mode) {
  using C = compute_t<T>;
  using normalize_detail::for_each_in_group;
  normalize_detail::for_each_group(parallel, plan, [&](std::size_t base) {
    double squares = 0;
    for_each_in_group(plan, base, [&](std::size_t i) {
      const double x = static_cast<C>(in[i]);
      squares += x * x;
    });
    const double scale =
        1 / std::sqrt(eps_mode == L2EpsMode::add ? squares + eps : std::max(squares, eps));
    const auto s = static_cast<C>(scale);
    for_each_in_group(plan, base,
                      [&](std::size_t i) { out[i] = static_cast<T>(static_cast<C>(in[i]) * s); });
  });
}

}  // namespace irlite
