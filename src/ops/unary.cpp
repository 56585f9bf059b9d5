// The element-wise unary math ops of one input: Relu-1, Sigmoid-1, Tanh-1, Exp-1, Log-1, Sqrt-1,
// Abs-1, Negative-1, Floor-1, Ceiling-1, Erf-1, Sin-1, Cos-1, SoftPlus-4, Mish-4 and Elu-1 (its
// `alpha` an attribute), each a registry entry over its scalar function in
// kernels/unary_functions.hpp; the 16-bit floats are computed in float and rounded once.
//
// OpenVINO accepts every numeric type for the ops of opset1 (its reference kernels cover a few
// of them each), and so does irlite, with the reference's formula for each: integer inputs of
// the transcendental functions are computed in double and converted back as Convert converts
// (truncation toward zero), after rounding to nearest for Tanh, Sqrt, Erf and Cos, as the reference
// does. SoftPlus takes floating-point types only, as their specification says.

#include <cmath>
#include <type_traits>

#include "kernels/unary_functions.hpp"
#include "ops/op_list.hpp"
#include "ops/unary_op.hpp"

namespace irlite {
namespace {

using namespace unary_fn;

// log(exp(x) + 1), and x itself from the threshold log(largest finite value of the type) on,
// where exp(x) would overflow: OpenVINO's reference, its threshold rounded to the type.
struct SoftPlusFn {
  static constexpr bool integers = false;
  static constexpr bool monotonic = false;
  template <class T, class Run>
  void apply(Run run) const {
    if constexpr (is_float_storage_v<T>) {
      using C = compute_t<T>;
      const T largest = T(-static_cast<C>(lowest_value<T>()));
      const C threshold = static_cast<C>(T(std::log(static_cast<C>(largest))));
      run(Lifted<T, SoftPlusKernel<C>>{{threshold}});
    }
  }
  void visit(AttributeVisitor&) {}
};

// Elu-1's `alpha`, required. The specification asks for a non-negative value; any other number
// is computed by the formula as well.
struct EluFn {
  static constexpr bool integers = false;
  static constexpr bool monotonic = false;
  double alpha = 0;
  void visit(AttributeVisitor& v) { v.on("alpha", alpha); }
  template <class T, class Run>
  void apply(Run run) const {
    if constexpr (is_float_storage_v<T>) run(Lifted<T, EluKernel<compute_t<T>>>{{alpha}});
  }
};

}  // namespace

// Name, op version, first opset; whether integers are accepted; whether integer bounds
// propagate (monotonic non-decreasing functions).
OpDef relu_op() {
  return unary_def<PlainFn<Relu, true, true>>("Relu", 1, 1);
}
OpDef sigmoid_op() {
  return unary_def<PlainFn<Sigmoid, true, false>>("Sigmoid", 1, 1);
}
OpDef tanh_op() {
  return unary_def<PlainFn<Tanh, true, false>>("Tanh", 1, 1);
}
OpDef exp_op() {
  return unary_def<PlainFn<Exp, true, false>>("Exp", 1, 1);
}
OpDef log_op() {
  return unary_def<PlainFn<Log, true, false>>("Log", 1, 1);
}
OpDef sqrt_op() {
  return unary_def<PlainFn<Sqrt, true, false>>("Sqrt", 1, 1);
}
OpDef abs_op() {
  return unary_def<PlainFn<Abs, true, false>>("Abs", 1, 1);
}
OpDef negative_op() {
  return unary_def<PlainFn<Negative, true, false>>("Negative", 1, 1);
}
OpDef floor_op() {
  return unary_def<PlainFn<Floor, true, true>>("Floor", 1, 1);
}
OpDef ceiling_op() {
  return unary_def<PlainFn<Ceiling, true, true>>("Ceiling", 1, 1);
}
OpDef erf_op() {
  return unary_def<PlainFn<Erf, true, false>>("Erf", 1, 1);
}
OpDef sin_op() {
  return unary_def<PlainFn<Sin, true, false>>("Sin", 1, 1);
}
OpDef cos_op() {
  return unary_def<PlainFn<Cos, true, false>>("Cos", 1, 1);
}
OpDef softplus_op() {
  return unary_def<SoftPlusFn>("SoftPlus", 4, 4);
}

OpDef mish_op() {
  return unary_def<PlainFn<Mish, false, false>>("Mish", 4, 4);
}
OpDef elu_op() {
  return unary_def<EluFn>("Elu", 1, 1);
}

}  // namespace irlite
