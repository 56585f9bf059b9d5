// ConvolutionBackpropData-1 and GroupConvolutionBackpropData-1, the transposed convolution: data
// [N, C_IN, spatial...] with filters [C_IN, C_OUT, kernel...] (the group version: [GROUPS,
// C_IN / GROUPS, C_OUT / GROUPS, kernel...]) and an optional output_shape input naming the
// output's spatial extents. 1 to 3 spatial axes; f32, f16 and bf16, the 16-bit types summed in
// float and rounded once.
//
// Output element o along an axis takes the input elements i and kernel positions k with
// o + pad_begin = i * stride + k * dilation. Per image and group, one GEMM multiplies the data
// [C_IN, pixels] by the filters [C_IN, C_OUT x kernel positions] into columns (what each input
// pixel gives each output channel at each kernel position), and col2im gathers, for each
// output element, the columns that land on it, kernel positions in increasing order. Every
// output element is thus one sum in an order set by the geometry alone; threads split GEMM
// tiles and output rows, never a sum, so results are the same bits on any number of threads.
// f16 and bf16 data are converted to float for the GEMM, and the columns are float: one
// rounding, at the end. Filters that are a Const are packed for the GEMM once, when the model
// loads (prepare()), else per call into scratch.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>

#include "core/attribute_visitor.hpp"
#include "core/saturating.hpp"
#include "irlite/element_dispatch.hpp"
#include "irlite/float16.hpp"
#include "irlite/scratch.hpp"
#include "kernels/gemm.hpp"
#include "ops/convolution_common.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

using conv::add;
using conv::AutoPad;
using conv::conv_types;
using conv::has_kernel;
using conv::multiply;

/// The window attributes and output_padding, read and printed from this one description.
struct BackpropAttributes : conv::WindowAttributes {
  Shape output_padding;

  void visit(AttributeVisitor& v) {
    WindowAttributes::visit(v);
    // Absent or empty: no output padding.
    v.on_whole_numbers("output_padding", output_padding, Shape{});
    v.require("output_padding", output_padding.empty() || output_padding.size() == strides.size(),
              "expected one value per spatial axis, as many as strides has");
  }

  std::int64_t out_pad(std::size_t i) const {
    return output_padding.empty() ? 0 : output_padding[i];
  }
};

/// One transposed convolution as the kernel sees it, the spatial axes padded to three at the
/// front (a 1-D or 2-D one is a 3-D one whose leading axes have extent 1).
struct BackpropGeometry {
  std::int64_t batch = 0, groups = 1;
  std::int64_t in_channels = 0, out_channels = 0;  ///< per group
  std::array<std::int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, kernel{1, 1, 1};
  std::array<std::int64_t, 3> stride{1, 1, 1}, dilation{1, 1, 1}, pad_begin{0, 0, 0};

  std::int64_t in_size() const { return in[0] * in[1] * in[2]; }
  std::int64_t out_size() const { return out[0] * out[1] * out[2]; }
  std::int64_t kernel_size() const { return kernel[0] * kernel[1] * kernel[2]; }
};

/// The input index i with o + pad = i * stride + k * dilation along an axis of `extent` input
/// elements, or -1 when there is none.
inline std::int64_t source(std::int64_t o, std::int64_t k, std::int64_t stride,
                           std::int64_t dilation, std::int64_t pad, std::int64_t extent) {
  const std::int64_t at = o + pad - k * dilation;
  if (at < 0 || at % stride != 0) return -1;
  const std::int64_t i = at / stride;
  return i < extent ? i : -1;
}

/// The GEMM's sizes for one image's group: m input pixels, k input channels, n = output
/// channels x kernel positions.
std::int64_t gemm_n(const BackpropGeometry& g) {
  return g.out_channels * g.kernel_size();
}

/// Whether there is anything to multiply: otherwise the output is zeros.
bool has_terms(const BackpropGeometry& g) {
  return g.in_size() > 0 && g.in_channels > 0;
}

