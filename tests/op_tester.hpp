#pragma once
// A one-op model for tests: Parameters and Consts feed a single layer whose every output goes to
// a Result, written by GraphBuilder (with the output ports the op infers, as a serializer writes
// them) and loaded from memory, so a test exercises the loader, shape inference and executor
// exactly as a user's file would.
//
//   OpTester t("TopK", "opset11");
//   t.attr("axis", 1).attr("mode", "max").attr("sort", "value");
//   t.input_parameter("data", tensor(ElementType::f32, {2, 3}, {1, 5, 2, 4, 0, 3}));
//   t.input_const("k", tensor(ElementType::i64, {}, {2}));
//   std::vector<Tensor> out = t.run();  // out[0]: values, out[1]: indices

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/op.hpp"
#include "graph_builder.hpp"
#include "irlite/irlite.hpp"
#include "tensors.hpp"

namespace irlite::test {

class OpTester {
 public:
  /// The op's layer: its IR type ("TopK") and version ("opset11").
  OpTester(std::string type, std::string opset, std::string layer_name = "op");

  /// A `<data>` attribute, written as given (integers in decimal, booleans as true/false).
  OpTester& attr(std::string_view name, std::string_view value);
  OpTester& attr(std::string_view name, const char* value) {
    return attr(name, std::string_view(value));
  }
  OpTester& attr(std::string_view name, bool value) {
    return attr(name, std::string_view(value ? "true" : "false"));
  }
  template <std::integral T>
  requires(!std::same_as<T, bool>) OpTester& attr(std::string_view name, T value) {
    return attr(name, std::string_view(std::to_string(value)));
  }

  /// The next input port: a Parameter whose tensor is passed to run() by name.
  OpTester& input_parameter(std::string name, ElementType type, PartialShape shape);
  /// The next input port: a Parameter declared with `value`'s shape (or `shape`, which must
  /// accept it); run() feeds `value` unless told otherwise.
  OpTester& input_parameter(std::string name, Tensor value);
  OpTester& input_parameter(std::string name, Tensor value, PartialShape shape);
  /// The next input port: a Const whose bytes go into the weights blob.
  OpTester& input_const(std::string name, Tensor value);

  /// The op's outputs, named out0..out{n-1}. Default: the registered op's output count.
  OpTester& outputs(std::size_t n);
  /// The op's outputs with these tensor names (the names run() and Session::run() use).
  OpTester& outputs(std::vector<std::string> names);
  /// Writes output `index`'s port with this precision and these dims. Without it the ports
  /// carry what the registered op infers (the first input's type and no dims when it cannot).
  OpTester& declare_output(std::size_t index, ElementType type, PartialShape shape);

  /// The model as a GraphBuilder, to write or to change.
  GraphBuilder graph() const;
  /// The IR v11 document.
  std::string xml() const;
  /// Loads the model; it keeps its own copy of the weights. The op computes in the types it is
  /// given (InferencePrecision::declared, whatever `options` says).
  Model load(const LoadOptions& options = {});
  /// Loads the model (again if the tester changed since), runs it with the Parameter values
  /// given to input_parameter() overridden or completed by `feeds`, and returns the op's
  /// outputs in port order. Throws irlite::Error as Session::run() does.
  std::vector<Tensor> run(const std::map<std::string, Tensor>& feeds = {});

  /// Shape inference alone: the registered op's infer() on the inputs as the loader sees them
  /// (Consts with their values, Parameters without). Throws Error(unsupported) when the op is
  /// not registered, and whatever the op throws.
  std::vector<OutputInfo> infer() const;

  const std::string& type() const { return type_; }
  const std::string& opset() const { return opset_; }
  std::size_t output_count() const;
  const std::vector<std::string>& output_names() const;

 private:
  struct Input {
    std::string name;
    bool constant = false;
    ElementType type = ElementType::undefined;
    PartialShape shape;
    std::optional<Tensor> value;  // Const value, or the Parameter's default feed
  };
  struct Declared {
    ElementType type;
    PartialShape shape;
  };

  void changed() { model_.reset(); }

  std::string type_;
  std::string opset_;
  std::string layer_name_;
  std::vector<std::pair<std::string, std::string>> attrs_;
  std::vector<Input> inputs_;
  mutable std::vector<std::string> output_names_;
  bool outputs_set_ = false;
  std::map<std::size_t, Declared> declared_;
  std::optional<Model> model_;
};

}  // namespace irlite::test
