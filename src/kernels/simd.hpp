#pragma once
// Vector code that reaches every x86-64 CPU without -march flags.
//
// Hot loops are written once on fixed-width vectors (the GCC/Clang vector extensions: 32 bytes,
// so 8 floats or 32 bytes per operation) and the function that holds them is marked
// IRLITE_MULTIVERSION: GCC compiles it three times (baseline x86-64 with SSE2, x86-64-v3 with
// AVX2, x86-64-v4 with AVX-512) and the dynamic loader picks the clone that the CPU runs, once,
// at start-up. Only the marked function is cloned: whatever it calls without inlining is ordinary
// baseline code, so no AVX instruction can leak into code that an older CPU runs. Everything a
// marked function calls in its hot loop must therefore be IRLITE_INLINE.
//
// Elsewhere (Clang, other architectures, ThreadSanitizer builds) the same code is compiled once
// for the target flags.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "core/multiversion.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace irlite::simd {

/// Bytes per vector.
inline constexpr std::size_t kBytes = 32;

template <class T>
struct vec_traits;

// The vector_size attribute cannot take a dependent type, hence one specialisation per type.
#define IRLITE_SIMD_VEC(T)                                                    \
  template <>                                                                 \
  struct vec_traits<T> {                                                      \
    typedef T type __attribute__((vector_size(kBytes), aligned(alignof(T)))); \
  };
IRLITE_SIMD_VEC(float)
IRLITE_SIMD_VEC(double)
IRLITE_SIMD_VEC(std::int8_t)
IRLITE_SIMD_VEC(std::int16_t)
IRLITE_SIMD_VEC(std::int32_t)
IRLITE_SIMD_VEC(std::int64_t)
IRLITE_SIMD_VEC(std::uint8_t)
IRLITE_SIMD_VEC(std::uint16_t)
IRLITE_SIMD_VEC(std::uint32_t)
IRLITE_SIMD_VEC(std::uint64_t)
#undef IRLITE_SIMD_VEC

/// Whether T has a vector type here (the native arithmetic types; not the 16-bit floats).
template <class T>
inline constexpr bool has_vec = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                (std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                                 sizeof(T) <= 8 && (sizeof(T) != 1 || !std::is_same_v<T, char>));

/// A vector of T: lanes<T> elements.
template <class T>
using vec = typename vec_traits<T>::type;

template <class T>
inline constexpr std::size_t lanes = kBytes / sizeof(T);

/// The result of a lane-wise comparison of two vec<T>: all ones where true, zero where false.
template <class T>
using mask = decltype(vec<T>{} > vec<T>{});

/// Unaligned load and store.
template <class T>
IRLITE_INLINE vec<T> load(const T* p) {
  vec<T> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <class T>
IRLITE_INLINE void store(T* p, vec<T> v) {
  std::memcpy(p, &v, sizeof v);
}

/// The bits of `v` as a `To` of the same size, for vectors as for scalars. std::bit_cast takes
/// its argument by reference, which clang warns about for vec<T>: its alignment is the lane's.
template <class To, class From>
IRLITE_INLINE To bit_cast(From v) {
  static_assert(sizeof(To) == sizeof(From));
  return __builtin_bit_cast(To, v);
}

/// Every lane x. Lane by lane: GCC makes that one vbroadcastss in a kernel's AVX2 clone, where
/// `x - vec<T>{}` (the scalar broadcast by the arithmetic), inlined from this helper compiled for
/// the baseline, became seven vinsertps and a vinsertf128.
template <class T>
IRLITE_INLINE vec<T> broadcast(T x) {
  vec<T> v{};
  for (std::size_t i = 0; i < lanes<T>; ++i) v[i] = x;
  return v;
}

/// Lane-wise b > a ? b : a: the maximum, where a NaN in b is dropped and a NaN in a stays only
/// until a number arrives. Callers that propagate NaN track it apart (is_nan).
template <class V>
IRLITE_INLINE V max(V a, V b) {
  return b > a ? b : a;
}

template <class V>
IRLITE_INLINE V min(V a, V b) {
  return b < a ? b : a;
}

/// Lanes holding NaN (floating-point types; integers never).
template <class V>
IRLITE_INLINE auto is_nan(V v) {
  return v != v;
}

/// The type of one lane of a vector or mask.
template <class V>
using lane_t = std::remove_cvref_t<decltype(std::declval<V>()[0])>;

#if defined(__SSE2__)
/// The two 16-byte halves of a 32-byte mask, as SSE register type H.
template <class H, class M>
IRLITE_INLINE void halves(M m, H& lo, H& hi) {
  std::memcpy(&lo, &m, 16);
  std::memcpy(&hi, reinterpret_cast<const char*>(&m) + 16, 16);
}

#endif

/// One bit per byte of a mask (bit b is byte b's top bit): a set lane sets sizeof(lane) bits.
/// On x86-64 two SSE2 byte movemasks, which every x86-64 CPU has; reading the mask lane by lane
/// instead costs an extract per lane.
template <class M>
IRLITE_INLINE std::uint32_t byte_bits(M m) {
  static_assert(sizeof(M) == 32);
#if defined(__SSE2__)
  __m128i lo, hi;
  halves(m, lo, hi);
  return static_cast<std::uint32_t>(_mm_movemask_epi8(lo)) |
         static_cast<std::uint32_t>(_mm_movemask_epi8(hi)) << 16;
#else
  unsigned char bytes[32];
  std::memcpy(bytes, &m, 32);
  std::uint32_t bits = 0;
  for (std::size_t b = 0; b < 32; ++b) bits |= static_cast<std::uint32_t>(bytes[b] >> 7) << b;
  return bits;
#endif
}

/// Whether any lane of a mask is set.
template <class M>
IRLITE_INLINE bool any(M m) {
  return byte_bits(m) != 0;
}

/// The first set lane of a mask that has one.
template <class M>
IRLITE_INLINE std::size_t first_lane(M m) {
  return static_cast<std::size_t>(std::countr_zero(byte_bits(m))) / sizeof(lane_t<M>);
}

/// One bit per lane of a mask (bit i is lane i): SSE2 movemasks of the two halves on x86-64.
template <class M>
IRLITE_INLINE std::uint32_t lane_bits(M m) {
  constexpr std::size_t width = sizeof(lane_t<M>);
  static_assert(sizeof(M) == 32);
#if defined(__SSE2__)
  if constexpr (width == 1) {
    return byte_bits(m);
  } else if constexpr (width == 2) {
    __m128i lo, hi;
    halves(m, lo, hi);
    // Lanes of all ones or all zeros saturate to bytes of the same.
    return static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_packs_epi16(lo, hi)));
  } else if constexpr (width == 4) {
    __m128 lo, hi;
    halves(m, lo, hi);
    return static_cast<std::uint32_t>(_mm_movemask_ps(lo)) |
           static_cast<std::uint32_t>(_mm_movemask_ps(hi)) << 4;
  } else {
    __m128d lo, hi;
    halves(m, lo, hi);
    return static_cast<std::uint32_t>(_mm_movemask_pd(lo)) |
           static_cast<std::uint32_t>(_mm_movemask_pd(hi)) << 2;
  }
