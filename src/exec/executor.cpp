#include "exec/executor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <new>

#include "core/buffer.hpp"
#include "graph/op.hpp"
#include "graph/widen_floats.hpp"

namespace irlite {
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
    const std::size_t bytes = plan.buffers[slot.buffer].bytes;
    auto spare = std::find_if(state.spare.begin(), state.spare.end(),
                              [&](const auto& s) { return s.first == bytes; });
    if (spare != state.spare.end()) {
      buffer = std::move(spare->second);
      *spare = std::move(state.spare.back());
      state.spare.pop_back();
    } else {
      buffer = allocate_buffer(bytes);
    }
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
void record_layer(const RunHooks& hooks, const ExecPlan::Step& step, const Node& node,
                  std::span<const Tensor> inputs, std::span<const Tensor> outputs,
                  std::int64_t run_start, std::int64_t start, std::int64_t end) {
  const LayerInfo& info = (*hooks.layers)[step.node];
  LayerProfile& p = hooks.profile->layers.emplace_back();
  p.layer = step.node;
  p.id = info.id;
  p.name = info.name;
  p.type = info.type;
  p.version = info.version;
  p.start_ns = start - run_start;
  p.duration_ns = std::max<std::int64_t>(end - start, 0);
  p.fused_layers = node.fused_layers;
  for (const Tensor& t : inputs) {
    p.input_bytes += t.byte_size();
    p.input_shapes.push_back(t.shape());
  }
  for (const Tensor& t : outputs) {
    p.output_bytes += t.byte_size();
    p.output_shapes.push_back(t.shape());
  }
}

/// One run of a plan: the state of the run and a function per kind of step.
class Run {
 public:
  Run(const Graph& graph, const ExecPlan& plan, std::vector<Tensor>& fed,
      const MemoryLimits& limits, const ExecContext& context, ExecState& state,
      const RunHooks& hooks)
      : graph_(graph),
        plan_(plan),
        fed_(fed),
        limits_(limits),
        context_(context),
        state_(state),
        hooks_(hooks),
        budget_(limits.max_memory_bytes),
        results_(graph.results.size()) {}

  std::vector<Tensor> all_steps() {
    const std::int64_t run_start = hooks_.profile ? now_ns() : 0;
    if (hooks_.profile) *hooks_.profile = RunProfile();
    prepare_state();
    RunCleanup cleanup(plan_, state_);
    for (const ExecPlan::Step& step : plan_.steps) {
      const Node& node = graph_.nodes[step.node];
      switch (node.kind()) {
        case OpKind::parameter:
          parameter_step(step, node);
          observe_source(step);
          break;
        case OpKind::constant:
          state_.slots[step.first_output] = node.value;
          observe_source(step);
          break;
        case OpKind::result:
          result_step(step, node);
          break;
        case OpKind::compute:
          compute_step(step, node, run_start);
          break;
      }
      release_after(step);
    }
    cleanup.finished();
    if (hooks_.profile) hooks_.profile->total_ns = now_ns() - run_start;
    return std::move(results_);
  }

 private:
  /// Sizes the state's arrays for the plan and marks the slots whose value goes into a bound
  /// tensor.
  void prepare_state() {
    state_.slots.resize(plan_.slot_count);
    state_.buffers.resize(plan_.buffers.size());
    state_.inputs.resize(plan_.max_inputs);
    state_.outputs.resize(plan_.max_outputs);
    state_.infos.resize(plan_.max_inputs);
    state_.slot_bytes.assign(plan_.slot_count, 0);
    state_.slot_bound.assign(hooks_.bound.empty() ? 0 : plan_.slot_count, SIZE_MAX);
    for (std::size_t r = 0; r < hooks_.bound.size(); ++r) {
      std::size_t& bound = state_.slot_bound[plan_.result_slots[r]];
      // An output narrowed from f32 (Node::edge_type) is written to its bound tensor by
      // result_step(), not by its layer.
      const bool narrowed = graph_.nodes[graph_.results[r]].edge_type != ElementType::undefined;
      if (hooks_.bound[r] && bound == SIZE_MAX && !narrowed) bound = r;
    }
  }

