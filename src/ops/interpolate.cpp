// Interpolate-1/4/11: resizes chosen axes of a tensor of any numeric type (f16 and bf16 computed
// in float), after padding it with zeros. Interpolate-4 takes data, sizes, scales and optional
// axes, and its shape_calculation_mode says whether sizes or scales give the output's extents;
// Interpolate-11 takes data, one scales_or_sizes input (floating-point or integer, as that mode
// says) and optional axes, and adds the two Pillow modes; Interpolate-1 takes data and the
// target extents of the axes its attribute lists, and runs as OpenVINO's reference maps it onto
// Interpolate-4 (README, "vague"). The kernels are in kernels/interpolate.cpp.

#include "kernels/interpolate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "core/attribute_visitor.hpp"
#include "core/saturating.hpp"
#include "kernels/element.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

enum class ShapeCalc { sizes, scales };
enum class V1Mode { nearest, linear, cubic, area, linear_onnx };

constexpr std::string_view kModeWords[] = {"nearest", "linear",          "linear_onnx",
                                           "cubic",   "bilinear_pillow", "bicubic_pillow"};
constexpr std::string_view kV1ModeWords[] = {"nearest", "linear", "cubic", "area", "linear_onnx"};
constexpr std::string_view kCalcWords[] = {"sizes", "scales"};
constexpr std::string_view kCoordWords[] = {"half_pixel", "pytorch_half_pixel", "asymmetric",
                                            "tf_half_pixel_for_nn", "align_corners"};
constexpr std::string_view kNearestWords[] = {"round_prefer_floor", "round_prefer_ceil", "floor",
                                              "ceil", "simple"};

bool non_negative(const std::vector<std::int64_t>& v) {
  return std::all_of(v.begin(), v.end(), [](std::int64_t x) { return x >= 0; });
}

struct InterpolateAttributes {
  int version = 4;  // not an attribute: the op's version
  InterpMode mode = InterpMode::nearest;
  V1Mode v1_mode = V1Mode::nearest;
  ShapeCalc calc = ShapeCalc::sizes;
  CoordMode coord = CoordMode::half_pixel;
  NearestMode nearest = NearestMode::round_prefer_floor;
  bool antialias = false;
  bool align_corners = true;
  Shape axes;  // Interpolate-1's
  std::vector<std::int64_t> pads_begin, pads_end;
  double cube_coeff = -0.75;

  void visit(AttributeVisitor& v) {
    if (version == 1) {
      v.on("axes", axes);
      v.on("mode", v1_mode, std::span(kV1ModeWords));
      v.require("mode", v1_mode != V1Mode::area,
                "area is not supported (OpenVINO's reference has no kernel for it)");
      v.on("align_corners", align_corners, true);
      v.on("antialias", antialias, false);
    } else {
      v.on("mode", mode, std::span(kModeWords).first(version >= 11 ? 6 : 4));
      v.on("shape_calculation_mode", calc, std::span(kCalcWords));
      v.on("coordinate_transformation_mode", coord, std::span(kCoordWords), CoordMode::half_pixel);
      v.on("nearest_mode", nearest, std::span(kNearestWords), NearestMode::round_prefer_floor);
      v.on("antialias", antialias, false);
      v.on("cube_coeff", cube_coeff, -0.75);
    }
    v.on("pads_begin", pads_begin, {});
    v.require("pads_begin", non_negative(pads_begin), "pads must not be negative");
    v.on("pads_end", pads_end, {});
    v.require("pads_end", non_negative(pads_end), "pads must not be negative");
  }
};

/// Element i of a floating-point tensor as float.
float float_at(const Tensor& t, std::size_t i) {
  float v = 0;
  dispatch_float(t.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    v = static_cast<float>(static_cast<compute_t<T>>(t.data<T>()[i]));
  });
  return v;
}

/// An extent times a scale as OpenVINO's shape inference computes it: the scale plus 1e-6 (in
/// float), times the extent in float, truncated; a scale of exactly 1 leaves it.
std::optional<std::int64_t> scaled_extent(std::int64_t n, float scale) {
  if (scale == 1.0f) return n;
  const float v = static_cast<float>(n) * (scale + 1.0e-6f);
  if (!(v >= 0.0f) || v >= 9.0e18f) return std::nullopt;
  return static_cast<std::int64_t>(v);
}

class InterpolateOp final : public Op {
 public:
  explicit InterpolateOp(const InterpolateAttributes& a) : a_(a) {}

