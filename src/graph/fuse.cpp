#include "graph/fuse.hpp"

#include <charconv>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace irlite {
namespace {

/// The longest chain taken into one kernel.
constexpr std::size_t kMaxSteps = 8;

/// A layer's attribute as displayed, or empty.
std::string attribute(const Op& op, std::string_view name) {
  for (auto& [key, value] : op.attributes())
    if (key == name) return value;
  return {};
}

/// The values of `value` as one per channel of an output of rank `rank` with `channels`
/// channels (axis 1), when it is NumPy-broadcast onto that output without growing it: every
/// axis 1 but the one aligned with the channels, which is 1 or `channels`. One value for all
/// channels is repeated.
std::optional<std::vector<float>> per_channel(const Tensor& value, std::size_t rank,
                                              std::int64_t channels) {
  if (value.element_type() != ElementType::f32 || value.rank() > rank) return std::nullopt;
  const Shape& shape = value.shape();
  const std::size_t offset = rank - shape.size();  // the value's axis i is the output's i + offset
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const bool channel_axis = i + offset == 1;
    if (shape[i] != 1 && !(channel_axis && shape[i] == channels)) return std::nullopt;
  }
  const float* v = value.data<float>();
  std::vector<float> out(static_cast<std::size_t>(channels));
  for (std::size_t c = 0; c < out.size(); ++c) out[c] = value.size() == 1 ? v[0] : v[c];
  return out;
}

/// A Const input's value, or null.
const Tensor* const_value(const Graph& graph, const InputPort& in) {
  if (in.source_node == SIZE_MAX) return nullptr;
  const Node& src = graph.nodes[in.source_node];
  return src.kind() == OpKind::constant && src.has_value ? &src.value : nullptr;
}

/// Whether `in` is a value of `shape` (static) computed before layer `head` runs: a tensor its
/// kernel may add.
bool earlier_tensor(const Graph& graph, const InputPort& in, std::size_t head,
                    const PartialShape& shape) {
  if (in.source_node == SIZE_MAX || in.source_node >= head) return false;
  const OutputPort& port = graph.nodes[in.source_node].outputs[in.source_output];
  return port.type == ElementType::f32 && port.shape.is_static() && port.shape == shape;
}

/// `node`, which reads output 0 of layer `data`, as a step on that output (of rank `rank`, with
/// `channels` channels) of the chain that layer `head` runs, or nullopt when it is none of the
/// kinds a kernel runs. An Add of a tensor computed before `head`, of the output's static shape,
/// is an add_tensor step; its `input` is left for the caller to number.
std::optional<ChannelStep> as_step(const Graph& graph, const Node& node, std::size_t data,
                                   std::size_t head, std::size_t rank, std::int64_t channels) {
  const std::string_view type = node.def->type;
  const auto reads_data = [&](const InputPort& in) {
    return in.source_node == data && in.source_output == 0;
  };
  if (type == "Relu" && node.inputs.size() == 1) return ChannelStep{ChannelStep::Kind::relu, {}};
  if ((type == "Add" || type == "Multiply") && node.inputs.size() == 2) {
    const std::string broadcast = attribute(*node.op, "auto_broadcast");
    if (broadcast != "numpy" && broadcast != "none") return std::nullopt;
    const bool first = reads_data(node.inputs[0]);
    if (first == reads_data(node.inputs[1])) return std::nullopt;  // x + x, or neither
    const InputPort& other = node.inputs[first ? 1 : 0];
    const Tensor* value = const_value(graph, other);
    if (!value && type == "Add" &&
        earlier_tensor(graph, other, head, graph.nodes[data].outputs[0].shape) &&
        node.outputs[0].shape == graph.nodes[data].outputs[0].shape)
      return ChannelStep{ChannelStep::Kind::add_tensor, {}};
    if (!value) return std::nullopt;
    auto values = per_channel(*value, rank, channels);
    if (!values) return std::nullopt;
    return ChannelStep{type == "Add" ? ChannelStep::Kind::add : ChannelStep::Kind::multiply,
                       std::move(*values)};
  }
  if (type == "PReLU" && node.inputs.size() == 2 && reads_data(node.inputs[0]) &&
      !reads_data(node.inputs[1])) {
    const Tensor* slope = const_value(graph, node.inputs[1]);
    if (!slope || slope->element_type() != ElementType::f32) return std::nullopt;
    // A 1-D slope as long as the channels runs along them (PReLU's own rule, before NumPy's).
    std::optional<std::vector<float>> values;
    if (slope->rank() == 1 && slope->shape()[0] == channels) {
      const float* v = slope->data<float>();
      values.emplace(v, v + channels);
    } else {
      values = per_channel(*slope, rank, channels);
    }
    if (!values) return std::nullopt;
    return ChannelStep{ChannelStep::Kind::prelu, std::move(*values)};
  }
  if (type == "FakeQuantize" && node.inputs.size() == 5 && reads_data(node.inputs[0])) {
    const std::string broadcast = attribute(*node.op, "auto_broadcast");
    if (broadcast != "numpy" && broadcast != "none") return std::nullopt;
    std::int64_t levels = 0;
    const std::string text = attribute(*node.op, "levels");
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), levels);
    if (error != std::errc() || end != text.data() + text.size() || levels < 2 ||
        levels > (std::int64_t{1} << 24))
      return std::nullopt;
    ChannelStep step{ChannelStep::Kind::fake_quantize, {}};
    for (std::size_t i = 1; i < 5; ++i) {
      if (reads_data(node.inputs[i])) return std::nullopt;
      const Tensor* limit = const_value(graph, node.inputs[i]);
      if (!limit) return std::nullopt;
      auto values = per_channel(*limit, rank, channels);
      if (!values) return std::nullopt;
      step.values.insert(step.values.end(), values->begin(), values->end());
    }
    // levels - 1 as the layer holds it in f32: exact up to 2^24.
    step.steps = static_cast<float>(levels - 1);
    return step;
  }
  return std::nullopt;
}

}  // namespace

