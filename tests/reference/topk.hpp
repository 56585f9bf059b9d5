#pragma once
// TopK, the plain kernel: the test oracle of kernels/topk.hpp.
//
// TopK: the k largest (or smallest) elements of every 1-D slice along one axis, with their
// positions in the slice.
//
// Ordering (TopK-1/3/11 spec, OpenVINO's reference comparator): among equal values the lower
// index wins and comes first. NaN ranks above every number (PyTorch's `topk`): first for max,
// last for min; -0 and +0 are equal. Every element gets an unsigned key that is larger the better
// the element is (mode and NaN folded in), and (key, index) pairs are compared as a strict total
// order, so std::nth_element/std::sort always get a valid comparator and the result is
// deterministic. Values are copied from the input by index, never converted.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/element.hpp"
#include "kernels/topk_mode.hpp"

namespace irlite::test::reference {

namespace topk_impl {

/// Order-preserving keys: key(a) < key(b) iff a < b; NaN above +inf; -0 equal to +0. Branch-free
/// but for the NaN select: signs are random in real data and a branch on them mispredicts.
inline std::uint32_t order_key(float v) {
  const auto b = std::bit_cast<std::uint32_t>(v + 0.0f);  // -0 + 0 = +0 (IEEE, no fast-math)
  const auto negative = static_cast<std::uint32_t>(static_cast<std::int32_t>(b) >> 31);
  const std::uint32_t key = b ^ (negative | 0x80000000u);  // negative: ~b; positive: set sign
  return std::isnan(v) ? 0xffffffffu : key;
}

inline std::uint64_t order_key(double v) {
  const auto b = std::bit_cast<std::uint64_t>(v + 0.0);
  const auto negative = static_cast<std::uint64_t>(static_cast<std::int64_t>(b) >> 63);
  const std::uint64_t key = b ^ (negative | (std::uint64_t{1} << 63));
  return std::isnan(v) ? ~std::uint64_t{0} : key;
}

template <class T>
auto key_of(T v) {
  if constexpr (is_float_storage_v<T>) {
    return order_key(static_cast<compute_t<T>>(v));
  } else if constexpr (sizeof(T) <= 4) {
    if constexpr (std::is_signed_v<T>)
      return static_cast<std::uint32_t>(static_cast<std::int32_t>(v)) ^ 0x80000000u;
    else
      return static_cast<std::uint32_t>(v);
  } else {
    if constexpr (std::is_signed_v<T>)
      return static_cast<std::uint64_t>(v) ^ (std::uint64_t{1} << 63);
    else
      return static_cast<std::uint64_t>(v);
  }
}

template <class T>
using key_type = decltype(key_of(T{}));

/// A 32-bit key and an index below 2^32 packed into one integer, the index complemented so that
/// a larger integer is always the better element.
struct PackedEntries {
  using Key = std::uint32_t;
  using Entry = std::uint64_t;
  static constexpr std::uint64_t max_slice = std::uint64_t{1} << 32;
  static Entry make(std::uint32_t key, std::int64_t index) {
    return (std::uint64_t{key} << 32) | (0xffffffffu - static_cast<std::uint64_t>(index));
  }
  static std::int64_t index(Entry e) {
    return static_cast<std::int64_t>(0xffffffffu - (e & 0xffffffffu));
  }
  static bool better(Entry a, Entry b) { return a > b; }
};

/// Any key with its index alongside.
template <class KeyType>
struct WideEntries {
  using Key = KeyType;
  struct Entry {
    Key key;
    std::int64_t index;
  };
  static Entry make(Key key, std::int64_t index) { return {key, index}; }
  static std::int64_t index(const Entry& e) { return e.index; }
  static bool better(const Entry& a, const Entry& b) {
    return a.key > b.key || (a.key == b.key && a.index < b.index);
  }
};

/// Slices at least this many times longer than k use bounded heaps (about n + k log k log n
/// comparisons, most of them one rejection); shorter ones nth_element and a sort of the k
/// (about 3n + k log k, with data-dependent branches). Measured on random data.
inline constexpr std::int64_t kHeapRatio = 32;
/// How many entries the gather buffer of a non-innermost axis holds at most.
inline constexpr std::int64_t kScratchEntries = std::int64_t{1} << 18;
/// How many neighbouring slices of a non-innermost axis are gathered together, so that each row
/// is read as a run of consecutive elements.
inline constexpr std::int64_t kMaxBlock = 16;

/// Moves the k best of e[0..n) (0 < k <= n) to e[0..k) in output order.
template <class E>
void select(typename E::Entry* e, std::int64_t n, std::int64_t k, bool by_index) {
  const auto better = [](const auto& a, const auto& b) { return E::better(a, b); };
  if (k < n) {
    // nth_element leaves the k-th best at k - 1 with only better ones before it.
    std::nth_element(e, e + (k - 1), e + n, better);
    std::sort(e, e + (k - 1), better);
  } else {
    std::sort(e, e + n, better);
  }
  if (by_index) {
    std::sort(e, e + k, [](const auto& a, const auto& b) { return E::index(a) < E::index(b); });
  }
}

/// The kernel for one entry representation; see topk() for the contract.
template <class E, class T, class TIndex>
void topk_with(const T* in, std::int64_t outer, std::int64_t n, std::int64_t inner, std::int64_t k,
               TopKMode mode, TopKSort sort, T* values, TIndex* indices) {
  using Key = key_type<T>;
  using Entry = typename E::Entry;
  static_assert(std::is_same_v<typename E::Key, Key>, "entries must hold the element's key");
  if (k == 0 || outer == 0 || inner == 0) return;
  const Key flip = mode == TopKMode::min ? static_cast<Key>(~Key{0}) : Key{0};
  const auto entry = [flip](T v, std::int64_t j) {
    return E::make(static_cast<Key>(key_of(v) ^ flip), j);
  };

  if (k == 1 && inner == 1) {
    // Arg-max/min of contiguous slices: one linear scan each.
    for (std::int64_t o = 0; o < outer; ++o) {
      const T* slice = in + o * n;
      Entry best = entry(slice[0], 0);
      for (std::int64_t j = 1; j < n; ++j) {
        const Entry c = entry(slice[j], j);
        best = E::better(c, best) ? c : best;
      }
      const std::int64_t idx = E::index(best);
      values[o] = slice[idx];
      indices[o] = static_cast<TIndex>(idx);
    }
    return;
  }
  if (k == 1) {
    // Arg-max/min along a non-innermost axis: one running best per slice, updated row by row so
    // that the inner loop reads consecutive elements.
    std::vector<Entry> best(static_cast<std::size_t>(inner));
    for (std::int64_t o = 0; o < outer; ++o) {
      const T* slab = in + o * n * inner;
      for (std::int64_t i = 0; i < inner; ++i) best[i] = entry(slab[i], 0);
      for (std::int64_t j = 1; j < n; ++j) {
        const T* row = slab + j * inner;
        for (std::int64_t i = 0; i < inner; ++i) {
          const Entry c = entry(row[i], j);
          if (E::better(c, best[i])) best[i] = c;
        }
      }
      for (std::int64_t i = 0; i < inner; ++i) {
        const std::int64_t idx = E::index(best[i]);
        values[o * inner + i] = slab[idx * inner + i];
        indices[o * inner + i] = static_cast<TIndex>(idx);
      }
    }
    return;
  }

  const auto better = [](const Entry& a, const Entry& b) { return E::better(a, b); };
  const bool by_index = sort == TopKSort::index;

  if (k * kHeapRatio <= n) {
    // Small k: one bounded heap per slice, its worst entry on top, fed row by row so that the
    // inner loop reads consecutive elements whatever the axis. Most entries lose against the
    // top and cost one comparison.
    std::vector<Entry> heaps(static_cast<std::size_t>(inner * k));
    for (std::int64_t o = 0; o < outer; ++o) {
      const T* slab = in + o * n * inner;
      for (std::int64_t j = 0; j < k; ++j) {
        for (std::int64_t i = 0; i < inner; ++i) heaps[i * k + j] = entry(slab[j * inner + i], j);
      }
      for (std::int64_t i = 0; i < inner; ++i) {
        std::make_heap(heaps.begin() + i * k, heaps.begin() + (i + 1) * k, better);
      }
      for (std::int64_t j = k; j < n; ++j) {
        const T* row = slab + j * inner;
        for (std::int64_t i = 0; i < inner; ++i) {
          const Entry c = entry(row[i], j);
          const auto h = heaps.begin() + i * k;
          if (E::better(c, h[0])) {
            std::pop_heap(h, h + k, better);
            h[k - 1] = c;
            std::push_heap(h, h + k, better);
          }
        }
      }
      for (std::int64_t i = 0; i < inner; ++i) {
        const auto h = heaps.begin() + i * k;
        std::sort_heap(h, h + k, better);  // best first
        if (by_index) {
          std::sort(h, h + k,
                    [](const Entry& a, const Entry& b) { return E::index(a) < E::index(b); });
        }
        for (std::int64_t j = 0; j < k; ++j) {
          const std::int64_t idx = E::index(h[j]);
          const std::int64_t at = (o * k + j) * inner + i;
          values[at] = slab[idx * inner + i];
          indices[at] = static_cast<TIndex>(idx);
        }
      }
    }
    return;
  }

  // Larger k: gather whole slices, several neighbouring ones at a time for a non-innermost axis
  // so that each row is read as a run of consecutive elements.
  const std::int64_t block = std::clamp<std::int64_t>(
      std::min(inner, std::max<std::int64_t>(kScratchEntries / n, 1)), 1, kMaxBlock);
  std::vector<Entry> buf(static_cast<std::size_t>(block * n));
  for (std::int64_t o = 0; o < outer; ++o) {
    const T* slab = in + o * n * inner;
    const std::int64_t out_base = o * k * inner;
    for (std::int64_t i0 = 0; i0 < inner; i0 += block) {
      const std::int64_t width = std::min(block, inner - i0);
      for (std::int64_t j = 0; j < n; ++j) {
        const T* row = slab + j * inner + i0;
        for (std::int64_t b = 0; b < width; ++b) buf[b * n + j] = entry(row[b], j);
      }
      for (std::int64_t b = 0; b < width; ++b) select<E>(buf.data() + b * n, n, k, by_index);
      for (std::int64_t j = 0; j < k; ++j) {
        for (std::int64_t b = 0; b < width; ++b) {
          const std::int64_t idx = E::index(buf[b * n + j]);
          const std::int64_t at = out_base + j * inner + i0 + b;
          values[at] = slab[idx * inner + i0 + b];
          indices[at] = static_cast<TIndex>(idx);
        }
      }
    }
  }
}

}  // namespace topk_impl

/// TopK over the middle axis of `in` viewed as [outer, n, inner]; `values` and `indices` are
/// [outer, k, inner]. Requires 0 <= k <= n and n - 1 representable in TIndex (the op checks).
template <class T, class TIndex>
void topk(const T* in, std::int64_t outer, std::int64_t n, std::int64_t inner, std::int64_t k,
          TopKMode mode, TopKSort sort, T* values, TIndex* indices) {
  namespace impl = topk_impl;
  using Key = impl::key_type<T>;
  if constexpr (sizeof(Key) == 4) {
    if (static_cast<std::uint64_t>(n) <= impl::PackedEntries::max_slice) {
      impl::topk_with<impl::PackedEntries>(in, outer, n, inner, k, mode, sort, values, indices);
      return;
    }
  }
  impl::topk_with<impl::WideEntries<Key>>(in, outer, n, inner, k, mode, sort, values, indices);
}

}  // namespace irlite::test::reference
