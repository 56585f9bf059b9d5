#include "graph/graph.hpp"

#include <new>
#include <vector>

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

void prepare_layers(Graph& graph) {
  std::vector<ValueInfo> infos;
  for (Node& node : graph.nodes) {
    node.prepared = nullptr;
    if (node.kind() != OpKind::compute || !node.op || node.failed || !node.reaches_result) continue;
    infos.clear();
    bool any_const = false;
    for (const InputPort& in : node.inputs) {
      if (in.source_node == SIZE_MAX) break;
      const Node& src = graph.nodes[in.source_node];
      const OutputPort& port = src.outputs[in.source_output];
      const bool known = src.kind() == OpKind::constant && src.has_value;
      infos.push_back({port.type, port.shape, known ? &src.value : nullptr});
      any_const = any_const || known;
    }
    if (!any_const || infos.size() != node.inputs.size()) continue;
    try {
      node.prepared = node.op->prepare(infos);
    } catch (const Error& e) {
      throw graph.locate(e, node);
    } catch (const std::bad_alloc&) {
      throw graph.locate(Error(ErrorCode::io,
                               "out of memory while preparing the layer's Const "
                               "inputs"),
                         node);
    }
  }
}

}  // namespace irlite
