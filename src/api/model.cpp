#include <fmt/format.h>

#include <memory>
#include <mutex>
#include <new>
#include <unordered_map>
#include <unordered_set>

#include "api/model_impl.hpp"
#include "irlite/version.hpp"
#include "loader/ir_reader.hpp"
#include "loader/xml_text.hpp"
#include "ops/custom_op.hpp"
#include "ops/parameter.hpp"
#include "ops/registry.hpp"
#include "ops/shape_utils.hpp"
#include "graph/fuse.hpp"
#include "graph/widen_floats.hpp"
#include "shape_inference/shape_inference.hpp"

namespace irlite {
namespace detail {
namespace {

// Consts up to this many elements are shown inline by inspect.
constexpr std::size_t kInlineValues = 16;

std::string inline_values(const Tensor& t) {
  std::string s = t.rank() == 0 ? "" : "[";
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (i) s += ',';
    s += value_text(t, i);
  }
  return t.rank() == 0 ? s : s + "]";
}

LayerInfo describe(const Graph& graph, const Node& node) {
  LayerInfo info;
  info.id = node.id;
  info.name = node.name;
  info.type = node.def ? std::string(node.def->type) : node.type();
  info.version = node.def ? node.def->version : 0;
  info.opset = node.opset();
  info.line = node.location.line;
  info.column = node.location.column;
  info.reaches_result = node.reaches_result;
  info.folded = node.folded;
  if (node.fused_into != SIZE_MAX) info.fused_into = node.fused_into;
  info.attributes = node.op ? node.op->attributes() : node.data_attributes;
  if (node.kind() == OpKind::constant && node.has_value && node.value.size() <= kInlineValues &&
      node.value.element_type() != ElementType::undefined)
    info.attributes.emplace_back("value", inline_values(node.value));
  for (const InputPort& in : node.inputs) {
    LayerInput li{in.id, -1, -1};
    if (in.source_node != SIZE_MAX) {
      const Node& src = graph.nodes[in.source_node];
      li.from_layer = src.id;
      li.from_port = src.outputs[in.source_output].id;
    }
    info.inputs.push_back(li);
  }
  for (const OutputPort& out : node.outputs) {
    LayerOutput lo;
    lo.port = out.id;
    lo.tensor_names = out.names;
    lo.element_type = out.type;
    lo.shape = out.shape;
    lo.declared_element_type = out.declared_type;
    lo.declared_dims = out.declared_dims;
    lo.declared_differs = declared_contradicts(out, graph.floats_widened);
    info.outputs.push_back(std::move(lo));
  }
  return info;
}

/// Names given out so far, and the next name to give for a name already taken.
class NameSet {
 public:
  bool taken(const std::string& name) const { return names_.count(name) != 0; }
  void take(const std::string& name) { names_.insert(name); }
  /// `base`_k for the smallest k >= 2 that is not taken. A base's search resumes where its
  /// previous one ended (names are never given back), so n equal names cost O(n), not O(n^2).
  std::string suffixed(const std::string& base) {
    int& k = next_suffix_.try_emplace(base, 2).first->second;
    std::string name = base + "_" + std::to_string(k);
    while (taken(name)) name = base + "_" + std::to_string(++k);
    return name;
  }

