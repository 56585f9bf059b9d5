// Split-1 and VariadicSplit-1: the data cut along `axis` into consecutive pieces, one output
// each. Split-1 makes `num_splits` equal pieces (the axis extent must divide evenly);
// VariadicSplit-1 makes one piece per element of `split_lengths`, one of which may be -1 for
// whatever the others leave. Any element type: the kernel moves bytes.
//
// The number of outputs is the attribute's or split_lengths' length, and must be the layer's.
// The axis (and the lengths) decide the shapes, so the rule reads their values; while they are
// unknown each output keeps the data's rank with every extent unknown, as OpenVINO's does.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <climits>
#include <optional>

#include "core/attribute_visitor.hpp"
#include "core/saturating.hpp"
#include "kernels/data_movement.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_family.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

/// The output rank and extents while the axis is unknown: the data's rank, nothing else.
PartialShape unknown_extents(const PartialShape& data) {
  if (!data.rank_is_static()) return PartialShape::dynamic_rank();
  return PartialShape(std::vector<Dimension>(data.dims().size(), Dimension::dynamic()));
}

/// The axis input: a scalar; nullopt while its value or the data's rank is unknown, else the
/// axis normalised into [0, rank).
std::optional<std::size_t> known_axis(std::span<const ValueInfo> inputs, Phase phase) {
  const ValueInfo& axis = inputs[1];
  if (axis.shape.rank_is_static() && axis.shape.rank() != 0)
    input_error(1, "axis must be a scalar, got " + to_string(axis.shape));
  if (!axis.value || !inputs[0].shape.rank_is_static()) return std::nullopt;
  const std::int64_t rank = inputs[0].shape.rank();
  const std::int64_t value = integer_at(*axis.value, 0);
  const auto normalized = normalize_axis(value, rank);
  if (!normalized) {
    std::string message = axis_range_message(value, rank);
    bad_value(phase, 1, std::move(message));
  }
  return static_cast<std::size_t>(*normalized);
}

/// Copies the data into the outputs along `axis`; each output's extent there is its shape's.
void split_along(const Tensor& data, std::size_t axis, std::span<Tensor> outputs,
                 const Parallel& parallel) {
  const Shape& shape = data.shape();
  std::size_t outer = 1;
  for (std::size_t d = 0; d < axis; ++d) outer *= static_cast<std::size_t>(shape[d]);
  std::int64_t total = 0;
  for (const Tensor& out : outputs) total += out.shape()[axis];
  if (total != shape[axis])
    op_error(fmt::format("the outputs' extents along axis {} add up to {}, the data's is {}", axis,
                         total, shape[axis]));
  std::vector<std::size_t> blocks;
  std::vector<void*> targets;
  for (Tensor& out : outputs) {
    // Each output's row: its bytes over the outer extent, which all outputs share.
    blocks.push_back(outer == 0 ? 0 : out.byte_size() / outer);
    targets.push_back(out.data());
  }
  split_bytes(parallel, data.data(), outer, blocks, targets);
}

struct SplitAttributes {
  std::int64_t num_splits = 1;
  void visit(AttributeVisitor& v) {
    v.on("num_splits", num_splits);
    v.require("num_splits", num_splits > 0, "expected a positive number of outputs");
    v.require("num_splits", num_splits <= INT_MAX / 2, "too many outputs");
  }
};

class SplitOp final : public Op {
 public:
  explicit SplitOp(const SplitAttributes& attributes) : attributes_(attributes) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs,
                                       Phase phase) const override {
    const ValueInfo& data = inputs[0];
    const auto n = static_cast<std::size_t>(attributes_.num_splits);
    const std::optional<std::size_t> axis = known_axis(inputs, phase);
    if (!axis) return std::vector<OutputInfo>(n, {data.type, unknown_extents(data.shape)});
    PartialShape each = data.shape;
    const Dimension& d = data.shape[*axis];
    const std::int64_t k = attributes_.num_splits;
    if (d.is_static()) {
      if (d.value() % k != 0)
        input_error(0, fmt::format("extent {} of data {} along axis {} does not divide into "
                                   "num_splits = {} equal pieces",
                                   d.value(), to_string(data.shape), *axis, k));
      each[*axis] = Dimension(d.value() / k);
    } else {
      // Only multiples of num_splits can be the extent: the pieces lie between the smallest
      // and the largest of them, divided.
      const std::int64_t lo = ceil_div(d.min(), k);
      const std::int64_t hi = d.has_upper_bound() ? d.max() / k : Dimension::unbounded;
      if (d.has_upper_bound() && hi < lo)
        input_error(0, fmt::format("no extent of data {} along axis {} divides into num_splits "
                                   "= {} equal pieces",
                                   to_string(data.shape), *axis, k));
      each[*axis] = Dimension(lo, hi);
    }
    return std::vector<OutputInfo>(n, {data.type, each});
  }

  bool shape_needs_value(std::size_t index, std::size_t) const override { return index == 1; }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& data = inputs[0];
    const auto rank = static_cast<std::int64_t>(data.rank());
    const std::int64_t value = integer_at(inputs[1], 0);
    const auto axis = normalize_axis(value, rank);
    if (!axis) value_error(1, axis_range_message(value, rank));
    split_along(data, static_cast<std::size_t>(*axis), outputs, context.parallel);
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(attributes_);
  }

 private:
  SplitAttributes attributes_;
};

