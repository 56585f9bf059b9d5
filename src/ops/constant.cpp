#include "ops/constant.hpp"

#include "loader/attributes.hpp"
#include "ops/all_ops.hpp"

namespace irlite {

std::vector<OutputInfo> ConstantOp::infer(std::span<const ValueInfo>, Phase) const {
  return {{type_, PartialShape::from_shape(shape_)}};
}

std::vector<std::pair<std::string, std::string>> ConstantOp::attributes() const {
  return {{"element_type", std::string(to_string(type_))}, {"shape", to_string(shape_)}};
}

OpDef constant_op() {
  return {"Constant", 1, 1, 0, 0, 1, OpKind::constant,
          [](const Attributes& a) -> std::unique_ptr<const Op> {
            const ElementType type = a.get_element_type("element_type");
            Shape shape = a.get_shape("shape");
            if (!element_count(shape))
              throw Error(ErrorCode::format,
                          "attribute 'shape' = '" + a.text("shape") + "': element count overflows");
            return std::make_unique<ConstantOp>(type, std::move(shape), a.get_uint("offset"),
                                                a.get_uint("size"));
          },
          {},
          {{"output", all_types()}}};
}

}  // namespace irlite
