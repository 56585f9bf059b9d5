#pragma once
// MaxPool and AvgPool over the spatial axes of an [N, C, spatial...] tensor, each of the N * C
// planes on its own. A 1-D or 2-D pool is run as a 3-D one whose leading spatial axes have
// extent 1, a kernel of 1 and no padding, so that one set of loops serves every rank.
//
// A window's taps are clipped to the data once per axis (Taps), so no loop tests a tap for
// padding. The work is split into output rows (a plane, a depth, a height), contiguous ranges of
// them per thread; each output element is computed by one thread in an order fixed by the
// window, so the results do not depend on the thread count.
//
// MaxPool: the largest value in the window, NaN winning over numbers (the first NaN met is
// kept, with its index); among equal values the first in row-major window order wins. A window
// that covers no element (only ceil rounding makes one) gives the type's lowest finite value and
// the index of its plane's first element, as OpenVINO's reference does. The 2-D case without
// dilation and without indices (every MaxPool-1 in the models) takes a faster path: for each
// output row, the maximum of the window's input rows column by column into a row buffer, then
// the maximum of every run of kernel-width columns slid along that buffer in place, from which
// the windows' starts are picked; both loops run over contiguous memory in vectors. On floats
// with a stride of 2 and windows 2 or 3 columns wide, the same maxima in the same order are made
// from the input rows where they are, eight outputs at a time (max_stride2_row()). Its order of
// comparisons differs from the general path's only where equal values differ in their bits (the
// sign of a zero, a NaN's payload). When the output's rows are short (16 or fewer) and the
// input's twice as wide, without padding before them (a small map's pools), the column maxima of a
// block of output rows are made first, into a buffer where they follow each other, and the block's
// rows are then one long row for max_stride2_row(): the rows of a small map (4, 6, 15 outputs)
// share its vectors instead of each paying for a short row's.
//
// AvgPool: the sum of the window's elements in the compute type (float for the 16-bit floats,
// rounded once at the end), in row-major window order, divided by the count of those elements,
// or by the whole kernel's size when padding counts (exclude-pad false and some padding), as in
// OpenVINO's reference; an empty count gives 0. Integers are summed in 64 bits and divided
// rounding toward zero.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "core/parallel.hpp"
#include "core/saturating.hpp"
#include "irlite/scratch.hpp"
#include "kernels/element.hpp"
#include "kernels/simd.hpp"

namespace irlite {

/// Where a pool's windows lie, over three spatial axes (leading axes of extent 1 for a 1-D or
/// 2-D pool). `pad` is the padding before each axis; the padding after it only shapes `out`.
struct PoolGeometry {
  std::int64_t planes = 0;  ///< N * C
  std::array<std::int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, kernel{1, 1, 1}, stride{1, 1, 1},
      dilation{1, 1, 1}, pad{0, 0, 0};

