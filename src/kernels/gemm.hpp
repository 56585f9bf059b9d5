#pragma once
// The float GEMM: C = A · B for batches of row-major matrices, A m x k (or k x m, transposed),
// B k x n (or n x k), C m x n, with an epilogue (bias, activation) applied to each finished
// part of C. f16 and bf16 operands are converted to float as they are packed and the sums are
// kept in float.
//
// B is packed once into a PackedB, which a caller may keep: a MatMul whose B is a Const packs it
// when the model loads and reuses it at every run. The work is split over threads by blocks of
// rows and of columns of C, never along k: every element of C is one running sum over k in
// increasing order, whatever the thread count, so results are the same bits on any number of
// threads.
//
// Numerics: on CPUs with fused multiply-add (x86-64 with AVX2 and FMA, or AVX-512) every step of
// that sum is one fused multiply-add, acc = fma(a[i][q], b[q][j], acc) from acc = 0, so an
// element of C equals that plain loop over q bit for bit (gemm_fuses() says so). Elsewhere the
// step is acc = acc + a * b with the product rounded first, equal bit for bit to that loop.
// See gemm.cpp for the blocking and the register tiles.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "core/multiversion.hpp"
#include "core/parallel.hpp"

namespace irlite {

class Scratch;

/// The instruction sets the GEMM has a micro-kernel for.
enum class GemmIsa { generic, avx2, avx512 };

/// The fastest GemmIsa this CPU runs, found once.
GemmIsa gemm_isa();
/// Whether the CPU runs `isa`'s kernel (generic: always).
bool gemm_isa_supported(GemmIsa isa);
/// Whether `isa`'s kernel sums with fused multiply-adds (see the header comment).
bool gemm_fuses(GemmIsa isa);

/// One element-wise step with a value per column of C (a convolution's output channel): x + v,
/// x * v, max(x, 0) (a NaN gives 0, as Relu does), x < 0 ? x * v : x (PReLU) or FakeQuantize's
/// formula on f32 (kernels/fake_quantize.hpp) with four limits per column; or x plus the element
/// of another tensor of the output's shape at x's place (add_tensor: a residual connection).
struct EpilogueStep {
  enum class Kind { add, multiply, relu, prelu, fake_quantize, add_tensor };
  Kind kind = Kind::relu;
  /// n values, for column 0 on; unused by relu. add_tensor: the tensor added, whose element at
  /// offset i from `output` is added to output[i].
  const float* values = nullptr;
  /// fake_quantize: the limits input_low, input_high, output_low and output_high are n values
  /// each, at values, values + stride, values + 2 * stride and values + 3 * stride.
  std::int64_t stride = 0;
  float steps = 0.0f;  ///< fake_quantize: levels - 1
  /// add_tensor: the output the steps run on, in which every element they reach must lie.
  const float* output = nullptr;
};

/// An add, multiply, relu or prelu step on `a` (a float or a vector of them) with the step's
/// value v (for relu unused); `a` unchanged for the other kinds.
template <class V, class S>
IRLITE_INLINE V value_step(EpilogueStep::Kind kind, V a, S v) {
  const V zero{};
  switch (kind) {
    case EpilogueStep::Kind::add:
      return a + v;
    case EpilogueStep::Kind::multiply:
      return a * v;
    case EpilogueStep::Kind::relu:
      return a > zero ? a : zero;
    case EpilogueStep::Kind::prelu:
      return a < zero ? a * v : a;
    default:
      return a;
  }
}

/// An add_tensor step's element for output element x: the same place in the added tensor.
inline const float* added_at(const EpilogueStep& step, const float* x) {
  return step.values + (x - step.output);
}

/// Runs `steps` in order on `count` elements that all belong to column (channel) `column`.
void apply_steps(std::span<const EpilogueStep> steps, std::int64_t column, float* x,
                 std::int64_t count);

/// Runs `steps` in order on x[0, count), element i of column (channel) column + i: an output
/// of one element per channel. The same bits as apply_steps() on each element alone.
void apply_channel_steps(std::span<const EpilogueStep> steps, std::int64_t column, float* x,
                         std::int64_t count);

/// Runs `steps` in order on `rows` rows of `cols` elements at c (row stride ldc), row r's
/// elements all of column (channel) row + r.
void apply_row_steps(std::span<const EpilogueStep> steps, std::int64_t row, float* c,
                     std::int64_t ldc, std::int64_t rows, std::int64_t cols);

/// What is done to each element of C once its sum is complete: a bias added (per column, as a
/// fully connected layer's, or per row, as a convolution's in the transposed layout), then an
/// activation, then the steps. The default does nothing. An add_tensor step reads its tensor at
/// the place of each element in C, so C must be a float output stored as summed (not transposed).
struct GemmEpilogue {
  enum class Activation { none, relu };
  /// n values (per column) or m values (per row) for every output matrix; null: no bias.
  const float* bias = nullptr;
  bool bias_per_row = false;
  Activation activation = Activation::none;
  std::span<const EpilogueStep> steps;
  /// The steps' values are per row of C (a convolution's output channel when its rows are the
  /// channels), not per column.
  bool steps_per_row = false;

