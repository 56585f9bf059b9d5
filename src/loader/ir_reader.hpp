#pragma once
// OpenVINO IR v10/v11 XML → Graph: layers, ports, edges, topological order, Const data.
//
// The reader proper is the IR schema and the driver: it checks the document against what an IR
// is (a <net> of version 10 or 11, its <layers> with their ports, precisions, dims and <data>),
// builds a node per layer, and reads the text in pieces when it splits, whole otherwise. The
// other jobs are the loader's other files: text positions (loader/text_positions.hpp), parsing
// the lists in pieces (loader/piece_parser.hpp), ids (loader/ids.hpp), layer types and ops
// (loader/layer_ops.hpp), edges (loader/wiring.hpp) and the Consts' values
// (loader/constants.hpp).

#include <cstddef>
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

/// The size of the pieces the <layers> and <edges> lists are parsed in (loader/xml_pieces.hpp):
/// their DOM, a few times larger, stays in the cache. 0 parses the text whole.
inline constexpr std::size_t kIrPieceBytes = std::size_t{64} << 10;

/// Reads an IR document. `file` names it in messages; `weights` may be absent (present=false),
/// which is fine as long as no Const needs bytes. Problems go to `diagnostics` (thrown at once
/// unless keep_going). Shapes are not inferred here. Layers get their ops from `ops`; the graph
/// keeps `ops.owner`. `piece_bytes` is for tests: the same graph and problems come out whatever
/// it is.
Graph read_ir(std::string_view xml, const std::string& file, const Weights& weights,
              Diagnostics& diagnostics, const OpCatalog& ops,
              std::size_t piece_bytes = kIrPieceBytes);

/// The same for a text that may be overwritten: when it is read whole, it is parsed in place,
/// released as it is read, and of no use afterwards.
Graph read_ir_in_place(XmlText& xml, const std::string& file, const Weights& weights,
                       Diagnostics& diagnostics, const OpCatalog& ops,
                       std::size_t piece_bytes = kIrPieceBytes);

}  // namespace irlite
