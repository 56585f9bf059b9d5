// The element-wise unary math ops without attributes: Relu-1, Sigmoid-1, Tanh-1, Exp-1, Log-1,
// Sqrt-1, Abs-1, Negative-1, Floor-1, Ceiling-1, Erf-1, Sin-1, Cos-1, SoftPlus-4 and HSwish-4. Each
// is a scalar function in the table below; the 16-bit floats are computed in float and rounded
// once.
//
// OpenVINO accepts every numeric type for the ops of opset1 (its reference kernels cover a few
// of them each), and so does irlite, with the reference's formula for each: integer inputs of
// the transcendental functions are computed in double and converted back as Convert converts
// (truncation toward zero), after rounding to nearest for Tanh, Sqrt, Erf and Cos, as the reference
// does. SoftPlus and HSwish take floating-point types only, as their specification says.

#include <cmath>
#include <type_traits>

#include "ops/op_list.hpp"
#include "ops/unary_op.hpp"

namespace irlite {
namespace {

/// An integer input's value through a double function, converted back as Convert does.
template <class C, class G>
IRLITE_INLINE C through_double(C x, G g) {
  return float_to_integer<C>(g(static_cast<double>(x)));
}

struct Relu {
  // A NaN is not above zero: it gives 0, as in OpenVINO's reference.
  template <class C>
  IRLITE_INLINE C operator()(C x) const {
    return x > C(0) ? x : C(0);
  }
};

struct Sigmoid {
  template <class C>
  IRLITE_INLINE C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) {
      return C(1) / (C(1) + std::exp(-x));
    } else {
      // OpenVINO computes 1 / (1 + (T)exp(-x)) in integers, reading an unsigned input as
      // signed: 1 for x > 0, else 0 (exp(-x) >= 1). Where its (T)exp(-x) overflows, which C++
      // leaves undefined, irlite keeps that limit, 0.
      return static_cast<std::make_signed_t<C>>(x) > 0 ? C(1) : C(0);
    }
  }
};

struct Tanh {
  template <class C>
  IRLITE_INLINE C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>)
      return std::tanh(x);
    else
      return through_double(x, [](double v) { return std::round(std::tanh(v)); });
  }
};

struct Exp {
  template <class C>
  IRLITE_INLINE C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>)
      return std::exp(x);
    else
      return through_double(x, [](double v) { return std::exp(v); });
  }
};

struct Log {
  template <class C>
  IRLITE_INLINE C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>)
      return std::log(x);
    else
      return through_double(x, [](double v) { return std::log(v); });
  }
};

struct Sqrt {
  template <class C>
  IRLITE_INLINE C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>)
      return std::sqrt(x);
    else
      return through_double(x, [](double v) { return std::round(std::sqrt(v)); });
  }
};

struct Abs {
  template <class C>
  IRLITE_INLINE C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) {
      return std::fabs(x);
    } else if constexpr (std::is_unsigned_v<C>) {
      return x;
    } else {
      // The lowest value wraps to itself, as two's complement negation does.
      using U = std::make_unsigned_t<C>;
      return x < 0 ? static_cast<C>(U(0) - static_cast<U>(x)) : x;
    }
  }
};

struct Negative {
  template <class C>
  IRLITE_INLINE C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) {
      return -x;
    } else {
      // Integers wrap: -INT_MIN is INT_MIN, -1u is the type's largest value.
      using U = std::make_unsigned_t<C>;
      return static_cast<C>(U(0) - static_cast<U>(x));
    }
  }
};

struct Floor {
  template <class C>
  IRLITE_INLINE C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>)
      return floor_value(x);
    else
      return x;
  }
};

struct Ceiling {
  template <class C>
  IRLITE_INLINE C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>)
      return ceil_value(x);
    else
      return x;
  }
};

struct Erf {
  template <class C>
  IRLITE_INLINE C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>)
      return std::erf(x);
    else
      return through_double(x, [](double v) { return std::round(std::erf(v)); });
  }
};

struct Sin {
  // Integers: truncated, as OpenVINO's reference converts sin's double (it rounds Cos's).
  template <class C>
  IRLITE_INLINE C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>)
      return std::sin(x);
    else
      return through_double(x, [](double v) { return std::sin(v); });
  }
};

struct Cos {
  template <class C>
  IRLITE_INLINE C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>)
      return std::cos(x);
    else
      return through_double(x, [](double v) { return std::round(std::cos(v)); });
  }
};

template <class C>
struct SoftPlusKernel {
  C threshold;
  IRLITE_INLINE C operator()(C x) const { return x < threshold ? std::log(std::exp(x) + C(1)) : x; }
};

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
  std::vector<std::pair<std::string, std::string>> attributes() const { return {}; }
};

struct HSwish {
  template <class C>
  IRLITE_INLINE C operator()(C x) const {
    const C r = x + C(3);
    const C c = r < C(0) ? C(0) : (r > C(6) ? C(6) : r);
    return x * c / C(6);
  }
};

template <class Fn>
std::unique_ptr<const Op> create_unary(const Attributes&) {
  return std::make_unique<UnaryOp<Fn>>(Fn{});
}

/// The registry entry of a table op: one input, one output of the same type.
template <class Fn>
OpDef unary_def(std::string_view type, int version, int since_opset) {
  const std::vector<ElementType> types = Fn::integers ? numeric_types() : real_types();
  return {
      .type = type,
      .version = version,
      .since_opset = since_opset,
      .min_inputs = 1,
      .max_inputs = 1,
      .num_outputs = 1,
      .create = create_unary<Fn>,
      .input_types = {{"data", types}},
      .output_types = {{"output", types}},
  };
}

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
OpDef hswish_op() {
  return unary_def<PlainFn<HSwish, false, false>>("HSwish", 4, 4);
}

}  // namespace irlite
