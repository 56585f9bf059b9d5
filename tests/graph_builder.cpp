#include "graph_builder.hpp"

#include <cstring>

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

std::string shape_attribute(const PartialShape& shape) {
  if (!shape.rank_is_static()) return "...";
  std::string s;
  for (const Dimension& d : shape.dims()) s += (s.empty() ? "" : ",") + to_string(d);
  return s;
}

std::string port(std::size_t id, ElementType type, const PartialShape& shape,
                 const std::string& names) {
  std::string s = "<port id=\"" + std::to_string(id) + "\" precision=\"" +
                  std::string(to_string(type)) + "\"";
  if (!names.empty()) s += " names=\"" + escape(names) + "\"";
  if (!shape.rank_is_static() || shape.rank() == 0) return s + "/>";
  s += ">";
  for (const Dimension& d : shape.dims())
    s += "<dim>" + std::to_string(d.is_static() ? d.value() : -1) + "</dim>";
  return s + "</port>";
}

}  // namespace

GraphBuilder::Port GraphBuilder::parameter(std::string name, ElementType type,
                                           const PartialShape& shape) {
  Layer l;
  l.name = name;
  l.type = "Parameter";
  l.opset = "opset1";
  l.attributes = {{"shape", shape_attribute(shape)}, {"element_type", std::string(to_string(type))}};
  l.output_types = {type};
  l.output_shapes = {shape};
  l.output_names = {std::move(name)};
  layers_.push_back(std::move(l));
  return {layers_.size() - 1, 0};
}

GraphBuilder::Port GraphBuilder::constant(std::string name, Tensor value) {
  Layer l;
  l.name = name;
  l.type = "Const";
  l.opset = "opset1";
  l.offset = weights_size_;
  weights_size_ = (weights_size_ + value.byte_size() + 7) / 8 * 8;
  l.attributes = {{"element_type", std::string(to_string(value.element_type()))},
                  {"shape", to_string(value.shape()).substr(1, to_string(value.shape()).size() - 2)},
                  {"offset", std::to_string(l.offset)},
                  {"size", std::to_string(value.byte_size())}};
  l.output_types = {value.element_type()};
  l.output_shapes = {PartialShape::from_shape(value.shape())};
  l.output_names = {std::move(name)};
  l.value = std::move(value);
  layers_.push_back(std::move(l));
  return {layers_.size() - 1, 0};
}

std::vector<GraphBuilder::Port> GraphBuilder::layer(
    std::string type, std::string opset, std::vector<std::pair<std::string, std::string>> attributes,
    std::vector<Port> inputs, std::vector<ElementType> output_types, std::string name) {
  Layer l;
  l.name = name.empty() ? type + "_" + std::to_string(layers_.size()) : std::move(name);
  l.type = std::move(type);
  l.opset = std::move(opset);
  l.attributes = std::move(attributes);
  l.inputs = std::move(inputs);
  l.output_types = std::move(output_types);
  l.output_shapes.assign(l.output_types.size(), PartialShape::dynamic_rank());
  l.output_names.assign(l.output_types.size(), "");
  layers_.push_back(std::move(l));
  std::vector<Port> ports;
  for (std::size_t i = 0; i < layers_.back().output_types.size(); ++i)
    ports.push_back({layers_.size() - 1, i});
  return ports;
}

void GraphBuilder::result(Port from, std::string name) {
  layers_[from.layer].output_names[from.output] = name;
  Layer l;
  l.name = std::move(name) + "/sink_port_0";
  l.type = "Result";
  l.opset = "opset1";
  l.inputs = {from};
  layers_.push_back(std::move(l));
}

std::string GraphBuilder::xml() const {
  std::string s = "<?xml version=\"1.0\"?>\n<net name=\"test\" version=\"11\">\n  <layers>\n";
  for (std::size_t id = 0; id < layers_.size(); ++id) {
    const Layer& l = layers_[id];
    s += "    <layer id=\"" + std::to_string(id) + "\" name=\"" + escape(l.name) + "\" type=\"" +
         l.type + "\" version=\"" + l.opset + "\">\n";
    if (!l.attributes.empty()) {
      s += "      <data";
      for (const auto& [k, v] : l.attributes) s += " " + k + "=\"" + escape(v) + "\"";
      s += "/>\n";
    }
    if (!l.inputs.empty()) {
      s += "      <input>\n";
      for (std::size_t i = 0; i < l.inputs.size(); ++i) {
        const Layer& src = layers_[l.inputs[i].layer];
        s += "        " +
             port(i, src.output_types[l.inputs[i].output], src.output_shapes[l.inputs[i].output],
                  "") +
             "\n";
      }
      s += "      </input>\n";
    }
    if (!l.output_types.empty()) {
      s += "      <output>\n";
      for (std::size_t o = 0; o < l.output_types.size(); ++o)
        s += "        " +
             port(l.inputs.size() + o, l.output_types[o], l.output_shapes[o], l.output_names[o]) +
             "\n";
      s += "      </output>\n";
    }
    s += "    </layer>\n";
  }
  s += "  </layers>\n  <edges>\n";
  for (std::size_t id = 0; id < layers_.size(); ++id) {
    const Layer& l = layers_[id];
    for (std::size_t i = 0; i < l.inputs.size(); ++i) {
      const Port& from = l.inputs[i];
      s += "    <edge from-layer=\"" + std::to_string(from.layer) + "\" from-port=\"" +
           std::to_string(layers_[from.layer].inputs.size() + from.output) + "\" to-layer=\"" +
           std::to_string(id) + "\" to-port=\"" + std::to_string(i) + "\"/>\n";
    }
  }
  return s + "  </edges>\n</net>\n";
}

std::vector<std::byte> GraphBuilder::weights() const {
  std::vector<std::byte> blob(weights_size_);
  for (const Layer& l : layers_)
    if (l.type == "Const" && l.value.byte_size())
      std::memcpy(blob.data() + l.offset, l.value.data(), l.value.byte_size());
  return blob;
}

Model GraphBuilder::load(const LoadOptions& options) const {
  auto blob = std::make_shared<const std::vector<std::byte>>(weights());
  return Model::load_from_memory(xml(), blob, std::span<const std::byte>(*blob), options);
}

}  // namespace irlite::test
