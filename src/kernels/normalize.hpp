#pragma once
// Normalisation over a set of axes (MVN, NormalizeL2): the data falls into groups, one per index
// of the axes that are kept, each group holding the elements along the reduced axes. A group's
// statistics (mean and variance, or sum of squares) are summed in double by one thread in
// element order, and its elements are then written from them (f16 and bf16 through float,
// rounded once); groups are split over threads, so the result is the same on any number of
// threads.
//
// When the reduced axes are the innermost ones (NCHW normalised over H*W per channel, or over
// C*H*W per sample) each group is one contiguous run: that is the fast path, and when there are
// only a few such groups each is itself summed in fixed blocks over threads (wide()). Any other
// set of axes walks each group through its strides.

#include <algorithm>
#include <array>
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

/// A plan of few, large contiguous groups (one sample normalised over C*H*W, a couple of
/// channels over a large H*W): splitting groups over threads would leave threads idle, so each
/// group is split instead. Decided from the shapes alone, so that the summation order, and with
/// it every bit of the result, is the same on any number of threads.
inline bool wide(const GroupPlan& plan) {
  return plan.contiguous && plan.group_size >= (std::size_t{1} << 16) && plan.groups < 8;
}

/// The fixed blocks a wide group is summed in: at most this many, each by one thread in element
/// order, then added in block order.
inline constexpr std::size_t kMaxBlocks = 64;

/// The sum of term(i) for i in [begin, end): element i goes to lane i % 8 and the lanes are
/// added in order at the end, so that the additions do not wait on one another (and vectorise)
/// while the order stays fixed by the positions alone.
template <class F>
IRLITE_INLINE double lane_sum(std::size_t begin, std::size_t end, F&& term) {
  constexpr std::size_t kLanes = 8;
  double lanes[kLanes] = {};
  std::size_t i = begin;
  for (; i + kLanes <= end; i += kLanes)
    for (std::size_t k = 0; k < kLanes; ++k) lanes[k] += term(i + k);
  for (std::size_t k = 0; i < end; ++i, ++k) lanes[k] += term(i);
  double sum = 0;
  for (const double v : lanes) sum += v;
  return sum;
}

/// The sum of term(i) over the group at `base`: on this thread when `parallel` is null (lane by
/// lane for a contiguous group, else in element order), or for a wide group by blocks split
/// over `parallel`.
template <class F>
double group_sum(const Parallel* parallel, const GroupPlan& plan, std::size_t base, F&& term) {
  if (!parallel) {
    if (plan.contiguous) return lane_sum(base, base + plan.group_size, term);
    double sum = 0;
    for_each_in_group(plan, base, [&](std::size_t i) { sum += term(i); });
    return sum;
  }
  const std::size_t n = plan.group_size;
  const std::size_t blocks = std::min(kMaxBlocks, n >> 14);
  std::array<double, kMaxBlocks> partial{};
  parallel->for_range(blocks, 1, [&](std::size_t b0, std::size_t b1, std::size_t) {
    for (std::size_t b = b0; b < b1; ++b) {
      const std::size_t begin = n / blocks * b + std::min(b, n % blocks);
      const std::size_t end = begin + n / blocks + (b < n % blocks ? 1 : 0);
      partial[b] = lane_sum(base + begin, base + end, term);
    }
  });
  double sum = 0;
  for (std::size_t b = 0; b < blocks; ++b) sum += partial[b];
  return sum;
}

/// Calls fn(i) for each element of the group at `base`, split over `parallel` when not null
/// (each element on its own, so the split does not matter).
template <class F>
void group_write(const Parallel* parallel, const GroupPlan& plan, std::size_t base, F&& fn) {
  if (!parallel) {
    for_each_in_group(plan, base, fn);
    return;
  }
  parallel->for_range(plan.group_size, std::size_t{1} << 14,
                      [&](std::size_t begin, std::size_t end, std::size_t) {
                        for (std::size_t i = base + begin; i < base + end; ++i) fn(i);
                      });
}

/// Runs fn(group_base, inner) for every group: a wide plan's groups one after the other with
/// `inner` the threads to split each over, any other plan's groups split over threads with
/// `inner` null.
template <class F>
void for_each_group(const Parallel& parallel, const GroupPlan& plan, F&& fn) {
  if (plan.groups == 0 || plan.group_size == 0) return;
  if (wide(plan)) {
    for (std::size_t g = 0; g < plan.groups; ++g) fn(g * plan.group_size, &parallel);
    return;
  }
  const std::size_t grain = std::max<std::size_t>(1, (std::size_t{1} << 15) / plan.group_size);
  parallel.for_range(plan.groups, grain, [&](std::size_t begin, std::size_t end, std::size_t) {
    for (std::size_t g = begin; g < end; ++g)
      fn(plan.contiguous ? g * plan.group_size : offset_of(plan.kept, g),
         static_cast<const Parallel*>(nullptr));
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
  using normalize_detail::group_sum;
  using normalize_detail::group_write;
  const double count = static_cast<double>(plan.group_size);
  normalize_detail::for_each_group(parallel, plan, [&](std::size_t base, const Parallel* inner) {
    const double mean =
        group_sum(inner, plan, base, [&](std::size_t i) { return static_cast<double>(static_cast<C>(in[i])); }) /
        count;
    double scale = 1;
    if (normalize_variance) {
      const double squares = group_sum(inner, plan, base, [&](std::size_t i) {
        const double d = static_cast<double>(static_cast<C>(in[i])) - mean;
        return d * d;
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
    group_write(inner, plan, base, [&](std::size_t i) {
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
  using normalize_detail::group_sum;
  normalize_detail::for_each_group(parallel, plan, [&](std::size_t base, const Parallel* inner) {
    const double squares = group_sum(inner, plan, base, [&](std::size_t i) {
      const double x = static_cast<C>(in[i]);
      return x * x;
    });
    const double scale =
        1 / std::sqrt(eps_mode == L2EpsMode::add ? squares + eps : std::max(squares, eps));
    const auto s = static_cast<C>(scale);
    normalize_detail::group_write(inner, plan, base, [&](std::size_t i) {
      out[i] = static_cast<T>(static_cast<C>(in[i]) * s);
    });
  });
}

}  // namespace irlite
