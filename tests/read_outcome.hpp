#pragma once
// What reading an IR text gives, as text: the graph (everything later stages use), or the error,
// then the problems and warnings. Two readings agree when their texts are equal.

#include <fmt/format.h>

#include <cstddef>
#include <string>

#include "graph/graph.hpp"
#include "loader/ir_reader.hpp"
#include "ops/registry.hpp"

namespace irlite::test {

/// Everything the reader puts in a graph that later stages use, as text.
inline std::string describe(const Graph& g) {
  std::string s = fmt::format("net '{}' v{}\n", g.name, g.ir_version);
  for (const Node& n : g.nodes) {
    s += fmt::format("{} '{}' {}-{} at {}:{} def={} op={} failed={} reaches={} value={}\n", n.id,
                     n.name, n.type(), n.opset(), n.location.line, n.location.column,
                     n.def != nullptr, n.op != nullptr, n.failed, n.reaches_result, n.has_value);
    for (const auto& [k, v] : n.data_attributes) s += fmt::format("  data {}={}\n", k, v);
    for (const InputPort& in : n.inputs)
      s += fmt::format("  in {} <- {}:{}\n", in.id,
                       in.source_node == SIZE_MAX ? -1 : g.nodes[in.source_node].id,
                       in.source_output);
    for (const OutputPort& out : n.outputs) {
      s += fmt::format("  out {} {} [", out.id, to_string(out.declared_type));
      for (std::int64_t d : out.declared_dims) s += fmt::format("{},", d);
      s += "] names";
      for (const std::string& name : out.names) s += " '" + name + "'";
      s += "\n";
    }
  }
  for (std::size_t p : g.parameters) s += fmt::format("parameter {}\n", p);
  for (std::size_t r : g.results) s += fmt::format("result {}\n", r);
  return s;
}

/// The diagnostics' problems and warnings, a line each.
inline std::string describe(const Diagnostics& diagnostics) {
  std::string s;
  for (const Error& e : diagnostics.problems) s += std::string("problem: ") + e.what() + "\n";
  for (const Error& e : diagnostics.warnings) s += std::string("warning: ") + e.what() + "\n";
  return s;
}

/// read_ir of `xml` (no weights, the built-in ops) with `piece_bytes`, described.
inline std::string read_outcome(std::string_view xml, bool keep_going, std::size_t piece_bytes) {
  Diagnostics diagnostics;
  diagnostics.keep_going = keep_going;
  std::string s;
  try {
    s = describe(
        read_ir(xml, "m.xml", Weights{}, diagnostics, OpCatalog{resolve_op, nullptr}, piece_bytes));
  } catch (const Error& e) {
    s = std::string("error: ") + e.what() + "\n";
  }
  return s + describe(diagnostics);
}

}  // namespace irlite::test
