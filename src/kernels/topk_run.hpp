#pragma once
// TopK, the optimised kernel's pieces (see topk.hpp): the drivers that pick a strategy and split
// the work over threads, and the definitions of topk(), topk_unpacked() and topk_scratch().
// Each topk_*.cpp file instantiates them for a group of element types, so that the kernel
// compiles as several smaller units, in parallel.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/buffer.hpp"
#include "core/parallel.hpp"
#include "kernels/topk.hpp"
#include "kernels/topk_filter.hpp"
#include "kernels/topk_select.hpp"

namespace irlite {
namespace topk_detail {

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

inline std::int64_t grain_for(std::int64_t work_per_item) {
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
inline ColumnBlocks plan_columns(std::int64_t inner, std::int64_t outer, std::int64_t max_width,
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

}  // namespace irlite
