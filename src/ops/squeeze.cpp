// Squeeze-1: the data without the dimensions of extent 1 that the optional axes input names, or
// without every dimension of extent 1 when there is no axes input (or it is empty). The elements
// keep their order: the kernel is a copy.

#include <fmt/format.h>

#include <set>

#include "core/attributes.hpp"
#include "kernels/data_movement.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_family.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

class SqueezeOp final : public Op {
 public:
  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs,
                                       Phase phase) const override {
    const ValueInfo& data = inputs[0];
    const ValueInfo* axes = inputs.size() > 1 ? &inputs[1] : nullptr;
    if (data.type == ElementType::undefined) input_error(0, "data has no element type");
    if (axes) {
      if (axes->shape.rank_is_static() && axes->shape.rank() > 1)
        input_error(1, "axes must be a scalar or 1-D, got " + to_string(axes->shape));
    }
    const PartialShape& in = data.shape;
    if (!in.rank_is_static()) return {{data.type, PartialShape::dynamic_rank()}};

    if (!axes || (axes->value && axes->value->empty())) {
      // Every extent 1 goes; a dynamic dimension that may be 1 leaves the rank unknown.
      std::vector<Dimension> dims;
      for (const Dimension& d : in.dims()) {
        if (!d.is_static() && d.contains(1)) return {{data.type, PartialShape::dynamic_rank()}};
        if (!d.contains(1)) dims.push_back(d);
      }
      return {{data.type, PartialShape(std::move(dims))}};
    }
    if (!axes->value) {
      // One unknown axis: one dimension fewer when some dimension may be 1 (OpenVINO's rule).
      if (in.rank() > 0 && axes->shape.is_static() && element_count(axes->shape.to_shape()) == 1) {
        for (const Dimension& d : in.dims())
          if (d.contains(1))
            return {{data.type, PartialShape(std::vector<Dimension>(in.dims().size() - 1))}};
        return {{data.type, in}};
      }
      return {{data.type, PartialShape::dynamic_rank()}};
    }
    const std::vector<bool> removed = removed_axes(in, *axes->value, phase);
    std::vector<Dimension> dims;
    for (std::size_t i = 0; i < removed.size(); ++i)
      if (!removed[i]) dims.push_back(in[i]);
    return {{data.type, PartialShape(std::move(dims))}};
  }

  bool shape_needs_value(std::size_t index, std::size_t) const override { return index == 1; }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    if (inputs.size() > 1)
      removed_axes(PartialShape::from_shape(inputs[0].shape()), inputs[1], Phase::run);
    parallel_copy(context.parallel, outputs[0].data(), inputs[0].data(), inputs[0].byte_size());
  }

  std::optional<ValueBounds> infer_bounds(std::span<const ValueInfo> inputs,
                                          const OutputInfo& output) const override {
    return monotonic_bounds(*this, inputs, output);
  }

 private:
  /// Which dimensions the axes remove; duplicates count once. An axis out of range, or one
  /// naming a dimension that cannot be 1, is refused: OpenVINO's rule before its 2024.3 release
  /// (later releases keep such a dimension silently), so that a model whose shapes went wrong
  /// upstream fails where it went wrong.
  static std::vector<bool> removed_axes(const PartialShape& in, const Tensor& axes, Phase phase) {
    const std::int64_t rank = in.rank();
    std::vector<bool> removed(static_cast<std::size_t>(rank), false);
    for (const std::int64_t a : integer_values(axes)) {
      const std::optional<std::int64_t> axis = normalize_axis(a, rank);
      if (!axis) bad_value(phase, 1, axis_range_message(a, rank));
      const Dimension& d = in[static_cast<std::size_t>(*axis)];
      if (!d.contains(1))
        bad_value(phase, 1,
                  fmt::format("axis {} names dimension {} of extent {} in {}: only a "
                              "dimension of extent 1 can be squeezed",
                              a, *axis, to_string(d), to_string(in)));
      removed[static_cast<std::size_t>(*axis)] = true;
    }
    return removed;
  }
};

std::unique_ptr<const Op> create_squeeze(const Attributes&) {
  return std::make_unique<SqueezeOp>();
}

}  // namespace

OpDef squeeze_op() {
  return {
      .type = "Squeeze",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 1,
      .max_inputs = 2,
      .num_outputs = 1,
      .create = create_squeeze,
      .input_types = {{"data", all_types()}, {"axes", integral_types()}},
      .output_types = {{"output", all_types()}},
  };
}

}  // namespace irlite
