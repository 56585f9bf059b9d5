#pragma once
// What a Model shares between its copies and sessions: the inferred graph and its descriptions.

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
  std::vector<LayerInfo> layers;
  std::vector<Error> warnings;
  std::vector<Error> problems;
  bool dynamic = false;
};

/// Infers shapes and fills the descriptions and the run plan of a freshly read graph.
std::shared_ptr<ModelImpl> finish_model(Graph graph, Diagnostics diagnostics);

}  // namespace irlite::detail
