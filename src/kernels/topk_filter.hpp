#pragma once
// TopK, the optimised kernel's pieces (see topk.hpp): the threshold filter for small k.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/simd.hpp"
#include "kernels/topk_keys.hpp"

namespace irlite::topk_detail {

// ---- Threshold filter (small k) ---------------------------------------------------------------
// A bounded heap holds the k best entries met so far, its worst on top; an element enters only
// if it beats that worst one. Elements are met in index order, so a later element that ties the
// worst loses: beating means a strictly better key. The vector pass compares elements against
// the worst one's value in a domain where a plain comparison orders like the keys:
//   - integers, float and double: the element itself; floats need the NaN rules below;
//   - f16 and bf16 (no native arithmetic): the 16-bit key, computed on vectors.

template <class T>
struct Domain {
  using D = T;
  static constexpr bool is_float = std::is_floating_point_v<T>;
  IRLITE_INLINE static D of(T v) { return v; }
  IRLITE_INLINE static vec<D> load(const T* p) { return simd::load(p); }
};

template <class T, std::uint16_t Inf>
struct HalfDomain {
  using D = std::uint16_t;
  static constexpr bool is_float = false;
  IRLITE_INLINE static D of(T v) { return static_cast<D>(half_key(v.bits, Inf)); }
  /// half_key() on every lane.
  IRLITE_INLINE static vec<D> load(const T* p) {
    vec<D> bits;
    std::memcpy(&bits, p, sizeof bits);
    const vec<D> magnitude = bits & 0x7fff;
    const auto negative = (bits > 0x7fff) & (magnitude != 0);
    const vec<D> key = negative ? 0x7fff - magnitude : 0x8000 + magnitude;
    return magnitude > Inf ? ~vec<D>{} : key;
  }
};

template <>
struct Domain<float16> : HalfDomain<float16, kHalfInf> {};
template <>
struct Domain<bfloat16> : HalfDomain<bfloat16, kBfloatInf> {};

/// Whether element v beats the worst kept value t, exactly (for an element met after all kept
/// ones). Floats: NaN is the best value. For max, nothing beats a NaN t; for min, `u` is +inf
/// while t is NaN (every number beats it) and NaN otherwise (adds nothing to v < t).
template <bool Max, class Dom, class D>
IRLITE_INLINE bool beats(D v, D t, D u) {
  if constexpr (Dom::is_float) {
    if constexpr (Max)
      return v > t || (v != v && t == t);
    else
      return v < t || v <= u;
  } else {
    if constexpr (Max)
      return v > t;
    else
      return v < t;
  }
}

/// beats() on vectors, except that for max a NaN lane passes even against a NaN t (three
/// operations instead of five; beats() then turns it away).
template <bool Max, class Dom, class V>
IRLITE_INLINE auto may_beat(V v, V t, [[maybe_unused]] V u) {
  if constexpr (Dom::is_float) {
    if constexpr (Max)
      return (v > t) | (v != v);
    else
      return (v < t) | (v <= u);
  } else {
    if constexpr (Max)
      return v > t;
    else
      return v < t;
  }
}

/// may_beat() for the row filter, which runs it only while t is a number (for max, a NaN t ends
/// the scan; for min, every number beats it and the filter runs element by element until a
/// number is kept). For max a NaN lane always passes: one unordered comparison.
template <bool Max, class Dom, class V>
IRLITE_INLINE auto row_may_beat(V v, V t) {
  if constexpr (Dom::is_float && Max)
    return !(v <= t);
  else if constexpr (Max)
    return v > t;
  else
    return v < t;
}

/// The `u` of beats() for a worst kept value t (only min-mode floats use it).
template <bool Max, class Dom, class D>
IRLITE_INLINE D second_bound(D t) {
  if constexpr (Dom::is_float && !Max)
    return t != t ? std::numeric_limits<D>::infinity() : std::numeric_limits<D>::quiet_NaN();
  else
    return t;
}

/// Whether nothing can beat t any more: a NaN worst value for max (every kept value is NaN, and
/// later NaNs lose the tie).
template <bool Max, class Dom, class D>
IRLITE_INLINE bool settled(D t) {
  if constexpr (Dom::is_float && Max)
    return t != t;
  else
    return false;
}

/// h[0, k) is a heap whose every parent is no better than its children; puts e (better than
/// h[0]) in place of h[0].
template <class E>
void replace_worst(typename E::Entry* h, std::int64_t k, typename E::Entry e) {
  std::int64_t i = 0;
  for (;;) {
    std::int64_t c = 2 * i + 1;
    if (c >= k) break;
    if (c + 1 < k && E::better(h[c], h[c + 1])) ++c;  // the worse child
    if (!E::better(e, h[c])) break;
    h[i] = h[c];
    i = c;
  }
  h[i] = e;
}

/// Vectors per test of the filters' vector pass: one reduction of the lane masks to a branch per
/// this many vectors. Hits are rare once the kept values are good, so blocks can be long.
inline constexpr std::int64_t kBlockVectors = 8;

/// The k best of x[begin, end) (0 < k <= end - begin) into heap[0, k), in heap order.
template <bool Max, class E, class T>
IRLITE_MULTIVERSION void filter_row(const T* x, std::int64_t begin, std::int64_t end,
                                    std::int64_t k, Key<T> flip, typename E::Entry* heap) {
  using Dom = Domain<T>;
  using D = typename Dom::D;
  using K = typename E::K;
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<D>);
  constexpr std::int64_t B = kBlockVectors * L;
  const auto entry = [&](std::int64_t j) {
    return E::make(static_cast<K>(key_of(x[j]) ^ flip), j);
  };
  for (std::int64_t j = 0; j < k; ++j) heap[j] = entry(begin + j);
  std::make_heap(heap, heap + k, Better<E>{});
  D t = Dom::of(x[E::index(heap[0])]);
  D u = second_bound<Max, Dom>(t);
  if (settled<Max, Dom>(t)) return;
  // Rare: an element that may beat the worst kept one.
  const auto visit = [&](std::int64_t j) {
    if (beats<Max, Dom>(Dom::of(x[j]), t, u)) {
      replace_worst<E>(heap, k, entry(j));
      t = Dom::of(x[E::index(heap[0])]);
      u = second_bound<Max, Dom>(t);
    }
  };
  std::int64_t j = begin + k;
  if constexpr (Dom::is_float && !Max) {
    for (; j < end && t != t; ++j) visit(j);
  }
  vec<D> tv = simd::broadcast(t);
  for (; j + B <= end; j += B) {
    const T* p = x + j;
    simd::prefetch_ahead<B * sizeof(T)>(x, j, end);
    auto m = row_may_beat<Max, Dom>(Dom::load(p), tv);
#pragma GCC unroll 16
    for (std::int64_t v = 1; v < kBlockVectors; ++v)
      m |= row_may_beat<Max, Dom>(Dom::load(p + v * L), tv);
    if (!simd::any(m)) [[likely]]
      continue;
    // Vector by vector against the threshold as it rises, lane by lane where one may beat it.
    for (std::int64_t v = 0; v < kBlockVectors; ++v) {
      for (std::uint32_t bits = simd::lane_bits(row_may_beat<Max, Dom>(Dom::load(p + v * L), tv));
           bits != 0; bits &= bits - 1) {
        visit(j + v * L + std::countr_zero(bits));
      }
      if (settled<Max, Dom>(t)) return;
      tv = simd::broadcast(t);
    }
  }
  for (; j < end; ++j) visit(j);
}

