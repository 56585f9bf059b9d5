// Convert-1: every element converted to `destination_type`, from any element type to any other,
// boolean included. What each conversion does (truncation of floats, wrapping of integers,
// booleans, rounding to f16 and bf16) is convert_value's (kernels/unary.hpp), after OpenVINO's
// reference.

#include <fmt/format.h>

#include <cstring>
#include <limits>
#include <type_traits>

#include "core/attribute_visitor.hpp"
#include "kernels/unary.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

/// The lowest value of an integer element type, as int64.
std::int64_t integer_type_min(ElementType type) {
  std::int64_t lowest = 0;
  dispatch_numeric(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>)
      lowest = static_cast<std::int64_t>(std::numeric_limits<T>::lowest());
  });
  return lowest;
}

struct ConvertAttributes {
  ElementType destination_type = ElementType::f32;
  void visit(AttributeVisitor& v) { v.on("destination_type", destination_type); }
};

class ConvertOp final : public Op {
 public:
  explicit ConvertOp(const ConvertAttributes& attributes) : attributes_(attributes) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs, Phase) const override {
    const ValueInfo& data = inputs[0];
    return {{attributes_.destination_type, data.shape}};
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& data = inputs[0];
    Tensor& out = outputs[0];
    const std::size_t n = data.size();
    const bool ok = dispatch_any(data.element_type(), [&](auto from_tag) {
      using From = typename decltype(from_tag)::type;
      dispatch_any(attributes_.destination_type, [&](auto to_tag) {
        using To = typename decltype(to_tag)::type;
        if constexpr (std::is_same_v<From, To> && !std::is_same_v<From, boolean8>) {
          // The same type: the bits as they are (a NaN keeps its payload).
          const auto* in = static_cast<const unsigned char*>(data.data());
          auto* o = static_cast<unsigned char*>(out.data());
          context.parallel.for_range(
              n, kUnaryGrain, [&](std::size_t b, std::size_t e, std::size_t) {
                std::memcpy(o + b * sizeof(To), in + b * sizeof(To), (e - b) * sizeof(To));
              });
        } else {
          unary_map(context.parallel, data.data<From>(), out.data<To>(), n, ConvertFn<From, To>{});
        }
      });
    });
    if (!ok) input_error(0, "data must have an element type, got undefined");
  }

  // Integer to integer only: the conversion keeps the order of values that fit the destination
  // type, and a value that does not fit would wrap, so the bounds then say nothing. An unbounded
  // upper bound (the input type's largest value) stays unbounded (the output type's largest).
  std::optional<ValueBounds> infer_bounds(std::span<const ValueInfo> inputs,
                                          const OutputInfo& output) const override {
    const ValueInfo& in = inputs[0];
    if (!is_integral(in.type) || !is_integral(attributes_.destination_type)) return std::nullopt;
    std::optional<ValueBounds> bounds = monotonic_bounds(*this, inputs, output);
    if (!bounds) return std::nullopt;
    const Tensor& lower = in.value ? *in.value : *in.lower;
    const Tensor& upper = in.value ? *in.value : *in.upper;
    const std::int64_t in_max = integer_type_max(in.type);
    const std::int64_t out_min = integer_type_min(attributes_.destination_type);
    const std::int64_t out_max = integer_type_max(attributes_.destination_type);
    for (std::size_t i = 0; i < lower.size(); ++i) {
      const std::int64_t lo = integer_at(lower, i);
      const std::int64_t hi = integer_at(upper, i);
      if (lo < out_min || lo > out_max) return std::nullopt;
      if (!in.value && hi == in_max) {
        dispatch_numeric(attributes_.destination_type, [&](auto tag) {
          using T = typename decltype(tag)::type;
          bounds->upper.data<T>()[i] = std::numeric_limits<T>::max();
        });
      } else if (hi < out_min || hi > out_max) {
        return std::nullopt;
      }
    }
    return bounds;
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(attributes_);
  }

  std::shared_ptr<const Op> retyped(ElementType from, ElementType to) const override {
    if (attributes_.destination_type != from) return nullptr;
    auto op = std::make_shared<ConvertOp>(*this);
    op->attributes_.destination_type = to;
    return op;
  }

 private:
  ConvertAttributes attributes_;
};

std::unique_ptr<const Op> create_convert(const Attributes& a) {
  return std::make_unique<ConvertOp>(read_attributes<ConvertAttributes>(a));
}

}  // namespace

OpDef convert_op() {
  return {
      .type = "Convert",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 1,
      .max_inputs = 1,
      .num_outputs = 1,
      .create = create_convert,
      .input_types = {{"data", all_types()}},
      .output_types = {{"output", all_types()}},
  };
}

}  // namespace irlite
