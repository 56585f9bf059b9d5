#include "exec/plan.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <utility>

#include "core/buffer.hpp"
#include "exec/step_profile.hpp"
#include "graph/op.hpp"

namespace irlite {
namespace {

ExecPlan::Slot describe_slot(const Node& node, const OutputPort& out) {
  ExecPlan::Slot slot;
  if (node.kind() != OpKind::compute || !out.shape.is_static() ||
      out.type == ElementType::undefined)
    return slot;
  slot.is_static = true;
  slot.type = out.type;
  slot.shape = out.shape.to_shape();
  const auto count = element_count(slot.shape);
  const std::size_t width = element_size(out.type);
  if (count && width && static_cast<std::uint64_t>(*count) <= kMaxPlannedBytes / width)
    slot.bytes = static_cast<std::size_t>(*count) * width;
  return slot;
}

/// Whether `partial` is static and equal to `shape`, compared in place (to_shape() allocates).
bool same_static_shape(const PartialShape& partial, const Shape& shape) {
  if (!partial.rank_is_static() || partial.dims().size() != shape.size()) return false;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const Dimension& d = partial.dims()[i];
    if (!d.is_static() || d.min() != shape[i]) return false;
  }
  return true;
}

// Whether the load-time inference already gives the layer's outputs at every run: its input
// shapes are static, the shape rule reads only Consts' values, and run as it would be before the
// layer runs, the rule gives the static outputs inferred at load time. A rule that fails here (a
// Const k beyond a static dimension) fails the same way at every run: such a layer keeps running
// its rule, which reports the problem then, as it always did.
bool outputs_fixed(const Graph& graph, const Node& node, const ExecPlan& plan,
                   const ExecPlan::Step& step, std::vector<ValueInfo>& infos) {
  // The entries of `infos` are reused from layer to layer: assigning a shape into one reuses
  // its storage, where a fresh entry would allocate for every input of every layer.
  if (infos.size() < node.inputs.size()) infos.resize(node.inputs.size());
  for (std::size_t k = 0; k < node.inputs.size(); ++k) {
    const Node& src = graph.nodes[node.inputs[k].source_node];
    const OutputPort& port = src.outputs[node.inputs[k].source_output];
    if (!port.shape.is_static()) return false;
    const Tensor* value = nullptr;
    if (step.value_inputs[k]) {
      if (src.kind() != OpKind::constant || !src.has_value) return false;
      value = &src.value;
    }
    ValueInfo& info = infos[k];
    info.type = port.type;
    info.shape = port.shape;
    info.value = value;
  }
  std::vector<OutputInfo> outputs;
  try {
    outputs =
        node.op->infer(std::span<const ValueInfo>(infos.data(), node.inputs.size()), Phase::run);
  } catch (const Error&) {
    return false;
  }
  if (outputs.size() != step.output_count) return false;
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const ExecPlan::Slot& slot = plan.slots[step.first_output + k];
    if (!slot.is_static || outputs[k].type != slot.type ||
        !same_static_shape(outputs[k].shape, slot.shape))
      return false;
  }
  return true;
}