/// What the kernel takes from its scratch, by one function for the counting run and the real
/// one.
struct Buffers {
  std::span<float> packed;   ///< the filters packed for the GEMM, when not prepared
  std::span<float> data;     ///< one image's group as floats, for f16 and bf16
  std::span<float> columns;  ///< the GEMM's result: [C_OUT x kernel positions, input pixels]
  std::span<float> rows;     ///< a row of sums per chunk of work
  Scratch::Slices gemm;      ///< the GEMM's buffers
};

template <class T>
Buffers take_buffers(const Scratch& s, const BackpropGeometry& g, bool prepared, unsigned threads) {
  Buffers b;
  if (has_terms(g)) {
    const GemmIsa isa = gemm_isa();
    if (!prepared)
      b.packed =
          s.take<float>(PackedB::bytes(g.groups, g.in_channels, gemm_n(g), isa) / sizeof(float));
    if (!std::is_same_v<T, float>)
      b.data = s.take<float>(static_cast<std::size_t>(g.in_channels * g.in_size()));
    b.columns = s.take<float>(static_cast<std::size_t>(gemm_n(g) * g.in_size()));
    b.gemm = s.slices(1, gemm_scratch(g.in_size(), gemm_n(g), g.in_channels, 0, threads, isa));
  }
  b.rows = s.take<float>(static_cast<std::size_t>(g.out[2]) * threads);
  return b;
}

/// One image's group: y[C_OUT, out...] from the columns, each output element the sum over
/// kernel positions, in increasing order, of the column entry of the input pixel that lands on
/// it. Threads split the output rows.
template <class T>
void col2im(const Parallel& par, const BackpropGeometry& g, const float* columns,
            std::span<float> rows_buffer, T* y) {
  const std::int64_t rows = g.out[0] * g.out[1], ow = g.out[2], iw = g.in[2];
  const std::int64_t kernel = g.kernel_size(), in_size = g.in_size();
  const std::int64_t units = g.out_channels * rows;
  const std::int64_t work = std::max<std::int64_t>(1, ow * kernel / (g.stride[0] * g.stride[1]));
  par.for_range(static_cast<std::size_t>(units),
                static_cast<std::size_t>(std::max<std::int64_t>(1, (1 << 14) / work)),
                [&](std::size_t first, std::size_t last, std::size_t chunk) {
                  float* const acc = rows_buffer.data() + chunk * static_cast<std::size_t>(ow);
                  for (std::size_t t = first; t < last; ++t) {
                    const auto u = static_cast<std::int64_t>(t);
                    const std::int64_t co = u / rows, row = u % rows;
                    const std::int64_t od = row / g.out[1], oh = row % g.out[1];
                    std::fill_n(acc, ow, 0.0f);
                    if (has_terms(g))
                      for (std::int64_t kd = 0; kd < g.kernel[0]; ++kd) {
                        const std::int64_t id =
                            source(od, kd, g.stride[0], g.dilation[0], g.pad_begin[0], g.in[0]);
                        if (id < 0) continue;
                        for (std::int64_t kh = 0; kh < g.kernel[1]; ++kh) {
                          const std::int64_t ih =
                              source(oh, kh, g.stride[1], g.dilation[1], g.pad_begin[1], g.in[1]);
                          if (ih < 0) continue;
                          for (std::int64_t kw = 0; kw < g.kernel[2]; ++kw) {
                            const std::int64_t k = (kd * g.kernel[1] + kh) * g.kernel[2] + kw;
                            const float* src =
                                columns + (co * kernel + k) * in_size + (id * g.in[1] + ih) * iw;
                            // The outputs o >= 0 with o + pad - kw * dilation a multiple of the
                            // stride and its quotient i in [0, iw): o = i * stride + kw * dilation
                            // - pad.
                            const std::int64_t offset = kw * g.dilation[2] - g.pad_begin[2];
                            std::int64_t i =
                                offset >= 0 ? 0 : (-offset + g.stride[2] - 1) / g.stride[2];
                            for (std::int64_t o = i * g.stride[2] + offset; i < iw && o < ow;
                                 ++i, o += g.stride[2])
                              acc[o] = acc[o] + src[i];
                          }
                        }
                      }
                    T* dst = y + co * g.out_size() + row * ow;
                    for (std::int64_t o = 0; o < ow; ++o) {
                      if constexpr (std::is_same_v<T, float>)
                        dst[o] = acc[o];
                      else
                        dst[o] = T(acc[o]);
                    }
                  }
                });
}