 private:
  std::unordered_set<std::string> names_;
  std::unordered_map<std::string, int> next_suffix_;
};

}  // namespace

std::vector<LayerInfo> describe_layers(const Graph& graph) {
  std::vector<LayerInfo> layers;
  layers.reserve(graph.nodes.size());
  for (const Node& node : graph.nodes) layers.push_back(describe(graph, node));
  return layers;
}

std::shared_ptr<ModelImpl> finish_model(Graph graph, Diagnostics diagnostics) {
  infer_shapes(graph, diagnostics);
  if (graph.floats_widened) settle_edge_types(graph);
  auto impl = std::make_shared<ModelImpl>();
  NameSet input_names, output_names;
  for (std::size_t p : graph.parameters) {
    const Node& node = graph.nodes[p];
    const OutputPort& out = node.outputs.empty() ? OutputPort{} : node.outputs[0];
    const ElementType type = node.edge_type != ElementType::undefined ? node.edge_type : out.type;
    PortInfo info{node.name, out.names, type, out.shape};
    // Layer names need not be unique in the IR, but inputs are fed by name.
    if (input_names.taken(info.name)) info.name = input_names.suffixed(node.name);
    input_names.take(info.name);
    if (info.name != node.name)
      diagnostics.warnings.emplace_back(
          ErrorCode::graph,
          fmt::format("another input is also named '{}'; this one is input '{}'", node.name,
                      info.name),
          graph.context(node));
    impl->inputs.push_back(std::move(info));
    if (!out.shape.is_static()) impl->dynamic = true;
  }
  for (const Node& node : graph.nodes) {
    if (node.kind() == OpKind::constant && node.op && !node.has_value) impl->weights_missing = true;
    if (node.reaches_result)
      for (const OutputPort& out : node.outputs)
        if (!out.shape.is_static()) impl->dynamic = true;
  }
  for (std::size_t r : graph.results) {
    const Node& node = graph.nodes[r];
    PortInfo info{node.name, {}, ElementType::undefined, PartialShape::dynamic_rank()};
    if (!node.inputs.empty() && node.inputs[0].source_node != SIZE_MAX) {
      const OutputPort& src =
          graph.nodes[node.inputs[0].source_node].outputs[node.inputs[0].source_output];
      info.tensor_names = src.names;
      if (!src.names.empty()) info.name = src.names.front();
      info.element_type = node.edge_type != ElementType::undefined ? node.edge_type : src.type;
      info.shape = src.shape;
    }
    // Outputs are returned by name: two Results fed by the same tensor name (or sharing a
    // layer name) must still be told apart.
    if (output_names.taken(info.name)) info.name = node.name;
    if (output_names.taken(info.name)) info.name = output_names.suffixed(node.name);
    output_names.take(info.name);
    impl->outputs.push_back(std::move(info));
  }
  for (const Node& node : graph.nodes) {
    if (node.reaches_result || node.kind() == OpKind::parameter) continue;
    diagnostics.warnings.emplace_back(
        ErrorCode::graph, "the layer reaches no Result and is not run", graph.context(node));
  }
  impl->warnings = std::move(diagnostics.warnings);
  impl->problems = std::move(diagnostics.problems);
  // Only a model without problems can run (Session refuses the others), and only such a graph
  // has every input port fed.
  if (impl->problems.empty()) {
    prepare_layers(graph);
    if (graph.fuse_layers) fuse_layers(graph);
    impl->plan = make_plan(graph);
  }
  impl->graph = std::move(graph);
  return impl;
}

}  // namespace detail

namespace {

/// The ops of a load: the options' custom ops, matched first, then the built-in registry.
OpCatalog op_catalog(const LoadOptions& options) {
  if (options.custom_ops.empty()) return {resolve_op, nullptr};
  auto table = std::make_shared<const CustomOpTable>(options.custom_ops);
  OpResolver resolve = [custom = table.get()](std::string_view type, std::string_view opset,
                                              std::string* why) {
    const OpDef* def = custom->find(type, opset, why);
    // An empty reason means the type is not a custom one (rather than a custom type in another
    // version): a built-in op may have it.
    return def || !why->empty() ? def : resolve_op(type, opset, why);
  };
  return {std::move(resolve), std::move(table)};
}

/// Reads the graph with `read` and finishes the model; running out of memory is an Error.
template <class Read>
Model load_graph(const std::string& file, const LoadOptions& options, Read&& read) {
  Diagnostics diagnostics;
  diagnostics.keep_going = options.keep_going;
  try {
    Graph graph = read(diagnostics);
    if (options.inference_precision == InferencePrecision::f32) widen_floats(graph);
    graph.fuse_layers = options.fuse_layers;
    return detail::ModelAccess::make(
        detail::finish_model(std::move(graph), std::move(diagnostics)));
  } catch (const std::bad_alloc&) {
    ErrorContext c;
    c.file = file;
    throw Error(ErrorCode::io, "out of memory while loading the model", std::move(c));
  }
}

}  // namespace

Model::Model(std::shared_ptr<const detail::ModelImpl> impl) : impl_(std::move(impl)) {}

const detail::ModelImpl& Model::get() const {
  if (!impl_)
    throw Error(ErrorCode::usage, "this Model was moved from: assign a loaded Model to it first");
  return *impl_;
}

Model Model::load(const std::filesystem::path& xml, const LoadOptions& options) {
  XmlText text = XmlText::read_file(xml);
  Weights weights;
  if (!options.weights.empty()) {
    weights = open_weights(options.weights, options.weights_mode);
  } else {
    std::filesystem::path bin = xml;
    bin.replace_extension(".bin");
    std::error_code ec;
    if (std::filesystem::is_regular_file(bin, ec))
      weights = open_weights(bin, options.weights_mode);
    else
      weights.path = bin.string();  // named if a Const turns out to need it
  }
  const std::string file = xml.string();
  return load_graph(file, options, [&](Diagnostics& diagnostics) {
    Graph graph = read_ir_in_place(text, file, weights, diagnostics, op_catalog(options));
    text = XmlText();  // the graph holds copies of everything it needs
    return graph;
  });
}

