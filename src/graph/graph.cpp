#include "graph/graph.hpp"

namespace irlite {

ErrorContext Graph::context(const Node& node) const {
  ErrorContext c;
  c.file = file;
  if (node.location.line) {
    c.line = node.location.line;
    c.column = node.location.column;
  }
  c.layer_id = node.id;
  c.layer_name = node.name;
  c.layer_type = node.def ? op_display_name(*node.def) : node.type();
  return c;
}

Error Graph::locate(const Error& error, const Node& node) const {
  ErrorContext c = context(node);
  const ErrorContext& from = error.context();
  c.port_kind = from.port_kind;
  c.port = from.port;
  // Ops report input/output positions; users read the IR's port ids.
  if (from.port_kind == ErrorContext::PortKind::input && from.port >= 0 &&
      static_cast<std::size_t>(from.port) < node.inputs.size())
    c.port = node.inputs[static_cast<std::size_t>(from.port)].id;
  if (from.port_kind == ErrorContext::PortKind::output && from.port >= 0 &&
      static_cast<std::size_t>(from.port) < node.outputs.size())
    c.port = node.outputs[static_cast<std::size_t>(from.port)].id;
  return Error(error.code(), error.message(), std::move(c));
}

}  // namespace irlite