  /// Whether the value in `slot` goes into a bound tensor; sets `result` to its output then.
  bool bound_result(std::size_t slot, std::size_t& result) const {
    if (state_.slot_bound.empty() || state_.slot_bound[slot] == SIZE_MAX) return false;
    result = state_.slot_bound[slot];
    return true;
  }

  /// Shows a Parameter's or a Const's value to the observer.
  void observe_source(const ExecPlan::Step& step) const {
    if (hooks_.observer)
      (*hooks_.observer)((*hooks_.layers)[step.node], {&state_.slots[step.first_output], 1});
  }

  /// Puts the caller's input in the Parameter's slot, widened to f32 where the layers after it
  /// compute in f32 (Node::edge_type).
  void parameter_step(const ExecPlan::Step& step, const Node& node) {
    Tensor& fed = fed_[step.io_index];
    if (node.edge_type == ElementType::undefined || fed.element_type() != node.edge_type) {
      state_.slots[step.first_output] = std::move(fed);
      return;
    }
    try {
      state_.slot_bytes[step.first_output] =
          reserve_output(ElementType::f32, fed.shape(), 0, limits_, budget_);
    } catch (const Error& e) {
      throw graph_.locate(e, node);
    }
    Tensor wide = uninitialized_tensor(ElementType::f32, fed.shape());
    convert_floats(fed, wide, context_.parallel);
    state_.slots[step.first_output] = std::move(wide);
  }

  /// Result `r`'s value narrowed to the declared type: into the bound tensor when there is one.
  Tensor narrowed_result(std::size_t r, const Node& node, const Tensor& value) {
    try {
      if (!hooks_.bound.empty() && hooks_.bound[r]) {
        check_bound(hooks_, r, node.edge_type, value.shape());
        Tensor bound = *hooks_.bound[r];
        convert_floats(value, bound, context_.parallel);
        return bound;
      }
      reserve_output(node.edge_type, value.shape(), 0, limits_, budget_);
    } catch (const Error& e) {
      throw graph_.locate(e, node);
    }
    Tensor narrow = uninitialized_tensor(node.edge_type, value.shape());
    convert_floats(value, narrow, context_.parallel);
    return narrow;
  }

  /// Hands the value to the caller: narrowed to its declared type where the layers computed in
  /// f32, into its bound tensor, as a copy for a Const's (the weights stay untouched), else as
  /// it is.
  void result_step(const ExecPlan::Step& step, const Node& node) {
    const std::size_t r = step.io_index;
    const std::size_t slot = step.inputs[0];
    const OpKind source = graph_.nodes[node.inputs[0].source_node].kind();
    results_[r] = state_.slots[slot];
    if (node.edge_type != ElementType::undefined) {
      results_[r] = narrowed_result(r, node, results_[r]);
      return;
    }
    if (!hooks_.bound.empty() && hooks_.bound[r]) {
      // Written in place by its layer, or copied here.
      std::size_t writer = SIZE_MAX;
      if (source != OpKind::compute || !bound_result(slot, writer) || writer != r) {
        try {
          results_[r] = copy_to_bound(hooks_, r, results_[r]);
        } catch (const Error& e) {
          throw graph_.locate(e, node);
        }
      }
      return;
    }
    if (source == OpKind::constant) {
      const Tensor& value = results_[r];
      if (!budget_.reserve(value.byte_size()))
        throw graph_.locate(
            budget_.exceeded(fmt::format("the copy of Const {} {}", to_string(value.element_type()),
                                         to_string(value.shape())),
                             value.byte_size()),
            node);
      results_[r] = value.clone();
    }
  }

