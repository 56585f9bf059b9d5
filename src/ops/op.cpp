#include "ops/op.hpp"

namespace irlite {

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

}  // namespace irlite
