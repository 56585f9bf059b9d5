// The GEMM's driver: packing, cache blocking, threads, the epilogue, and the portable kernel.
//
// Blocking, for cores with 32-48 KiB of L1 data cache and 1 MiB of L2 (AMD Zen 4/5, Intel
// since Skylake-SP; smaller caches only cost some speed):
// - k is taken kKc = 256 at a time: a 14 x 32 tile then reads a 14 KiB sliver of A and a 32 KiB
//   panel of B per block, and holds its 28 accumulators over 256 fused multiply-adds each
//   before storing them. A block after the first loads the partial C back and continues the
//   same sums, so blocking changes no bit.
// - A task is a block of up to kMcRows rows (rounded to whole slivers) and kNcColumns columns
//   of one output matrix. Per k block it packs its rows of A (126 x 256 floats, 126 KiB: stays
//   in L2), then takes B's panels one by one and runs every sliver of A through each, so that
//   the panel stays in L1 while the slivers stream from L2.
// - Tasks go to threads in contiguous ranges, column block by column block, so that two
//   threads split the columns of a wide product evenly; a thread's tasks and their order change
//   the speed only, never a value.

#include "kernels/gemm.hpp"

#include <algorithm>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "core/buffer.hpp"
#include "irlite/float16.hpp"
#include "irlite/scratch.hpp"
#include "kernels/fake_quantize.hpp"
#include "kernels/gemm_kernel.hpp"
#include "kernels/simd.hpp"

