#include "ops/parameter.hpp"

#include "core/attribute_visitor.hpp"
#include "ops/op_list.hpp"

namespace irlite {

void ParameterAttributes::visit(AttributeVisitor& v) {
  v.on("element_type", element_type);
  if (!is_numeric(element_type) && element_type != ElementType::boolean)
    throw Error(ErrorCode::format, "attribute 'element_type': unsupported type");
  v.on("shape", shape);
}

std::vector<OutputInfo> ParameterOp::infer_shapes(std::span<const ValueInfo>, Phase) const {
  return {{attributes_.element_type, attributes_.shape}};
}

std::vector<std::pair<std::string, std::string>> ParameterOp::attributes() const {
  return print_attributes(attributes_);
}

OpDef parameter_op() {
  return {
      .type = "Parameter",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 0,
      .max_inputs = 0,
      .num_outputs = 1,
      .kind = OpKind::parameter,
      .create = [](const Attributes& a) -> std::unique_ptr<const Op> {
        ParameterAttributes attributes = read_attributes<ParameterAttributes>(a);
        return std::make_unique<ParameterOp>(attributes.element_type, std::move(attributes.shape));
      },
      .input_types = {},
      .output_types = {{"output", all_types()}},
  };
}

}  // namespace irlite
