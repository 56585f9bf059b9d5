#pragma once
// OpenVINO IR v10/v11 XML → Graph: layers, ports, edges, topological order, Const data.

#include <string>
#include <string_view>

#include <pugixml.hpp>

#include "graph/graph.hpp"
#include "loader/weights.hpp"
#include "loader/xml_text.hpp"

namespace irlite {

/// The pugixml parse options the reader uses: OpenVINO's (escapes, end-of-line and attribute
/// whitespace normalisation, CDATA).
inline constexpr unsigned kIrParseOptions = pugi::parse_default;

/// Reads an IR document. `file` names it in messages; `weights` may be absent (present=false),
/// which is fine as long as no Const needs bytes. Problems go to `diagnostics` (thrown at once
/// unless keep_going). Shapes are not inferred here. Layers get their ops from `ops`; the graph
/// keeps `ops.owner`.
Graph read_ir(std::string_view xml, const std::string& file, const Weights& weights,
              Diagnostics& diagnostics, const OpCatalog& ops);

/// The same, parsing `xml` in place instead of copying it: the text is overwritten, released
/// as it is read, and of no use afterwards.
Graph read_ir_in_place(XmlText& xml, const std::string& file, const Weights& weights,
                       Diagnostics& diagnostics, const OpCatalog& ops);

}  // namespace irlite
