#pragma once
// MatMul: a batch of matrix products C = A · B, A being m x k and B k x n (either stored
// transposed), on vectors and threads.
//
// B is packed once per matrix into panels of kNR columns, k-major (each k's kNR values
// contiguous, zero-padded past n); rows of A are packed kMR at a time, k-major too. A micro-kernel
// then keeps a kMR x kNR tile of C in vector registers over the whole of k, taking one vector
// pair of B and kMR broadcast elements of A per k. Row panels go kGroup at a time through each B
// panel, so that the B panel is read from cache kGroup times. Threads split (matrix, row group,
// column block) tasks; every output element is one micro-kernel's sum over k in increasing order
// starting from zero, so results are the same bits on any number of threads, and the same as a
// plain loop's `acc += a * b` (the build does not contract it into fused multiply-adds).
//
// A row or two times a matrix B (not transposed) skips the packing, whose copy of B would cost
// as much as the product: B's rows are folded into the output row, in the same order.
//
// The 16-bit floats are converted to float while packing and accumulate in float; integers
// multiply and add in the unsigned type of their width, which wraps as the type does.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "core/buffer.hpp"
#include "core/parallel.hpp"
#include "irlite/scratch.hpp"
#include "kernels/element.hpp"
#include "kernels/simd.hpp"

namespace irlite {

/// One MatMul as the kernel sees it: the matrices' sizes and, per output matrix, which matrix
/// of A and of B it takes (batch broadcasting resolved).
struct MatMulPlan {
  std::int64_t m = 0, n = 0, k = 0;
  bool transpose_a = false;  ///< A stored k x m
  bool transpose_b = false;  ///< B stored n x k
  std::int64_t batches = 0;  ///< output matrices
  /// Per output matrix (`batches` of each; the caller's memory).
  std::span<const std::int64_t> a_index, b_index;
  std::int64_t b_count = 0;  ///< matrices in B
};

namespace matmul_detail {

inline constexpr std::int64_t kMR = 6;
template <class C>
inline constexpr std::int64_t kNR = 2 * static_cast<std::int64_t>(simd::lanes<C>);
/// Row panels that share a pass over a B panel.
inline constexpr std::int64_t kGroup = 8;
/// Column panels per task.
inline constexpr std::int64_t kColumnPanels = 16;

template <class C, class T>
C convert(T x) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<C>(x);
  else
    return static_cast<C>(static_cast<compute_t<T>>(x));
}

/// Packs rows [r0, r0 + kMR) of A (zero past m) as ap[kk * kMR + r].
template <class T, class C>
void pack_a(const T* a, const MatMulPlan& p, std::int64_t r0, C* ap) {
  const std::int64_t rows = std::min(kMR, p.m - r0);
  for (std::int64_t kk = 0; kk < p.k; ++kk) {
    C* dst = ap + kk * kMR;
    for (std::int64_t r = 0; r < rows; ++r)
      dst[r] = convert<C>(p.transpose_a ? a[kk * p.m + r0 + r] : a[(r0 + r) * p.k + kk]);
    for (std::int64_t r = rows; r < kMR; ++r) dst[r] = C(0);
  }
}

/// Packs columns [c0, c0 + kNR) of B (zero past n) as bp[kk * kNR + c].
template <class T, class C>
void pack_b(const T* b, const MatMulPlan& p, std::int64_t c0, C* bp) {
  constexpr std::int64_t NR = kNR<C>;
  const std::int64_t cols = std::min(NR, p.n - c0);
  for (std::int64_t kk = 0; kk < p.k; ++kk) {
    C* dst = bp + kk * NR;
    if (p.transpose_b) {
      for (std::int64_t c = 0; c < cols; ++c) dst[c] = convert<C>(b[(c0 + c) * p.k + kk]);
    } else {
      const T* src = b + kk * p.n + c0;
      for (std::int64_t c = 0; c < cols; ++c) dst[c] = convert<C>(src[c]);
    }
    for (std::int64_t c = cols; c < NR; ++c) dst[c] = C(0);
  }
}

/// tile[r * kNR + c] = sum over kk of ap[kk * kMR + r] * bp[kk * kNR + c], kk in increasing
/// order from zero: a kMR x kNR tile held in twelve vectors.
template <class C>
IRLITE_MULTIVERSION void micro_tile(const C* __restrict ap, const C* __restrict bp, std::int64_t k,
                                    C* __restrict tile) {
  using V = simd::vec<C>;
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<C>);
  constexpr std::int64_t NR = kNR<C>;
  V c00{}, c01{}, c10{}, c11{}, c20{}, c21{}, c30{}, c31{}, c40{}, c41{}, c50{}, c51{};
  for (std::int64_t kk = 0; kk < k; ++kk) {
    const V b0 = simd::load(bp + kk * NR);
    const V b1 = simd::load(bp + kk * NR + L);
    const C* a = ap + kk * kMR;
    V x = simd::broadcast(a[0]);
    c00 = c00 + x * b0;
    c01 = c01 + x * b1;
    x = simd::broadcast(a[1]);
    c10 = c10 + x * b0;
    c11 = c11 + x * b1;
    x = simd::broadcast(a[2]);
    c20 = c20 + x * b0;
    c21 = c21 + x * b1;
    x = simd::broadcast(a[3]);
    c30 = c30 + x * b0;
    c31 = c31 + x * b1;
    x = simd::broadcast(a[4]);
    c40 = c40 + x * b0;
    c41 = c41 + x * b1;
    x = simd::broadcast(a[5]);
    c50 = c50 + x * b0;
    c51 = c51 + x * b1;
  }
  simd::store(tile + 0 * NR, c00);
  simd::store(tile + 0 * NR + L, c01);
  simd::store(tile + 1 * NR, c10);
  simd::store(tile + 1 * NR + L, c11);
  simd::store(tile + 2 * NR, c20);
  simd::store(tile + 2 * NR + L, c21);
  simd::store(tile + 3 * NR, c30);
  simd::store(tile + 3 * NR + L, c31);
  simd::store(tile + 4 * NR, c40);
  simd::store(tile + 4 * NR + L, c41);
  simd::store(tile + 5 * NR, c50);
  simd::store(tile + 5 * NR + L, c51);
}

