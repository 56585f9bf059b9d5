// PReLU-1: x < 0 ? x * slope : x. A 1-D slope as long as the data's channel axis (axis 1, or
// axis 0 for 1-D data) runs along that axis; any other slope broadcasts NumPy-style to the
// data's shape, which is the output's. The element types are those OpenVINO's reference runs
// (f16, bf16, f32, f64 and i8), the slope of the data's type; f16 and bf16 are computed in float
// and rounded once, i8 products wrap. NaN and -0 are not below zero and pass unchanged.
//
// Real FP16 IR (OpenVINO's converters, IR v10) gives f16 data an f32 slope Const, and OpenVINO
// runs it: a floating-point slope of another floating-point type is converted to the data's
// type first (rounded once, as the model's own Convert would), then applied as above.

#include <fmt/format.h>

#include <array>
#include <bit>
#include <cstdint>
#include <type_traits>

#include "kernels/element.hpp"
#include "kernels/elementwise.hpp"
#include "ops/op_list.hpp"

namespace irlite {
namespace {

std::vector<ElementType> prelu_types() {
  return {ElementType::f16, ElementType::bf16, ElementType::f32, ElementType::f64, ElementType::i8};
}

struct PReluFn {
  template <class T>
  IRLITE_INLINE T operator()(T x, T slope) const {
    if constexpr (std::is_integral_v<T>) {
      return x < 0 ? static_cast<T>(x * slope) : x;
    } else {
      using C = compute_t<T>;
      const auto v = static_cast<C>(x);
      if constexpr (std::is_same_v<T, C>) {
        // The product made for every element and one of the two chosen by a bit mask: this
        // vectorises, where the compiler otherwise branches on the sign (mispredicted on half
        // of real activations) so as not to multiply speculatively.
        using U = std::conditional_t<sizeof(C) == 4, std::uint32_t, std::uint64_t>;
        const U negative = U{0} - static_cast<U>(v < C(0));
        return std::bit_cast<C>((std::bit_cast<U>(v * slope) & negative) |
                                (std::bit_cast<U>(v) & ~negative));
      } else {
        return v < C(0) ? static_cast<T>(v * static_cast<C>(slope)) : x;
      }
    }
  }
};

/// The data's channel axis: 1, or 0 for data of rank 1.
std::size_t channel_axis(std::size_t rank) {
  return rank > 1 ? 1 : 0;
}

class PReluOp final : public Op {
 public:
  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs, Phase) const override {
    const ValueInfo& data = inputs[0];
    const ValueInfo& slope = inputs[1];
    if (slope.type != data.type && !(is_real(slope.type) && is_real(data.type)))
      input_error(1, fmt::format("slope must be {} as the data is, got {}", to_string(data.type),
                                 to_string(slope.type)));
    if (data.shape.rank_is_static() && slope.shape.rank_is_static() &&
        !along_channels(data.shape, slope.shape) && !broadcasts(data.shape, slope.shape))
      input_error(1, fmt::format("slope {} neither runs along the channel axis of the data {} nor "
                                 "broadcasts to its shape",
                                 to_string(slope.shape), to_string(data.shape)));
    return {{data.type, data.shape}};
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& data = inputs[0];
    const Tensor& slope = inputs[1];
    const Shape& shape = data.shape();
    // The slope's shape aligned with the data's: a channel slope placed at the channel axis,
    // any other padded with ones on the left (the shape rule checked that one of them fits).
    Shape aligned(shape.size(), 1);
    const Shape& s = slope.shape();
    if (along_channels(PartialShape::from_shape(shape), PartialShape::from_shape(s)))
      aligned[channel_axis(shape.size())] = s[0];
    else
      std::copy(s.begin(), s.end(), aligned.end() - static_cast<std::ptrdiff_t>(s.size()));
    const std::array<Shape, 2> shapes{shape, aligned};
    const ElementwisePlan plan = plan_elementwise(shape, shapes);
    const bool ok = dispatch_numeric(data.element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* slopes = slope.data<T>();
      if (slope.element_type() != data.element_type()) {
        if constexpr (std::is_floating_point_v<compute_t<T>>)
          slopes = converted_slope<T>(slope, context.scratch).data();
      }
      binary_elementwise(context.parallel, plan, PReluFn{}, data.data<T>(), slopes,
                         outputs[0].data<T>());
    });
    if (!ok) no_kernel(0, data.element_type());
  }

  std::size_t scratch_bytes(std::span<const Tensor> inputs, std::span<const Tensor>,
                            unsigned) const override {
    if (inputs[1].element_type() == inputs[0].element_type()) return 0;
    const Scratch counting = Scratch::counting();
    dispatch_float(inputs[0].element_type(), [&](auto tag) {
      take_slope<typename decltype(tag)::type>(inputs[1], counting);
    });
    return counting.bytes();
  }

 private:
  template <class T>
  static std::span<T> take_slope(const Tensor& slope, const Scratch& scratch) {
    return scratch.take<T>(slope.size());
  }

  /// The slope in the data's floating-point type T, rounded once from its own.
  template <class T>
  static std::span<T> converted_slope(const Tensor& slope, const Scratch& scratch) {
    const std::span<T> out = take_slope<T>(slope, scratch);
    dispatch_float(slope.element_type(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      const S* in = slope.data<S>();
      for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = static_cast<T>(static_cast<double>(in[i]));
    });
    return out;
  }
  /// Whether a 1-D slope may run along the data's channel axis: its length that axis's.
  static bool along_channels(const PartialShape& data, const PartialShape& slope) {
    if (slope.rank() != 1 || data.rank() < 1) return false;
    const Dimension& c = data[channel_axis(static_cast<std::size_t>(data.rank()))];
    // At run time both are static and this decides; while loading, a possible match will do.
    return c.compatible(slope[0]);
  }

  /// Whether the slope may broadcast NumPy-style to the data's shape.
  static bool broadcasts(const PartialShape& data, const PartialShape& slope) {
    if (slope.rank() > data.rank()) return false;
    const std::size_t shift = static_cast<std::size_t>(data.rank() - slope.rank());
    for (std::size_t i = 0; i < static_cast<std::size_t>(slope.rank()); ++i)
      if (!slope[i].contains(1) && !slope[i].compatible(data[shift + i])) return false;
    return true;
  }
};

}  // namespace

OpDef prelu_op() {
  return {
      .type = "PReLU",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 2,
      .max_inputs = 2,
      .num_outputs = 1,
      .create = [](const Attributes&) -> std::unique_ptr<const Op> {
        return std::make_unique<PReluOp>();
      },
      .input_types = {{"data", prelu_types()}, {"slope", prelu_types()}},
      .output_types = {{"output", prelu_types()}},
  };
}

}  // namespace irlite
