#pragma once
// Element-wise unary kernels: one loop that applies a scalar function over a contiguous buffer,
// split over threads in contiguous chunks (each element is computed alone, so the result is the
// same for any thread count), and the scalar conversions that Convert and the integer versions
// of the floating-point functions share.

#include <bit>
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

/// The integer holding a storage type's bits where it is a struct (float16, bfloat16, boolean8),
/// the type itself otherwise: the loops read and write these, as the vectoriser does not take
/// loads and stores of structs.
template <class T, bool = std::is_class_v<T>>
struct raw_of {
  using type = T;
};
template <class T>
struct raw_of<T, true> {
  using type = decltype(T::bits);
};
template <class T>
using raw_t = typename raw_of<T>::type;

template <class T>
IRLITE_INLINE T from_raw(raw_t<T> r) {
  if constexpr (std::is_class_v<T>) {
    T t{};
    t.bits = r;
    return t;
  } else {
    return r;
  }
}

template <class T>
IRLITE_INLINE raw_t<T> to_raw(T t) {
  if constexpr (std::is_class_v<T>)
    return t.bits;
  else
    return t;
}

/// out[i] = f(in[i]) for i in [0, n): plain loops over restrict pointers, which the compiler
/// vectorises where f is simple enough (f's call operator must be IRLITE_INLINE). The loop runs
/// over blocks of a fixed size because GCC's -O2 cost model vectorises only loops that need no
/// scalar remainder; the last partial block is done element by element.
template <class In, class Out, class F>
IRLITE_INLINE void unary_loop_raw(const raw_t<In>* __restrict x, raw_t<Out>* __restrict y,
                                  std::size_t n, F f) {
  std::size_t i = 0;
  for (; i + kUnaryBlock <= n; i += kUnaryBlock) {
    const raw_t<In>* __restrict a = x + i;
    raw_t<Out>* __restrict b = y + i;
    for (std::size_t j = 0; j < kUnaryBlock; ++j) b[j] = to_raw<Out>(f(from_raw<In>(a[j])));
  }
  for (; i < n; ++i) y[i] = to_raw<Out>(f(from_raw<In>(x[i])));
}

template <class In, class Out, class F>
IRLITE_MULTIVERSION void unary_loop(const In* in, Out* out, std::size_t n, F f) {
  static_assert(sizeof(raw_t<In>) == sizeof(In) && sizeof(raw_t<Out>) == sizeof(Out));
  unary_loop_raw<In, Out>(reinterpret_cast<const raw_t<In>*>(in),
                          reinterpret_cast<raw_t<Out>*>(out), n, f);
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

// f16 <-> f32 without branches, so that loops over f16 data vectorise (float16's own
// conversions branch per value). Both give exactly float16's results: round to nearest even,
// infinity from 65520 up, NaN quiet with its sign (payload kept when widening).

/// The float value of f16 bits.
IRLITE_INLINE float half_to_float(std::uint16_t h) {
  const std::uint32_t magnitude = std::uint32_t{h & 0x7fffu} << 13;
  const std::uint32_t exponent = magnitude & 0x0f800000u;
  const std::uint32_t normal = magnitude + 0x38000000u;  // exponent rebiased by 127 - 15
  const std::uint32_t special = normal + 0x38000000u;    // infinity and NaN: all ones
  // Subnormals (and zero): the mantissa placed under the exponent of 2^-14, minus 2^-14.
  const std::uint32_t subnormal = std::bit_cast<std::uint32_t>(
      std::bit_cast<float>(magnitude + 0x38800000u) - std::bit_cast<float>(0x38800000u));
  // Selected by masks rather than conditions, which the vectoriser would not take here.
  const std::uint32_t is_special = 0u - static_cast<std::uint32_t>(exponent == 0x0f800000u);
  const std::uint32_t is_subnormal = 0u - static_cast<std::uint32_t>(exponent == 0);
  const std::uint32_t bits =
      (special & is_special) | (subnormal & is_subnormal) | (normal & ~(is_special | is_subnormal));
  return std::bit_cast<float>(bits | (std::uint32_t{h & 0x8000u} << 16));
}

/// The f16 bits of a float, rounded to nearest even.
IRLITE_INLINE std::uint16_t float_to_half(float value) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t sign = (u >> 16) & 0x8000u;
  const std::uint32_t a = u & 0x7fffffffu;
  // Below 2^-14, adding 0.5 (whose unit in the last place is 2^-24, the f16 subnormals' step)
  // makes the FPU round the value to a multiple of 2^-24, left in the low bits.
  const std::uint32_t subnormal =
      std::bit_cast<std::uint32_t>(std::bit_cast<float>(a) + 0.5f) - 0x3f000000u;
  // Normal: exponent rebiased, the 13 dropped bits rounded to nearest even (a carry into the
  // exponent is the right result).
  const std::uint32_t normal = (a + 0xc8000fffu + ((a >> 13) & 1u)) >> 13;
  // Selected by masks, as in half_to_float: NaN, then infinity, then subnormal or normal.
  const std::uint32_t is_nan = 0u - static_cast<std::uint32_t>(a > 0x7f800000u);
  const std::uint32_t is_inf = ~is_nan & (0u - static_cast<std::uint32_t>(a >= 0x477ff000u));
  const std::uint32_t is_subnormal = 0u - static_cast<std::uint32_t>(a < 0x38800000u);
  const std::uint32_t finite = (subnormal & is_subnormal) | (normal & ~is_subnormal);
  const std::uint32_t bits =
      (0x7e00u & is_nan) | (0x7c00u & is_inf) | (finite & ~(is_nan | is_inf));
  return static_cast<std::uint16_t>(bits | sign);
}

/// An element of storage type T as its compute type (f16 through half_to_float).
template <class T>
IRLITE_INLINE compute_t<T> load_value(T x) {
  if constexpr (std::is_same_v<T, float16>)
    return half_to_float(x.bits);
  else
    return static_cast<compute_t<T>>(x);
}

/// A compute-type value stored as T (f16 through float_to_half; bf16 rounded by its own
/// constructor).
template <class T>
IRLITE_INLINE T store_value(compute_t<T> v) {
  if constexpr (std::is_same_v<T, float16>)
    return float16::from_bits(float_to_half(v));
  else
    return T(v);
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
      return store_value<To>(b ? 1.0f : 0.0f);
    else
      return static_cast<To>(b);
  } else {
    using C = compute_t<From>;
    const C v = load_value(x);
    if constexpr (std::is_same_v<To, boolean8>) {
      return To{static_cast<std::uint8_t>(v != C(0))};
    } else if constexpr (std::is_same_v<To, float16> || std::is_same_v<To, bfloat16>) {
      return store_value<To>(static_cast<float>(v));
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
      return store_value<T>(f(load_value(x)));
    else
      return f(x);
  }
};

}  // namespace irlite
