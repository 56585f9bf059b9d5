#pragma once
// The element-wise steps the fusion pass hands to an op (ChannelStep, graph/op.hpp), as the
// kernels run them (EpilogueStep, kernels/gemm.hpp).

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "core/parallel.hpp"
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

/// The most steps run_plane_steps() takes.
inline constexpr std::size_t kMaxPlaneSteps = 8;

/// `steps` (at most kMaxPlaneSteps) for the kernels, running on `out`.
struct KernelSteps {
  std::array<EpilogueStep, kMaxPlaneSteps> steps;
  std::size_t count = 0;
  KernelSteps(std::span<const ChannelStep> given, std::span<const Tensor> inputs, Tensor& out)
      : count(given.size()) {
    for (std::size_t i = 0; i < count; ++i)
      steps[i] = epilogue_step(given[i], inputs, out.data<float>());
  }
  std::span<const EpilogueStep> span() const { return {steps.data(), count}; }
};

/// Runs `steps` (at most kMaxPlaneSteps, a fused op's) on a 2-D `out` (f32, [N, C]): each row's
/// C elements at once, a vector of channels at a time. A tensor a step adds is one of `inputs`.
inline void run_row_steps(const Parallel& parallel, std::span<const ChannelStep> steps,
                          std::span<const Tensor> inputs, Tensor& out) {
  const KernelSteps own(steps, inputs, out);
  const std::int64_t channels = out.shape()[1];
  if (channels == 0) return;
  const auto rows = static_cast<std::size_t>(out.shape()[0]);
  parallel.for_range(
      rows, static_cast<std::size_t>(std::max<std::int64_t>(1, (1 << 14) / channels)),
      [&](std::size_t first, std::size_t last, std::size_t) {
        for (std::size_t r = first; r < last; ++r)
          apply_channel_steps(
              own.span(), 0, out.data<float>() + static_cast<std::int64_t>(r) * channels, channels);
      });
}

/// Runs `steps` (at most kMaxPlaneSteps, a fused op's) on `out` (f32, [N, C, ...]) a batch
/// item's channel plane at a time, each plane while it is in cache, after
/// `before(plane_index, plane_data, plane_size)` on it. A tensor a step adds is one of `inputs`.
template <class Before>
void run_plane_steps(const Parallel& parallel, std::span<const ChannelStep> steps,
                     std::span<const Tensor> inputs, Tensor& out, Before&& before) {
  const KernelSteps kernel_steps(steps, inputs, out);
  const std::span<const EpilogueStep> own = kernel_steps.span();
  const Shape& shape = out.shape();
  const std::int64_t channels = shape[1];
  std::int64_t plane = 1;
  for (std::size_t i = 2; i < shape.size(); ++i) plane *= shape[i];
  if (plane == 0) return;
  const auto planes = static_cast<std::size_t>(static_cast<std::int64_t>(out.size()) / plane);
  parallel.for_range(planes, static_cast<std::size_t>(std::max<std::int64_t>(1, (1 << 14) / plane)),
                     [&](std::size_t first, std::size_t last, std::size_t) {
                       for (std::size_t p = first; p < last; ++p) {
                         const auto at = static_cast<std::int64_t>(p) * plane;
                         float* const y = out.data<float>() + at;
                         before(at, y, plane);
                         apply_steps(own, static_cast<std::int64_t>(p) % channels, y, plane);
                       }
                     });
}

}  // namespace irlite
