// Unsqueeze-1: the data with dimensions of extent 1 inserted where the axes input says (axes
// count in the output's rank). The elements keep their order: the kernel is a copy.

#include <fmt/format.h>

#include <set>

#include "core/attributes.hpp"
#include "kernels/data_movement.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_family.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

class UnsqueezeOp final : public Op {
 public:
  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs,
                                       Phase phase) const override {
    const ValueInfo& data = inputs[0];
    const ValueInfo& axes = inputs[1];
    if (axes.shape.rank_is_static() && axes.shape.rank() > 1)
      input_error(1, "axes must be a scalar or 1-D, got " + to_string(axes.shape));
    const PartialShape& in = data.shape;
    if (!in.rank_is_static()) return {{data.type, PartialShape::dynamic_rank()}};
    if (!axes.value) {
      // One unknown axis: one dimension more, where is unknown.
      if (axes.shape.is_static() && element_count(axes.shape.to_shape()) == 1)
        return {{data.type, PartialShape(std::vector<Dimension>(in.dims().size() + 1))}};
      return {{data.type, PartialShape::dynamic_rank()}};
    }
    return {{data.type, PartialShape(expanded(in, *axes.value, phase))}};
  }

  bool shape_needs_value(std::size_t index, std::size_t) const override { return index == 1; }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    parallel_copy(context.parallel, outputs[0].data(), inputs[0].data(), inputs[0].byte_size());
  }

  std::optional<ValueBounds> infer_bounds(std::span<const ValueInfo> inputs,
                                          const OutputInfo& output) const override {
    return monotonic_bounds(*this, inputs, output);
  }

 private:
  // OpenVINO's rule: the output rank is the input's plus the number of distinct axis values;
  // axes are normalised against it and, once normalised, count once (so [4, -1] on a rank-3
  // input adds one dimension, at the end).
  static std::vector<Dimension> expanded(const PartialShape& in, const Tensor& axes, Phase phase) {
    const std::vector<std::int64_t> values = integer_values(axes);
    if (values.empty()) bad_value(phase, 1, "axes must name at least one axis, got none");
    const std::set<std::int64_t> distinct(values.begin(), values.end());
    const auto out_rank = static_cast<std::int64_t>(in.dims().size() + distinct.size());
    std::set<std::int64_t> positions;
    for (const std::int64_t a : distinct) {
      const std::optional<std::int64_t> axis = normalize_axis(a, out_rank);
      if (!axis) bad_value(phase, 1, axis_range_message(a, out_rank));
      positions.insert(*axis);
    }
    std::vector<Dimension> dims = in.dims();
    for (const std::int64_t p : positions) {
      if (static_cast<std::size_t>(p) <= dims.size())
        dims.insert(dims.begin() + p, Dimension(1));
      else
        dims.emplace_back(1);
    }
    return dims;
  }
};

std::unique_ptr<const Op> create_unsqueeze(const Attributes&) {
  return std::make_unique<UnsqueezeOp>();
}

}  // namespace

OpDef unsqueeze_op() {
  return {
      .type = "Unsqueeze",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 2,
      .max_inputs = 2,
      .num_outputs = 1,
      .create = create_unsqueeze,
      .input_types = {{"data", all_types()}, {"axes", integral_types()}},
      .output_types = {{"output", all_types()}},
  };
}

}  // namespace irlite
