// Broadcast-1 and Broadcast-3 (spec: movement/broadcast-1, broadcast-3): the data repeated to the
// shape given by the target_shape input, by NumPy's rule, an explicit axes_mapping, the PDPD rule
// or (Broadcast-3) bidirectionally, where the output is the broadcast of both shapes.

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "core/attribute_visitor.hpp"
#include "kernels/elementwise.hpp"
#include "ops/broadcast_rules.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

enum class Mode { numpy, explicit_axes, bidirectional, pdpd };

constexpr std::size_t kData = 0;
constexpr std::size_t kTarget = 1;
constexpr std::size_t kAxes = 2;

constexpr std::string_view kV1Words[] = {"numpy", "explicit", "pdpd"};
constexpr Mode kV1Modes[] = {Mode::numpy, Mode::explicit_axes, Mode::pdpd};
constexpr std::string_view kV3Words[] = {"numpy", "explicit", "bidirectional", "pdpd"};
constexpr Mode kV3Modes[] = {Mode::numpy, Mode::explicit_axes, Mode::bidirectional, Mode::pdpd};

struct BroadcastAttributes {
  int version = 3;  // not an attribute: Broadcast-1 has no bidirectional mode
  Mode mode = Mode::numpy;
  std::int64_t axis = -1;

  void visit(AttributeVisitor& v) {
    if (version == 1)
      v.on("mode", mode, kV1Words, kV1Modes, Mode::numpy);
    else
      v.on("mode", mode, kV3Words, kV3Modes, Mode::numpy);
    // Where pdpd places the data: read (and a wrong one refused) whatever the mode, shown only
    // with pdpd, the one mode it means something in.
    if (mode == Mode::pdpd || v.reading()) {
      v.on("axis", axis, -1);
      if (axis < -1)
        throw Error(ErrorCode::format,
                    fmt::format("attribute 'axis' must be -1 or more, got {}", axis));
    }
  }
};