  std::int64_t in_plane() const { return in[0] * in[1] * in[2]; }
  std::int64_t out_plane() const { return out[0] * out[1] * out[2]; }
  std::int64_t kernel_size() const { return kernel[0] * kernel[1] * kernel[2]; }
};

namespace pool_detail {

/// Output elements below which a chunk of rows is not worth a thread.
inline constexpr std::int64_t kGrain = std::int64_t{1} << 14;

/// The taps j in [first, last) of a window along one axis that fall inside the data: input
/// position origin + j * dilation, where origin = o * stride - pad.
struct Taps {
  std::int64_t origin = 0, first = 0, last = 0;
};

inline Taps taps(const PoolGeometry& g, std::size_t axis, std::int64_t o) {
  const std::int64_t d = g.dilation[axis];
  Taps t;
  t.origin = o * g.stride[axis] - g.pad[axis];
  // ceil(x / d), without a division for the usual dilation of 1 (a pool's rows are short, and
  // this runs for each).
  const auto up = [d](std::int64_t x) { return d == 1 ? x : (x + d - 1) / d; };
  t.first = t.origin < 0 ? up(-t.origin) : 0;
  const std::int64_t room = g.in[axis] - t.origin;  // positions from the origin to the end
  t.last = room > 0 ? std::min(g.kernel[axis], up(room)) : 0;
  t.last = std::max(t.last, t.first);
  return t;
}

/// Whether v replaces m as the maximum: larger, or the first NaN. Written without
/// short-circuits, so that loops of it become vector compares and blends, not branches that
/// random data mispredicts.
template <class C>
IRLITE_INLINE bool better(C v, C m) {
  if constexpr (std::is_floating_point_v<C>) {
    return (v > m) | ((v != v) & (m == m));
  } else {
    return v > m;
  }
}

/// Calls f(plane, d, h, row) for each output row in [begin, end): row r is plane r / (out[0] *
/// out[1]), depth and height from the rest.
template <class F>
void for_rows(const PoolGeometry& g, std::size_t begin, std::size_t end, F&& f) {
  const std::int64_t per_plane = g.out[0] * g.out[1];
  // Counted up from `begin`'s: no division per row.
  const auto first = static_cast<std::int64_t>(begin);
  std::int64_t plane = first / per_plane, d = first % per_plane / g.out[1], h = first % g.out[1];
  for (auto row = first; row < static_cast<std::int64_t>(end); ++row) {
    f(plane, d, h, row);
    if (++h == g.out[1]) {
      h = 0;
      if (++d == g.out[0]) {
        d = 0;
        ++plane;
      }
    }
  }
}

/// Rows of output per chunk: enough rows for kGrain elements' worth of taps.
inline std::size_t row_grain(const PoolGeometry& g) {
  const std::int64_t work = std::max<std::int64_t>(1, g.out[2] * g.kernel_size());
  return static_cast<std::size_t>(std::max<std::int64_t>(1, kGrain / work));
}

/// rb[i] = in[i] in the compute type, for i < n.
template <class T, class C>
IRLITE_MULTIVERSION void load_row(const T* __restrict in, C* __restrict rb, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) rb[i] = static_cast<C>(in[i]);
}

/// The lanes where v replaces m as the maximum, as better() decides each.
template <class C, class V>
IRLITE_INLINE auto better_lanes(V v, V m) {
  if constexpr (std::is_floating_point_v<C>) {
    return (v > m) | ((v != v) & (m == m));
  } else {
    return v > m;
  }
}

/// rb[i] = the maximum of rb[i] and in[i], for i < n.
template <class T, class C>
IRLITE_MULTIVERSION void max_into_row(const T* __restrict in, C* __restrict rb, std::int64_t n) {
  std::int64_t i = 0;
  if constexpr (std::is_same_v<T, C> && simd::has_vec<C>) {
    constexpr auto L = static_cast<std::int64_t>(simd::lanes<C>);
    for (; i + L <= n; i += L) {
      const simd::vec<C> v = simd::load(in + i);
      const simd::vec<C> m = simd::load(rb + i);
      simd::store(rb + i, better_lanes<C>(v, m) ? v : m);
    }
  }
  for (; i < n; ++i) {
    const C v = static_cast<C>(in[i]);
    rb[i] = better(v, rb[i]) ? v : rb[i];
  }
}

/// rb[j] = the maximum of rb[j], ..., rb[j + k - 1] (in that order), for j < n; rb holds
/// n + k - 1 values. In place: every store lands behind the loads still to come, which read
/// from j on.
template <class C>
IRLITE_MULTIVERSION void slide_max(C* rb, std::int64_t n, std::int64_t k) {
  std::int64_t j = 0;
  if constexpr (simd::has_vec<C>) {
    constexpr auto L = static_cast<std::int64_t>(simd::lanes<C>);
    for (; j + L <= n; j += L) {
      simd::vec<C> m = simd::load(rb + j);
      for (std::int64_t t = 1; t < k; ++t) {
        const simd::vec<C> v = simd::load(rb + j + t);
        m = better_lanes<C>(v, m) ? v : m;
      }
      simd::store(rb + j, m);
    }
  }
  for (; j < n; ++j) {
    C m = rb[j];
    for (std::int64_t t = 1; t < k; ++t) m = better(rb[j + t], m) ? rb[j + t] : m;
    rb[j] = m;
  }
}

/// y[i] = rb[i * stride] in T, for i < n.
template <class C, class T>
IRLITE_MULTIVERSION void gather_row(const C* __restrict rb, T* __restrict y, std::int64_t n,
                                    std::int64_t stride) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(rb[i * stride]);
}

/// The rows and columns max_stride2_row() copies for its last outputs, at most.
inline constexpr std::int64_t kStride2MaxRows = 4, kStride2RowFloats = 17;

