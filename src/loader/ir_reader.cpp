#include "loader/ir_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <queue>
#include <unordered_map>

#include <pugixml.hpp>

#include "loader/attributes.hpp"
#include "ops/constant.hpp"
#include "ops/registry.hpp"

namespace irlite {
namespace {

constexpr std::size_t kNone = SIZE_MAX;

/// An id or port number: an unsigned decimal that fits int64.
std::optional<std::int64_t> parse_id(std::string_view text) {
  const auto v = parse_uint64(text);
  if (!v || *v > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  return static_cast<std::int64_t>(*v);
}

/// Splits a `names` attribute: commas separate, `\,` escapes a comma, blanks around each name
/// are trimmed.
std::vector<std::string> split_names(std::string_view text) {
  std::vector<std::string> names;
  std::string current;
  auto flush = [&] {
    const std::string_view name = trim_blanks(current);
    if (!name.empty()) names.emplace_back(name);
    current.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == ',') {
      current += ',';
      ++i;
    } else if (text[i] == ',') {
      flush();
    } else {
      current += text[i];
    }
  }
  flush();
  return names;
}

class Reader {
 public:
  Reader(std::string_view xml, const std::string& file, const Weights& weights, Diagnostics& diag)
      : xml_(xml), weights_(weights), diag_(diag) {
    graph_.file = file;
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < xml.size(); ++i)
      if (xml[i] == '\n') line_starts_.push_back(i + 1);
  }

  Graph read() {
    const pugi::xml_parse_result parsed =
        doc_.load_buffer(xml_.data(), xml_.size(), pugi::parse_default, pugi::encoding_utf8);
    if (!parsed) {
      // Nothing else can be read from a document that does not parse.
      throw Error(ErrorCode::xml, fmt::format("malformed XML: {}", parsed.description()),
                  at_offset(parsed.offset));
    }
    read_root();
    read_layers();
    read_edges();
    check_inputs_fed();
    sort_topologically();
    mark_live();
    attach_constants();
    return std::move(graph_);
  }

 private:
  ErrorContext at_offset(std::ptrdiff_t offset) const {
    ErrorContext c;
    c.file = graph_.file;
    if (offset >= 0) {
      const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(),
                                       static_cast<std::size_t>(offset));
      const auto line = static_cast<std::int64_t>(it - line_starts_.begin());
      c.line = line;
      c.column = offset - static_cast<std::ptrdiff_t>(line_starts_[static_cast<std::size_t>(line - 1)]) + 1;
    }
    return c;
  }
  ErrorContext at(const pugi::xml_node& n) const { return at_offset(n.offset_debug()); }
  Location location(const pugi::xml_node& n) const {
    ErrorContext c = at(n);
    return {c.line.value_or(0), c.column.value_or(0)};
  }
  /// The context of a layer, placed at element `n` (the layer itself or one of its children).
  ErrorContext at_layer(const Node& node, const pugi::xml_node& n) const {
    ErrorContext c = graph_.context(node);
    const ErrorContext where = at(n);
    c.line = where.line;
    c.column = where.column;
    return c;
  }

  void fail(ErrorCode code, std::string message, ErrorContext c) {
    diag_.report(Error(code, std::move(message), std::move(c)));
  }

  void read_root() {
    const pugi::xml_node root = doc_.document_element();
    if (!root || ascii_lower(root.name()) != "net")
      throw Error(ErrorCode::format,
                  fmt::format("not an OpenVINO IR: the root element is <{}>, expected <net>",
                              root ? root.name() : ""),
                  at(root));
    graph_.name = root.attribute("name").value();
    const pugi::xml_attribute version = root.attribute("version");
    const auto v = parse_int64(version.value());
    if (!version || !v || (*v != 10 && *v != 11))
      throw Error(ErrorCode::format,
                  version ? fmt::format("unsupported IR version '{}'; irlite reads versions 10 "
                                        "and 11",
                                        version.value())
                          : std::string("<net> has no version attribute; irlite reads IR versions "
                                        "10 and 11"),
                  at(root));
    graph_.ir_version = static_cast<int>(*v);
    root_ = root;
  }

