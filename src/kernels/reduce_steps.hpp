#pragma once
// The reductions' building blocks (kernels/reduce.hpp): the contiguous scans of the extrema, the
// element-wise folds of rows into an output row, and the steps each reduction takes an element
// in with, on scalars and on vectors.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/element.hpp"
#include "kernels/simd.hpp"

namespace irlite {

namespace reduce_detail {

/// The largest value of a storage type: +inf for floats, the largest value for integers.
template <class T>
T highest_value() {
  if constexpr (is_float_storage_v<T>)
    return T(std::numeric_limits<float>::infinity());
  else
    return std::numeric_limits<T>::max();
}

/// a > b, and for floats also +0 > -0, so that the extremum of a set of zeros does not depend
/// on the order in which they are met.
template <class C>
IRLITE_INLINE bool greater(C a, C b) {
  if constexpr (std::is_floating_point_v<C>)
    return a > b || (a == b && std::signbit(b) && !std::signbit(a));
  else
    return a > b;
}

/// Whether a beats b: is greater for a maximum, less for a minimum.
template <bool kMin, class C>
IRLITE_INLINE bool beats(C a, C b) {
  if constexpr (kMin)
    return greater(b, a);
  else
    return greater(a, b);
}

/// The start value of a running extremum: -inf (+inf for a minimum) for floats, so that a slice
/// of infinities gives that infinity; the lowest (largest) value for integers.
template <bool kMin, class C>
C extremum_start() {
  if constexpr (std::is_floating_point_v<C>)
    return kMin ? std::numeric_limits<C>::infinity() : -std::numeric_limits<C>::infinity();
  else
    return kMin ? std::numeric_limits<C>::max() : std::numeric_limits<C>::lowest();
}

/// The extremum of x[0..n), n >= 0, for the native types, NaN if one is there, in one pass;
/// x[0..readable) may be prefetched (readable >= n).
///
/// Floats are ordered by their bits, -0 below +0, so that the result does not depend on how
/// lanes and threads split the slice. Three integer extrema of the bits, one instruction each per
/// vector, give that order and find NaN: as signed integers, the non-negative floats (from +0 up
/// to +inf, then the NaNs with the sign bit clear) order like their values and lie above every
/// float with the sign bit set; as unsigned integers, the floats with the sign bit set lie above
/// the others and order by magnitude (-0 lowest, then up to -inf, then the negative NaNs).
///   - maximum: the signed maximum when it is >= +0, else every element has the sign bit set and
///     the smallest magnitude, the unsigned minimum, is the largest;
///   - minimum: the unsigned maximum when its sign bit is set (the negative of largest magnitude),
///     else every element is >= +0 and the signed minimum is the smallest;
///   - NaN: the signed maximum above +inf's bits, or the unsigned maximum above -inf's.
/// That is three instructions a vector where comparing keys built from the bits took seven, and
/// it keeps a scan of memory-resident data at memory speed.
template <class T, bool kMin>
IRLITE_MULTIVERSION T scan_extremum(const T* __restrict x, std::int64_t n, std::int64_t readable) {
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<T>);
  T best = extremum_start<kMin, T>();
  std::int64_t i = 0;
  if constexpr (std::is_floating_point_v<T>) {
    using I = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
    using U = std::make_unsigned_t<I>;
    using VI = simd::vec<I>;
    using VU = simd::vec<U>;
    constexpr U kSign = U(1) << (sizeof(U) * 8 - 1);
    const U inf_bits = std::bit_cast<U>(std::numeric_limits<T>::infinity());
    bool nan = false;
    if (n >= 4 * L) {
      // s: signed maximum; u: unsigned maximum; w: the unsigned minimum for a maximum, the
      // signed minimum for a minimum.
      VI s0 = simd::broadcast(std::numeric_limits<I>::min());
      VU u0 = simd::broadcast(U(0));
      using W = std::conditional_t<kMin, I, U>;
      using VW = simd::vec<W>;
      VW w0 = simd::broadcast(std::numeric_limits<W>::max());
      VI s1 = s0, s2 = s0, s3 = s0;
      VU u1 = u0, u2 = u0, u3 = u0;
      VW w1 = w0, w2 = w0, w3 = w0;
      const auto step = [](VI& s, VU& u, VW& w, const T* p) {
        const VU b = simd::load(reinterpret_cast<const U*>(p));
        s = simd::max(s, simd::bit_cast<VI>(b));
        u = simd::max(u, b);
        w = simd::min(w, simd::bit_cast<VW>(b));
      };
      for (; i + 4 * L <= n; i += 4 * L) {
        simd::prefetch_ahead<4 * sizeof(simd::vec<T>)>(x, i, readable);
        step(s0, u0, w0, x + i);
        step(s1, u1, w1, x + i + L);
        step(s2, u2, w2, x + i + 2 * L);
        step(s3, u3, w3, x + i + 3 * L);
      }
      const VI s = simd::max(simd::max(s0, s1), simd::max(s2, s3));
      const VU u = simd::max(simd::max(u0, u1), simd::max(u2, u3));
      const VW w = simd::min(simd::min(w0, w1), simd::min(w2, w3));
      const I smax = simd::max_lane(s);
      const U umax = simd::max_lane(u);
      W wmin = w[0];
      for (std::size_t l = 1; l < simd::lanes<W>; ++l) wmin = w[l] < wmin ? w[l] : wmin;
      nan = static_cast<U>(smax) > inf_bits && smax > 0;
      nan = nan || umax > (inf_bits | kSign);
      U bits;
      if constexpr (kMin)
        bits = (umax & kSign) != 0 ? umax : static_cast<U>(wmin);
      else
        bits = smax >= 0 ? static_cast<U>(smax) : static_cast<U>(wmin);
      best = std::bit_cast<T>(bits);
    }
    for (; i < n; ++i) {
      best = beats<kMin>(x[i], best) ? x[i] : best;
      nan = nan || x[i] != x[i];
    }
    return nan ? std::numeric_limits<T>::quiet_NaN() : best;
  } else {
    if (n >= 4 * L) {
      using V = simd::vec<T>;
      const auto pick = [](V a, V b) {
        if constexpr (kMin)
          return simd::min(a, b);
        else
          return simd::max(a, b);
      };
      V m0 = simd::broadcast(best);
      V m1 = m0, m2 = m0, m3 = m0;
      for (; i + 4 * L <= n; i += 4 * L) {
        simd::prefetch_ahead<4 * sizeof(simd::vec<T>)>(x, i, readable);
        m0 = pick(m0, simd::load(x + i));
        m1 = pick(m1, simd::load(x + i + L));
        m2 = pick(m2, simd::load(x + i + 2 * L));
        m3 = pick(m3, simd::load(x + i + 3 * L));
      }
      const V m = pick(pick(m0, m1), pick(m2, m3));
      if constexpr (kMin) {
        for (std::size_t l = 0; l < simd::lanes<T>; ++l) best = m[l] < best ? m[l] : best;
      } else {
        best = simd::max_lane(m);
      }
    }
    for (; i < n; ++i) best = beats<kMin>(x[i], best) ? x[i] : best;
    return best;
  }
}

/// acc[j] = step(acc[j], x[r * stride + q + j]) for q < K, j < n: one pass of K rows over acc,
/// two vectors (one cache line) a step, prefetching the same line of the K rows at `next`.
template <int K, class T, class Step>
IRLITE_INLINE void fold_pass(T* __restrict acc, const T* __restrict x, std::int64_t n,
                             std::int64_t stride, const T* next) {
  using V = simd::vec<T>;
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<T>);
  std::int64_t j = 0;
  for (; j + 2 * L <= n; j += 2 * L) {
    for (int q = 0; q < K; ++q) __builtin_prefetch(next + q * stride + j);
    V a = simd::load(acc + j), b = simd::load(acc + j + L);
    for (int q = 0; q < K; ++q) {
      a = Step::vec(a, simd::load(x + q * stride + j));
      b = Step::vec(b, simd::load(x + q * stride + j + L));
    }
    simd::store(acc + j, a);
    simd::store(acc + j + L, b);
  }
  for (; j + L <= n; j += L) {
    V a = simd::load(acc + j);
    for (int q = 0; q < K; ++q) a = Step::vec(a, simd::load(x + q * stride + j));
    simd::store(acc + j, a);
  }
  for (; j < n; ++j) {
    T a = acc[j];
    for (int q = 0; q < K; ++q) a = Step::one(a, x[q * stride + j]);
    acc[j] = a;
  }
}

