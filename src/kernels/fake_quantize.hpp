#pragma once
// FakeQuantize's kernel: each element of x mapped onto one of `levels` values between its
// output limits il, ih (input) and ol, oh (output), with L = levels - 1:
//
//   x <= min(il, ih):  ol
//   x > max(il, ih):   oh
//   otherwise:         nearbyint((x - il) / (ih - il) * L) / L * (oh - ol) + ol
//
// in the compute type (float for f16, bf16 and f32, double for f64), rounded once to the
// element type. nearbyint rounds halves to even (irlite never changes the rounding mode), and
// every operation is done in the order written, without fused multiply-adds, as OpenVINO's
// reference does.
//
// The limits broadcast into x's shape; the elementwise plan (kernels/elementwise.hpp) cuts the
// output into runs along which each limit is either one value or read element by element. A run
// of one value per limit (per-tensor limits, or per-channel ones along a channel's plane) works
// out the differences and bounds once and maps the run in one vectorised pass; a run whose limits
// vary takes them element by element, with the same arithmetic (vectorised too where all four
// advance with x). Threads split the output into contiguous ranges and every element is computed
// alone, so the bits do not depend on the split.

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/parallel.hpp"
#include "kernels/element.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/unary.hpp"

namespace irlite {

/// One element's limits in compute type C, with what the formula derives from them.
template <class C>
struct QuantizeLimits {
  C in_low;
  C in_range;  ///< ih - il
  C below;     ///< min(il, ih): at or below it, ol
  C above;     ///< max(il, ih): above it, oh
  C out_low;
  C out_high;
  C out_range;  ///< oh - ol
  C steps;      ///< levels - 1

