// MaxPool-1/8/14 and AvgPool-1/14: windows sliding over the spatial axes of an [N, C, spatial...]
// tensor of rank 3 to 5, each giving its maximum or its average. MaxPool-8 adds dilations and a
// second output, each maximum's index in the flattened input (from `axis` on); the -14 versions
// add the rounding type ceil_torch. One attribute struct, shape rule and op serve all five;
// the kernels are in kernels/pool.hpp.

#include "kernels/pool.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/attribute_visitor.hpp"
#include "core/saturating.hpp"
#include "ops/channel_steps.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

enum class PoolKind { max, avg };
enum class Rounding { floor, ceil, ceil_torch };
enum class AutoPad { explicit_pads, valid, same_upper, same_lower };

// The -1 and -8 versions know floor and ceil only; ceil_torch came with opset 14.
constexpr std::string_view kRoundingWords1[] = {"floor", "ceil"};
constexpr Rounding kRoundingValues1[] = {Rounding::floor, Rounding::ceil};
constexpr std::string_view kRoundingWords14[] = {"floor", "ceil", "ceil_torch"};
constexpr Rounding kRoundingValues14[] = {Rounding::floor, Rounding::ceil, Rounding::ceil_torch};
// The specification names `notset` too, which means the explicit pads.
constexpr std::string_view kAutoPadWords[] = {"explicit", "valid", "same_upper", "same_lower",
                                              "notset"};
constexpr AutoPad kAutoPadValues[] = {AutoPad::explicit_pads, AutoPad::valid, AutoPad::same_upper,
                                      AutoPad::same_lower, AutoPad::explicit_pads};

struct PoolAttributes {
  PoolKind kind = PoolKind::max;  // not attributes: the op and its version
  int version = 1;
  Shape kernel, strides, dilations, pads_begin, pads_end;
  Rounding rounding = Rounding::floor;
  AutoPad auto_pad = AutoPad::explicit_pads;
  bool exclude_pad = false;
  ElementType index_type = ElementType::i64;
  std::int64_t axis = 0;

  bool has_indices() const { return kind == PoolKind::max && version >= 8; }

  // Attributes a version does not define (a MaxPool-1 layer written with MaxPool-8's dilations,
  // axis and index_element_type, as some converters do) are not read, as for every op.
  void visit(AttributeVisitor& v) {
    v.on("kernel", kernel);
    v.on("strides", strides);
    // Some converters write dilations as floats ("1.0,1.0"); whole values are taken.
    if (has_indices()) v.on_whole_numbers("dilations", dilations, Shape(kernel.size(), 1));
    v.on("pads_begin", pads_begin);
    v.on("pads_end", pads_end);
    if (kind == PoolKind::avg) v.on("exclude-pad", exclude_pad, false);
    if (version >= 14)
      v.on("rounding_type", rounding, kRoundingWords14, kRoundingValues14, Rounding::floor);
    else
      v.on("rounding_type", rounding, kRoundingWords1, kRoundingValues1, Rounding::floor);
    v.on("auto_pad", auto_pad, kAutoPadWords, kAutoPadValues, AutoPad::explicit_pads);
    if (has_indices()) {
      v.on("index_element_type", index_type, ElementType::i64);
      v.require("index_element_type",
                index_type == ElementType::i32 || index_type == ElementType::i64,
                "expected i32 or i64");
      v.on("axis", axis, 0);
    }
  }
};

/// The padding before and after one spatial axis.
struct Pads {
  std::int64_t begin = 0, end = 0;
};

