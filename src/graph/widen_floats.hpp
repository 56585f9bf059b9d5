#pragma once
// The load-time pass behind InferencePrecision::f32: f16 and bf16 layers compute in float32.

#include "core/parallel.hpp"
#include "graph/graph.hpp"

namespace irlite {

/// Widens every f16 and bf16 Const value to f32 and retypes every op attribute that says f16 or
/// bf16 (Op::retyped()), so that shape inference gives f32 wherever the IR declares those
/// types; a Parameter that only Results read stays as it is. A Parameter widened so keeps its
/// declared type as its edge_type, and so does a Result whose source port is declared f16 or bf16
/// (settle_edge_types() checks it after inference). Runs on a graph that is read and wired, its
/// Consts attached, before shape inference.
void widen_floats(Graph& graph);

/// After shape inference: a Result keeps its edge_type only when its value is inferred f32 (a
/// port declared f16 whose layer gives an integer stays as inferred).
void settle_edge_types(Graph& graph);

/// Whether `type` is one of the types widen_floats() computes in f32: f16 or bf16.
inline bool is_narrow_float(ElementType type) {
  return type == ElementType::f16 || type == ElementType::bf16;
}

/// `value` (f16 or bf16) as a new f32 tensor, or `value` itself for any other type.
Tensor widened(const Tensor& value);

/// Writes `from` into `to`, of the same shape, each of them f16, bf16, f32 or f64, rounding to
/// nearest even where `to` is narrower: how a run widens an input and narrows an output.
void convert_floats(const Tensor& from, Tensor& to, const Parallel& parallel);

}  // namespace irlite
