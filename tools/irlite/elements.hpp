#pragma once
// Element types as C++ types for the command's own loops over tensor values (summaries,
// comparisons, JSON): the type values are computed in, and the library's dispatch with booleans.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "irlite/element_dispatch.hpp"
#include "irlite/element_type.hpp"
#include "irlite/float16.hpp"

namespace irlite::cli {

/// Whether T stores floating-point values: float, double and the 16-bit floats.
template <class T>
inline constexpr bool is_float_v =
    std::is_floating_point_v<T> || std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

/// The type values are compared and summed in: float for the 16-bit floats.
template <class T>
using compute_t =
    std::conditional_t<std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>, float, T>;

/// dispatch_numeric (irlite/element_dispatch.hpp), with booleans as their 0/1 bytes (std::uint8_t).
template <class F>
bool dispatch_all(ElementType type, F&& f) {
  if (type != ElementType::boolean) return dispatch_numeric(type, f);
  f(type_tag<std::uint8_t>{});
  return true;
}

/// What `irlite run` reports of a tensor's values: the smallest, the largest and the sum of the
/// values that are not NaN (`counted` of them), and the NaN and infinity counts.
template <class T>
struct ValueStats {
  std::size_t nan = 0, inf = 0, counted = 0;
  double sum = 0;
  compute_t<T> lo{}, hi{};
};

template <class T>
ValueStats<T> value_stats(std::span<const T> values) {
  ValueStats<T> s;
  for (const T v : values) {
    const compute_t<T> c = v;
    if constexpr (is_float_v<T>) {
      if (std::isnan(c)) {
        ++s.nan;
        continue;
      }
      if (std::isinf(c)) ++s.inf;
    }
    if (s.counted == 0 || c < s.lo) s.lo = c;
    if (s.counted == 0 || c > s.hi) s.hi = c;
    s.sum += static_cast<double>(c);
    ++s.counted;
  }
  return s;
}

}  // namespace irlite::cli
