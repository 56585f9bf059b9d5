#include "graph_builder.hpp"

#include <cstring>
#include <memory>

namespace irlite::test {
namespace {

std::string escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

// A port's tensor names: a comma inside a name is escaped as `\,`, the IR's convention.
std::string escape_name(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == ',') out += '\\';
    out += c;
  }
  return out;
}

std::string dims_text(const PartialShape& shape) {
  // Dynamic rank is written with no <dim>, a dimension that is not static as -1: what
  // OpenVINO's serializer writes.
  std::string s;
  if (!shape.rank_is_static()) return s;
  for (const Dimension& d : shape.dims())
    s += "<dim>" + std::to_string(d.is_static() ? d.value() : -1) + "</dim>";
  return s;
}

std::string port_text(std::size_t id, const GraphBuilder::Output& o, bool with_names) {
  std::string s = "<port id=\"" + std::to_string(id) + "\" precision=\"" +
                  escape(o.precision.empty() ? precision_name(o.type) : o.precision) + "\"";
  if (with_names && !o.names.empty()) s += " names=\"" + escape(o.names) + "\"";
  const std::string dims = o.dims.empty() ? dims_text(o.shape) : o.dims;
  return dims.empty() ? s + "/>" : s + ">" + dims + "</port>";
}

std::string edge_text(std::int64_t from_layer, std::int64_t from_port, std::int64_t to_layer,
                      std::int64_t to_port) {
  return "    <edge from-layer=\"" + std::to_string(from_layer) + "\" from-port=\"" +
         std::to_string(from_port) + "\" to-layer=\"" + std::to_string(to_layer) + "\" to-port=\"" +
         std::to_string(to_port) + "\"/>\n";
}

}  // namespace

std::string ir_shape_text(const PartialShape& shape) {
  if (!shape.rank_is_static()) return "...";
  const std::string s = to_string(shape);  // "[a,b]"
  return s.substr(1, s.size() - 2);
}

GraphBuilder::GraphBuilder(std::string name, int version)
    : name_(std::move(name)), version_(version) {}

GraphBuilder::Port GraphBuilder::parameter(std::string name, ElementType type,
                                           const PartialShape& shape) {
  Layer l;
  l.id = static_cast<std::int64_t>(layers_.size());
  l.name = name;
  l.type = "Parameter";
  l.version = "opset1";
  l.data = {{"shape", ir_shape_text(shape)}, {"element_type", std::string(to_string(type))}};
  l.outputs = {{type, shape, escape_name(name), "", ""}};
  layers_.push_back(std::move(l));
  return {layers_.size() - 1, 0};
}

GraphBuilder::Port GraphBuilder::constant(std::string name, Tensor value) {
  Layer l;
  l.id = static_cast<std::int64_t>(layers_.size());
  l.name = name;
  l.type = "Const";
  l.version = "opset1";
  l.offset = weights_size_;
  weights_size_ = (weights_size_ + value.byte_size() + 7) / 8 * 8;
  const PartialShape shape = PartialShape::from_shape(value.shape());
  l.data = {{"element_type", std::string(to_string(value.element_type()))},
            {"shape", ir_shape_text(shape)},
            {"offset", std::to_string(l.offset)},
            {"size", std::to_string(value.byte_size())}};
  l.outputs = {{value.element_type(), shape, escape_name(name), "", ""}};
  l.value = std::move(value);
  layers_.push_back(std::move(l));
  return {layers_.size() - 1, 0};
}

std::vector<GraphBuilder::Port> GraphBuilder::layer(
    std::string type, std::string opset, std::vector<std::pair<std::string, std::string>> attributes,
    std::vector<Port> inputs, std::vector<ElementType> output_types, std::string name) {
  Layer l;
  l.id = static_cast<std::int64_t>(layers_.size());
  l.name = name.empty() ? type + "_" + std::to_string(layers_.size()) : std::move(name);
  l.type = std::move(type);
  l.version = std::move(opset);
  l.data = std::move(attributes);
  l.inputs = std::move(inputs);
  for (ElementType t : output_types)
    l.outputs.push_back({t, PartialShape::dynamic_rank(), "", "", ""});
  layers_.push_back(std::move(l));
  std::vector<Port> ports;
  for (std::size_t i = 0; i < output_types.size(); ++i) ports.push_back({layers_.size() - 1, i});
  return ports;
}

