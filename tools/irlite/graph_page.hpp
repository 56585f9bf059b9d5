#pragma once
// Pictures of a model's graph: a self-contained HTML page (`inspect --html`, `bench --profile
// --html`) and a Graphviz file (`inspect --dot`), both drawn from the document of model_json.

#include <string>

#include "model_json.hpp"

namespace irlite::cli {

/// The page for `doc` (model_json, with an optional "profile" member of profile_json): the
/// document as JSON in a script element of type application/json, where '<', '>' and '&' are
/// written as \u escapes so that no text from the model can end the element, then the style,
/// the layout library and the script that draws it. It loads nothing from the network.
std::string graph_page(const Json& doc);

/// The graph in Graphviz's DOT language: a box per layer with its type-version, name, the
/// Consts it reads (as their shapes), and notes (declared shapes that differ, folded, not run,
/// fused, each problem and warning with its file:line:col) in colour; each edge labelled with
/// the shape of the output it carries. Every text is a quoted DOT string with '"', '\' and
/// control characters escaped.
std::string graph_dot(const Json& doc);

}  // namespace irlite::cli