/// Per image and group, the GEMM columns[pixel][(co, k)] = sum over input channels ci of
/// x[ci][pixel] * w[ci][co][k] (each filter group is the GEMM's B as it is stored, k x n), then
/// col2im. Every output element is thus one sum over kernel positions of sums over input
/// channels, in an order set by the geometry alone.
template <class T>
void backprop(const Parallel& par, const BackpropGeometry& g, const T* x, const T* filters,
              const PackedB* prepared, T* y, const Scratch& scratch) {
  if (g.batch == 0 || g.groups == 0 || g.out_channels == 0 || g.out_size() == 0) return;
  const Buffers b = take_buffers<T>(scratch, g, prepared != nullptr, par.threads());
  if (!has_terms(g)) {
    for (std::int64_t plane = 0; plane < g.batch * g.groups; ++plane)
      col2im(par, g, nullptr, b.rows, y + plane * g.out_channels * g.out_size());
    return;
  }
  const PackedB lent = prepared ? PackedB()
                                : PackedB(filters, g.groups, g.in_channels, gemm_n(g),
                                          /*transposed=*/false, b.packed.data(), gemm_isa(), par);
  const PackedB& packed = prepared ? *prepared : lent;
  const std::int64_t in_size = g.in_size();
  for (std::int64_t n = 0; n < g.batch; ++n)
    for (std::int64_t group = 0; group < g.groups; ++group) {
      const std::int64_t image_group = n * g.groups + group;
      const T* xg = x + image_group * g.in_channels * in_size;
      const float* a = nullptr;
      if constexpr (std::is_same_v<T, float>) {
        a = xg;
      } else {
        const std::int64_t count = g.in_channels * in_size;
        par.for_range(static_cast<std::size_t>(count), 1 << 14,
                      [&](std::size_t first, std::size_t last, std::size_t) {
                        for (std::size_t i = first; i < last; ++i)
                          b.data[i] = static_cast<float>(xg[i]);
                      });
        a = b.data.data();
      }
      const Scratch gemm_scratch = b.gemm[0];
      GemmArgs<float> args;
      args.m = in_size;
      args.n = gemm_n(g);
      args.k = g.in_channels;
      args.a = a;
      args.transpose_a = true;  // x is [C_IN, pixels]: A transposed
      args.c = b.columns.data();
      args.transpose_c = true;  // columns [(co, k), pixels]
      args.ldc = in_size;
      args.b_index = &group;
      args.scratch = &gemm_scratch;
      gemm(par, args, packed);
      col2im(par, g, b.columns.data(), b.rows, y + image_group * g.out_channels * g.out_size());
    }
}

/// Filters made ready for the kernel when the model loads.
struct PreparedBackpropWeights final : PreparedData {
  PackedB packed;
};

