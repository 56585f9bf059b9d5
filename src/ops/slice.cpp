// Slice-8: start:stop:step along the axes the optional fifth input names (by default the first
// ones, in order), every other axis whole. start and stop count from the end when negative and
// are clamped into the axis (INT64_MAX and INT64_MIN reach either end), as in StridedSlice; a
// step of 0 is an error, and so are repeated axes.

#include <fmt/format.h>

#include <cstring>
#include <limits>
#include <map>
#include <optional>

#include "core/attributes.hpp"
#include "kernels/indexing.hpp"
#include "kernels/strided_copy.hpp"
#include "ops/indexing_slice.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

constexpr const char* kInputNames[] = {"data", "start", "stop", "step", "axes"};
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

class SliceOp final : public Op {
 public:
  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs,
                                       Phase phase) const override {
    const ValueInfo& data = inputs[0];
    const PartialShape& shape = data.shape;
    std::optional<Dimension> entries;
    for (std::size_t i = 1; i < inputs.size(); ++i) {
      const ValueInfo& in = inputs[i];
      if (!in.shape.rank_is_static()) continue;
      if (in.shape.rank() != 1)
        input_error(i, fmt::format("{} must be 1-D, got {}", kInputNames[i], to_string(in.shape)));
      const Dimension& n = in.shape[0];
      if (shape.rank_is_static() && n.min() > shape.rank())
        input_error(i, fmt::format("{} has {} elements, more than the data's rank {}",
                                   kInputNames[i], to_string(n), shape.rank()));
      if (entries && !entries->compatible(n))
        input_error(i, fmt::format("{} must have as many elements as start, {}, got {}",
                                   kInputNames[i], to_string(*entries), to_string(n)));
      if (!entries || n.is_static()) entries = n;
    }
    if (!shape.rank_is_static()) return {{data.type, PartialShape::dynamic_rank()}};
    const std::int64_t rank = shape.rank();

    const auto start = bounds_of(inputs[1]);
    const auto stop = bounds_of(inputs[2]);
    std::optional<std::vector<std::int64_t>> step;
    if (inputs[3].value) step = integer_values(*inputs[3].value);
    // Which entry slices each axis.
    std::optional<std::map<std::int64_t, std::size_t>> axes;
    if (inputs.size() > 4) {
      if (inputs[4].value) axes = axis_map(*inputs[4].value, rank, phase);
    } else if (start) {
      axes.emplace();
      for (std::size_t i = 0; i < start->size(); ++i) (*axes)[static_cast<std::int64_t>(i)] = i;
    }
    // The values' lengths must agree where known.
    const std::optional<std::size_t> lengths[] = {
        start ? std::optional(start->size()) : std::nullopt,
        stop ? std::optional(stop->size()) : std::nullopt,
        step ? std::optional(step->size()) : std::nullopt,
        inputs.size() > 4 && inputs[4].value ? std::optional(inputs[4].value->size())
                                             : std::nullopt};
    for (std::size_t i = 1; i < 4; ++i)
      if (lengths[i] && lengths[0] && *lengths[i] != *lengths[0])
        input_error(i + 1, fmt::format("{} must have as many elements as start, {}, got {}",
                                       kInputNames[i + 1], *lengths[0], *lengths[i]));

    std::vector<Dimension> out;
    for (std::int64_t d = 0; d < rank; ++d) {
      const Dimension& dim = shape[static_cast<std::size_t>(d)];
      if (!axes) {
        // Any axis may be sliced.
        out.emplace_back(0, dim.max());
        continue;
      }
      const auto it = axes->find(d);
      if (it == axes->end()) {
        out.push_back(dim);
      } else if (start && stop && step) {
        const std::size_t i = it->second;
        if ((*step)[i] == 0) {
          std::string message = fmt::format("step {} must not be 0", i);
          bad_value(phase, 3, std::move(message));
        }
        out.push_back(sliced_dimension(dim, (*start)[i], (*stop)[i], (*step)[i]));
      } else {
        out.emplace_back(0, dim.max());
      }
    }
    return {{data.type, PartialShape(std::move(out))}};
  }

  bool shape_needs_value(std::size_t index, std::size_t) const override { return index > 0; }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& data = inputs[0];
    const Shape& shape = data.shape();
    const auto rank = static_cast<std::int64_t>(shape.size());
    const std::size_t entries = inputs[1].size();
    for (std::size_t i = 2; i < inputs.size(); ++i)
      if (inputs[i].size() != entries)
        input_error(i, fmt::format("{} must have as many elements as start, {}, got {}",
                                   kInputNames[i], entries, inputs[i].size()));
    const std::vector<std::int64_t> start = integer_values(inputs[1]);
    const std::vector<std::int64_t> stop = integer_values(inputs[2]);
    const std::vector<std::int64_t> step = integer_values(inputs[3]);
    std::map<std::int64_t, std::size_t> axes;
    if (inputs.size() > 4) {
      axes = axis_map(inputs[4], rank, Phase::run);
    } else {
      if (static_cast<std::int64_t>(entries) > rank)
        input_error(
            1, fmt::format("start has {} elements, more than the data's rank {}", entries, rank));
      for (std::size_t i = 0; i < entries; ++i) axes[static_cast<std::int64_t>(i)] = i;
    }
    std::vector<StridedAxis> plan;
    for (std::int64_t d = 0; d < rank; ++d) {
      const std::int64_t n = shape[static_cast<std::size_t>(d)];
      const auto it = axes.find(d);
      if (it == axes.end()) {
        plan.push_back({0, 1, n});
        continue;
      }
      const std::size_t i = it->second;
      if (step[i] == 0) value_error(3, fmt::format("step {} must not be 0", i));
      plan.push_back(slice_axis(n, start[i], stop[i], step[i]));
    }
    Tensor& out = outputs[0];
    std::size_t count = 1;
    for (const StridedAxis& a : plan) count *= static_cast<std::size_t>(a.count);
    if (count != out.size())
      op_error(fmt::format("the output holds {} elements, the slice {}", out.size(), count));
    if (out.empty()) return;
    // Only a scalar has no axis, and nothing slices it: a plain copy.
    if (plan.empty()) {
      std::memcpy(out.data(), data.data(), data.byte_size());
      return;
    }
    const bool ok = dispatch_word(data.element_type(), [&](auto tag) {
      using W = typename decltype(tag)::type;
      strided_copy(context.parallel, data.data<W>(), shape, plan, out.data<W>());
    });
    if (!ok) input_error(0, "data has no element type");
  }

  // With start, stop, step and axes known, each output element is one of the data's.
  std::optional<ValueBounds> infer_bounds(std::span<const ValueInfo> inputs,
                                          const OutputInfo& output) const override {
    for (std::size_t i = 1; i < inputs.size(); ++i)
      if (!inputs[i].value) return std::nullopt;
    return monotonic_bounds(*this, inputs, output);
  }

 private:
  /// The axes normalised, each mapped to its entry; out-of-range and repeated axes are errors.
  static std::map<std::int64_t, std::size_t> axis_map(const Tensor& axes, std::int64_t rank,
                                                      Phase phase) {
    std::map<std::int64_t, std::size_t> m;
    const std::vector<std::int64_t> values = integer_values(axes);
    for (std::size_t i = 0; i < values.size(); ++i) {
      const auto a = normalize_axis(values[i], rank);
      std::string message;
      if (!a)
        message = axis_range_message(values[i], rank);
      else if (!m.emplace(*a, i).second)
        message = fmt::format("axes must be unique, but axis {} appears twice", *a);
      if (message.empty()) continue;
      bad_value(phase, 4, std::move(message));
    }
    return m;
  }

  /// The values or bounds of start or stop, one range per entry; nullopt when unknown.
  static std::optional<std::vector<SliceBounds>> bounds_of(const ValueInfo& in) {
    const Tensor* lo = in.value ? in.value : in.lower;
    const Tensor* hi = in.value ? in.value : in.upper;
    if (!lo || !hi) return std::nullopt;
    std::vector<SliceBounds> b;
    const std::int64_t type_max = integer_type_max(in.type);
    for (std::size_t i = 0; i < lo->size(); ++i) {
      const std::int64_t h = integer_at(*hi, i);
      b.emplace_back(integer_at(*lo, i), !in.value && h >= type_max ? kMax : h);
    }
    return b;
  }
};

std::unique_ptr<const Op> create_slice(const Attributes&) {
  return std::make_unique<SliceOp>();
}

}  // namespace

OpDef slice_v8_op() {
  return {
      .type = "Slice",
      .version = 8,
      .since_opset = 8,
      .min_inputs = 4,
      .max_inputs = 5,
      .num_outputs = 1,
      .create = create_slice,
      .input_types = {{"data", all_types()},
                      {"start", integral_types()},
                      {"stop", integral_types()},
                      {"step", integral_types()},
                      {"axes", integral_types()}},
      .output_types = {{"output", all_types()}},
  };
}

}  // namespace irlite
