// Gather-1, Gather-7, Gather-8: slices of the data picked along an axis by an index tensor.
// One implementation: Gather-1 has no batch_dims (always 0), Gather-7 and Gather-8 take it as an
// attribute. All three wrap negative indices and give zeros for indices out of range, as
// OpenVINO's reference kernel (shared by the three versions) does; the specification of
// Gather-1/7 only allows [0, axis), so the wrapping there is the reference's choice, kept so
// that a model gives the same numbers whichever version it names.

#include "kernels/gather.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "core/attribute_visitor.hpp"
#include "kernels/indexing.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

struct GatherAttributes {
  int version = 8;  // not an attribute: Gather-1 has none
  std::int64_t batch_dims = 0;
  void visit(AttributeVisitor& v) {
    if (version != 1) v.on("batch_dims", batch_dims, 0);
  }
};

class GatherOp final : public Op {
 public:
  explicit GatherOp(const GatherAttributes& attributes) : attributes_(attributes) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs,
                                       Phase phase) const override {
    const ValueInfo& data = inputs[0];
    const ValueInfo& indices = inputs[1];
    const ValueInfo& axis = inputs[2];
    if (axis.shape.is_static() && axis.shape.rank() > 0 &&
        !(axis.shape.rank() == 1 && axis.shape[0].value() == 1))
      input_error(2, "axis must be a scalar or hold one element, got " + to_string(axis.shape));
    if (data.shape.rank_is_static() && data.shape.rank() == 0)
      input_error(0, "data must have rank 1 or more, got a scalar");

    std::int64_t batch_dims = attributes_.batch_dims;
    if (indices.shape.rank_is_static()) batch_dims = normalized_batch_dims(indices.shape.rank());

    std::optional<std::int64_t> axis_value;
    if (axis.value) {
      if (axis.value->size() != 1)
        input_error(2, fmt::format("axis must hold one element, got {}", axis.value->size()));
      axis_value = integer_at(*axis.value, 0);
      if (data.shape.rank_is_static()) {
        const std::int64_t rank = data.shape.rank();
        const auto normalized = normalize_axis(*axis_value, rank);
        if (!normalized) {
          std::string message = axis_range_message(*axis_value, rank);
          bad_value(phase, 2, std::move(message));
        }
        axis_value = *normalized;
      }
      // Both may be negative still when the ranks are unknown: checked once they are known.
      if (batch_dims >= 0 && *axis_value >= 0 && batch_dims > *axis_value) {
        std::string message =
            fmt::format("batch_dims ({}) must not exceed the axis ({})", batch_dims, *axis_value);
        bad_value(phase, 2, std::move(message));
      }
    }

    if (!data.shape.rank_is_static() || !indices.shape.rank_is_static())
      return {{data.type, PartialShape::dynamic_rank()}};

    const std::int64_t data_rank = data.shape.rank();
    const std::int64_t indices_rank = indices.shape.rank();
    if (batch_dims > data_rank)
      op_error(fmt::format("batch_dims ({}) exceeds the data rank ({})", batch_dims, data_rank));
    std::vector<Dimension> out;
    out.reserve(static_cast<std::size_t>(data_rank + indices_rank - 1 - batch_dims));
    for (std::int64_t i = 0; i < batch_dims; ++i) {
      const Dimension& d = data.shape[static_cast<std::size_t>(i)];
      const Dimension& n = indices.shape[static_cast<std::size_t>(i)];
      if (!d.compatible(n))
        op_error(fmt::format(
            "data {} and indices {} must have the same first {} dimensions (batch_dims), but "
            "dimension {} differs",
            to_string(data.shape), to_string(indices.shape), batch_dims, i));
      out.push_back(*intersect(d, n));
    }
    if (!axis_value) {
      // OpenVINO's rule: the rank is known, the dimensions after the batch ones are not.
      out.resize(static_cast<std::size_t>(data_rank + indices_rank - 1 - batch_dims));
      return {{data.type, PartialShape(std::move(out))}};
    }
    const std::int64_t a = *axis_value;
    for (std::int64_t i = batch_dims; i < a; ++i)
      out.push_back(data.shape[static_cast<std::size_t>(i)]);
    for (std::int64_t i = batch_dims; i < indices_rank; ++i)
      out.push_back(indices.shape[static_cast<std::size_t>(i)]);
    for (std::int64_t i = a + 1; i < data_rank; ++i)
      out.push_back(data.shape[static_cast<std::size_t>(i)]);
    return {{data.type, PartialShape(std::move(out))}};
  }

  // Only the axis decides the output shape; the indices' values only pick rows.
  bool shape_needs_value(std::size_t index, std::size_t) const override { return index == 2; }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& data = inputs[0];
    const Tensor& indices = inputs[1];
    const Shape& shape = data.shape();
    const auto data_rank = static_cast<std::int64_t>(shape.size());
    const auto axis = normalize_axis(integer_at(inputs[2], 0), data_rank);
    if (!axis) value_error(2, axis_range_message(integer_at(inputs[2], 0), data_rank));
    const std::int64_t batch_dims =
        normalized_batch_dims(static_cast<std::int64_t>(indices.rank()));
    Tensor& out = outputs[0];
    // Nothing to write; and the extents of an empty tensor may not multiply out within int64.
    if (out.empty()) return;
    GatherPlan plan;
    for (std::int64_t i = 0; i < data_rank; ++i) {
      const std::int64_t d = shape[static_cast<std::size_t>(i)];
      if (i < batch_dims)
        plan.batch *= d;
      else if (i < *axis)
        plan.outer *= d;
      else if (i > *axis)
        plan.inner *= d;
    }
    plan.axis_size = shape[static_cast<std::size_t>(*axis)];
    plan.count = static_cast<std::int64_t>(indices.size()) / plan.batch;
    const bool ok = dispatch_word(data.element_type(), [&](auto word_tag) {
      using W = typename decltype(word_tag)::type;
      dispatch_integral(indices.element_type(), [&](auto index_tag) {
        using I = typename decltype(index_tag)::type;
        gather(context.parallel, data.data<W>(), indices.data<I>(), out.data<W>(), plan);
      });
    });
    if (!ok) input_error(0, "data has no element type");
  }

  // The output's values are the data's, picked by the indices: with the indices and axis known,
  // each output element's bounds are those of the element it takes (an index out of range
  // takes 0 for both).
  std::optional<ValueBounds> infer_bounds(std::span<const ValueInfo> inputs,
                                          const OutputInfo& output) const override {
    if (!inputs[1].value || !inputs[2].value) return std::nullopt;
    return monotonic_bounds(*this, inputs, output);
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(attributes_);
  }

 private:
  /// batch_dims with a negative value counted from the indices' rank; an error outside
  /// [0, indices_rank].
  std::int64_t normalized_batch_dims(std::int64_t indices_rank) const {
    const std::int64_t b =
        attributes_.batch_dims < 0 ? attributes_.batch_dims + indices_rank : attributes_.batch_dims;
    if (b < 0 || b > indices_rank)
      op_error(fmt::format("batch_dims ({}) is out of the range [{}, {}] of the indices' rank",
                           attributes_.batch_dims, -indices_rank, indices_rank));
    return b;
  }

  GatherAttributes attributes_;
};

template <int Version>
std::unique_ptr<const Op> create_gather(const Attributes& a) {
  return std::make_unique<GatherOp>(read_attributes(a, GatherAttributes{.version = Version}));
}

OpDef gather_def(int version) {
  std::function<std::unique_ptr<const Op>(const Attributes&)> create =
      version == 1   ? create_gather<1>
      : version == 7 ? create_gather<7>
                     : create_gather<8>;
  return {
      .type = "Gather",
      .version = version,
      .since_opset = version,
      .min_inputs = 3,
      .max_inputs = 3,
      .num_outputs = 1,
      .create = std::move(create),
      .input_types = {{"data", all_types()},
                      {"indices", integral_types()},
                      {"axis", integral_types()}},
      .output_types = {{"output", all_types()}},
  };
}

}  // namespace

OpDef gather_v1_op() {
  return gather_def(1);
}
OpDef gather_v7_op() {
  return gather_def(7);
}
OpDef gather_v8_op() {
  return gather_def(8);
}

}  // namespace irlite