/// acc[j] = step(acc[j], x[r * stride + j]) for r < rows, j < n, the rows met in order.
/// Each pass over acc prefetches the rows of the next pass: the rows are often far apart
/// (a column split between threads, or an outer axis reduced), and the hardware prefetcher does
/// not run ahead across them. An acc that stays in L1 takes in one row a pass; a larger one two
/// rows a pass, to load and store it half as often. Measured at one thread, [4096,16384] over
/// axis 0 (acc 64 KiB): 16 ms with eight rows a pass and no prefetch, 9.8 with two and none,
/// 7.5 with two and the prefetch (a plain scan of the same data: 6.5); [64,1024,1024] over axis 1
/// (acc 4 KiB): 7.5 ms row by row, 7.0 with the prefetch, 8.2 with two rows a pass. Either way
/// each element takes in its rows in the same order, so the choice (which depends on how threads
/// split the columns) never changes a result.
template <class T, class Step>
IRLITE_MULTIVERSION void fold_native(T* __restrict acc, const T* __restrict x, std::int64_t rows,
                                     std::int64_t n, std::int64_t stride) {
  constexpr std::size_t kL1Bytes = 16384;  // what acc may take of L1 to be folded row by row
  std::int64_t r = 0;
  if (static_cast<std::size_t>(n) * sizeof(T) > kL1Bytes) {
    for (; r + 2 <= rows; r += 2) {
      const T* xr = x + r * stride;
      fold_pass<2, T, Step>(acc, xr, n, stride, r + 4 <= rows ? xr + 2 * stride : xr);
    }
  }
  for (; r < rows; ++r) {
    const T* xr = x + r * stride;
    fold_pass<1, T, Step>(acc, xr, n, stride, r + 1 < rows ? xr + stride : xr);
  }
}