/// Output columns o in [0, n) of a float row with a stride of 2 and a window K = 2 or 3 columns
/// wide, over the `rows` input rows from `x` on (`w` floats apart), column o's window starting
/// at x's column 2 * o: the maximum of each window column over the rows, then of those columns
/// in order (as max_into_row() and slide_max() fold them), eight outputs at a time. Every window
/// lies inside the row (the last ends at column 2 * n + K - 3); `end` is the end of the input.
/// The last few outputs of a row of eight or more take the last eight windows (some made
/// twice); those of a shorter row take one vector's lanes, the lanes past n read from the rows
/// after (or zeros past `end`) and dropped. `rows` is at most kStride2MaxRows.
template <int K>
IRLITE_MULTIVERSION void max_stride2_row(const float* __restrict x, std::int64_t rows,
                                         std::int64_t w, const float* end, float* __restrict y,
                                         std::int64_t n) {
  static_assert(K == 2 || K == 3);
  using V = simd::vec<float>;
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<float>);
  static_assert(L == 8);
  const auto fold = [](V v, V m) { return better_lanes<float>(v, m) ? v : m; };
  // Eight outputs from columns 2o to 2o + 16 of the rows at p, `stride` floats apart.
  // Inlined at every call, as a clone of it would be shared by the function's clones, whose
  // vectors pass differently.
  const auto eight = [&](const float* p, std::int64_t stride) __attribute__((always_inline)) {
    // Columns 2o to 2o + 15 in lo and hi; for K = 3, 2o + 9 to 2o + 16 in `next`.
    V lo = simd::load(p), hi = simd::load(p + L), next{};
    if constexpr (K == 3) next = simd::load(p + L + 1);
    for (std::int64_t r = 1; r < rows; ++r) {
      const float* q = p + r * stride;
      lo = fold(simd::load(q), lo);
      hi = fold(simd::load(q + L), hi);
      if constexpr (K == 3) next = fold(simd::load(q + L + 1), next);
    }
    const V even = __builtin_shufflevector(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14);
    const V odd = __builtin_shufflevector(lo, hi, 1, 3, 5, 7, 9, 11, 13, 15);
    V m = fold(odd, even);
    if constexpr (K == 3) {
      const V shifted = __builtin_shufflevector(lo, hi, 2, 4, 6, 8, 10, 12, 14, 15);
      m = fold(__builtin_shufflevector(shifted, next, 0, 1, 2, 3, 4, 5, 6, 15), m);
    }
    return m;
  };
  if (n >= L) {
    // The last eight outputs overlap the ones before when n is not a multiple of eight: their
    // windows end at column 2 * n + K - 3, inside the row.
    for (std::int64_t o = 0; o < n; o += L) {
      const std::int64_t at = std::min(o, n - L);
      simd::store(y + at, eight(x + 2 * at, w));
    }
    return;
  }
  // A row of fewer than eight: the vector's reads go past the row's windows, into the rows
  // after, where the input holds them; at its end, through a copy padded with zeros.
  alignas(32) float last[L];
  if (x + (rows - 1) * w + kStride2RowFloats <= end) {
    simd::store(last, eight(x, w));
  } else {
    alignas(32) float padded[kStride2MaxRows][kStride2RowFloats] = {};
    const std::int64_t columns =
        std::min<std::int64_t>(kStride2RowFloats, end - x - (rows - 1) * w);
    for (std::int64_t r = 0; r < rows; ++r) std::copy_n(x + r * w, columns, padded[r]);
    simd::store(last, eight(padded[0], kStride2RowFloats));
  }
  // Element by element: n is below eight, and a call to memmove would cost more.
  for (std::int64_t i = 0; i < L - 1; ++i)
    if (i < n) y[i] = last[i];
}

/// v[i] = the maximum of column i over the `rows` rows from `x` on (`w` floats apart), folded
/// from the first row down as max_into_row() does, for i < n; rows >= 1.
IRLITE_MULTIVERSION inline void column_max(const float* __restrict x, std::int64_t rows,
                                           std::int64_t w, float* __restrict v, std::int64_t n) {
  using V = simd::vec<float>;
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<float>);
  std::int64_t i = 0;
  if (n >= L) {
    // The last vector overlaps the one before when n is not a multiple of L.
    for (; i < n; i += L) {
      const std::int64_t at = std::min(i, n - L);
      V m = simd::load(x + at);
      for (std::int64_t r = 1; r < rows; ++r) {
        const V c = simd::load(x + r * w + at);
        m = better_lanes<float>(c, m) ? c : m;
      }
      simd::store(v + at, m);
    }
    return;
  }
  for (; i < n; ++i) {
    float m = x[i];
    for (std::int64_t r = 1; r < rows; ++r) m = better(x[r * w + i], m) ? x[r * w + i] : m;
    v[i] = m;
  }
}

