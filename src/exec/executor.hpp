#pragma once
// Running a graph: layers in topological order, each output freed after its last consumer.

#include <cstddef>
#include <vector>

#include "graph/graph.hpp"

namespace irlite {

/// What to run, worked out once per model: the layers that reach a Result, where each one's
/// inputs and outputs live, which values die after each step, and the output shapes that are
/// known before any run.
struct ExecPlan {
  /// A layer's output during a run.
  struct Slot {
    /// The type and shape inferred at load time, when that shape is static (every run then
    /// produces exactly it).
    bool is_static = false;
    ElementType type = ElementType::undefined;
    Shape shape;
  };
  struct Step {
    std::size_t node;
    std::vector<std::size_t> inputs;  ///< slot per input
    std::size_t first_output = 0;     ///< slot of output 0; outputs are consecutive
    std::size_t output_count = 0;
    /// Slots whose last reader is this step, and outputs no layer reads (dead at once).
    std::vector<std::size_t> release;
    std::size_t io_index = 0;  ///< a Parameter's or Result's position among its kind
    /// The outputs are the slots' static ones: the shape rule does not run again. Set when the
    /// layer's input shapes are static and the rule reads no value but Consts'.
    bool shapes_fixed = false;
    /// Per input: whether the shape rule gets its value at run time (Op::shape_needs_value).
    std::vector<bool> value_inputs;
    /// Two inputs read the same slot.
    bool repeated_input = false;
  };
  std::vector<Step> steps;
  std::vector<Slot> slots;
  std::size_t slot_count = 0;
  std::size_t max_inputs = 0;
  std::size_t max_outputs = 0;
};

/// Plans a graph that loaded without problems (every port fed, every shape inferred).
ExecPlan make_plan(const Graph& graph);

/// What a Session keeps for the executor from one run to the next: scratch space, so that a run
/// allocates little beyond its tensors. It holds no tensor between runs.
struct ExecState {
  std::vector<Tensor> slots;
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
  std::vector<ValueInfo> infos;
};

/// Runs the plan. `fed` holds one tensor per Parameter (graph.parameters order), already checked
/// against the Parameter's type and shape. Returns one tensor per Result (graph.results order); a
/// Result fed straight by a Const gets a copy, so that writing to an output never touches the
/// shared, possibly read-only, weights.
/// A layer whose step has shapes_fixed allocates its outputs straight away; the others infer
/// their shapes again from the real inputs. An output larger than `max_tensor_bytes` is refused
/// before it is allocated. Throws Error placed at the failing layer.
std::vector<Tensor> execute(const Graph& graph, const ExecPlan& plan, std::vector<Tensor> fed,
                            std::size_t max_tensor_bytes, const ExecContext& context,
                            ExecState& state);

}  // namespace irlite