/// step(acc, x) over x[0..n), n >= 0, for the native types (x[0..readable) may be prefetched,
/// readable >= n): four vectors of running results,
/// combined lane by lane in a fixed order at the end, then the tail.
template <class T, class Step>
IRLITE_MULTIVERSION T scan_native(const T* __restrict x, std::int64_t n, std::int64_t readable) {
  using V = simd::vec<T>;
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<T>);
  T r = Step::template start<T>();
  std::int64_t i = 0;
  if (n >= 4 * L) {
    V a0 = simd::broadcast(r);
    V a1 = a0, a2 = a0, a3 = a0;
    for (; i + 4 * L <= n; i += 4 * L) {
      simd::prefetch_ahead<4 * sizeof(simd::vec<T>)>(x, i, readable);
      a0 = Step::vec(a0, simd::load(x + i));
      a1 = Step::vec(a1, simd::load(x + i + L));
      a2 = Step::vec(a2, simd::load(x + i + 2 * L));
      a3 = Step::vec(a3, simd::load(x + i + 3 * L));
    }
    const V a = Step::merge(Step::merge(a0, a1), Step::merge(a2, a3));
    for (std::size_t l = 0; l < simd::lanes<T>; ++l) r = Step::merge(r, a[l]);
  }
  for (; i < n; ++i) r = Step::one(r, x[i]);
  return r;
}