  /// Runs a layer's kernel: its inputs side by side, its outputs allocated, its scratch reserved;
  /// then the values go back to their slots.
  void compute_step(const ExecPlan::Step& step, const Node& node, std::int64_t run_start) {
    const std::int64_t start = hooks_.profile ? now_ns() : 0;
    const std::span<Tensor> inputs = take_inputs(step);
    const std::span<Tensor> outputs(state_.outputs.data(), step.output_count);
    try {
      if (step.shapes_fixed)
        planned_outputs(step, outputs);
      else
        inferred_outputs(step, node, inputs, outputs);
      run_kernel(node, inputs, outputs);
    } catch (const Error& e) {
      throw graph_.locate(e, node);
    } catch (const std::bad_alloc&) {
      throw graph_.locate(Error(ErrorCode::value, "out of memory for the layer's outputs"), node);
    }
    if (hooks_.profile)
      record_layer(hooks_, step, node, inputs, outputs, run_start, start, now_ns());
    // A fused chain's outputs are its last layer's.
    if (hooks_.observer)
      (*hooks_.observer)(
          (*hooks_.layers)[node.fused_layers.empty() ? step.node : node.fused_layers.back()],
          outputs);
    give_back(step, inputs, outputs);
  }

  /// execute() takes its inputs side by side: they are moved out of their slots (and back in
  /// give_back), or copied when a slot feeds two of them.
  std::span<Tensor> take_inputs(const ExecPlan::Step& step) {
    const std::span<Tensor> inputs(state_.inputs.data(), step.inputs.size());
    for (std::size_t k = 0; k < inputs.size(); ++k)
      inputs[k] = step.repeated_input ? state_.slots[step.inputs[k]]
                                      : std::move(state_.slots[step.inputs[k]]);
    return inputs;
  }

  /// The outputs of a layer whose shapes the plan knows: the rule does not run again.
  void planned_outputs(const ExecPlan::Step& step, std::span<Tensor> outputs) {
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      const ExecPlan::Slot& slot = plan_.slots[step.first_output + k];
      std::size_t result = 0;
      if (bound_result(step.first_output + k, result)) {
        check_bound(hooks_, result, slot.type, slot.shape, output_context(k));
        outputs[k] = *hooks_.bound[result];
        continue;
      }
      std::size_t bytes = 0;
      if (slot.bytes && *slot.bytes <= limits_.max_tensor_bytes && budget_.reserve(*slot.bytes))
        bytes = *slot.bytes;
      else
        bytes = reserve_output(slot.type, slot.shape, k, limits_, budget_);
      state_.slot_bytes[step.first_output + k] = bytes;
      outputs[k] = output_tensor(plan_, slot, slot.type, slot.shape, state_);
    }
  }

  /// The outputs of a layer whose shape rule runs again on the real inputs.
  void inferred_outputs(const ExecPlan::Step& step, const Node& node,
                        std::span<const Tensor> inputs, std::span<Tensor> outputs) {
    // The layer's own inputs (a fused chain's added tensors follow them).
    const std::size_t own = node.inputs.size();
    for (std::size_t k = 0; k < own; ++k)
      state_.infos[k] = {inputs[k].element_type(), PartialShape::from_shape(inputs[k].shape()),
                         step.value_inputs[k] ? &inputs[k] : nullptr};
    const std::span<const ValueInfo> infos(state_.infos.data(), own);
    // Op::infer() checks the types again: they were checked at load, and a Session takes
    // inputs of the Parameters' types only, but the rule relies on them.
    const std::vector<OutputInfo> outs = node.op->infer(infos, Phase::run);
    if (outs.size() != outputs.size())
      throw Error(ErrorCode::shape,
                  fmt::format("the shape rule gave {} outputs at run time, not {}", outs.size(),
                              outputs.size()));
    for (std::size_t k = 0; k < outs.size(); ++k) {
      const OutputInfo& o = outs[k];
      const OutputPort& port = node.outputs[k];
      if (!o.shape.is_static())
        throw Error(ErrorCode::shape, "the shape rule left output shape " + to_string(o.shape) +
                                          " dynamic at run time");
      const Shape shape = o.shape.to_shape();
      // The layers after this one rely on the load-time shapes (some were planned on them): a
      // run-time shape must be one of those.
      if (o.type != port.type || !port.shape.accepts(shape))
        throw Error(ErrorCode::shape, fmt::format("the shape rule gave output {} {} {} at run "
                                                  "time, outside the {} {} "
                                                  "it inferred at load time",
                                                  k, to_string(o.type), to_string(shape),
                                                  to_string(port.type), to_string(port.shape)));
      std::size_t result = 0;
      if (bound_result(step.first_output + k, result)) {
        check_bound(hooks_, result, o.type, shape, output_context(k));
        outputs[k] = *hooks_.bound[result];
        continue;
      }
      state_.slot_bytes[step.first_output + k] = reserve_output(o.type, shape, k, limits_, budget_);
      outputs[k] = output_tensor(plan_, plan_.slots[step.first_output + k], o.type, shape, state_);
    }
  }