  void read_layers() {
    const pugi::xml_node layers = root_.child("layers");
    if (!layers) throw Error(ErrorCode::format, "<net> has no <layers>", at(root_));
    for (const pugi::xml_node layer : layers.children("layer")) read_layer(layer);
    if (graph_.results.empty() && !graph_.nodes.empty())
      fail(ErrorCode::graph, "the model has no Result layer, so nothing would be computed",
           at(layers));
  }

  void read_layer(const pugi::xml_node& layer) {
    Node node;
    node.location = location(layer);
    for (const char* required : {"id", "name", "type", "version"}) {
      if (!layer.attribute(required)) {
        fail(ErrorCode::format,
             fmt::format("<layer> is missing the mandatory attribute '{}'", required), at(layer));
        return;
      }
    }
    const auto id = parse_id(layer.attribute("id").value());
    if (!id) {
      fail(ErrorCode::format,
           fmt::format("layer id '{}' is not an unsigned integer", layer.attribute("id").value()),
           at(layer));
      return;
    }
    node.id = *id;
    node.name = layer.attribute("name").value();
    node.type = layer.attribute("type").value();
    node.opset = layer.attribute("version").value();

    std::string why;
    node.def = resolve_op(node.type, node.opset, &why);
    const auto [it, inserted] = index_by_id_.emplace(node.id, graph_.nodes.size());
    if (!inserted) {
      const Node& first = graph_.nodes[it->second];
      fail(ErrorCode::graph,
           fmt::format("duplicate layer id {}: already used by layer '{}' at line {}", node.id,
                       first.name, first.location.line),
           at_layer(node, layer));
      return;
    }

    if (!node.def) fail(ErrorCode::unsupported, why, at_layer(node, layer));

    read_ports(node, layer);
    if (node.def) create_op(node, layer);

    if (node.kind() == OpKind::parameter) graph_.parameters.push_back(graph_.nodes.size());
    if (node.kind() == OpKind::result) graph_.results.push_back(graph_.nodes.size());
    graph_.nodes.push_back(std::move(node));
  }

  void read_ports(Node& node, const pugi::xml_node& layer) {
    for (const pugi::xml_node port : layer.child("input").children("port")) {
      const auto id = port_id(node, port, "input");
      if (id) node.inputs.push_back({*id});
    }
    for (const pugi::xml_node port : layer.child("output").children("port")) {
      const auto id = port_id(node, port, "output");
      if (!id) continue;
      OutputPort out;
      out.id = *id;
      out.names = split_names(port.attribute("names").value());
      const pugi::xml_attribute precision = port.attribute("precision");
      ErrorContext pc = at_layer(node, port);
      pc.port_kind = ErrorContext::PortKind::output;
      pc.port = *id;
      if (!precision) {
        fail(ErrorCode::format, "output port has no precision attribute", pc);
      } else if (auto t = parse_element_type(precision.value())) {
        out.declared_type = *t;
      } else {
        fail(ErrorCode::format, fmt::format("unknown precision '{}'", precision.value()), pc);
      }
      for (const pugi::xml_node dim : port.children("dim")) {
        const auto d = parse_int64(dim.text().get());
        if (!d || *d < -1) {
          fail(ErrorCode::format,
               fmt::format("dimension '{}' must be an integer >= -1", dim.text().get()), pc);
          break;
        }
        out.declared_dims.push_back(*d);
      }
      node.outputs.push_back(std::move(out));
    }
    if (!node.def) return;
    const auto n_in = static_cast<int>(node.inputs.size());
    if (n_in < node.def->min_inputs || n_in > node.def->max_inputs) {
      const std::string expected =
          node.def->min_inputs == node.def->max_inputs
              ? std::to_string(node.def->min_inputs)
              : fmt::format("{} to {}", node.def->min_inputs, node.def->max_inputs);
      fail(ErrorCode::format,
           fmt::format("{} takes {} input(s), the layer declares {}", op_display_name(*node.def),
                       expected, n_in),
           at_layer(node, layer));
      node.def = nullptr;
      return;
    }
    if (static_cast<int>(node.outputs.size()) != node.def->num_outputs) {
      fail(ErrorCode::format,
           fmt::format("{} has {} output(s), the layer declares {}", op_display_name(*node.def),
                       node.def->num_outputs, node.outputs.size()),
           at_layer(node, layer));
      node.def = nullptr;
    }
  }

