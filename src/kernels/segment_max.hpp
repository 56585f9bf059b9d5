#pragma once
// SegmentMax-16: the element-wise maximum of the rows of `data` that share a segment id, on
// vectors and threads.
//
// The ids are sorted, so every segment is one run of consecutive rows. Threads take contiguous
// ranges of rows whose borders fall where the id changes, so each segment belongs to one thread
// and is reduced in the same order on any number of threads: the results are the same bit for
// bit. The ids are checked in the same pass that reduces the data (a second pass over them would
// cost as much memory traffic as the data itself for 1-D data); a thread that meets a bad id stops
// writing and only checks, and the first bad id in row order is reported.
// tests/reference/segment_max.hpp is the plain version these results are tested against.

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
#include "kernels/segments.hpp"
#include "kernels/simd.hpp"

namespace irlite {

namespace segment_max_fast {

/// dst[j] = max(dst[j], src[j]) for j < n, NaN from either side winning (the same rule as
/// segment_max_detail::max_nan, so results match the plain kernel bit for bit).
template <class T>
IRLITE_INLINE void max_into(T* __restrict dst, const T* __restrict src, std::size_t n) {
  using V = simd::vec<T>;
  constexpr std::size_t L = simd::lanes<T>;
  std::size_t j = 0;
  for (; j + L <= n; j += L) {
    const V a = simd::load(dst + j);
    const V x = simd::load(src + j);
    if constexpr (std::is_floating_point_v<T>)
      simd::store(dst + j, ((a < x) | simd::is_nan(x)) ? x : a);
    else
      simd::store(dst + j, a < x ? x : a);
  }
  for (; j < n; ++j) dst[j] = segment_max_detail::max_nan(dst[j], src[j]);
}

/// The maximum of x[0..n), n >= 1, NaN if any is NaN. Runs of a vector or more are read in whole
/// vectors, the last one overlapping the one before (a maximum does not mind seeing an element
/// twice).
template <class T>
IRLITE_INLINE T run_max(const T* x, std::size_t n) {
  constexpr std::size_t L = simd::lanes<T>;
  if (n < L) {
    T m = x[0];
    for (std::size_t j = 1; j < n; ++j) m = segment_max_detail::max_nan(m, x[j]);
    return m;
  }
  using V = simd::vec<T>;
  V m = simd::load(x);
  simd::mask<T> nan{};
  if constexpr (std::is_floating_point_v<T>) nan = simd::is_nan(m);
  for (std::size_t j = L; j < n; j += L) {
    const V v = simd::load(x + std::min(j, n - L));
    m = simd::max(m, v);
    if constexpr (std::is_floating_point_v<T>) nan |= simd::is_nan(v);
  }
  if constexpr (std::is_floating_point_v<T>)
    if (simd::any(nan)) return std::numeric_limits<T>::quiet_NaN();
  return simd::max_lane(m);
}

/// The problem with ids[i], which is smaller than ids[i - 1] (or is ids[0]) and known bad.
template <class I>
SegmentIdProblem bad_id(const I* ids, std::size_t i) {
  if (ids[i] < 0) return SegmentIdProblem{SegmentIdProblem::Kind::negative, i, ids[i], 0};
  return SegmentIdProblem{SegmentIdProblem::Kind::unsorted, i, ids[i], ids[i - 1]};
}

/// The first position in [j, end) whose id is not `id`: whole vectors of ids compared at a time,
/// since segments of a few rows are common and a loop per id would stop at every one.
template <class I>
IRLITE_INLINE std::size_t run_end(const I* ids, std::size_t j, std::size_t end, I id) {
  constexpr std::size_t L = simd::lanes<I>;
  const simd::vec<I> want = simd::broadcast(id);
  for (; j + L <= end; j += L) {
    const auto differ = simd::load(ids + j) != want;
    if (simd::any(differ)) return j + simd::first_lane(differ);
  }
  while (j < end && ids[j] == id) ++j;
  return j;
}

/// One thread's share: rows [begin, end), owning output segments [first, last). Returns the first
/// bad id in the range; after one, nothing more is written.
template <class T, class I>
IRLITE_MULTIVERSION std::optional<SegmentIdProblem> reduce_range(const T* data, const I* ids,
                                                                 std::size_t begin, std::size_t end,
                                                                 std::size_t row_size,
                                                                 std::size_t first,
                                                                 std::size_t last, T fill, T* out) {
  std::optional<SegmentIdProblem> problem;
  std::size_t next = first;  // the first owned segment not written yet
  std::size_t i = begin;
  // Only the range's first id is compared with one outside it; every later id is compared with
  // its predecessor, and ids only grow, so checking the first for negativity covers them all.
  if (i < end && (ids[i] < 0 || (i > 0 && ids[i] < ids[i - 1]))) return bad_id(ids, i);
  while (i < end) {
    const I id = ids[i];
    const std::size_t j = run_end(ids, i + 1, end, id);
    if (j < end && ids[j] < id) {
      problem = bad_id(ids, j);
      break;
    }
    const auto s = static_cast<std::uint64_t>(id);
    if (s < next || s >= last) {
      // Ids at or beyond num_segments are dropped; an id outside this thread's share can only
      // come from unsorted ids, which the checks below find.
      i = j;
      break;
    }
    std::fill_n(out + next * row_size, (s - next) * row_size, fill);
    T* dst = out + s * row_size;
    if constexpr (simd::has_vec<T>) {
      if (row_size == 1) {
        *dst = run_max(data + i, j - i);
      } else {
        const auto rows = static_cast<std::int64_t>(end * row_size);
        const auto size = static_cast<std::int64_t>(row_size);
        simd::prefetch_ahead(data, static_cast<std::int64_t>(i * row_size), size, rows);
        std::copy_n(data + i * row_size, row_size, dst);
        for (std::size_t r = i + 1; r < j; ++r) {
          simd::prefetch_ahead(data, static_cast<std::int64_t>(r * row_size), size, rows);
          max_into(dst, data + r * row_size, row_size);
        }
      }
    } else {
      std::copy_n(data + i * row_size, row_size, dst);
      for (std::size_t r = i + 1; r < j; ++r) {
        const T* src = data + r * row_size;
        for (std::size_t k = 0; k < row_size; ++k)
          dst[k] = segment_max_detail::max_nan(dst[k], src[k]);
      }
    }
    next = s + 1;
    i = j;
  }
  if (!problem) {
    // What is left (dropped ids, or a bad one) is only checked.
    for (; i < end; ++i) {
      if (ids[i] < ids[i - 1]) {
        problem = bad_id(ids, i);
        break;
      }
    }
  }
  if (!problem && next < last) std::fill_n(out + next * row_size, (last - next) * row_size, fill);
  return problem;
}

/// The maximum of x[0..n), n >= 1, NaN if any is NaN, without a branch on n for the common
/// lengths: a run of one to four vectors is covered by four loads, the later ones moved back
/// to end at the run's end. Others, and runs holding NaN (or values whose sum overflows to
/// NaN), take run_max.
template <class T>
IRLITE_INLINE T short_run_max(const T* x, std::size_t n) {
  constexpr std::size_t L = simd::lanes<T>;
  if (n < L || n > 4 * L) [[unlikely]]
    return run_max(x, n);
  const std::size_t last = n - L;
  const auto v0 = simd::load(x);
  const auto v1 = simd::load(x + std::min(L, last));
  const auto v2 = simd::load(x + std::min(2 * L, last));
  const auto v3 = simd::load(x + last);
  if constexpr (std::is_floating_point_v<T>)
    if (simd::any(simd::is_nan((v0 + v1) + (v2 + v3)))) [[unlikely]]
      return run_max(x, n);
  return simd::max_lane(simd::max(simd::max(v0, v1), simd::max(v2, v3)));
}

/// reduce_range for one value per row (1-D data, where segments are short and many). Ids are
/// compared 64 at a time with their successors into a bit per position where a segment ends, and
/// the segments are then taken from the bits, so neither finding a segment's end nor its maximum
/// branches on its length. From an id smaller than its predecessor or at or beyond `last` on, and
/// for the range's last partial block, reduce_range takes over: it reports or drops them exactly.
template <class T, class I>
IRLITE_MULTIVERSION std::optional<SegmentIdProblem> reduce_range_1d(
    const T* data, const I* ids, std::size_t begin, std::size_t end, std::size_t first,
    std::size_t last, T fill, T* out) {
  constexpr std::size_t kBlock = 64;
  constexpr std::size_t L = simd::lanes<I>;
  if (begin < end && (ids[begin] < 0 || (begin > 0 && ids[begin] < ids[begin - 1])))
    return bad_id(ids, begin);
  std::size_t run = begin;   // where the current segment's rows start
  std::size_t next = first;  // the first owned segment not written yet
  for (std::size_t base = begin; base + kBlock < end; base += kBlock) {
    const auto at = static_cast<std::int64_t>(base), limit = static_cast<std::int64_t>(end);
    simd::prefetch_ahead<kBlock * sizeof(I)>(ids, at, limit);
    std::uint64_t ends = 0;  // bit k: the segment of row base + k ends there
#pragma GCC unroll 16
    for (std::size_t v = 0; v < kBlock; v += L) {
      const auto here = simd::load(ids + base + v);
      const auto after = simd::load(ids + base + v + 1);
      ends |= std::uint64_t{simd::lane_bits(after != here)} << v;
    }
    for (; ends != 0; ends &= ends - 1) {
      const std::size_t stop = base + static_cast<std::size_t>(std::countr_zero(ends)) + 1;
      const I id = ids[run];
      const auto s = static_cast<std::uint64_t>(id);
      // Ids only change where a segment ends, so that is the only place they can go down.
      if (s >= last || ids[stop] < id) [[unlikely]]
        return reduce_range(data, ids, run, end, 1, next, last, fill, out);
      if (s != next) std::fill(out + next, out + s, fill);
      out[s] = short_run_max(data + run, stop - run);
      next = s + 1;
      run = stop;
    }
  }
  return reduce_range(data, ids, run, end, 1, next, last, fill, out);
}

/// Rows per thread below which one thread does it all.
inline constexpr std::size_t kGrainElements = std::size_t{1} << 16;

}  // namespace segment_max_fast

/// segment_max()'s scratch for `parts` shares of the rows: their borders, the segment each
/// starts at, and a problem slot each.
struct SegmentMaxScratch {
  std::span<std::size_t> border, segment;
  std::span<std::optional<SegmentIdProblem>> problems;
};

inline SegmentMaxScratch take_segment_max_scratch(const Scratch& scratch, std::size_t parts) {
  SegmentMaxScratch s;
  s.border = scratch.take<std::size_t>(parts + 1);
  s.segment = scratch.take<std::size_t>(parts + 1);
  s.problems = scratch.take<std::optional<SegmentIdProblem>>(parts);
  return s;
}

/// The scratch segment_max() takes on `threads` threads (it splits the rows in as many shares
/// at most).
inline std::size_t segment_max_scratch(unsigned threads) {
  const Scratch counting = Scratch::counting();
  (void)take_segment_max_scratch(counting, threads);
  return counting.bytes();
}

/// out[s, :] = max of data[i, :] over the rows i with ids[i] == s, for s < num_segments; rows
/// whose id is num_segments or more are dropped; segments without rows are `fill`.
/// data: [rows, row_size]; ids: [rows], non-negative and sorted; out: [num_segments, row_size],
/// every element written. Returns the first bad id (negative, or smaller than the one before);
/// the output is then unspecified. Threads of `par` take `grain` elements of data or more each.
template <class T, class I>
[[nodiscard]] std::optional<SegmentIdProblem> segment_max(
    const Parallel& par, const T* data, const I* ids, std::size_t rows, std::size_t row_size,
    std::size_t num_segments, T fill, T* out, std::size_t grain = segment_max_fast::kGrainElements,
    const Scratch& scratch = Scratch()) {
  namespace fast = segment_max_fast;
  if (row_size == 0) return check_sorted_segment_ids(ids, rows);
  const std::size_t grain_rows = std::max<std::size_t>(1, grain / row_size);
  const std::size_t parts = par.chunks(rows, grain_rows);
  // Borders: an even split moved forward to where the id changes; the segment a border's row
  // starts is where the thread before it stops. Unsorted or negative ids can make the borders
  // disagree; one thread then checks everything and reports the first bad id.
  const SegmentMaxScratch pieces = take_segment_max_scratch(scratch, parts);
  const std::span<std::size_t> border = pieces.border, segment = pieces.segment;
  std::fill(border.begin(), border.end(), rows);
  std::fill(segment.begin(), segment.end(), num_segments);
  border[0] = 0;
  segment[0] = 0;
  bool even = true;
  for (std::size_t c = 1; c < parts; ++c) {
    std::size_t b = std::max(rows / parts * c, border[c - 1]);
    if (b > 0 && b < rows)
      b = static_cast<std::size_t>(std::upper_bound(ids + b, ids + rows, ids[b - 1]) - ids);
    border[c] = b;
    if (b < rows) {
      if (ids[b] < 0) even = false;
      segment[c] =
          std::min<std::size_t>(static_cast<std::size_t>(std::max<I>(ids[b], 0)), num_segments);
    }
    if (segment[c] < segment[c - 1]) even = false;
  }
  if (!even) {
    if (auto problem = check_sorted_segment_ids(ids, rows)) return problem;
  }
  const std::span<std::optional<SegmentIdProblem>> problems = pieces.problems;
  const auto work = [&](std::size_t c) {
    if constexpr (simd::has_vec<T> && simd::has_vec<I> && sizeof(I) >= 4) {
      if (row_size == 1) {
        problems[c] = fast::reduce_range_1d(data, ids, border[c], border[c + 1], segment[c],
                                            segment[c + 1], fill, out);
        return;
      }
    }
    problems[c] = fast::reduce_range(data, ids, border[c], border[c + 1], row_size, segment[c],
                                     segment[c + 1], fill, out);
  };
  if (parts == 1) {
    work(0);
  } else {
    par.for_range(parts, 1, [&](std::size_t b, std::size_t e, std::size_t) {
      for (std::size_t c = b; c < e; ++c) work(c);
    });
  }
  for (const auto& p : problems)
    if (p) return p;
  return std::nullopt;
}

}  // namespace irlite
