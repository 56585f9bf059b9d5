// Constant-1 (IR type `Const`): a tensor stored in the weights file at [offset, offset+size).
// The loader reads the bytes through stored_value(); the executor hands the value on as is.

#include "core/attributes.hpp"
#include "ops/op_list.hpp"

namespace irlite {
namespace {

class ConstantOp final : public Op {
 public:
  explicit ConstantOp(StoredValue stored) : stored_(std::move(stored)) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo>, Phase) const override {
    // Built in place rather than copied out of an initializer list: every Const of a model is
    // inferred at load.
    std::vector<OutputInfo> result(1);
    result[0].type = stored_.type;
    result[0].shape = PartialShape::from_shape(stored_.shape);
    return result;
  }
  void execute(std::span<const Tensor>, std::span<Tensor>, const ExecContext&) const override {}
  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return {{"element_type", std::string(to_string(stored_.type))},
            {"shape", to_string(stored_.shape)}};
  }
  const StoredValue* stored_value() const override { return &stored_; }

 private:
  StoredValue stored_;
};

}  // namespace

OpDef constant_op() {
  return {
      .type = "Constant",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 0,
      .max_inputs = 0,
      .num_outputs = 1,
      .kind = OpKind::constant,
      .create = [](const Attributes& a) -> std::unique_ptr<const Op> {
        StoredValue stored;
        stored.type = a.get_element_type("element_type");
        stored.shape = a.get_shape("shape");
        if (!element_count(stored.shape))
          throw Error(ErrorCode::format,
                      "attribute 'shape' = '" + a.text("shape") + "': element count overflows");
        stored.offset = a.get_uint("offset");
        stored.size = a.get_uint("size");
        return std::make_unique<ConstantOp>(std::move(stored));
      },
      .input_types = {},
      .output_types = {{"output", all_types()}},
  };
}

}  // namespace irlite
