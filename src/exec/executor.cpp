#include "exec/executor.hpp"

#include <fmt/format.h>

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
      step.inputs.push_back(slot);
      last_reader[slot] = plan.steps.size();
    }
    if (node.kind() == OpKind::compute) {
      for (std::size_t k = 0; k < node.inputs.size(); ++k)
        step.value_inputs.push_back(node.op->shape_needs_value(k, node.inputs.size()));
      step.shapes_fixed = outputs_fixed(graph, node, plan, step);
    }
    plan.steps.push_back(std::move(step));
  }
  for (std::size_t slot = 0; slot < plan.slot_count; ++slot)
    if (last_reader[slot] != SIZE_MAX) plan.steps[last_reader[slot]].release.push_back(slot);
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

}  // namespace

std::vector<Tensor> execute(const Graph& graph, const ExecPlan& plan, std::vector<Tensor> fed,
                            std::size_t max_tensor_bytes, const ExecContext& context) {
  std::vector<Tensor> slots(plan.slot_count);
  std::vector<Tensor> results(graph.results.size());
  std::vector<ValueInfo> infos;
  std::vector<Tensor> inputs;
  for (const ExecPlan::Step& step : plan.steps) {
    const Node& node = graph.nodes[step.node];
    switch (node.kind()) {
      case OpKind::parameter:
        slots[step.first_output] = fed[step.io_index];
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
        inputs.clear();
        for (std::size_t slot : step.inputs) inputs.push_back(slots[slot]);
        try {
          std::vector<Tensor> outputs;
          outputs.reserve(step.output_count);
          if (step.shapes_fixed) {
            for (std::size_t k = 0; k < step.output_count; ++k) {
              const ExecPlan::Slot& slot = plan.slots[step.first_output + k];
              check_size(slot.type, slot.shape, k, max_tensor_bytes);
              // Not zeroed: execute() writes every element.
              outputs.push_back(uninitialized_tensor(slot.type, slot.shape));
            }
          } else {
            infos.clear();
            for (std::size_t k = 0; k < inputs.size(); ++k)
              infos.push_back({inputs[k].element_type(),
                               PartialShape::from_shape(inputs[k].shape()),
                               step.value_inputs[k] ? &inputs[k] : nullptr});
            const std::vector<OutputInfo> outs = node.op->infer(infos, Phase::run);
            if (outs.size() != step.output_count)
              throw Error(ErrorCode::shape,
                          fmt::format("the shape rule gave {} outputs at run time, not {}",
                                      outs.size(), step.output_count));
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
              outputs.push_back(uninitialized_tensor(o.type, shape));
            }
          }
          node.op->execute(inputs, outputs, context);
          for (std::size_t k = 0; k < outputs.size(); ++k)
            slots[step.first_output + k] = std::move(outputs[k]);
        } catch (const Error& e) {
          throw graph.locate(e, node);
        } catch (const std::bad_alloc&) {
          throw graph.locate(Error(ErrorCode::value, "out of memory for the layer's outputs"),
                             node);
        }
        break;
      }
    }
    for (std::size_t slot : step.release) slots[slot] = Tensor();
  }
  return results;
}

}  // namespace irlite
