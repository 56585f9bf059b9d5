#pragma once
// Running a graph along its plan (exec/plan.hpp): layers in topological order, each output
// freed after its last consumer.

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "exec/plan.hpp"
#include "graph/graph.hpp"
#include "irlite/model_info.hpp"
#include "irlite/profile.hpp"

namespace irlite {

/// What a Session keeps for the executor from one run to the next: the plan's buffers (only
/// those it keeps are held between runs) and scratch space, so that a run allocates little
/// beyond its tensors.
struct ExecState {
  std::vector<std::shared_ptr<void>> buffers;
  std::vector<Tensor> slots;
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
  std::vector<ValueInfo> infos;
  /// Per slot: the bytes its value holds against the run's budget.
  std::vector<std::size_t> slot_bytes;
  /// Per slot: the Result whose bound tensor a layer writes the value into; SIZE_MAX for none.
  std::vector<std::size_t> slot_bound;
  /// The arena every kernel takes its scratch from: as large as the largest scratch a layer has
  /// declared so far. It grows only when a layer declares more (its shapes changed at run time),
  /// so a Session that runs the same shapes allocates it once.
  std::shared_ptr<void> arena;
  std::size_t arena_bytes = 0;
  /// Buffers of the plan a run let go of (not kept across runs), with their sizes: a later value
  /// of the same size, in this run or the next, takes one instead of fresh memory, whose pages
  /// would all fault again. At most one per buffer of the plan.
  std::vector<std::pair<std::size_t, std::shared_ptr<void>>> spare;
};

/// What a run does besides computing the outputs. Each part is optional.
struct RunHooks {
  /// Empty, or per Result (graph.results order): the caller's tensor the output goes into, if
  /// any (Session::bind_output).
  std::span<const std::optional<Tensor>> bound;
  /// Per Result: its description, naming it in errors about a bound tensor. Needed with `bound`.
  std::span<const PortInfo> outputs;
  /// Model::layers(). Needed with `profile` or `observer`.
  const std::vector<LayerInfo>* layers = nullptr;
  /// Filled with the run's compute layers and times when not null.
  RunProfile* profile = nullptr;
  /// Called after each layer that has outputs when not null.
  const LayerObserver* observer = nullptr;
};

/// What one run may allocate.
struct MemoryLimits {
  /// The run's budget: the outputs, the values alive between layers and a layer's kernel
  /// scratch, counted together while they live.
  std::size_t max_memory_bytes = SIZE_MAX;
  /// The largest single tensor; refused with its own message when below max_memory_bytes.
  std::size_t max_tensor_bytes = SIZE_MAX;
};

/// Runs the plan. `fed` holds one tensor per Parameter (graph.parameters order), already checked
/// against the Parameter's type and shape. Returns one tensor per Result (graph.results order); a
/// Result fed straight by a Const gets a copy, so that writing to an output never touches the
/// shared, possibly read-only, weights.
/// A layer whose step has shapes_fixed allocates its outputs straight away; the others infer
/// their shapes again from the real inputs. Before an output or a kernel's scratch is allocated
/// its bytes are added to those the run holds (inputs excepted: they are the caller's), and the
/// layer fails when the sum would pass `limits.max_memory_bytes`; a value leaves the sum when it
/// is released, right after its last reader (after its own layer when nothing reads it), and a
/// returned output stays in it to the end. An output is written into its slot's buffer in `state`
/// when nobody else holds that buffer (an output of an earlier run the caller dropped), else into
/// fresh memory. An output bound in `hooks` is written into the bound tensor instead (not
/// counted against the budget), after its type and shape are checked; one fed by a Parameter, a
/// Const or a value another bound output holds is copied into it. Throws Error placed at the
/// failing layer.
std::vector<Tensor> execute(const Graph& graph, const ExecPlan& plan, std::vector<Tensor> fed,
                            const MemoryLimits& limits, const ExecContext& context,
                            ExecState& state, const RunHooks& hooks = {});

}  // namespace irlite