  bool empty() const { return bias == nullptr && activation == Activation::none && steps.empty(); }
};

/// B (a batch of `count` matrices, each k x n) in the layout the micro-kernel reads: per matrix,
/// panels of nr() columns, each panel k rows of nr() floats (zero past n). Owns its memory, or
/// packs into memory its caller lends (a kernel's scratch).
class PackedB {
 public:
  PackedB() = default;
  /// Packs `count` consecutive matrices from `b`, each k x n row-major or, when `transposed`,
  /// n x k, for `isa`'s kernel; the panels are shared out over `par`'s threads.
  template <class T>
  PackedB(const T* b, std::int64_t count, std::int64_t k, std::int64_t n, bool transposed,
          GemmIsa isa = gemm_isa(), const Parallel& par = {});
  /// The same, packed into `memory`, which holds bytes(count, k, n, isa) bytes, is aligned for
  /// floats and must outlive the PackedB.
  template <class T>
  PackedB(const T* b, std::int64_t count, std::int64_t k, std::int64_t n, bool transposed,
          float* memory, GemmIsa isa = gemm_isa(), const Parallel& par = {});

  /// The bytes a PackedB of these sizes holds.
  static std::size_t bytes(std::int64_t count, std::int64_t k, std::int64_t n, GemmIsa isa);

  std::int64_t count() const { return count_; }
  std::int64_t k() const { return k_; }
  std::int64_t n() const { return n_; }
  GemmIsa isa() const { return isa_; }
  /// Columns per panel.
  std::int64_t nr() const { return nr_; }
  /// Panel `p` of matrix `matrix`: k rows of nr() floats.
  const float* panel(std::int64_t matrix, std::int64_t p) const {
    return data_ + (matrix * panels() + p) * k_ * nr_;
  }
  std::int64_t panels() const { return (n_ + nr_ - 1) / nr_; }

 private:
  template <class T>
  void pack(const T* b, bool transposed, float* dst, const Parallel& par);

  std::shared_ptr<void> owner_;  // null when the memory is lent
  const float* data_ = nullptr;
  std::int64_t count_ = 0, k_ = 0, n_ = 0, nr_ = 1;
  GemmIsa isa_ = GemmIsa::generic;
};

/// The GEMM takes k this many at a time (its cache blocking).
inline constexpr std::int64_t kGemmKc = 256;

/// Where an m x k matrix A packed for isa's kernel (PackedA, GemmArgs::a_packed) holds its
/// elements: per block of kGemmKc along k, the slivers of mr() rows one after another, a
/// sliver's column q being its mr() rows' elements q, consecutive.
class PackedALayout {
 public:
  PackedALayout(std::int64_t m, std::int64_t k, GemmIsa isa);
  std::int64_t mr() const { return mr_; }
  /// The floats it takes: m rounded up to whole slivers, times k.
  std::int64_t floats() const { return padded_ * k_; }
  /// Where column q of the sliver that starts at row i0 (a multiple of mr()) begins: rows i0 to
  /// i0 + mr() - 1 of column q follow it.
  std::int64_t column(std::int64_t i0, std::int64_t q) const {
    const std::int64_t p0 = q / kGemmKc * kGemmKc;
    return p0 * padded_ + i0 * std::min(kGemmKc, k_ - p0) + (q - p0) * mr_;
  }

 private:
  std::int64_t mr_ = 1, padded_ = 0, k_ = 0;
};

/// A (a batch of `count` matrices, each m x k row-major floats) packed once in the slivers that
/// isa's kernel reads (PackedALayout), rows past m zero. A GEMM given it (GemmArgs::a_packed)
/// packs no A.
class PackedA {
 public:
  PackedA() = default;
  PackedA(const float* a, std::int64_t count, std::int64_t m, std::int64_t k,
          GemmIsa isa = gemm_isa());

