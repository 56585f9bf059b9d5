#include "loader/wiring.hpp"

#include <fmt/format.h>

#include <string>
#include <utility>

#include "loader/xml_names.hpp"

namespace irlite::loader {

void EdgeWiring::fail(ErrorCode code, std::string message, ErrorContext c) {
  diag_.report(Error(code, std::move(message), std::move(c)));
}

/// The context of an <edge>: its own line, and the layer it names when that exists.
ErrorContext EdgeWiring::at_edge(const pugi::xml_node& edge, std::size_t node_index) const {
  if (node_index == kNone) return positions_.at(edge);
  return positions_.at(edge, graph_.context(graph_.nodes[node_index]));
}

void EdgeWiring::read_edge(const pugi::xml_node& edge) {
  static constexpr const char* kNames[4] = {"from-layer", "from-port", "to-layer", "to-port"};
  const char* text[4] = {};
  for (pugi::xml_attribute a = edge.first_attribute(); a; a = a.next_attribute()) {
    const char* name = a.name();
    int k = -1;
    if (name[0] == 'f')
      k = named(name, "from-layer") ? 0 : named(name, "from-port") ? 1 : -1;
    else if (name[0] == 't')
      k = named(name, "to-layer") ? 2 : named(name, "to-port") ? 3 : -1;
    if (k >= 0 && !text[k]) text[k] = a.value();
  }
  std::int64_t v[4];
  for (int i = 0; i < 4; ++i) {
    const auto id = parse_id(text[i] ? text[i] : "");
    if (!id) {
      fail(ErrorCode::format,
           fmt::format("<edge> attribute '{}' = '{}' is not an unsigned integer", kNames[i],
                       text[i] ? text[i] : ""),
           positions_.at(edge));
      return;
    }
    v[i] = *id;
  }
  connect(edge, v[0], v[1], v[2], v[3]);
}

EdgeWiring::PortRef EdgeWiring::find_port(std::size_t node_index, std::int64_t id) {
  const Node& node = graph_.nodes[node_index];
  if (node.inputs.size() + node.outputs.size() <= kFewPorts) {
    for (std::size_t k = 0; k < node.inputs.size(); ++k)
      if (node.inputs[k].id == id) return {false, k};
    for (std::size_t k = 0; k < node.outputs.size(); ++k)
      if (node.outputs[k].id == id) return {true, k};
    return {};
  }
  const auto [it, fresh] = port_maps_.try_emplace(node_index);
  auto& map = it->second;
  if (fresh) {
    map.reserve(node.inputs.size() + node.outputs.size());
    for (std::size_t k = 0; k < node.inputs.size(); ++k)
      map.emplace(node.inputs[k].id, PortRef{false, k});
    for (std::size_t k = 0; k < node.outputs.size(); ++k)
      map.emplace(node.outputs[k].id, PortRef{true, k});
  }
  const auto found = map.find(id);
  return found == map.end() ? PortRef{} : found->second;
}

/// Feeds input port `to_port` of layer `to_layer` from output `from_port` of `from_layer`.
void EdgeWiring::connect(const pugi::xml_node& edge, std::int64_t from_layer,
                         std::int64_t from_port, std::int64_t to_layer, std::int64_t to_port) {
  const std::size_t from = ids_.find(from_layer);
  const std::size_t to = ids_.find(to_layer);
  if (from == kNone) {
    fail(ErrorCode::graph, fmt::format("edge from layer {}, which does not exist", from_layer),
         at_edge(edge, to));
    return;
  }
  if (to == kNone) {
    fail(ErrorCode::graph, fmt::format("edge to layer {}, which does not exist", to_layer),
         at_edge(edge, from));
    return;
  }
  const PortRef out = find_port(from, from_port);
  if (out.position == kNone || !out.output) {
    fail(ErrorCode::graph,
         out.position != kNone
             ? fmt::format("edge leaves from port {}, which is an input port", from_port)
             : fmt::format("edge leaves from output port {}, which the layer does not "
                           "have",
                           from_port),
         at_edge(edge, from));
    return;
  }
  const PortRef in = find_port(to, to_port);
  if (in.position == kNone || in.output) {
    fail(ErrorCode::graph,
         in.position != kNone
             ? fmt::format("edge enters port {}, which is an output port", to_port)
             : fmt::format("edge enters input port {}, which the layer does not have", to_port),
         at_edge(edge, to));
    return;
  }
  InputPort& port = graph_.nodes[to].inputs[in.position];
  if (port.source_node != kNone) {
    const Node& first = graph_.nodes[port.source_node];
    ErrorContext c = at_edge(edge, to);
    c.port_kind = ErrorContext::PortKind::input;
    c.port = to_port;
    fail(ErrorCode::graph,
         fmt::format("port is fed twice: by layer {} port {} and by layer {} port {}", first.id,
                     first.outputs[port.source_output].id, from_layer, from_port),
         c);
    return;
  }
  port.source_node = from;
  port.source_output = out.position;
}

void EdgeWiring::check_inputs_fed() {
  port_maps_.clear();
  for (Node& node : graph_.nodes) {
    for (const InputPort& in : node.inputs) {
      if (in.source_node != kNone) continue;
      ErrorContext c = graph_.context(node);
      c.port_kind = ErrorContext::PortKind::input;
      c.port = in.id;
      fail(ErrorCode::graph, "input port is not fed by any edge", c);
      node.failed = true;
    }
  }
}

}  // namespace irlite::loader