  /// The id of a <port>: an unsigned integer not used by another port of the layer.
  std::optional<std::int64_t> port_id(const Node& node, const pugi::xml_node& port,
                                      std::string_view direction) {
    const auto id = parse_id(port.attribute("id").value());
    if (!id) {
      fail(ErrorCode::format,
           fmt::format("{} port id '{}' is not an unsigned integer", direction,
                       port.attribute("id").value()),
           at_layer(node, port));
      return std::nullopt;
    }
    if (find_port(node, *id)) {
      fail(ErrorCode::format, fmt::format("port id {} is used twice", *id), at_layer(node, port));
      return std::nullopt;
    }
    return id;
  }

  static bool find_port(const Node& node, std::int64_t id) {
    for (const auto& p : node.inputs)
      if (p.id == id) return true;
    for (const auto& p : node.outputs)
      if (p.id == id) return true;
    return false;
  }

  void create_op(Node& node, const pugi::xml_node& layer) {
    std::vector<std::pair<std::string, std::string>> items;
    const pugi::xml_node data = layer.child("data");
    for (const pugi::xml_attribute a : data.attributes()) items.emplace_back(a.name(), a.value());
    if (node.kind() == OpKind::parameter && !data) {
      fail(ErrorCode::format, "Parameter layer has no <data> (shape and element_type)",
           at_layer(node, layer));
      return;
    }
    try {
      node.op = node.def->create(Attributes(std::move(items)));
    } catch (const Error& e) {
      fail(e.code(), e.message(), at_layer(node, data ? data : layer));
    }
  }

  /// The context of an <edge>: its own line, and the layer it names when that exists.
  ErrorContext at_edge(const pugi::xml_node& edge, std::size_t node_index) const {
    if (node_index == kNone) return at(edge);
    return at_layer(graph_.nodes[node_index], edge);
  }

  void read_edges() {
    for (const pugi::xml_node edge : root_.child("edges").children("edge")) {
      std::int64_t v[4];
      bool ok = true;
      const char* names[4] = {"from-layer", "from-port", "to-layer", "to-port"};
      for (int i = 0; i < 4 && ok; ++i) {
        const auto id = parse_id(edge.attribute(names[i]).value());
        if (!id) {
          fail(ErrorCode::format,
               fmt::format("<edge> attribute '{}' = '{}' is not an unsigned integer", names[i],
                           edge.attribute(names[i]).value()),
               at(edge));
          ok = false;
        } else {
          v[i] = *id;
        }
      }
      if (ok) read_edge(edge, v[0], v[1], v[2], v[3]);
    }
  }

  std::size_t node_index(std::int64_t id) const {
    const auto it = index_by_id_.find(id);
    return it == index_by_id_.end() ? kNone : it->second;
  }

  void read_edge(const pugi::xml_node& edge, std::int64_t from_layer, std::int64_t from_port,
                 std::int64_t to_layer, std::int64_t to_port) {
    const std::size_t from = node_index(from_layer);
    const std::size_t to = node_index(to_layer);
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
    Node& src = graph_.nodes[from];
    Node& dst = graph_.nodes[to];
    const auto out = std::find_if(src.outputs.begin(), src.outputs.end(),
                                  [&](const OutputPort& p) { return p.id == from_port; });
    if (out == src.outputs.end()) {
      ErrorContext c = at_edge(edge, from);
      const bool is_input = std::any_of(src.inputs.begin(), src.inputs.end(),
                                        [&](const InputPort& p) { return p.id == from_port; });
      fail(ErrorCode::graph,
           is_input ? fmt::format("edge leaves from port {}, which is an input port", from_port)
                    : fmt::format("edge leaves from output port {}, which the layer does not "
                                  "have",
                                  from_port),
           c);
      return;
    }
    const auto in = std::find_if(dst.inputs.begin(), dst.inputs.end(),
                                 [&](const InputPort& p) { return p.id == to_port; });
    if (in == dst.inputs.end()) {
      const bool is_output = std::any_of(dst.outputs.begin(), dst.outputs.end(),
                                         [&](const OutputPort& p) { return p.id == to_port; });
      fail(ErrorCode::graph,
           is_output ? fmt::format("edge enters port {}, which is an output port", to_port)
                     : fmt::format("edge enters input port {}, which the layer does not have",
                                   to_port),
           at_edge(edge, to));
      return;
    }
    ErrorContext c = at_edge(edge, to);
    c.port_kind = ErrorContext::PortKind::input;
    c.port = to_port;
    if (in->source_node != kNone) {
      const Node& first = graph_.nodes[in->source_node];
      fail(ErrorCode::graph,
           fmt::format("port is fed twice: by layer {} port {} and by layer {} port {}", first.id,
                       first.outputs[in->source_output].id, from_layer, from_port),
           c);
      return;
    }
    in->source_node = from;
    in->source_output = static_cast<std::size_t>(out - src.outputs.begin());
  }

