#include "ops/indexing_slice.hpp"

#include <algorithm>
#include <limits>

namespace irlite {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
// An unbounded extent, as OpenVINO's rule writes it.
constexpr std::int64_t kInfinite = -1;

std::int64_t clip(std::int64_t v, std::int64_t lo, std::int64_t hi) {
  return std::min(std::max(v, lo), hi);
}

/// A negative index counted from the end of `n` (n may stand for an unbounded extent: INT64_MAX).
std::int64_t from_end(std::int64_t v, std::int64_t n) {
  return v < 0 ? v + n : v;
}

/// The number of elements a slice takes from an extent `dim` (kInfinite: unbounded), or
/// kInfinite when it has no bound. Unbounded extents count as INT64_MAX, and a start or stop on
/// either side of 0, or at a sentinel, leaves the count open the way OpenVINO's rule does.
std::int64_t sliced_count(std::int64_t dim, std::int64_t start, std::int64_t stop,
                          std::int64_t step) {
  const bool reverse = step < 0;
  const std::int64_t n = dim == kInfinite ? kMax : dim;
  const bool n_is_max = n == kMax;
  const bool start_negative = start < 0;
  const bool signs_differ = start_negative != (stop < 0);
  const bool start_is_limit = start == kMax || start == kMin;
  const bool any_max = start == kMax || stop == kMax;
  std::int64_t lb = 0, ub = 0;
  if (n_is_max && (signs_differ || any_max || start_is_limit)) {
    if (reverse)
      ub = start_negative || any_max ? kInfinite : kInfinite - start;
    else if (start_negative && !start_is_limit)
      ub = stop == kMax ? -start : stop;
    else
      ub = kInfinite;
    lb = 0;
  } else {
    lb = clip(from_end(start, n), 0, reverse ? n - 1 : n);
    ub = clip(from_end(stop, n), reverse ? -1 : 0, n);
  }
  if (n_is_max && lb == 0 && ub == kInfinite) return kInfinite;
  // The span, counted in the step's direction (so never negative going forward, never positive
  // going backward), then divided by the step rounding away from zero.
  std::int64_t span =
      reverse ? std::min<std::int64_t>(0, ub - lb) : std::max<std::int64_t>(0, ub - lb);
  if (step == -1) return -span;
  if (span != 0 && step != 1) {
    span += reverse ? 1 : -1;
    span /= step;
    ++span;
  }
  return span;
}

}  // namespace

StridedAxis slice_axis(std::int64_t extent, std::int64_t start, std::int64_t stop,
                       std::int64_t step) {
  StridedAxis axis;
  axis.step = step;
  if (extent == 0) return axis;
  if (step > 0) {
    const std::int64_t b = clip(from_end(start, extent), 0, extent);
    const std::int64_t e = clip(from_end(stop, extent), 0, extent);
    axis.start = b;
    axis.count = e > b ? (e - b - 1) / step + 1 : 0;
  } else {
    const std::int64_t b = clip(from_end(start, extent), 0, extent - 1);
    const std::int64_t e = clip(from_end(stop, extent), -1, extent - 1);
    axis.start = b;
    // -(step + 1) is |step| - 1 without overflowing at INT64_MIN.
    axis.count = b > e ? static_cast<std::int64_t>(static_cast<std::uint64_t>(b - e - 1) /
                                                   (static_cast<std::uint64_t>(-(step + 1)) + 1)) +
                             1
                       : 0;
  }
  if (axis.count == 0) axis.start = 0;
  // One element (or none) needs no step; a huge step kept would overflow the copy's offsets.
  if (axis.count <= 1) axis.step = 1;
  return axis;
}

Dimension sliced_dimension(const Dimension& dim, SliceBounds start, SliceBounds stop,
                           std::int64_t step) {
  const std::int64_t max = dim.has_upper_bound() ? dim.max() : kInfinite;
  // A range crossing 0 holds both a start at 0 and one at the end: the extremes of the count
  // come from those two, when they lie within the dimension.
  const auto narrow = [&](SliceBounds b) {
    if (!(b.first < 0 && b.second >= 0)) return b;
    const bool lb_within = max == kInfinite || b.first + max >= 0;
    const bool ub_within = max == kInfinite || b.second < max;
    return SliceBounds{lb_within ? 0 : b.first, ub_within ? -1 : b.second};
  };
  const SliceBounds s = narrow(start);
  const SliceBounds e = narrow(stop);
  std::int64_t lo = 0, hi = 0;
  if (step > 0) {
    lo = sliced_count(dim.min(), s.second, e.first, step);
    hi = sliced_count(max, s.first, e.second, step);
  } else {
    lo = sliced_count(dim.min(), s.first, e.second, step);
    hi = sliced_count(max, s.second, e.first, step);
  }
  return Dimension(lo, hi);
}

}  // namespace irlite
