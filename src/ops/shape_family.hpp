#pragma once
// Helpers shared by the shape and data-movement ops (ShapeOf, Reshape, Squeeze, Unsqueeze,
// Concat, Transpose, Tile): interval arithmetic on dimensions.

#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "core/saturating.hpp"
#include "graph/op.hpp"
#include "irlite/shape.hpp"

namespace irlite {

/// The product of two intervals: a zero extent on either side makes it 0, an unbounded side
/// (or an overflowing product) leaves it unbounded.
inline Dimension multiply(const Dimension& a, const Dimension& b) {
  const std::int64_t lo = saturating_mul(a.min(), b.min());
  if ((a.has_upper_bound() && a.max() == 0) || (b.has_upper_bound() && b.max() == 0))
    return Dimension(0);
  if (!a.has_upper_bound() || !b.has_upper_bound()) return Dimension(lo, Dimension::unbounded);
  const std::int64_t hi = saturating_mul(a.max(), b.max());
  return Dimension(lo, hi == std::numeric_limits<std::int64_t>::max() ? Dimension::unbounded : hi);
}

/// The sum of two intervals (Concat's axis).
inline Dimension add(const Dimension& a, const Dimension& b) {
  std::int64_t lo = 0, hi = 0;
  if (__builtin_add_overflow(a.min(), b.min(), &lo)) lo = std::numeric_limits<std::int64_t>::max();
  if (!a.has_upper_bound() || !b.has_upper_bound() || __builtin_add_overflow(a.max(), b.max(), &hi))
    return Dimension(lo, Dimension::unbounded);
  return Dimension(lo, hi);
}

}  // namespace irlite