  /// The kernel, with its scratch space reserved against the budget while it runs.
  void run_kernel(const Node& node, std::span<const Tensor> inputs, std::span<Tensor> outputs) {
    const unsigned threads = context_.parallel.threads();
    // A layer that runs a fused chain does so through its fused op.
    const Op& op = node.fused_op ? *node.fused_op : *node.op;
    const std::size_t scratch =
        node.prepared ? op.scratch_bytes_prepared(inputs, outputs, threads, *node.prepared)
                      : op.scratch_bytes(inputs, outputs, threads);
    if (!budget_.reserve(scratch)) throw budget_.exceeded("the kernel's scratch space", scratch);
    if (scratch > state_.arena_bytes) {
      state_.arena.reset();  // the old arena goes before the larger one comes
      state_.arena_bytes = 0;
      state_.arena = allocate_buffer(scratch);
      state_.arena_bytes = scratch;
    }
    const ExecContext context{context_.parallel, Scratch(state_.arena.get(), scratch)};
    if (node.prepared)
      op.execute_prepared(inputs, outputs, context, *node.prepared);
    else
      op.execute(inputs, outputs, context);
    budget_.release(scratch);
  }

  /// Puts the outputs in their slots and the inputs back in theirs.
  void give_back(const ExecPlan::Step& step, std::span<Tensor> inputs, std::span<Tensor> outputs) {
    for (std::size_t k = 0; k < outputs.size(); ++k)
      state_.slots[step.first_output + k] = std::move(outputs[k]);
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      if (step.repeated_input)
        inputs[k] = Tensor();
      else
        state_.slots[step.inputs[k]] = std::move(inputs[k]);
    }
  }

  /// Lets go of the values whose last reader the step was, and of the buffers the plan drops.
  void release_after(const ExecPlan::Step& step) {
    for (std::size_t slot : step.release) {
      state_.slots[slot] = Tensor();
      if (!plan_.slots[slot].returned) budget_.release(state_.slot_bytes[slot]);
    }
    for (std::size_t b : step.drop) retire(b);
  }

  /// Lets go of buffer `b` for this run: into the spare ones, unless someone else still holds
  /// it (an observer that kept a tensor). Its pages stay as they are: advising the kernel that
  /// they may go (MADV_FREE) made face detection's runs three times as long, and fresh memory
  /// faults its pages in again at every run.
  void retire(std::size_t b) {
    std::shared_ptr<void>& buffer = state_.buffers[b];
    if (buffer && buffer.use_count() == 1)
      state_.spare.emplace_back(plan_.buffers[b].bytes, std::move(buffer));
    buffer.reset();
  }

  const Graph& graph_;
  const ExecPlan& plan_;
  std::vector<Tensor>& fed_;
  const MemoryLimits& limits_;
  const ExecContext& context_;
  ExecState& state_;
  const RunHooks& hooks_;
  MemoryBudget budget_;
  std::vector<Tensor> results_;
};

}  // namespace

std::vector<Tensor> execute(const Graph& graph, const ExecPlan& plan, std::vector<Tensor> fed,
                            const MemoryLimits& limits, const ExecContext& context,
                            ExecState& state, const RunHooks& hooks) {
  return Run(graph, plan, fed, limits, context, state, hooks).all_steps();
}

}  // namespace irlite
