// Result-1: marks a model output; passes its input through.

#include "ops/op_list.hpp"

namespace irlite {
namespace {

class ResultOp final : public Op {
 public:
  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo>, Phase) const override {
    return {};
  }
  void execute(std::span<const Tensor>, std::span<Tensor>, const ExecContext&) const override {}
};

}  // namespace

OpDef result_op() {
  // Result has one input and, in the IR, no output port; the executor hands its input through.
  return {
      .type = "Result",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 1,
      .max_inputs = 1,
      .num_outputs = 0,
      .kind = OpKind::result,
      .create = [](const Attributes&) -> std::unique_ptr<const Op> {
        return std::make_unique<ResultOp>();
      },
      .input_types = {{"input", all_types()}},
      .output_types = {},
  };
}

}  // namespace irlite