class ConvolutionBackpropOp final : public Op {
 public:
  ConvolutionBackpropOp(const BackpropAttributes& attributes, bool grouped)
      : attributes_(attributes), grouped_(grouped) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs,
                                       Phase phase) const override {
    const ValueInfo& data = inputs[0];
    const ValueInfo& filters = inputs[1];
    const std::size_t spatial = attributes_.strides.size();
    const auto rank = static_cast<std::int64_t>(spatial + 2);
    const auto filters_rank = static_cast<std::int64_t>(this->filters_rank());
    conv::check_inputs(data, filters, spatial, filters_rank, layout());
    const bool data_known = data.shape.rank_is_static();
    const bool filters_known = filters.shape.rank_is_static();
    const std::int64_t first_kernel_axis = filters_rank - static_cast<std::int64_t>(spatial);
    if (data_known && filters_known) check_channels(data.shape, filters.shape);

    std::vector<Dimension> out(static_cast<std::size_t>(rank), Dimension::dynamic());
    if (data_known) out[0] = data.shape[0];
    if (filters_known)
      out[1] = grouped_ ? multiply(filters.shape[0], filters.shape[2]) : filters.shape[1];
    if (inputs.size() > 2) {
      given_spatial(inputs[2], phase, out);
    } else {
      for (std::size_t i = 0; i < spatial; ++i) {
        const Dimension in = data_known ? data.shape[2 + i] : Dimension::dynamic();
        const Dimension k = filters_known
                                ? filters.shape[static_cast<std::size_t>(first_kernel_axis) + i]
                                : Dimension::dynamic();
        out[2 + i] = output_extent(i, in, k, data.shape);
      }
    }
    return {{data.type, PartialShape(std::move(out))}};
  }

  bool shape_needs_value(std::size_t index, std::size_t) const override { return index == 2; }

  std::shared_ptr<const PreparedData> prepare(std::span<const ValueInfo> inputs) const override {
    const Tensor* filters = inputs[1].value;
    if (!filters || filters->size() == 0 || filters->shape().size() != filters_rank())
      return nullptr;
    std::shared_ptr<PreparedBackpropWeights> prepared;
    const BackpropGeometry g = weight_geometry(filters->shape());
    dispatch_numeric(filters->element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (has_kernel<T>) {
        prepared = std::make_shared<PreparedBackpropWeights>();
        prepared->packed = PackedB(filters->data<T>(), g.groups, g.in_channels, gemm_n(g),
                                   /*transposed=*/false);
      }
    });
    return prepared;
  }

  std::size_t scratch_bytes(std::span<const Tensor> inputs, std::span<const Tensor> outputs,
                            unsigned threads) const override {
    return scratch(inputs, outputs, threads, false);
  }

  std::size_t scratch_bytes_prepared(std::span<const Tensor> inputs,
                                     std::span<const Tensor> outputs, unsigned threads,
                                     const PreparedData&) const override {
    return scratch(inputs, outputs, threads, true);
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    run(inputs, outputs, context, nullptr);
  }

  void execute_prepared(std::span<const Tensor> inputs, std::span<Tensor> outputs,
                        const ExecContext& context, const PreparedData& prepared) const override {
    const auto* weights = dynamic_cast<const PreparedBackpropWeights*>(&prepared);
    run(inputs, outputs, context, weights ? &weights->packed : nullptr);
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(attributes_);
  }

 private:
  std::size_t filters_rank() const { return attributes_.strides.size() + (grouped_ ? 3 : 2); }

  const char* layout() const {
    return grouped_ ? "[GROUPS, C_IN / GROUPS, C_OUT / GROUPS, kernel...]"
                    : "[C_IN, C_OUT, kernel...]";
  }

  bool same() const {
    return attributes_.auto_pad == AutoPad::same_upper ||
           attributes_.auto_pad == AutoPad::same_lower;
  }

  /// The data's channels against those the filters take, where both are known.
  void check_channels(const PartialShape& data, const PartialShape& filters) const {
    const Dimension& channels = data[1];
    if (!grouped_) {
      const Dimension& taken = filters[0];
      if (channels.is_static() && taken.is_static() && channels.value() != taken.value())
        input_error(
            1, fmt::format("filters {} take {} input channels, but data {} has {}",
                           to_string(filters), taken.value(), to_string(data), channels.value()));
      return;
    }
    const Dimension& groups = filters[0];
    const Dimension& per_group = filters[1];
    if (channels.is_static() && groups.is_static() && per_group.is_static() &&
        saturating_mul(groups.value(), per_group.value()) != channels.value())
      input_error(1, fmt::format("filters {} take {} groups of {} input channels, but data {} has "
                                 "{} channels",
                                 to_string(filters), groups.value(), per_group.value(),
                                 to_string(data), channels.value()));
  }

  /// The spatial extents from the output_shape input: its values where known, else what its
  /// bounds say, else unknown.
  void given_spatial(const ValueInfo& shape, Phase phase, std::vector<Dimension>& out) const {
    const std::size_t spatial = attributes_.strides.size();
    if (shape.shape.rank_is_static()) {
      if (shape.shape.rank() != 1)
        input_error(2,
                    fmt::format("output_shape must be 1-D (the output's spatial extents), got {}",
                                to_string(shape.shape)));
      const Dimension& length = shape.shape[0];
      if (length.is_static() && length.value() != static_cast<std::int64_t>(spatial))
        input_error(2, fmt::format("output_shape must have {} values, one per spatial axis, got {}",
                                   spatial, length.value()));
    }
    if (shape.value) {
      const std::vector<std::int64_t> values = integer_values(*shape.value);
      for (std::size_t i = 0; i < values.size(); ++i)
        if (values[i] < 0)
          bad_value(phase, 2,
                    fmt::format("output_shape has a negative extent {} at index {}", values[i], i));
    }
    for (std::size_t i = 0; i < spatial; ++i) {
      const std::optional<Dimension> d = known_dimension(shape, i);
      out[2 + i] = d ? *d : Dimension::dynamic();
    }
  }

  /// The extent of output spatial axis `i` without output_shape: (in - 1) * stride + the dilated
  /// kernel - the pads + output_padding, the pads zero unless explicit.
  Dimension output_extent(std::size_t i, const Dimension& in, const Dimension& k,
                          const PartialShape& data) const {
    if (!k.is_static()) return Dimension::dynamic();
    if (in.has_upper_bound() && in.max() == 0)
      input_error(0, fmt::format("data {} has an empty spatial axis {}", to_string(data), i));
    const bool explicit_pads = attributes_.auto_pad == AutoPad::explicit_pads;
    const std::int64_t pads =
        explicit_pads ? add(attributes_.pads_begin[i], attributes_.pads_end[i]) : 0;
    const std::int64_t window = add(saturating_mul(attributes_.dilations[i], k.value() - 1), 1);
    const std::int64_t stride = attributes_.strides[i];
    const std::int64_t extra = add(window, attributes_.out_pad(i));
    // Without the pads: at least the window, and growing with the data.
    const auto full = [&](std::int64_t x) {
      return add(saturating_mul(std::max<std::int64_t>(x, 1) - 1, stride), extra);
    };
    if (in.has_upper_bound() && full(in.max()) <= pads)
      input_error(0, fmt::format("data {} along spatial axis {} gives an output of {} before the "
                                 "pads, not more than the {} they remove",
                                 to_string(data), i, full(in.max()), pads));
    const std::int64_t lo = std::max<std::int64_t>(0, full(in.min()) - pads);
    return Dimension(lo, in.has_upper_bound() ? full(in.max()) - pads : Dimension::unbounded);
  }

  /// The groups, channels and kernel of filters of `shape`.
  BackpropGeometry weight_geometry(const Shape& filters) const {
    BackpropGeometry g;
    const std::size_t spatial = attributes_.strides.size();
    const std::size_t first_kernel_axis = filters.size() - spatial;
    g.groups = grouped_ ? filters[0] : 1;
    g.in_channels = filters[grouped_ ? 1 : 0];
    g.out_channels = filters[grouped_ ? 2 : 1];
    for (std::size_t i = 0; i < spatial; ++i)
      g.kernel[3 - spatial + i] = filters[first_kernel_axis + i];
    return g;
  }

  /// The kernel's view of shapes the shape rule accepted.
  BackpropGeometry geometry(const Shape& data, const Shape& filters, const Shape& out,
                            bool has_output_shape) const {
    BackpropGeometry g = weight_geometry(filters);
    const std::size_t spatial = attributes_.strides.size();
    g.batch = data[0];
    for (std::size_t i = 0; i < spatial; ++i) {
      const std::size_t a = 3 - spatial + i;
      g.in[a] = data[2 + i];
      g.out[a] = out[2 + i];
      g.stride[a] = attributes_.strides[i];
      g.dilation[a] = attributes_.dilations[i];
      if (attributes_.auto_pad == AutoPad::explicit_pads) {
        g.pad_begin[a] = attributes_.pads_begin[i];
      } else if (same() && has_output_shape) {
        // The padding that trims the full output to output_shape, split in two: the odd
        // element at the beginning for same_upper, at the end for same_lower (OpenVINO's).
        const std::int64_t window = g.dilation[a] * (g.kernel[a] - 1) + 1;
        const std::int64_t total = std::max<std::int64_t>(
            0, (g.in[a] - 1) * g.stride[a] + window - g.out[a] + attributes_.out_pad(i));
        g.pad_begin[a] =
            attributes_.auto_pad == AutoPad::same_upper ? total - total / 2 : total / 2;
      }
      // valid, and same without output_shape: no padding.
    }
    return g;
  }

  std::size_t scratch(std::span<const Tensor> inputs, std::span<const Tensor> outputs,
                      unsigned threads, bool prepared) const {
    const BackpropGeometry g =
        geometry(inputs[0].shape(), inputs[1].shape(), outputs[0].shape(), inputs.size() > 2);
    std::size_t bytes = 0;
    dispatch_numeric(inputs[0].element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (has_kernel<T>)
        bytes = Scratch::bytes_of(
            [&](const Scratch& s) { (void)take_buffers<T>(s, g, prepared, threads); });
    });
    return bytes;
  }

  void run(std::span<const Tensor> inputs, std::span<Tensor> outputs, const ExecContext& context,
           const PackedB* weights) const {
    const Tensor& data = inputs[0];
    const Tensor& filters = inputs[1];
    const BackpropGeometry g =
        geometry(data.shape(), filters.shape(), outputs[0].shape(), inputs.size() > 2);
    bool done = false;
    dispatch_numeric(data.element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (has_kernel<T>) {
        backprop(context.parallel, g, data.data<T>(), filters.data<T>(), weights,
                 outputs[0].data<T>(), context.scratch);
        done = true;
      }
    });
    if (!done) no_kernel(0, data.element_type());
  }

  BackpropAttributes attributes_;
  bool grouped_;
};

std::unique_ptr<const Op> create_backprop(const Attributes& a) {
  return std::make_unique<ConvolutionBackpropOp>(read_attributes<BackpropAttributes>(a), false);
}

std::unique_ptr<const Op> create_group_backprop(const Attributes& a) {
  return std::make_unique<ConvolutionBackpropOp>(read_attributes<BackpropAttributes>(a), true);
}

}  // namespace

OpDef convolution_backprop_data_op() {
  return {
      .type = "ConvolutionBackpropData",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 2,
      .max_inputs = 3,
      .num_outputs = 1,
      .create = create_backprop,
      .input_types = {{"data", conv_types()},
                      {"filters", conv_types()},
                      {"output_shape", index_types()}},
      .output_types = {{"output", conv_types()}},
  };
}

OpDef group_convolution_backprop_data_op() {
  return {
      .type = "GroupConvolutionBackpropData",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 2,
      .max_inputs = 3,
      .num_outputs = 1,
      .create = create_group_backprop,
      .input_types = {{"data", conv_types()},
                      {"filters", conv_types()},
                      {"output_shape", index_types()}},
      .output_types = {{"output", conv_types()}},
  };
}

}  // namespace irlite