namespace irlite {
namespace gemm_detail {
namespace {

inline constexpr std::int64_t kKc = kGemmKc;
inline constexpr std::int64_t kMcRows = 128;
inline constexpr std::int64_t kNcColumns = 512;
/// A product with at most kPrefetchMaxK along k, stored straight into an output with rows at
/// least kPrefetchMinLdc floats apart, prefetches the next panel's lines of C for writing.
inline constexpr std::int64_t kPrefetchMaxK = 64;
inline constexpr std::int64_t kPrefetchMinLdc = 4096;
/// Below this many multiply-adds a task is not worth a thread.
inline constexpr std::int64_t kGrainFlops = std::int64_t{1} << 17;
/// With B not packed, A of at most this many rows reads B in place (f32, not transposed):
/// packing B would cost as much as the product.
inline constexpr std::int64_t kDirectRows = 4;

// The portable kernel: a 6 x 16 tile on 32-byte vectors, products rounded before the sum.
constexpr std::int64_t kMrGeneric = 6, kNrGeneric = 16;

template <int R>
void generic_rows(std::int64_t kc, const float* ap, std::int64_t a_stride, const float* bp,
                  std::int64_t b_stride, const std::int64_t* b_rows, float* c, std::int64_t ldc,
                  bool accumulate, const TileSteps* steps) {
  using V = simd::vec<float>;
  constexpr std::int64_t L = simd::lanes<float>;
  V lo[R], hi[R];
  for (int r = 0; r < R; ++r) {
    lo[r] = accumulate ? simd::load(c + r * ldc) : V{};
    hi[r] = accumulate ? simd::load(c + r * ldc + L) : V{};
  }
  for (std::int64_t q = 0; q < kc; ++q) {
    const float* const row = b_rows ? bp + b_rows[q] : bp + q * b_stride;
    const V b0 = simd::load(row);
    const V b1 = simd::load(row + L);
    for (int r = 0; r < R; ++r) {
      const V x = simd::broadcast(ap[r]);
      lo[r] = lo[r] + x * b0;
      hi[r] = hi[r] + x * b1;
    }
    ap += a_stride;
  }
  for (std::int64_t s = 0; steps && s < steps->count; ++s) {
    const EpilogueStep& step = steps->steps[s];
    const V zero{};
    for (int r = 0; r < R; ++r) {
      const float v = step.kind == EpilogueStep::Kind::relu ? 0.0f : step.values[steps->row + r];
      const V x = simd::broadcast(v);
      switch (step.kind) {
        case EpilogueStep::Kind::add:
          lo[r] = lo[r] + x;
          hi[r] = hi[r] + x;
          break;
        case EpilogueStep::Kind::multiply:
          lo[r] = lo[r] * x;
          hi[r] = hi[r] * x;
          break;
        case EpilogueStep::Kind::relu:
          lo[r] = lo[r] > zero ? lo[r] : zero;
          hi[r] = hi[r] > zero ? hi[r] : zero;
          break;
        case EpilogueStep::Kind::prelu:
          lo[r] = lo[r] < zero ? lo[r] * x : lo[r];
          hi[r] = hi[r] < zero ? hi[r] * x : hi[r];
          break;
        case EpilogueStep::Kind::fake_quantize: {
          const QuantizeLimits<float> q = step_limits(step, steps->row + r);
          for (std::int64_t i = 0; i < L; ++i) {
            lo[r][i] = quantize_value(static_cast<float>(lo[r][i]), q);
            hi[r][i] = quantize_value(static_cast<float>(hi[r][i]), q);
          }
          break;
        }
        case EpilogueStep::Kind::add_tensor:
          break;  // not a tile's (tile_runs())
      }
    }
  }
  for (int r = 0; r < R; ++r) {
    simd::store(c + r * ldc, lo[r]);
    simd::store(c + r * ldc + L, hi[r]);
  }
}

void generic_tile(std::int64_t rows, std::int64_t kc, const float* ap, std::int64_t a_stride,
                  const float* bp, std::int64_t b_stride, const std::int64_t* b_rows, float* c,
                  std::int64_t ldc, bool accumulate, const TileSteps* steps) {
  switch (rows) {
    case 1:
      return generic_rows<1>(kc, ap, a_stride, bp, b_stride, b_rows, c, ldc, accumulate, steps);
    case 2:
      return generic_rows<2>(kc, ap, a_stride, bp, b_stride, b_rows, c, ldc, accumulate, steps);
    case 3:
      return generic_rows<3>(kc, ap, a_stride, bp, b_stride, b_rows, c, ldc, accumulate, steps);
    case 4:
      return generic_rows<4>(kc, ap, a_stride, bp, b_stride, b_rows, c, ldc, accumulate, steps);
    case 5:
      return generic_rows<5>(kc, ap, a_stride, bp, b_stride, b_rows, c, ldc, accumulate, steps);
    default:
      return generic_rows<6>(kc, ap, a_stride, bp, b_stride, b_rows, c, ldc, accumulate, steps);
  }
}

static_assert(kNrGeneric == 2 * simd::lanes<float>);
const Kernel kGenericKernel{kMrGeneric, kNrGeneric, false, generic_tile};

template <class T>
float to_float(T x) {
  return static_cast<float>(x);
}

template <class T>
T from_float(float x) {
  if constexpr (std::is_same_v<T, float>)
    return x;
  else
    return T(x);
}

/// Packs rows [i0, i0 + rows) and k [p0, p0 + kc) of A as ap[q * mr + r].
template <class T>
void pack_a(const T* a, std::int64_t lda, bool transposed, std::int64_t i0, std::int64_t rows,
            std::int64_t p0, std::int64_t kc, std::int64_t mr, float* ap) {
  if (transposed) {
    for (std::int64_t q = 0; q < kc; ++q) {
      const T* src = a + (p0 + q) * lda + i0;
      for (std::int64_t r = 0; r < rows; ++r) ap[q * mr + r] = to_float(src[r]);
    }
    return;
  }
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* src = a + (i0 + r) * lda + p0;
    for (std::int64_t q = 0; q < kc; ++q) ap[q * mr + r] = to_float(src[q]);
  }
}

/// Packs columns [j0, j0 + nr) of B (zero past n) for every k as bp[q * nr + j].
template <class T>
void pack_b_panel(const T* b, std::int64_t k, std::int64_t n, bool transposed, std::int64_t j0,
                  std::int64_t nr, float* bp) {
  const std::int64_t cols = std::min(nr, n - j0);
  for (std::int64_t q = 0; q < k; ++q) {
    float* dst = bp + q * nr;
    if (transposed) {
      for (std::int64_t j = 0; j < cols; ++j) dst[j] = to_float(b[(j0 + j) * k + q]);
    } else {
      const T* src = b + q * n + j0;
      for (std::int64_t j = 0; j < cols; ++j) dst[j] = to_float(src[j]);
    }
    for (std::int64_t j = cols; j < nr; ++j) dst[j] = 0.0f;
  }
}

/// Copies `kc` rows of `cols` float columns of B into panels of nr columns, one after another,
/// each kc rows of nr floats (zero past cols), reading B a row at a time: each row's columns are
/// consecutive in memory, however far apart the rows are. Row q starts at b + rows[q], or at
/// b + q * ldb when `rows` is null.
void pack_b_block(const float* b, const std::int64_t* rows, std::int64_t ldb, std::int64_t kc,
                  std::int64_t cols, std::int64_t nr, float* dst) {
  const std::int64_t panels = (cols + nr - 1) / nr;
  for (std::int64_t q = 0; q < kc; ++q) {
    const float* src = b + (rows ? rows[q] : q * ldb);
    std::int64_t p = 0;
    // Whole panels of the kernels' widths: copies of a size known here, so inlined.
    if (nr == 16)
      for (; (p + 1) * 16 <= cols; ++p) std::memcpy(dst + (p * kc + q) * 16, src + p * 16, 64);
    if (nr == 32)
      for (; (p + 1) * 32 <= cols; ++p) std::memcpy(dst + (p * kc + q) * 32, src + p * 32, 128);
    for (; p < panels; ++p) {
      float* d = dst + (p * kc + q) * nr;
      const std::int64_t pc = std::min(nr, cols - p * nr);
      std::copy_n(src + p * nr, pc, d);
      std::fill(d + pc, d + nr, 0.0f);
    }
  }
}

/// One step on `cols` elements of a row from column j0 on, each with its column's value: the
/// same float operation per element as the scalar loop, a vector of them at a time.
IRLITE_MULTIVERSION void column_step(const EpilogueStep& step, std::int64_t j0, float* row,
                                     std::int64_t cols) {
  using V = simd::vec<float>;
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<float>);
  const V zero{};
  const float* v = step.kind == EpilogueStep::Kind::relu ? nullptr : step.values + j0;
  std::int64_t j = 0;
  switch (step.kind) {
    case EpilogueStep::Kind::add_tensor:
      v = added_at(step, row);
      [[fallthrough]];
    case EpilogueStep::Kind::add:
      for (; j + L <= cols; j += L) simd::store(row + j, simd::load(row + j) + simd::load(v + j));
      for (; j < cols; ++j) row[j] = row[j] + v[j];
      break;
    case EpilogueStep::Kind::multiply:
      for (; j + L <= cols; j += L) simd::store(row + j, simd::load(row + j) * simd::load(v + j));
      for (; j < cols; ++j) row[j] = row[j] * v[j];
      break;
    case EpilogueStep::Kind::relu:
      for (; j + L <= cols; j += L) {
        const V x = simd::load(row + j);
        simd::store(row + j, x > zero ? x : zero);
      }
      for (; j < cols; ++j) row[j] = row[j] > 0.0f ? row[j] : 0.0f;
      break;
    case EpilogueStep::Kind::prelu:
      for (; j + L <= cols; j += L) {
        const V x = simd::load(row + j);
        simd::store(row + j, x < zero ? x * simd::load(v + j) : x);
      }
      for (; j < cols; ++j) row[j] = row[j] < 0.0f ? row[j] * v[j] : row[j];
      break;
    case EpilogueStep::Kind::fake_quantize: {
      const float* il = v;
      const float* ih = v + step.stride;
      const float* ol = v + 2 * step.stride;
      const float* oh = v + 3 * step.stride;
      for (; j < cols; ++j)
        row[j] = quantize_value(
            row[j], QuantizeLimits<float>::make(il[j], ih[j], ol[j], oh[j], step.steps));
      break;
    }
  }
}

/// Applies the epilogue to rows [i0, i0 + rows) and columns [j0, j0 + cols) of an output matrix,
/// held at c with row stride ldc.
void apply_epilogue(const GemmEpilogue& e, float* c, std::int64_t ldc, std::int64_t i0,
                    std::int64_t rows, std::int64_t j0, std::int64_t cols) {
  for (std::int64_t r = 0; r < rows; ++r) {
    float* row = c + r * ldc;
    if (e.bias && e.bias_per_row) {
      const float add = e.bias[i0 + r];
      for (std::int64_t j = 0; j < cols; ++j) row[j] = row[j] + add;
    } else if (e.bias) {
      const float* add = e.bias + j0;
      for (std::int64_t j = 0; j < cols; ++j) row[j] = row[j] + add[j];
    }
    if (e.activation == GemmEpilogue::Activation::relu)
      for (std::int64_t j = 0; j < cols; ++j) row[j] = row[j] > 0.0f ? row[j] : 0.0f;
    if (!e.steps_per_row)
      for (const EpilogueStep& step : e.steps) column_step(step, j0, row, cols);
  }
  if (e.steps_per_row) apply_row_steps(e.steps, i0, c, ldc, rows, cols);
}

/// Whether rows of n floats, one after another, fall in few of L1's sets: a multiple of 2 KiB
/// apart, they share one set in 32 (the set is the address modulo 4 KiB, in 64-byte lines).
bool rows_alias(std::int64_t n) {
  return n * static_cast<std::int64_t>(sizeof(float)) % 2048 == 0;
}

/// Where B comes from: packed panels, or a float matrix read in place with row stride n (or
/// with its rows where raw_rows says).
struct BSource {
  const PackedB* packed = nullptr;
  const float* raw = nullptr;
  std::int64_t raw_matrix = 0;             ///< floats between raw matrices
  const std::int64_t* raw_rows = nullptr;  ///< row q at raw + raw_rows[q], one matrix
  /// raw_rows read where they are by the tiles, not copied into panels: each row readable
  /// kGemmRowSlack floats past n (gemm_b_rows()).
  bool rows_in_place = false;
};

/// The block of the task grid a task covers.
struct Grid {
  std::int64_t row_blocks = 0, slivers_per_block = 0, col_blocks = 0, panels_per_block = 0;
};

Grid make_grid(std::int64_t m, std::int64_t n, std::int64_t mr, const Kernel& kr,
               unsigned threads) {
  Grid g;
  const std::int64_t slivers = (m + mr - 1) / mr;
  const std::int64_t panels = (n + kr.nr - 1) / kr.nr;
  g.row_blocks = (slivers * mr + kMcRows - 1) / kMcRows;
  g.slivers_per_block = (slivers + g.row_blocks - 1) / g.row_blocks;
  g.row_blocks = (slivers + g.slivers_per_block - 1) / g.slivers_per_block;
  g.col_blocks = (panels * kr.nr + kNcColumns - 1) / kNcColumns;
  // With few row blocks, column blocks a multiple of the threads where the panels allow, so
  // that the threads' shares of a wide product are equal; or row blocks a multiple of the
  // threads, where the slivers share out more evenly than the panels (a convolution on a small
  // map: 3 panels leave one thread 2 of them, 10 slivers give each 5). With many row blocks,
  // the threads split the rows, each packing only its own rows of A.
  const auto t = static_cast<std::int64_t>(threads);
  if (t > 1 && g.row_blocks < 4 * t && g.col_blocks % t != 0) {
    const auto up = [](std::int64_t x, std::int64_t d) { return (x + d - 1) / d; };
    // The largest thread's share of the product, times panels * slivers.
    const std::int64_t by_columns = up(panels, t) * slivers;
    const std::int64_t by_rows = up(slivers, t) * panels;
    if (panels >= t && by_columns <= by_rows) {
      g.col_blocks = std::min(panels, up(g.col_blocks, t) * t);
    } else if (slivers >= t) {
      g.row_blocks = up(g.row_blocks, t) * t;
      g.slivers_per_block = up(slivers, g.row_blocks);
      g.row_blocks = up(slivers, g.slivers_per_block);
    }
  }
  g.panels_per_block = (panels + g.col_blocks - 1) / g.col_blocks;
  g.col_blocks = (panels + g.panels_per_block - 1) / g.panels_per_block;
  return g;
}

/// The floats one thread's buffers hold in run(): packed A, a tile, B's panels (a block, or an edge
/// panel) and a block of C. gemm_scratch() bounds them.
struct ThreadBuffers {
  std::int64_t ap = 0, tile = 0, edge = 0, cbuf = 0;
  std::int64_t total() const { return ap + tile + edge + cbuf; }
};

/// The memory B of `count` matrices k x n packed for `isa`'s kernel takes from `s`: the first
/// piece of a gemm() call given B unpacked, in its run and in gemm_scratch()'s count.
std::span<float> take_packed_b(const Scratch& s, std::int64_t count, std::int64_t k, std::int64_t n,
                               GemmIsa isa) {
  return s.take<float>(PackedB::bytes(count, k, n, isa) / sizeof(float));
}

/// The per-thread buffers of `chunks` chunks, `floats` each, as one piece after B's: run()'s
/// with the chunks of its split, gemm_scratch()'s with one per thread and its bound per thread.
std::span<float> take_thread_buffers(const Scratch& s, std::size_t floats, std::size_t chunks) {
  return s.take<float>(saturating_mul(floats, chunks));
}

template <class T>
void run(const Parallel& par, const GemmArgs<T>& args, const Kernel& kr, const BSource& bsrc) {
  const std::int64_t m = args.m, n = args.n, k = args.k;
  const std::int64_t mr = sliver_rows(m, kr.mr), nr = kr.nr;
  const Grid g = make_grid(m, n, mr, kr, par.threads());
  const std::int64_t slivers = (m + mr - 1) / mr;
  const std::int64_t per_matrix = g.row_blocks * g.col_blocks;
  const std::int64_t tasks = args.batches * per_matrix;
  const std::int64_t block_rows = g.slivers_per_block * mr;
  const std::int64_t block_cols = g.panels_per_block * nr;
  const std::int64_t task_flops =
      std::min(block_rows, m) * std::min(block_cols, n) * std::max<std::int64_t>(k, 1);
  const std::int64_t lda = args.transpose_a ? m : k;
  const std::int64_t kc_max = std::min(kKc, std::max<std::int64_t>(k, 1));
  // The sums go straight to a float output stored as C is; otherwise through a block of
  // floats, converted or transposed on the way out.
  const bool direct = std::is_same_v<T, float> && !args.transpose_c;
  const std::int64_t ldc_out = args.ldc > 0 ? args.ldc : (args.transpose_c ? m : n);
  const std::int64_t out_matrix = (args.transpose_c ? n : m) * ldc_out;
  ThreadBuffers sizes;
  sizes.ap = block_rows * kc_max;
  sizes.tile = mr * nr;
  sizes.edge = bsrc.raw ? kc_max * block_cols : 0;
  sizes.cbuf = direct ? 0 : block_rows * block_cols;
  // Per-row steps the tiles run, up to the first they do not (a FakeQuantize), run in the
  // tiles of the last k block, on the sums in registers; the rest of the epilogue, on each
  // finished block of C.
  const GemmEpilogue& e = args.epilogue;
  const bool rows_only =
      k > 0 && e.steps_per_row && !e.bias && e.activation == GemmEpilogue::Activation::none;
  const auto tile_count = static_cast<std::size_t>(
      rows_only ? std::find_if_not(e.steps.begin(), e.steps.end(), tile_runs) - e.steps.begin()
                : 0);
  const bool tile_steps = tile_count > 0;
  GemmEpilogue after = e;
  after.steps = e.steps.subspan(tile_count);
  // A product of few k written straight to a large output (a 1x1 convolution on a large map)
  // spends its time waiting for the lines it stores: they are asked for, for writing, a panel
  // ahead.
  const bool prefetch_c = direct && k <= kPrefetchMaxK && ldc_out >= kPrefetchMinLdc;
  const std::size_t grain =
      static_cast<std::size_t>(std::max<std::int64_t>(1, kGrainFlops / task_flops));
  // Lent buffers: one piece, a share per chunk of the split (at most one per thread).
  const std::size_t chunks = par.chunks(static_cast<std::size_t>(tasks), grain);
  const std::span<float> lent =
      args.scratch
          ? take_thread_buffers(*args.scratch, static_cast<std::size_t>(sizes.total()), chunks)
          : std::span<float>();
  par.for_range(
      static_cast<std::size_t>(tasks), grain,
      [&](std::size_t first, std::size_t last, std::size_t chunk) {
        std::vector<float> own;
        float* buffers = nullptr;
        if (args.scratch) {
          buffers = lent.data() + chunk * static_cast<std::size_t>(sizes.total());
        } else {
          own.resize(static_cast<std::size_t>(sizes.total()));
          buffers = own.data();
        }
        float* const ap = buffers;
        float* const tile = ap + sizes.ap;
        float* const edge = tile + sizes.tile;
        float* const cbuf = edge + sizes.edge;
        // The block of a raw B that `edge` holds packed, as b_matrix * col_blocks +
        // col_block, when B has a single k block (else -1): the chunk's next task of
        // the same column block, on the next rows, finds it there.
        std::int64_t held = -1;
        for (std::size_t t = first; t < last; ++t) {
          const auto task = static_cast<std::int64_t>(t);
          const std::int64_t batch = task / per_matrix;
          const std::int64_t col_block = task % per_matrix / g.row_blocks;
          const std::int64_t row_block = task % g.row_blocks;
          const std::int64_t a_matrix = args.a_index ? args.a_index[batch] : batch;
          const std::int64_t b_matrix = args.b_index ? args.b_index[batch] : batch;
          const T* a = args.a + a_matrix * m * k;
          T* out = args.c + batch * out_matrix;
          const std::int64_t i0 = row_block * block_rows;
          const std::int64_t rows = std::min(block_rows, m - i0);
          const std::int64_t p_first = col_block * g.panels_per_block;
          const std::int64_t j0 = p_first * nr;
          const std::int64_t cols = std::min(block_cols, n - j0);
          const std::int64_t p_end = (j0 + cols + nr - 1) / nr;
          // The block of C the sums go to.
          float* c = cbuf;
          std::int64_t ldc = block_cols;
          if constexpr (std::is_same_v<T, float>) {
            if (direct) {
              c = out + i0 * ldc_out + j0;
              ldc = ldc_out;
            }
          }
          if (k == 0)
            for (std::int64_t r = 0; r < rows; ++r) std::fill_n(c + r * ldc, cols, 0.0f);
          for (std::int64_t p0 = 0; p0 < k; p0 += kKc) {
            const std::int64_t kc = std::min(kKc, k - p0);
            const bool accumulate = p0 > 0;
            // A packed beforehand holds this k block's slivers from i0 on at
            // p0 * (m rounded up to slivers) + i0 * kc (i0 is a whole sliver).
            const float* const a_block =
                args.a_packed ? args.a_packed + p0 * slivers * mr + i0 * kc : ap;
            if (!args.a_packed)
              for (std::int64_t s = 0; s * mr < rows; ++s)
                pack_a(a, lda, args.transpose_a, i0 + s * mr, std::min(mr, rows - s * mr), p0, kc,
                       mr, ap + s * mr * kc);
            // A raw B with evenly spaced rows is read where it is: a panel's k block
            // (at most 256 rows of 128 bytes) stays in L1 for the slivers after the
            // first. Unless its rows are a multiple of 2 KiB apart (a convolution on a
            // map of 192 x 336): they would then fall in two of L1's 64 sets, evict
            // each other, and the block's panels are copied to consecutive lines
            // first, as B given by rows always is.
            const bool pack_block =
                bsrc.raw && !bsrc.rows_in_place && (bsrc.raw_rows || (rows > mr && rows_alias(n)));
            const std::int64_t block_id = b_matrix * g.col_blocks + col_block;
            if (pack_block && !(k <= kKc && held == block_id)) {
              const float* b0 = bsrc.raw + b_matrix * bsrc.raw_matrix + j0;
              if (bsrc.raw_rows)
                pack_b_block(b0, bsrc.raw_rows + p0, 0, kc, cols, nr, edge);
              else
                pack_b_block(b0 + p0 * n, nullptr, n, kc, cols, nr, edge);
              held = k <= kKc ? block_id : -1;
            }
            for (std::int64_t p = p_first; p < p_end; ++p) {
              const std::int64_t pc = std::min(nr, n - p * nr);
              const float* bp = nullptr;
              std::int64_t b_stride = nr;
              const std::int64_t* b_rows = nullptr;
              if (bsrc.rows_in_place) {
                bp = bsrc.raw + p * nr;
                b_rows = bsrc.raw_rows + p0;
              } else if (bsrc.packed) {
                bp = bsrc.packed->panel(b_matrix, p) + p0 * nr;
              } else if (pack_block) {
                bp = edge + (p - p_first) * kc * nr;
              } else if (pc == nr) {
                bp = bsrc.raw + b_matrix * bsrc.raw_matrix + p0 * n + p * nr;
                b_stride = n;
              } else {
                pack_b_panel(bsrc.raw + b_matrix * bsrc.raw_matrix + p0 * n, kc, n, false, p * nr,
                             nr, edge);
                held = -1;
                bp = edge;
              }
              float* cp = c + (p - p_first) * nr;
              const bool last_block = p0 + kc == k;
              for (std::int64_t s = 0; s * mr < rows; ++s) {
                const std::int64_t tr = std::min(mr, rows - s * mr);
                float* ct = cp + s * mr * ldc;
                const float* as = a_block + s * mr * kc;
                const TileSteps row_steps{e.steps.data(), static_cast<std::int64_t>(tile_count),
                                          i0 + s * mr};
                const TileSteps* steps = tile_steps && last_block ? &row_steps : nullptr;
                if (prefetch_c && p + 1 < p_end)
                  for (std::int64_t r = 0; r < tr; ++r) {
                    __builtin_prefetch(ct + r * ldc + nr, 1, 3);
                    __builtin_prefetch(ct + r * ldc + nr + 16, 1, 3);
                  }
                if (pc == nr) {
                  kr.tile(tr, kc, as, mr, bp, b_stride, b_rows, ct, ldc, accumulate, steps);
                } else {
                  // A panel past n: the tile goes through a full-width copy.
                  if (accumulate)
                    for (std::int64_t r = 0; r < tr; ++r)
                      std::copy_n(ct + r * ldc, pc, tile + r * nr);
                  const TileFn fn = kr.half_tile && 2 * pc <= nr ? kr.half_tile : kr.tile;
                  fn(tr, kc, as, mr, bp, b_stride, b_rows, tile, nr, accumulate, steps);
                  for (std::int64_t r = 0; r < tr; ++r)
                    std::copy_n(tile + r * nr, pc, ct + r * ldc);
                }
              }
            }
          }
          if (!after.empty()) apply_epilogue(after, c, ldc, i0, rows, j0, cols);
          if (direct) continue;
          if (args.transpose_c) {
            for (std::int64_t j = 0; j < cols; ++j) {
              T* dst = out + (j0 + j) * ldc_out + i0;
              for (std::int64_t r = 0; r < rows; ++r) dst[r] = from_float<T>(c[r * ldc + j]);
            }
          } else {
            for (std::int64_t r = 0; r < rows; ++r)
              for (std::int64_t j = 0; j < cols; ++j)
                out[(i0 + r) * ldc_out + j0 + j] = from_float<T>(c[r * ldc + j]);
          }
        }
      });
}

}  // namespace

