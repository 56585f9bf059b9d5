// Range-4: the numbers from `start` up to (not including) `stop` by `step`, of the type the
// `output_type` attribute names; the three inputs are scalars of any numeric types.
// Range-1 (OpenVINO's v0::Range, written version="opset1"): the same numbers, with no attribute:
// the three inputs share one numeric type, which is the output's.
//
// The length follows OpenVINO's shape rule: the inputs are read as doubles (truncated toward
// zero first when the output is an integer type), and the count is
// ceil(|stop - start| / |step|), or 0 when the step points away from stop. A step of zero (after
// that truncation) is an error, as are NaN and infinite inputs; OpenVINO's specification leaves
// a zero step undefined.

#include "kernels/range.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <optional>

#include "core/attribute_visitor.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

constexpr const char* kNames[] = {"start", "stop", "step"};

/// Beyond this many elements the output could not be allocated anyway; refusing it keeps the
/// count's conversion from double exact and within int64.
constexpr double kMaxCount = 4503599627370496.0;  // 2^52

/// A numeric scalar's value as a double (16-bit floats through float, 64-bit integers rounded).
double scalar_as_double(const Tensor& t) {
  double v = 0;
  dispatch_numeric(t.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    v = static_cast<double>(static_cast<compute_t<T>>(t.data<T>()[0]));
  });
  return v;
}

/// A numeric scalar as an integer: integers exactly (u64 above INT64_MAX saturates), floats
/// truncated toward zero and saturated to int64. Finite values only.
std::int64_t scalar_as_integer(const Tensor& t) {
  if (is_integral(t.element_type())) return integer_at(t, 0);
  const double v = std::trunc(scalar_as_double(t));
  if (v >= 9223372036854775807.0) return std::numeric_limits<std::int64_t>::max();
  if (v <= -9223372036854775808.0) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(v);
}

struct RangeAttributes {
  ElementType output_type = ElementType::f32;
  void visit(AttributeVisitor& v) {
    v.on("output_type", output_type);
    v.require("output_type", is_numeric(output_type), "expected a numeric type");
  }
};