void fuse_layers(Graph& graph) {
  const std::size_t n = graph.nodes.size();
  // Per layer, its output 0's readers among the layers that run, and the last of them.
  std::vector<std::size_t> readers(n, 0), reader(n, SIZE_MAX);
  for (std::size_t i = 0; i < n; ++i) {
    const Node& node = graph.nodes[i];
    if (!node.reaches_result) continue;
    for (const InputPort& in : node.inputs) {
      if (in.source_node == SIZE_MAX) continue;
      // Any output counts as reading the layer: a chain takes layers of one output only.
      ++readers[in.source_node];
      reader[in.source_node] = i;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    Node& head = graph.nodes[i];
    if (!head.reaches_result || head.kind() != OpKind::compute || !head.op ||
        head.fused_into != SIZE_MAX || head.outputs.size() != 1)
      continue;
    const OutputPort& out = head.outputs[0];
    if (out.type != ElementType::f32 || !out.shape.rank_is_static() || out.shape.rank() < 2 ||
        !out.shape[1].is_static())
      continue;
    const std::size_t rank = out.shape.rank();
    const std::int64_t channels = out.shape[1].value();
    std::vector<ChannelStep> steps;
    std::vector<std::size_t> chain;
    std::vector<InputPort> extra;  // the tensors add_tensor steps read
    std::size_t last = i;
    while (steps.size() < kMaxSteps && readers[last] == 1) {
      const std::size_t next = reader[last];
      const Node& node = graph.nodes[next];
      if (node.kind() != OpKind::compute || !node.def || !node.op || node.outputs.size() != 1 ||
          node.outputs[0].type != ElementType::f32)
        break;
      std::optional<ChannelStep> step = as_step(graph, node, last, i, rank, channels);
      if (!step) break;
      if (step->kind == ChannelStep::Kind::add_tensor) {
        step->input = head.inputs.size() + extra.size();
        // The Add's input that is not the chain's value.
        const InputPort& first = node.inputs[0];
        const bool data_first = first.source_node == last && first.source_output == 0;
        extra.push_back(node.inputs[data_first ? 1 : 0]);
      }
      steps.push_back(std::move(*step));
      chain.push_back(next);
      last = next;
    }
    if (chain.empty()) continue;
    std::shared_ptr<const Op> fused = head.op->fused(std::move(steps));
    if (!fused) continue;
    head.fused_op = std::move(fused);
    head.fused_layers = chain;
    head.fused_inputs = std::move(extra);
    for (std::size_t k : chain) graph.nodes[k].fused_into = i;
  }
}

void clear_fusion(Graph& graph) {
  for (Node& node : graph.nodes) {
    node.fused_op = nullptr;
    node.fused_layers.clear();
    node.fused_inputs.clear();
    node.fused_into = SIZE_MAX;
  }
}

}  // namespace irlite