const Kernel& kernel(GemmIsa isa) {
#if defined(IRLITE_GEMM_X86)
  if (isa == GemmIsa::avx512) return kAvx512Kernel;
  if (isa == GemmIsa::avx2) return kAvx2Kernel;
#endif
  (void)isa;
  return kGenericKernel;
}

}  // namespace gemm_detail

namespace {

/// FakeQuantize's elements per block of the epilogue's loop.
inline constexpr std::int64_t kQuantizeBlock = 64;

/// Runs `steps` on `rows` rows of `count` elements (row stride ld), row r's elements all of
/// column (channel) column + r: every step on a row while it is in L1, then the next row.
IRLITE_MULTIVERSION void run_steps(std::span<const EpilogueStep> steps, std::int64_t column,
                                   float* x, std::int64_t ld, std::int64_t rows,
                                   std::int64_t count) {
  using V = simd::vec<float>;
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<float>);
  const V zero{};
  for (std::int64_t r = 0; r < rows; ++r)
    for (const EpilogueStep& step : steps) {
      float* const row = x + r * ld;
      const float v =
          step.kind == EpilogueStep::Kind::relu || step.kind == EpilogueStep::Kind::add_tensor
              ? 0.0f
              : step.values[column + r];
      const V vv = simd::broadcast(v);
      std::int64_t i = 0;
      switch (step.kind) {
        case EpilogueStep::Kind::add:
          for (; i + L <= count; i += L) simd::store(row + i, simd::load(row + i) + vv);
          for (; i < count; ++i) row[i] = row[i] + v;
          break;
        case EpilogueStep::Kind::add_tensor: {
          const float* const other = added_at(step, row);
          for (; i + L <= count; i += L)
            simd::store(row + i, simd::load(row + i) + simd::load(other + i));
          for (; i < count; ++i) row[i] = row[i] + other[i];
          break;
        }
        case EpilogueStep::Kind::multiply:
          for (; i + L <= count; i += L) simd::store(row + i, simd::load(row + i) * vv);
          for (; i < count; ++i) row[i] = row[i] * v;
          break;
        case EpilogueStep::Kind::relu:
          for (; i + L <= count; i += L) {
            const V a = simd::load(row + i);
            simd::store(row + i, a > zero ? a : zero);
          }
          for (; i < count; ++i) row[i] = row[i] > 0.0f ? row[i] : 0.0f;
          break;
        case EpilogueStep::Kind::prelu:
          for (; i + L <= count; i += L) {
            const V a = simd::load(row + i);
            simd::store(row + i, a < zero ? a * vv : a);
          }
          for (; i < count; ++i) row[i] = row[i] < 0.0f ? row[i] * v : row[i];
          break;
        case EpilogueStep::Kind::fake_quantize: {
          const QuantizeLimits<float> q = gemm_detail::step_limits(step, column + r);
          // Blocks of a fixed length, as unary_loop's, so that the loop vectorises.
          for (; i + kQuantizeBlock <= count; i += kQuantizeBlock) {
            float* const block = row + i;
            for (std::int64_t j = 0; j < kQuantizeBlock; ++j)
              block[j] = quantize_value(block[j], q);
          }
          // The last few through a block of zeros, so that they run in vectors too (a
          // channel's plane of a small map is shorter than a block).
          if (i < count) {
            float block[kQuantizeBlock] = {};
            const std::int64_t rest = count - i;
            std::copy_n(row + i, rest, block);
            for (std::int64_t j = 0; j < kQuantizeBlock; ++j)
              block[j] = quantize_value(block[j], q);
            std::copy_n(block, rest, row + i);
          }
          break;
        }
      }
    }
}

