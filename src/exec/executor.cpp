#include "exec/executor.hpp"

#include <fmt/format.h>

#include <new>

#include "core/buffer.hpp"

namespace irlite {

ExecPlan make_plan(const Graph& graph) {
  ExecPlan plan;
  std::vector<std::size_t> first_slot(graph.nodes.size(), 0);
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    first_slot[i] = plan.slot_count;
    plan.slot_count += graph.nodes[i].outputs.size();
  }
  std::vector<std::size_t> last_reader(plan.slot_count, SIZE_MAX);
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    if (!node.reaches_result) continue;
    ExecPlan::Step step{i, {}, first_slot[i], {}, 0, {}};
    const auto& io = node.kind() == OpKind::parameter ? graph.parameters : graph.results;
    for (std::size_t k = 0; k < io.size(); ++k)
      if (io[k] == i) step.io_index = k;
    for (const InputPort& in : node.inputs) {
      const std::size_t slot = first_slot[in.source_node] + in.source_output;
      step.inputs.push_back(slot);
      last_reader[slot] = plan.steps.size();
    }
    if (node.kind() == OpKind::compute)
      for (std::size_t k = 0; k < node.inputs.size(); ++k)
        step.value_inputs.push_back(node.op->shape_needs_value(k, node.inputs.size()));
    plan.steps.push_back(std::move(step));
  }
  for (std::size_t slot = 0; slot < plan.slot_count; ++slot)
    if (last_reader[slot] != SIZE_MAX) plan.steps[last_reader[slot]].release.push_back(slot);
  return plan;
}

namespace {

/// Refuses an output whose byte size overflows or exceeds the session's limit.
void check_size(const OutputInfo& o, std::size_t index, std::size_t max_bytes) {
  const Shape shape = o.shape.to_shape();
  const auto count = element_count(shape);
  const std::size_t width = element_size(o.type);
  if (count && (width == 0 || static_cast<std::uint64_t>(*count) <= max_bytes / width)) return;
  ErrorContext c;
  c.port_kind = ErrorContext::PortKind::output;
  c.port = static_cast<std::int64_t>(index);
  throw Error(ErrorCode::value,
              fmt::format("output {} {} would take more than {} bytes, the largest tensor this "
                          "session may allocate",
                          to_string(o.type), to_string(shape), max_bytes),
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
        infos.clear();
        inputs.clear();
        for (std::size_t slot : step.inputs) {
          inputs.push_back(slots[slot]);
          const Tensor& t = inputs.back();
          infos.push_back({t.element_type(), PartialShape::from_shape(t.shape()), nullptr});
        }
        // The kernel checks the other inputs' values: the rule need not walk them too.
        for (std::size_t k = 0; k < inputs.size(); ++k)
          if (step.value_inputs[k]) infos[k].value = &inputs[k];
        try {
          const std::vector<OutputInfo> outs = node.op->infer(infos, Phase::run);
          std::vector<Tensor> outputs;
          outputs.reserve(outs.size());
          for (std::size_t k = 0; k < outs.size(); ++k) {
            const OutputInfo& o = outs[k];
            if (!o.shape.is_static())
              throw Error(ErrorCode::shape, "the shape rule left output shape " +
                                                to_string(o.shape) + " dynamic at run time");
            check_size(o, k, max_tensor_bytes);
            // Not zeroed: execute() writes every element.
            outputs.push_back(uninitialized_tensor(o.type, o.shape.to_shape()));
          }
          node.op->execute(inputs, outputs, context);
          for (std::size_t k = 0; k < outputs.size(); ++k)
            slots[step.first_output + k] = std::move(outputs[k]);
        } catch (const Error& e) {
          throw graph.locate(e, node);
        } catch (const std::bad_alloc&) {
          throw graph.locate(Error(ErrorCode::value, "out of memory for the layer's outputs"), node);
        }
        break;
      }
    }
    for (std::size_t slot : step.release) slots[slot] = Tensor();
  }
  return results;
}

}  // namespace irlite
