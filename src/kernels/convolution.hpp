#pragma once
// Convolution and GroupConvolution on f32, f16 and bf16, channels first, 1 to 3 spatial axes
// (a 1-D or 2-D convolution is run as a 3-D one whose leading spatial axes have extent 1).
//
// Four kernels, chosen by the geometry:
// - pointwise (a 1x1 kernel, stride 1, no padding): per image and group, the output is one
//   GEMM, out[C_OUT, HW] = W[C_OUT, C_IN] x X[C_IN, HW], with X read in place;
// - shifted rows (f32, one or two spatial axes): the input is copied once, zero-padded and, for
//   strides above 1, split into phases (row % stride, column % stride), and the GEMM reads each
//   kernel position's row of B from that copy, shifted; it computes rows a little wider than
//   the output, a block of output rows at a time, and the block is copied out without the
//   extra columns (no im2col);
// - general: the patches under the kernel are copied (im2col) into scratch, a block of output
//   rows at a time so that the copy stays near kColumnBytes, and each block is one GEMM;
// - depthwise (a GroupConvolution with one input and one output channel per group): a direct
//   loop, one output row at a time, each output summed in registers over the whole kernel, a
//   vector of outputs at a time (input rows split into stride phases when the stride is not 1).
// On f32, the GEMMs take the filters as their A and the input (or the im2col block) as their B,
// read in place: C is then the channels-first output, written directly, and the fused steps run
// per channel row. On f16 and bf16 they take the input as A and the filters as B, packed once
// per layer (ConvWeights, built when the filters are a Const) or per call into scratch, and write
// the output transposed, summed in float and rounded once (kernels/gemm.hpp).
//
// Every output element is one sum in an order set by the geometry alone: the GEMM's over
// (input channel, kernel position) in increasing order, the depthwise loop's over kernel
// positions in increasing order. Threads split GEMM tiles, im2col rows and depthwise output
// rows, never a sum, so results are the same bits on any number of threads.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "core/parallel.hpp"
#include "irlite/scratch.hpp"
#include "kernels/gemm.hpp"

namespace irlite {

/// One convolution as the kernel sees it, the spatial axes padded to three at the front.
struct ConvGeometry {
  std::int64_t batch = 0;
  std::int64_t groups = 1;
  std::int64_t in_channels = 0;   ///< per group
  std::int64_t out_channels = 0;  ///< per group
  std::array<std::int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, kernel{1, 1, 1};
  std::array<std::int64_t, 3> stride{1, 1, 1}, dilation{1, 1, 1}, pad_begin{0, 0, 0};

  std::int64_t in_size() const { return in[0] * in[1] * in[2]; }
  std::int64_t out_size() const { return out[0] * out[1] * out[2]; }
  std::int64_t kernel_size() const { return kernel[0] * kernel[1] * kernel[2]; }
  /// The GEMM's k: an output element's terms.
  std::int64_t patch() const { return in_channels * kernel_size(); }
  /// A 1x1 kernel, stride 1, no padding: the output pixels are the input's.
  bool pointwise() const;
  /// One input and one output channel per group.
  bool depthwise() const { return in_channels == 1 && out_channels == 1 && groups > 1; }
};

/// The filters made ready for the kernel: for the GEMM, packed as its B (one matrix per group,
/// k = in_channels x kernel positions, n = out_channels) or its A; for the depthwise loop, as
/// floats.
struct ConvWeights {
  PackedB packed;   ///< the filters as the GEMM's B (see filters_as_b())
  PackedA filters;  ///< f32, filters first: the filters as the GEMM's A
  std::shared_ptr<float[]> depthwise;
};

/// Output pixels per image below which an f32 GEMM takes the filters as its B: with the filters
/// first, the pixels are the columns of the register tiles, 16 a tile, and a few of them leave
/// much of every tile's work unused (a 3x3 layer on a 2x2 map, a 1x1 map's matrix-vector
/// product; a 4x4 map's shifted rows are 22 wide, two tiles). Measured on head pose's layers: a
/// 4x4 map is 27% faster with the filters as B, an 8x8 map 5-35% slower. Either way every sum
/// is the same, term for term.
inline constexpr std::int64_t kFiltersFirstMinPixels = 32;

/// Whether the GEMM of `geometry` on T takes the input's patches as its A and the filters as its
/// B, storing C transposed: always on f16 and bf16; on f32 for outputs of fewer than
/// kFiltersFirstMinPixels pixels per image.
template <class T>
bool filters_as_b(const ConvGeometry& geometry);

/// Prepares filters of `geometry`'s groups and channels, stored [groups, out_channels,
/// in_channels, kernel...], for a GEMM that takes them as its B when `as_b` (filters_as_b() of
/// the geometry the input will have), else as its A (f32 only).
template <class T>
ConvWeights prepare_conv_weights(const T* filters, const ConvGeometry& geometry, bool as_b);

/// The scratch memory convolution() takes on `threads` threads with these `weights` from
/// prepare_conv_weights(), or with null, the filters packed per call.
template <class T>
std::size_t convolution_scratch(const ConvGeometry& geometry, const ConvWeights* weights,
                                unsigned threads);

/// The most epilogue steps convolution() runs.
inline constexpr std::size_t kMaxConvSteps = 8;

/// y = x convolved with the filters, both channels first; `weights` as prepared, or null to
/// prepare `filters` into scratch (on f32, weights prepared for the other side of the GEMM than
/// filters_as_b() says are not used: the filters are then read as they are). Each output element
/// then goes through `steps` (at most kMaxConvSteps, values indexed by output channel) in float
/// before it is stored; an add_tensor step's tensor has y's shape, and its `output` is y.
template <class T>
void convolution(const Parallel& par, const ConvGeometry& geometry, const T* x, const T* filters,
                 const ConvWeights* weights, T* y, const Scratch& scratch,
                 std::span<const EpilogueStep> steps = {});

/// The most an im2col block holds, in bytes (a block is at least one output row).
inline constexpr std::size_t kColumnBytes = std::size_t{1} << 20;

}  // namespace irlite
