#pragma once
// Running a graph: layers in topological order, each output freed after its last consumer.

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "graph/graph.hpp"
#include "irlite/model_info.hpp"
#include "irlite/profile.hpp"

namespace irlite {

/// A short list of indices, the first few held in place: most steps read one or two slots and
/// release one, and a model may have 10^5 steps, so a vector each would be as many allocations.
class IndexList {
 public:
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const std::size_t* begin() const { return size_ <= kInline ? inline_ : more_.data(); }
  const std::size_t* end() const { return begin() + size_; }
  std::size_t operator[](std::size_t i) const { return begin()[i]; }
  void push_back(std::size_t index) {
    if (size_ < kInline) {
      inline_[size_++] = index;
      return;
    }
    if (size_ == kInline) more_.assign(inline_, inline_ + kInline);
    more_.push_back(index);
    ++size_;
  }

 private:
  static constexpr std::size_t kInline = 2;
  std::size_t size_ = 0;
  std::size_t inline_[kInline] = {};
  std::vector<std::size_t> more_;  ///< every index once there are more than kInline
};

/// What to run, worked out once per model: the layers that reach a Result, where each one's
/// inputs and outputs live, which values die after each step, the output shapes that are known
/// before any run, and which values may share memory.
struct ExecPlan {
  /// A layer's output during a run.
  struct Slot {
    /// The type and shape inferred at load time, when that shape is static (every run then
    /// produces exactly it).
    bool is_static = false;
    ElementType type = ElementType::undefined;
    Shape shape;
    /// The byte size of a static value up to kMaxPlannedBytes; larger ones are left to the
    /// run's size check and never share memory.
    std::optional<std::size_t> bytes;
    /// The buffer (index into buffers) the value is placed in; SIZE_MAX: fresh memory at each
    /// run, freed after the last reader.
    std::size_t buffer = SIZE_MAX;
    /// A Result reads it: the caller gets the value, which outlives the run.
    bool returned = false;
  };
  /// Memory that values of one byte size take in turn, each after the previous one died.
  struct Buffer {
    std::size_t bytes = 0;
    /// Kept by the Session from one run to the next; otherwise freed once its last value of
    /// the run is dead.
    bool keep = false;
  };
  struct Step {
    std::size_t node;
    IndexList inputs;  ///< slot per input
    std::size_t first_output = 0;     ///< slot of output 0; outputs are consecutive
    std::size_t output_count = 0;
    /// Slots whose last reader is this step, and outputs no layer reads (dead at once).
    IndexList release;
    /// Buffers not kept across runs whose last value dies after this step.
    IndexList drop;
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
  std::vector<Buffer> buffers;
  /// Buffers not kept across runs whose last value is an output: the Session lets go of them
  /// when the run ends, the caller holds them.
  std::vector<std::size_t> drop_at_end;
  /// Per Result (graph.results order): the slot it returns.
  std::vector<std::size_t> result_slots;
  std::size_t slot_count = 0;
  std::size_t max_inputs = 0;
  std::size_t max_outputs = 0;
};

/// Values larger than this are not planned into shared buffers.
inline constexpr std::size_t kMaxPlannedBytes = std::size_t{1} << 40;

/// Plans a graph that loaded without problems (every port fed, every shape inferred).
ExecPlan make_plan(const Graph& graph);

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
