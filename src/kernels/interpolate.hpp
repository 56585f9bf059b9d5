#pragma once
// Interpolate's kernels: resizing chosen axes of a tensor by nearest, linear (a triangle filter,
// widened when antialiasing), linear_onnx (two taps per axis), cubic (four taps per axis) and
// the two Pillow filters, with OpenVINO's reference numerics (see README, "vague").
//
// Every mode but the Pillow ones is separable in its weights: each resized axis has a table
// giving, for each output coordinate, its input taps and their weights. An output element is
// the sum over every combination of taps (the first listed axis outermost) of the product of
// their weights (multiplied in the axes' order) times the input there, in float; linear
// divides by the sum of those products. Taps of weight zero are not in the tables. The tables
// are built once per call from scratch memory. A 4-D tensor whose first two axes are not
// resized (NCHW feature maps) runs on [N * C] planes with the H and W tables alone (the fast
// path: W's taps as masked vector slots), in the same order of operations, so its bits are the
// general path's. The fast path splits output rows over threads, the general one output
// elements; each element is computed by one thread, so the results do not depend on the
// thread count.
//
// The Pillow modes resample two axes, the second listed first (horizontal) into a temporary
// of the data's type, then the first, in double, as Pillow does.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/parallel.hpp"
#include "irlite/element_type.hpp"
#include "irlite/scratch.hpp"
#include "irlite/shape.hpp"

namespace irlite {

enum class InterpMode { nearest, linear, linear_onnx, cubic, bilinear_pillow, bicubic_pillow };
enum class CoordMode {
  half_pixel,
  pytorch_half_pixel,
  asymmetric,
  tf_half_pixel_for_nn,
  align_corners
};
enum class NearestMode { round_prefer_floor, round_prefer_ceil, floor, ceil, simple };

/// One resize: the data's shape, its zero padding, the output's shape, the resized axes (as
/// listed, distinct, each below the rank) with a scale each.
struct InterpolateSpec {
  InterpMode mode = InterpMode::nearest;
  CoordMode coord = CoordMode::half_pixel;
  NearestMode nearest = NearestMode::round_prefer_floor;
  bool antialias = false;
  double cube_coeff = -0.75;
  Shape input;                           ///< the data's shape, before padding
  std::vector<std::int64_t> pads_begin;  ///< one per axis
  Shape padded;                          ///< input + pads_begin + pads_end
  Shape output;
  std::vector<std::int64_t> axes;
  std::vector<float> scales;  ///< one per listed axis
  /// Off only to measure the general path against the fast one.
  bool allow_fast_path = true;
};

/// The source coordinate of output coordinate x along an axis of `out` elements resized from
/// `in` with `scale`, in float as OpenVINO's reference computes it.
float interpolate_source_coordinate(CoordMode mode, float x, float scale, float out, float in);

/// The nearest input index to a source coordinate, before clamping.
std::int64_t interpolate_nearest_index(NearestMode mode, float c, bool downsampling);

/// Whether interpolate() takes the fast path on this spec.
bool interpolate_takes_fast_path(const InterpolateSpec& spec);

/// Scratch bytes interpolate() takes for this spec, `type` and thread count.
std::size_t interpolate_scratch_bytes(const InterpolateSpec& spec, ElementType type,
                                      unsigned threads);

/// Resizes `in` (spec.input) into `out` (spec.output), both of `type` (a numeric type).
void interpolate(const Parallel& parallel, const Scratch& scratch, const InterpolateSpec& spec,
                 ElementType type, const void* in, void* out);

}  // namespace irlite
