#pragma once
// The interface every op implements: validation and shape rule (one function, used at load
// time on partial shapes and at run time on real ones) and the kernel glue.

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/parallel.hpp"
#include "irlite/element_type.hpp"
#include "irlite/error.hpp"
#include "irlite/shape.hpp"
#include "irlite/tensor.hpp"

namespace irlite {

class Attributes;

/// One input as the shape rule sees it.
struct ValueInfo {
  ElementType type = ElementType::undefined;
  PartialShape shape;
  /// The input's value when known: a Const at load time, every input at run time.
  const Tensor* value = nullptr;
};

/// One output as the shape rule infers it.
struct OutputInfo {
  ElementType type = ElementType::undefined;
  PartialShape shape;
};

/// What a kernel may use while it runs: the Session's threads.
struct ExecContext {
  Parallel parallel;
};

/// A configured op: an instance per layer, built from the layer's attributes. Immutable.
class Op {
 public:
  virtual ~Op() = default;
  /// Validates the inputs' types and shapes (and values, where known) and returns the outputs'
  /// types and shapes. At run time every input has a static shape and a value, and the result
  /// must be static. Throws through op_error()/input_error().
  virtual std::vector<OutputInfo> infer(std::span<const ValueInfo> inputs) const = 0;
  /// Computes the outputs, already allocated with the shapes infer() returned for these inputs.
  /// The outputs' memory is not initialised: execute() must write every element of every
  /// output. Checks the input values before writing any output.
  virtual void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
                       const ExecContext& context) const = 0;
  /// The attributes as text for display, in a stable order.
  virtual std::vector<std::pair<std::string, std::string>> attributes() const { return {}; }
};

/// What the executor does with a layer.
enum class OpKind { compute, parameter, constant, result };

/// A registry entry: one (type, version) pair.
struct OpDef {
  std::string_view type;  ///< canonical name: "TopK"
  int version;            ///< op version: 11
  int since_opset;        ///< first opset that holds this version
  int min_inputs;
  int max_inputs;
  int num_outputs;
  OpKind kind = OpKind::compute;
  /// Builds the op from the layer's `<data>`; throws Error for a bad or missing attribute.
  std::unique_ptr<const Op> (*create)(const Attributes& attributes) = nullptr;
};

/// Throws Error(shape) about the layer as a whole; the caller adds the location.
[[noreturn]] void op_error(std::string message);
/// Throws Error(shape) about input `index` (0-based position; the caller maps it to the IR
/// port id and adds the location).
[[noreturn]] void input_error(std::size_t index, std::string message);
/// Throws Error(value) about a run-time value of input `index`.
[[noreturn]] void value_error(std::size_t index, std::string message);

}  // namespace irlite
