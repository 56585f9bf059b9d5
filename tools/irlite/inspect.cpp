// `irlite inspect`: the model's inputs, outputs and layers with their inferred types and shapes,
// and every problem found in one pass.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <optional>

#include "commands.hpp"
#include "core/text.hpp"

namespace irlite::cli {
namespace {

using Json = nlohmann::ordered_json;

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

std::string outputs_text(const LayerInfo& layer) {
  std::string s;
  for (const LayerOutput& out : layer.outputs) {
    if (!s.empty()) s += ", ";
    s += fmt::format("{} {}", to_string(out.element_type), to_string(out.shape));
    if (out.declared_differs)
      s += declared_type_differs(out)
               ? fmt::format(" (declared {} {})", to_string(out.declared_element_type),
                             declared_shape(out))
               : fmt::format(" (declared {})", declared_shape(out));
  }
  if (s.empty()) s.push_back('-');
  if (!layer.reaches_result) s += " (not run)";
  return s;
}

std::string attributes_text(const LayerInfo& layer) {
  std::string s;
  for (const auto& [key, value] : layer.attributes)
    s += fmt::format("{}{}={}", s.empty() ? "" : " ", key, value);
  return s;
}

Json port_json(const PortInfo& port) {
  return Json{{"name", port.name},
              {"tensor_names", port.tensor_names},
              {"element_type", to_string(port.element_type)},
              {"shape", to_string(port.shape)}};
}

Json layer_json(const LayerInfo& layer) {
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
              {"inputs", std::move(inputs)},
              {"outputs", std::move(outputs)}};
}

// The document for a model, or for a file that could not be loaded at all (model null).
void print_json(const Model* model, const std::string& source,
                const std::vector<std::string>& warnings,
                const std::vector<std::string>& problems) {
  Json doc{{"name", model ? model->name() : ""},
           {"ir_version", model ? model->ir_version() : 0},
           {"source", source},
           {"is_dynamic", model ? model->is_dynamic() : false},
           {"inputs", Json::array()},
           {"outputs", Json::array()},
           {"layers", Json::array()},
           {"warnings", warnings},
           {"problems", problems}};
  if (model) {
    for (const PortInfo& p : model->inputs()) doc["inputs"].push_back(port_json(p));
    for (const PortInfo& p : model->outputs()) doc["outputs"].push_back(port_json(p));
    for (const LayerInfo& l : model->layers()) doc["layers"].push_back(layer_json(l));
  }
  // Names come from the file and need not be valid UTF-8: replace bad bytes, never throw.
  fmt::print("{}\n", doc.dump(2, ' ', false, Json::error_handler_t::replace));
}

void print_ports(const char* title, const std::vector<PortInfo>& ports) {
  fmt::print("{}:\n", title);
  if (ports.empty()) fmt::print("  (none)\n");
  std::vector<std::string> names;
  for (const PortInfo& p : ports) names.push_back(escape_nonprintable(p.name));
  std::size_t width = 0;
  for (const std::string& name : names) width = std::max(width, name.size());
  width = std::min<std::size_t>(width, 40);
  for (std::size_t i = 0; i < ports.size(); ++i) {
    const PortInfo& p = ports[i];
    std::string line = fmt::format("  {:<{}}  {} {}", names[i], width, to_string(p.element_type),
                                   to_string(p.shape));
    const bool only_own_name = p.tensor_names.size() == 1 && p.tensor_names[0] == p.name;
    if (!p.tensor_names.empty() && !only_own_name)
      line += fmt::format("  (tensor names: {})",
                          escape_nonprintable(fmt::format("{}", fmt::join(p.tensor_names, ", "))));
    fmt::print("{}\n", line);
  }
}

void print_text(const Model& model) {
  // Names, types and attribute values come from the file: escaped like the diagnostics.
  fmt::print("model '{}', IR version {} ({})\n", escape_nonprintable(model.name()),
             model.ir_version(), escape_nonprintable(model.source()));
  print_ports("inputs", model.inputs());
  print_ports("outputs", model.outputs());

  const auto& layers = model.layers();
  std::vector<std::array<std::string, 5>> rows{{"id", "name", "type", "outputs", "attributes"}};
  for (const LayerInfo& l : layers)
    rows.push_back({std::to_string(l.id), escape_nonprintable(l.name),
                    escape_nonprintable(display_type(l)), outputs_text(l),
                    escape_nonprintable(attributes_text(l))});
  std::array<std::size_t, 4> width{};
  for (const auto& row : rows)
    for (std::size_t c = 0; c < width.size(); ++c)
      width[c] = std::max(width[c], std::min<std::size_t>(row[c].size(), 40));
  fmt::print("layers ({}, in run order):\n", layers.size());
  for (const auto& row : rows) {
    std::string line = fmt::format("  {:>{}}  {:<{}}  {:<{}}  {:<{}}  {}", row[0], width[0], row[1],
                                   width[1], row[2], width[2], row[3], width[3], row[4]);
    line.erase(line.find_last_not_of(' ') + 1);
    fmt::print("{}\n", line);
  }
}

}  // namespace

int inspect_command(const InspectOptions& options) {
  const auto overrides = parse_shape_overrides(options.shapes);
  LoadOptions load;
  load.weights = options.weights;
  load.keep_going = true;
  // Errors that stop loading altogether (an unreadable file, malformed XML) still give a JSON
  // document, so that a script reads one format whatever happens.
  std::optional<Model> loaded;
  try {
    loaded = Model::load(options.model, load);
  } catch (const Error& e) {
    if (!options.json) throw;
    print_json(nullptr, options.model, {}, {e.what()});
    print_error(e.what());
    return kExitError;
  }
  Model model = *loaded;

  std::vector<std::string> warnings, problems;
  for (const Error& w : model.warnings()) warnings.push_back(w.what());
  for (const Error& p : model.problems()) problems.push_back(p.what());
  if (!overrides.empty()) {
    const auto shapes = resolve_shape_overrides(overrides, model);
    if (!problems.empty()) {
      warnings.push_back("--shape is not applied: the model has problems");
    } else {
      try {
        const Model reshaped = model.reshape(shapes);
        // The reshaped model's warnings include the loader's (a missing weights file).
        warnings.clear();
        for (const Error& w : reshaped.warnings()) warnings.push_back(w.what());
        model = reshaped;
      } catch (const Error& e) {
        problems.push_back(e.what());
      }
    }
  }

  if (options.json)
    print_json(&model, model.source(), warnings, problems);
  else
    print_text(model);
  for (const std::string& w : warnings) print_warning(w);
  for (const std::string& p : problems) print_error(p);
  return problems.empty() ? kExitOk : kExitError;
}

}  // namespace irlite::cli
