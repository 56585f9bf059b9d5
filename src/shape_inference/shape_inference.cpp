#include "shape_inference/shape_inference.hpp"

#include <fmt/format.h>

namespace irlite {
namespace {

PartialShape declared_shape(const OutputPort& port) {
  std::vector<Dimension> dims;
  for (std::int64_t d : port.declared_dims) dims.push_back(d < 0 ? Dimension() : Dimension(d));
  return PartialShape(std::move(dims));
}

}  // namespace

// OpenVINO writes -1 for every non-static dimension and no <dim> for dynamic rank, so only a
// static declared extent that the inferred dimension cannot take is a contradiction.
bool declared_contradicts(const OutputPort& port) {
  if (port.declared_type != ElementType::undefined && port.type != ElementType::undefined &&
      port.declared_type != port.type)
    return true;
  // No <dim> is how the IR writes both a scalar and a dynamic rank: nothing to compare.
  if (!port.shape.rank_is_static() || port.declared_dims.empty()) return false;
  if (static_cast<std::size_t>(port.shape.rank()) != port.declared_dims.size()) return true;
  for (std::size_t i = 0; i < port.declared_dims.size(); ++i) {
    const std::int64_t d = port.declared_dims[i];
    if (d >= 0 && !port.shape[i].contains(d)) return true;
  }
  return false;
}

namespace {

void compare_declared(const Graph& graph, Node& node, Diagnostics& diagnostics) {
  for (const OutputPort& port : node.outputs) {
    if (!declared_contradicts(port)) continue;
    ErrorContext c = graph.context(node);
    c.port_kind = ErrorContext::PortKind::output;
    c.port = port.id;
    diagnostics.warnings.emplace_back(
        ErrorCode::shape,
        fmt::format("the IR declares {} {} but irlite infers {} {}",
                    to_string(port.declared_type), to_string(declared_shape(port)),
                    to_string(port.type), to_string(port.shape)),
        std::move(c));
  }
}

}  // namespace

void infer_shapes(Graph& graph, Diagnostics& diagnostics) {
  // Reused from layer to layer: assigning a shape into it reuses its storage.
  std::vector<ValueInfo> inputs;
  for (Node& node : graph.nodes) {
    if (node.failed) continue;
    bool inputs_known = true;
    std::size_t count = 0;
    for (const InputPort& in : node.inputs) {
      const Node& src = graph.nodes[in.source_node];
      if (src.failed) {
        inputs_known = false;
        break;
      }
      const OutputPort& out = src.outputs[in.source_output];
      if (count == inputs.size()) inputs.emplace_back();
      ValueInfo& info = inputs[count++];
      info.type = out.type;
      info.shape = out.shape;
      info.value = src.kind() == OpKind::constant && src.has_value ? &src.value : nullptr;
    }
    if (!inputs_known) {
      // The producer's problem has been reported; this layer cannot be judged.
      node.failed = true;
      continue;
    }
    if (!node.op) {
      // An op irlite lacks (or whose attributes are bad): take the IR's word for its outputs so
      // the layers after it can still be inspected.
      for (OutputPort& out : node.outputs) {
        out.type = out.declared_type;
        out.shape = declared_shape(out);
      }
      continue;
    }
    try {
      std::vector<OutputInfo> outputs =
          node.op->infer(std::span<const ValueInfo>(inputs.data(), count), Phase::load);
      for (std::size_t i = 0; i < node.outputs.size() && i < outputs.size(); ++i) {
        node.outputs[i].type = outputs[i].type;
        node.outputs[i].shape = std::move(outputs[i].shape);
      }
    } catch (const Error& e) {
      node.failed = true;
      const Error located = graph.locate(e, node);
      if (node.reaches_result) {
        diagnostics.report(located);
      } else {
        // The layer never runs and feeds only layers like it: as OpenVINO drops such layers,
        // what it would compute cannot reject the model. inspect still shows why.
        diagnostics.warnings.emplace_back(
            located.code(),
            "the layer reaches no Result; its shape rule would refuse it: " + located.message(),
            located.context());
      }
      continue;
    }
    compare_declared(graph, node, diagnostics);
  }
}

}  // namespace irlite
