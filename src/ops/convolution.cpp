// Convolution-1 and GroupConvolution-1: data [N, C_IN, spatial...] with filters [C_OUT, C_IN,
// kernel...] (GroupConvolution: [GROUPS, C_OUT / GROUPS, C_IN / GROUPS, kernel...]), 1 to 3
// spatial axes, strides, dilations, and explicit or automatic padding. f32, f16 and bf16 (the
// 16-bit types summed in float and rounded once); filters that are a Const are packed for the
// kernel once, when the model loads (kernels/convolution.hpp).

#include "kernels/convolution.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <type_traits>

#include "core/attribute_visitor.hpp"
#include "core/saturating.hpp"
#include "irlite/element_dispatch.hpp"
#include "irlite/float16.hpp"
#include "ops/channel_steps.hpp"
#include "ops/convolution_common.hpp"
#include "ops/op_list.hpp"

namespace irlite {
namespace {

using conv::add;
using conv::AutoPad;
using conv::conv_types;
using conv::has_kernel;
using conv::multiply;
using ConvolutionAttributes = conv::WindowAttributes;

/// Filters made ready for the kernel when the model loads.
struct PreparedConvWeights final : PreparedData {
  ConvWeights weights;
};

class ConvolutionOp final : public Op {
 public:
  ConvolutionOp(const ConvolutionAttributes& attributes, bool grouped)
      : attributes_(attributes), grouped_(grouped) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs, Phase) const override {
    const ValueInfo& data = inputs[0];
    const ValueInfo& filters = inputs[1];
    const std::size_t spatial = attributes_.strides.size();
    const auto rank = static_cast<std::int64_t>(spatial + 2);
    const std::int64_t filters_rank = rank + (grouped_ ? 1 : 0);
    conv::check_inputs(data, filters, spatial, filters_rank, layout());
    const bool data_known = data.shape.rank_is_static();
    const bool filters_known = filters.shape.rank_is_static();
    const std::int64_t first_kernel_axis = filters_rank - static_cast<std::int64_t>(spatial);
    if (data_known && filters_known) check_channels(data.shape, filters.shape);

    std::vector<Dimension> out(static_cast<std::size_t>(rank), Dimension::dynamic());
    if (data_known) out[0] = data.shape[0];
    if (filters_known)
      out[1] = grouped_ ? multiply(filters.shape[0], filters.shape[1]) : filters.shape[0];
    for (std::size_t i = 0; i < spatial; ++i) {
      const Dimension in = data_known ? data.shape[2 + i] : Dimension::dynamic();
      const Dimension k = filters_known
                              ? filters.shape[static_cast<std::size_t>(first_kernel_axis) + i]
                              : Dimension::dynamic();
      out[2 + i] = output_extent(i, in, k, data.shape);
    }
    return {{data.type, PartialShape(std::move(out))}};
  }

  std::shared_ptr<const PreparedData> prepare(std::span<const ValueInfo> inputs) const override {
    const Tensor* filters = inputs[1].value;
    if (!filters || filters->size() == 0 || filters->shape().size() != filters_rank())
      return nullptr;
    // The GEMM's side for the filters depends on the output's size: known when the data's shape
    // is (filters_as_b() of a geometry without it takes them as A on f32).
    ConvGeometry g = weight_geometry(filters->shape());
    if (inputs[0].shape.is_static()) {
      const std::vector<OutputInfo> out = infer_shapes(inputs, Phase::load);
      if (out[0].shape.is_static())
        g = geometry(inputs[0].shape.to_shape(), filters->shape(), out[0].shape.to_shape());
    }
    std::shared_ptr<PreparedConvWeights> prepared;
    dispatch_numeric(filters->element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (has_kernel<T>) {
        prepared = std::make_shared<PreparedConvWeights>();
        prepared->weights =
            prepare_conv_weights(filters->data<T>(), g, g.batch > 0 && filters_as_b<T>(g));
      }
    });
    return prepared;
  }

  std::size_t scratch_bytes(std::span<const Tensor> inputs, std::span<const Tensor> outputs,
                            unsigned threads) const override {
    return scratch(inputs, outputs, threads, nullptr);
  }

  std::size_t scratch_bytes_prepared(std::span<const Tensor> inputs,
                                     std::span<const Tensor> outputs, unsigned threads,
                                     const PreparedData& prepared) const override {
    const auto* weights = dynamic_cast<const PreparedConvWeights*>(&prepared);
    return scratch(inputs, outputs, threads, weights ? &weights->weights : nullptr);
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    run(inputs, outputs, context, nullptr);
  }