  bool shape_needs_value(std::size_t index, std::size_t) const override { return index >= 1; }

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs,
                                       Phase phase) const override {
    const ValueInfo& data = inputs[0];
    check_ports(inputs);
    if (!data.shape.rank_is_static()) return {{data.type, PartialShape::dynamic_rank()}};
    const auto rank = static_cast<std::size_t>(data.shape.rank());
    const std::optional<std::vector<std::int64_t>> axes = known_axes(inputs, rank, phase);
    if (!axes) return {{data.type, PartialShape(std::vector<Dimension>(rank, Dimension()))}};
    check_mode_axes(*axes, rank, phase, inputs.size() > axes_port());
    std::vector<Dimension> dims;
    for (std::size_t d = 0; d < rank; ++d) dims.push_back(padded(data.shape[d], d));
    const std::vector<Dimension> in = dims;
    const ValueInfo& target = inputs[target_port()];
    const std::size_t k = axes->size();
    // The target may hold more values than there are axes; the first ones count.
    if (target.value && target.value->size() < k)
      bad_value(phase, target_port(),
                fmt::format("{} holds {} values but {} axes are resized", target_name(),
                            target.value->size(), k));
    if (!target.value && target.shape.rank_is_static() && target.shape.rank() == 1 &&
        target.shape[0].has_upper_bound() && target.shape[0].max() < static_cast<std::int64_t>(k))
      input_error(target_port(), fmt::format("{} {} has fewer values than the {} axes resized",
                                             target_name(), to_string(target.shape), k));
    for (std::size_t j = 0; j < k; ++j) {
      const auto d = static_cast<std::size_t>((*axes)[j]);
      if (uses_scales()) {
        if (!target.value) {
          dims[d] = Dimension();
          continue;
        }
        const float s = float_at(*target.value, j);
        const auto scale = [&](std::int64_t n) -> std::int64_t {
          const auto out = scaled_extent(n, s);
          if (!out)
            bad_value(phase, target_port(),
                      fmt::format("scale {} of axis {} gives no valid extent for {}",
                                  value_text(*target.value, j), d, n));
          return *out;
        };
        const Dimension& n = in[d];
        dims[d] = n.is_static()
                      ? Dimension(scale(n.value()))
                      : Dimension(scale(n.min()),
                                  n.has_upper_bound() ? scale(n.max()) : Dimension::unbounded);
      } else {
        if (target.value) {
          const std::int64_t v = integer_values(*target.value)[j];
          if (v < 0)
            bad_value(phase, target_port(),
                      fmt::format("{} {} of axis {} is negative", target_name(), v, d));
          dims[d] = Dimension(v);
        } else {
          dims[d] = known_dimension(target, j).value_or(Dimension());
        }
      }
      if (in[d].is_static() && in[d].value() == 0 && dims[d].min() > 0)
        input_error(0, fmt::format("axis {} of the data {} is empty (padded too) and cannot be "
                                   "resized to {}",
                                   d, to_string(data.shape), to_string(dims[d])));
    }
    return {{data.type, PartialShape(std::move(dims))}};
  }

  std::size_t scratch_bytes(std::span<const Tensor> inputs, std::span<const Tensor> outputs,
                            unsigned threads) const override {
    return interpolate_scratch_bytes(spec(inputs, outputs[0].shape()), inputs[0].element_type(),
                                     threads);
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    if (!is_numeric(inputs[0].element_type())) no_kernel(0, inputs[0].element_type());
    const InterpolateSpec s = spec(inputs, outputs[0].shape());
    interpolate(context.parallel, context.scratch, s, inputs[0].element_type(), inputs[0].data(),
                outputs[0].data());
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(a_);
  }

 private:
  bool uses_scales() const { return a_.version != 1 && a_.calc == ShapeCalc::scales; }
  /// The input the output's extents come from.
  std::size_t target_port() const {
    if (a_.version == 4) return uses_scales() ? 2 : 1;
    return 1;
  }
  std::string_view target_name() const {
    if (a_.version == 1) return "target_spatial_shape";
    return uses_scales() ? "scales" : "sizes";
  }
  std::size_t axes_port() const { return a_.version == 4 ? 3 : 2; }

  void check_ports(std::span<const ValueInfo> inputs) const {
    for (std::size_t i = 1; i < inputs.size(); ++i) {
      // Interpolate-4's unused input may be anything, as OpenVINO checks only the one it reads.
      if (a_.version == 4 && i != target_port() && i != axes_port()) continue;
      const PartialShape& s = inputs[i].shape;
      if (s.rank_is_static() && s.rank() != 1)
        input_error(i, fmt::format("must be 1-D, got {}", to_string(s)));
    }
    if (a_.version == 11) {
      const ElementType t = inputs[1].type;
      if (uses_scales() && !is_real(t))
        input_error(1, fmt::format("shape_calculation_mode scales needs floating-point scales, "
                                   "got {}",
                                   to_string(t)));
      if (!uses_scales() && !is_integral(t))
        input_error(1, fmt::format("shape_calculation_mode sizes needs integer sizes, got {}",
                                   to_string(t)));
    }
  }

  std::int64_t pad(const std::vector<std::int64_t>& pads, std::size_t d) const {
    return d < pads.size() ? pads[d] : 0;
  }

  Dimension padded(const Dimension& n, std::size_t d) const {
    const std::int64_t p = saturating_add(pad(a_.pads_begin, d), pad(a_.pads_end, d));
    if (n.is_static()) return saturating_add(n.value(), p);
    return Dimension(saturating_add(n.min(), p),
                     n.has_upper_bound() ? saturating_add(n.max(), p) : Dimension::unbounded);
  }

  /// The resized axes in their listed order, or nullopt when their input's value is unknown.
  std::optional<std::vector<std::int64_t>> known_axes(std::span<const ValueInfo> inputs,
                                                      std::size_t rank, Phase phase) const {
    std::vector<std::int64_t> axes;
    if (a_.version == 1) {
      // OpenVINO keeps Interpolate-1's axes as a set: sorted, each once.
      const std::set<std::uint64_t> set(a_.axes.begin(), a_.axes.end());
      for (const std::uint64_t x : set) {
        if (x >= rank)
          op_error(
              fmt::format("axes {} must be below the data's rank {}", to_string(a_.axes), rank));
        axes.push_back(static_cast<std::int64_t>(x));
      }
      return axes;
    }
    if (inputs.size() <= axes_port()) {
      axes.resize(rank);
      std::iota(axes.begin(), axes.end(), 0);
      return axes;
    }
    const ValueInfo& in = inputs[axes_port()];
    if (!in.value) return std::nullopt;
    axes = integer_values(*in.value);
    std::vector<bool> seen(rank, false);
    for (const std::int64_t x : axes) {
      if (x < 0 || static_cast<std::uint64_t>(x) >= rank)
        bad_value(phase, axes_port(),
                  fmt::format("axis {} is not in [0, {}) (the data's rank)", x, rank));
      if (seen[static_cast<std::size_t>(x)])
        bad_value(phase, axes_port(), fmt::format("axis {} is listed twice", x));
      seen[static_cast<std::size_t>(x)] = true;
    }
    return axes;
  }

  void check_mode_axes(const std::vector<std::int64_t>& axes, std::size_t rank, Phase phase,
                       bool axes_input) const {
    const bool pillow =
        a_.mode == InterpMode::bilinear_pillow || a_.mode == InterpMode::bicubic_pillow;
    if (a_.version != 1 && pillow && axes.size() != 2) {
      const std::string msg =
          fmt::format("mode {} resizes exactly two axes (height, width), got {}",
                      kModeWords[static_cast<std::size_t>(a_.mode)], axes.size());
      if (axes_input) bad_value(phase, axes_port(), msg);
      op_error(msg + fmt::format(" (the data's rank {} without an axes input)", rank));
    }
    if (a_.version == 1 && a_.v1_mode == V1Mode::linear && rank > 5)
      input_error(0, fmt::format("mode linear handles data of rank up to 5, got rank {}", rank));
  }

  /// The kernel's spec for these inputs and this output shape.
  InterpolateSpec spec(std::span<const Tensor> inputs, const Shape& out) const {
    const Shape& in = inputs[0].shape();
    const std::size_t rank = in.size();
    InterpolateSpec s;
    s.input = in;
    s.output = out;
    s.antialias = a_.antialias;
    s.cube_coeff = a_.cube_coeff;
    for (std::size_t d = 0; d < rank; ++d) {
      s.pads_begin.push_back(pad(a_.pads_begin, d));
      s.padded.push_back(in[d] +
                         static_cast<std::size_t>(pad(a_.pads_begin, d) + pad(a_.pads_end, d)));
    }
    if (a_.version == 1) {
      for (const std::uint64_t x : std::set<std::uint64_t>(a_.axes.begin(), a_.axes.end()))
        s.axes.push_back(static_cast<std::int64_t>(x));
      apply_v1(s, rank);
    } else {
      s.mode = a_.mode;
      s.coord = a_.coord;
      s.nearest = a_.nearest;
      if (inputs.size() > axes_port()) {
        s.axes = integer_values(inputs[axes_port()]);
        std::vector<bool> seen(rank, false);
        for (const std::int64_t x : s.axes) {
          if (x < 0 || static_cast<std::uint64_t>(x) >= rank || seen[static_cast<std::size_t>(x)])
            value_error(axes_port(), fmt::format("axis {} is out of [0, {}) or repeated", x, rank));
          seen[static_cast<std::size_t>(x)] = true;
        }
      } else {
        s.axes.resize(rank);
        std::iota(s.axes.begin(), s.axes.end(), 0);
      }
    }
    for (std::size_t j = 0; j < s.axes.size(); ++j) {
      const auto d = static_cast<std::size_t>(s.axes[j]);
      if (uses_scales())
        s.scales.push_back(float_at(inputs[target_port()], j));
      else
        s.scales.push_back(static_cast<float>(out[d]) / static_cast<float>(s.padded[d]));
    }
    return s;
  }

  /// Interpolate-1 as OpenVINO's reference runs it: an Interpolate-4 with nearest_mode simple,
  /// asymmetric coordinates (align_corners when asked; half_pixel for linear modes without pads
  /// unless the data is 4-D resized on axes 2 and 3), linear as linear_onnx below rank 5.
  void apply_v1(InterpolateSpec& s, std::size_t rank) const {
    switch (a_.v1_mode) {
      case V1Mode::nearest:
        s.mode = InterpMode::nearest;
        break;
      case V1Mode::linear:
        s.mode = rank < 5 ? InterpMode::linear_onnx : InterpMode::linear;
        break;
      case V1Mode::cubic:
        s.mode = InterpMode::cubic;
        break;
      default:
        s.mode = InterpMode::linear_onnx;
        break;
    }
    s.nearest = NearestMode::simple;
    s.cube_coeff = -0.75;
    s.coord = CoordMode::asymmetric;
    const bool linear = s.mode == InterpMode::linear || s.mode == InterpMode::linear_onnx;
    const bool no_pads =
        non_negative(a_.pads_begin) &&
        std::all_of(a_.pads_begin.begin(), a_.pads_begin.end(),
                    [](std::int64_t p) { return p == 0; }) &&
        std::all_of(a_.pads_end.begin(), a_.pads_end.end(), [](std::int64_t p) { return p == 0; });
    const bool spatial_2d = rank == 4 && s.axes == std::vector<std::int64_t>{2, 3};
    if (a_.align_corners)
      s.coord = CoordMode::align_corners;
    else if (linear && no_pads && !spatial_2d)
      s.coord = CoordMode::half_pixel;
  }

  InterpolateAttributes a_;
};

