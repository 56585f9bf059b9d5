#pragma once
// A model as one JSON document: what `inspect --json` prints, and what the graph page and the
// Graphviz file of `inspect --html` and `--dot` are drawn from.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "irlite/irlite.hpp"

namespace irlite::cli {

using Json = nlohmann::ordered_json;

/// "TopK-11"; an op irlite does not know keeps its IR spelling and opset: "Foo (custom)".
std::string display_type(const LayerInfo& layer);

/// The dims written on an output port, as a partial shape: "[1,?,3]".
std::string declared_shape(const LayerOutput& out);

/// Whether the precision written on an output port contradicts the inferred element type.
bool declared_type_differs(const LayerOutput& out);

/// The document for a model, or for a file that could not be loaded at all (model null): name,
/// ir_version, source, is_dynamic, inputs, outputs, op_counts, weight_bytes, layers (id, name,
/// type, version, opset, line, attributes, reaches_result, folded, fused_into, inputs, outputs),
/// warnings and problems (code, file, line, column, layer, port, message, text).
Json model_json(const Model* model, const std::string& source, const std::vector<Error>& warnings,
                const std::vector<Error>& problems);

/// How many layers of each op, "Constant-1" before "TopK-11" (by name).
std::map<std::string, std::size_t> op_counts(const Model& model);

/// The bytes of every Const's data: what the model's weights take in memory.
std::uint64_t weight_bytes(const Model& model);

}  // namespace irlite::cli
