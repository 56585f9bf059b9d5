#pragma once
// Running a graph: layers in topological order, each output freed after its last consumer.

#include <map>
#include <string>
#include <vector>

#include "graph/graph.hpp"

namespace irlite {

/// What to run, worked out once per model: the layers that reach a Result, where each one's
/// inputs and outputs live, and which values die after each step.
struct ExecPlan {
  struct Step {
    std::size_t node;
    std::vector<std::size_t> inputs;   ///< slot per input
    std::size_t first_output;          ///< slot of output 0; outputs are consecutive
    std::vector<std::size_t> release;  ///< slots whose last reader is this step
    std::size_t io_index = 0;          ///< a Parameter's or Result's position among its kind
    /// Per input: whether the shape rule gets its value at run time (Op::shape_needs_value).
    std::vector<bool> value_inputs;
  };
  std::vector<Step> steps;
  std::size_t slot_count = 0;
};

ExecPlan make_plan(const Graph& graph);

/// Runs the plan. `fed` holds one tensor per Parameter (graph.parameters order), already checked
/// against the Parameter's type and shape. Returns one tensor per Result (graph.results order); a
/// Result fed straight by a Const gets a copy, so that writing to an output never touches the
/// shared, possibly read-only, weights.
/// Shapes are inferred again from the real inputs at every layer, the shape rule seeing the values
/// of the inputs it names in Op::shape_needs_value() only; an output larger than
/// `max_tensor_bytes` is refused before it is allocated. Throws Error placed at the failing layer.
std::vector<Tensor> execute(const Graph& graph, const ExecPlan& plan, std::vector<Tensor> fed,
                            std::size_t max_tensor_bytes, const ExecContext& context);

}  // namespace irlite
