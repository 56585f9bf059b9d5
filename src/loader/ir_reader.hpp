#pragma once
// OpenVINO IR v10/v11 XML → Graph: layers, ports, edges, topological order, Const data.

#include <string>
#include <string_view>

#include "graph/graph.hpp"
#include "loader/weights.hpp"

namespace irlite {

/// Reads an IR document. `file` names it in messages; `weights` may be absent (present=false),
/// which is fine as long as no Const needs bytes. Problems go to `diagnostics` (thrown at once
/// unless keep_going). Shapes are not inferred here.
Graph read_ir(std::string_view xml, const std::string& file, const Weights& weights,
              Diagnostics& diagnostics);

}  // namespace irlite
