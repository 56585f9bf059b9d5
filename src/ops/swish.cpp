// Swish-4: x / (1 + exp(-beta * x)), beta an optional scalar second input of the data's type
// (1 when absent). Floating-point types only, as OpenVINO's shape rule requires.

#include <fmt/format.h>

#include <cmath>

#include "ops/op_list.hpp"
#include "ops/unary_op.hpp"

namespace irlite {
namespace {

template <class C>
struct SwishKernel {
  C beta;
  IRLITE_INLINE C operator()(C x) const { return x / (C(1) + std::exp(-x * beta)); }
};

class SwishOp final : public Op {
 public:
  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs, Phase) const override {
    const OutputInfo out{inputs[0].type, inputs[0].shape};
    if (inputs.size() == 2) {
      const ValueInfo& beta = inputs[1];
      if (beta.type != inputs[0].type)
        input_error(1, fmt::format("beta must have the data's type {}, got {}",
                                   to_string(inputs[0].type), to_string(beta.type)));
      if (beta.shape.rank_is_static() && beta.shape.rank() != 0)
        input_error(1, "beta must be a scalar, got " + to_string(beta.shape));
    }
    return {out};
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& data = inputs[0];
    // The shape rule checks the types and beta's rank, also at run time.
    std::vector<ValueInfo> infos;
    for (const Tensor& t : inputs)
      infos.push_back({t.element_type(), PartialShape::from_shape(t.shape()), nullptr});
    infer(infos, Phase::run);
    dispatch_numeric(data.element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (is_float_storage_v<T>) {
        using C = compute_t<T>;
        const C beta = inputs.size() == 2 ? load_value(inputs[1].data<T>()[0]) : C(1);
        unary_map(context.parallel, data.data<T>(), outputs[0].data<T>(), data.size(),
                  Lifted<T, SwishKernel<C>>{{beta}});
      }
    });
  }
};

std::unique_ptr<const Op> create_swish(const Attributes&) {
  return std::make_unique<SwishOp>();
}

}  // namespace

OpDef swish_op() {
  return {
      .type = "Swish",
      .version = 4,
      .since_opset = 4,
      .min_inputs = 1,
      .max_inputs = 2,
      .num_outputs = 1,
      .create = create_swish,
      .input_types = {{"data", real_types()}, {"beta", real_types()}},
      .output_types = {{"output", real_types()}},
  };
}

}  // namespace irlite
