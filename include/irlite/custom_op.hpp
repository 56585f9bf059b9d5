#pragma once
// Ops of the caller's own, registered for one load: a layer whose `type` and `version` match a
// registered op runs the caller's shape rule and kernel, with errors located like built-in ones.
//
//   irlite::LoadOptions options;
//   options.custom_ops.add({.type = "Scale", .opset = "extension",
//                           .create = [](const irlite::LayerAttributes& a) {
//                             return std::make_shared<Scale>(a.get_float("factor"));
//                           }});
//   irlite::Model model = irlite::Model::load("model.xml", options);

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

#include "irlite/element_type.hpp"
#include "irlite/scratch.hpp"
#include "irlite/shape.hpp"
#include "irlite/tensor.hpp"

namespace irlite {

/// A layer's `<data>` attributes: names and their text as written, read-only. The getters
/// throw Error(format) naming the attribute and quoting its text when it is missing or does not
/// parse; the loader adds the file, line and layer.
class LayerAttributes {
 public:
  LayerAttributes() = default;
  explicit LayerAttributes(std::vector<std::pair<std::string, std::string>> items)
      : items_(std::move(items)) {}

  /// Whether the attribute is present.
  bool has(std::string_view name) const { return find(name) != nullptr; }
  /// The text of the attribute; nullptr when absent.
  const std::string* find(std::string_view name) const;
  /// The text of a required attribute.
  const std::string& get_string(std::string_view name) const;
  /// The text, or `fallback` when absent.
  std::string get_string(std::string_view name, std::string_view fallback) const;
  /// A decimal integer in the int64 range, nothing else around it.
  std::int64_t get_int(std::string_view name) const;
  /// The same, or `fallback` when absent.
  std::int64_t get_int(std::string_view name, std::int64_t fallback) const;
  /// A finite decimal number ("0.5", "-2", "1e-3").
  double get_float(std::string_view name) const;
  /// The same, or `fallback` when absent.
  double get_float(std::string_view name, double fallback) const;
  /// true, false, 1 or 0, any letter case.
  bool get_bool(std::string_view name) const;
  /// The same, or `fallback` when absent.
  bool get_bool(std::string_view name, bool fallback) const;
  /// Comma-separated integers ("0,2,1"); empty text is an empty list.
  std::vector<std::int64_t> get_ints(std::string_view name) const;
  /// An element type in either IR spelling ("f32", "FP32").
  ElementType get_element_type(std::string_view name) const;

