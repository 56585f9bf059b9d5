// Transpose-1: output axis i is input axis order[i]. An empty order reverses the axes.

#include <fmt/format.h>

#include "core/attributes.hpp"
#include "kernels/data_movement.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_family.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

/// The permutation `order` holds for a tensor of `rank` (reversal when it is empty), or a
/// problem when it is not one. rank < 0: unknown, the order's length sets it.
std::vector<std::int64_t> permutation(const Tensor& order, std::int64_t rank, Phase phase) {
  std::vector<std::int64_t> p = integer_values(order);
  if (p.empty() && rank >= 0) {
    for (std::int64_t i = rank; i-- > 0;) p.push_back(i);
    return p;
  }
  const auto n = static_cast<std::int64_t>(p.size());
  std::vector<bool> seen(p.size(), false);
  bool valid = rank < 0 || n == rank;
  for (const std::int64_t a : p) {
    if (a < 0 || a >= n || seen[static_cast<std::size_t>(a)]) {
      valid = false;
      break;
    }
    seen[static_cast<std::size_t>(a)] = true;
  }
  if (!valid) {
    std::string text;
    for (const std::int64_t a : p) text += (text.empty() ? "" : ",") + std::to_string(a);
    bad_value(phase, 1,
              rank < 0 ? fmt::format("order [{}] is not a permutation of [0, {})", text, n)
                       : fmt::format("order [{}] is not a permutation of the {} axes of the "
                                     "data",
                                     text, rank));
  }
  return p;
}

class TransposeOp final : public Op {
 public:
  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs,
                                       Phase phase) const override {
    const ValueInfo& data = inputs[0];
    const ValueInfo& order = inputs[1];
    if (order.shape.rank_is_static() && order.shape.rank() != 1)
      input_error(1, "order must be a 1-D tensor, got " + to_string(order.shape));
    const PartialShape& in = data.shape;
    if (in.rank_is_static() && order.shape.rank_is_static()) {
      const Dimension& n = order.shape[0];
      if (!n.contains(in.rank()) && n != Dimension(0))
        input_error(1, fmt::format("order must have shape [{}] (the data's rank) or [0], got {}",
                                   in.rank(), to_string(order.shape)));
    }
    if (order.value) {
      if (!in.rank_is_static()) {
        if (order.value->empty()) return {{data.type, PartialShape::dynamic_rank()}};
        const std::vector<std::int64_t> p = permutation(*order.value, -1, phase);
        return {{data.type, PartialShape(std::vector<Dimension>(p.size()))}};
      }
      const std::vector<std::int64_t> p = permutation(*order.value, in.rank(), phase);
      std::vector<Dimension> dims;
      for (const std::int64_t a : p) dims.push_back(in[static_cast<std::size_t>(a)]);
      return {{data.type, PartialShape(std::move(dims))}};
    }
    if (in.rank_is_static())
      return {{data.type, PartialShape(std::vector<Dimension>(in.dims().size()))}};
    if (order.shape.rank_is_static() && order.shape[0].is_static() && order.shape[0].value() > 0)
      return {{data.type, PartialShape(std::vector<Dimension>(
                              static_cast<std::size_t>(order.shape[0].value())))}};
    return {{data.type, PartialShape::dynamic_rank()}};
  }

  bool shape_needs_value(std::size_t index, std::size_t) const override { return index == 1; }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& data = inputs[0];
    const std::vector<std::int64_t> p =
        permutation(inputs[1], static_cast<std::int64_t>(data.rank()), Phase::run);
    transpose_bytes(context.parallel, data.data(), data.shape(), p,
                    element_size(data.element_type()), outputs[0].data());
  }

  std::optional<ValueBounds> infer_bounds(std::span<const ValueInfo> inputs,
                                          const OutputInfo& output) const override {
    return monotonic_bounds(*this, inputs, output);
  }
};

std::unique_ptr<const Op> create_transpose(const Attributes&) {
  return std::make_unique<TransposeOp>();
}

}  // namespace

OpDef transpose_op() {
  return {
      .type = "Transpose",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 2,
      .max_inputs = 2,
      .num_outputs = 1,
      .create = create_transpose,
      .input_types = {{"data", all_types()}, {"order", integral_types()}},
      .output_types = {{"output", all_types()}},
  };
}

}  // namespace irlite
