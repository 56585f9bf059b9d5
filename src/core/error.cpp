#include "irlite/error.hpp"

#include <string_view>

#include "core/text.hpp"

namespace irlite {

std::string_view to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::io: return "io";
    case ErrorCode::xml: return "xml";
    case ErrorCode::format: return "format";
    case ErrorCode::unsupported: return "unsupported";
    case ErrorCode::graph: return "graph";
    case ErrorCode::weights: return "weights";
    case ErrorCode::shape: return "shape";
    case ErrorCode::value: return "value";
    case ErrorCode::input: return "input";
    case ErrorCode::usage: return "usage";
  }
  return "unknown";
}

std::string format_error(const ErrorContext& c, const std::string& message) {
  std::string s;
  if (!c.file.empty()) {
    s += c.file;
    if (c.line) {
      s += ':' + std::to_string(*c.line);
      if (c.column) s += ':' + std::to_string(*c.column);
    }
    s += ": ";
  }
  std::string where;
  if (c.layer_id) {
    where = "layer " + std::to_string(*c.layer_id);
    if (!c.layer_name.empty()) where += " '" + c.layer_name + "'";
    if (!c.layer_type.empty()) where += " (" + c.layer_type + ")";
  }
  if (c.port_kind != ErrorContext::PortKind::none) {
    if (!where.empty()) where += ", ";
    where += c.port_kind == ErrorContext::PortKind::input ? "input port " : "output port ";
    where += std::to_string(c.port);
  }
  if (!where.empty()) s += where + ": ";
  // Names and paths come from files: a control character in them must not reach a terminal
  // raw, where it could rewrite or hide what was printed before.
  return escape_nonprintable(s + message);
}

Error::Error(ErrorCode code, std::string message, ErrorContext context)
    : std::runtime_error(format_error(context, message)),
      code_(code),
      message_(std::move(message)),
      context_(std::move(context)) {}

}  // namespace irlite