// Gives the sized values buffers to share, and chooses the buffers a Session keeps between runs.
//
// Sharing memory means holding a dead buffer for a while: from its value's death to the birth of
// the next value placed in it, and for a buffer kept across runs, from its last death in one run
// to its first birth in the next. Each such hold is accepted only when the bytes in use at every
// step it covers, the hold included, stay within the peak of a run without any sharing (values
// live from their layer to their last reader, outputs to the end). A run's peak thus never
// grows, and between runs a Session keeps at most that peak. Values of unknown size (dynamic
// shapes) are never held, and no hold covers a step where one lives: their size is not known.
void plan_buffers(ExecPlan& plan, const Graph& graph) {
  const std::size_t n = plan.steps.size();
  if (n == 0) return;
  constexpr std::size_t kNever = SIZE_MAX;
  std::vector<std::size_t> born(plan.slot_count, kNever), dies(plan.slot_count, kNever);
  std::vector<bool> returned(plan.slot_count, false);
  std::vector<double> in_use(n + 1, 0);  // a difference array first
  std::vector<int> unknown(n + 1, 0);
  for (std::size_t s = 0; s < n; ++s) {
    const ExecPlan::Step& step = plan.steps[s];
    const Node& node = graph.nodes[step.node];
    if (node.kind() == OpKind::compute)
      for (std::size_t k = 0; k < step.output_count; ++k) born[step.first_output + k] = s;
    if (node.kind() == OpKind::result) {
      returned[step.inputs[0]] = true;
      // A Const's copy, alive to the end.
      const Node& src = graph.nodes[node.inputs[0].source_node];
      if (src.kind() == OpKind::constant) in_use[s] += static_cast<double>(src.value.byte_size());
    }
    for (std::size_t slot : step.release) dies[slot] = s;
  }
  for (std::size_t slot = 0; slot < plan.slot_count; ++slot) {
    if (born[slot] == kNever) continue;
    if (returned[slot] || dies[slot] == kNever) dies[slot] = n - 1;
    if (plan.slots[slot].bytes) {
      in_use[born[slot]] += static_cast<double>(*plan.slots[slot].bytes);
      in_use[dies[slot] + 1] -= static_cast<double>(*plan.slots[slot].bytes);
    } else {
      ++unknown[born[slot]];
      --unknown[dies[slot] + 1];
    }
  }
  double peak = 0, sum = 0;
  int unknown_live = 0;
  for (std::size_t s = 0; s < n; ++s) {
    sum += in_use[s];
    unknown_live += unknown[s];
    peak = std::max(peak, sum);
    in_use[s] = unknown_live > 0 ? std::numeric_limits<double>::infinity() : sum;
  }
  in_use.pop_back();
  StepProfile profile(std::move(in_use));
  const auto try_hold = [&](std::size_t lo, std::size_t hi, std::size_t bytes) {
    if (lo <= hi && profile.max(lo, hi) + static_cast<double>(bytes) > peak) return false;
    profile.add(lo, hi, static_cast<double>(bytes));
    return true;
  };

  // Within a run, in the order values are born: the buffer of the right size that fell free
  // last (the shortest hold), else a new one.
  std::vector<std::size_t> last_death;  // per buffer: when its latest value dies
  std::vector<std::size_t> first_birth;
  std::map<std::size_t, std::vector<std::size_t>> free_by_size;
  // Per step, the buffers that fall free after it in the order they do: lists threaded through
  // one array (an entry is a buffer and the next entry), not a vector per step.
  std::vector<std::size_t> freed_first(n, kNever), freed_last(n, kNever);
  std::vector<std::pair<std::size_t, std::size_t>> freed;
  const auto free_after = [&](std::size_t s, std::size_t buffer) {
    const std::size_t e = freed.size();
    freed.emplace_back(buffer, kNever);
    if (freed_last[s] == kNever)
      freed_first[s] = e;
    else
      freed[freed_last[s]].second = e;
    freed_last[s] = e;
  };
  for (std::size_t s = 0; s < n; ++s) {
    if (s > 0)
      for (std::size_t e = freed_first[s - 1]; e != kNever; e = freed[e].second)
        free_by_size[plan.buffers[freed[e].first].bytes].push_back(freed[e].first);
    const ExecPlan::Step& step = plan.steps[s];
    if (graph.nodes[step.node].kind() != OpKind::compute) continue;
    for (std::size_t k = 0; k < step.output_count; ++k) {
      const std::size_t slot = step.first_output + k;
      if (!plan.slots[slot].bytes) continue;
      const std::size_t bytes = *plan.slots[slot].bytes;
      std::size_t buffer = kNever;
      auto free = free_by_size.find(bytes);
      if (free != free_by_size.end() && !free->second.empty() &&
          try_hold(last_death[free->second.back()] + 1, s - 1, bytes)) {
        buffer = free->second.back();
        free->second.pop_back();
      } else {
        buffer = plan.buffers.size();
        plan.buffers.push_back({bytes, false});
        last_death.push_back(0);
        first_birth.push_back(s);
      }
      plan.slots[slot].buffer = buffer;
      last_death[buffer] = dies[slot];
      if (!returned[slot]) free_after(dies[slot], buffer);
    }
  }

  // Across runs, largest first: held from the last death in one run to the first birth in the
  // next.
  std::vector<std::size_t> order(plan.buffers.size());
  for (std::size_t b = 0; b < order.size(); ++b) order[b] = b;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return plan.buffers[a].bytes > plan.buffers[b].bytes;
  });
  for (std::size_t b : order) {
    const std::size_t bytes = plan.buffers[b].bytes;
    const double after = profile.max(last_death[b] + 1, n - 1);
    const double before = first_birth[b] == 0 ? 0 : profile.max(0, first_birth[b] - 1);
    if (std::max(after, before) + static_cast<double>(bytes) > peak) continue;
    profile.add(last_death[b] + 1, n - 1, static_cast<double>(bytes));
    if (first_birth[b] > 0) profile.add(0, first_birth[b] - 1, static_cast<double>(bytes));
    plan.buffers[b].keep = true;
  }
  for (std::size_t b = 0; b < plan.buffers.size(); ++b) {
    if (plan.buffers[b].keep) continue;
    if (last_death[b] == n - 1)
      plan.drop_at_end.push_back(b);
    else
      plan.steps[last_death[b]].drop.push_back(b);
  }
}