class PoolOp final : public Op {
 public:
  explicit PoolOp(const PoolAttributes& attributes) : a_(attributes) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs, Phase) const override {
    check_attributes();
    const ValueInfo& data = inputs[0];
    const std::size_t spatial = a_.kernel.size();
    PartialShape out;
    if (!data.shape.rank_is_static()) {
      out = PartialShape(std::vector<Dimension>(spatial + 2, Dimension()));
    } else {
      const std::int64_t rank = data.shape.rank();
      if (rank < 3 || rank > 5)
        input_error(0, fmt::format("data must have rank 3, 4 or 5 ([N, C, spatial...]), got {}",
                                   to_string(data.shape)));
      if (static_cast<std::size_t>(rank) != spatial + 2)
        input_error(0, fmt::format("data {} has {} spatial axes but the kernel {} has {}",
                                   to_string(data.shape), rank - 2, to_string(a_.kernel), spatial));
      for (std::size_t i = 0; i < 2; ++i)
        if (data.shape[i].is_static() && data.shape[i].value() == 0)
          input_error(0, fmt::format("data {} has no {} (OpenVINO refuses an empty one)",
                                     to_string(data.shape), i == 0 ? "batch" : "channel"));
      std::vector<Dimension> dims = {data.shape[0], data.shape[1]};
      for (std::size_t i = 0; i < spatial; ++i) dims.push_back(pooled(data.shape[2 + i], i));
      out = PartialShape(std::move(dims));
      if (a_.has_indices()) check_indices(data.shape);
    }
    if (a_.has_indices()) return {{data.type, out}, {a_.index_type, out}};
    return {{data.type, out}};
  }

  std::size_t scratch_bytes(std::span<const Tensor> inputs, std::span<const Tensor> outputs,
                            unsigned threads) const override {
    if (a_.kind != PoolKind::max) return 0;
    const PoolGeometry g = geometry(inputs[0].shape(), outputs[0].shape());
    std::size_t bytes = 0;
    dispatch_numeric(inputs[0].element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      bytes = max_pool_scratch<T>(g, a_.has_indices(), threads);
    });
    return bytes;
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& data = inputs[0];
    const PoolGeometry g = geometry(data.shape(), outputs[0].shape());
    const bool ok = dispatch_numeric(data.element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* in = data.data<T>();
      T* out = outputs[0].data<T>();
      if (a_.kind == PoolKind::avg) {
        avg_pool(context.parallel, g, in, out, counts_padding(data.shape()));
      } else if (!a_.has_indices()) {
        max_pool<T, std::int32_t>(context.parallel, context.scratch, g, in, out, nullptr, 0);
        if constexpr (std::is_same_v<T, float>)
          if (!steps_.empty())
            run_plane_steps(context.parallel, steps_, inputs, outputs[0],
                            [](std::int64_t, float*, std::int64_t) {});
      } else if (a_.index_type == ElementType::i32) {
        max_pool(context.parallel, context.scratch, g, in, out, outputs[1].data<std::int32_t>(),
                 index_modulus(data.shape()));
      } else {
        max_pool(context.parallel, context.scratch, g, in, out, outputs[1].data<std::int64_t>(),
                 index_modulus(data.shape()));
      }
    });
    if (!ok) no_kernel(0, data.element_type());
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(a_);
  }

  /// A MaxPool without indices runs the steps (the scale and shift of a batch normalization,
  /// an INT8 model's FakeQuantize) on each channel's plane of its output while the plane is in
  /// cache: in float, as the separate f32 layers would, so the bits are theirs.
  std::shared_ptr<const Op> fused(std::vector<ChannelStep> steps) const override {
    if (a_.kind != PoolKind::max || a_.has_indices() ||
        steps_.size() + steps.size() > kMaxPlaneSteps)
      return nullptr;
    auto op = std::make_shared<PoolOp>(*this);
    for (ChannelStep& step : steps) op->steps_.push_back(std::move(step));
    return op;
  }

 private:
  /// The rules on the attributes alone, checked with the shapes so that they are located and
  /// reported as shape errors, as OpenVINO's validation reports them.
  void check_attributes() const {
    const std::size_t n = a_.kernel.size();
    if (n < 1 || n > 3)
      op_error(fmt::format("kernel must have 1, 2 or 3 values (one per spatial axis), got {}",
                           to_string(a_.kernel)));
    const auto check = [&](const char* name, const Shape& values, bool may_be_empty,
                           bool may_be_zero) {
      if (values.size() != n && !(may_be_empty && values.empty()))
        op_error(fmt::format("{} {} must have one value per kernel axis ({})", name,
                             to_string(values), n));
      if (!may_be_zero && std::find(values.begin(), values.end(), 0) != values.end())
        op_error(fmt::format("{} {} must not hold a zero", name, to_string(values)));
    };
    check("kernel", a_.kernel, false, false);
    check("strides", a_.strides, false, false);
    if (a_.has_indices()) check("dilations", a_.dilations, false, false);
    // Empty pads are zeros, as OpenVINO reads them.
    check("pads_begin", a_.pads_begin, true, true);
    check("pads_end", a_.pads_end, true, true);
  }

  std::int64_t dilation(std::size_t i) const { return a_.has_indices() ? a_.dilations[i] : 1; }

  /// The kernel's extent along axis i once dilated.
  std::int64_t dilated_kernel(std::size_t i) const {
    return saturating_add(saturating_mul(a_.kernel[i] - 1, dilation(i)), std::int64_t{1});
  }

  /// The padding of spatial axis i for an input extent n: the explicit pads, none for `valid`,
  /// and for `same_upper` / `same_lower` what makes ceil(n / stride) windows fit, the odd one
  /// at the end or at the beginning.
  Pads pads(std::int64_t n, std::size_t i) const {
    switch (a_.auto_pad) {
      case AutoPad::explicit_pads:
        return {a_.pads_begin.empty() ? 0 : a_.pads_begin[i],
                a_.pads_end.empty() ? 0 : a_.pads_end[i]};
      case AutoPad::valid:
        return {};
      case AutoPad::same_upper:
      case AutoPad::same_lower: {
        const std::int64_t s = a_.strides[i];
        const std::int64_t windows = n / s + (n % s != 0);
        const std::int64_t need = saturating_add(
            saturating_mul(std::max<std::int64_t>(windows - 1, 0), s), dilated_kernel(i));
        const std::int64_t total = std::max<std::int64_t>(0, need - n);
        const std::int64_t half = total / 2;
        return a_.auto_pad == AutoPad::same_upper ? Pads{half, total - half}
                                                  : Pads{total - half, half};
      }
    }
    return {};
  }

  /// The output extent of spatial axis i for input extent n with these pads; -1 when the
  /// dilated kernel is larger than the padded input.
  std::int64_t pooled_extent(std::int64_t n, const Pads& p, std::size_t i) const {
    const std::int64_t padded = saturating_add(saturating_add(n, p.begin), p.end);
    const std::int64_t k = dilated_kernel(i);
    if (padded < k) return -1;
    const std::int64_t s = a_.strides[i];
    const std::int64_t span = padded - k;
    std::int64_t q = span / s;
    if (a_.rounding != Rounding::floor && span % s != 0) ++q;
    // ceil_torch drops a last window that would start in the end padding (PyTorch's ceil_mode);
    // ceil keeps it, as OpenVINO's ceil does.
    if (a_.rounding == Rounding::ceil_torch && q * s >= saturating_add(n, p.begin)) return q;
    return saturating_add(q, std::int64_t{1});
  }

  /// The output dimension of spatial axis i.
  Dimension pooled(const Dimension& d, std::size_t i) const {
    const bool same = a_.auto_pad == AutoPad::same_upper || a_.auto_pad == AutoPad::same_lower;
    if (d.is_static()) {
      const std::int64_t n = d.value();
      const Pads p = pads(n, i);
      const std::int64_t out = pooled_extent(n, p, i);
      if (out < 0)
        input_error(0, fmt::format("the kernel of spatial axis {} ({}, dilated to {}) is larger "
                                   "than the padded input ({} + {} + {})",
                                   i, a_.kernel[i], dilated_kernel(i), n, p.begin, p.end));
      return out;
    }
    // The automatic pads depend on the extent, which is not known: as OpenVINO, any extent.
    if (same) return Dimension();
    const Pads p = pads(0, i);
    // The smallest extent the kernel fits in, and the output range over the extents allowed.
    const std::int64_t fits = std::max<std::int64_t>(0, dilated_kernel(i) - p.begin - p.end);
    if (d.has_upper_bound() && d.max() < fits)
      input_error(0, fmt::format("the kernel of spatial axis {} ({}, dilated to {}) is larger "
                                 "than any padded input the dimension {} allows ({} + {} + {})",
                                 i, a_.kernel[i], dilated_kernel(i), to_string(d), d.max(), p.begin,
                                 p.end));
    const std::int64_t lo = pooled_extent(std::max(d.min(), fits), p, i);
    const std::int64_t hi =
        d.has_upper_bound() ? pooled_extent(d.max(), p, i) : Dimension::unbounded;
    return Dimension(lo, hi);
  }

  /// `axis` lies in [-rank, rank), and i32 indices hold every index they may take: the count
  /// of the data's elements from `axis` on, when the dims are known.
  void check_indices(const PartialShape& shape) const {
    const auto axis = normalize_axis(a_.axis, shape.rank());
    if (!axis) op_error(axis_range_message(a_.axis, shape.rank()));
    if (a_.index_type != ElementType::i32) return;
    std::int64_t count = 1;
    for (std::size_t i = static_cast<std::size_t>(*axis); i < shape.dims().size(); ++i) {
      if (!shape[i].is_static()) return;
      count = saturating_mul(count, shape[i].value());
    }
    if (count - 1 > std::numeric_limits<std::int32_t>::max())
      op_error(
          fmt::format("i32 indices cannot hold the {} positions of the data {} from axis "
                      "{}; use index_element_type i64",
                      count, to_string(shape), a_.axis));
  }

  /// What the indices are taken modulo: the data's elements from `axis` on, or 0 (none) for
  /// axis 0, where the flattened index is already below it.
  std::int64_t index_modulus(const Shape& shape) const {
    const std::int64_t rank = static_cast<std::int64_t>(shape.size());
    const std::int64_t axis = normalize_axis(a_.axis, rank).value_or(0);
    if (axis == 0) return 0;
    std::int64_t count = 1;
    for (std::size_t i = static_cast<std::size_t>(axis); i < shape.size(); ++i) count *= shape[i];
    return count;
  }

  /// Whether every AvgPool window divides by the kernel's size: padding counts (exclude-pad
  /// false) and there is some, as OpenVINO's reference decides.
  bool counts_padding(const Shape& shape) const {
    if (a_.exclude_pad) return false;
    for (std::size_t i = 0; i < a_.kernel.size(); ++i) {
      const Pads p = pads(shape[2 + i], i);
      if (p.begin != 0 || p.end != 0) return true;
    }
    return false;
  }

  PoolGeometry geometry(const Shape& in, const Shape& out) const {
    PoolGeometry g;
    const std::size_t n = a_.kernel.size();
    const std::size_t off = 3 - n;
    g.planes = in[0] * in[1];
    for (std::size_t i = 0; i < n; ++i) {
      g.in[off + i] = in[2 + i];
      g.out[off + i] = out[2 + i];
      g.kernel[off + i] = a_.kernel[i];
      g.stride[off + i] = a_.strides[i];
      g.dilation[off + i] = dilation(i);
      g.pad[off + i] = pads(in[2 + i], i).begin;
    }
    return g;
  }

  PoolAttributes a_;
  /// Element-wise layers fused after this one (graph/fuse.hpp); empty for the layer's own op.
  std::vector<ChannelStep> steps_;
};

