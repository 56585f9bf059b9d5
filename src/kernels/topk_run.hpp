#pragma once
// TopK, the optimised kernel's pieces (see topk.hpp): the drivers that pick a strategy and split
// the work over threads, and the definitions of topk(), topk_unpacked() and topk_scratch().
// Each topk_*.cpp file instantiates them for a group of element types, so that the kernel
// compiles as several smaller units, in parallel.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

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
/// The row filter's scratch: a heap of k entries per chunk of rows, and k entries per part of a
/// split row.
template <class E>
struct RowFilterScratch {
  Scratch::Slices heaps;
  std::span<typename E::Entry> kept;
};
template <class E>
RowFilterScratch<E> take_row_filter(const Scratch& scratch, std::int64_t k, unsigned threads) {
  const auto heap = static_cast<std::size_t>(k);
  return {scratch.slices(threads, saturating_mul(heap, sizeof(typename E::Entry))),
          scratch.take<typename E::Entry>(saturating_mul(threads, heap))};
}

template <bool Max, class E, class T, class TIndex>
void rows_by_filter(const Parallel& parallel, const Scratch& scratch, const T* in,
                    std::int64_t outer, std::int64_t n, std::int64_t k, bool by_index, T* values,
                    TIndex* indices) {
  using Entry = typename E::Entry;
  constexpr Key<T> flip = mode_flip<T>(Max);
  const RowFilterScratch<E> buffers = take_row_filter<E>(scratch, k, parallel.threads());
  const std::int64_t part_grain = std::max(kSplitElements, k);
  if (outer >= static_cast<std::int64_t>(parallel.threads()) ||
      parallel.chunks(static_cast<std::size_t>(n), static_cast<std::size_t>(part_grain)) == 1) {
    parallel.for_range(
        static_cast<std::size_t>(outer), static_cast<std::size_t>(grain_for(n)),
        [&](std::size_t begin, std::size_t end, std::size_t chunk) {
          const Scratch mine = buffers.heaps[chunk];
          const std::span<Entry> heap = mine.take<Entry>(static_cast<std::size_t>(k));
          for (auto o = static_cast<std::int64_t>(begin); o < static_cast<std::int64_t>(end); ++o) {
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
  const std::span<Entry> kept = buffers.kept.first(parts * static_cast<std::size_t>(k));
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
/// The selection's scratch for rows: a SelectScratch per chunk of rows.
template <class E>
Scratch::Slices take_row_select(const Scratch& scratch, std::int64_t outer, std::int64_t n,
                                unsigned threads) {
  return scratch.slices(std::min<std::size_t>(threads, static_cast<std::size_t>(outer)),
                        Scratch::bytes_of([&](const Scratch& s) { SelectScratch<E>(n, s); }));
}

template <bool Max, class E, class T, class TIndex>
void rows_by_select(const Parallel& parallel, const Scratch& scratch, const T* in,
                    std::int64_t outer, std::int64_t n, std::int64_t k, bool by_index, T* values,
                    TIndex* indices) {
  constexpr Key<T> flip = mode_flip<T>(Max);
  const Scratch::Slices chunks = take_row_select<E>(scratch, outer, n, parallel.threads());
  parallel.for_range(
      static_cast<std::size_t>(outer), static_cast<std::size_t>(grain_for(n)),
      [&](std::size_t begin, std::size_t end, std::size_t chunk) {
        const Scratch mine = chunks[chunk];
        const SelectScratch<E> s(n, mine);
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
/// The column filter's blocks for these extents.
template <class T>
ColumnBlocks filter_columns_plan(std::int64_t outer, std::int64_t inner, std::int64_t k,
                                 unsigned threads) {
  const std::int64_t max_width =
      std::max(kLanes<T>, std::min(kColumnBlock, kBlockHeapEntries / k / kLanes<T> * kLanes<T>));
  return plan_columns(inner, outer, max_width, kLanes<T>, threads);
}

/// One chunk's scratch in the column filter: a heap per column of a block, and two vectors.
template <class E, class T>
struct ColumnFilterScratch {
  ColumnFilterScratch(std::size_t width, std::int64_t k, const Scratch& scratch)
      : heaps(scratch.take<typename E::Entry>(saturating_mul(width, static_cast<std::size_t>(k)))),
        t(scratch.take<typename Domain<T>::D>(width)),
        u(scratch.take<typename Domain<T>::D>(width)) {}
  std::span<typename E::Entry> heaps;
  std::span<typename Domain<T>::D> t, u;
};

template <class E, class T>
Scratch::Slices take_column_filter(const Scratch& scratch, std::int64_t outer, std::int64_t inner,
                                   std::int64_t k, unsigned threads) {
  const ColumnBlocks blocks = filter_columns_plan<T>(outer, inner, k, threads);
  const auto w = static_cast<std::size_t>(blocks.width);
  return scratch.slices(
      std::min<std::size_t>(threads, static_cast<std::size_t>(outer * blocks.count)),
      Scratch::bytes_of([&](const Scratch& s) { ColumnFilterScratch<E, T>(w, k, s); }));
}

template <bool Max, class E, class T, class TIndex>
void columns_by_filter(const Parallel& parallel, const Scratch& scratch, const T* in,
                       std::int64_t outer, std::int64_t n, std::int64_t inner, std::int64_t k,
                       bool by_index, T* values, TIndex* indices) {
  using Entry = typename E::Entry;
  constexpr Key<T> flip = mode_flip<T>(Max);
  const ColumnBlocks blocks = filter_columns_plan<T>(outer, inner, k, parallel.threads());
  const Scratch::Slices chunks =
      take_column_filter<E, T>(scratch, outer, inner, k, parallel.threads());
  const std::int64_t items = outer * blocks.count;
  parallel.for_range(
      static_cast<std::size_t>(items), static_cast<std::size_t>(grain_for(n * blocks.width)),
      [&](std::size_t begin, std::size_t end, std::size_t chunk) {
        const auto w = static_cast<std::size_t>(blocks.width);
        const Scratch mine = chunks[chunk];
        const ColumnFilterScratch<E, T> s(w, k, mine);
        const std::span<Entry> heaps = s.heaps;
        const auto t = s.t, u = s.u;
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
/// The gathering selection's blocks for these extents.
inline ColumnBlocks select_columns_plan(std::int64_t outer, std::int64_t n, std::int64_t inner,
                                        unsigned threads) {
  const std::int64_t max_width = std::clamp<std::int64_t>(kGatherKeys / n, 1, kMaxGather);
  return plan_columns(inner, outer, max_width, 1, threads);
}

/// One chunk's scratch in the gathering selection: a SelectScratch and a block's keys.
template <class E>
struct ColumnSelectScratch {
  ColumnSelectScratch(std::int64_t n, std::int64_t width, const Scratch& scratch)
      : select(n, scratch),
        keys(scratch.take<typename E::K>(
            saturating_mul(static_cast<std::size_t>(n), static_cast<std::size_t>(width)))) {}
  SelectScratch<E> select;
  std::span<typename E::K> keys;
};

template <class E>
Scratch::Slices take_column_select(const Scratch& scratch, std::int64_t outer, std::int64_t n,
                                   std::int64_t inner, unsigned threads) {
  const ColumnBlocks blocks = select_columns_plan(outer, n, inner, threads);
  return scratch.slices(
      std::min<std::size_t>(threads, static_cast<std::size_t>(outer * blocks.count)),
      Scratch::bytes_of([&](const Scratch& s) { ColumnSelectScratch<E>(n, blocks.width, s); }));
}

template <bool Max, class E, class T, class TIndex>
void columns_by_select(const Parallel& parallel, const Scratch& scratch, const T* in,
                       std::int64_t outer, std::int64_t n, std::int64_t inner, std::int64_t k,
                       bool by_index, T* values, TIndex* indices) {
  using K = typename E::K;
  constexpr Key<T> flip = mode_flip<T>(Max);
  const ColumnBlocks blocks = select_columns_plan(outer, n, inner, parallel.threads());
  const Scratch::Slices chunks =
      take_column_select<E>(scratch, outer, n, inner, parallel.threads());
  const std::int64_t items = outer * blocks.count;
  parallel.for_range(
      static_cast<std::size_t>(items), static_cast<std::size_t>(grain_for(n * blocks.width)),
      [&](std::size_t begin, std::size_t end, std::size_t chunk) {
        const Scratch mine = chunks[chunk];
        const ColumnSelectScratch<E> buffers(n, blocks.width, mine);
        const SelectScratch<E>& s = buffers.select;
        const std::span<K> keys = buffers.keys;
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
void run(const Parallel& parallel, const Scratch& scratch, const T* in, std::int64_t outer,
         std::int64_t n, std::int64_t inner, std::int64_t k, TopKSort sort, T* values,
         TIndex* indices) {
  const bool by_index = sort == TopKSort::index;
  const bool filter = k * kFilterRatio <= n;
  if (inner == 1) {
    if (filter)
      rows_by_filter<Max, E>(parallel, scratch, in, outer, n, k, by_index, values, indices);
    else
      rows_by_select<Max, E>(parallel, scratch, in, outer, n, k, by_index, values, indices);
  } else {
    if (filter)
      columns_by_filter<Max, E>(parallel, scratch, in, outer, n, inner, k, by_index, values,
                                indices);
    else
      columns_by_select<Max, E>(parallel, scratch, in, outer, n, inner, k, by_index, values,
                                indices);
  }
}

/// The scratch run<Max, E, T>() takes on these extents: the chosen strategy's, taken by the
/// same functions.
template <class E, class T>
std::size_t run_scratch(std::int64_t outer, std::int64_t n, std::int64_t inner, std::int64_t k,
                        unsigned threads) {
  const bool filter = k * kFilterRatio <= n;
  return Scratch::bytes_of([&](const Scratch& s) {
    if (inner == 1 && filter)
      (void)take_row_filter<E>(s, k, threads);
    else if (inner == 1)
      (void)take_row_select<E>(s, outer, n, threads);
    else if (filter)
      (void)take_column_filter<E, T>(s, outer, inner, k, threads);
    else
      (void)take_column_select<E>(s, outer, n, inner, threads);
  });
}

template <bool Unpack, class T, class TIndex>
void dispatch(const Parallel& parallel, const T* in, std::int64_t outer, std::int64_t n,
              std::int64_t inner, std::int64_t k, TopKMode mode, TopKSort sort, T* values,
              TIndex* indices, const Scratch& scratch) {
  if (k == 0 || outer == 0 || inner == 0) return;
  const auto with = [&]<class E>() {
    if (mode == TopKMode::max)
      run<true, E>(parallel, scratch, in, outer, n, inner, k, sort, values, indices);
    else
      run<false, E>(parallel, scratch, in, outer, n, inner, k, sort, values, indices);
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
                   TIndex* indices, const Scratch& scratch) {
  dispatch<true>(parallel, in, outer, n, inner, k, mode, sort, values, indices, scratch);
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
          TIndex* indices, const Scratch& scratch) {
  topk_detail::dispatch<false>(parallel, in, outer, n, inner, k, mode, sort, values, indices,
                               scratch);
}

#define IRLITE_TOPK_INSTANTIATE(T, TIndex)                                                         \
  template void topk<T, TIndex>(const Parallel&, const T*, std::int64_t, std::int64_t,             \
                                std::int64_t, std::int64_t, TopKMode, TopKSort, T*, TIndex*,       \
                                const Scratch&);                                                   \
  template void topk_detail::topk_unpacked<T, TIndex>(                                             \
      const Parallel&, const T*, std::int64_t, std::int64_t, std::int64_t, std::int64_t, TopKMode, \
      TopKSort, T*, TIndex*, const Scratch&);
#define IRLITE_TOPK_SCRATCH_INSTANTIATE(T)                                                     \
  template std::size_t topk_scratch<T>(std::int64_t, std::int64_t, std::int64_t, std::int64_t, \
                                       unsigned);
#define IRLITE_TOPK_INSTANTIATE_BOTH(T)    \
  IRLITE_TOPK_INSTANTIATE(T, std::int32_t) \
  IRLITE_TOPK_INSTANTIATE(T, std::int64_t) IRLITE_TOPK_SCRATCH_INSTANTIATE(T)

}  // namespace irlite
