#pragma once
// The interface every op implements (validation and shape rule, used at load time on partial
// shapes and at run time on real ones, and the kernel glue) and the registry entry that builds
// one. The graph holds ops through this interface only: the ops themselves live in src/ops/ and
// reach the loader through an OpResolver.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/parallel.hpp"
#include "irlite/element_type.hpp"
#include "irlite/error.hpp"
#include "irlite/ops.hpp"
#include "irlite/scratch.hpp"
#include "irlite/shape.hpp"
#include "irlite/tensor.hpp"

namespace irlite {

class Attributes;

/// One input as the shape rule sees it.
struct ValueInfo {
  ElementType type = ElementType::undefined;
  PartialShape shape;
  /// The input's value when the rule gets it: at load time every Const's and every value
  /// folded from Consts; at run time only those of the inputs the op names in
  /// Op::shape_needs_value().
  const Tensor* value = nullptr;
  /// At load time, when the value is not known but its range is (an integer computed from
  /// shapes, such as a `k` taken from a ShapeOf): element-wise lower and upper bounds, of the
  /// input's type and static shape. An upper bound of the type's largest value means unbounded.
  /// Null otherwise, and always null when `value` is set.
  const Tensor* lower = nullptr;
  const Tensor* upper = nullptr;
};

/// When a shape rule runs.
enum class Phase {
  /// While loading: shapes may be partial, values are those of Consts. A bad Const value is
  /// reported as the model's error (mostly ErrorCode::shape, as OpenVINO rejects the model).
  load,
  /// Before a layer runs: every shape is the real tensor's, and a bad value is the input's
  /// error (ErrorCode::value).
  run,
};

/// One output as the shape rule infers it.
struct OutputInfo {
  ElementType type = ElementType::undefined;
  PartialShape shape;
};

/// The range of an output's values, computed at load time (see ValueInfo::lower).
struct ValueBounds {
  Tensor lower;
  Tensor upper;
};

/// What a kernel may use while it runs: the Session's threads, and the scratch memory its op's
/// scratch_bytes() declared for these inputs (a slice of the Session's arena in a run; pieces of
/// their own outside one, as when folding Consts).
struct ExecContext {
  Parallel parallel;
  Scratch scratch = {};
};

/// A tensor stored in the weights file at [offset, offset + size).
struct StoredValue {
  ElementType type = ElementType::undefined;
  Shape shape;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

struct OpDef;

/// One element-wise step a layer may run in its kernel on each finished output element, with a
/// value per output channel (axis 1): the Add of a bias, a Multiply by a scale, Relu, PReLU,
/// FakeQuantize; or the Add of a tensor of the output's shape (a residual connection), which the
/// fused op reads as an input after the layer's own.
/// The load-time fusion pass (graph/fuse.hpp) finds them after a layer and hands them to
/// Op::fused(); an element's result is the same bits as the separate layers give.
struct ChannelStep {
  enum class Kind { add, multiply, relu, prelu, fake_quantize, add_tensor };
  Kind kind = Kind::relu;
  /// add: x + v, multiply: x * v, prelu: x < 0 ? x * v : x; one value per channel (relu: none).
  /// fake_quantize: four arrays of one value per channel, one after another: input_low,
  /// input_high, output_low, output_high.
  std::vector<float> values;
  /// fake_quantize: levels - 1.
  float steps = 0.0f;
  /// add_tensor: the fused op's input that holds the tensor (the layer's own inputs come first).
  std::size_t input = 0;
};

/// What an op works out once per layer from the layer's Const inputs while the model loads, and
/// reuses at every run (Op::prepare()): MatMul's B packed for its kernel. The op defines the
/// derived type; the layer keeps it for as long as the model lives.
class PreparedData {
 public:
  virtual ~PreparedData() = default;
};

/// A configured op: an instance per layer, built from the layer's attributes. Immutable.
class Op {
 public:
  virtual ~Op() = default;
  /// Checks every input's element type against the op's registry entry (check_input_types()),
  /// then runs the op's shape rule, infer_shapes(). The loader, the executor and the tests all
  /// come through here, so no shape rule checks a type its entry lists.
  std::vector<OutputInfo> infer(std::span<const ValueInfo> inputs, Phase phase) const;
  /// The load-time rule: infer(inputs, Phase::load).
  std::vector<OutputInfo> infer(std::span<const ValueInfo> inputs) const {
    return infer(inputs, Phase::load);
  }
  /// Whether the shape rule reads the value of input `index` (of `count` given) to work out
  /// the output shapes: TopK's k, ReduceMax's axes. At run time the executor gives infer() those
  /// values only, so that a large data input is not walked once by the rule and again by the
  /// kernel: whatever the rule would check in the other inputs' values, execute() checks.
  virtual bool shape_needs_value([[maybe_unused]] std::size_t index,
                                 [[maybe_unused]] std::size_t count) const {
    return false;
  }
  /// Computes the outputs, already allocated with the shapes infer() returned for these inputs.
  /// The outputs' memory is not initialised: execute() must write every element of every
  /// output. Checks the input values before writing any output, every value it relies on
  /// included (an index in range, ids sorted), also those infer() checks when it sees them.
  virtual void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
                       const ExecContext& context) const = 0;
  /// The scratch memory execute() takes from ExecContext::scratch on these inputs and outputs
  /// with `threads` threads, beyond the outputs: accumulators, per-thread buffers, index arrays,
  /// all memory that grows with the data. The executor reserves it against the run's memory
  /// budget and hands execute() a Scratch of exactly that size, so it must not be less than what
  /// the kernel takes on any values of these shapes: an op computes it with the code that takes
  /// the pieces, run on a counting Scratch (see irlite/scratch.hpp). SIZE_MAX when it does not
  /// fit in a size_t. A kernel's plan, a few words per axis, is not scratch: execute() may hold
  /// it in ordinary containers (tests/alloc checks that nothing else is allocated).
  virtual std::size_t scratch_bytes([[maybe_unused]] std::span<const Tensor> inputs,
                                    [[maybe_unused]] std::span<const Tensor> outputs,
                                    [[maybe_unused]] unsigned threads) const {
    return 0;
  }
  /// At load time, for a layer that runs (not folded) with at least one Const input: data
  /// the kernel can reuse at every run instead of deriving it each time (packed weights), or
  /// null (the default) for nothing. inputs[i].value is set for the Const inputs only. The data
  /// must depend only on those values and on the op's attributes, never on the other inputs'
  /// shapes: a reshape of the model keeps the Consts and may prepare again. The layer then runs
  /// through execute_prepared() and scratch_bytes_prepared() with it. Ops are shared by layers
  /// with the same attributes, so the data is the layer's, not the op's.
  virtual std::shared_ptr<const PreparedData> prepare(
      [[maybe_unused]] std::span<const ValueInfo> inputs) const {
    return nullptr;
  }
  /// execute() of a layer that prepare() gave `prepared`; the inputs are the real ones, the
  /// Consts' values included. Default: execute().
  virtual void execute_prepared(std::span<const Tensor> inputs, std::span<Tensor> outputs,
                                const ExecContext& context,
                                [[maybe_unused]] const PreparedData& prepared) const {
    execute(inputs, outputs, context);
  }
  /// scratch_bytes() of such a layer, whose kernel may need less. Default: scratch_bytes().
  virtual std::size_t scratch_bytes_prepared(std::span<const Tensor> inputs,
                                             std::span<const Tensor> outputs, unsigned threads,
                                             [[maybe_unused]] const PreparedData& prepared) const {
    return scratch_bytes(inputs, outputs, threads);
  }
  /// The attributes as text for display, in a stable order.
  virtual std::vector<std::pair<std::string, std::string>> attributes() const { return {}; }
  /// Whether execute() may run at load time on Const inputs, the result replacing the layer
  /// (constant folding). Ops whose result is not a function of their inputs alone say no.
  virtual bool foldable() const { return true; }
  /// At load time, the bounds of output 0's values from what is known of the inputs (values,
  /// bounds, shapes); nullopt when nothing is known. Called only when the output is an integer
  /// tensor of static shape. ShapeOf knows its output's range from the input's dims; ops whose
  /// output grows with each input (Concat, Gather's data, Squeeze, ReduceMin...) return
  /// monotonic_bounds(). Default: nothing known.
  virtual std::optional<ValueBounds> infer_bounds(
      [[maybe_unused]] std::span<const ValueInfo> inputs,
      [[maybe_unused]] const OutputInfo& output) const {
    return std::nullopt;
  }
  /// A copy of the op whose element-type attributes say `to` where they say `from` (a Const's or
  /// Parameter's element_type, Convert's destination_type, Range's output_type), or null when
  /// none does: the load-time pass that runs f16 layers in f32 (widen_floats()) calls it.
  virtual std::shared_ptr<const Op> retyped([[maybe_unused]] ElementType from,
                                            [[maybe_unused]] ElementType to) const {
    return nullptr;
  }
  /// A copy of the op whose kernel also runs `steps`, in order, on each f32 output element
  /// before it is stored; null (the default) when the op cannot. Called by the fusion pass only
  /// for a layer whose single output is f32 with a static channel count, each step carrying a
  /// value per channel.
  virtual std::shared_ptr<const Op> fused([[maybe_unused]] std::vector<ChannelStep> steps) const {
    return nullptr;
  }
  /// Where the layer's value is stored in the weights file: a Const's. The loader reads it from
  /// there; null for every other op.
  virtual const StoredValue* stored_value() const { return nullptr; }