class VariadicSplitOp final : public Op {
 public:
  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs,
                                       Phase phase) const override {
    const ValueInfo& data = inputs[0];
    const ValueInfo& lengths = inputs[2];
    if (!lengths.shape.rank_is_static() || lengths.shape.rank() != 1)
      input_error(2, "split_lengths must be 1-D, got " + to_string(lengths.shape));
    if (!lengths.shape[0].is_static())
      input_error(2, fmt::format("split_lengths must have a static length, the number of "
                                 "outputs; got {}",
                                 to_string(lengths.shape)));
    const auto n = static_cast<std::size_t>(lengths.shape[0].value());
    if (n == 0) input_error(2, "split_lengths must not be empty: it makes one output each");
    const std::optional<std::size_t> axis = known_axis(inputs, phase);
    if (!axis) return std::vector<OutputInfo>(n, {data.type, unknown_extents(data.shape)});
    std::vector<OutputInfo> outs(n, {data.type, data.shape});
    if (!lengths.value) {
      // Lengths computed from shapes may have known bounds; a length that may be -1 is unknown.
      for (std::size_t i = 0; i < n; ++i) {
        const bool bounded = lengths.lower && integer_at(*lengths.lower, i) >= 0;
        const std::optional<Dimension> d = bounded ? known_dimension(lengths, i) : std::nullopt;
        outs[i].shape[*axis] = d ? *d : Dimension::dynamic();
      }
      return outs;
    }
    const std::vector<std::int64_t> values = integer_values(*lengths.value);
    const Dimension& d = data.shape[*axis];
    std::optional<std::size_t> rest;  // the -1 element
    std::int64_t sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (values[i] == -1) {
        if (rest) {
          std::string message =
              fmt::format("split_lengths may hold one -1, got two (elements {} and {})", *rest, i);
          bad_value(phase, 2, std::move(message));
        }
        rest = i;
        continue;
      }
      if (values[i] < -1) {
        std::string message = fmt::format(
            "split_lengths must be non-negative (or -1 once), element {} is {}", i, values[i]);
        bad_value(phase, 2, std::move(message));
      }
      if (__builtin_add_overflow(sum, values[i], &sum)) {
        std::string message = "split_lengths add up to more than int64 holds";
        bad_value(phase, 2, std::move(message));
      }
      outs[i].shape[*axis] = Dimension(values[i]);
    }
    const auto mismatch = [&](const char* what) {
      std::string message =
          fmt::format("split_lengths {} add up to {}, {} the extent {} of data {} along axis {}",
                      value_list(values), sum, what, to_string(d), to_string(data.shape), *axis);
      bad_value(phase, 2, std::move(message));
    };
    if (rest) {
      if (d.has_upper_bound() && d.max() < sum) mismatch("more than");
      const std::int64_t lo = d.min() > sum ? d.min() - sum : 0;
      const std::int64_t hi = d.has_upper_bound() ? d.max() - sum : Dimension::unbounded;
      outs[*rest].shape[*axis] = Dimension(lo, hi);
    } else if (!d.contains(sum)) {
      mismatch("not");
    }
    return outs;
  }

  bool shape_needs_value(std::size_t index, std::size_t) const override { return index >= 1; }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& data = inputs[0];
    const auto rank = static_cast<std::int64_t>(data.rank());
    const std::int64_t value = integer_at(inputs[1], 0);
    const auto axis = normalize_axis(value, rank);
    if (!axis) value_error(1, axis_range_message(value, rank));
    split_along(data, static_cast<std::size_t>(*axis), outputs, context.parallel);
  }

 private:
  static std::string value_list(const std::vector<std::int64_t>& values) {
    return fmt::format("[{}]", fmt::join(values, ","));
  }
};

std::unique_ptr<const Op> create_split(const Attributes& a) {
  return std::make_unique<SplitOp>(read_attributes<SplitAttributes>(a));
}

}  // namespace

OpDef split_op() {
  return {
      .type = "Split",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 2,
      .max_inputs = 2,
      .num_outputs = 1,
      .max_outputs = INT_MAX,
      .create = create_split,
      .input_types = {{"data", all_types()}, {"axis", integral_types()}},
      .output_types = {{"output", all_types()}},
  };
}

OpDef variadic_split_op() {
  return {
      .type = "VariadicSplit",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 3,
      .max_inputs = 3,
      .num_outputs = 1,
      .max_outputs = INT_MAX,
      .create = [](const Attributes&) -> std::unique_ptr<const Op> {
        return std::make_unique<VariadicSplitOp>();
      },
      .input_types = {{"data", all_types()},
                      {"axis", integral_types()},
                      {"split_lengths", integral_types()}},
      .output_types = {{"output", all_types()}},
  };
}

}  // namespace irlite
