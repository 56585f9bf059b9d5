#include "model_json.hpp"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <span>

namespace irlite::cli {
namespace {

Json port_json(const PortInfo& port) {
  return Json{{"name", port.name},
              {"tensor_names", port.tensor_names},
              {"element_type", to_string(port.element_type)},
              {"shape", to_string(port.shape)}};
}

Json layer_json(const LayerInfo& layer, std::span<const LayerInfo> layers) {
  Json attributes = Json::object();
  for (const auto& [key, value] : layer.attributes) attributes[key] = value;
  Json inputs = Json::array();
  for (const LayerInput& in : layer.inputs)
    inputs.push_back(
        {{"port", in.port}, {"from_layer", in.from_layer}, {"from_port", in.from_port}});
  Json outputs = Json::array();
  for (const LayerOutput& out : layer.outputs) {
    Json o{{"port", out.port},
           {"tensor_names", out.tensor_names},
           {"element_type", to_string(out.element_type)},
           {"shape", to_string(out.shape)}};
    if (out.declared_differs) {
      o["declared_shape"] = declared_shape(out);
      if (declared_type_differs(out))
        o["declared_element_type"] = to_string(out.declared_element_type);
    }
    outputs.push_back(std::move(o));
  }
  return Json{{"id", layer.id},
              {"name", layer.name},
              {"type", layer.type},
              {"version", layer.version},
              {"opset", layer.opset},
              {"line", layer.line},
              {"attributes", std::move(attributes)},
              {"reaches_result", layer.reaches_result},
              {"folded", layer.folded},
              {"fused_into", layer.fused_into ? Json(layers[*layer.fused_into].id) : Json()},
              {"inputs", std::move(inputs)},
              {"outputs", std::move(outputs)}};
}

// A problem or warning with each of its coordinates apart (null where unknown), and the
// one-line text stderr shows.
Json diagnostic_json(const Error& e) {
  const ErrorContext& c = e.context();
  const auto optional = [](const std::optional<std::int64_t>& v) { return v ? Json(*v) : Json(); };
  const bool has_port = c.port_kind != ErrorContext::PortKind::none;
  return Json{
      {"code", to_string(e.code())},
      {"file", c.file},
      {"line", optional(c.line)},
      {"column", optional(c.column)},
      {"layer_id", optional(c.layer_id)},
      {"layer_name", c.layer_name},
      {"layer_type", c.layer_type},
      {"port_kind",
       has_port ? Json(c.port_kind == ErrorContext::PortKind::input ? "input" : "output") : Json()},
      {"port", has_port ? Json(c.port) : Json()},
      {"message", e.message()},
      {"text", e.what()}};
}

Json diagnostics_json(const std::vector<Error>& errors) {
  Json list = Json::array();
  for (const Error& e : errors) list.push_back(diagnostic_json(e));
  return list;
}

}  // namespace

std::string declared_shape(const LayerOutput& out) {
  std::vector<Dimension> dims;
  for (const std::int64_t d : out.declared_dims)
    dims.push_back(d < 0 ? Dimension::dynamic() : Dimension(d));
  return to_string(PartialShape(std::move(dims)));
}

bool declared_type_differs(const LayerOutput& out) {
  return out.declared_element_type != ElementType::undefined &&
         out.declared_element_type != out.element_type;
}

// "TopK-11"; an op irlite does not know keeps its IR spelling and opset.
std::string display_type(const LayerInfo& layer) {
  if (layer.version > 0) return fmt::format("{}-{}", layer.type, layer.version);
  return layer.opset.empty() ? layer.type : fmt::format("{} ({})", layer.type, layer.opset);
}

// How many layers of each op, "Constant-1" before "TopK-11" (by name).
std::map<std::string, std::size_t> op_counts(const Model& model) {
  std::map<std::string, std::size_t> counts;
  for (const LayerInfo& l : model.layers()) ++counts[display_type(l)];
  return counts;
}

// The bytes of every Const's data: what the model's weights take in memory.
std::uint64_t weight_bytes(const Model& model) {
  std::uint64_t total = 0;
  for (const LayerInfo& l : model.layers()) {
    if (l.type != "Constant" || l.outputs.size() != 1 || !l.outputs[0].shape.is_static()) continue;
    Shape shape;
    for (const Dimension& d : l.outputs[0].shape.dims()) shape.push_back(d.value());
    if (const auto count = element_count(shape))
      total += static_cast<std::uint64_t>(*count) * element_size(l.outputs[0].element_type);
  }
  return total;
}

Json model_json(const Model* model, const std::string& source, const std::vector<Error>& warnings,
                const std::vector<Error>& problems) {
  Json doc{{"name", model ? model->name() : ""},
           {"ir_version", model ? model->ir_version() : 0},
           {"source", source},
           {"is_dynamic", model ? model->is_dynamic() : false},
           {"inputs", Json::array()},
           {"outputs", Json::array()},
           {"op_counts", Json::object()},
           {"weight_bytes", model ? weight_bytes(*model) : 0},
           {"layers", Json::array()},
           {"warnings", diagnostics_json(warnings)},
           {"problems", diagnostics_json(problems)}};
  if (model) {
    for (const PortInfo& p : model->inputs()) doc["inputs"].push_back(port_json(p));
    for (const PortInfo& p : model->outputs()) doc["outputs"].push_back(port_json(p));
    for (const auto& [type, count] : op_counts(*model)) doc["op_counts"][type] = count;
    for (const LayerInfo& l : model->layers())
      doc["layers"].push_back(layer_json(l, model->layers()));
  }
  return doc;
}

}  // namespace irlite::cli