  /// Every attribute in document order.
  const std::vector<std::pair<std::string, std::string>>& items() const { return items_; }

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

/// One input as a custom op's shape rule sees it.
struct CustomInput {
  ElementType element_type = ElementType::undefined;
  /// Partial while loading (dims or rank may be unknown); static before a run.
  PartialShape shape;
  /// The input's value, when known: a Const's while loading; before a run, only for the inputs
  /// CustomOp::shape_needs_value() names. Otherwise null.
  const Tensor* value = nullptr;
};

/// One output as a custom op's shape rule gives it.
struct CustomOutput {
  ElementType element_type = ElementType::undefined;
  PartialShape shape;
};

/// A configured custom op: one per layer, built from its attributes by the registered factory.
/// Immutable once built, and used from every thread that runs the model, so infer() and
/// execute() must be safe to call concurrently.
///
/// It gets the hooks a built-in op has, but for three. Its types are its own to check (no
/// registry entry lists them). It is never folded into a constant at load time: irlite cannot
/// know that its result depends on its inputs alone. And it gives no range of its integer
/// values to the layers after it (built-in ops carry bounds of values computed from shapes, so
/// that a TopK whose k comes from a ShapeOf has a bounded output): that rule, "the output is
/// monotonic in its inputs", is easy to state wrongly, and a wrong bound would be a silently
/// wrong shape; a layer after a custom op sees its values as unknown, which is always safe.
class CustomOp {
 public:
  virtual ~CustomOp() = default;
  /// The shape rule: checks the inputs' types and shapes (values where given) and returns one
  /// CustomOutput per output. Called while loading, on partial shapes, and before a run of a
  /// layer whose shapes were not all known at load time, on static ones: the result must then
  /// be static, and it must be the same for the same shapes and values. Reports problems with
  /// fail() or fail_input().
  virtual std::vector<CustomOutput> infer(std::span<const CustomInput> inputs) const = 0;
  /// Whether infer() reads the value of input `index` to work out the output shapes. Before a
  /// run, such inputs' values are given to infer(); the others' are not.
  virtual bool shape_needs_value([[maybe_unused]] std::size_t index) const { return false; }
  /// Computes the outputs, allocated with the shapes infer() gave for these inputs but not
  /// initialised: every element of every output must be written, into the tensors given
  /// (replacing one is an Error(usage)). Reports bad input values with fail_value().
  /// An op that overrides the overload below with a Scratch need not override this one.
  virtual void execute([[maybe_unused]] std::span<const Tensor> inputs,
                       [[maybe_unused]] std::span<Tensor> outputs) const {
    fail("the custom op overrides no execute()");
  }
  /// The same, with scratch memory of scratch_bytes() for these inputs and outputs taken from
  /// the Session's arena, as built-in kernels get theirs (see irlite/scratch.hpp): memory that
  /// counts in SessionOptions::max_memory_bytes and costs no allocation per run. Taking more
  /// than declared is an Error(usage). Default: the overload without scratch.
  virtual void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
                       [[maybe_unused]] const Scratch& scratch) const {
    execute(inputs, outputs);
  }
  /// The scratch bytes execute() takes on these inputs and outputs: the best way to compute it
  /// is the code that takes it, run on Scratch::counting(). Default: none.
  virtual std::size_t scratch_bytes([[maybe_unused]] std::span<const Tensor> inputs,
                                    [[maybe_unused]] std::span<const Tensor> outputs) const {
    return 0;
  }

 protected:
  /// Throws Error(shape) about the layer as a whole.
  [[noreturn]] static void fail(std::string message);
  /// Throws Error(shape) about input `index` (its position; errors show the IR port id).
  [[noreturn]] static void fail_input(std::size_t index, std::string message);
  /// Throws Error(value) about a value of input `index` met while running.
  [[noreturn]] static void fail_value(std::size_t index, std::string message);
};

/// Builds the op of one layer from its attributes. Throws Error (LayerAttributes' getters do)
/// for a bad or missing attribute.
using CustomOpFactory = std::function<std::shared_ptr<const CustomOp>(const LayerAttributes&)>;

/// What a custom op answers to, and how to build it.
struct CustomOpDef {
  /// The layer `type` it answers to, matched exactly: "Scale".
  std::string type;
  /// The layer `version` it answers to, matched exactly: "extension", "my_opset1".
  std::string opset;
  /// The op version shown after the type in errors and by Model::layers(): Scale-1.
  int version = 1;
  /// How many inputs a layer may have, and how many outputs it must have.
  int min_inputs = 1;
  int max_inputs = 1;
  int num_outputs = 1;
  CustomOpFactory create = nullptr;
};

/// The custom ops a load knows, keyed by (type, opset). A type irlite has built in (TopK,
/// Parameter, Const, ...) is refused: a model's built-in layers always mean what the OpenVINO
/// specification says. Copies share nothing but the factories.
class CustomOps {
 public:
  /// Registers an op. Throws Error(usage) for an empty type or opset, a built-in type, a
  /// (type, opset) pair already registered, counts out of order (0 <= min_inputs <= max_inputs,
  /// num_outputs >= 1) or no factory.
  CustomOps& add(CustomOpDef def);
  /// The registered ops, in the order they were added.
  const std::vector<CustomOpDef>& defs() const { return defs_; }
  bool empty() const { return defs_.empty(); }

 private:
  std::vector<CustomOpDef> defs_;
};

}  // namespace irlite
