#pragma once
// The element-wise steps the fusion pass hands to an op (ChannelStep, graph/op.hpp), as the
// kernels run them (EpilogueStep, kernels/gemm.hpp).

#include <cstdint>
#include <span>

#include "graph/op.hpp"
#include "kernels/gemm.hpp"

namespace irlite {

/// `step` for the kernels, running on `output`, the fused op's first output; its values stay
/// where `step` holds them, an added tensor's in `inputs` (the fused op's).
inline EpilogueStep epilogue_step(const ChannelStep& step, std::span<const Tensor> inputs,
                                  const float* output) {
  EpilogueStep k;
  k.values = step.values.empty() ? nullptr : step.values.data();
  switch (step.kind) {
    case ChannelStep::Kind::add_tensor:
      k.kind = EpilogueStep::Kind::add_tensor;
      k.values = inputs[step.input].data<float>();
      k.output = output;
      break;
    case ChannelStep::Kind::add:
      k.kind = EpilogueStep::Kind::add;
      break;
    case ChannelStep::Kind::multiply:
      k.kind = EpilogueStep::Kind::multiply;
      break;
    case ChannelStep::Kind::relu:
      k.kind = EpilogueStep::Kind::relu;
      break;
    case ChannelStep::Kind::prelu:
      k.kind = EpilogueStep::Kind::prelu;
      break;
    case ChannelStep::Kind::fake_quantize:
      k.kind = EpilogueStep::Kind::fake_quantize;
      k.stride = static_cast<std::int64_t>(step.values.size() / 4);
      k.steps = step.steps;
      break;
  }
  return k;
}

}  // namespace irlite
