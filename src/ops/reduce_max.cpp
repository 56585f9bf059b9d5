// ReduceMax-1: the maximum of the data over the axes given by the second input.

#include "kernels/reduce_max.hpp"

#include <fmt/format.h>

#include "core/attributes.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

/// The axes normalised into [0, rank). Out-of-range axes are a shape error when found while
/// loading (OpenVINO rejects a Const axes the same way) and a value error at run time.
std::vector<std::int64_t> normalized_axes(const Tensor& axes, std::int64_t rank, bool run_time) {
  std::vector<std::int64_t> result = integer_values(axes);
  for (std::int64_t& a : result) {
    const auto n = normalize_axis(a, rank);
    if (!n) {
      std::string message = axis_range_message(a, rank);
      if (run_time) value_error(1, std::move(message));
      input_error(1, std::move(message));
    }
    a = *n;
  }
  return result;
}

class ReduceMaxOp final : public Op {
 public:
  explicit ReduceMaxOp(bool keep_dims) : keep_dims_(keep_dims) {}

  std::vector<OutputInfo> infer(std::span<const ValueInfo> inputs, Phase phase) const override {
    const ValueInfo& data = inputs[0];
    const ValueInfo& axes = inputs[1];
    if (!is_numeric(data.type))
      input_error(0, fmt::format("data must be numeric, got {}", to_string(data.type)));
    // The spec lists i32/i64; OpenVINO accepts any integer type, and so does irlite.
    if (!is_integral(axes.type))
      input_error(1, fmt::format("axes must be an integer tensor, got {}", to_string(axes.type)));
    if (axes.shape.rank_is_static() && axes.shape.rank() > 1)
      input_error(1, "axes must be a scalar or 1-D, got " + to_string(axes.shape));

    const PartialShape& in = data.shape;
    if (in.rank_is_static() && axes.value) {
      const std::int64_t rank = in.rank();
      std::vector<bool> reduced(static_cast<std::size_t>(rank), false);
      // Duplicate axes are accepted (the spec forbids them, OpenVINO does not): one reduction.
      const bool run_time = phase == Phase::run || data.value != nullptr;
      for (const std::int64_t a : normalized_axes(*axes.value, rank, run_time))
        reduced[static_cast<std::size_t>(a)] = true;
      std::vector<Dimension> dims;
      for (std::size_t i = 0; i < reduced.size(); ++i) {
        if (!reduced[i])
          dims.push_back(in[i]);
        else if (keep_dims_)
          dims.emplace_back(1);
      }
      return {{data.type, PartialShape(std::move(dims))}};
    }
    // Axes unknown (or data rank unknown): OpenVINO's rule (reduce_shape_inference.hpp).
    if (keep_dims_) {
      if (!in.rank_is_static()) return {{data.type, PartialShape::dynamic_rank()}};
      return {{data.type, PartialShape(std::vector<Dimension>(in.dims().size()))}};
    }
    if (in.rank_is_static() && axes.shape.is_static() &&
        element_count(axes.shape.to_shape()) == 1) {
      if (in.rank() == 0)
        input_error(1, "axes holds one axis but data is a scalar, which has no axis to reduce");
      return {{data.type, PartialShape(std::vector<Dimension>(in.dims().size() - 1))}};
    }
    return {{data.type, PartialShape::dynamic_rank()}};
  }

  bool shape_needs_value(std::size_t index, std::size_t) const override { return index == 1; }

  std::size_t scratch_bytes(std::span<const Tensor>, std::span<const Tensor> outputs,
                            unsigned threads) const override {
    std::size_t bytes = 0;
    dispatch_numeric(outputs[0].element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      bytes = reduce_max_scratch<T>(outputs[0].size(), threads);
    });
    return bytes;
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& data = inputs[0];
    const auto rank = static_cast<std::int64_t>(data.rank());
    const std::vector<std::int64_t> axes = normalized_axes(inputs[1], rank, true);
    const ReduceMaxPlan plan = plan_reduce_max(data.shape(), axes);
    Tensor& out = outputs[0];
    if (!dispatch_numeric(data.element_type(), [&](auto tag) {
          using T = typename decltype(tag)::type;
          reduce_max(context.parallel, data.data<T>(), plan, out.data<T>());
        }))
      input_error(0, fmt::format("data must be numeric, got {}", to_string(data.element_type())));
  }

  // The maximum grows with every element, so bounds carry through (a k taken as the largest of
  // several ShapeOf extents stays bounded).
  std::optional<ValueBounds> infer_bounds(std::span<const ValueInfo> inputs,
                                          const OutputInfo& output) const override {
    return monotonic_bounds(*this, inputs, output);
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return {{"keep_dims", keep_dims_ ? "true" : "false"}};
  }

 private:
  bool keep_dims_;
};

std::unique_ptr<const Op> create_reduce_max(const Attributes& a) {
  return std::make_unique<ReduceMaxOp>(a.get_bool("keep_dims", false));
}

}  // namespace

OpDef reduce_max_op() {
  return {"ReduceMax", 1, 1, 2, 2, 1, OpKind::compute, create_reduce_max,
          {{"data", numeric_types()}, {"axes", integral_types()}},
          {{"output", numeric_types()}}};
}

}  // namespace irlite