 protected:
  /// The shape rule: validates the inputs' shapes (and values, where given), and how their
  /// types relate where the entry's lists cannot say it (one input's type equal to another's),
  /// and returns the outputs' types and shapes. At run time every input has a static shape,
  /// and the result must be static. Throws through op_error()/input_error()/bad_value().
  ///
  /// A layer whose input shapes are static and whose value inputs (shape_needs_value()) are
  /// Consts is inferred once, when the model loads, and not again before each run: the rule
  /// must give the same result for the same shapes and values.
  virtual std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs,
                                               Phase phase) const = 0;

 private:
  friend OpDef bind_contract(OpDef def);
  /// The entry's input type lists, set by bind_contract(); null for an op made without it.
  std::shared_ptr<const std::vector<OpPortInfo>> input_types_;
};

/// What the executor does with a layer.
enum class OpKind { compute, parameter, constant, result };

/// A registry entry: one (type, version) pair, written with designated initializers:
///
///   return {.type = "Gelu", .version = 7, .since_opset = 7,
///           .min_inputs = 1, .max_inputs = 1, .num_outputs = 1,
///           .create = create_gelu,
///           .input_types = {{"data", real_types()}},
///           .output_types = {{"output", real_types()}}};
///
/// The entry is the op's contract with the loader and the executor: they check the number of
/// inputs and outputs and every input's element type against it before the op's shape rule
/// runs, so a shape rule checks only what the lists cannot say (one input's type equal to
/// another's, ranks, values).
struct OpDef {
  std::string_view type;  ///< canonical name: "TopK"
  int version = 0;        ///< op version: 11
  int since_opset = 0;    ///< first opset that holds this version
  int min_inputs = 0;     ///< optional inputs come last
  int max_inputs = 0;     ///< INT_MAX for a variadic op (Concat)
  int num_outputs = 1;    ///< the outputs; the fewest of them when max_outputs is larger
  /// 0 for exactly num_outputs. Larger for an op whose attributes or inputs say how many
  /// outputs it has (Split's num_splits): the loader takes num_outputs to max_outputs ports,
  /// and the shape rule's count must then equal the layer's.
  int max_outputs = 0;
  OpKind kind = OpKind::compute;
  /// Builds the op from the layer's `<data>`; throws Error for a bad or missing attribute.
  /// A function object, so that a custom op's entry can hold the caller's factory.
  std::function<std::unique_ptr<const Op>(const Attributes& attributes)> create = {};
  /// The element types each input and each output may have: one entry per input (max_inputs
  /// of them; a variadic op has one for all its inputs), one per output. An input of a type
  /// not listed is refused before the shape rule runs (check_input_types()). Empty for a
  /// custom op, whose rule checks its own types.
  std::vector<OpPortInfo> input_types = {};
  std::vector<OpPortInfo> output_types = {};
};

