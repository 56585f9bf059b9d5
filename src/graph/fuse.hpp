#pragma once
// The load-time fusion pass: element-wise layers with a value per channel run inside the kernel
// of the layer before them.

#include "graph/graph.hpp"

namespace irlite {

/// For each layer whose op can run steps in its kernel (Op::fused(): Convolution,
/// GroupConvolution, and Add of two tensors), takes in the chain of layers after it that each are
/// the only reader of the one before and are one of: Add or Multiply (NumPy or no broadcasting)
/// with a Const of a value per channel or one value, Relu, PReLU with a Const slope per channel or
/// single, FakeQuantize with such limits, or an Add of an f32 tensor of the layer's static output
/// shape made by a layer that runs before it (the fused op reads it as an extra input,
/// Node::fused_inputs). The chain's values must all be f32, so that each step rounds exactly as
/// its layer would. Sets Node::fused_op, fused_layers and fused_inputs on the layer and
/// fused_into on the chain. Runs after prepare_layers(), on a graph that loaded without problems;
/// clear_fusion() undoes it.
void fuse_layers(Graph& graph);

/// Undoes fuse_layers(): every layer runs alone again.
void clear_fusion(Graph& graph);

}  // namespace irlite
