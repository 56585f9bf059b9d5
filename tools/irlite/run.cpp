// `irlite run`: feeds a model .npy or .npz files or seeded random inputs, prints a summary of
// every output (or one JSON document), optionally saves the outputs as .npy files or one .npz and
// compares them with references.

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <span>

#include "commands.hpp"
#include "dump.hpp"
#include "expect.hpp"
#include "inputs.hpp"
#include "outputs.hpp"
#include "profile.hpp"
#include "run_json.hpp"
#include "summary.hpp"

namespace irlite::cli {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The text summary: inputs with their sources, outputs with their statistics and files.
void print_summary(const Model& model, const Inputs& inputs, const std::vector<Tensor>& outputs,
                   const std::vector<std::string>& saved, std::size_t values) {
  const auto& ports = model.inputs();
  // Two aligned columns: the name, and the element type with the shape.
  std::vector<std::string> in_types, out_types;
  for (const PortInfo& p : ports) {
    const Tensor& t = inputs.tensors.at(p.name);
    in_types.push_back(fmt::format("{} {}", to_string(t.element_type()), to_string(t.shape())));
  }
  for (const Tensor& t : outputs)
    out_types.push_back(fmt::format("{} {}", to_string(t.element_type()), to_string(t.shape())));
  // Names come from the model and paths from the user: printed escaped, as diagnostics are.
  std::vector<std::string> in_names, out_names;
  for (const PortInfo& p : ports) in_names.push_back(escape_nonprintable(p.name));
  for (const PortInfo& p : model.outputs()) out_names.push_back(escape_nonprintable(p.name));
  std::size_t name_width = 0, type_width = 0;
  for (const auto* list : {&in_names, &out_names})
    for (const std::string& name : *list) name_width = std::max(name_width, name.size());
  for (const auto* list : {&in_types, &out_types})
    for (const std::string& t : *list) type_width = std::max(type_width, t.size());
  name_width = std::min<std::size_t>(name_width, 40);
  type_width = std::min<std::size_t>(type_width, 40);

  fmt::print("inputs:\n");
  if (ports.empty()) fmt::print("  (none)\n");
  for (std::size_t i = 0; i < ports.size(); ++i)
    fmt::print("  {:<{}}  {:<{}}  {}\n", in_names[i], name_width, in_types[i], type_width,
               escape_nonprintable(inputs.sources[i].describe()));
  fmt::print("outputs:\n");
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& t = outputs[i];
    fmt::print("  {:<{}}  {:<{}}  {}\n", out_names[i], name_width, out_types[i], type_width,
               summary_stats(t));
    if (!t.empty()) fmt::print("  {:<{}}  {}\n", "", name_width, summary_values(t, values));
    if (!saved.empty())
      fmt::print("  {:<{}}  saved to {}\n", "", name_width, escape_nonprintable(saved[i]));
  }
}

}  // namespace

int run_command(const RunOptions& options) {
  const auto start = Clock::now();
  // --dump writes every layer's output: each layer runs alone.
  const auto loaded = load_model(options.model, options.weights, options.precision, options.shapes,
                                 /*fuse=*/options.dump_dir.empty());
  if (!loaded) return kExitError;
  const Model& model = *loaded;
  SessionOptions session_settings = session_options(options.threads, options.max_memory);
  session_settings.profile = options.profile || !options.profile_json.empty();
  Session session(model, session_settings);
  const double load_ms = ms_since(start);
  const Inputs inputs = prepare_inputs(model, options.inputs, options.image, options.seed,
                                       session.options().max_memory_bytes);

  std::optional<LayerDump> dump;
  if (!options.dump_dir.empty()) dump.emplace(options.dump_dir);
  // The first run feeds the dump; each later one drops the previous outputs first, so that it
  // reuses their memory as a caller running in a loop would. The time is the last run's.
  Outputs results;
  std::vector<RunProfile> profiles;
  double run_ms = 0;
  for (std::size_t n = 0; n < options.repeat; ++n) {
    results = Outputs();
    const auto run_start = Clock::now();
    if (n == 0 && dump)
      results = session.run(inputs.tensors,
                            [&](const LayerInfo& layer, std::span<const Tensor> layer_outputs) {
                              dump->save(layer, layer_outputs);
                            });
    else
      results = session.run(inputs.tensors);
    run_ms = ms_since(run_start);
    if (session_settings.profile) profiles.push_back(session.profile());
  }
  if (dump) dump->write_index(model);
  const std::vector<Tensor> outputs = output_tensors(results);

  std::vector<std::string> saved;
  if (!options.output_dir.empty()) saved = save_outputs(options.output_dir, model, outputs);
  const ExpectOptions expect{options.expect, options.expect_dir, options.atol, options.rtol};
  std::vector<Comparison> comparisons;
  if (expect.any()) comparisons = check_outputs(model, outputs, expect);

  if (options.json) {
    RunReport report{&model,  &inputs, &outputs,       saved,
                     load_ms, run_ms,  options.values, expect.any() ? &comparisons : nullptr};
    fmt::print("{}\n", run_json(report).dump(2));
  } else {
    print_summary(model, inputs, outputs, saved, options.values);
    if (dump)
      fmt::print("layer outputs: {} files in {} (index.json)\n", dump->file_count(),
                 escape_nonprintable(dump->dir().string()));
    if (options.profile) print_profile(model, profiles, stdout);
    if (expect.any()) print_comparisons(comparisons);
  }
  if (!options.profile_json.empty()) write_chrome_trace(model, profiles, options.profile_json);
  return expect_status(comparisons);
}

}  // namespace irlite::cli
