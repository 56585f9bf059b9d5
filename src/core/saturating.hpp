#pragma once
// Arithmetic on sizes and extents that saturates instead of overflowing: a size too large to
// allocate, or an extent too large to hold, stays too large rather than wrapping to a small one.
// Both operands are never negative.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace irlite {

namespace saturating_detail {

template <std::integral T>
constexpr T mul(T a, T b) {
  T r{};
  return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<T>::max() : r;
}

}  // namespace saturating_detail

/// a * b, or SIZE_MAX when that overflows (byte counts).
constexpr std::size_t saturating_mul(std::size_t a, std::size_t b) {
  return saturating_detail::mul(a, b);
}
/// a * b, or INT64_MAX when that overflows (extents).
constexpr std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  return saturating_detail::mul(a, b);
}

/// a + b, or SIZE_MAX when that overflows.
constexpr std::size_t saturating_add(std::size_t a, std::size_t b) {
  return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}
/// a + b, or INT64_MAX (INT64_MIN, for a negative b) when that overflows (extents, and pads
/// that may be negative).
constexpr std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return b > 0 ? INT64_MAX : INT64_MIN;
  return sum;
}

/// a / b rounded up, for a >= 0 and b > 0, without the overflow of (a + b - 1) / b.
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

}  // namespace irlite
