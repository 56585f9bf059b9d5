#pragma once
// Element-wise unary kernels: one loop that applies a scalar function over a contiguous buffer,
// split over threads in contiguous chunks (each element is computed alone, so the result is the
// same for any thread count), and the scalar conversions that Convert and the integer versions
// of the floating-point functions share.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/parallel.hpp"
#include "kernels/element.hpp"
#include "kernels/simd.hpp"

namespace irlite {

/// Elements per chunk below which a unary loop is not split: about the work that pays for
/// waking a thread.
inline constexpr std::size_t kUnaryGrain = std::size_t{1} << 15;

/// The storage of a boolean element, distinct from u8's so that a conversion can tell them
/// apart: one byte, 0 or 1 (any non-zero byte reads as true).
struct boolean8 {
  std::uint8_t bits;
};

/// Calls f(type_tag<T>{}) with T the storage type of any tensor element type: the numeric types
/// as dispatch_numeric, and boolean8 for boolean. Returns false for undefined.
template <class F>
bool dispatch_any(ElementType type, F&& f) {
  if (type == ElementType::boolean) {
    f(type_tag<boolean8>{});
    return true;
  }
  return dispatch_numeric(type, f);
}

/// Elements per block of unary_loop: a multiple of every vector width.
inline constexpr std::size_t kUnaryBlock = 64;

/// out[i] = f(in[i]) for i in [0, n): plain loops over restrict pointers, which the compiler
/// vectorises where f is simple enough (f's call operator must be IRLITE_INLINE). The loop runs
/// over blocks of a fixed size because GCC's -O2 cost model vectorises only loops that need no
/// scalar remainder; the last partial block is done element by element.
template <class In, class Out, class F>
IRLITE_MULTIVERSION void unary_loop(const In* __restrict in, Out* __restrict out, std::size_t n,
                                    F f) {
  std::size_t i = 0;
  for (; i + kUnaryBlock <= n; i += kUnaryBlock) {
    const In* __restrict a = in + i;
    Out* __restrict b = out + i;
    for (std::size_t j = 0; j < kUnaryBlock; ++j) b[j] = f(a[j]);
  }
  for (; i < n; ++i) out[i] = f(in[i]);
}

/// unary_loop over [0, n), split into chunks of at least `grain` elements over the threads.
template <class In, class Out, class F>
void unary_map(const Parallel& parallel, const In* in, Out* out, std::size_t n, F f,
               std::size_t grain = kUnaryGrain) {
  parallel.for_range(n, grain, [&](std::size_t begin, std::size_t end, std::size_t) {
    unary_loop(in + begin, out + begin, end - begin, f);
  });
}

/// A floating-point value (float or double) converted to an integer type as OpenVINO's
/// reference converts it (a C++ static_cast) on x86-64, where it is defined by the CPU's
/// truncating conversions: the value is truncated toward zero; in range, that is the result.
/// Out of range and NaN follow the instructions a static_cast compiles to: i8, i16, u8, u16 and
/// i32 go through a 32-bit conversion (out of range: INT32_MIN, then wrapped to the type), u32
/// and i64 through a 64-bit one (INT64_MIN, wrapped), and u64 converts [2^63, 2^64) exactly,
/// larger values and +inf to 0, and NaN, -inf and values below -2^63 to 2^63.
template <class To, class C>
IRLITE_INLINE To float_to_integer(C x) {
  static_assert(std::is_floating_point_v<C> && std::is_integral_v<To>);
  constexpr C two31 = C(2147483648.0);
  constexpr C two63 = C(9223372036854775808.0);
  if constexpr (sizeof(To) < 4 || std::is_same_v<To, std::int32_t>) {
    const std::int32_t r = (x >= -two31 && x < two31) ? static_cast<std::int32_t>(x)
                                                      : std::numeric_limits<std::int32_t>::min();
    return static_cast<To>(r);
  } else if constexpr (std::is_same_v<To, std::uint32_t> || std::is_same_v<To, std::int64_t>) {
    const std::int64_t r = (x >= -two63 && x < two63) ? static_cast<std::int64_t>(x)
                                                      : std::numeric_limits<std::int64_t>::min();
    return static_cast<To>(r);
  } else {
    static_assert(std::is_same_v<To, std::uint64_t>);
    if (x >= two63) return x < C(2) * two63 ? static_cast<std::uint64_t>(x) : std::uint64_t{0};
    const std::int64_t r =
        x >= -two63 ? static_cast<std::int64_t>(x) : std::numeric_limits<std::int64_t>::min();
    return static_cast<std::uint64_t>(r);
  }
}

// Floor, ceiling and rounding half away from zero built on nearbyint (ties to even in the
// default rounding mode), which GCC turns into one vector instruction where the CPU has one
// (SSE4.1 and later), whereas its std::floor and std::round stay scalar or calls. Each gives
// exactly the std:: function's result, signed zeros, infinities and NaN included: the
// difference x - nearbyint(x) is exact. Every arithmetic operation is done on every lane and
// only the results are selected, as the vectoriser may not move a floating-point operation
// that could trap out of a condition.

template <class C>
IRLITE_INLINE C ceil_value(C x) {
  const C r = std::nearbyint(x);
  // The sign is x's: from (-1, -0.5] the result is -0, which r + 1 alone would make +0.
  return std::copysign(r + (r < x ? C(1) : C(0)), x);
}

template <class C>
IRLITE_INLINE C floor_value(C x) {
  return -ceil_value(-x);
}

template <class C>
IRLITE_INLINE C round_half_away_value(C x) {
  // On |x|, a tie that nearbyint took down to even goes up instead.
  const C a = std::fabs(x);
  const C r = std::nearbyint(a);
  return std::copysign(r + (a - r == C(0.5) ? C(1) : C(0)), x);
}

/// One element converted from storage type From to storage type To, as Convert-1 does:
/// booleans read as 0 or 1 and are written as (value != 0) (NaN is true); integers wrap modulo
/// 2^N; floats become integers by float_to_integer; every conversion to f16 or bf16 goes through
/// float (as OpenVINO's 16-bit types are built from a float), and is rounded to nearest even.
template <class From, class To>
IRLITE_INLINE To convert_value(From x) {
  if constexpr (std::is_same_v<From, boolean8>) {
    const bool b = x.bits != 0;
    if constexpr (std::is_same_v<To, boolean8>)
      return To{static_cast<std::uint8_t>(b)};
    else if constexpr (std::is_same_v<To, float16> || std::is_same_v<To, bfloat16>)
      return To(b ? 1.0f : 0.0f);
    else
      return static_cast<To>(b);
  } else {
    using C = compute_t<From>;
    const C v = static_cast<C>(x);
    if constexpr (std::is_same_v<To, boolean8>) {
      return To{static_cast<std::uint8_t>(v != C(0))};
    } else if constexpr (std::is_same_v<To, float16> || std::is_same_v<To, bfloat16>) {
      return To(static_cast<float>(v));
    } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<C>) {
      return float_to_integer<To>(v);
    } else {
      return static_cast<To>(v);
    }
  }
}

/// The converting functor for unary_map.
template <class From, class To>
struct ConvertFn {
  IRLITE_INLINE To operator()(From x) const { return convert_value<From, To>(x); }
};

/// Applies F (a functor whose IRLITE_INLINE call operator takes and returns compute_t<T>) to an
/// element of storage type T: the 16-bit floats are computed in float and rounded once.
template <class T, class F>
struct Lifted {
  F f;
  IRLITE_INLINE T operator()(T x) const {
    if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>)
      return T(f(static_cast<float>(x)));
    else
      return f(x);
  }
};

}  // namespace irlite