class RangeOp final : public Op {
 public:
  /// Range-4, of the attribute's output type.
  explicit RangeOp(const RangeAttributes& attributes) : attributes_(attributes) {}
  /// Range-1, of its inputs' type.
  RangeOp() : typed_by_inputs_(true) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs,
                                       Phase phase) const override {
    if (typed_by_inputs_)
      for (std::size_t i = 1; i < 3; ++i)
        if (inputs[i].type != inputs[0].type)
          input_error(i, fmt::format("{} must be {} as start is, got {}", kNames[i],
                                     to_string(inputs[0].type), to_string(inputs[i].type)));
    const ElementType type = output_type(inputs[0].type);
    for (std::size_t i = 0; i < 3; ++i) {
      // OpenVINO refuses a one-element 1-D input too: each is a scalar.
      if (inputs[i].shape.rank_is_static() && inputs[i].shape.rank() != 0)
        input_error(
            i, fmt::format("{} must be a scalar, got {}", kNames[i], to_string(inputs[i].shape)));
    }
    std::optional<double> values[3];
    for (std::size_t i = 0; i < 3; ++i)
      if (inputs[i].value) values[i] = checked_value(*inputs[i].value, i, phase);
    // A zero step is refused as soon as it is known, whatever the other two.
    if (values[2]) check_step(type, *values[2], phase);
    if (!values[0] || !values[1] || !values[2])
      return {{type, PartialShape{Dimension::dynamic()}}};
    return {{type, PartialShape{Dimension(count(type, *values[0], *values[1], *values[2], phase))}}};
  }

  bool shape_needs_value(std::size_t, std::size_t) const override { return true; }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    double values[3];
    for (std::size_t i = 0; i < 3; ++i) values[i] = checked_value(inputs[i], i, Phase::run);
    const ElementType type = output_type(inputs[0].element_type());
    const std::int64_t n = count(type, values[0], values[1], values[2], Phase::run);
    Tensor& out = outputs[0];
    if (static_cast<std::size_t>(n) != out.size())
      op_error(fmt::format("the output holds {} elements, the range {}", out.size(), n));
    dispatch_numeric(type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = compute_t<T>;
      if constexpr (std::is_floating_point_v<C>) {
        // The inputs are first converted to the output type, as OpenVINO's kernel does.
        const auto start = static_cast<C>(T(static_cast<C>(scalar_as_double(inputs[0]))));
        const auto step = static_cast<C>(T(static_cast<C>(scalar_as_double(inputs[2]))));
        range_fill<T>(context.parallel, out.data<T>(), start, step, out.size());
      } else {
        // Wrapped into T as a two's complement conversion does.
        const auto start = static_cast<T>(scalar_as_integer(inputs[0]));
        const auto step = static_cast<T>(scalar_as_integer(inputs[2]));
        range_fill<T>(context.parallel, out.data<T>(), start, step, out.size());
      }
    });
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    if (typed_by_inputs_) return {};
    return print_attributes(attributes_);
  }

  std::shared_ptr<const Op> retyped(ElementType from, ElementType to) const override {
    if (typed_by_inputs_ || attributes_.output_type != from) return nullptr;
    auto op = std::make_shared<RangeOp>(*this);
    op->attributes_.output_type = to;
    return op;
  }

 private:
  /// Input i's value; NaN and infinities are errors.
  static double checked_value(const Tensor& t, std::size_t i, Phase phase) {
    const double v = scalar_as_double(t);
    if (!std::isfinite(v)) {
      std::string message = fmt::format("{} must be finite, got {}", kNames[i], value_text(t, 0));
      bad_value(phase, i, std::move(message));
    }
    return v;
  }

  /// The output's element type, given start's.
  ElementType output_type(ElementType start) const {
    return typed_by_inputs_ ? start : attributes_.output_type;
  }

  /// Refuses a step that is zero once converted to the output type.
  static void check_step(ElementType type, double step, Phase phase) {
    if ((is_integral(type) ? std::trunc(step) : step) != 0) return;
    std::string message =
        is_integral(type)
            ? fmt::format("step must not be zero, got {} which truncates to 0 in {}", step,
                          to_string(type))
            : std::string("step must not be zero");
    bad_value(phase, 2, std::move(message));
  }

  static std::int64_t count(ElementType type, double start, double stop, double step,
                            Phase phase) {
    if (is_integral(type)) {
      start = std::trunc(start);
      stop = std::trunc(stop);
      step = std::trunc(step);
    }
    check_step(type, step, phase);
    const bool empty = (step > 0 && start >= stop) || (step < 0 && start <= stop);
    const double n = empty ? 0.0 : std::ceil(std::fabs(stop - start) / std::fabs(step));
    if (!(n <= kMaxCount)) {
      std::string message =
          fmt::format("the range from {} to {} by {} has {} elements, more than irlite allows ({})",
                      start, stop, step, n, kMaxCount);
      bad_value(phase, 2, std::move(message));
    }
    return static_cast<std::int64_t>(n);
  }

  RangeAttributes attributes_;
  bool typed_by_inputs_ = false;
};

std::unique_ptr<const Op> create_range(const Attributes& a) {
  return std::make_unique<RangeOp>(read_attributes<RangeAttributes>(a));
}

std::unique_ptr<const Op> create_range_v1(const Attributes&) {
  return std::make_unique<RangeOp>();
}

}  // namespace

// OpenVINO's v0::Range, which opset1 holds; the display name says Range-1 as the opset does.
OpDef range_v1_op() {
  return {
      .type = "Range",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 3,
      .max_inputs = 3,
      .num_outputs = 1,
      .create = create_range_v1,
      .input_types = {{"start", numeric_types()},
                      {"stop", numeric_types()},
                      {"step", numeric_types()}},
      .output_types = {{"output", numeric_types()}},
  };
}

OpDef range_v4_op() {
  return {
      .type = "Range",
      .version = 4,
      .since_opset = 4,
      .min_inputs = 3,
      .max_inputs = 3,
      .num_outputs = 1,
      .create = create_range,
      .input_types = {{"start", numeric_types()},
                      {"stop", numeric_types()},
                      {"step", numeric_types()}},
      .output_types = {{"output", numeric_types()}},
  };
}

}  // namespace irlite
