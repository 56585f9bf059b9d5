// Result-1: marks a model output; passes its input through.

#include "ops/op_list.hpp"

namespace irlite {
namespace {

class ResultOp final : public Op {
 public:
  std::vector<OutputInfo> infer(std::span<const ValueInfo>, Phase) const override { return {}; }
  void execute(std::span<const Tensor>, std::span<Tensor>, const ExecContext&) const override {}
};

}  // namespace

OpDef result_op() {
  // Result has one input and, in the IR, no output port; the executor hands its input through.
  return {"Result", 1, 1, 1, 1, 0, OpKind::result,
          [](const Attributes&) -> std::unique_ptr<const Op> {
            return std::make_unique<ResultOp>();
          },
          {{"input", all_types()}},
          {}};
}

}  // namespace irlite