/// y[j] = sum over kk < k of x[kk] * b[kk * ldb + j], for j < n: B's rows folded into y one by
/// one, so each y[j] takes its products in increasing kk from zero, as micro_tile does.
template <class C>
IRLITE_MULTIVERSION void row_times_matrix(const C* __restrict x, const C* __restrict b,
                                          std::int64_t k, std::int64_t ldb, std::int64_t n,
                                          C* __restrict y) {
  for (std::int64_t j = 0; j < n; ++j) y[j] = C(0);
  for (std::int64_t kk = 0; kk < k; ++kk) {
    const C a = x[kk];
    const C* __restrict row = b + kk * ldb;
    for (std::int64_t j = 0; j < n; ++j) y[j] = y[j] + a * row[j];
  }
}

/// Rows of A fewer than this, with B not transposed, go through row_times_matrix: packing B
/// would cost as much as the product.
inline constexpr std::int64_t kFewRows = 3;

/// Output matrices below this many multiply-adds a task are not worth a thread.
inline constexpr std::int64_t kGrainFlops = std::int64_t{1} << 17;

/// Whether matmul() folds B's rows into the output rows (row_times_matrix), packing nothing.
template <class T>
bool few_rows(const MatMulPlan& p) {
  return std::is_floating_point_v<T> && p.m < kFewRows && !p.transpose_b && !p.transpose_a;
}

/// What matmul() takes from its Scratch, by one function for the counting run
/// (matmul_scratch()) and the real one: B's packed panels, and per chunk of the split over
/// threads a packed row group of A. Nothing when there is nothing to pack.
template <class C>
struct Buffers {
  std::span<C> packed_b;
  Scratch::Slices packed_a;
};

/// A chunk's packed row group of A, from the chunk's Scratch.
template <class C>
std::span<C> take_packed_a(const Scratch& chunk, const MatMulPlan& p) {
  return chunk.take<C>(static_cast<std::size_t>(saturating_mul(kGroup * kMR, p.k)));
}

template <class T>
Buffers<wrap_t<T>> take_buffers(const Scratch& s, const MatMulPlan& p, unsigned threads) {
  using C = wrap_t<T>;
  Buffers<C> b;
  if (p.batches == 0 || p.m == 0 || p.n == 0 || p.k == 0 || few_rows<T>(p)) return b;
  const std::int64_t panels = (p.n + kNR<C> - 1) / kNR<C>;
  b.packed_b = s.take<C>(static_cast<std::size_t>(
      saturating_mul(saturating_mul(p.b_count, panels), saturating_mul(p.k, kNR<C>))));
  const std::size_t per_chunk =
      Scratch::bytes_of([&](const Scratch& chunk) { (void)take_packed_a<C>(chunk, p); });
  b.packed_a = s.slices(threads, per_chunk);
  return b;
}

}  // namespace matmul_detail

/// The memory matmul() takes from its Scratch on `threads` threads: the packed B matrices and a
/// packed row group of A per thread.
template <class T>
std::size_t matmul_scratch(const MatMulPlan& p, unsigned threads) {
  return Scratch::bytes_of(
      [&](const Scratch& s) { (void)matmul_detail::take_buffers<T>(s, p, threads); });
}

