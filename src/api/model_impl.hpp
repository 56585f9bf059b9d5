#pragma once
// What a Model shares between its copies and sessions: the inferred graph and its descriptions.

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
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

/// The library's way into a Model: its shared part, and a Model around a new one.
struct ModelAccess {
  /// Error(usage) for a moved-from Model.
  static const ModelImpl& impl(const Model& model) { return model.get(); }
  static Model make(std::shared_ptr<const ModelImpl> impl) { return Model(std::move(impl)); }
};

/// Infers shapes and fills the inputs, outputs, warnings and the run plan of a freshly read
/// graph.
std::shared_ptr<ModelImpl> finish_model(Graph graph, Diagnostics diagnostics);

/// A LayerInfo per node, in the graph's order.
std::vector<LayerInfo> describe_layers(const Graph& graph);

}  // namespace irlite::detail
