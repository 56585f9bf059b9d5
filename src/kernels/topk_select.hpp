#pragma once
// TopK, the optimised kernel's pieces (see topk.hpp): the radix selection for larger k.

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

#include "irlite/scratch.hpp"
#include "kernels/simd.hpp"
#include "kernels/topk_keys.hpp"

namespace irlite::topk_detail {

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

/// Scratch for selecting from slices of up to n keys, taken from `scratch`.
template <class E>
struct SelectScratch {
  SelectScratch(std::int64_t n, const Scratch& scratch)
      : keys(scratch.take<typename E::K>(static_cast<std::size_t>(n))),
        at(scratch.take<std::uint32_t>(static_cast<std::size_t>(n) + 1)),
        out(scratch.take<typename E::Entry>(static_cast<std::size_t>(n) + 1)),
        tmp(scratch.take<typename E::Entry>(static_cast<std::size_t>(n) + 1)) {}
  std::span<typename E::K> keys;
  std::span<std::uint32_t> at;
  std::span<typename E::Entry> out, tmp;
};

/// The k best (0 < k <= n) of keys[0, n) (keys of `Bits` significant bits) in output order; the
/// result lives in s.out or s.tmp.
template <class E, int Bits>
const typename E::Entry* select_keys(const typename E::K* keys, std::int64_t n, std::int64_t k,
                                     bool by_index, const SelectScratch<E>& s) {
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

}  // namespace irlite::topk_detail