/// Whether the layer is a step of the plan: it reaches a Result and no other layer's kernel
/// runs it.
bool runs_alone(const Node& node) {
  return node.reaches_result && node.fused_into == SIZE_MAX;
}

}  // namespace

ExecPlan make_plan(const Graph& graph) {
  ExecPlan plan;
  std::vector<std::size_t> first_slot(graph.nodes.size(), 0);
  std::size_t steps = 0;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    first_slot[i] = plan.slot_count;
    plan.slot_count += graph.nodes[i].outputs.size();
    steps += runs_alone(graph.nodes[i]);
  }
  // Large models make these arrays megabytes, filled at once: huge pages fault less.
  plan.slots.reserve(plan.slot_count);
  advise_huge_pages(plan.slots.data(), plan.slot_count * sizeof(ExecPlan::Slot));
  plan.steps.reserve(steps);
  advise_huge_pages(plan.steps.data(), steps * sizeof(ExecPlan::Step));
  for (const Node& node : graph.nodes)
    for (const OutputPort& out : node.outputs) plan.slots.push_back(describe_slot(node, out));
  std::vector<ValueInfo> infos;  // scratch for outputs_fixed
  std::vector<std::size_t> last_reader(plan.slot_count, SIZE_MAX);
  std::vector<std::size_t> producer(plan.slot_count, SIZE_MAX);
  // Each Parameter's and Result's position among its kind, found once (not per node).
  std::vector<std::size_t> io_index(graph.nodes.size(), 0);
  for (std::size_t k = 0; k < graph.parameters.size(); ++k) io_index[graph.parameters[k]] = k;
  for (std::size_t k = 0; k < graph.results.size(); ++k) io_index[graph.results[k]] = k;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    if (!runs_alone(node)) continue;
    ExecPlan::Step step;
    step.node = i;
    step.first_output = first_slot[i];
    step.output_count = node.outputs.size();
    step.io_index = io_index[i];
    const auto read = [&](const InputPort& in) {
      // The last layer of a fused chain (graph/fuse.hpp) is read in the first one's output.
      const std::size_t fused_into = graph.nodes[in.source_node].fused_into;
      const std::size_t slot = fused_into != SIZE_MAX
                                   ? first_slot[fused_into]
                                   : first_slot[in.source_node] + in.source_output;
      if (std::find(step.inputs.begin(), step.inputs.end(), slot) != step.inputs.end())
        step.repeated_input = true;
      step.inputs.push_back(slot);
      last_reader[slot] = plan.steps.size();
    };
    for (const InputPort& in : node.inputs) read(in);
    // A fused chain reads the tensors it adds after the layer's own inputs.
    for (const InputPort& in : node.fused_inputs) read(in);
    for (std::size_t k = 0; k < step.output_count; ++k)
      producer[step.first_output + k] = plan.steps.size();
    if (node.kind() == OpKind::compute) {
      std::vector<bool> needs_value(node.inputs.size());
      for (std::size_t k = 0; k < node.inputs.size(); ++k)
        needs_value[k] = node.op->shape_needs_value(k, node.inputs.size());
      step.value_inputs = std::move(needs_value);
      step.shapes_fixed = outputs_fixed(graph, node, plan, step, infos);
    }
    plan.max_inputs = std::max(plan.max_inputs, step.inputs.size());
    plan.max_outputs = std::max(plan.max_outputs, step.output_count);
    plan.steps.push_back(std::move(step));
  }
  plan.result_slots.resize(graph.results.size());
  for (const ExecPlan::Step& step : plan.steps) {
    if (graph.nodes[step.node].kind() != OpKind::result) continue;
    plan.slots[step.inputs[0]].returned = true;
    plan.result_slots[step.io_index] = step.inputs[0];
  }
  for (std::size_t slot = 0; slot < plan.slot_count; ++slot) {
    if (last_reader[slot] != SIZE_MAX)
      plan.steps[last_reader[slot]].release.push_back(slot);
    else if (producer[slot] != SIZE_MAX)
      plan.steps[producer[slot]].release.push_back(slot);  // an output nobody reads
  }
  plan_buffers(plan, graph);
  return plan;
}

}  // namespace irlite
