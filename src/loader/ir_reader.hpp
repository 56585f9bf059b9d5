#pragma once
// OpenVINO IR v10/v11 XML → Graph: layers, ports, edges, topological order, Const data.

#include <memory>
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
/// unless keep_going). Shapes are not inferred here. Layers are matched with `custom_ops`
/// (when given) before the built-in registry; the graph keeps the table.
Graph read_ir(std::string_view xml, const std::string& file, const Weights& weights,
              Diagnostics& diagnostics,
              std::shared_ptr<const CustomOpTable> custom_ops = nullptr);

/// The same, parsing `xml` in place instead of copying it: the text is overwritten, released
/// as it is read, and of no use afterwards.
Graph read_ir_in_place(XmlText& xml, const std::string& file, const Weights& weights,
                       Diagnostics& diagnostics,
                       std::shared_ptr<const CustomOpTable> custom_ops = nullptr);

}  // namespace irlite