Model Model::load_from_memory(std::string_view xml, std::span<const std::byte> weights,
                              const LoadOptions& options, std::string source_name) {
  return load_from_memory(xml, nullptr, weights, options, std::move(source_name));
}

Model Model::load_from_memory(std::string_view xml, std::shared_ptr<const void> keep_alive,
                              std::span<const std::byte> weights, const LoadOptions& options,
                              std::string source_name) {
  Weights w;
  w.bytes = weights;
  w.owner = std::move(keep_alive);
  w.present = !weights.empty();
  return load_graph(source_name, options, [&](Diagnostics& diagnostics) {
    return read_ir(xml, source_name, w, diagnostics, op_catalog(options));
  });
}

const std::string& Model::name() const {
  return get().graph.name;
}
int Model::ir_version() const {
  return get().graph.ir_version;
}
const std::string& Model::source() const {
  return get().graph.file;
}
const std::vector<PortInfo>& Model::inputs() const {
  return get().inputs;
}
const std::vector<PortInfo>& Model::outputs() const {
  return get().outputs;
}
const std::vector<LayerInfo>& Model::layers() const {
  // Described on first use: a model that is only run never needs them.
  const detail::ModelImpl& m = get();
  std::call_once(m.layers_once, [&] { m.layers = detail::describe_layers(m.graph); });
  return m.layers;
}
const std::vector<Error>& Model::warnings() const {
  return get().warnings;
}
const std::vector<Error>& Model::problems() const {
  return get().problems;
}
bool Model::is_dynamic() const {
  return get().dynamic;
}
std::optional<std::size_t> Model::find_input(std::string_view name) const {
  return get().find_input(name);
}

namespace detail {

std::optional<std::size_t> ModelImpl::find_input(std::string_view name) const {
  std::call_once(input_index_once, [&] {
    // A Parameter's layer name wins over another Parameter's tensor name, and among tensor
    // names the first input's: what is already there stays.
    input_index.reserve(inputs.size());
    for (std::size_t p = 0; p < inputs.size(); ++p) input_index.emplace(inputs[p].name, p);
    for (std::size_t p = 0; p < inputs.size(); ++p)
      for (const std::string& tensor : inputs[p].tensor_names) input_index.emplace(tensor, p);
  });
  const auto it = input_index.find(name);
  if (it == input_index.end()) return std::nullopt;
  return it->second;
}

std::string ModelImpl::input_names() const {
  std::string s;
  for (const PortInfo& in : inputs) s += (s.empty() ? "" : ", ") + in.name;
  return s.empty() ? "none" : s;
}

}  // namespace detail

Model Model::reshape(const std::map<std::string, PartialShape>& shapes) const {
  const detail::ModelImpl& m = get();
  if (!m.problems.empty())
    throw Error(ErrorCode::usage, "cannot reshape a model that failed to load: " +
                                      std::string(m.problems.front().what()));
  Graph graph = m.graph;
  for (const auto& [name, shape] : shapes) {
    const auto index = m.find_input(name);
    if (!index)
      throw Error(ErrorCode::input, fmt::format("reshape: the model has no input '{}' (inputs: {})",
                                                name, m.input_names()));
    for (const Dimension& d : shape.dims())
      if (d.has_upper_bound() && d.max() < d.min())
        throw Error(ErrorCode::usage, fmt::format("reshape: input '{}' gets an empty interval {}",
                                                  name, to_string(d)));
    Node& node = graph.nodes[graph.parameters[*index]];
    const auto& param = static_cast<const ParameterOp&>(*node.op);
    node.op = std::make_shared<ParameterOp>(param.element_type(), shape);
  }
  for (Node& node : graph.nodes) node.failed = false;
  clear_fusion(graph);  // made anew for the new shapes
  Diagnostics diagnostics;  // a reshape that breaks a layer throws
  // What the loader said about the files still holds (shape warnings are made anew).
  for (const Error& w : m.warnings)
    if (w.code() == ErrorCode::io) diagnostics.warnings.push_back(w);
  return detail::ModelAccess::make(detail::finish_model(std::move(graph), std::move(diagnostics)));
}

std::string_view version() {
  return IRLITE_VERSION_STRING;
}

}  // namespace irlite