/// Runs `steps` on x[0, count), element i of column (channel) column + i, a vector of channels
/// at a time; no add_tensor step.
IRLITE_MULTIVERSION void run_channel_steps(std::span<const EpilogueStep> steps, std::int64_t column,
                                           float* x, std::int64_t count) {
  using V = simd::vec<float>;
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<float>);
  for (std::int64_t i = 0; i < count; i += L) {
    // A vector of channels, the last few padded with zeros (and their values with zeros).
    const std::int64_t n = std::min(L, count - i);
    alignas(32) float lanes[L] = {};
    std::copy_n(x + i, n, lanes);
    V a = simd::load(lanes);
    for (const EpilogueStep& step : steps) {
      alignas(32) float values[L] = {};
      if (step.kind != EpilogueStep::Kind::relu && step.kind != EpilogueStep::Kind::fake_quantize)
        std::copy_n(step.values + column + i, n, values);
      if (step.kind != EpilogueStep::Kind::fake_quantize) {
        a = value_step(step.kind, a, simd::load(values));
        continue;
      }
      simd::store(lanes, a);
      for (std::int64_t j = 0; j < n; ++j)
        lanes[j] = quantize_value(lanes[j], gemm_detail::step_limits(step, column + i + j));
      a = simd::load(lanes);
    }
    simd::store(lanes, a);
    std::copy_n(lanes, n, x + i);
  }
}

}  // namespace