  bool empty() const { return data_ == nullptr; }
  GemmIsa isa() const { return isa_; }
  /// Matrix `i`'s slivers, for GemmArgs::a_packed.
  const float* matrix(std::int64_t i) const { return data_.get() + i * floats_per_matrix_; }

 private:
  std::shared_ptr<float[]> data_;
  std::int64_t floats_per_matrix_ = 0;
  GemmIsa isa_ = GemmIsa::generic;
};

/// One GEMM call: `batches` output matrices, matrix i being A[a_index[i]] · B[b_index[i]] (the
/// matrices of A and of B counted from 0; null index arrays mean matrix i for output i).
template <class T>
struct GemmArgs {
  std::int64_t m = 0, n = 0, k = 0;
  /// The A matrices, each m x k row-major (k x m when transpose_a), one after another.
  const T* a = nullptr;
  bool transpose_a = false;
  /// Or A already packed for the isa the call runs on (a PackedA's matrix(), or floats laid out
  /// as PackedALayout says; rows past m are not read), for a single output matrix (batches 1);
  /// `a` is then not read.
  const float* a_packed = nullptr;
  /// The outputs, each m x n row-major, one after another; with transpose_c each is stored
  /// n x m, element (i, j) at c[j * ldc + i] (a convolution's channels-first output, whose rows
  /// are the output channels).
  T* c = nullptr;
  bool transpose_c = false;
  /// The row stride of a stored output matrix; 0: its width (n, or m when transpose_c). Output
  /// matrix i starts at c + i * (its stored rows) * ldc.
  std::int64_t ldc = 0;
  std::int64_t batches = 1;
  const std::int64_t* a_index = nullptr;
  const std::int64_t* b_index = nullptr;
  GemmEpilogue epilogue = {};
  /// Where the call's memory comes from: pieces taken from this Scratch, at most
  /// gemm_scratch(m, n, k, b_count, threads) bytes (b_count 0 when B is given packed): B packed
  /// for the call, then the per-thread buffers. Null: from the heap.
  const Scratch* scratch = nullptr;
};

/// C = A · B with B packed (its k and n must be args' and its isa supported).
template <class T>
void gemm(const Parallel& par, const GemmArgs<T>& args, const PackedB& b);

/// C = A · B with B given as `b_count` consecutive matrices, k x n (n x k when transpose_b):
/// packed for this call (into args.scratch when given), or read in place when A has few rows.
template <class T>
void gemm(const Parallel& par, const GemmArgs<T>& args, const T* b, std::int64_t b_count,
          bool transpose_b);

/// C = A · B with a float B, one k x n row-major matrix for every output matrix, never packed as
/// a whole: each thread copies the block of B's panels it works on into its own buffer, reading
/// B row by row (or, for a single sliver of A's rows, reads B's rows in place). For a B that is
/// read once, such as a convolution's input when A holds its filters.
void gemm_b_in_place(const Parallel& par, const GemmArgs<float>& args, const float* b);

/// C = A · B with a float B whose row q is the n floats from b + b_rows[q] on, for a single output
/// matrix (batches 1): rows in any order and at any distance, even overlapping. For a B that is a
/// view of another tensor, such as a convolution's padded input shifted for each kernel
/// position. The kernels read the rows where they are, a panel of columns at a time, so each
/// row must be readable kGemmRowSlack floats past its n (the values there are not used).
void gemm_b_rows(const Parallel& par, const GemmArgs<float>& args, const float* b,
                 const std::int64_t* b_rows, GemmIsa isa = gemm_isa());

/// The floats past a row of B that gemm_b_rows() may read: the widest kernel's panel.
inline constexpr std::int64_t kGemmRowSlack = 32;

/// The most memory gemm() takes on `threads` threads, beyond its arguments, from
/// GemmArgs::scratch (alignment included) or else the heap: per-thread blocks of A and C, and
/// B packed for the call when it is not given packed (`b_count` > 0 matrices). It holds for any
/// call with at most these m and threads and these n and k.
std::size_t gemm_scratch(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t b_count,
                         unsigned threads, GemmIsa isa = gemm_isa());

}  // namespace irlite