/// out[i] = a[a_index[i]] · b[b_index[i]] for every output matrix i (each m x n, row-major),
/// with the memory matmul_scratch() counts taken from `scratch`.
template <class T>
void matmul(const Parallel& par, const T* a, const T* b, const MatMulPlan& p, T* out,
            const Scratch& scratch) {
  using C = wrap_t<T>;
  namespace d = matmul_detail;
  constexpr std::int64_t MR = d::kMR, NR = d::kNR<C>;
  const std::int64_t batches = p.batches;
  if (batches == 0 || p.m == 0 || p.n == 0) return;
  if (p.k == 0) {
    std::fill_n(out, batches * p.m * p.n, T(compute_t<T>(0)));
    return;
  }
  if constexpr (std::is_floating_point_v<T>) {
    if (d::few_rows<T>(p)) {
      // A few rows times a matrix: each thread takes a range of every output row's columns.
      constexpr std::int64_t kBlock = 64;  // columns per unit of work
      const std::int64_t blocks = (p.n + kBlock - 1) / kBlock;
      par.for_range(
          static_cast<std::size_t>(batches * p.m * blocks),
          static_cast<std::size_t>(std::max<std::int64_t>(1, d::kGrainFlops / (p.k * kBlock))),
          [&](std::size_t first, std::size_t last, std::size_t) {
            for (std::size_t t = first; t < last; ++t) {
              const auto u = static_cast<std::int64_t>(t);
              const std::int64_t row = u / blocks, c0 = u % blocks * kBlock;
              const std::int64_t batch = row / p.m, r = row % p.m;
              const T* x = a + p.a_index[static_cast<std::size_t>(batch)] * p.m * p.k + r * p.k;
              const T* bm = b + p.b_index[static_cast<std::size_t>(batch)] * p.k * p.n;
              d::row_times_matrix(x, bm + c0, p.k, p.n, std::min(kBlock, p.n - c0),
                                  out + row * p.n + c0);
            }
          });
      return;
    }
  }
  const std::int64_t panels = (p.n + NR - 1) / NR;
  const std::int64_t panel_size = p.k * NR;
  const d::Buffers<C> buffers = d::take_buffers<T>(scratch, p, par.threads());
  const std::span<C> packed_b = buffers.packed_b;
  const std::int64_t b_matrix = p.k * p.n;
  const std::int64_t a_matrix = p.m * p.k;
  const auto grain_of = [&](std::int64_t work_per_unit) {
    return static_cast<std::size_t>(
        std::max<std::int64_t>(1, d::kGrainFlops / std::max<std::int64_t>(work_per_unit, 1)));
  };
  par.for_range(static_cast<std::size_t>(p.b_count * panels), grain_of(panel_size),
                [&](std::size_t first, std::size_t last, std::size_t) {
                  for (std::size_t t = first; t < last; ++t) {
                    const auto i = static_cast<std::int64_t>(t);
                    const std::int64_t matrix = i / panels, panel = i % panels;
                    d::pack_b(b + matrix * b_matrix, p, panel * NR,
                              packed_b.data() + i * panel_size);
                  }
                });

  const std::int64_t group_rows = MR * d::kGroup;
  const std::int64_t groups = (p.m + group_rows - 1) / group_rows;
  const std::int64_t column_blocks = (panels + d::kColumnPanels - 1) / d::kColumnPanels;
  const std::int64_t tasks = batches * groups * column_blocks;
  const std::int64_t task_flops =
      std::min(group_rows, p.m) * p.k * std::min(d::kColumnPanels * NR, p.n);
  par.for_range(
      static_cast<std::size_t>(tasks), grain_of(task_flops),
      [&](std::size_t first, std::size_t last, std::size_t chunk) {
        const Scratch mine = buffers.packed_a[chunk];
        const std::span<C> packed_a = d::take_packed_a<C>(mine, p);
        C tile[MR * NR];
        for (std::size_t t = first; t < last; ++t) {
          const auto task = static_cast<std::int64_t>(t);
          const std::int64_t batch = task / (groups * column_blocks);
          const std::int64_t group = task / column_blocks % groups;
          const std::int64_t block = task % column_blocks;
          const T* am = a + p.a_index[static_cast<std::size_t>(batch)] * a_matrix;
          const C* bm =
              packed_b.data() + p.b_index[static_cast<std::size_t>(batch)] * panels * panel_size;
          T* om = out + batch * p.m * p.n;
          const std::int64_t r_first = group * group_rows;
          const std::int64_t row_panels = std::min(d::kGroup, (p.m - r_first + MR - 1) / MR);
          for (std::int64_t q = 0; q < row_panels; ++q)
            d::pack_a(am, p, r_first + q * MR, packed_a.data() + q * MR * p.k);
          const std::int64_t panel_end = std::min(panels, (block + 1) * d::kColumnPanels);
          for (std::int64_t panel = block * d::kColumnPanels; panel < panel_end; ++panel) {
            const std::int64_t c0 = panel * NR;
            const std::int64_t cols = std::min(NR, p.n - c0);
            for (std::int64_t q = 0; q < row_panels; ++q) {
              d::micro_tile(packed_a.data() + q * MR * p.k, bm + panel * panel_size, p.k, tile);
              const std::int64_t r0 = r_first + q * MR;
              const std::int64_t rows = std::min(MR, p.m - r0);
              for (std::int64_t r = 0; r < rows; ++r) {
                T* dst = om + (r0 + r) * p.n + c0;
                for (std::int64_t c = 0; c < cols; ++c) dst[c] = static_cast<T>(tile[r * NR + c]);
              }
            }
          }
        }
      });
}

}  // namespace irlite
