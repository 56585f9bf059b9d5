#include "shape_inference/shape_inference.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "graph/widen_floats.hpp"

#include "graph/widen_floats.hpp"

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
bool declared_contradicts(const OutputPort& port, bool floats_widened) {
  const bool widened =
      floats_widened && port.type == ElementType::f32 && is_narrow_float(port.declared_type);
  if (port.declared_type != ElementType::undefined && port.type != ElementType::undefined &&
      port.declared_type != port.type && !widened)
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
    if (!declared_contradicts(port, graph.floats_widened)) continue;
    ErrorContext c = graph.context(node);
    c.port_kind = ErrorContext::PortKind::output;
    c.port = port.id;
    diagnostics.warnings.emplace_back(
        ErrorCode::shape,
        fmt::format("the IR declares {} {} but irlite infers {} {}", to_string(port.declared_type),
                    to_string(declared_shape(port)), to_string(port.type), to_string(port.shape)),
        std::move(c));
  }
}

}  // namespace

namespace {

bool all_known(std::span<const ValueInfo> inputs) {
  for (const ValueInfo& in : inputs)
    if (!in.value) return false;
  return true;
}

/// Computes a single-output layer whose inputs are all known, when its result is small: the
/// layer then runs as a Const of that value.
void fold(Node& node, std::span<const ValueInfo> inputs, const OutputPort& out) {
  if (node.outputs.size() != 1 || !node.op->foldable() || !out.shape.is_static() ||
      out.type == ElementType::undefined)
    return;
  const Shape shape = out.shape.to_shape();
  const auto count = element_count(shape);
  if (!count || static_cast<std::uint64_t>(*count) > kFoldLimitBytes / element_size(out.type))
    return;
  std::vector<Tensor> args;
  args.reserve(inputs.size());
  for (const ValueInfo& in : inputs) args.push_back(*in.value);
  Tensor result(out.type, shape);
  node.op->execute(args, std::span<Tensor>(&result, 1), ExecContext{});
  node.value = std::move(result);
  node.has_value = true;
  node.folded = true;
}

/// Bounds are followed for shape-like values only: small integer tensors.
constexpr std::int64_t kMaxBoundedElements = 64;

/// Whether two tensors of one type and shape hold the same bytes.
bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.element_type() == b.element_type() && a.shape() == b.shape() &&
         std::memcmp(a.data(), b.data(), a.byte_size()) == 0;
}

/// Bounds of output 0 from what is known of the inputs. Bounds that meet (ShapeOf of a static
/// shape, a Gather of its static dims) are the value itself: a single-output layer is then
/// folded like one whose inputs are all Consts, so that the layers after it see a value.
void propagate_bounds(Node& node, std::span<const ValueInfo> inputs) {
  OutputPort& out = node.outputs[0];
  if (!is_integral(out.type) || !out.shape.is_static()) return;
  const auto count = element_count(out.shape.to_shape());
  if (!count || *count > kMaxBoundedElements) return;
  std::optional<ValueBounds> bounds =
      node.op->infer_bounds(inputs, OutputInfo{out.type, out.shape});
  if (!bounds) return;
  if (node.outputs.size() != 1 || !node.op->foldable() ||
      !same_bytes(bounds->lower, bounds->upper)) {
    out.bounds = std::make_shared<const ValueBounds>(std::move(*bounds));
    return;
  }
  node.value = std::move(bounds->lower);
  node.has_value = true;
  node.folded = true;
}

/// Undoes what an earlier inference folded, so that the graph is inferred anew (a reshape may
/// change the shapes a fold was derived from). Consts keep their values.
void unfold(Node& node) {
  if (!node.folded) return;
  node.folded = false;
  node.has_value = false;
  node.value = Tensor();
}

}  // namespace

void infer_shapes(Graph& graph, Diagnostics& diagnostics) {
  // Reused from layer to layer: assigning a shape into it reuses its storage.
  std::vector<ValueInfo> inputs;
  for (Node& node : graph.nodes) {
    unfold(node);
    if (node.failed) continue;
    for (OutputPort& out : node.outputs) out.bounds.reset();
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
      const bool bounded = !info.value && out.bounds;
      info.lower = bounded ? &out.bounds->lower : nullptr;
      info.upper = bounded ? &out.bounds->upper : nullptr;
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
      const std::span<const ValueInfo> known(inputs.data(), count);
      std::vector<OutputInfo> outputs = node.op->infer(known, Phase::load);
      // An op whose attributes or inputs count its outputs (Split) must agree with the layer.
      if (outputs.size() != node.outputs.size())
        op_error(fmt::format("{} gives {} output(s) here, the layer declares {}",
                             node.def ? op_display_name(*node.def) : "the op", outputs.size(),
                             node.outputs.size()));
      for (std::size_t i = 0; i < node.outputs.size() && i < outputs.size(); ++i) {
        node.outputs[i].type = outputs[i].type;
        node.outputs[i].shape = std::move(outputs[i].shape);
      }
      if (node.kind() == OpKind::compute && !node.outputs.empty()) {
        if (all_known(known)) fold(node, known, node.outputs[0]);
        if (!node.folded) propagate_bounds(node, known);
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
