#pragma once
// The loaded graph: layers with their ports and edges, in topological order.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graph/op.hpp"
#include "irlite/error.hpp"
#include "irlite/shape.hpp"
#include "irlite/tensor.hpp"

namespace irlite {

/// 1-based line and column in the .xml; 0 when unknown.
struct Location {
  std::int64_t line = 0;
  std::int64_t column = 0;
};

struct InputPort {
  std::int64_t id = 0;                 ///< IR port id
  std::size_t source_node = SIZE_MAX;  ///< index into Graph::nodes; SIZE_MAX = not fed
  std::size_t source_output = 0;       ///< output position on the source node
};

struct OutputPort {
  std::int64_t id = 0;  ///< IR port id
  std::vector<std::string> names;
  ElementType declared_type = ElementType::undefined;
  std::vector<std::int64_t> declared_dims;
  ElementType type = ElementType::undefined;  ///< inferred
  PartialShape shape = PartialShape::dynamic_rank();
  /// The range of the values, when load-time value propagation knows it (ValueInfo::lower).
  /// Behind a pointer: few outputs have bounds, and every output would otherwise carry the room
  /// for two tensors.
  std::shared_ptr<const ValueBounds> bounds;
};

/// A layer's type and opset as written in the IR, shared by the layers that write the same.
struct LayerTypeText {
  std::string type;
  std::string opset;  ///< as written: "opset11"
};

struct Node {
  std::int64_t id = 0;
  std::string name;
  /// The type and opset as written; owned by Graph::type_texts. Shared rather than held per
  /// layer: a model has few of them and may have 10^5 layers.
  const LayerTypeText* written = nullptr;
  Location location;
  const OpDef* def = nullptr;  ///< null when the op is not supported or its <data> is bad
  std::shared_ptr<const Op> op;
  /// The `<data>` attributes as written, kept only for a layer without an op (an unsupported
  /// type or a bad `<data>`) so that Model::layers() still shows them.
  std::vector<std::pair<std::string, std::string>> data_attributes;
  std::vector<InputPort> inputs;    ///< in input order
  std::vector<OutputPort> outputs;  ///< in output order
  /// A Const's data (empty when the weights are absent), or the value a layer whose inputs are
  /// all known was folded into at load time.
  Tensor value;
  bool has_value = false;
  /// The layer was computed at load time: it runs as a Const of `value` from then on.
  bool folded = false;
  /// What Op::prepare() derived from the layer's Const inputs at load time; null for nothing.
  std::shared_ptr<const PreparedData> prepared;
  /// Set by the fusion pass (graph/fuse.hpp) on a layer that runs the element-wise layers after
  /// it in its kernel: the op that does (Op::fused()), and those layers in order. `op` stays the
  /// layer's own, for its shape rule, its attributes and a reshape.
  std::shared_ptr<const Op> fused_op;
  std::vector<std::size_t> fused_layers;
  /// The values fused_op reads after the layer's own inputs: the tensors its chain adds
  /// (ChannelStep::Kind::add_tensor), each computed before this layer runs.
  std::vector<InputPort> fused_inputs;
  /// On a layer run inside another's kernel: that layer's index. It has no step of its own; its
  /// readers read that layer's output, which is its value.
  std::size_t fused_into = SIZE_MAX;
  /// A Parameter or Result of a model whose f16/bf16 layers compute in f32: the type the caller
  /// gives or gets there, converted from or to the computed one by the run. Undefined when the
  /// two are the same.
  ElementType edge_type = ElementType::undefined;
  bool reaches_result = true;
  bool failed = false;  ///< shape inference or creation failed: outputs are unknown

  /// The type as written in the IR.
  const std::string& type() const { return written ? written->type : no_text(); }
  /// The opset as written in the IR.
  const std::string& opset() const { return written ? written->opset : no_text(); }

  OpKind kind() const {
    if (folded) return OpKind::constant;
    return def ? def->kind : OpKind::compute;
  }

 private:
  static const std::string& no_text() {
    static const std::string empty;
    return empty;
  }
};

struct Graph {
  std::string file;  ///< the .xml path as given, for messages
  /// What owns the OpDefs that nodes' `def` point to, beyond the built-in registry (the load's
  /// custom ops); null without any.
  std::shared_ptr<const void> op_owner;
  /// What nodes' `written` point to; copies of the graph share it.
  std::shared_ptr<const std::deque<LayerTypeText>> type_texts;
  std::string name;
  int ir_version = 0;
  /// The f16 and bf16 layers were widened to compute in f32 (widen_floats()): a port declared
  /// f16 or bf16 and inferred f32 is as declared.
  bool floats_widened = false;
  /// Element-wise layers may be fused into the layer before them (LoadOptions::fuse_layers).
  bool fuse_layers = true;
  std::vector<Node> nodes;              ///< topological order, ties by document order
  std::vector<std::size_t> parameters;  ///< document order
  std::vector<std::size_t> results;     ///< document order

  /// Where a node is, for an Error.
  ErrorContext context(const Node& node) const;
  /// The same error placed at `node`: the node's file, line and layer, and an input/output
  /// position in the error mapped to that port's IR id.
  Error locate(const Error& error, const Node& node) const;
};

/// Calls Op::prepare() on every layer that runs with a Const input (graph loaded without
/// problems, shapes inferred), keeping the result in Node::prepared. Throws the layer's Error.
void prepare_layers(Graph& graph);

/// Problems and warnings found while loading: thrown at once, or collected with keep_going.
struct Diagnostics {
  bool keep_going = false;
  std::vector<Error> problems;
  std::vector<Error> warnings;

  void report(Error error) {
    if (!keep_going) throw error;
    problems.push_back(std::move(error));
  }
};

}  // namespace irlite