  void execute_prepared(std::span<const Tensor> inputs, std::span<Tensor> outputs,
                        const ExecContext& context, const PreparedData& prepared) const override {
    const auto* weights = dynamic_cast<const PreparedConvWeights*>(&prepared);
    run(inputs, outputs, context, weights ? &weights->weights : nullptr);
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(attributes_);
  }

  /// The kernel runs the steps on each output element before it stores it: in float, as the
  /// separate f32 layers would, so the bits are theirs.
  std::shared_ptr<const Op> fused(std::vector<ChannelStep> steps) const override {
    if (steps_.size() + steps.size() > kMaxConvSteps) return nullptr;
    auto op = std::make_shared<ConvolutionOp>(*this);
    for (ChannelStep& step : steps) op->steps_.push_back(std::move(step));
    return op;
  }

 private:
  std::size_t filters_rank() const { return attributes_.strides.size() + (grouped_ ? 3 : 2); }

  const char* layout() const {
    return grouped_ ? "[GROUPS, C_OUT / GROUPS, C_IN / GROUPS, kernel...]"
                    : "[C_OUT, C_IN, kernel...]";
  }

  /// The data's channels against those the filters take, where both are known.
  void check_channels(const PartialShape& data, const PartialShape& filters) const {
    const Dimension& channels = data[1];
    if (!grouped_) {
      const Dimension& taken = filters[1];
      if (channels.is_static() && taken.is_static() && channels.value() != taken.value())
        input_error(
            1, fmt::format("filters {} take {} input channels, but data {} has {}",
                           to_string(filters), taken.value(), to_string(data), channels.value()));
      return;
    }
    const Dimension& groups = filters[0];
    const Dimension& per_group = filters[2];
    if (channels.is_static() && groups.is_static() && per_group.is_static() &&
        saturating_mul(groups.value(), per_group.value()) != channels.value())
      input_error(1, fmt::format("filters {} take {} groups of {} input channels, but data {} has "
                                 "{} channels",
                                 to_string(filters), groups.value(), per_group.value(),
                                 to_string(data), channels.value()));
  }

  /// The extent of output spatial axis `i` from the data's extent and the kernel's.
  Dimension output_extent(std::size_t i, const Dimension& in, const Dimension& k,
                          const PartialShape& data) const {
    const std::int64_t stride = attributes_.strides[i];
    const auto up = [&](std::int64_t x) { return x / stride + (x % stride != 0 ? 1 : 0); };
    if (attributes_.auto_pad == AutoPad::same_upper || attributes_.auto_pad == AutoPad::same_lower)
      return Dimension(up(in.min()), in.has_upper_bound() ? up(in.max()) : Dimension::unbounded);
    if (!k.is_static()) return Dimension::dynamic();
    const std::int64_t pads = attributes_.auto_pad == AutoPad::explicit_pads
                                  ? add(attributes_.pads_begin[i], attributes_.pads_end[i])
                                  : 0;
    const std::int64_t window = add(saturating_mul(attributes_.dilations[i], k.value() - 1), 1);
    // (in + pads - window) / stride + 1, for data at least as large as the window.
    const auto extent = [&](std::int64_t x) {
      const std::int64_t padded = add(x, pads);
      return padded < window ? std::int64_t{0} : (padded - window) / stride + 1;
    };
    if (in.has_upper_bound() && extent(in.max()) == 0)
      input_error(
          0, fmt::format("data {} is smaller along spatial axis {} ({}{}) than the "
                         "kernel's window ({}{})",
                         to_string(data), i, in.is_static() ? "" : "at most ", add(in.max(), pads),
                         window, attributes_.dilations[i] > 1 ? ", dilated" : ""));
    return Dimension(extent(in.min()),
                     in.has_upper_bound() ? extent(in.max()) : Dimension::unbounded);
  }

  /// The groups, channels and kernel of filters of `shape`.
  ConvGeometry weight_geometry(const Shape& filters) const {
    ConvGeometry g;
    const std::size_t spatial = attributes_.strides.size();
    const std::size_t first_kernel_axis = filters.size() - spatial;
    g.groups = grouped_ ? filters[0] : 1;
    g.out_channels = filters[grouped_ ? 1 : 0];
    g.in_channels = filters[grouped_ ? 2 : 1];
    for (std::size_t i = 0; i < spatial; ++i)
      g.kernel[3 - spatial + i] = filters[first_kernel_axis + i];
    return g;
  }