#else
  std::uint32_t bits = 0;
  for (std::size_t i = 0; i < 32 / width; ++i) bits |= static_cast<std::uint32_t>(m[i] != 0) << i;
  return bits;
#endif
}

/// How far ahead of a contiguous scan to prefetch: the hardware prefetcher alone leaves a scan of
/// memory-resident data about 10 % below the read bandwidth on the machines measured (a float
/// maximum over 256 MiB at one thread: 7.15 ms, 6.6 with the prefetch 4 or 8 KiB ahead, 7.1 at
/// 2 KiB).
inline constexpr std::int64_t kPrefetchBytes = 8192;

/// For a scan that reads `count` elements at x + i per step: prefetches the cache lines it reads
/// kPrefetchBytes later, when they lie inside x[0..readable). A scan of one row of many may pass
/// the rows after its own as readable, so that the next row is on its way when this one ends.
template <class T>
IRLITE_INLINE void prefetch_ahead(const T* x, std::int64_t i, std::int64_t count,
                                  std::int64_t readable) {
  constexpr auto kSize = static_cast<std::int64_t>(sizeof(T));
  constexpr std::int64_t kAhead = kPrefetchBytes / kSize;
  constexpr std::int64_t kLine = 64 / kSize;
  if (i + kAhead + count <= readable) {
    for (std::int64_t l = 0; l < count; l += kLine) __builtin_prefetch(x + i + kAhead + l);
  }
}

/// The same for a step of `Bytes`, known at compile time (whole cache lines).
template <std::size_t Bytes, class T>
IRLITE_INLINE void prefetch_ahead(const T* x, std::int64_t i, std::int64_t readable) {
  static_assert(Bytes % 64 == 0);
  prefetch_ahead(x, i, static_cast<std::int64_t>(Bytes / sizeof(T)), readable);
}

namespace detail {

/// v with lane i swapped for lane i ^ Half.
template <std::size_t Half, class V, std::size_t... I>
IRLITE_INLINE V swap_lanes(V v, std::index_sequence<I...>) {
#if defined(__clang__)
  return __builtin_shufflevector(v, v, (I ^ Half)...);
#else
  using M = decltype(v > v);
  return __builtin_shuffle(v, M{static_cast<lane_t<M> >(I ^ Half)...});
#endif
}

/// Folds halves of v down to lane 0 with b > a ? b : a.
template <std::size_t Half, class V>
IRLITE_INLINE V fold_max(V v) {
  if constexpr (Half == 0) {
    return v;
  } else {
    constexpr std::size_t n = sizeof(V) / sizeof(lane_t<V>);
    const V other = swap_lanes<Half>(v, std::make_index_sequence<n>{});
    return fold_max<Half / 2>(other > v ? other : v);
  }
}

}  // namespace detail

/// The largest lane (NaN lanes ignored unless all are NaN; callers track NaN apart), found by
/// folding halves: log2(lanes) shuffles instead of an extract per lane.
template <class V>
IRLITE_INLINE lane_t<V> max_lane(V v) {
  return detail::fold_max<sizeof(V) / sizeof(lane_t<V>) / 2>(v)[0];
}

}  // namespace irlite::simd
