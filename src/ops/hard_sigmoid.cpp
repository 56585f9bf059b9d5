// HardSigmoid-1: max(0, min(1, alpha * x + beta)), alpha and beta scalar inputs of the data's
// type, as OpenVINO's shape rule requires. Floating-point types only; the 16-bit ones computed in
// float and rounded once. The function is in kernels/unary_functions.hpp.

#include <fmt/format.h>

#include "kernels/unary_functions.hpp"
#include "ops/op_list.hpp"
#include "ops/unary_op.hpp"

namespace irlite {
namespace {

constexpr const char* kScalarNames[] = {"data", "alpha", "beta"};

class HardSigmoidOp final : public Op {
 public:
  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs, Phase) const override {
    const ValueInfo& data = inputs[0];
    for (std::size_t i = 1; i < inputs.size(); ++i) {
      if (inputs[i].type != data.type)
        input_error(i, fmt::format("{} must have the data's type {}, got {}", kScalarNames[i],
                                   to_string(data.type), to_string(inputs[i].type)));
      if (inputs[i].shape.rank_is_static() && inputs[i].shape.rank() != 0)
        input_error(i, fmt::format("{} must be a scalar, got {}", kScalarNames[i],
                                   to_string(inputs[i].shape)));
    }
    return {{data.type, data.shape}};
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& data = inputs[0];
    const bool ok = dispatch_float(data.element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = compute_t<T>;
      const C alpha = load_value(inputs[1].data<T>()[0]);
      const C beta = load_value(inputs[2].data<T>()[0]);
      unary_map(context.parallel, data.data<T>(), outputs[0].data<T>(), data.size(),
                Lifted<T, unary_fn::HardSigmoidKernel<C>>{{alpha, beta}});
    });
    if (!ok) no_kernel(0, data.element_type());
  }
};

}  // namespace

OpDef hard_sigmoid_op() {
  return {
      .type = "HardSigmoid",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 3,
      .max_inputs = 3,
      .num_outputs = 1,
      .create = [](const Attributes&) -> std::unique_ptr<const Op> {
        return std::make_unique<HardSigmoidOp>();
      },
      .input_types = {{"data", real_types()}, {"alpha", real_types()}, {"beta", real_types()}},
      .output_types = {{"output", real_types()}},
  };
}

}  // namespace irlite
