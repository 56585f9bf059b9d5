// ShapeOf-1 and ShapeOf-3: the input's shape as a 1-D integer tensor. ShapeOf-1 always gives
// i64; ShapeOf-3 gives i32 or i64 as `output_type` says. The values depend only on the input's
// shape, so load-time value propagation knows their range from the dims alone (infer_bounds).

#include <fmt/format.h>

#include <limits>

#include "core/attribute_visitor.hpp"
#include "kernels/element.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

struct ShapeOfAttributes {
  ElementType output_type = ElementType::i64;
  void visit(AttributeVisitor& v) {
    v.on("output_type", output_type, ElementType::i64);
    v.require("output_type", output_type == ElementType::i32 || output_type == ElementType::i64,
              "expected i32 or i64");
  }
};

class ShapeOfOp final : public Op {
 public:
  explicit ShapeOfOp(const ShapeOfAttributes& attributes) : attributes_(attributes) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs, Phase) const override {
    const ValueInfo& data = inputs[0];
    if (data.type == ElementType::undefined) input_error(0, "data has no element type");
    if (!data.shape.rank_is_static()) return {{attributes_.output_type, PartialShape{Dimension()}}};
    return {{attributes_.output_type, PartialShape{Dimension(data.shape.rank())}}};
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext&) const override {
    const Shape& shape = inputs[0].shape();
    // Checked before anything is written: an i32 output cannot hold an extent beyond 2^31 - 1.
    if (attributes_.output_type == ElementType::i32)
      for (std::size_t i = 0; i < shape.size(); ++i)
        if (shape[i] > std::numeric_limits<std::int32_t>::max())
          value_error(0, fmt::format("dimension {} ({}) does not fit the i32 output", i, shape[i]));
    dispatch_index(attributes_.output_type, [&](auto tag) {
      using I = typename decltype(tag)::type;
      I* out = outputs[0].data<I>();
      for (std::size_t i = 0; i < shape.size(); ++i) out[i] = static_cast<I>(shape[i]);
    });
  }

  // Each element is its dimension: exact for a static one, the interval for a bounded one, and
  // [0, type max] (unbounded) for a dynamic one.
  std::optional<ValueBounds> infer_bounds(std::span<const ValueInfo> inputs,
                                          const OutputInfo& output) const override {
    const PartialShape& shape = inputs[0].shape;
    if (!shape.rank_is_static() || output.type != attributes_.output_type) return std::nullopt;
    const auto rank = static_cast<std::int64_t>(shape.dims().size());
    ValueBounds bounds{Tensor(attributes_.output_type, {rank}),
                       Tensor(attributes_.output_type, {rank})};
    const std::int64_t type_max = integer_type_max(attributes_.output_type);
    dispatch_index(attributes_.output_type, [&](auto tag) {
      using I = typename decltype(tag)::type;
      I* lo = bounds.lower.data<I>();
      I* hi = bounds.upper.data<I>();
      for (std::size_t i = 0; i < shape.dims().size(); ++i) {
        const Dimension& d = shape[i];
        lo[i] = static_cast<I>(std::min(d.min(), type_max));
        hi[i] = static_cast<I>(d.has_upper_bound() ? std::min(d.max(), type_max) : type_max);
      }
    });
    return bounds;
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(attributes_);
  }

 private:
  ShapeOfAttributes attributes_;
};

// ShapeOf-1 has no attributes: its output is i64, shown as ShapeOf-3 shows its own.
std::unique_ptr<const Op> create_shape_of_v1(const Attributes&) {
  return std::make_unique<ShapeOfOp>(ShapeOfAttributes{});
}

std::unique_ptr<const Op> create_shape_of_v3(const Attributes& a) {
  return std::make_unique<ShapeOfOp>(read_attributes<ShapeOfAttributes>(a));
}

}  // namespace

OpDef shape_of_v1_op() {
  return {
      .type = "ShapeOf",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 1,
      .max_inputs = 1,
      .num_outputs = 1,
      .create = create_shape_of_v1,
      .input_types = {{"data", all_types()}},
      .output_types = {{"output", {ElementType::i64}}},
  };
}

OpDef shape_of_v3_op() {
  return {
      .type = "ShapeOf",
      .version = 3,
      .since_opset = 3,
      .min_inputs = 1,
      .max_inputs = 1,
      .num_outputs = 1,
      .create = create_shape_of_v3,
      .input_types = {{"data", all_types()}},
      .output_types = {{"output", index_types()}},
  };
}

}  // namespace irlite
