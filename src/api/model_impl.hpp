#pragma once
// What a Model shares between its copies and sessions: the inferred graph and its descriptions.

#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "exec/executor.hpp"
#include "graph/graph.hpp"
#include "irlite/model.hpp"

namespace irlite::detail {

struct ModelImpl {
  Graph graph;
  ExecPlan plan;
  std::vector<PortInfo> inputs;
  std::vector<PortInfo> outputs;
  /// Model::layers(), described on first use.
  mutable std::once_flag layers_once;
  mutable std::vector<LayerInfo> layers;
  std::vector<Error> warnings;
  std::vector<Error> problems;
  bool dynamic = false;
  /// A Const has no data (a keep_going load without its weights): the model cannot run.
  bool weights_missing = false;

  /// find_input's table: each layer and tensor name to its input, built on first use.
  mutable std::once_flag input_index_once;
  mutable std::unordered_map<std::string_view, std::size_t> input_index;

  std::optional<std::size_t> find_input(std::string_view name) const;
  /// "x, y" for messages.
  std::string input_names() const;
};

/// Infers shapes and fills the inputs, outputs, warnings and the run plan of a freshly read
/// graph.
std::shared_ptr<ModelImpl> finish_model(Graph graph, Diagnostics diagnostics);

/// A LayerInfo per node, in the graph's order.
std::vector<LayerInfo> describe_layers(const Graph& graph);

}  // namespace irlite::detail
