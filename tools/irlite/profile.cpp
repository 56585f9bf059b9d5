#include "profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "files.hpp"

namespace irlite::cli {
namespace {

/// The median of `values` (the mean of the middle two for an even count); 0 for none.
double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

/// "850 ns", "12.3 us", "4.56 ms", "1.25 s".
std::string format_time(double ns) {
  if (ns < 1e3) return fmt::format("{:.0f} ns", ns);
  if (ns < 1e6) return fmt::format("{:.1f} us", ns / 1e3);
  if (ns < 1e9) return fmt::format("{:.2f} ms", ns / 1e6);
  return fmt::format("{:.2f} s", ns / 1e9);
}

/// "512 B", "1.5 KiB", "3.0 MiB", "2.0 GiB".
std::string format_bytes(double bytes) {
  if (bytes < 1024) return fmt::format("{:.0f} B", bytes);
  if (bytes < 1024.0 * 1024) return fmt::format("{:.1f} KiB", bytes / 1024);
  if (bytes < 1024.0 * 1024 * 1024) return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024));
  return fmt::format("{:.1f} GiB", bytes / (1024.0 * 1024 * 1024));
}

std::string type_version(const LayerProfile& layer) {
  return fmt::format("{}-{}", layer.type, layer.version);
}

/// One compute layer over every run: the first run's record and the median time.
struct LayerSummary {
  const LayerProfile* layer;
  double median_ns;
};

/// The layers of the first run with their median times over the runs that ran the same layers
/// (every run of one Session does).
std::vector<LayerSummary> summarize(std::span<const RunProfile> runs) {
  std::vector<LayerSummary> rows;
  const RunProfile& first = runs.front();
  for (std::size_t i = 0; i < first.layers.size(); ++i) {
    std::vector<double> times;
    for (const RunProfile& run : runs)
      if (i < run.layers.size() && run.layers[i].layer == first.layers[i].layer)
        times.push_back(static_cast<double>(run.layers[i].duration_ns));
    rows.push_back({&first.layers[i], median(std::move(times))});
  }
  return rows;
}

std::string shapes_text(const std::vector<Shape>& shapes) {
  std::string text;
  for (const Shape& s : shapes) text += (text.empty() ? "" : ", ") + to_string(s);
  return text;
}

}  // namespace

void print_profile(const Model& model, std::span<const RunProfile> runs, std::FILE* out) {
  if (runs.empty()) return;
  const std::vector<LayerSummary> rows = summarize(runs);
  std::vector<double> totals;
  for (const RunProfile& run : runs) totals.push_back(static_cast<double>(run.total_ns));
  const double total = median(totals);
  const auto share = [&](double ns) { return total > 0 ? 100 * ns / total : 0.0; };

  std::vector<std::string> names;
  std::size_t name_width = 5, type_width = 4;
  const std::vector<LayerInfo>& layers = model.layers();
  const auto fused_type = [&](std::size_t index) {
    return fmt::format("{}-{}", layers[index].type, layers[index].version);
  };
  for (const LayerSummary& row : rows) {
    names.push_back(escape_nonprintable(row.layer->name));
    name_width = std::max(name_width, std::min<std::size_t>(names.back().size(), 40));
    type_width = std::max(type_width, type_version(*row.layer).size());
    for (std::size_t f : row.layer->fused_layers) {
      name_width = std::max(name_width,
                            std::min<std::size_t>(escape_nonprintable(layers[f].name).size(), 40));
      type_width = std::max(type_width, fused_type(f).size());
    }
  }
  fmt::print(out, "profile of {} ({}, median of {} run{}):\n", escape_nonprintable(model.source()),
             escape_nonprintable(model.name()), runs.size(), runs.size() == 1 ? "" : "s");
  fmt::print(out, "  {:>5}  {:<{}}  {:<{}}  {:>10}  {:>6}  {:>10}  {:>8}\n", "id", "layer",
             name_width, "type", type_width, "time", "share", "output", "GB/s");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const LayerProfile& layer = *rows[i].layer;
    const double ns = rows[i].median_ns;
    const double moved = static_cast<double>(layer.input_bytes + layer.output_bytes);
    fmt::print(out, "  {:>5}  {:<{}}  {:<{}}  {:>10}  {:>5.1f}%  {:>10}  {:>8}\n", layer.id,
               names[i], name_width, type_version(layer), type_width, format_time(ns), share(ns),
               format_bytes(static_cast<double>(layer.output_bytes)),
               ns > 0 ? fmt::format("{:.2f}", moved / ns) : std::string("-"));
    // The layers its kernel ran (LoadOptions::fuse_layers), under their own names.
    for (std::size_t f : layer.fused_layers)
      fmt::print(out, "  {:>5}  {:<{}}  {:<{}}  {:>10}\n", layers[f].id,
                 escape_nonprintable(layers[f].name), name_width, fused_type(f), type_width,
                 fmt::format("fused in {}", layer.id));
  }

  // By op type-version, in the order each first ran.
  std::vector<std::string> order;
  std::map<std::string, std::pair<std::size_t, double>> by_type;
  for (const LayerSummary& row : rows) {
    const std::string key = type_version(*row.layer);
    auto [it, added] = by_type.try_emplace(key, 0, 0.0);
    if (added) order.push_back(key);
    ++it->second.first;
    it->second.second += row.median_ns;
  }
  double layers_ns = 0;
  fmt::print(out, "by op:\n");
  for (const std::string& key : order) {
    const auto& [count, ns] = by_type.at(key);
    layers_ns += ns;
    fmt::print(out, "  {:<{}}  {:>3} layer{}  {:>10}  {:>5.1f}%\n", key, type_width, count,
               count == 1 ? " " : "s", format_time(ns), share(ns));
  }
  fmt::print(out, "layers: {} ({:.1f}%), run: {}\n", format_time(layers_ns), share(layers_ns),
             format_time(total));
}