  /// The kernel's view of shapes the shape rule accepted.
  ConvGeometry geometry(const Shape& data, const Shape& filters, const Shape& out) const {
    ConvGeometry g = weight_geometry(filters);
    const std::size_t spatial = attributes_.strides.size();
    g.batch = data[0];
    for (std::size_t i = 0; i < spatial; ++i) {
      const std::size_t a = 3 - spatial + i;
      g.in[a] = data[2 + i];
      g.out[a] = out[2 + i];
      g.stride[a] = attributes_.strides[i];
      g.dilation[a] = attributes_.dilations[i];
      const std::int64_t window = g.dilation[a] * (g.kernel[a] - 1) + 1;
      // Automatic padding: what makes the output ceil(in / stride) long, split evenly, the odd
      // element at the end (same_upper) or the beginning (same_lower).
      const std::int64_t total =
          std::max<std::int64_t>(0, (g.out[a] - 1) * g.stride[a] + window - g.in[a]);
      switch (attributes_.auto_pad) {
        case AutoPad::explicit_pads:
          g.pad_begin[a] = attributes_.pads_begin[i];
          break;
        case AutoPad::valid:
          g.pad_begin[a] = 0;
          break;
        case AutoPad::same_upper:
          g.pad_begin[a] = total / 2;
          break;
        case AutoPad::same_lower:
          g.pad_begin[a] = total - total / 2;
          break;
      }
    }
    return g;
  }

  std::size_t scratch(std::span<const Tensor> inputs, std::span<const Tensor> outputs,
                      unsigned threads, const ConvWeights* weights) const {
    const ConvGeometry g = geometry(inputs[0].shape(), inputs[1].shape(), outputs[0].shape());
    std::size_t bytes = 0;
    dispatch_numeric(inputs[0].element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (has_kernel<T>) bytes = convolution_scratch<T>(g, weights, threads);
    });
    return bytes;
  }

  void run(std::span<const Tensor> inputs, std::span<Tensor> outputs, const ExecContext& context,
           const ConvWeights* weights) const {
    const Tensor& data = inputs[0];
    const Tensor& filters = inputs[1];
    const ConvGeometry g = geometry(data.shape(), filters.shape(), outputs[0].shape());
    std::array<EpilogueStep, kMaxConvSteps> steps;
    // Steps are fused on f32 outputs only.
    for (std::size_t i = 0; i < steps_.size(); ++i)
      steps[i] = epilogue_step(steps_[i], inputs, outputs[0].data<float>());
    bool done = false;
    dispatch_numeric(data.element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (has_kernel<T>) {
        convolution(context.parallel, g, data.data<T>(), filters.data<T>(), weights,
                    outputs[0].data<T>(), context.scratch,
                    std::span<const EpilogueStep>(steps.data(), steps_.size()));
        done = true;
      }
    });
    if (!done) no_kernel(0, data.element_type());
  }

  ConvolutionAttributes attributes_;
  bool grouped_;
  /// Element-wise layers fused after this one (graph/fuse.hpp); empty for the layer's own op.
  std::vector<ChannelStep> steps_;
};

std::unique_ptr<const Op> create_convolution(const Attributes& a) {
  return std::make_unique<ConvolutionOp>(read_attributes<ConvolutionAttributes>(a), false);
}

std::unique_ptr<const Op> create_group_convolution(const Attributes& a) {
  return std::make_unique<ConvolutionOp>(read_attributes<ConvolutionAttributes>(a), true);
}

}  // namespace

OpDef convolution_op() {
  return {
      .type = "Convolution",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 2,
      .max_inputs = 2,
      .num_outputs = 1,
      .create = create_convolution,
      .input_types = {{"data", conv_types()}, {"filters", conv_types()}},
      .output_types = {{"output", conv_types()}},
  };
}

OpDef group_convolution_op() {
  return {
      .type = "GroupConvolution",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 2,
      .max_inputs = 2,
      .num_outputs = 1,
      .create = create_group_convolution,
      .input_types = {{"data", conv_types()}, {"filters", conv_types()}},
      .output_types = {{"output", conv_types()}},
  };
}

}  // namespace irlite