/// The entry with `create` wrapped so that every op it makes checks its inputs' types against
/// `input_types` (Op::infer()). The registry binds every built-in entry.
OpDef bind_contract(OpDef def);

/// Throws input_error() for the first input whose element type its OpDef entry does not list:
/// "k must be i32 or i64, got f32". Every type is accepted where the entry lists none.
void check_input_types(const OpDef& def, std::span<const ValueInfo> inputs);

/// How a list of element types reads in a message: "a numeric tensor", "an integer tensor",
/// "i32 or i64".
std::string describe_types(std::span<const ElementType> types);

/// The bounds of an op whose output 0 does not decrease when any input grows: execute() on the
/// inputs' lower bounds gives the lower bound, on the upper bounds the upper one. Inputs with a
/// known value count as their own bounds; nullopt when an input is neither known nor bounded.
/// Both results keep the type's largest value where an upper bound was unbounded.
std::optional<ValueBounds> monotonic_bounds(const Op& op, std::span<const ValueInfo> inputs,
                                            const OutputInfo& output);

/// The op's display name: "TopK-11".
std::string op_display_name(const OpDef& def);

/// How the loader finds a layer's op: by its `type` and `version="opsetN"` attributes. Returns
/// nullptr with the reason in *why when there is none. The api composes the registry of built-in
/// ops (src/ops/registry.hpp) with the load's custom ops.
using OpResolver =
    std::function<const OpDef*(std::string_view type, std::string_view opset, std::string* why)>;

