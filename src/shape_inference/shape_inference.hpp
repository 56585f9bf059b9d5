#pragma once
// Load-time shape inference: every layer's output types and partial shapes, in run order.

#include "graph/graph.hpp"

namespace irlite {

/// Infers every node's outputs from its inputs with the op's shape rule, using the values of
/// Const inputs. A layer whose rule fails is reported and its outputs stay unknown; layers fed by
/// it are skipped. A layer that reaches no Result never rejects the model: the failure of its
/// rule is a warning. Declared port dims that contradict the inferred shapes become warnings.
void infer_shapes(Graph& graph, Diagnostics& diagnostics);

/// Whether the precision or `<dim>`s the IR declares on an output port contradict the inferred
/// type and shape.
bool declared_contradicts(const OutputPort& port);

}  // namespace irlite