void apply_steps(std::span<const EpilogueStep> steps, std::int64_t column, float* x,
                 std::int64_t count) {
  run_steps(steps, column, x, count, 1, count);
}

void apply_channel_steps(std::span<const EpilogueStep> steps, std::int64_t column, float* x,
                         std::int64_t count) {
  if (std::any_of(steps.begin(), steps.end(),
                  [](const EpilogueStep& s) { return s.kind == EpilogueStep::Kind::add_tensor; })) {
    for (std::int64_t i = 0; i < count; ++i) run_steps(steps, column + i, x + i, 1, 1, 1);
    return;
  }
  run_channel_steps(steps, column, x, count);
}

void apply_row_steps(std::span<const EpilogueStep> steps, std::int64_t row, float* c,
                     std::int64_t ldc, std::int64_t rows, std::int64_t cols) {
  run_steps(steps, row, c, ldc, rows, cols);
}

PackedALayout::PackedALayout(std::int64_t m, std::int64_t k, GemmIsa isa)
    : mr_(gemm_detail::sliver_rows(m, gemm_detail::kernel(isa).mr)), k_(k) {
  padded_ = (m + mr_ - 1) / mr_ * mr_;
}

PackedA::PackedA(const float* a, std::int64_t count, std::int64_t m, std::int64_t k, GemmIsa isa)
    : isa_(isa) {
  const PackedALayout layout(m, k, isa);
  const std::int64_t mr = layout.mr();
  floats_per_matrix_ = layout.floats();
  // Value-initialised: the last sliver's rows past m are zero.
  data_ = std::shared_ptr<float[]>(new float[static_cast<std::size_t>(count * layout.floats())]());
  for (std::int64_t i = 0; i < count; ++i) {
    float* const out = data_.get() + i * floats_per_matrix_;
    for (std::int64_t p0 = 0; p0 < k; p0 += gemm_detail::kKc) {
      const std::int64_t kc = std::min(gemm_detail::kKc, k - p0);
      for (std::int64_t r0 = 0; r0 < m; r0 += mr)
        gemm_detail::pack_a(a + i * m * k, k, false, r0, std::min(mr, m - r0), p0, kc, mr,
                            out + layout.column(r0, p0));
    }
  }
}

