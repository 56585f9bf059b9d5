#include "graph/widen_floats.hpp"

#include <array>
#include <cstddef>
#include <vector>

#include "irlite/element_dispatch.hpp"

namespace irlite {
namespace {

constexpr std::array kNarrow = {ElementType::f16, ElementType::bf16};

}  // namespace

void convert_floats(const Tensor& from, Tensor& to, const Parallel& parallel) {
  dispatch_float(from.element_type(), [&](auto from_tag) {
    dispatch_float(to.element_type(), [&](auto to_tag) {
      using From = typename decltype(from_tag)::type;
      using To = typename decltype(to_tag)::type;
      const From* in = from.data<From>();
      To* out = to.data<To>();
      parallel.for_range(from.size(), std::size_t{1} << 15,
                         [&](std::size_t begin, std::size_t end, std::size_t) {
                           for (std::size_t i = begin; i < end; ++i)
                             out[i] = To(static_cast<float>(in[i]));
                         });
    });
  });
}

Tensor widened(const Tensor& value) {
  if (!is_narrow_float(value.element_type())) return value;
  Tensor out(ElementType::f32, value.shape());
  convert_floats(value, out, Parallel());
  return out;
}

void widen_floats(Graph& graph) {
  graph.floats_widened = true;
  // A Parameter that only Results read is handed back as it came: nothing computes on it.
  std::vector<bool> computed_on(graph.nodes.size(), false);
  for (const Node& node : graph.nodes)
    for (const InputPort& in : node.inputs)
      if (in.source_node != SIZE_MAX && node.kind() != OpKind::result)
        computed_on[in.source_node] = true;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    Node& node = graph.nodes[i];
    if (!node.op || (node.kind() == OpKind::parameter && !computed_on[i])) continue;
    for (ElementType from : kNarrow) {
      std::shared_ptr<const Op> op = node.op->retyped(from, ElementType::f32);
      if (!op) continue;
      node.op = std::move(op);
      if (node.kind() == OpKind::parameter) node.edge_type = from;
    }
    if (node.kind() == OpKind::constant && node.has_value) node.value = widened(node.value);
  }
  for (std::size_t r : graph.results) {
    Node& node = graph.nodes[r];
    if (node.inputs.empty() || node.inputs[0].source_node == SIZE_MAX) continue;
    const InputPort& in = node.inputs[0];
    const ElementType declared =
        graph.nodes[in.source_node].outputs[in.source_output].declared_type;
    if (is_narrow_float(declared)) node.edge_type = declared;
  }
}

void settle_edge_types(Graph& graph) {
  for (std::size_t r : graph.results) {
    Node& node = graph.nodes[r];
    if (node.edge_type == ElementType::undefined) continue;
    const InputPort& in = node.inputs[0];
    if (graph.nodes[in.source_node].outputs[in.source_output].type != ElementType::f32)
      node.edge_type = ElementType::undefined;
  }
}

}  // namespace irlite
