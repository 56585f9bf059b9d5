// TopK: threshold filters for small k, radix selection for larger k; see topk.hpp.

#include "kernels/topk.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/buffer.hpp"
#include "kernels/element.hpp"
#include "kernels/simd.hpp"

namespace irlite {
namespace topk_detail {
namespace {

using simd::vec;

// ---- Keys ------------------------------------------------------------------------------------
// An unsigned key per element, larger the better for `max` (min flips every bit): NaN above
// +inf, -0 equal to +0. Keys are as narrow as the type (8 and 16 significant bits for the small
// types), so that the radix passes over their constant high digits are skipped.

template <class T>
using Key = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;

/// Branch-free but for the NaN select: signs are random in real data and a branch on them
/// mispredicts.
IRLITE_INLINE std::uint32_t float_key(float v) {
  const auto b = std::bit_cast<std::uint32_t>(v + 0.0f);  // -0 + 0 = +0 (IEEE, no fast-math)
  const auto negative = static_cast<std::uint32_t>(static_cast<std::int32_t>(b) >> 31);
  const std::uint32_t key = b ^ (negative | 0x80000000u);  // negative: ~b; positive: set sign
  return v != v ? 0xffffffffu : key;
}

IRLITE_INLINE std::uint64_t float_key(double v) {
  const auto b = std::bit_cast<std::uint64_t>(v + 0.0);
  const auto negative = static_cast<std::uint64_t>(static_cast<std::int64_t>(b) >> 63);
  const std::uint64_t key = b ^ (negative | (std::uint64_t{1} << 63));
  return v != v ? ~std::uint64_t{0} : key;
}

/// The exponent-and-mantissa bits of infinity in f16 and bf16: a larger magnitude is NaN.
inline constexpr std::uint16_t kHalfInf = 0x7c00;
inline constexpr std::uint16_t kBfloatInf = 0x7f80;

/// A 16-bit float's key straight from its bits (sign and magnitude to an offset), which orders
/// like the float it widens to, without the conversion.
IRLITE_INLINE std::uint32_t half_key(std::uint16_t bits, std::uint16_t inf) {
  const std::uint32_t magnitude = bits & 0x7fffu;
  const bool negative = (bits & 0x8000u) != 0 && magnitude != 0;  // -0 is +0
  const std::uint32_t key = negative ? 0x7fffu - magnitude : 0x8000u + magnitude;
  return magnitude > inf ? 0xffffu : key;
}

template <class T>
IRLITE_INLINE Key<T> key_of(T v) {
  if constexpr (std::is_same_v<T, float16>) {
    return half_key(v.bits, kHalfInf);
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return half_key(v.bits, kBfloatInf);
  } else if constexpr (std::is_floating_point_v<T>) {
    return float_key(v);
  } else if constexpr (std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    constexpr U sign = static_cast<U>(U{1} << (8 * sizeof(T) - 1));
    return static_cast<Key<T>>(static_cast<U>(static_cast<U>(v) ^ sign));
  } else {
    return static_cast<Key<T>>(v);
  }
}

/// How many low bits of a key may be set.
template <class T>
inline constexpr int kKeyBits = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>
                                    ? 16
                                    : 8 * static_cast<int>(sizeof(T));

/// What min mode xors keys with: every significant bit, so that keys stay as narrow.
template <class T>
constexpr Key<T> mode_flip(bool max) {
  if (max) return 0;
  if constexpr (kKeyBits<T> == 8 * sizeof(Key<T>))
    return static_cast<Key<T>>(~Key<T>{0});
  else
    return static_cast<Key<T>>((Key<T>{1} << kKeyBits<T>)-1);
}

// ---- Entries: a key with its index, compared as a strict total order ---------------------------

/// A 32-bit key and an index below 2^32 packed into one integer, the index complemented so that
/// the larger integer is always the better element.
struct Packed {
  using K = std::uint32_t;
  using Entry = std::uint64_t;
  static constexpr std::uint64_t max_slice = std::uint64_t{1} << 32;
  IRLITE_INLINE static Entry make(K key, std::int64_t index) {
    return (std::uint64_t{key} << 32) | (0xffffffffu - static_cast<std::uint64_t>(index));
  }
  IRLITE_INLINE static K key(Entry e) { return static_cast<K>(e >> 32); }
  IRLITE_INLINE static std::int64_t index(Entry e) {
    return static_cast<std::int64_t>(0xffffffffu - (e & 0xffffffffu));
  }
  IRLITE_INLINE static bool better(Entry a, Entry b) { return a > b; }
};

/// Any key with its index alongside: 64-bit keys, and slices too long for Packed.
template <class KeyType>
struct Unpacked {
  using K = KeyType;
  struct Entry {
    K key;
    std::int64_t index;
  };
  IRLITE_INLINE static Entry make(K key, std::int64_t index) { return {key, index}; }
  IRLITE_INLINE static K key(const Entry& e) { return e.key; }
  IRLITE_INLINE static std::int64_t index(const Entry& e) { return e.index; }
  IRLITE_INLINE static bool better(const Entry& a, const Entry& b) {
    return a.key > b.key || (a.key == b.key && a.index < b.index);
  }
};

template <class E>
struct Better {
  bool operator()(const typename E::Entry& a, const typename E::Entry& b) const {
    return E::better(a, b);
  }
};

template <class E>
struct LowerIndex {
  bool operator()(const typename E::Entry& a, const typename E::Entry& b) const {
    return E::index(a) < E::index(b);
  }
};

/// Puts the k entries of e in output order: best first, or by index.
template <class E>
void order(typename E::Entry* e, std::int64_t k, bool by_index) {
  if (by_index)
    std::sort(e, e + k, LowerIndex<E>{});
  else
    std::sort(e, e + k, Better<E>{});
}

/// Writes k chosen entries of one slice: the slice starts at `slice` with elements `stride`
/// apart, and so do its outputs.
template <class E, class T, class TIndex>
void write_slice(const typename E::Entry* e, std::int64_t k, const T* slice, std::int64_t stride,
                 T* values, TIndex* indices) {
  for (std::int64_t r = 0; r < k; ++r) {
    const std::int64_t idx = E::index(e[r]);
    values[r * stride] = slice[idx * stride];
    indices[r * stride] = static_cast<TIndex>(idx);
  }
}

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

// ---- Radix selection (larger k) ---------------------------------------------------------------
// A histogram of the keys' top bits finds the bucket that holds the k-th best key. One pass picks,
// in index order, every element of that bucket or a better one: the k best and the rest of the
// bucket, a small surplus unless the data are concentrated. A stable radix sort of those on the
// keys puts the k best first in value order; for index order, the k-th best entry found among
// them marks which ones to keep.

/// Sorts a[0, m) best first, equal keys kept in their order (here: index order), by a least
/// significant digit first radix sort on keys of `Bits` significant bits; digits that all keys
/// share are skipped. m < 2^32. Returns where the result is: a or tmp (room for m).
template <class E, int Bits>
typename E::Entry* sort_by_key(typename E::Entry* a, typename E::Entry* tmp, std::int64_t m) {
  using Entry = typename E::Entry;
  using K = typename E::K;
  if (m < 64) {
    std::sort(a, a + m, Better<E>{});
    return a;
  }
  // Ascending order of the complemented key is descending order of the key.
  const auto digit = [](const Entry& e, int d) __attribute__((always_inline)) {
    return static_cast<std::size_t>((static_cast<K>(~E::key(e)) >> (8 * d)) & 0xff);
  };
  constexpr int digits = (Bits + 7) / 8;
  std::array<std::array<std::uint32_t, 256>, digits> hist{};
  for (std::int64_t i = 0; i < m; ++i) {
#pragma GCC unroll 8
    for (int d = 0; d < digits; ++d) ++hist[d][digit(a[i], d)];
  }
  for (int d = 0; d < digits; ++d) {
    auto& h = hist[d];
    if (h[digit(a[0], d)] == m) continue;
    std::uint32_t sum = 0;
    for (std::uint32_t& c : h) {
      const std::uint32_t start = sum;
      sum += c;
      c = start;
    }
    for (std::int64_t i = 0; i < m; ++i) tmp[h[digit(a[i], d)]++] = a[i];
    std::swap(a, tmp);
  }
  return a;
}

/// The indices j < n < 2^32 of keys[j] >= low, in order, to at[0, returned count); at has room
/// for n + 1 (the scalar tail writes every index and overwrites those it does not keep).
template <class K>
IRLITE_MULTIVERSION std::int64_t indices_at_least(const K* keys, std::int64_t n, K low,
                                                  std::uint32_t* at) {
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<K>);
  const vec<K> lv = simd::broadcast(low);
  std::int64_t m = 0, j = 0;
  for (; j + L <= n; j += L) {
    for (std::uint32_t bits = simd::lane_bits(simd::load(keys + j) >= lv); bits != 0;
         bits &= bits - 1)
      at[m++] = static_cast<std::uint32_t>(j + std::countr_zero(bits));
  }
  for (; j < n; ++j) {
    at[m] = static_cast<std::uint32_t>(j);
    m += keys[j] >= low;
  }
  return m;
}

/// The elements of keys[0, n) (0 < k < n < 2^32, keys of `Bits` significant bits) that the k
/// best are among, as entries in index order in out[0, returned count). at has room for n + 1
/// indices (each index is written, and the next one overwrites it unless it was kept).
template <class E, int Bits>
std::int64_t candidates(const typename E::K* keys, std::int64_t n, std::int64_t k,
                        std::uint32_t* at, typename E::Entry* out) {
  using K = typename E::K;
  // 2048 buckets for long slices, 256 for shorter ones, where clearing and scanning more would
  // cost more than the surplus they save.
  const int digit_bits = std::min(Bits, n >= 4096 ? 11 : 8);
  const int shift = Bits - digit_bits;
  std::array<std::uint32_t, 2048> hist;
  std::fill_n(hist.begin(), std::size_t{1} << digit_bits, 0u);
  for (std::int64_t i = 0; i < n; ++i) ++hist[keys[i] >> shift];
  std::size_t b = (std::size_t{1} << digit_bits) - 1;
  std::int64_t count = 0;
  while (count + hist[b] < k) count += hist[b--];
  const auto low = static_cast<K>(static_cast<K>(b) << shift);  // the bucket's smallest key
  const std::int64_t m = indices_at_least(keys, n, low, at);
  for (std::int64_t i = 0; i < m; ++i) out[i] = E::make(keys[at[i]], at[i]);
  return m;
}

/// Keeps the k best of e[0, m) (0 < k < m) in their order, in place.
template <class E>
void keep_best(typename E::Entry* e, std::int64_t m, std::int64_t k, typename E::Entry* tmp) {
  std::copy(e, e + m, tmp);
  std::nth_element(tmp, tmp + (k - 1), tmp + m, Better<E>{});
  const typename E::Entry kth = tmp[k - 1];
  std::int64_t kept = 0;
  for (std::int64_t i = 0; i < m; ++i) {
    e[kept] = e[i];
    kept += !E::better(kth, e[i]);
  }
}

/// Keys of x[0, n) with the mode applied.
template <class T>
IRLITE_MULTIVERSION void compute_keys(const T* x, std::int64_t n, Key<T> flip, Key<T>* keys) {
  std::int64_t j = 0;
  if constexpr (std::is_same_v<T, float>) {
    // float_key() on vectors.
    using U = std::uint32_t;
    constexpr auto L = static_cast<std::int64_t>(simd::lanes<float>);
    const vec<U> f = simd::broadcast(flip), sign = simd::broadcast(U{0x80000000u});
    for (; j + L <= n; j += L) {
      const vec<float> v = simd::load(x + j) + 0.0f;
      const auto b = simd::bit_cast<vec<U>>(v);
      const auto negative = simd::bit_cast<vec<U>>(simd::bit_cast<vec<std::int32_t>>(b) >> 31);
      const auto nan = simd::bit_cast<vec<U>>(v != v);
      simd::store(keys + j, ((b ^ (negative | sign)) | nan) ^ f);
    }
  }
  for (; j < n; ++j) keys[j] = key_of(x[j]) ^ flip;
}

/// Below this slice length a comparison sort of the entries beats the radix passes' fixed costs
/// (histograms); slices of 2^32 elements and more, whose counts need 64 bits, go that way too.
inline constexpr std::int64_t kRadixMin = 256;
inline constexpr std::int64_t kRadixMax = std::numeric_limits<std::uint32_t>::max();

/// Scratch for selecting from slices of up to n keys.
template <class E>
struct SelectScratch {
  explicit SelectScratch(std::int64_t n)
      : keys(static_cast<std::size_t>(n)),
        at(static_cast<std::size_t>(n) + 1),
        out(static_cast<std::size_t>(n) + 1),
        tmp(static_cast<std::size_t>(n) + 1) {}
  std::vector<typename E::K> keys;
  std::vector<std::uint32_t> at;
  std::vector<typename E::Entry> out, tmp;
};

/// The k best (0 < k <= n) of keys[0, n) (keys of `Bits` significant bits) in output order; the
/// result lives in s.out or s.tmp.
template <class E, int Bits>
const typename E::Entry* select_keys(const typename E::K* keys, std::int64_t n, std::int64_t k,
                                     bool by_index, SelectScratch<E>& s) {
  typename E::Entry* out = s.out.data();
  if (n < kRadixMin || n > kRadixMax) {
    for (std::int64_t j = 0; j < n; ++j) out[j] = E::make(keys[j], j);
    if (k < n) std::nth_element(out, out + (k - 1), out + n, Better<E>{});
    order<E>(out, k, by_index);
    return out;
  }
  std::int64_t m = n;
  if (k == n) {
    for (std::int64_t j = 0; j < n; ++j) out[j] = E::make(keys[j], j);
  } else {
    m = candidates<E, Bits>(keys, n, k, s.at.data(), out);
  }
  if (!by_index) return sort_by_key<E, Bits>(out, s.tmp.data(), m);  // the first k
  if (m > k) keep_best<E>(out, m, k, s.tmp.data());
  return out;
}

// ---- Drivers ----------------------------------------------------------------------------------

/// Filter when k is this many times shorter than the slice (the heap sees about
/// k log(n / k) insertions); radix selection otherwise. Measured on random data.
inline constexpr std::int64_t kFilterRatio = 16;
/// About how many elements a thread's chunk should hold at least, so that a pool's wake-up
/// costs little next to it.
inline constexpr std::int64_t kChunkElements = std::int64_t{1} << 15;
/// A long slice is split over threads into parts of at least this many elements.
inline constexpr std::int64_t kSplitElements = std::int64_t{1} << 16;
/// Columns per block of the column filter, and a bound on the heap entries of a block.
inline constexpr std::int64_t kColumnBlock = 256;
inline constexpr std::int64_t kBlockHeapEntries = std::int64_t{1} << 14;
/// Keys gathered per block of slices along an outer axis, and slices per block at most.
inline constexpr std::int64_t kGatherKeys = std::int64_t{1} << 18;
inline constexpr std::int64_t kMaxGather = 16;

std::int64_t grain_for(std::int64_t work_per_item) {
  return std::max<std::int64_t>(1, kChunkElements / std::max<std::int64_t>(work_per_item, 1));
}

template <class T>
inline constexpr std::int64_t kLanes =
    static_cast<std::int64_t>(simd::lanes<typename Domain<T>::D>);

/// Slices along the innermost axis (inner = 1), k small: the row filter, over rows or, for
/// fewer rows than threads, over parts of each row.
template <bool Max, class E, class T, class TIndex>
void rows_by_filter(const Parallel& parallel, const T* in, std::int64_t outer, std::int64_t n,
                    std::int64_t k, bool by_index, T* values, TIndex* indices) {
  using Entry = typename E::Entry;
  constexpr Key<T> flip = mode_flip<T>(Max);
  const std::int64_t part_grain = std::max(kSplitElements, k);
  if (outer >= static_cast<std::int64_t>(parallel.threads()) ||
      parallel.chunks(static_cast<std::size_t>(n), static_cast<std::size_t>(part_grain)) == 1) {
    parallel.for_range(static_cast<std::size_t>(outer), static_cast<std::size_t>(grain_for(n)),
                       [&](std::size_t begin, std::size_t end, std::size_t) {
                         std::vector<Entry> heap(static_cast<std::size_t>(k));
                         for (auto o = static_cast<std::int64_t>(begin);
                              o < static_cast<std::int64_t>(end); ++o) {
                           const T* x = in + o * n;
                           filter_row<Max, E>(x, 0, n, k, flip, heap.data());
                           order<E>(heap.data(), k, by_index);
                           write_slice<E>(heap.data(), k, x, 1, values + o * k, indices + o * k);
                         }
                       });
    return;
  }
  // Each part keeps its own k best; the k best of those are the slice's, whatever the split.
  const std::size_t parts =
      parallel.chunks(static_cast<std::size_t>(n), static_cast<std::size_t>(part_grain));
  std::vector<Entry> kept(parts * static_cast<std::size_t>(k));
  for (std::int64_t o = 0; o < outer; ++o) {
    const T* x = in + o * n;
    parallel.for_range(static_cast<std::size_t>(n), static_cast<std::size_t>(part_grain),
                       [&](std::size_t begin, std::size_t end, std::size_t part) {
                         filter_row<Max, E>(x, static_cast<std::int64_t>(begin),
                                            static_cast<std::int64_t>(end), k, flip,
                                            kept.data() + part * static_cast<std::size_t>(k));
                       });
    std::partial_sort(kept.begin(), kept.begin() + k, kept.end(), Better<E>{});
    if (by_index) std::sort(kept.begin(), kept.begin() + k, LowerIndex<E>{});
    write_slice<E>(kept.data(), k, x, 1, values + o * k, indices + o * k);
  }
}

/// Slices along the innermost axis, larger k: radix selection, rows split over threads.
template <bool Max, class E, class T, class TIndex>
void rows_by_select(const Parallel& parallel, const T* in, std::int64_t outer, std::int64_t n,
                    std::int64_t k, bool by_index, T* values, TIndex* indices) {
  constexpr Key<T> flip = mode_flip<T>(Max);
  parallel.for_range(
      static_cast<std::size_t>(outer), static_cast<std::size_t>(grain_for(n)),
      [&](std::size_t begin, std::size_t end, std::size_t) {
        SelectScratch<E> s(n);
        for (auto o = static_cast<std::int64_t>(begin); o < static_cast<std::int64_t>(end); ++o) {
          const T* x = in + o * n;
          compute_keys(x, n, flip, s.keys.data());
          const auto* e = select_keys<E, kKeyBits<T>>(s.keys.data(), n, k, by_index, s);
          write_slice<E>(e, k, x, 1, values + o * k, indices + o * k);
        }
      });
}

/// Blocks of neighbouring columns for slices along an outer axis: `count` blocks of `width`
/// columns (the last one narrower) per outer index.
struct ColumnBlocks {
  std::int64_t width, count;
};

/// Blocks of at most `max_width` columns, a multiple of `lanes` where they are wider, and enough
/// of them to give every thread work when the columns allow it.
ColumnBlocks plan_columns(std::int64_t inner, std::int64_t outer, std::int64_t max_width,
                          std::int64_t lanes, unsigned threads) {
  std::int64_t count = (inner + max_width - 1) / max_width;
  if (outer * count < static_cast<std::int64_t>(threads)) {
    const std::int64_t wanted = (static_cast<std::int64_t>(threads) + outer - 1) / outer;
    count = std::max(count, std::min(wanted, (inner + lanes - 1) / lanes));
  }
  std::int64_t width = (inner + count - 1) / count;
  if (width > lanes) width = (width + lanes - 1) / lanes * lanes;
  width = std::min(width, inner);
  return {width, (inner + width - 1) / width};
}

/// Slices along an outer axis (inner > 1), k small: the column filter over blocks of columns.
template <bool Max, class E, class T, class TIndex>
void columns_by_filter(const Parallel& parallel, const T* in, std::int64_t outer, std::int64_t n,
                       std::int64_t inner, std::int64_t k, bool by_index, T* values,
                       TIndex* indices) {
  using Entry = typename E::Entry;
  using D = typename Domain<T>::D;
  constexpr Key<T> flip = mode_flip<T>(Max);
  const std::int64_t max_width =
      std::max(kLanes<T>, std::min(kColumnBlock, kBlockHeapEntries / k / kLanes<T> * kLanes<T>));
  const ColumnBlocks blocks = plan_columns(inner, outer, max_width, kLanes<T>, parallel.threads());
  const std::int64_t items = outer * blocks.count;
  parallel.for_range(
      static_cast<std::size_t>(items), static_cast<std::size_t>(grain_for(n * blocks.width)),
      [&](std::size_t begin, std::size_t end, std::size_t) {
        const auto w = static_cast<std::size_t>(blocks.width);
        std::vector<Entry> heaps(w * static_cast<std::size_t>(k));
        std::vector<D> t(w), u(w);
        for (auto item = static_cast<std::int64_t>(begin); item < static_cast<std::int64_t>(end);
             ++item) {
          const std::int64_t o = item / blocks.count;
          const std::int64_t c0 = item % blocks.count * blocks.width;
          const std::int64_t width = std::min(blocks.width, inner - c0);
          const T* slab = in + o * n * inner + c0;
          filter_columns<Max, E>(slab, n, inner, width, k, flip, heaps.data(), t.data(), u.data());
          for (std::int64_t c = 0; c < width; ++c) {
            Entry* h = heaps.data() + c * k;
            order<E>(h, k, by_index);
            const std::int64_t at = o * k * inner + c0 + c;
            write_slice<E>(h, k, slab + c, inner, values + at, indices + at);
          }
        }
      });
}

/// Slices along an outer axis, larger k: the keys of a few neighbouring slices are gathered
/// (each row read as a run of consecutive elements), then each slice is selected on its own.
template <bool Max, class E, class T, class TIndex>
void columns_by_select(const Parallel& parallel, const T* in, std::int64_t outer, std::int64_t n,
                       std::int64_t inner, std::int64_t k, bool by_index, T* values,
                       TIndex* indices) {
  using K = typename E::K;
  constexpr Key<T> flip = mode_flip<T>(Max);
  const std::int64_t max_width = std::clamp<std::int64_t>(kGatherKeys / n, 1, kMaxGather);
  const ColumnBlocks blocks = plan_columns(inner, outer, max_width, 1, parallel.threads());
  const std::int64_t items = outer * blocks.count;
  parallel.for_range(
      static_cast<std::size_t>(items), static_cast<std::size_t>(grain_for(n * blocks.width)),
      [&](std::size_t begin, std::size_t end, std::size_t) {
        SelectScratch<E> s(n);
        std::vector<K> keys(static_cast<std::size_t>(n * blocks.width));
        for (auto item = static_cast<std::int64_t>(begin); item < static_cast<std::int64_t>(end);
             ++item) {
          const std::int64_t o = item / blocks.count;
          const std::int64_t c0 = item % blocks.count * blocks.width;
          const std::int64_t width = std::min(blocks.width, inner - c0);
          const T* slab = in + o * n * inner + c0;
          for (std::int64_t j = 0; j < n; ++j) {
            const T* row = slab + j * inner;
            for (std::int64_t c = 0; c < width; ++c)
              keys[static_cast<std::size_t>(c * n + j)] = static_cast<K>(key_of(row[c]) ^ flip);
          }
          for (std::int64_t c = 0; c < width; ++c) {
            const auto* e = select_keys<E, kKeyBits<T>>(keys.data() + c * n, n, k, by_index, s);
            const std::int64_t at = o * k * inner + c0 + c;
            write_slice<E>(e, k, slab + c, inner, values + at, indices + at);
          }
        }
      });
}

template <bool Max, class E, class T, class TIndex>
void run(const Parallel& parallel, const T* in, std::int64_t outer, std::int64_t n,
         std::int64_t inner, std::int64_t k, TopKSort sort, T* values, TIndex* indices) {
  const bool by_index = sort == TopKSort::index;
  const bool filter = k * kFilterRatio <= n;
  if (inner == 1) {
    if (filter)
      rows_by_filter<Max, E>(parallel, in, outer, n, k, by_index, values, indices);
    else
      rows_by_select<Max, E>(parallel, in, outer, n, k, by_index, values, indices);
  } else {
    if (filter)
      columns_by_filter<Max, E>(parallel, in, outer, n, inner, k, by_index, values, indices);
    else
      columns_by_select<Max, E>(parallel, in, outer, n, inner, k, by_index, values, indices);
  }
}

/// What SelectScratch<E>(n) holds.
template <class E>
std::size_t select_scratch(std::size_t n) {
  return saturating_add(
      saturating_mul(n, sizeof(typename E::K)),
      saturating_mul(saturating_add(n, 1), sizeof(std::uint32_t) + 2 * sizeof(typename E::Entry)));
}

/// The scratch of run<Max, E, T>() on these extents, each strategy's as it allocates it.
template <class E, class T>
std::size_t run_scratch(std::int64_t outer, std::int64_t n, std::int64_t inner, std::int64_t k,
                        unsigned threads) {
  using Entry = typename E::Entry;
  using D = typename Domain<T>::D;
  const bool filter = k * kFilterRatio <= n;
  const auto heap = saturating_mul(static_cast<std::size_t>(k), sizeof(Entry));
  if (inner == 1) {
    // A heap per thread over rows, or k entries per part of a split row.
    if (filter) return saturating_mul(2 * std::size_t{threads}, heap);
    const auto workers = std::min<std::size_t>(threads, static_cast<std::size_t>(outer));
    return saturating_mul(workers, select_scratch<E>(static_cast<std::size_t>(n)));
  }
  if (filter) {
    const std::int64_t max_width =
        std::max(kLanes<T>, std::min(kColumnBlock, kBlockHeapEntries / k / kLanes<T> * kLanes<T>));
    const ColumnBlocks blocks = plan_columns(inner, outer, max_width, kLanes<T>, threads);
    const auto w = static_cast<std::size_t>(blocks.width);
    const auto workers =
        std::min<std::size_t>(threads, static_cast<std::size_t>(outer * blocks.count));
    return saturating_mul(workers, saturating_add(saturating_mul(w, heap), 2 * w * sizeof(D)));
  }
  const std::int64_t max_width = std::clamp<std::int64_t>(kGatherKeys / n, 1, kMaxGather);
  const ColumnBlocks blocks = plan_columns(inner, outer, max_width, 1, threads);
  const auto workers =
      std::min<std::size_t>(threads, static_cast<std::size_t>(outer * blocks.count));
  const std::size_t keys = saturating_mul(
      saturating_mul(static_cast<std::size_t>(n), static_cast<std::size_t>(blocks.width)),
      sizeof(typename E::K));
  return saturating_mul(workers,
                        saturating_add(select_scratch<E>(static_cast<std::size_t>(n)), keys));
}

template <bool Unpack, class T, class TIndex>
void dispatch(const Parallel& parallel, const T* in, std::int64_t outer, std::int64_t n,
              std::int64_t inner, std::int64_t k, TopKMode mode, TopKSort sort, T* values,
              TIndex* indices) {
  if (k == 0 || outer == 0 || inner == 0) return;
  const auto with = [&]<class E>() {
    if (mode == TopKMode::max)
      run<true, E>(parallel, in, outer, n, inner, k, sort, values, indices);
    else
      run<false, E>(parallel, in, outer, n, inner, k, sort, values, indices);
  };
  if constexpr (sizeof(Key<T>) == 4 && !Unpack) {
    if (static_cast<std::uint64_t>(n) <= Packed::max_slice) {
      with.template operator()<Packed>();
      return;
    }
  }
  with.template operator()<Unpacked<Key<T>>>();
}

}  // namespace

template <class T, class TIndex>
void topk_unpacked(const Parallel& parallel, const T* in, std::int64_t outer, std::int64_t n,
                   std::int64_t inner, std::int64_t k, TopKMode mode, TopKSort sort, T* values,
                   TIndex* indices) {
  dispatch<true>(parallel, in, outer, n, inner, k, mode, sort, values, indices);
}

}  // namespace topk_detail

