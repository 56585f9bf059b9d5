#pragma once
// Const attachment: once the graph is wired and sorted, each Const layer gets its value, a view
// of the weights' bytes (or a copy where a view would not do), checked against the shape and
// element type its op was given.

#include "graph/graph.hpp"
#include "loader/weights.hpp"

namespace irlite::loader {

/// Gives every Const layer of `graph` whose op stores a value that value, read from `weights`.
/// Problems (too few bytes, bytes beyond the file, no weights file) go to `diagnostics`; under
/// keep_going a missing weights file is one warning instead, and the values stay unknown.
void attach_constants(Graph& graph, const Weights& weights, Diagnostics& diagnostics);

}  // namespace irlite::loader