template <PoolKind Kind, int Version>
std::unique_ptr<const Op> create(const Attributes& a) {
  PoolAttributes initial;
  initial.kind = Kind;
  initial.version = Version;
  return std::make_unique<PoolOp>(read_attributes(a, initial));
}

template <PoolKind Kind, int Version>
OpDef pool_def() {
  const bool indices = Kind == PoolKind::max && Version >= 8;
  OpDef def{
      .type = Kind == PoolKind::max ? "MaxPool" : "AvgPool",
      .version = Version,
      .since_opset = Version,
      .min_inputs = 1,
      .max_inputs = 1,
      .num_outputs = indices ? 2 : 1,
      .create = create<Kind, Version>,
      .input_types = {{"data", numeric_types()}},
      .output_types = {{"output", numeric_types()}},
  };
  if (indices) def.output_types.push_back({"indices", index_types()});
  return def;
}

}  // namespace

OpDef max_pool_v1_op() {
  return pool_def<PoolKind::max, 1>();
}
OpDef max_pool_v8_op() {
  return pool_def<PoolKind::max, 8>();
}
OpDef max_pool_v14_op() {
  return pool_def<PoolKind::max, 14>();
}
OpDef avg_pool_v1_op() {
  return pool_def<PoolKind::avg, 1>();
}
OpDef avg_pool_v14_op() {
  return pool_def<PoolKind::avg, 14>();
}

}  // namespace irlite