/// The flat path's floats past its block of column maxima, which the last windows' vectors read
/// (and drop).
inline constexpr std::int64_t kFlatSlack = kStride2RowFloats;

/// Output rows per block of the flat path: their column maxima (one input row's width each)
/// within 16 KiB.
inline std::int64_t flat_block_rows(const PoolGeometry& g) {
  return std::max<std::int64_t>(1, 4096 / std::max<std::int64_t>(1, g.in[2]));
}

}  // namespace pool_detail

/// Whether max_pool() takes the 2-D path for this geometry when it writes no indices.
inline bool max_pool_is_2d(const PoolGeometry& g) {
  return g.in[0] == 1 && g.kernel[0] == 1 && g.pad[0] == 0 && g.out[0] == 1 && g.dilation[1] == 1 &&
         g.dilation[2] == 1;
}

/// Output rows at most this wide take the flat path. A longer row has few vectors' worth of
/// per-row work to share, and the flat path's second pass over the column maxima costs more than
/// it saves: person detection's 136-wide rows took 16% longer, landmarks' 24-wide ones 6%.
inline constexpr std::int64_t kFlatMaxRow = 16;

/// Whether the 2-D path of a float MaxPool takes the flat path: a stride of 2 along rows
/// without padding before them, windows 2 or 3 columns wide, and rows of at most kFlatMaxRow
/// outputs, twice as wide in the input (a small map's pools in the models). Its output rows
/// follow each other in the order their windows' column maxima do, so that consecutive rows are
/// made as one long row.
inline bool max_pool_is_flat(const PoolGeometry& g) {
  return max_pool_is_2d(g) && g.stride[2] == 2 && g.pad[2] == 0 &&
         (g.kernel[2] == 2 || g.kernel[2] == 3) && g.in[2] == 2 * g.out[2] &&
         g.out[2] <= kFlatMaxRow;
}

/// The 2-D path's scratch per chunk: a row of the input's width in the compute type, or the
/// flat path's block of column maxima.
template <class T>
std::span<compute_t<T>> take_max_pool_scratch(const Scratch& scratch, const PoolGeometry& g,
                                              bool indices, unsigned threads) {
  if (indices || !max_pool_is_2d(g)) return {};
  std::size_t per_chunk = static_cast<std::size_t>(g.in[2]);
  if (std::is_same_v<T, float> && max_pool_is_flat(g))
    per_chunk =
        saturating_mul(static_cast<std::size_t>(pool_detail::flat_block_rows(g)), per_chunk) +
        static_cast<std::size_t>(pool_detail::kFlatSlack);
  return scratch.take<compute_t<T>>(saturating_mul(per_chunk, threads));
}

/// The bytes max_pool() takes from its Scratch.
template <class T>
std::size_t max_pool_scratch(const PoolGeometry& g, bool indices, unsigned threads) {
  const Scratch counting = Scratch::counting();
  (void)take_max_pool_scratch<T>(counting, g, indices, threads);
  return counting.bytes();
}

