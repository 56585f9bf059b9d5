#pragma once
// The scalar functions of the element-wise unary math ops (Relu, Sigmoid, Tanh, Exp, Log, Sqrt,
// Abs, Negative, Floor, Ceiling, Erf, Sin, Cos, SoftPlus, Elu, Mish, HardSigmoid), each inlined
// into the loop of
// kernels/unary.hpp; the binary ops' are in kernels/binary_functions.hpp. Each is called on the
// compute type (float for the 16-bit floats, the type itself otherwise).

#include <cmath>
#include <type_traits>

#include "kernels/element.hpp"
#include "kernels/simd.hpp"
#include "kernels/unary.hpp"

namespace irlite::unary_fn {

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

// x below zero: alpha * (exp(x) - 1), exp(x) - 1 in the compute type and the product in double,
// as OpenVINO's reference mixes them, but with expm1: the reference's exp(x) - 1 loses the
// digits of x near zero. Other values (-0 and NaN included) pass unchanged.
template <class C>
struct EluKernel {
  double alpha;
  IRLITE_INLINE C operator()(C x) const {
    return x < C(0) ? static_cast<C>(alpha * static_cast<double>(std::expm1(x))) : x;
  }
};

// x * tanh(log(exp(x) + 1)): the exponential in the compute type (infinite from about 88.7 in
// float, which gives x), the rest in double, rounded once, as OpenVINO's reference, except that
// log(1 + e) is log1p(e), which keeps the small values of x far below zero (the reference's
// log(e + 1) loses their last digits in f64).
struct Mish {
  template <class C>
  IRLITE_INLINE C operator()(C x) const {
    const double e = static_cast<double>(std::exp(x));
    return static_cast<C>(static_cast<double>(x) * std::tanh(std::log1p(e)));
  }
};

// max(0, min(1, alpha * x + beta)) with the reference's std::min and std::max, whose order of
// comparisons turns NaN into 1 (min(1, NaN) is 1).
template <class C>
struct HardSigmoidKernel {
  C alpha;
  C beta;
  IRLITE_INLINE C operator()(C x) const {
    const C v = alpha * x + beta;
    const C upper = v < C(1) ? v : C(1);
    return C(0) < upper ? upper : C(0);
  }
};

}  // namespace irlite::unary_fn
