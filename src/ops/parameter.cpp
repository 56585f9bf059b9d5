#include "ops/parameter.hpp"

#include "core/attributes.hpp"
#include "ops/op_list.hpp"

namespace irlite {

std::vector<OutputInfo> ParameterOp::infer_shapes(std::span<const ValueInfo>, Phase) const {
  return {{type_, shape_}};
}

std::vector<std::pair<std::string, std::string>> ParameterOp::attributes() const {
  return {{"element_type", std::string(to_string(type_))}, {"shape", to_string(shape_)}};
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
        const ElementType type = a.get_element_type("element_type");
        if (!is_numeric(type) && type != ElementType::boolean)
          throw Error(ErrorCode::format, "attribute 'element_type': unsupported type");
        return std::make_unique<ParameterOp>(type, a.get_partial_shape("shape"));
      },
      .input_types = {},
      .output_types = {{"output", all_types()}},
  };
}

}  // namespace irlite