  void check_inputs_fed() {
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

  void sort_topologically() {
    const std::size_t n = graph_.nodes.size();
    std::vector<std::size_t> pending(n, 0);
    std::vector<std::vector<std::size_t>> consumers(n);
    for (std::size_t i = 0; i < n; ++i) {
      for (const InputPort& in : graph_.nodes[i].inputs) {
        if (in.source_node == kNone) continue;
        ++pending[i];
        consumers[in.source_node].push_back(i);
      }
    }
    // Kahn's algorithm; among ready layers the earliest in the document goes first, so the
    // order is deterministic and follows the file where the edges allow.
    std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
    for (std::size_t i = 0; i < n; ++i)
      if (pending[i] == 0) ready.push(i);
    std::vector<std::size_t> order;
    order.reserve(n);
    while (!ready.empty()) {
      const std::size_t i = ready.top();
      ready.pop();
      order.push_back(i);
      for (std::size_t c : consumers[i])
        if (--pending[c] == 0) ready.push(c);
    }
    if (order.size() < n) report_cycle(pending, order);
    apply_order(order);
  }

  void report_cycle(const std::vector<std::size_t>& pending, std::vector<std::size_t>& order) {
    // Every layer left has an unsorted producer, so walking producers must come back to a layer
    // already seen: that loop is a cycle.
    std::size_t start = 0;
    while (pending[start] == 0) ++start;
    std::vector<std::size_t> seen_at(graph_.nodes.size(), kNone);
    std::vector<std::size_t> path;
    std::size_t cur = start;
    while (seen_at[cur] == kNone) {
      seen_at[cur] = path.size();
      path.push_back(cur);
      for (const InputPort& in : graph_.nodes[cur].inputs) {
        if (in.source_node != kNone && pending[in.source_node] != 0) {
          cur = in.source_node;
          break;
        }
      }
    }
    // The walk went from consumers to producers; print the loop in data-flow order.
    std::string members;
    for (std::size_t k = path.size(); k-- > seen_at[cur];) {
      const Node& m = graph_.nodes[path[k]];
      members += fmt::format("{} '{}' -> ", m.id, m.name);
    }
    const Node& first = graph_.nodes[path.back()];
    members += fmt::format("{} '{}'", first.id, first.name);
    fail(ErrorCode::graph, "the layer is on a cycle: " + members, graph_.context(first));
    // With keep_going, the layers on or behind the cycle stay, unsorted and not inferred.
    for (std::size_t i = 0; i < graph_.nodes.size(); ++i) {
      if (pending[i] != 0) {
        graph_.nodes[i].failed = true;
        order.push_back(i);
      }
    }
  }

  void apply_order(const std::vector<std::size_t>& order) {
    std::vector<std::size_t> new_index(order.size());
    for (std::size_t k = 0; k < order.size(); ++k) new_index[order[k]] = k;
    std::vector<Node> sorted;
    sorted.reserve(order.size());
    for (std::size_t i : order) sorted.push_back(std::move(graph_.nodes[i]));
    for (Node& node : sorted)
      for (InputPort& in : node.inputs)
        if (in.source_node != kNone) in.source_node = new_index[in.source_node];
    for (auto& p : graph_.parameters) p = new_index[p];
    for (auto& r : graph_.results) r = new_index[r];
    graph_.nodes = std::move(sorted);
  }

  void mark_live() {
    for (Node& node : graph_.nodes) node.reaches_result = false;
    std::vector<std::size_t> stack(graph_.results.begin(), graph_.results.end());
    while (!stack.empty()) {
      Node& node = graph_.nodes[stack.back()];
      stack.pop_back();
      if (node.reaches_result) continue;
      node.reaches_result = true;
      for (const InputPort& in : node.inputs)
        if (in.source_node != kNone) stack.push_back(in.source_node);
    }
    // Parameters are model inputs whether or not anything reads them.
    for (std::size_t p : graph_.parameters) graph_.nodes[p].reaches_result = true;
  }

  void attach_constants() {
    bool warned_missing = false;
    for (Node& node : graph_.nodes) {
      if (node.kind() != OpKind::constant || !node.op) continue;
      const auto& c = static_cast<const ConstantOp&>(*node.op);
      const std::uint64_t width = element_size(c.element_type());
      const auto count = static_cast<std::uint64_t>(*element_count(c.shape()));
      if (count != 0 && width > UINT64_MAX / count) {
        fail(ErrorCode::weights,
             fmt::format("Const of shape {} and type {} is too large", to_string(c.shape()),
                         to_string(c.element_type())),
             graph_.context(node));
        continue;
      }
      const std::uint64_t needed = count * width;
      if (c.size() < needed) {
        fail(ErrorCode::weights,
             fmt::format("size {} is too small for shape {} of {} ({} bytes needed)", c.size(),
                         to_string(c.shape()), to_string(c.element_type()), needed),
             graph_.context(node));
        continue;
      }
      if (needed == 0) {
        node.value = Tensor(c.element_type(), c.shape());
        node.has_value = true;
        continue;
      }
      if (!weights_.present) {
        const std::string message = "this Const needs weights, but there is no weights file" +
                                    (weights_.path.empty()
                                         ? std::string()
                                         : " (looked for " + weights_.path + ")");
        if (diag_.keep_going) {
          // inspect works without the .bin: the Const's value is just unknown.
          if (!warned_missing)
            diag_.warnings.emplace_back(ErrorCode::io, message, graph_.context(node));
          warned_missing = true;
          continue;
        }
        fail(ErrorCode::io, message, graph_.context(node));
        continue;
      }
      const std::uint64_t total = weights_.bytes.size();
      if (c.size() > total || c.offset() > total - c.size()) {
        fail(ErrorCode::weights,
             fmt::format("needs bytes [{}, {}{}) but {} has {} bytes", c.offset(),
                         c.offset() > UINT64_MAX - c.size() ? "offset + " : "",
                         c.offset() > UINT64_MAX - c.size() ? c.size() : c.offset() + c.size(),
                         weights_.path.empty() ? "the weights buffer" : weights_.path, total),
             graph_.context(node));
        continue;
      }
      const std::byte* data = weights_.bytes.data() + c.offset();
      if (reinterpret_cast<std::uintptr_t>(data) % width == 0) {
        node.value = Tensor::view(c.element_type(), c.shape(), static_cast<const void*>(data),
                                  weights_.owner);
      } else {
        // The IR does not align Consts; an unaligned one is copied once so kernels can read
        // it with plain loads.
        node.value = Tensor(c.element_type(), c.shape());
        std::memcpy(node.value.data(), data, needed);
      }
      node.has_value = true;
    }
  }

  std::string_view xml_;
  const Weights& weights_;
  Diagnostics& diag_;
  std::vector<std::size_t> line_starts_;
  pugi::xml_document doc_;
  pugi::xml_node root_;
  Graph graph_;
  std::unordered_map<std::int64_t, std::size_t> index_by_id_;
};

}  // namespace

Graph read_ir(std::string_view xml, const std::string& file, const Weights& weights,
              Diagnostics& diagnostics) {
  return Reader(xml, file, weights, diagnostics).read();
}

}  // namespace irlite