/// The ops one load can use: the resolver, and whatever owns the OpDefs it returns beyond the
/// built-in registry (the load's custom ops), which the graph keeps for as long as it lives.
struct OpCatalog {
  OpResolver resolve;
  std::shared_ptr<const void> owner;
};

/// The element types of OpDef's port lists: every numeric type; every integral type; i32 and
/// i64 (the index types); the floating-point types; every type a tensor can hold.
std::vector<ElementType> numeric_types();
std::vector<ElementType> integral_types();
std::vector<ElementType> index_types();
std::vector<ElementType> real_types();
std::vector<ElementType> all_types();

/// Throws Error(shape) about the layer as a whole; the caller adds the location.
[[noreturn]] void op_error(std::string message);
/// Throws Error(shape) about input `index` (0-based position; the caller maps it to the IR
/// port id and adds the location).
[[noreturn]] void input_error(std::size_t index, std::string message);
/// Throws Error(shape) saying execute() has no kernel for input `index`'s element type: a guard
/// for a caller that skipped check_input_types(), never reached through a Session.
[[noreturn]] void no_kernel(std::size_t index, ElementType type);
/// Throws the error for a bad value of input `index` (an index out of range, a negative k):
/// the model's, Error(shape), while loading; the input's, Error(value), at run time. Shape rules
/// say every bad value this way; execute(), which runs at run time only, may call value_error().
[[noreturn]] void bad_value(Phase phase, std::size_t index, std::string message);
/// Throws Error(value) about a run-time value of input `index`.
[[noreturn]] void value_error(std::size_t index, std::string message);

}  // namespace irlite
