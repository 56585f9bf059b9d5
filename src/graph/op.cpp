#include "graph/op.hpp"

#include <string>

namespace irlite {

std::string op_display_name(const OpDef& def) {
  return std::string(def.type) + "-" + std::to_string(def.version);
}

void op_error(std::string message) { throw Error(ErrorCode::shape, std::move(message)); }

namespace {
[[noreturn]] void port_error(ErrorCode code, std::size_t index, std::string message) {
  ErrorContext c;
  c.port_kind = ErrorContext::PortKind::input;
  c.port = static_cast<std::int64_t>(index);
  throw Error(code, std::move(message), std::move(c));
}
}  // namespace

void input_error(std::size_t index, std::string message) {
  port_error(ErrorCode::shape, index, std::move(message));
}

void value_error(std::size_t index, std::string message) {
  port_error(ErrorCode::value, index, std::move(message));
}

std::vector<ElementType> numeric_types() {
  using enum ElementType;
  return {f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64};
}

std::vector<ElementType> integral_types() {
  using enum ElementType;
  return {i8, i16, i32, i64, u8, u16, u32, u64};
}

std::vector<ElementType> index_types() { return {ElementType::i32, ElementType::i64}; }

std::vector<ElementType> all_types() {
  std::vector<ElementType> types = numeric_types();
  types.push_back(ElementType::boolean);
  return types;
}

}  // namespace irlite