/// The element-wise steps of the extrema, NaN-propagating: a NaN in x makes acc the quiet NaN,
/// which then stays (no number compares above or below it); the quiet NaN is what a contiguous
/// scan gives too, whatever NaN the input holds. For floats that is a max (min) instruction, a
/// NaN test and a blend.
template <bool kMin>
struct ExtremumStep {
  template <class V>
  static IRLITE_INLINE V vec(V a, V v) {
    const V best = (kMin ? v < a : v > a) ? v : a;
    if constexpr (std::is_floating_point_v<simd::lane_t<V>>)
      return simd::is_nan(v) ? simd::broadcast(std::numeric_limits<simd::lane_t<V>>::quiet_NaN())
                             : best;
    else
      return best;
  }
  template <class C>
  static IRLITE_INLINE C one(C a, C v) {
    if constexpr (std::is_floating_point_v<C>)
      if (v != v) return std::numeric_limits<C>::quiet_NaN();
    return (kMin ? v < a : v > a) ? v : a;
  }
};

/// What the additive reductions take of each element: itself (Sum, Mean), its magnitude (L1)
/// or its square (L2).
enum class Map { identity, abs, square };

/// The type integer arithmetic is done in, scalar or vector: the unsigned type of the same
/// width, which wraps as the type does (signed overflow would be undefined). Floats as they are.
template <class V>
struct wrapped {
  using type = wrap_t<V>;
};
template <class V>
requires(!std::is_arithmetic_v<V>) struct wrapped<V> {
  using type = simd::vec<wrap_t<simd::lane_t<V>>>;
};

template <class V>
IRLITE_INLINE V wrapping_add(V a, V b) {
  using U = typename wrapped<V>::type;
  return simd::bit_cast<V>(U(simd::bit_cast<U>(a) + simd::bit_cast<U>(b)));
}
template <class V>
IRLITE_INLINE V wrapping_sub(V a, V b) {
  using U = typename wrapped<V>::type;
  return simd::bit_cast<V>(U(simd::bit_cast<U>(a) - simd::bit_cast<U>(b)));
}
template <class V>
IRLITE_INLINE V wrapping_mul(V a, V b) {
  using U = typename wrapped<V>::type;
  const U x = simd::bit_cast<U>(a), y = simd::bit_cast<U>(b);
  // A scalar narrower than int would promote to int, where 65535 * 65535 overflows (vectors
  // are wider and do not promote).
  if constexpr (sizeof(U) < sizeof(int))
    return simd::bit_cast<V>(U(wrap_wide_t<U>(x) * wrap_wide_t<U>(y)));
  else
    return simd::bit_cast<V>(U(x * y));
}

/// The steps of a sum (kProduct false) or a product of mapped elements. Integers wrap.
template <bool kProduct, Map kMap>
struct ArithmeticStep {
  template <class C>
  static C start() {
    return C(kProduct ? 1 : 0);
  }
  /// Combines two partial results.
  template <class V>
  static IRLITE_INLINE V merge(V a, V b) {
    if constexpr (kProduct)
      return wrapping_mul(a, b);
    else
      return wrapping_add(a, b);
  }
  /// The element as taken in.
  template <class V>
  static IRLITE_INLINE V map(V v) {
    if constexpr (kMap == Map::identity) {
      return v;
    } else if constexpr (kMap == Map::square) {
      return wrapping_mul(v, v);
    } else if constexpr (std::is_arithmetic_v<V>) {
      if constexpr (std::is_unsigned_v<V>)
        return v;
      else
        return v < V(0) ? wrapping_sub(V(0), v) : v;
    } else {
      if constexpr (std::is_unsigned_v<simd::lane_t<V>>)
        return v;
      else
        return v < V{} ? wrapping_sub(V{}, v) : v;
    }
  }
  template <class V>
  static IRLITE_INLINE V vec(V a, V v) {
    return merge(a, map(v));
  }
  template <class C>
  static IRLITE_INLINE C one(C a, C v) {
    return merge(a, map(v));
  }
};

}  // namespace reduce_detail

}  // namespace irlite
