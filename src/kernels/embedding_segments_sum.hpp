#pragma once
// EmbeddingSegmentsSum-3: out[segment_ids[k], :] += table[indices[k], :] * weights[k], on vectors
// and threads.
//
// One pass checks every index and segment id (in parallel) and finds out whether the segment ids
// are sorted, as the specification asks and real models give them. Sorted ids make each segment
// one run of consecutive indices: threads then take runs of whole segments, and each segment's
// rows are summed in index order into its output row while the table rows of the indices a little
// ahead are prefetched (the gathers are random, so the hardware cannot guess them). Unsorted ids
// scatter a segment over the indices: threads then take ranges of segments, and each one walks
// all the ids (a cheap sequential read) and adds the rows of its own segments, again in index
// order. Every segment is summed in the same order on any number of threads, so the results are
// the same bit for bit, and equal to summing the indices one after the other (the order the
// specification and OpenVINO's reference use).

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <type_traits>

#include "core/buffer.hpp"
#include "core/parallel.hpp"
#include "irlite/scratch.hpp"
#include "kernels/element.hpp"
#include "kernels/embedding.hpp"
#include "kernels/simd.hpp"

namespace irlite {

namespace embedding_fast {

/// How many indices ahead the table rows are prefetched, into L1. Measured on the benchmark's
/// shape (2M random rows of 256 bytes, sorted into 100k segments): 32 ahead into L1 took 23.6 ms
/// at one thread and 21.6 at two, where 32 ahead into L2 plus 4 ahead into L1 took 25.8 and
/// 23.5; 16 or 48 ahead into L1 were slower than 32 at both.
inline constexpr std::size_t kPrefetchDistance = 32;

/// Prefetches the table row that index k + kPrefetchDistance points at.
template <class T, class I>
IRLITE_INLINE void prefetch_ahead(const T* table, std::size_t row_size, const I* indices,
                                  std::size_t k, std::size_t num_indices) {
  if (k + kPrefetchDistance < num_indices)
    embedding_detail::prefetch_row<3>(
        table + static_cast<std::size_t>(indices[k + kPrefetchDistance]) * row_size, row_size);
}

/// Indices per thread below which one thread does it all.
inline constexpr std::size_t kGrain = std::size_t{1} << 14;

/// What one checking pass over a range of indices found.
struct RangeCheck {
  std::optional<std::size_t> bad_index;    ///< first index outside [0, num_emb)
  std::optional<std::size_t> bad_segment;  ///< first segment id outside [0, num_segments)
  bool sorted = true;                      ///< ids non-decreasing, from the range's first
};

/// Checks indices and segment ids of [begin, end): range and order.
template <class I>
IRLITE_MULTIVERSION RangeCheck check_range(const I* __restrict indices, const I* __restrict ids,
                                           std::size_t begin, std::size_t end,
                                           std::uint64_t num_emb, std::uint64_t num_segments) {
  using U = std::make_unsigned_t<I>;
  using VU = simd::vec<U>;
  using VI = simd::vec<I>;
  constexpr std::size_t L = simd::lanes<I>;
  // Negative values become at least 2^(bits - 1) as unsigned, so one unsigned comparison with a
  // bound capped there checks both ends.
  constexpr std::uint64_t kCap = static_cast<std::uint64_t>(std::numeric_limits<I>::max()) + 1;
  const VU emb_bound = simd::broadcast(static_cast<U>(std::min(num_emb, kCap)));
  const VU seg_bound = simd::broadcast(static_cast<U>(std::min(num_segments, kCap)));
  RangeCheck result;
  const auto scalar = [&](std::size_t i) {
    if (!result.bad_index && (indices[i] < 0 || static_cast<std::uint64_t>(indices[i]) >= num_emb))
      result.bad_index = i;
    if (!result.bad_segment && (ids[i] < 0 || static_cast<std::uint64_t>(ids[i]) >= num_segments))
      result.bad_segment = i;
    if (i > begin && ids[i] < ids[i - 1]) result.sorted = false;
  };
  std::size_t i = begin;
  constexpr std::size_t kBlock = 16 * L;
  while (i + kBlock + 1 <= end) {
    // A block at a time (its ids compared with their successors, the last one included); any
    // problem in it is then located element by element.
    simd::mask<I> flags{};
    for (std::size_t j = i; j < i + kBlock; j += L) {
      const VU idx = simd::bit_cast<VU>(simd::load(indices + j));
      const VI prev = simd::load(ids + j);
      const VI next = simd::load(ids + j + 1);
      flags |= (idx >= emb_bound) | (simd::bit_cast<VU>(prev) >= seg_bound) | (next < prev);
    }
    if (simd::any(flags))
      for (std::size_t j = i; j <= i + kBlock; ++j) scalar(j);
    i += kBlock;
  }
  for (; i < end; ++i) scalar(i);
  return result;
}

/// One row into dst (row_size elements) for the native floating-point types: dst = row * w for
/// a segment's first, dst = dst + row * w for the others (add_row's order and rounding).
template <class T, bool Weighted>
IRLITE_INLINE void add_row_native(T* __restrict dst, const T* __restrict src, std::size_t row_size,
                                  T w, bool first) {
  using V = simd::vec<T>;
  constexpr std::size_t L = simd::lanes<T>;
  std::size_t j = 0;
  if (first) {
    for (; j + L <= row_size; j += L) {
      const V x = simd::load(src + j);
      simd::store(dst + j, Weighted ? x * w : x);
    }
    for (; j < row_size; ++j) dst[j] = Weighted ? src[j] * w : src[j];
  } else {
    for (; j + L <= row_size; j += L) {
      const V x = simd::load(src + j);
      simd::store(dst + j, simd::load(dst + j) + (Weighted ? x * w : x));
    }
    for (; j < row_size; ++j) dst[j] = dst[j] + (Weighted ? src[j] * w : src[j]);
  }
}

/// Sums one segment's rows, indices [k0, k1), into dst (row_size elements) for the native
/// floating-point types.
template <class T, class I, bool Weighted>
IRLITE_MULTIVERSION void sum_segment_native(T* __restrict dst, const T* __restrict table,
                                            std::size_t row_size, const I* __restrict indices,
                                            const T* __restrict weights, std::size_t k0,
                                            std::size_t k1, std::size_t num_indices) {
  for (std::size_t k = k0; k < k1; ++k) {
    prefetch_ahead(table, row_size, indices, k, num_indices);
    const T* src = table + static_cast<std::size_t>(indices[k]) * row_size;
    add_row_native<T, Weighted>(dst, src, row_size, Weighted ? weights[k] : T(1), k == k0);
  }
}

/// The same for every other type: summed in sum_t<T> in `acc` (row_size elements), then stored.
template <class T, class I>
void sum_segment_plain(T* dst, const T* table, std::size_t row_size, const I* indices,
                       const T* weights, std::size_t k0, std::size_t k1, std::size_t num_indices,
                       embedding_detail::sum_t<T>* acc) {
  using A = embedding_detail::sum_t<T>;
  for (std::size_t k = k0; k < k1; ++k) {
    prefetch_ahead(table, row_size, indices, k, num_indices);
    const T* src = table + static_cast<std::size_t>(indices[k]) * row_size;
    A w{};
    if (weights) w = static_cast<A>(weights[k]);
    embedding_detail::add_row<A>(acc, src, row_size, weights ? &w : nullptr, k == k0);
  }
  for (std::size_t j = 0; j < row_size; ++j) dst[j] = T(acc[j]);
}

/// One thread's share of sorted, checked ids: indices [begin, end), owning output segments
/// [first, last); segments without indices get the default row or zeros. `acc` holds a row of
/// sums, for the types not summed on vectors.
template <class T, class I>
void sum_range(const T* table, std::size_t row_size, const I* indices, const I* ids,
               std::size_t num_indices, const T* weights, const T* default_row, std::size_t begin,
               std::size_t end, std::size_t first, std::size_t last,
               embedding_detail::sum_t<T>* acc, T* out) {
  constexpr bool native = simd::has_vec<T> && std::is_floating_point_v<T>;
  const auto fill = [&](std::size_t from, std::size_t to) {
    for (std::size_t s = from; s < to; ++s) {
      T* dst = out + s * row_size;
      if (default_row)
        std::copy_n(default_row, row_size, dst);  // not weighted: the spec weighs pooled rows
      else
        std::fill_n(dst, row_size, T{});
    }
  };
  std::size_t next = first;
  for (std::size_t k = begin; k < end;) {
    const I id = ids[k];
    std::size_t e = k + 1;
    while (e < end && ids[e] == id) ++e;
    const auto s = static_cast<std::size_t>(id);
    fill(next, s);
    T* dst = out + s * row_size;
    if constexpr (native) {
      if (weights)
        sum_segment_native<T, I, true>(dst, table, row_size, indices, weights, k, e, num_indices);
      else
        sum_segment_native<T, I, false>(dst, table, row_size, indices, weights, k, e, num_indices);
    } else {
      sum_segment_plain(dst, table, row_size, indices, weights, k, e, num_indices, acc);
    }
    next = s + 1;
    k = e;
  }
  fill(next, last);
}

/// Whether unsorted ids are summed straight into the output: every type but the 16-bit floats,
/// which are summed in float and rounded once at the end.
template <class T>
inline constexpr bool kSumsInPlace = !std::is_same_v<T, float16> && !std::is_same_v<T, bfloat16>;

/// One thread's share of checked but unsorted ids: the output segments [first, last), summed
/// into `acc` (their rows; the output itself for every type but f16 and bf16) while walking all
/// the indices in order, `filled` (zeros) marking the segments that got one. Segments without
/// indices then get the default row or zeros, and 16-bit floats are rounded from `acc` into the
/// output.
template <class T, class I>
IRLITE_MULTIVERSION void sum_scattered(const T* __restrict table, std::size_t row_size,
                                       const I* __restrict indices, const I* __restrict ids,
                                       std::size_t num_indices, const T* __restrict weights,
                                       const T* default_row, std::size_t first, std::size_t last,
                                       embedding_detail::sum_t<T>* acc, unsigned char* filled,
                                       T* out) {
  using A = embedding_detail::sum_t<T>;
  constexpr bool native = simd::has_vec<T> && std::is_floating_point_v<T>;
  constexpr bool in_place = kSumsInPlace<T>;
  for (std::size_t k = 0; k < num_indices; ++k) {
    // Unsigned, so that one comparison keeps the ids below `first` out too.
    const std::size_t s = static_cast<std::size_t>(ids[k]) - first;
    if (s >= last - first) continue;
    const T* src = table + static_cast<std::size_t>(indices[k]) * row_size;
    const bool is_first = !filled[first + s];
    filled[first + s] = 1;
    if constexpr (native) {
      T* dst = out + (first + s) * row_size;
      if (weights)
        add_row_native<T, true>(dst, src, row_size, weights[k], is_first);
      else
        add_row_native<T, false>(dst, src, row_size, T(1), is_first);
    } else {
      A w{};
      if (weights) w = static_cast<A>(weights[k]);
      const A* wp = weights ? &w : nullptr;
      if constexpr (in_place)
        embedding_detail::add_row<A>(out + (first + s) * row_size, src, row_size, wp, is_first);
      else
        embedding_detail::add_row<A>(acc + (first + s) * row_size, src, row_size, wp, is_first);
    }
  }
  for (std::size_t s = first; s < last; ++s) {
    T* dst = out + s * row_size;
    if (filled[s]) {
      if constexpr (!in_place)
        for (std::size_t j = 0; j < row_size; ++j) dst[j] = T(acc[s * row_size + j]);
    } else if (default_row) {
      std::copy_n(default_row, row_size, dst);  // not weighted: the spec weighs pooled rows
    } else {
      std::fill_n(dst, row_size, T{});
    }
  }
}

}  // namespace embedding_fast

/// The scratch of embedding_segments_sum(): a range check per thread, then either a flag per
/// segment and, for 16-bit floats, a float copy of the output (unsorted ids), or the borders
/// and a row of sums per thread (sorted ids). Both ways' pieces are taken, `acc` as large as
/// the larger use, so that the op declares what the kernel takes.
template <class T>
struct EmbeddingScratch {
  std::span<embedding_fast::RangeCheck> checks;
  std::span<embedding_detail::sum_t<T>> acc;
  std::span<unsigned char> filled;
  std::span<std::size_t> border, segment;
};

/// Takes the scratch for `num_segments` rows of `row_size` on `threads` threads: what
/// embedding_segments_sum() uses and, on a counting Scratch, what the op declares.
template <class T>
EmbeddingScratch<T> take_embedding_scratch(const Scratch& scratch, std::size_t num_segments,
                                           std::size_t row_size, unsigned threads) {
  constexpr bool native = simd::has_vec<T> && std::is_floating_point_v<T>;
  const std::size_t chunks = std::max(threads, 1u);
  // Rows of nothing are not summed: the kernel stops after the checks.
  if (row_size == 0) num_segments = 0;
  EmbeddingScratch<T> s;
  s.checks = scratch.take<embedding_fast::RangeCheck>(chunks);
  s.acc = scratch.take<embedding_detail::sum_t<T>>(
      std::max(embedding_fast::kSumsInPlace<T> ? 0 : saturating_mul(num_segments, row_size),
               native ? 0 : saturating_mul(chunks, row_size)));
  s.filled = scratch.take<unsigned char>(num_segments);
  s.border = scratch.take<std::size_t>(chunks + 1);
  s.segment = scratch.take<std::size_t>(chunks + 1);
  return s;
}

/// The bytes of scratch embedding_segments_sum() takes.
template <class T>
std::size_t embedding_segments_sum_scratch(std::size_t num_segments, std::size_t row_size,
                                           unsigned threads) {
  const Scratch counting = Scratch::counting();
  (void)take_embedding_scratch<T>(counting, num_segments, row_size, threads);
  return counting.bytes();
}

/// table: [num_emb, row_size]; indices, segment_ids and weights (nullptr = ones): [num_indices];
/// default_index: nullptr or a scalar (-1 = zeros); out: [num_segments, row_size], every element
/// written. Checks every index before writing anything and returns the first bad one. Threads of
/// `par` take `grain` indices or more each, and embedding_segments_sum_scratch() bytes of
/// `scratch`.
template <class T, class I>
[[nodiscard]] std::optional<EmbeddingIndexProblem> embedding_segments_sum(
    const Parallel& par, const T* table, std::size_t num_emb, std::size_t row_size,
    const I* indices, const I* segment_ids, std::size_t num_indices, std::size_t num_segments,
    const I* default_index, const T* weights, T* out, std::size_t grain = embedding_fast::kGrain,
    const Scratch& scratch = Scratch()) {
  namespace fast = embedding_fast;
  using Input = EmbeddingIndexProblem::Input;
  const EmbeddingScratch<T> buffers =
      take_embedding_scratch<T>(scratch, num_segments, row_size, par.threads());
  // Check everything, a range per thread.
  const std::span<fast::RangeCheck> checks = buffers.checks.first(par.chunks(num_indices, grain));
  par.for_range(num_indices, grain, [&](std::size_t b, std::size_t e, std::size_t c) {
    checks[c] = fast::check_range(indices, segment_ids, b, e, num_emb, num_segments);
  });
  for (const auto& c : checks)
    if (c.bad_index)
      return EmbeddingIndexProblem{Input::indices, *c.bad_index, indices[*c.bad_index], num_emb};
  for (const auto& c : checks)
    if (c.bad_segment)
      return EmbeddingIndexProblem{Input::segment_ids, *c.bad_segment, segment_ids[*c.bad_segment],
                                   num_segments};
  if (default_index && *default_index != -1 && first_outside(default_index, 1, num_emb))
    return EmbeddingIndexProblem{Input::default_index, 0, *default_index, num_emb};
  if (row_size == 0) return std::nullopt;  // nothing to write, however many segments

  bool sorted = true;
  for (const auto& c : checks) sorted = sorted && c.sorted;
  const auto parts = checks.size();
  for (std::size_t c = 1; c < parts && sorted; ++c) {
    // Where one range ends and the next begins.
    const std::size_t b = num_indices / parts * c + std::min(c, num_indices % parts);
    sorted = segment_ids[b - 1] <= segment_ids[b];
  }
  const T* default_row = default_index && *default_index >= 0
                             ? table + static_cast<std::size_t>(*default_index) * row_size
                             : nullptr;
  if (!sorted) {
    // Segments scattered over the indices: ranges of segments, one per thread, as many threads
    // as the indices would get (every thread reads every id, but adds only its own rows).
    embedding_detail::sum_t<T>* const acc = buffers.acc.data();
    unsigned char* const filled = buffers.filled.data();
    std::fill_n(filled, num_segments, 0);
    const std::size_t ranges = std::min(par.chunks(num_indices, grain), num_segments);
    par.for_range(num_segments, num_segments / std::max<std::size_t>(ranges, 1),
                  [&](std::size_t first, std::size_t last, std::size_t) {
                    fast::sum_scattered(table, row_size, indices, segment_ids, num_indices, weights,
                                        default_row, first, last, acc, filled, out);
                  });
    return std::nullopt;
  }

  // Borders: an even split moved forward to where the segment id changes.
  const std::size_t threads = par.chunks(num_indices, grain);
  const std::span<std::size_t> border = buffers.border.first(threads + 1);
  const std::span<std::size_t> segment = buffers.segment.first(threads + 1);
  std::fill(border.begin(), border.end(), num_indices);
  std::fill(segment.begin(), segment.end(), num_segments);
  border[0] = 0;
  segment[0] = 0;
  for (std::size_t c = 1; c < threads; ++c) {
    std::size_t b = std::max(num_indices / threads * c, border[c - 1]);
    if (b > 0 && b < num_indices)
      b = static_cast<std::size_t>(
          std::upper_bound(segment_ids + b, segment_ids + num_indices, segment_ids[b - 1]) -
          segment_ids);
    border[c] = b;
    if (b < num_indices) segment[c] = static_cast<std::size_t>(segment_ids[b]);
  }
  par.for_range(threads, 1, [&](std::size_t b, std::size_t e, std::size_t chunk) {
    embedding_detail::sum_t<T>* acc =
        buffers.acc.empty() ? nullptr : buffers.acc.data() + chunk * row_size;
    for (std::size_t c = b; c < e; ++c)
      fast::sum_range(table, row_size, indices, segment_ids, num_indices, weights, default_row,
                      border[c], border[c + 1], segment[c], segment[c + 1], acc, out);
  });
  return std::nullopt;
}

}  // namespace irlite
