#pragma once
// The graph algorithms the loader applies once the edges are known: the run order and which
// layers matter for the results.

#include "graph/graph.hpp"

namespace irlite {

/// Puts the nodes in topological order, ties broken by document order, and renumbers every
/// reference to them. A cycle is reported, naming its layers; with keep_going, the layers on or
/// behind it are kept at the end, marked failed.
void sort_topologically(Graph& graph, Diagnostics& diagnostics);

/// Sets each node's `reaches_result`: whether a Result depends on it. Parameters count as
/// reaching, being the model's inputs whether or not anything reads them.
void mark_reaching_results(Graph& graph);

}  // namespace irlite
