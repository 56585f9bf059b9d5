#pragma once
// TopK, the optimised kernel's pieces (see topk.hpp): the keys that order the elements and the
// (key, index) entries the strategies sort. Included only by the other topk_*.hpp headers.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <type_traits>

#include "kernels/element.hpp"
#include "kernels/simd.hpp"

namespace irlite::topk_detail {

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

}  // namespace irlite::topk_detail