/// A problem with a value: the model's shape error at load time, the input's value error at run
/// time.
class BroadcastOp final : public Op {
 public:
  explicit BroadcastOp(const BroadcastAttributes& attributes) : attributes_(attributes) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs,
                                       Phase phase) const override {
    const ValueInfo& data = inputs[kData];
    const ValueInfo& target = inputs[kTarget];
    if (attributes_.mode == Mode::explicit_axes && inputs.size() < 3)
      op_error("mode=explicit needs the axes_mapping input");
    if (target.shape.rank_is_static() && target.shape.rank() != 1)
      input_error(kTarget, "target_shape must be 1-D, got " + to_string(target.shape));
    const ValueInfo* axes = attributes_.mode == Mode::explicit_axes ? &inputs[kAxes] : nullptr;
    if (axes) {
      if (axes->shape.rank_is_static() && axes->shape.rank() != 1)
        input_error(kAxes, "axes_mapping must be 1-D, got " + to_string(axes->shape));
    }

    // The target shape as far as it is known: its values, or the ranges its bounds give.
    std::optional<PartialShape> wanted;
    std::optional<std::int64_t> length;
    if (target.shape.rank_is_static() && target.shape[0].is_static())
      length = target.shape[0].value();
    if (target.value) {
      std::vector<Dimension> dims;
      for (std::size_t i = 0; i < target.value->size(); ++i) {
        const std::int64_t v = integer_at(*target.value, i);
        if (v < 0)
          bad_value(phase, kTarget, fmt::format("target_shape[{}] = {} is negative", i, v));
        dims.emplace_back(v);
      }
      wanted = PartialShape(std::move(dims));
    } else if (target.lower && target.upper) {
      std::vector<Dimension> dims;
      for (std::size_t i = 0; i < target.lower->size(); ++i)
        dims.push_back(known_dimension(target, i).value_or(Dimension()));
      wanted = PartialShape(std::move(dims));
    }
    const PartialShape unknown =
        length ? PartialShape(std::vector<Dimension>(static_cast<std::size_t>(*length)))
               : PartialShape::dynamic_rank();
    const PartialShape& in = data.shape;

    switch (attributes_.mode) {
      case Mode::numpy: {
        if (!wanted) return {{data.type, unknown}};
        if (in.rank_is_static()) {
          if (wanted->rank() < in.rank())
            op_error(fmt::format("target_shape {} has fewer dims than the data's shape {}",
                                 to_string(*wanted), to_string(in)));
          const std::size_t start = static_cast<std::size_t>(wanted->rank() - in.rank());
          for (std::size_t i = start; i < wanted->dims().size(); ++i) {
            const Dimension& d = in[i - start];
            const Dimension& t = (*wanted)[i];
            if (!d.is_static() || !t.is_static() || d.compatible(1) || d.compatible(t)) continue;
            bad_value(phase, kTarget,
                      fmt::format("the data's shape {} cannot be broadcast to target_shape {} "
                                  "(mode=numpy): dim {} must be 1 or {}",
                                  to_string(in), to_string(*wanted), i - start, to_string(t)));
          }
        }
        return {{data.type, *wanted}};
      }
      case Mode::pdpd: {
        if (!wanted) return {{data.type, unknown}};
        if (!in.rank_is_static())
          return {{data.type, PartialShape(std::vector<Dimension>(wanted->dims().size()))}};
        const std::int64_t axis = start_axis(in.rank(), wanted->rank());
        // Compared as a difference: the axis attribute may be as large as int64 allows.
        if (axis < 0 || axis > wanted->rank() - in.rank())
          op_error(
              fmt::format("the data's shape {} does not fit into target_shape {} from axis "
                          "{} (mode=pdpd)",
                          to_string(in), to_string(*wanted), axis));
        PartialShape result = *wanted;
        for (std::int64_t i = 0; i < in.rank(); ++i) {
          const auto di = static_cast<std::size_t>(i);
          const auto oi = static_cast<std::size_t>(axis + i);
          const Dimension& d = in[di];
          const Dimension& t = (*wanted)[oi];
          if (d == Dimension(1)) continue;
          if (t == Dimension(1)) {
            result[oi] = d;
            continue;
          }
          if (!d.compatible(t))
            bad_value(phase, kTarget,
                      fmt::format("the data's shape {} cannot be broadcast to target_shape {} "
                                  "(mode=pdpd, axis {}): dim {} must be 1 or {}",
                                  to_string(in), to_string(*wanted), axis, i, to_string(t)));
          result[oi] = Dimension(std::max(d.min(), t.min()), !d.has_upper_bound() ? t.max()
                                                             : !t.has_upper_bound()
                                                                 ? d.max()
                                                                 : std::min(d.max(), t.max()));
        }
        return {{data.type, result}};
      }
      case Mode::bidirectional: {
        const PartialShape& t = wanted ? *wanted : unknown;
        if (!t.rank_is_static() || !in.rank_is_static())
          return {{data.type, PartialShape::dynamic_rank()}};
        const std::optional<PartialShape> result =
            broadcast_shapes(in, t, BroadcastSpec{AutoBroadcast::numpy, -1});
        if (!result)
          bad_value(phase, kTarget,
                    fmt::format("the data's shape {} and target_shape {} cannot be broadcast "
                                "together (mode=bidirectional)",
                                to_string(in), to_string(t)));
        return {{data.type, *result}};
      }
      case Mode::explicit_axes: {
        const PartialShape result = wanted ? *wanted : unknown;
        if (in.rank_is_static() && axes->shape.rank_is_static() && axes->shape[0].is_static()) {
          const std::int64_t count = axes->shape[0].value();
          const std::int64_t rank = in.rank() == 0 && count > 0 ? 1 : in.rank();
          if (count != rank)
            input_error(kAxes, fmt::format("axes_mapping has {} elements, the data's rank is {}",
                                           count, in.rank()));
          if (wanted && axes->value) check_axes(in, *wanted, *axes->value, phase);
        }
        return {{data.type, result}};
      }
    }
    op_error("unknown mode");
  }

  bool shape_needs_value(std::size_t index, std::size_t) const override {
    return index == kTarget || index == kAxes;
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& data = inputs[kData];
    Tensor& out = outputs[0];
    if (out.empty()) return;
    const std::size_t rank = out.rank();
    Shape aligned(rank, 1);
    if (attributes_.mode == Mode::explicit_axes) {
      const std::vector<std::int64_t> axes = integer_values(inputs[kAxes]);
      if (data.rank() > 0) {
        for (std::size_t i = 0; i < axes.size() && i < data.rank(); ++i) {
          if (axes[i] < 0 || static_cast<std::size_t>(axes[i]) >= rank)
            value_error(kAxes, fmt::format("axes_mapping[{}] = {} is out of range", i, axes[i]));
          aligned[static_cast<std::size_t>(axes[i])] = data.shape()[i];
        }
      }
    } else if (data.rank() <= rank) {
      const std::int64_t start =
          attributes_.mode == Mode::pdpd
              ? start_axis(static_cast<std::int64_t>(data.rank()), static_cast<std::int64_t>(rank))
              : static_cast<std::int64_t>(rank - data.rank());
      if (start < 0 || static_cast<std::size_t>(start) + data.rank() > rank)
        input_error(kData, "the data does not fit into the output");
      std::copy(data.shape().begin(), data.shape().end(),
                aligned.begin() + static_cast<std::ptrdiff_t>(start));
    } else {
      input_error(kData, "the data has more dims than the output");
    }
    for (std::size_t d = 0; d < rank; ++d)
      if (aligned[d] != 1 && aligned[d] != out.shape()[d])
        input_error(kData, fmt::format("the data's shape {} cannot be broadcast to {}",
                                       to_string(data.shape()), to_string(out.shape())));
    const std::array<Shape, 1> shapes{aligned};
    const ElementwisePlan plan = plan_elementwise(out.shape(), shapes);
    if (!dispatch_word(out.element_type(), [&](auto tag) {
          using U = typename decltype(tag)::type;
          broadcast_copy(context.parallel, plan, data.data<U>(), out.data<U>());
        }))
      input_error(kData, fmt::format("unsupported element type {}", to_string(out.element_type())));
  }

  std::optional<ValueBounds> infer_bounds(std::span<const ValueInfo> inputs,
                                          const OutputInfo& output) const override {
    // The output's elements are the data's, moved: they grow with it.
    return monotonic_bounds(*this, inputs, output);
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(attributes_);
  }

 private:
  std::int64_t start_axis(std::int64_t data_rank, std::int64_t target_rank) const {
    return attributes_.axis == -1 ? target_rank - data_rank : attributes_.axis;
  }

  /// OpenVINO's checks of a known axes_mapping against known shapes: sorted, inside the
  /// target's rank, each data dim 1 or the target dim it is mapped to. Duplicates are refused
  /// too, since two data dims cannot share one output dim.
  static void check_axes(const PartialShape& in, const PartialShape& target, const Tensor& axes,
                         Phase phase) {
    const std::vector<std::int64_t> v = integer_values(axes);
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (v[i] < 0 || v[i] >= target.rank())
        bad_value(phase, kAxes,
                  fmt::format("axes_mapping[{}] = {} is out of the target's rank {}", i, v[i],
                              target.rank()));
      if (i > 0 && v[i] <= v[i - 1])
        bad_value(phase, kAxes,
                  fmt::format("axes_mapping must be increasing, got {} after {}", v[i], v[i - 1]));
      const Dimension& t = target[static_cast<std::size_t>(v[i])];
      if (in.rank() == 0) {
        if (!t.compatible(1))
          bad_value(phase, kTarget,
                    fmt::format("target_shape[{}] must be 1 for a scalar data, got {}", v[i],
                                to_string(t)));
        continue;
      }
      const Dimension& d = in[i];
      if (!t.compatible(d) && !d.compatible(1))
        bad_value(phase, kTarget,
                  fmt::format("data dim {} ({}) cannot be broadcast to target_shape[{}] = {}", i,
                              to_string(d), v[i], to_string(t)));
    }
  }

  BroadcastAttributes attributes_;
};

OpDef broadcast_def(int version) {
  return {
      .type = "Broadcast",
      .version = version,
      .since_opset = version,
      .min_inputs = 2,
      .max_inputs = 3,
      .num_outputs = 1,
      .create = [version](const Attributes& a) -> std::unique_ptr<const Op> {
        return std::make_unique<BroadcastOp>(
            read_attributes(a, BroadcastAttributes{.version = version}));
      },
      .input_types = {{"data", all_types()},
                      {"target_shape", integral_types()},
                      {"axes_mapping", integral_types()}},
      .output_types = {{"output", all_types()}},
  };
}

}  // namespace

OpDef broadcast_v1_op() {
  return broadcast_def(1);
}
OpDef broadcast_v3_op() {
  return broadcast_def(3);
}

}  // namespace irlite
