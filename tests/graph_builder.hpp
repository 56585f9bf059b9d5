#pragma once
// The tests' IR writer: Parameters, Consts and layers wired by their outputs, written as a real
// IR document and weights blob and loaded through Model::load_from_memory, so a test exercises
// the loader, shape inference and executor exactly as a user's file would. OpTester is the
// one-op case of it.
//
//   GraphBuilder g;
//   auto data = g.parameter("data", ElementType::f32, ps("?,8"));
//   auto shape = g.layer("ShapeOf", "opset3", {{"output_type", "i64"}}, {data},
//   {ElementType::i64}); g.result(shape[0], "shape"); Model m = g.load();
//
// Tests of the reader also write what no serializer would: every layer stays open to changes
// before xml() through at() (its id, attributes as written, a port's precision or dims
// spelled as given), and raw_layer() and edge() add pieces as written. A test of the XML text
// itself (parse errors, line and column numbers, a serializer's layout) keeps its literal text.

#include <cstddef>
#include <cstdint>
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

  /// An output port as written.
  struct Output {
    ElementType type = ElementType::undefined;
    /// Its <dim>s (-1 for a dimension that is not static); none for a dynamic rank.
    PartialShape shape = PartialShape::dynamic_rank();
    /// Its tensor names, comma-separated (a comma inside a name written as `\,`).
    std::string names;
    /// Written as the `precision` instead of the type's OpenVINO name ("FP32") when not empty.
    std::string precision;
    /// Written as the port's content instead of `shape`'s <dim>s when not empty.
    std::string dims;
  };

  /// A layer as written. Input ports are numbered from 0, output ports after them.
  struct Layer {
    std::int64_t id = 0;
    std::string name, type, version;
    /// The `<data>` attributes, in order, written as given (escaped); none: no `<data>`.
    std::vector<std::pair<std::string, std::string>> data;
    std::vector<Port> inputs;
    std::vector<Output> outputs;
    /// Written as is instead of everything above when not empty (see raw_layer()).
    std::string raw;
    /// A Const's value, whose bytes go into the weights at `offset` (8-byte aligned).
    Tensor value;
    std::size_t offset = 0;
  };

  /// A `<net>` of this name and IR version (10 and 11 are what the loader reads).
  explicit GraphBuilder(std::string name = "test", int version = 11);

  /// A Parameter whose output tensor is named `name`.
  Port parameter(std::string name, ElementType type, const PartialShape& shape);
  /// A Const whose output tensor is named `name`; its bytes go into weights().
  Port constant(std::string name, Tensor value);
  /// A layer of `type` from `opset` with these `<data>` attributes, fed by `inputs`, with one
  /// output of each of `output_types` (written without dims unless declare()d: the loader infers
  /// them). Its name is `name`, or `<type>_<id>`.
  std::vector<Port> layer(std::string type, std::string opset,
                          std::vector<std::pair<std::string, std::string>> attributes,
                          std::vector<Port> inputs, std::vector<ElementType> output_types,
                          std::string name = "");
  /// A Result reading `port`, named `<name>/sink_port_0` as OpenVINO names them; the port's
  /// tensor is named `name` (the name a Session's output has). Returns the Result's index.
  std::size_t result(Port port, std::string name);
  /// Writes output `port` with this type and these dims (what a serializer records).
  void declare(Port port, ElementType type, PartialShape shape);

  /// The layer written at `index` (Ports say theirs), to change before writing.
  Layer& at(std::size_t index) { return layers_.at(index); }
  Layer& at(Port port) { return at(port.layer); }
  const Layer& at(std::size_t index) const { return layers_.at(index); }
  std::size_t size() const { return layers_.size(); }

  /// A `<layer>` element (or any text) written as given, in its place among the layers.
  void raw_layer(std::string xml);
  /// An edge written as given, after those of the layers' inputs.
  void edge(std::int64_t from_layer, std::int64_t from_port, std::int64_t to_layer,
            std::int64_t to_port);
  /// Whether the layers' inputs are written as edges (the default); without them only edge()s
  /// are, while the input ports are still written.
  void edges_from_inputs(bool on) { edges_from_inputs_ = on; }

  /// The IR document.
  std::string xml() const;
  /// The weights blob the Consts point into.
  std::vector<std::byte> weights() const;
  /// Loads xml() and weights(); the model keeps its own copy of the weights. `source_name` is
  /// the file name its messages give.
  Model load(const LoadOptions& options = {}, std::string source_name = "test.xml") const;

 private:
  std::string name_;
  int version_;
  std::vector<Layer> layers_;
  std::vector<std::string> extra_edges_;
  bool edges_from_inputs_ = true;
  std::size_t weights_size_ = 0;
};

/// A partial shape in the IR's Parameter `shape` spelling: no brackets, `...` for dynamic rank.
std::string ir_shape_text(const PartialShape& shape);

}  // namespace irlite::test
