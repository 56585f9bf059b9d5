#include "exec/executor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <new>

#include "core/buffer.hpp"

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
  return slot;
}

// Whether the load-time inference already gives the layer's outputs at every run: its input
// shapes are static, the shape rule reads only Consts' values, and run as it would be before the
// layer runs, the rule gives the static outputs inferred at load time. A rule that fails here (a
// Const k beyond a static dimension) fails the same way at every run: such a layer keeps running
// its rule, which reports the problem then, as it always did.
bool outputs_fixed(const Graph& graph, const Node& node, const ExecPlan& plan,
                   const ExecPlan::Step& step) {
  std::vector<ValueInfo> infos;
  for (std::size_t k = 0; k < node.inputs.size(); ++k) {
    const Node& src = graph.nodes[node.inputs[k].source_node];
    const OutputPort& port = src.outputs[node.inputs[k].source_output];
    if (!port.shape.is_static()) return false;
    const Tensor* value = nullptr;
    if (step.value_inputs[k]) {
      if (src.kind() != OpKind::constant || !src.has_value) return false;
      value = &src.value;
    }
    infos.push_back({port.type, port.shape, value});
  }
  std::vector<OutputInfo> outputs;
  try {
    outputs = node.op->infer(infos, Phase::run);
  } catch (const Error&) {
    return false;
  }
  if (outputs.size() != step.output_count) return false;
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const ExecPlan::Slot& slot = plan.slots[step.first_output + k];
    if (!slot.is_static || outputs[k].type != slot.type || !outputs[k].shape.is_static() ||
        outputs[k].shape.to_shape() != slot.shape)
      return false;
  }
  return true;
}

}  // namespace

ExecPlan make_plan(const Graph& graph) {
  ExecPlan plan;
  std::vector<std::size_t> first_slot(graph.nodes.size(), 0);
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    first_slot[i] = plan.slot_count;
    plan.slot_count += graph.nodes[i].outputs.size();
    for (const OutputPort& out : graph.nodes[i].outputs)
      plan.slots.push_back(describe_slot(graph.nodes[i], out));
  }
  std::vector<std::size_t> last_reader(plan.slot_count, SIZE_MAX);
  std::vector<std::size_t> producer(plan.slot_count, SIZE_MAX);
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    if (!node.reaches_result) continue;
    ExecPlan::Step step;
    step.node = i;
    step.first_output = first_slot[i];
    step.output_count = node.outputs.size();
    const auto& io = node.kind() == OpKind::parameter ? graph.parameters : graph.results;
    for (std::size_t k = 0; k < io.size(); ++k)
      if (io[k] == i) step.io_index = k;
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
      for (std::size_t k = 0; k < node.inputs.size(); ++k)
        step.value_inputs.push_back(node.op->shape_needs_value(k, node.inputs.size()));
      step.shapes_fixed = outputs_fixed(graph, node, plan, step);
    }
    plan.max_inputs = std::max(plan.max_inputs, step.inputs.size());
    plan.max_outputs = std::max(plan.max_outputs, step.output_count);
    plan.steps.push_back(std::move(step));
  }
  for (std::size_t slot = 0; slot < plan.slot_count; ++slot) {
    if (last_reader[slot] != SIZE_MAX)
      plan.steps[last_reader[slot]].release.push_back(slot);
    else if (producer[slot] != SIZE_MAX)
      plan.steps[producer[slot]].release.push_back(slot);  // an output nobody reads
  }
  return plan;
}

namespace {

/// Refuses an output whose byte size overflows or exceeds the session's limit.
void check_size(ElementType type, const Shape& shape, std::size_t index, std::size_t max_bytes) {
  const auto count = element_count(shape);
  const std::size_t width = element_size(type);
  if (count && (width == 0 || static_cast<std::uint64_t>(*count) <= max_bytes / width)) return;
  ErrorContext c;
  c.port_kind = ErrorContext::PortKind::output;
  c.port = static_cast<std::int64_t>(index);
  throw Error(ErrorCode::value,
              fmt::format("output {} {} would take more than {} bytes, the largest tensor this "
                          "session may allocate",
                          to_string(type), to_string(shape), max_bytes),
              std::move(c));
}

/// Leaves no tensor in the state when a run fails.
class RunCleanup {
 public:
  explicit RunCleanup(ExecState& state) : state_(state) {}
  ~RunCleanup() {
    if (finished_) return;
    for (Tensor& t : state_.slots) t = Tensor();
    for (Tensor& t : state_.inputs) t = Tensor();
    for (Tensor& t : state_.outputs) t = Tensor();
  }
  RunCleanup(const RunCleanup&) = delete;
  RunCleanup& operator=(const RunCleanup&) = delete;
  void finished() { finished_ = true; }

 private:
  ExecState& state_;
  bool finished_ = false;
};

}  // namespace

std::vector<Tensor> execute(const Graph& graph, const ExecPlan& plan, std::vector<Tensor> fed,
                            std::size_t max_tensor_bytes, const ExecContext& context,
                            ExecState& state) {
  state.slots.resize(plan.slot_count);
  state.inputs.resize(plan.max_inputs);
  state.outputs.resize(plan.max_outputs);
  state.infos.resize(plan.max_inputs);
  RunCleanup cleanup(state);
  std::vector<Tensor>& slots = state.slots;
  std::vector<Tensor> results(graph.results.size());
  for (const ExecPlan::Step& step : plan.steps) {
    const Node& node = graph.nodes[step.node];
    switch (node.kind()) {
      case OpKind::parameter:
        slots[step.first_output] = std::move(fed[step.io_index]);
        break;
      case OpKind::constant:
        slots[step.first_output] = node.value;
        break;
      case OpKind::result:
        results[step.io_index] = slots[step.inputs[0]];
        if (graph.nodes[node.inputs[0].source_node].kind() == OpKind::constant)
          results[step.io_index] = results[step.io_index].clone();
        break;
      case OpKind::compute: {
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
              check_size(slot.type, slot.shape, k, max_tensor_bytes);
              // Not zeroed: execute() writes every element.
              outputs[k] = uninitialized_tensor(slot.type, slot.shape);
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
              check_size(o.type, shape, k, max_tensor_bytes);
              outputs[k] = uninitialized_tensor(o.type, shape);
            }
          }
          node.op->execute(inputs, outputs, context);
        } catch (const Error& e) {
          throw graph.locate(e, node);
        } catch (const std::bad_alloc&) {
          throw graph.locate(Error(ErrorCode::value, "out of memory for the layer's outputs"),
                             node);
        }
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
    for (std::size_t slot : step.release) slots[slot] = Tensor();
  }
  cleanup.finished();
  return results;
}

}  // namespace irlite