bool gemm_isa_supported(GemmIsa isa) {
#if defined(IRLITE_GEMM_X86)
  // __builtin_cpu_supports checks that the OS saves the vector registers too.
  switch (isa) {
    case GemmIsa::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
    case GemmIsa::avx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case GemmIsa::generic:
      return true;
  }
  return false;
#else
  return isa == GemmIsa::generic;
#endif
}

GemmIsa gemm_isa() {
  static const GemmIsa best = gemm_isa_supported(GemmIsa::avx512) ? GemmIsa::avx512
                              : gemm_isa_supported(GemmIsa::avx2) ? GemmIsa::avx2
                                                                  : GemmIsa::generic;
  return best;
}

bool gemm_fuses(GemmIsa isa) {
  return gemm_detail::kernel(isa).fused;
}

std::size_t PackedB::bytes(std::int64_t count, std::int64_t k, std::int64_t n, GemmIsa isa) {
  const std::int64_t nr = gemm_detail::kernel(isa).nr;
  const auto panels = static_cast<std::size_t>((n + nr - 1) / nr);
  return saturating_mul(saturating_mul(saturating_mul(static_cast<std::size_t>(count), panels),
                                       static_cast<std::size_t>(k)),
                        static_cast<std::size_t>(nr) * sizeof(float));
}