/// MaxPool of every plane of `in` into `out` and, when `indices` is not null, the index of
/// each maximum in the flattened input, taken modulo `modulus` when it is not 0 (MaxPool-8's
/// `axis`: the product of the input's dims from that axis on).
template <class T, class I>
void max_pool(const Parallel& par, const Scratch& scratch, const PoolGeometry& g, const T* in,
              T* out, I* indices, std::int64_t modulus) {
  using C = compute_t<T>;
  namespace d = pool_detail;
  const std::int64_t rows = g.planes * g.out[0] * g.out[1];
  if (rows == 0 || g.out[2] == 0) return;
  const std::int64_t W = g.in[2], OW = g.out[2];
  const std::span<C> buffers = take_max_pool_scratch<T>(scratch, g, indices, par.threads());
  if (!indices && max_pool_is_2d(g)) {
    const T* const in_end = in + g.planes * g.in_plane();
    // The columns whose windows lie wholly inside the row: [lo, hi).
    const std::int64_t kw = g.kernel[2], sw = g.stride[2], pw = g.pad[2];
    const std::int64_t hi = W + pw >= kw ? std::min(OW, (W + pw - kw) / sw + 1) : 0;
    const std::int64_t lo = std::min(hi, (pw + sw - 1) / sw);
    // Floats with a stride of 2 and windows 2 or 3 columns wide (most CNNs' pools) read the
    // input rows where they are, eight outputs at a time. The columns whose windows reach into
    // the padding take columns_first(), on every path.
    const bool stride2 = std::is_same_v<T, float> && sw == 2 && (kw == 2 || kw == 3) &&
                         g.kernel[1] <= d::kStride2MaxRows;
    // Output column ow from the `count` rows from `first_row` on: each window column's
    // maximum over the rows, then those in order.
    const auto columns_first = [&](const T* first_row, std::int64_t count, std::int64_t ow) {
      const d::Taps tw = d::taps(g, 2, ow);
      if (tw.first == tw.last) return lowest_value<T>();
      C m{};
      for (std::int64_t j = tw.first; j < tw.last; ++j) {
        const T* column = first_row + tw.origin + j;
        auto c = static_cast<C>(column[0]);
        for (std::int64_t r = 1; r < count; ++r) {
          const auto v = static_cast<C>(column[r * W]);
          c = d::better(v, c) ? v : c;
        }
        m = j == tw.first || d::better(c, m) ? c : m;
      }
      return static_cast<T>(m);
    };
    if constexpr (std::is_same_v<T, float>) {
      if (max_pool_is_flat(g)) {
        // Each output row's window columns' maxima (W = 2 * OW of them) into a block, then the
        // block's rows as one long row of stride 2: short rows (a small map's) share vectors.
        // A window 3 wide reaches past its row at the last column, which is made again from
        // its two columns.
        const std::int64_t block = d::flat_block_rows(g);
        const std::int64_t per_chunk = block * W + d::kFlatSlack;
        par.for_range(
            static_cast<std::size_t>(rows), d::row_grain(g),
            [&](std::size_t b, std::size_t e, std::size_t chunk) {
              float* v = buffers.data() + static_cast<std::int64_t>(chunk) * per_chunk;
              for (auto first = static_cast<std::int64_t>(b); first < static_cast<std::int64_t>(e);
                   first += block) {
                const std::int64_t last = std::min<std::int64_t>(first + block, e);
                d::for_rows(
                    g, static_cast<std::size_t>(first), static_cast<std::size_t>(last),
                    [&](std::int64_t plane, std::int64_t, std::int64_t oh, std::int64_t row) {
                      float* vr = v + (row - first) * W;
                      const d::Taps th = d::taps(g, 1, oh);
                      if (th.first == th.last) {
                        std::fill_n(vr, W, lowest_value<float>());
                        return;
                      }
                      d::column_max(in + plane * g.in_plane() + (th.origin + th.first) * W,
                                    th.last - th.first, W, vr, W);
                    });
                // The vectors' reads past the block's last row meet zeros, and drop them.
                std::fill_n(v + (last - first) * W, d::kFlatSlack, 0.0f);
                float* y = out + first * OW;
                const std::int64_t n = (last - first) * OW;
                if (kw == 2) {
                  d::max_stride2_row<2>(v, 1, W, v + per_chunk, y, n);
                } else {
                  d::max_stride2_row<3>(v, 1, W, v + per_chunk, y, n);
                  for (std::int64_t r = 0; r < last - first; ++r) {
                    const float* c = v + r * W + W - 2;
                    y[r * OW + OW - 1] = d::better(c[1], c[0]) ? c[1] : c[0];
                  }
                }
              }
            });
        return;
      }
    }
    par.for_range(
        static_cast<std::size_t>(rows), d::row_grain(g),
        [&](std::size_t b, std::size_t e, std::size_t chunk) {
          C* rb = buffers.data() + static_cast<std::int64_t>(chunk) * W;
          d::for_rows(
              g, b, e, [&](std::int64_t plane, std::int64_t, std::int64_t oh, std::int64_t row) {
                const T* x = in + plane * g.in_plane();
                T* y = out + row * OW;
                const d::Taps th = d::taps(g, 1, oh);
                if (th.first == th.last) {
                  std::fill_n(y, OW, lowest_value<T>());
                  return;
                }
                const T* first_row = x + (th.origin + th.first) * W;
                const std::int64_t count = th.last - th.first;
                // The edges first: the windows in between are then made apart.
                for (std::int64_t ow = 0; ow < lo; ++ow)
                  y[ow] = columns_first(first_row, count, ow);
                for (std::int64_t ow = hi; ow < OW; ++ow)
                  y[ow] = columns_first(first_row, count, ow);
                if constexpr (std::is_same_v<T, float>) {
                  if (stride2) {
                    const std::int64_t at = lo * sw - pw;
                    if (kw == 2)
                      d::max_stride2_row<2>(first_row + at, count, W, in_end, y + lo, hi - lo);
                    else
                      d::max_stride2_row<3>(first_row + at, count, W, in_end, y + lo, hi - lo);
                    return;
                  }
                }
                // The windows in between slid in place over the rows' maxima.
                d::load_row(first_row, rb, W);
                for (std::int64_t j = 1; j < count; ++j) d::max_into_row(first_row + j * W, rb, W);
                if (hi > lo) {
                  const std::int64_t first = lo * sw - pw;
                  const std::int64_t starts = (hi - 1 - lo) * sw + 1;
                  d::slide_max(rb + first, starts, kw);
                  d::gather_row(rb + first, y + lo, hi - lo, sw);
                }
              });
        });
    return;
  }
  par.for_range(
      static_cast<std::size_t>(rows), d::row_grain(g),
      [&](std::size_t b, std::size_t e, std::size_t) {
        d::for_rows(
            g, b, e, [&](std::int64_t plane, std::int64_t od, std::int64_t oh, std::int64_t row) {
              const T* x = in + plane * g.in_plane();
              T* y = out + row * OW;
              I* yi = indices ? indices + row * OW : nullptr;
              const d::Taps td = d::taps(g, 0, od), th = d::taps(g, 1, oh);
              for (std::int64_t ow = 0; ow < OW; ++ow) {
                const d::Taps tw = d::taps(g, 2, ow);
                bool found = false;
                C best{};
                std::int64_t at = 0;
                for (std::int64_t jd = td.first; jd < td.last; ++jd) {
                  const std::int64_t id = td.origin + jd * g.dilation[0];
                  for (std::int64_t jh = th.first; jh < th.last; ++jh) {
                    const std::int64_t start = (id * g.in[1] + th.origin + jh * g.dilation[1]) * W;
                    for (std::int64_t jw = tw.first; jw < tw.last; ++jw) {
                      const std::int64_t i = start + tw.origin + jw * g.dilation[2];
                      const C v = static_cast<C>(x[i]);
                      if (!found || d::better(v, best)) {
                        best = v;
                        at = i;
                        found = true;
                      }
                    }
                  }
                }
                y[ow] = found ? static_cast<T>(best) : lowest_value<T>();
                if (yi) {
                  std::int64_t flat = plane * g.in_plane() + at;
                  if (modulus > 0) flat %= modulus;
                  yi[ow] = static_cast<I>(flat);
                }
              }
            });
      });
}