template <int Version>
std::unique_ptr<const Op> create(const Attributes& attributes) {
  InterpolateAttributes initial;
  initial.version = Version;
  return std::make_unique<InterpolateOp>(read_attributes(attributes, initial));
}

}  // namespace

OpDef interpolate_v1_op() {
  return {
      .type = "Interpolate",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 2,
      .max_inputs = 2,
      .num_outputs = 1,
      .create = create<1>,
      .input_types = {{"data", numeric_types()}, {"target_spatial_shape", integral_types()}},
      .output_types = {{"output", numeric_types()}},
  };
}

OpDef interpolate_v4_op() {
  return {
      .type = "Interpolate",
      .version = 4,
      .since_opset = 4,
      .min_inputs = 3,
      .max_inputs = 4,
      .num_outputs = 1,
      .create = create<4>,
      .input_types = {{"data", numeric_types()},
                      {"sizes", integral_types()},
                      {"scales", real_types()},
                      {"axes", integral_types()}},
      .output_types = {{"output", numeric_types()}},
  };
}

OpDef interpolate_v11_op() {
  return {
      .type = "Interpolate",
      .version = 11,
      .since_opset = 11,
      .min_inputs = 2,
      .max_inputs = 3,
      .num_outputs = 1,
      .create = create<11>,
      .input_types = {{"data", numeric_types()},
                      {"scales_or_sizes", numeric_types()},
                      {"axes", integral_types()}},
      .output_types = {{"output", numeric_types()}},
  };
}

}  // namespace irlite