/// The k best (0 < k <= n) of each of `width` neighbouring slices along an outer axis: slice c
/// is x[j * inner + c] for j < n; its heap goes to heaps[c * k, (c + 1) * k). Rows are read as
/// runs of `width` consecutive elements, one vector lane per slice. t and u hold `width` values.
template <bool Max, class E, class T>
IRLITE_MULTIVERSION void filter_columns(const T* x, std::int64_t n, std::int64_t inner,
                                        std::int64_t width, std::int64_t k, Key<T> flip,
                                        typename E::Entry* heaps, typename Domain<T>::D* t,
                                        typename Domain<T>::D* u) {
  using Dom = Domain<T>;
  using K = typename E::K;
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<typename Dom::D>);
  const auto entry = [&](std::int64_t j, std::int64_t c) {
    return E::make(static_cast<K>(key_of(x[j * inner + c]) ^ flip), j);
  };
  const auto refresh = [&](std::int64_t c) {
    t[c] = Dom::of(x[E::index(heaps[c * k]) * inner + c]);
    u[c] = second_bound<Max, Dom>(t[c]);
  };
  for (std::int64_t j = 0; j < k; ++j) {
    for (std::int64_t c = 0; c < width; ++c) heaps[c * k + j] = entry(j, c);
  }
  for (std::int64_t c = 0; c < width; ++c) {
    std::make_heap(heaps + c * k, heaps + (c + 1) * k, Better<E>{});
    refresh(c);
  }
  const auto visit = [&](std::int64_t j, std::int64_t c) {
    if (beats<Max, Dom>(Dom::of(x[j * inner + c]), t[c], u[c])) {
      replace_worst<E>(heaps + c * k, k, entry(j, c));
      refresh(c);
    }
  };
  // Columns in whole blocks of vectors, whole vectors, then one by one.
  const std::int64_t blocked = width / (kBlockVectors * L) * (kBlockVectors * L);
  const std::int64_t vectored = width / L * L;
  for (std::int64_t j = k; j < n; ++j) {
    const T* row = x + j * inner;
    const auto test = [&](std::int64_t c) __attribute__((always_inline)) {
      return may_beat<Max, Dom>(Dom::load(row + c), simd::load(t + c), simd::load(u + c));
    };
    // Each lane is its own slice: a hit in one changes no other lane's threshold.
    const auto visit_lanes = [&](std::int64_t c) {
      for (std::uint32_t bits = simd::lane_bits(test(c)); bits != 0; bits &= bits - 1)
        visit(j, c + std::countr_zero(bits));
    };
    std::int64_t c = 0;
    for (; c < blocked; c += kBlockVectors * L) {
      auto m = test(c);
#pragma GCC unroll 16
      for (std::int64_t v = 1; v < kBlockVectors; ++v) m |= test(c + v * L);
      if (!simd::any(m)) [[likely]]
        continue;
      for (std::int64_t v = 0; v < kBlockVectors; ++v) visit_lanes(c + v * L);
    }
    for (; c < vectored; c += L) {
      if (simd::any(test(c))) [[unlikely]]
        visit_lanes(c);
    }
    for (; c < width; ++c) visit(j, c);
  }
}

}  // namespace irlite::topk_detail