/// The type AvgPool sums T in: float for the 16-bit floats and float, double for double, 64-bit
/// integers of T's signedness for the integers.
template <class T>
using pool_sum_t =
    std::conditional_t<std::is_integral_v<T>,
                       std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>,
                       compute_t<T>>;

/// AvgPool of every plane of `in` into `out`; `count_padding`: every window divides by the
/// kernel's size (exclude-pad false with some padding), else by the elements it covers.
template <class T>
void avg_pool(const Parallel& par, const PoolGeometry& g, const T* in, T* out, bool count_padding) {
  using S = pool_sum_t<T>;
  namespace d = pool_detail;
  const std::int64_t rows = g.planes * g.out[0] * g.out[1];
  if (rows == 0 || g.out[2] == 0) return;
  const std::int64_t W = g.in[2], OW = g.out[2];
  par.for_range(
      static_cast<std::size_t>(rows), d::row_grain(g),
      [&](std::size_t b, std::size_t e, std::size_t) {
        d::for_rows(
            g, b, e, [&](std::int64_t plane, std::int64_t od, std::int64_t oh, std::int64_t row) {
              const T* x = in + plane * g.in_plane();
              T* y = out + row * OW;
              const d::Taps td = d::taps(g, 0, od), th = d::taps(g, 1, oh);
              for (std::int64_t ow = 0; ow < OW; ++ow) {
                const d::Taps tw = d::taps(g, 2, ow);
                S sum = 0;
                for (std::int64_t jd = td.first; jd < td.last; ++jd) {
                  const std::int64_t id = td.origin + jd;
                  for (std::int64_t jh = th.first; jh < th.last; ++jh) {
                    const T* r = x + (id * g.in[1] + th.origin + jh) * W + tw.origin;
                    for (std::int64_t jw = tw.first; jw < tw.last; ++jw)
                      sum += static_cast<S>(r[jw]);
                  }
                }
                const std::int64_t count =
                    count_padding
                        ? g.kernel_size()
                        : (td.last - td.first) * (th.last - th.first) * (tw.last - tw.first);
                y[ow] = static_cast<T>(count == 0 ? S(0) : sum / static_cast<S>(count));
              }
            });
      });
}

}  // namespace irlite
