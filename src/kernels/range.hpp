#pragma once
// Range: out[i] = start + i * step, for i in [0, n).
//
// Floating-point outputs compute each element from its index (OpenVINO's reference does too),
// so that no rounding error accumulates and any split over threads gives the same bits; f16 and
// bf16 compute in float and round once. Integer outputs wrap as the type does, computed in the
// unsigned type of the same width (the reference adds the step n times, which wraps the same).

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/parallel.hpp"
#include "kernels/element.hpp"
#include "kernels/simd.hpp"

namespace irlite {

namespace range_detail {

/// Elements [begin, end) of a native type's range (float, double or an integer); `start` and
/// `step` are already of that type.
template <class T>
IRLITE_MULTIVERSION void fill_native(T* __restrict out, T start, T step, std::size_t begin,
                                     std::size_t end) {
  if constexpr (std::is_floating_point_v<T>) {
    for (std::size_t i = begin; i < end; ++i) out[i] = start + static_cast<T>(i) * step;
  } else {
    using U = std::make_unsigned_t<T>;
    const auto s = static_cast<U>(start);
    const auto d = static_cast<U>(step);
    for (std::size_t i = begin; i < end; ++i) out[i] = static_cast<T>(s + static_cast<U>(i) * d);
  }
}

/// The same for f16 and bf16: computed in float, rounded once per element. Not multiversioned:
/// the rounding to 16 bits is a call the vector clones could not inline.
template <class T>
void fill_half(T* __restrict out, float start, float step, std::size_t begin, std::size_t end) {
  for (std::size_t i = begin; i < end; ++i) out[i] = T(start + static_cast<float>(i) * step);
}

}  // namespace range_detail

/// Writes n elements. For floats, `start` and `step` are the inputs already rounded to T (held
/// in compute_t<T>); for integers, converted to T.
template <class T>
void range_fill(const Parallel& parallel, T* out, compute_t<T> start, compute_t<T> step,
                std::size_t n) {
  parallel.for_range(n, std::size_t{1} << 14, [&](std::size_t begin, std::size_t end, std::size_t) {
    if constexpr (std::is_same_v<T, compute_t<T>>)
      range_detail::fill_native<T>(out, start, step, begin, end);
    else
      range_detail::fill_half<T>(out, start, step, begin, end);
  });
}

}  // namespace irlite