Json profile_json(const Model& model, std::span<const RunProfile> runs) {
  Json doc{{"runs", runs.size()}, {"total_ns", 0.0}, {"layers", Json::array()}};
  if (runs.empty()) return doc;
  std::vector<double> totals;
  for (const RunProfile& run : runs) totals.push_back(static_cast<double>(run.total_ns));
  const double total = median(totals);
  doc["total_ns"] = total;
  for (const LayerSummary& row : summarize(runs)) {
    Json fused = Json::array();
    for (const std::size_t f : row.layer->fused_layers) fused.push_back(model.layers()[f].id);
    doc["layers"].push_back({{"id", row.layer->id},
                             {"median_ns", row.median_ns},
                             {"share", total > 0 ? 100 * row.median_ns / total : 0.0},
                             {"fused", std::move(fused)}});
  }
  return doc;
}

void write_chrome_trace(const Model& model, std::span<const RunProfile> runs,
                        const std::filesystem::path& path) {
  Json events = Json::array();
  double offset_us = 0;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const RunProfile& run = runs[r];
    events.push_back({{"name", fmt::format("run {}", r + 1)},
                      {"cat", "run"},
                      {"ph", "X"},
                      {"ts", offset_us},
                      {"dur", static_cast<double>(run.total_ns) / 1e3},
                      {"pid", 1},
                      {"tid", 1},
                      {"args", {{"model", model.source()}}}});
    for (const LayerProfile& layer : run.layers)
      events.push_back({{"name", layer.name},
                        {"cat", layer.type},
                        {"ph", "X"},
                        {"ts", offset_us + static_cast<double>(layer.start_ns) / 1e3},
                        {"dur", static_cast<double>(layer.duration_ns) / 1e3},
                        {"pid", 1},
                        {"tid", 1},
                        {"args",
                         {{"id", layer.id},
                          {"type", type_version(layer)},
                          {"input_shapes", shapes_text(layer.input_shapes)},
                          {"output_shapes", shapes_text(layer.output_shapes)},
                          {"input_bytes", layer.input_bytes},
                          {"output_bytes", layer.output_bytes}}}});
    offset_us += static_cast<double>(run.total_ns) / 1e3;
  }
  const Json doc = {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}};
  std::ofstream file(path, std::ios::binary);
  // Names come from the model file and need not be valid UTF-8: replace bad bytes, never throw.
  if (file) file << doc.dump(-1, ' ', false, Json::error_handler_t::replace) << '\n';
  file.close();
  if (!file) {
    throw Error(ErrorCode::io, "cannot write the trace file", file_context(path.string()));
  }
}

}  // namespace irlite::cli
