// Constant-1 (IR type `Const`): a tensor stored in the weights file at [offset, offset+size).
// The loader reads the bytes through stored_value(); the executor hands the value on as is.

#include "core/attribute_visitor.hpp"
#include "ops/op_list.hpp"

namespace irlite {
namespace {

struct ConstantAttributes {
  StoredValue stored;
  void visit(AttributeVisitor& v) {
    v.on("element_type", stored.type);
    v.on("shape", stored.shape);
    v.require("shape", element_count(stored.shape).has_value(), "element count overflows");
    // Where the bytes lie in the weights file: read, not shown, as they say nothing of the
    // value.
    if (v.reading()) {
      v.on("offset", stored.offset);
      v.on("size", stored.size);
    }
  }
};

class ConstantOp final : public Op {
 public:
  explicit ConstantOp(ConstantAttributes attributes) : attributes_(std::move(attributes)) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo>, Phase) const override {
    // Built in place rather than copied out of an initializer list: every Const of a model is
    // inferred at load.
    std::vector<OutputInfo> result(1);
    result[0].type = attributes_.stored.type;
    result[0].shape = PartialShape::from_shape(attributes_.stored.shape);
    return result;
  }
  void execute(std::span<const Tensor>, std::span<Tensor>, const ExecContext&) const override {}
  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(attributes_);
  }
  const StoredValue* stored_value() const override { return &attributes_.stored; }
  // The widened Const's value is the loader's converted copy; where the bytes lie no longer
  // describes it, but the loader has read them by then.
  std::shared_ptr<const Op> retyped(ElementType from, ElementType to) const override {
    if (attributes_.stored.type != from) return nullptr;
    auto op = std::make_shared<ConstantOp>(*this);
    op->attributes_.stored.type = to;
    return op;
  }

 private:
  ConstantAttributes attributes_;
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
        return std::make_unique<ConstantOp>(read_attributes<ConstantAttributes>(a));
      },
      .input_types = {},
      .output_types = {{"output", all_types()}},
  };
}

}  // namespace irlite
