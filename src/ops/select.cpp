// Select-1 (spec: condition/select-1): then where the boolean condition holds, else elsewhere,
// the three inputs broadcast together.

#include <fmt/format.h>

#include <array>

#include "core/attribute_visitor.hpp"
#include "kernels/elementwise.hpp"
#include "ops/broadcast_rules.hpp"
#include "ops/op_list.hpp"

namespace irlite {
namespace {

constexpr std::size_t kCond = 0;
constexpr std::size_t kThen = 1;
constexpr std::size_t kElse = 2;

class SelectOp final : public Op {
 public:
  explicit SelectOp(BroadcastSpec spec) : spec_(spec) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs, Phase) const override {
    const ValueInfo& cond = inputs[kCond];
    const ValueInfo& then = inputs[kThen];
    const ValueInfo& other = inputs[kElse];
    if (then.type != other.type)
      input_error(kElse, fmt::format("then and else must have one element type, got {} and {}",
                                     to_string(then.type), to_string(other.type)));
    // As OpenVINO: then is merged with else, and the result with the condition (under pdpd,
    // else and the condition are placed into then's shape).
    const std::optional<PartialShape> values = broadcast_shapes(then.shape, other.shape, spec_);
    if (!values) op_error("then and else: " + broadcast_error(then.shape, other.shape, spec_));
    const std::optional<PartialShape> result = broadcast_shapes(*values, cond.shape, spec_);
    if (!result)
      op_error("the condition and the values: " + broadcast_error(cond.shape, *values, spec_));
    return {{then.type, *result}};
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    Tensor& out = outputs[0];
    if (inputs[kCond].element_type() != ElementType::boolean)
      no_kernel(kCond, inputs[kCond].element_type());
    if (out.empty()) return;
    std::array<Shape, 3> aligned;
    for (std::size_t k = 0; k < 3; ++k)
      aligned[k] = align_shape(inputs[k].shape(), out.rank(), spec_);
    const ElementwisePlan plan = plan_elementwise(out.shape(), aligned);
    const bool known = dispatch_word(out.element_type(), [&](auto tag) {
      using U = typename decltype(tag)::type;
      select_elementwise(context.parallel, plan, inputs[kCond].data<std::uint8_t>(),
                         inputs[kThen].data<U>(), inputs[kElse].data<U>(), out.data<U>());
    });
    if (!known)
      input_error(kThen, fmt::format("unsupported element type {}", to_string(out.element_type())));
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(spec_);
  }

 private:
  BroadcastSpec spec_;
};

}  // namespace

OpDef select_op() {
  return {
      .type = "Select",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 3,
      .max_inputs = 3,
      .num_outputs = 1,
      .create = [](const Attributes& a) -> std::unique_ptr<const Op> {
        return std::make_unique<SelectOp>(read_attributes<BroadcastSpec>(a));
      },
      .input_types = {{"cond", {ElementType::boolean}},
                      {"then", all_types()},
                      {"else", all_types()}},
      .output_types = {{"output", all_types()}},
  };
}

}  // namespace irlite
