#pragma once
// The run plan of a graph, worked out once per model: the steps in order, where each value lives,
// when it dies, and which values take turns in the same memory.

#include <cstddef>
#include <optional>
#include <vector>

#include "graph/graph.hpp"

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
    IndexList inputs;              ///< slot per input
    std::size_t first_output = 0;  ///< slot of output 0; outputs are consecutive
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

}  // namespace irlite