template <class T>
std::size_t topk_scratch(std::int64_t outer, std::int64_t n, std::int64_t inner, std::int64_t k,
                         unsigned threads) {
  using namespace topk_detail;
  if (k <= 0 || k > n || outer <= 0 || inner <= 0) return 0;
  threads = std::max(threads, 1u);
  // The entry type dispatch() picks.
  if constexpr (sizeof(Key<T>) == 4) {
    if (static_cast<std::uint64_t>(n) <= Packed::max_slice)
      return run_scratch<Packed, T>(outer, n, inner, k, threads);
  }
  return run_scratch<Unpacked<Key<T>>, T>(outer, n, inner, k, threads);
}

template <class T, class TIndex>
void topk(const Parallel& parallel, const T* in, std::int64_t outer, std::int64_t n,
          std::int64_t inner, std::int64_t k, TopKMode mode, TopKSort sort, T* values,
          TIndex* indices) {
  topk_detail::dispatch<false>(parallel, in, outer, n, inner, k, mode, sort, values, indices);
}

#define IRLITE_TOPK_INSTANTIATE(T, TIndex)                                                      \
  template void topk<T, TIndex>(const Parallel&, const T*, std::int64_t, std::int64_t,          \
                                std::int64_t, std::int64_t, TopKMode, TopKSort, T*, TIndex*);   \
  template void topk_detail::topk_unpacked<T, TIndex>(const Parallel&, const T*, std::int64_t,  \
                                                      std::int64_t, std::int64_t, std::int64_t, \
                                                      TopKMode, TopKSort, T*, TIndex*);
