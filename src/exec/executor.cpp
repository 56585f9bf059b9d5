#include "exec/executor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <limits>
#include <map>
#include <new>

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

}  // namespace

ExecPlan make_plan(const Graph& graph) {
  ExecPlan plan;
  std::vector<std::size_t> first_slot(graph.nodes.size(), 0);
  std::size_t steps = 0;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    first_slot[i] = plan.slot_count;
    plan.slot_count += graph.nodes[i].outputs.size();
    steps += graph.nodes[i].reaches_result;
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
    if (!node.reaches_result) continue;
    ExecPlan::Step step;
    step.node = i;
    step.first_output = first_slot[i];
    step.output_count = node.outputs.size();
    step.io_index = io_index[i];
    for (const InputPort& in : node.inputs) {
      const std::size_t slot = first_slot[in.source_node] + in.source_output;
      if (std::find(step.inputs.begin(), step.inputs.end(), slot) != step.inputs.end())
        step.repeated_input = true;
      step.inputs.push_back(slot);
      last_reader[slot] = plan.steps.size();
    }
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

namespace {

/// The bytes a run holds against its budget: values from their layer to their release, and a
/// kernel's scratch while it runs. Values placed in shared or kept buffers are counted as if
/// each had memory of its own: the plan holds such buffers only within the peak of those values.
class MemoryBudget {
 public:
  explicit MemoryBudget(std::size_t limit) : limit_(limit) {}
  /// Adds `bytes` when they fit, else returns false and leaves the sum alone.
  bool reserve(std::size_t bytes) {
    if (bytes > limit_ || used_ > limit_ - bytes) return false;
    used_ += bytes;
    return true;
  }
  void release(std::size_t bytes) { used_ -= bytes; }
  /// Error(value) for `what` needing `bytes`, with the sum and the budget.
  Error exceeded(const std::string& what, std::size_t bytes, ErrorContext context = {}) const {
    return Error(ErrorCode::value,
                 fmt::format("{} needs {} bytes while the run holds {} bytes: {} bytes, over the "
                             "run's memory budget of {} bytes (SessionOptions::max_memory_bytes)",
                             what, bytes, used_, saturating_add(used_, bytes), limit_),
                 std::move(context));
  }

 private:
  std::size_t limit_;
  std::size_t used_ = 0;
};

ErrorContext output_context(std::size_t index) {
  ErrorContext c;
  c.port_kind = ErrorContext::PortKind::output;
  c.port = static_cast<std::int64_t>(index);
  return c;
}

/// The byte size of output `index`, reserved against the run's budget. Refuses a size that
/// overflows, one beyond an explicit per-tensor limit below the budget, and one that does not
/// fit in what the budget has left.
std::size_t reserve_output(ElementType type, const Shape& shape, std::size_t index,
                           const MemoryLimits& limits, MemoryBudget& budget) {
  const auto count = element_count(shape);
  const std::size_t width = element_size(type);
  const bool fits = count && (width == 0 || static_cast<std::uint64_t>(*count) <= SIZE_MAX / width);
  const std::size_t bytes = fits ? static_cast<std::size_t>(*count) * width : SIZE_MAX;
  if (limits.max_tensor_bytes < limits.max_memory_bytes && bytes > limits.max_tensor_bytes)
    throw Error(ErrorCode::value,
                fmt::format("output {} {} would take more than {} bytes, the largest tensor this "
                            "session may allocate",
                            to_string(type), to_string(shape), limits.max_tensor_bytes),
                output_context(index));
  if (!fits)
    throw Error(ErrorCode::value,
                fmt::format("output {} {} takes more bytes than a size_t counts, over the run's "
                            "memory budget of {} bytes (SessionOptions::max_memory_bytes)",
                            to_string(type), to_string(shape), limits.max_memory_bytes),
                output_context(index));
  if (!budget.reserve(bytes))
    throw budget.exceeded(fmt::format("output {} {}", to_string(type), to_string(shape)), bytes,
                          output_context(index));
  return bytes;
}

/// An output tensor: in its slot's buffer when the plan gives it one that nobody else holds,
/// else on fresh memory (which then becomes the slot's buffer).
Tensor output_tensor(const ExecPlan& plan, const ExecPlan::Slot& slot, ElementType type,
                     const Shape& shape, ExecState& state) {
  if (slot.buffer == SIZE_MAX) return uninitialized_tensor(type, shape);
  std::shared_ptr<void>& buffer = state.buffers[slot.buffer];
  if (buffer && buffer.use_count() == 1) {
    // The other owner, a caller's output of an earlier run, may have let go on another thread:
    // its last reads happen before our writes.
    std::atomic_thread_fence(std::memory_order_acquire);
  } else {
    // Free, or still held by a caller who kept an earlier output: that one stays theirs.
    buffer = allocate_buffer(plan.buffers[slot.buffer].bytes);
  }
  return Tensor::view(type, shape, buffer.get(), buffer);
}

/// Leaves no tensor in the state when a run ends, however it ends, and lets go of the buffers
/// the plan does not keep.
class RunCleanup {
 public:
  RunCleanup(const ExecPlan& plan, ExecState& state) : plan_(plan), state_(state) {}
  ~RunCleanup() {
    for (std::size_t b : plan_.drop_at_end) state_.buffers[b].reset();
    if (finished_) return;
    for (Tensor& t : state_.slots) t = Tensor();
    for (Tensor& t : state_.inputs) t = Tensor();
    for (Tensor& t : state_.outputs) t = Tensor();
    for (std::size_t b = 0; b < plan_.buffers.size(); ++b)
      if (!plan_.buffers[b].keep) state_.buffers[b].reset();
  }
  RunCleanup(const RunCleanup&) = delete;
  RunCleanup& operator=(const RunCleanup&) = delete;
  void finished() { finished_ = true; }

 private:
  const ExecPlan& plan_;
  ExecState& state_;
  bool finished_ = false;
};

/// Checks that the tensor bound to output `result` is what the run produces there.
void check_bound(const RunHooks& hooks, std::size_t result, ElementType type, const Shape& shape,
                 ErrorContext context = {}) {
  const Tensor& bound = *hooks.bound[result];
  if (bound.element_type() == type && bound.shape() == shape) return;
  throw Error(ErrorCode::usage,
              fmt::format("output '{}' is bound to a tensor of {} {}, but the run produces {} {}",
                          hooks.outputs[result].name, to_string(bound.element_type()),
                          to_string(bound.shape()), to_string(type), to_string(shape)),
              std::move(context));
}

/// Copies `value` into the tensor bound to output `result`, once its type and shape are checked.
Tensor copy_to_bound(const RunHooks& hooks, std::size_t result, const Tensor& value) {
  check_bound(hooks, result, value.element_type(), value.shape());
  Tensor bound = *hooks.bound[result];
  if (bound.byte_size() != 0 && bound.data() != value.data())
    std::memcpy(bound.data(), value.data(), value.byte_size());
  return bound;
}

/// The clock of profiles, in nanoseconds.
std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Appends a compute layer's record to the profile.
void record_layer(const RunHooks& hooks, const ExecPlan::Step& step, std::span<const Tensor> inputs,
                  std::span<const Tensor> outputs, std::int64_t run_start, std::int64_t start,
                  std::int64_t end) {
  const LayerInfo& info = (*hooks.layers)[step.node];
  LayerProfile& p = hooks.profile->layers.emplace_back();
  p.layer = step.node;
  p.id = info.id;
  p.name = info.name;
  p.type = info.type;
  p.version = info.version;
  p.start_ns = start - run_start;
  p.duration_ns = std::max<std::int64_t>(end - start, 0);
  for (const Tensor& t : inputs) {
    p.input_bytes += t.byte_size();
    p.input_shapes.push_back(t.shape());
  }
  for (const Tensor& t : outputs) {
    p.output_bytes += t.byte_size();
    p.output_shapes.push_back(t.shape());
  }
}

}  // namespace

std::vector<Tensor> execute(const Graph& graph, const ExecPlan& plan, std::vector<Tensor> fed,
                            const MemoryLimits& limits, const ExecContext& context,
                            ExecState& state, const RunHooks& hooks) {
  const std::int64_t run_start = hooks.profile ? now_ns() : 0;
  if (hooks.profile) *hooks.profile = RunProfile();
  state.slots.resize(plan.slot_count);
  state.buffers.resize(plan.buffers.size());
  state.inputs.resize(plan.max_inputs);
  state.outputs.resize(plan.max_outputs);
  state.infos.resize(plan.max_inputs);
  state.slot_bytes.assign(plan.slot_count, 0);
  state.slot_bound.assign(hooks.bound.empty() ? 0 : plan.slot_count, SIZE_MAX);
  for (std::size_t r = 0; r < hooks.bound.size(); ++r) {
    std::size_t& bound = state.slot_bound[plan.result_slots[r]];
    if (hooks.bound[r] && bound == SIZE_MAX) bound = r;
  }
  // Whether the value in `slot` goes into a bound tensor; sets `result` to its output then.
  const auto bound_result = [&](std::size_t slot, std::size_t& result) {
    if (state.slot_bound.empty() || state.slot_bound[slot] == SIZE_MAX) return false;
    result = state.slot_bound[slot];
    return true;
  };
  MemoryBudget budget(limits.max_memory_bytes);
  RunCleanup cleanup(plan, state);
  std::vector<Tensor>& slots = state.slots;
  std::vector<Tensor> results(graph.results.size());
  for (const ExecPlan::Step& step : plan.steps) {
    const Node& node = graph.nodes[step.node];
    switch (node.kind()) {
      case OpKind::parameter:
        slots[step.first_output] = std::move(fed[step.io_index]);
        if (hooks.observer)
          (*hooks.observer)((*hooks.layers)[step.node], {&slots[step.first_output], 1});
        break;
      case OpKind::constant:
        slots[step.first_output] = node.value;
        if (hooks.observer)
          (*hooks.observer)((*hooks.layers)[step.node], {&slots[step.first_output], 1});
        break;
      case OpKind::result: {
        const std::size_t r = step.io_index;
        const std::size_t slot = step.inputs[0];
        const OpKind source = graph.nodes[node.inputs[0].source_node].kind();
        results[r] = slots[slot];
        if (!hooks.bound.empty() && hooks.bound[r]) {
          // Written in place by its layer, or copied here.
          std::size_t writer = SIZE_MAX;
          if (source != OpKind::compute || !bound_result(slot, writer) || writer != r) {
            try {
              results[r] = copy_to_bound(hooks, r, results[r]);
            } catch (const Error& e) {
              throw graph.locate(e, node);
            }
          }
          break;
        }
        if (source == OpKind::constant) {
          const Tensor& value = results[step.io_index];
          if (!budget.reserve(value.byte_size()))
            throw graph.locate(budget.exceeded(fmt::format("the copy of Const {} {}",
                                                           to_string(value.element_type()),
                                                           to_string(value.shape())),
                                               value.byte_size()),
                               node);
          results[step.io_index] = value.clone();
        }
        break;
      }
      case OpKind::compute: {
        const std::int64_t start = hooks.profile ? now_ns() : 0;
        // execute() takes its inputs side by side: they are moved out of their slots and back,
        // or copied when a slot feeds two of them.
        const std::span<Tensor> inputs(state.inputs.data(), step.inputs.size());
        for (std::size_t k = 0; k < inputs.size(); ++k)
          inputs[k] =
              step.repeated_input ? slots[step.inputs[k]] : std::move(slots[step.inputs[k]]);
        const std::span<Tensor> outputs(state.outputs.data(), step.output_count);
        try {
          if (step.shapes_fixed) {
            for (std::size_t k = 0; k < outputs.size(); ++k) {
              const ExecPlan::Slot& slot = plan.slots[step.first_output + k];
              std::size_t result = 0;
              if (bound_result(step.first_output + k, result)) {
                check_bound(hooks, result, slot.type, slot.shape, output_context(k));
                outputs[k] = *hooks.bound[result];
                continue;
              }
              std::size_t bytes = 0;
              if (slot.bytes && *slot.bytes <= limits.max_tensor_bytes &&
                  budget.reserve(*slot.bytes))
                bytes = *slot.bytes;
              else
                bytes = reserve_output(slot.type, slot.shape, k, limits, budget);
              state.slot_bytes[step.first_output + k] = bytes;
              outputs[k] = output_tensor(plan, slot, slot.type, slot.shape, state);
            }
          } else {
            for (std::size_t k = 0; k < inputs.size(); ++k)
              state.infos[k] = {inputs[k].element_type(),
                                PartialShape::from_shape(inputs[k].shape()),
                                step.value_inputs[k] ? &inputs[k] : nullptr};
            const std::vector<OutputInfo> outs = node.op->infer(
                std::span<const ValueInfo>(state.infos.data(), inputs.size()), Phase::run);
            if (outs.size() != outputs.size())
              throw Error(ErrorCode::shape,
                          fmt::format("the shape rule gave {} outputs at run time, not {}",
                                      outs.size(), outputs.size()));
            for (std::size_t k = 0; k < outs.size(); ++k) {
              const OutputInfo& o = outs[k];
              const OutputPort& port = node.outputs[k];
              if (!o.shape.is_static())
                throw Error(ErrorCode::shape, "the shape rule left output shape " +
                                                  to_string(o.shape) + " dynamic at run time");
              const Shape shape = o.shape.to_shape();
              // The layers after this one rely on the load-time shapes (some were planned on
              // them): a run-time shape must be one of those.
              if (o.type != port.type || !port.shape.accepts(shape))
                throw Error(ErrorCode::shape,
                            fmt::format("the shape rule gave output {} {} {} at run time, outside "
                                        "the {} {} it inferred at load time",
                                        k, to_string(o.type), to_string(shape),
                                        to_string(port.type), to_string(port.shape)));
              std::size_t result = 0;
              if (bound_result(step.first_output + k, result)) {
                check_bound(hooks, result, o.type, shape, output_context(k));
                outputs[k] = *hooks.bound[result];
                continue;
              }
              state.slot_bytes[step.first_output + k] =
                  reserve_output(o.type, shape, k, limits, budget);
              outputs[k] =
                  output_tensor(plan, plan.slots[step.first_output + k], o.type, shape, state);
            }
          }
          const std::size_t scratch =
              node.op->scratch_bytes(inputs, outputs, context.parallel.threads());
          if (!budget.reserve(scratch))
            throw budget.exceeded("the kernel's scratch space", scratch);
          node.op->execute(inputs, outputs, context);
          budget.release(scratch);
        } catch (const Error& e) {
          throw graph.locate(e, node);
        } catch (const std::bad_alloc&) {
          throw graph.locate(Error(ErrorCode::value, "out of memory for the layer's outputs"),
                             node);
        }
        if (hooks.profile) record_layer(hooks, step, inputs, outputs, run_start, start, now_ns());
        if (hooks.observer) (*hooks.observer)((*hooks.layers)[step.node], outputs);
        for (std::size_t k = 0; k < outputs.size(); ++k)
          slots[step.first_output + k] = std::move(outputs[k]);
        for (std::size_t k = 0; k < inputs.size(); ++k) {
          if (step.repeated_input)
            inputs[k] = Tensor();
          else
            slots[step.inputs[k]] = std::move(inputs[k]);
        }
        break;
      }
    }
    for (std::size_t slot : step.release) {
      slots[slot] = Tensor();
      if (!plan.slots[slot].returned) budget.release(state.slot_bytes[slot]);
    }
    for (std::size_t b : step.drop) state.buffers[b].reset();
  }
  cleanup.finished();
  if (hooks.profile) hooks.profile->total_ns = now_ns() - run_start;
  return results;
}

}  // namespace irlite