  IRLITE_INLINE static QuantizeLimits make(C il, C ih, C ol, C oh, C steps) {
    // std::min and std::max's choices (the first argument on a tie or a NaN), on values.
    return {il, ih - il, ih < il ? ih : il, il < ih ? ih : il, ol, oh, oh - ol, steps};
  }
};

/// The formula on one element. Every lane computes the quotient, and the branches pick the
/// result by bit masks rather than conditions: the compiler would otherwise move the division
/// into the branch that uses it, and a loop with a division under a condition does not vectorise
/// (the division could trap). NaN reaches the quotient and stays NaN.
template <class C>
IRLITE_INLINE C quantize_value(C x, const QuantizeLimits<C>& q) {
  using U = std::conditional_t<sizeof(C) == 4, std::uint32_t, std::uint64_t>;
  const C level = std::nearbyint((x - q.in_low) / q.in_range * q.steps);
  const C r = level / q.steps * q.out_range + q.out_low;
  const U low = U{0} - static_cast<U>(x <= q.below);
  const U high = ~low & (U{0} - static_cast<U>(x > q.above));
  const U bits = (std::bit_cast<U>(q.out_low) & low) | (std::bit_cast<U>(q.out_high) & high) |
                 (std::bit_cast<U>(r) & ~(low | high));
  return std::bit_cast<C>(bits);
}

/// quantize_value on elements of storage type T with fixed limits (a unary_loop functor).
template <class T>
struct QuantizeFixed {
  QuantizeLimits<compute_t<T>> q;
  IRLITE_INLINE T operator()(T x) const { return store_value<T>(quantize_value(load_value(x), q)); }
};

/// The four limits' pointers, of x's storage type.
template <class T>
struct QuantizeInputs {
  const T* x = nullptr;
  const T* in_low = nullptr;
  const T* in_high = nullptr;
  const T* out_low = nullptr;
  const T* out_high = nullptr;
};

/// One element of storage type T against its own limits.
template <class T>
IRLITE_INLINE T quantize_element(T x, T il, T ih, T ol, T oh, compute_t<T> steps) {
  const auto q = QuantizeLimits<compute_t<T>>::make(load_value(il), load_value(ih), load_value(ol),
                                                    load_value(oh), steps);
  return store_value<T>(quantize_value(load_value(x), q));
}

/// quantize_element on the elements' bits (the loops read and write integers, see unary_loop).
template <class T>
IRLITE_INLINE raw_t<T> quantize_bits(raw_t<T> x, raw_t<T> il, raw_t<T> ih, raw_t<T> ol, raw_t<T> oh,
                                     compute_t<T> steps) {
  return to_raw<T>(quantize_element<T>(from_raw<T>(x), from_raw<T>(il), from_raw<T>(ih),
                                       from_raw<T>(ol), from_raw<T>(oh), steps));
}

/// A run whose limits all advance with x (per-element limits, or per-channel ones of an
/// [N, C, 1, 1] tensor), on the elements' bits in blocks, as unary_loop, so that it vectorises.
template <class T>
IRLITE_MULTIVERSION void quantize_each(const raw_t<T>* __restrict x, const raw_t<T>* __restrict il,
                                       const raw_t<T>* __restrict ih, const raw_t<T>* __restrict ol,
                                       const raw_t<T>* __restrict oh, raw_t<T>* __restrict y,
                                       std::size_t n, compute_t<T> steps) {
  std::size_t i = 0;
  for (; i + kUnaryBlock <= n; i += kUnaryBlock) {
    const raw_t<T>* __restrict xb = x + i;
    const raw_t<T>* __restrict b1 = il + i;
    const raw_t<T>* __restrict b2 = ih + i;
    const raw_t<T>* __restrict b3 = ol + i;
    const raw_t<T>* __restrict b4 = oh + i;
    raw_t<T>* __restrict yb = y + i;
    for (std::size_t j = 0; j < kUnaryBlock; ++j)
      yb[j] = quantize_bits<T>(xb[j], b1[j], b2[j], b3[j], b4[j], steps);
  }
  for (; i < n; ++i) y[i] = quantize_bits<T>(x[i], il[i], ih[i], ol[i], oh[i], steps);
}

/// Any other run: limit k advances by s[k] (0 or 1) elements.
template <class T>
void quantize_strided(const T* x, const T* il, std::int64_t s1, const T* ih, std::int64_t s2,
                      const T* ol, std::int64_t s3, const T* oh, std::int64_t s4, T* y,
                      std::int64_t n, compute_t<T> steps) {
  for (std::int64_t i = 0; i < n; ++i)
    y[i] = quantize_element<T>(x[i], il[i * s1], ih[i * s2], ol[i * s3], oh[i * s4], steps);
}

/// FakeQuantize over a plan whose input 0 is x (never broadcast: the output has its shape) and
/// inputs 1 to 4 the limits; `levels` >= 2.
template <class T>
void fake_quantize(const Parallel& parallel, const ElementwisePlan& plan,
                   const QuantizeInputs<T>& in, T* out, std::int64_t levels) {
  using C = compute_t<T>;
  // levels - 1 in the element type, as the reference holds it.
  const C steps = load_value(store_value<T>(static_cast<C>(levels - 1)));
  const auto& s = plan.strides.back();
  const bool fixed = s[1] == 0 && s[2] == 0 && s[3] == 0 && s[4] == 0;
  const bool each = s[1] == 1 && s[2] == 1 && s[3] == 1 && s[4] == 1;
  const auto raw = [](const T* p) { return reinterpret_cast<const raw_t<T>*>(p); };
  for_each_run(parallel, plan, [&](const auto& off, std::int64_t o, std::int64_t n) {
    const T* il = in.in_low + off[1];
    const T* ih = in.in_high + off[2];
    const T* ol = in.out_low + off[3];
    const T* oh = in.out_high + off[4];
    if (fixed) {
      const auto q = QuantizeLimits<C>::make(load_value(*il), load_value(*ih), load_value(*ol),
                                             load_value(*oh), steps);
      unary_loop(in.x + off[0], out + o, static_cast<std::size_t>(n), QuantizeFixed<T>{q});
    } else if (each) {
      quantize_each<T>(raw(in.x + off[0]), raw(il), raw(ih), raw(ol), raw(oh),
                       reinterpret_cast<raw_t<T>*>(out + o), static_cast<std::size_t>(n), steps);
    } else {
      quantize_strided(in.x + off[0], il, s[1], ih, s[2], ol, s[3], oh, s[4], out + o, n, steps);
    }
  });
}

}  // namespace irlite
