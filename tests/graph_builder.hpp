#pragma once
// A multi-layer model builder for tests: Parameters, Consts and layers wired by their outputs,
// written as a real IR v11 document and weights blob and loaded through
// Model::load_from_memory.
//
//   GraphBuilder g;
//   auto data = g.parameter("data", ElementType::f32, ps("?,8"));
//   auto shape = g.layer("ShapeOf", "opset3", {{"output_type", "i64"}}, {data}, {ElementType::i64});
//   g.result(shape[0], "shape");
//   Model m = g.load();

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "irlite/irlite.hpp"

namespace irlite::test {

class GraphBuilder {
 public:
  /// One output of a layer: what feeds an input.
  struct Port {
    std::size_t layer = 0;
    std::size_t output = 0;
  };

  Port parameter(std::string name, ElementType type, const PartialShape& shape);
  Port constant(std::string name, Tensor value);
  /// A layer of `type` from `opset` with these `<data>` attributes, fed by `inputs`, with one
  /// output of each of `output_types` (written without dims: the loader infers them).
  std::vector<Port> layer(std::string type, std::string opset,
                          std::vector<std::pair<std::string, std::string>> attributes,
                          std::vector<Port> inputs, std::vector<ElementType> output_types,
                          std::string name = "");
  /// A Result reading `port`, whose output is named `name` (the port's tensor name).
  void result(Port port, std::string name);

  std::string xml() const;
  std::vector<std::byte> weights() const;
  /// Loads xml() and weights(); the model keeps its own copy of the weights.
  Model load(const LoadOptions& options = {}) const;

 private:
  struct Layer {
    std::string name, type, opset;
    std::vector<std::pair<std::string, std::string>> attributes;
    std::vector<Port> inputs;
    std::vector<ElementType> output_types;
    std::vector<PartialShape> output_shapes;  // what the IR declares; dynamic rank = no dims
    std::vector<std::string> output_names;
    std::size_t offset = 0;  // a Const's place in the weights
    Tensor value;
  };

  std::vector<Layer> layers_;
  std::size_t weights_size_ = 0;
};

}  // namespace irlite::test