std::size_t GraphBuilder::result(Port from, std::string name) {
  layers_.at(from.layer).outputs.at(from.output).names = escape_name(name);
  Layer l;
  l.id = static_cast<std::int64_t>(layers_.size());
  l.name = std::move(name) + "/sink_port_0";
  l.type = "Result";
  l.version = "opset1";
  l.inputs = {from};
  layers_.push_back(std::move(l));
  return layers_.size() - 1;
}

void GraphBuilder::declare(Port port, ElementType type, PartialShape shape) {
  Output& o = layers_.at(port.layer).outputs.at(port.output);
  o.type = type;
  o.shape = std::move(shape);
}

void GraphBuilder::raw_layer(std::string xml) {
  Layer l;
  l.raw = std::move(xml);
  layers_.push_back(std::move(l));
}

void GraphBuilder::edge(std::int64_t from_layer, std::int64_t from_port, std::int64_t to_layer,
                        std::int64_t to_port) {
  extra_edges_.push_back(edge_text(from_layer, from_port, to_layer, to_port));
}

std::string GraphBuilder::xml() const {
  std::string s = "<?xml version=\"1.0\"?>\n<net name=\"" + escape(name_) + "\" version=\"" +
                  std::to_string(version_) + "\">\n  <layers>\n";
  for (const Layer& l : layers_) {
    if (!l.raw.empty()) {
      s += "    " + l.raw + "\n";
      continue;
    }
    s += "    <layer id=\"" + std::to_string(l.id) + "\" name=\"" + escape(l.name) + "\" type=\"" +
         escape(l.type) + "\" version=\"" + escape(l.version) + "\">\n";
    if (!l.data.empty()) {
      s += "      <data";
      for (const auto& [k, v] : l.data) s += " " + k + "=\"" + escape(v) + "\"";
      s += "/>\n";
    }
    if (!l.inputs.empty()) {
      s += "      <input>\n";
      for (std::size_t i = 0; i < l.inputs.size(); ++i) {
        const Port& from = l.inputs[i];
        s +=
            "        " + port_text(i, layers_.at(from.layer).outputs.at(from.output), false) + "\n";
      }
      s += "      </input>\n";
    }
    if (!l.outputs.empty()) {
      s += "      <output>\n";
      for (std::size_t o = 0; o < l.outputs.size(); ++o)
        s += "        " + port_text(l.inputs.size() + o, l.outputs[o], true) + "\n";
      s += "      </output>\n";
    }
    s += "    </layer>\n";
  }
  s += "  </layers>\n  <edges>\n";
  if (edges_from_inputs_) {
    for (const Layer& l : layers_) {
      for (std::size_t i = 0; i < l.inputs.size(); ++i) {
        const Layer& from = layers_.at(l.inputs[i].layer);
        s += edge_text(from.id, static_cast<std::int64_t>(from.inputs.size() + l.inputs[i].output),
                       l.id, static_cast<std::int64_t>(i));
      }
    }
  }
  for (const std::string& e : extra_edges_) s += e;
  return s + "  </edges>\n  <rt_info/>\n</net>\n";
}

std::vector<std::byte> GraphBuilder::weights() const {
  std::vector<std::byte> blob(weights_size_);
  for (const Layer& l : layers_)
    if (l.type == "Const" && l.value.byte_size())
      std::memcpy(blob.data() + l.offset, l.value.data(), l.value.byte_size());
  return blob;
}

Model GraphBuilder::load(const LoadOptions& options, std::string source_name) const {
  auto blob = std::make_shared<const std::vector<std::byte>>(weights());
  return Model::load_from_memory(xml(), blob, std::span<const std::byte>(*blob), options,
                                 std::move(source_name));
}

}  // namespace irlite::test
