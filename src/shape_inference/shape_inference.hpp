#pragma once
// Load-time shape inference: every layer's output types and partial shapes, in run order.

#include <cstdint>

#include "graph/graph.hpp"

namespace irlite {

/// The largest layer output, in bytes, that loading computes ahead of the runs (see
/// infer_shapes).
inline constexpr std::uint64_t kFoldLimitBytes = std::uint64_t{1} << 20;

/// Infers every node's outputs from its inputs with the op's shape rule, using the values of
/// Const inputs. Values propagate too: a single-output layer whose inputs are all known is
/// computed (folded) when its output takes at most kFoldLimitBytes, and runs as a Const from
/// then on; small integer outputs get bounds from Op::infer_bounds (ShapeOf from its input's
/// dims, and the glue after it), which the shape rules of the layers they feed use; bounds
/// that meet make the layer folded too. Inferring a graph again (a reshape) first undoes the
/// folds of the previous inference. A layer
/// whose rule fails is reported and its outputs stay unknown; layers fed by it are skipped. A
/// layer that reaches no Result never rejects the model: the failure of its rule is a warning.
/// Declared port dims that contradict the inferred shapes become warnings.
void infer_shapes(Graph& graph, Diagnostics& diagnostics);

/// Whether the precision or `<dim>`s the IR declares on an output port contradict the inferred
/// type and shape; with `floats_widened` (Graph::floats_widened), a port declared f16 or bf16
/// and inferred f32 does not.
bool declared_contradicts(const OutputPort& port, bool floats_widened);

}  // namespace irlite