template <class T>
PackedB::PackedB(const T* b, std::int64_t count, std::int64_t k, std::int64_t n, bool transposed,
                 GemmIsa isa, const Parallel& par)
    : count_(count), k_(k), n_(n), nr_(gemm_detail::kernel(isa).nr), isa_(isa) {
  owner_ = allocate_buffer(bytes(count, k, n, isa));
  pack(b, transposed, static_cast<float*>(owner_.get()), par);
}

template <class T>
PackedB::PackedB(const T* b, std::int64_t count, std::int64_t k, std::int64_t n, bool transposed,
                 float* memory, GemmIsa isa, const Parallel& par)
    : count_(count), k_(k), n_(n), nr_(gemm_detail::kernel(isa).nr), isa_(isa) {
  pack(b, transposed, memory, par);
}

template <class T>
void PackedB::pack(const T* b, bool transposed, float* dst, const Parallel& par) {
  data_ = dst;
  const std::int64_t panels = this->panels();
  const std::int64_t count = count_, k = k_, n = n_;
  par.for_range(static_cast<std::size_t>(count * panels),
                static_cast<std::size_t>(std::max<std::int64_t>(
                    1, (std::int64_t{1} << 16) / std::max<std::int64_t>(k * nr_, 1))),
                [&](std::size_t first, std::size_t last, std::size_t) {
                  for (std::size_t t = first; t < last; ++t) {
                    const auto i = static_cast<std::int64_t>(t);
                    const std::int64_t matrix = i / panels, p = i % panels;
                    gemm_detail::pack_b_panel(b + matrix * k * n, k, n, transposed, p * nr_, nr_,
                                              dst + i * k * nr_);
                  }
                });
}

