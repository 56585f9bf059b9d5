#pragma once
// The GEMM's micro-kernels as the driver (gemm.cpp) sees them: one per GemmIsa, each computing
// a tile of up to mr rows and exactly nr columns of C from a packed sliver of A and a panel of B.

#include <cstdint>

#include "kernels/fake_quantize.hpp"
#include "kernels/gemm.hpp"

namespace irlite::gemm_detail {

/// Steps a tile runs on its finished sums before it stores them, each a value per row of C (a
/// convolution's output channel): add, multiply, relu or prelu (EpilogueStep), with the same
/// float operations as apply_row_steps(). Tile row r takes steps[s].values[row + r].
struct TileSteps {
  const EpilogueStep* steps = nullptr;
  std::int64_t count = 0;
  std::int64_t row = 0;
};

/// Whether a tile can run `step` (the Add of a tensor runs after, on the stored block).
inline bool tile_runs(const EpilogueStep& step) {
  return step.kind != EpilogueStep::Kind::add_tensor;
}

/// A FakeQuantize step's limits for row (channel) `at`, as fake_quantize.hpp's formula takes
/// them: the tiles run its operations, in its order, on the sums in registers.
inline QuantizeLimits<float> step_limits(const EpilogueStep& step, std::int64_t at) {
  const float* v = step.values + at;
  return QuantizeLimits<float>::make(v[0], v[step.stride], v[2 * step.stride], v[3 * step.stride],
                                     step.steps);
}

/// c[r * ldc + j] = sum over q < kc of ap[q * a_stride + r] * bp[q * b_stride + j], for r < rows
/// and j < nr, the sum continuing from the c already there when `accumulate`, from zero
/// otherwise; q in increasing order; then, when `steps` is not null, the steps on each sum. When
/// `b_rows` is not null, B's row q is at bp + b_rows[q] instead (b_stride unused). `a_stride`
/// is the GEMM's sliver height (sliver_rows()), rows <= a_stride <= the kernel's mr.
using TileFn = void (*)(std::int64_t rows, std::int64_t kc, const float* ap, std::int64_t a_stride,
                        const float* bp, std::int64_t b_stride, const std::int64_t* b_rows,
                        float* c, std::int64_t ldc, bool accumulate, const TileSteps* steps);

struct Kernel {
  std::int64_t mr = 0;  ///< rows of the register tile: A is packed in slivers of mr rows
  std::int64_t nr = 0;  ///< columns: B is packed in panels of nr columns
  bool fused = false;   ///< the sum takes fused multiply-adds
  TileFn tile = nullptr;
  /// A tile of nr / 2 columns (the same sums), for a last panel of no more; null: `tile`.
  TileFn half_tile = nullptr;
};

/// The kernel of `isa`, which the CPU must run.
const Kernel& kernel(GemmIsa isa);

/// The rows of A's slivers for a GEMM of m rows on a kernel of mr: mr, but for m between mr
/// and 1.5 mr, two slivers of half m (rounded up). A tile's sums do not depend on it, but its
/// speed does: 16 rows as 14 + 2 leave a tile of two rows whose few multiply-adds wait on each
/// other, as 8 + 8 none. Spreading larger m evenly (64 rows as 13 + 13 + 13 + 13 + 12) was
/// slower: the full tile is the fastest per multiply-add.
inline std::int64_t sliver_rows(std::int64_t m, std::int64_t mr) {
  return m > mr && 2 * m <= 3 * mr ? (m + 1) / 2 : mr;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define IRLITE_GEMM_X86 1
/// Defined in gemm_x86.cpp, compiled for AVX2 + FMA and AVX-512 by target attributes.
extern const Kernel kAvx2Kernel;
extern const Kernel kAvx512Kernel;
#endif

}  // namespace irlite::gemm_detail
