// `irlite inspect`: the model's inputs, outputs and layers with their inferred types and shapes,
// and every problem found in one pass.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <unordered_map>

#include "commands.hpp"
#include "files.hpp"
#include "graph_page.hpp"
#include "model_json.hpp"

namespace irlite::cli {
namespace {

std::string outputs_text(const LayerInfo& layer, std::span<const LayerInfo> layers) {
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
  if (layer.folded) s += " (folded)";
  if (layer.fused_into) s += fmt::format(" (fused into {})", layers[*layer.fused_into].id);
  return s;
}

// Where each input comes from and its shape: "0:0 [2,2], 3:1 []" (layer id:port), "?" for an
// input nothing feeds.
std::string inputs_text(const LayerInfo& layer,
                        const std::unordered_map<std::int64_t, const LayerInfo*>& by_id) {
  std::string s;
  for (const LayerInput& in : layer.inputs) {
    if (!s.empty()) s += ", ";
    const auto it = by_id.find(in.from_layer);
    if (in.from_layer < 0 || it == by_id.end()) {
      s += "?";
      continue;
    }
    s += fmt::format("{}:{}", in.from_layer, in.from_port);
    for (const LayerOutput& out : it->second->outputs)
      if (out.port == in.from_port) s += " " + to_string(out.shape);
  }
  return s.empty() ? "-" : s;
}

std::string attributes_text(const LayerInfo& layer) {
  std::string s;
  for (const auto& [key, value] : layer.attributes)
    s += fmt::format("{}{}={}", s.empty() ? "" : " ", key, value);
  return s;
}

// The document of model_json on stdout. Names come from the file and need not be valid UTF-8:
// bad bytes are replaced, never thrown on.
void print_json(const Model* model, const std::string& source, const std::vector<Error>& warnings,
                const std::vector<Error>& problems) {
  fmt::print("{}\n", model_json(model, source, warnings, problems)
                         .dump(2, ' ', false, Json::error_handler_t::replace));
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
  std::unordered_map<std::int64_t, const LayerInfo*> by_id;
  for (const LayerInfo& l : layers) by_id.emplace(l.id, &l);
  std::vector<std::array<std::string, 6>> rows{
      {"id", "name", "type", "inputs", "outputs", "attributes"}};
  for (const LayerInfo& l : layers)
    rows.push_back({std::to_string(l.id), escape_nonprintable(l.name),
                    escape_nonprintable(display_type(l)), inputs_text(l, by_id),
                    outputs_text(l, layers), escape_nonprintable(attributes_text(l))});
  // Every column but the last is padded to its widest cell, so that declared dims beside the
  // inferred ones keep the columns aligned. Names and types, written in the file, count only up
  // to 40 characters: a longer one shifts the rest of its own row, not the whole table.
  std::array<std::size_t, 5> width{};
  for (const auto& row : rows)
    for (std::size_t c = 0; c < width.size(); ++c) {
      const bool from_file = c == 1 || c == 2;
      width[c] =
          std::max(width[c], from_file ? std::min<std::size_t>(row[c].size(), 40) : row[c].size());
    }
  fmt::print("layers ({}, in run order):\n", layers.size());
  for (const auto& row : rows) {
    std::string line =
        fmt::format("  {:>{}}  {:<{}}  {:<{}}  {:<{}}  {:<{}}  {}", row[0], width[0], row[1],
                    width[1], row[2], width[2], row[3], width[3], row[4], width[4], row[5]);
    line.erase(line.find_last_not_of(' ') + 1);
    fmt::print("{}\n", line);
  }

  std::string counts;
  for (const auto& [type, count] : op_counts(model))
    counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", escape_nonprintable(type), count);
  fmt::print("ops: {}\n", counts.empty() ? "none" : counts);
  fmt::print("weights: {} bytes\n", weight_bytes(model));
}

// The --html page and the --dot file, when asked for.
void write_pictures(const InspectOptions& options, const Json& doc) {
  if (!options.html.empty()) write_file(options.html, graph_page(doc));
  if (!options.dot.empty()) write_file(options.dot, graph_dot(doc));
}

}  // namespace

int inspect_command(const InspectOptions& options) {
  check_model_path(options.model);
  const auto overrides = parse_shape_overrides(options.shapes);
  LoadOptions load;
  load.weights = options.weights;
  load.inference_precision = options.precision;
  load.keep_going = true;
  // Errors that stop loading altogether (an unreadable file, malformed XML) still give a JSON
  // document, so that a script reads one format whatever happens.
  std::optional<Model> loaded;
  try {
    loaded = Model::load(options.model, load);
  } catch (const Error& e) {
    if (!options.json && options.html.empty() && options.dot.empty()) throw;
    write_pictures(options, model_json(nullptr, options.model, {}, {e}));
    if (options.json) print_json(nullptr, options.model, {}, {e});
    print_error(e.what());
    return kExitError;
  }
  Model model = *loaded;

  std::vector<Error> warnings = model.warnings(), problems = model.problems();
  if (!overrides.empty()) {
    const auto shapes = resolve_shape_overrides(overrides, model);
    if (!problems.empty()) {
      warnings.emplace_back(ErrorCode::usage, "--shape is not applied: the model has problems");
    } else {
      try {
        const Model reshaped = model.reshape(shapes);
        // The reshaped model's warnings include the loader's (a missing weights file).
        warnings = reshaped.warnings();
        model = reshaped;
      } catch (const Error& e) {
        problems.push_back(e);
      }
    }
  }

  if (!options.html.empty() || !options.dot.empty())
    write_pictures(options, model_json(&model, model.source(), warnings, problems));
  if (options.json)
    print_json(&model, model.source(), warnings, problems);
  else if (options.html.empty() && options.dot.empty())
    print_text(model);
  for (const Error& w : warnings) print_warning(w.what());
  for (const Error& p : problems) print_error(p.what());
  if (std::any_of(problems.begin(), problems.end(),
                  [](const Error& p) { return p.code() == ErrorCode::unsupported; }))
    print_hint("'irlite ops' lists the op types and versions irlite has");
  return problems.empty() ? kExitOk : kExitError;
}

}  // namespace irlite::cli