template <class T>
void gemm(const Parallel& par, const GemmArgs<T>& args, const PackedB& b) {
  if (args.batches == 0 || args.m == 0 || args.n == 0) return;
  gemm_detail::BSource src;
  src.packed = &b;
  gemm_detail::run(par, args, gemm_detail::kernel(b.isa()), src);
}

template <class T>
void gemm(const Parallel& par, const GemmArgs<T>& args, const T* b, std::int64_t b_count,
          bool transpose_b) {
  if (args.batches == 0 || args.m == 0 || args.n == 0) return;
  const GemmIsa isa = gemm_isa();
  if constexpr (std::is_same_v<T, float>) {
    if (args.m <= gemm_detail::kDirectRows && !transpose_b) {
      gemm_detail::BSource src;
      src.raw = b;
      src.raw_matrix = args.k * args.n;
      gemm_detail::run(par, args, gemm_detail::kernel(isa), src);
      return;
    }
  }
  // Packed into the caller's Scratch when it lends one, before the per-thread buffers.
  if (args.scratch) {
    const std::span<float> memory =
        gemm_detail::take_packed_b(*args.scratch, b_count, args.k, args.n, isa);
    gemm(par, args, PackedB(b, b_count, args.k, args.n, transpose_b, memory.data(), isa, par));
    return;
  }
  gemm(par, args, PackedB(b, b_count, args.k, args.n, transpose_b, isa, par));
}

void gemm_b_in_place(const Parallel& par, const GemmArgs<float>& args, const float* b) {
  if (args.batches == 0 || args.m == 0 || args.n == 0) return;
  gemm_detail::BSource src;
  src.raw = b;
  src.raw_matrix = args.k * args.n;
  gemm_detail::run(par, args, gemm_detail::kernel(gemm_isa()), src);
}

void gemm_b_rows(const Parallel& par, const GemmArgs<float>& args, const float* b,
                 const std::int64_t* b_rows, GemmIsa isa) {
  if (args.batches == 0 || args.m == 0 || args.n == 0) return;
  gemm_detail::BSource src;
  src.raw = b;
  src.raw_rows = b_rows;
  src.rows_in_place = true;
  gemm_detail::run(par, args, gemm_detail::kernel(isa), src);
}

std::size_t gemm_scratch(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t b_count,
                         unsigned threads, GemmIsa isa) {
  const gemm_detail::Kernel& kr = gemm_detail::kernel(isa);
  const auto rows = static_cast<std::size_t>(
      std::min(gemm_detail::kMcRows + kr.mr, (m + kr.mr - 1) / kr.mr * kr.mr));
  const auto kc =
      static_cast<std::size_t>(std::min(gemm_detail::kKc, std::max<std::int64_t>(k, 1)));
  const auto nr = static_cast<std::size_t>(kr.nr);
  const auto cols = static_cast<std::size_t>(std::min(n + kr.nr, gemm_detail::kNcColumns + kr.nr));
  // Packed A, a tile, a block of B's panels and a block of C, in floats: at least a run's, for
  // any m up to this one (a caller may count its largest call only).
  const std::size_t per_thread =
      saturating_add(saturating_add(saturating_mul(rows, kc), nr * static_cast<std::size_t>(kr.mr)),
                     saturating_add(saturating_mul(kc, cols), saturating_mul(rows, cols)));
  return Scratch::bytes_of([&](const Scratch& s) {
    if (b_count > 0) (void)gemm_detail::take_packed_b(s, b_count, k, n, isa);
    (void)gemm_detail::take_thread_buffers(s, per_thread, threads);
  });
}

#define IRLITE_GEMM_INSTANTIATE(T)                                                             \
  template PackedB::PackedB(const T*, std::int64_t, std::int64_t, std::int64_t, bool, GemmIsa, \
                            const Parallel&);                                                  \
  template PackedB::PackedB(const T*, std::int64_t, std::int64_t, std::int64_t, bool, float*,  \
                            GemmIsa, const Parallel&);                                         \
  template void gemm<T>(const Parallel&, const GemmArgs<T>&, const PackedB&);                  \
  template void gemm<T>(const Parallel&, const GemmArgs<T>&, const T*, std::int64_t, bool);
IRLITE_GEMM_INSTANTIATE(float)
IRLITE_GEMM_INSTANTIATE(float16)
IRLITE_GEMM_INSTANTIATE(bfloat16)
#undef IRLITE_GEMM_INSTANTIATE

}  // namespace irlite