#define IRLITE_TOPK_SCRATCH_INSTANTIATE(T)                                                     \
  template std::size_t topk_scratch<T>(std::int64_t, std::int64_t, std::int64_t, std::int64_t, \
                                       unsigned);
#define IRLITE_TOPK_INSTANTIATE_BOTH(T)    \
  IRLITE_TOPK_INSTANTIATE(T, std::int32_t) \
  IRLITE_TOPK_INSTANTIATE(T, std::int64_t) IRLITE_TOPK_SCRATCH_INSTANTIATE(T)

IRLITE_TOPK_INSTANTIATE_BOTH(float16)
IRLITE_TOPK_INSTANTIATE_BOTH(bfloat16)
IRLITE_TOPK_INSTANTIATE_BOTH(float)
IRLITE_TOPK_INSTANTIATE_BOTH(double)
IRLITE_TOPK_INSTANTIATE_BOTH(std::int8_t)
IRLITE_TOPK_INSTANTIATE_BOTH(std::int16_t)
IRLITE_TOPK_INSTANTIATE_BOTH(std::int32_t)
IRLITE_TOPK_INSTANTIATE_BOTH(std::int64_t)
IRLITE_TOPK_INSTANTIATE_BOTH(std::uint8_t)
IRLITE_TOPK_INSTANTIATE_BOTH(std::uint16_t)
IRLITE_TOPK_INSTANTIATE_BOTH(std::uint32_t)
IRLITE_TOPK_INSTANTIATE_BOTH(std::uint64_t)

}  // namespace irlite
