#pragma once
// The scalar functions of the element-wise binary ops, each inlined into the loops of
// kernels/elementwise.hpp. 16-bit floats are computed in float and rounded once; integers wrap
// as two's complement (computed in an unsigned type, so that overflow is defined).

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/element.hpp"
#include "kernels/simd.hpp"

namespace irlite::binary_fn {

template <class T>
IRLITE_INLINE T from_compute(compute_t<T> v) {
  return static_cast<T>(v);
}

struct Add {
  template <class T>
  IRLITE_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      using U = wrap_wide_t<T>;
      return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    } else {
      return from_compute<T>(static_cast<compute_t<T>>(a) + static_cast<compute_t<T>>(b));
    }
  }
};

struct Subtract {
  template <class T>
  IRLITE_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      using U = wrap_wide_t<T>;
      return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
    } else {
      return from_compute<T>(static_cast<compute_t<T>>(a) - static_cast<compute_t<T>>(b));
    }
  }
};

struct Multiply {
  template <class T>
  IRLITE_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      using U = wrap_wide_t<T>;
      return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
    } else {
      return from_compute<T>(static_cast<compute_t<T>>(a) * static_cast<compute_t<T>>(b));
    }
  }
};

/// Division. Floats follow IEEE (x / 0 is an infinity or NaN). Integers truncate, or floor when
/// `floor` (m_pythondiv); a zero divisor is refused before the kernel runs, and the one quotient
/// that overflows, the lowest value over -1, wraps to the lowest value.
struct Divide {
  bool floor = true;
  template <class T>
  IRLITE_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if constexpr (std::is_signed_v<T>) {
        if (b == -1) {
          using U = wrap_wide_t<T>;
          return static_cast<T>(static_cast<U>(U{0} - static_cast<U>(a)));
        }
      }
      const T q = static_cast<T>(a / b);
      if constexpr (std::is_signed_v<T>) {
        const T r = static_cast<T>(a % b);
        if (floor && r != 0 && ((a < 0) != (b < 0))) return static_cast<T>(q - 1);
      }
      return q;
    } else {
      return from_compute<T>(static_cast<compute_t<T>>(a) / static_cast<compute_t<T>>(b));
    }
  }
};

/// a > b ? a : b, as OpenVINO's reference: a NaN in a gives b, a NaN in b gives NaN.
struct Maximum {
  template <class T>
  IRLITE_INLINE T operator()(T a, T b) const {
    return static_cast<compute_t<T>>(a) > static_cast<compute_t<T>>(b) ? a : b;
  }
};

/// a < b ? a : b, as OpenVINO's reference: a NaN in a gives b, a NaN in b gives NaN.
struct Minimum {
  template <class T>
  IRLITE_INLINE T operator()(T a, T b) const {
    return static_cast<compute_t<T>>(a) < static_cast<compute_t<T>>(b) ? a : b;
  }
};

/// Power. Floats: std::pow. Integers: the exact power, wrapping, for a non-negative exponent; for
/// a negative one, the real result truncated (1 for a base of 1, +-1 for -1, 0 for other bases)
/// and the type's largest value for a base of 0, whose result is infinite.
struct Power {
  template <class T>
  IRLITE_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      using U = wrap_wide_t<T>;
      if constexpr (std::is_signed_v<T>) {
        if (b < 0) {
          if (a == 1) return 1;
          if (a == -1) return (b & 1) != 0 ? T(-1) : T(1);
          if (a == 0) return std::numeric_limits<T>::max();
          return 0;
        }
      }
      U result = 1;
      U base = static_cast<U>(a);
      auto e = static_cast<std::make_unsigned_t<T>>(b);
      while (e != 0) {
        if ((e & 1) != 0) result = static_cast<U>(result * base);
        base = static_cast<U>(base * base);
        e = static_cast<decltype(e)>(e >> 1);
      }
      return static_cast<T>(result);
    } else {
      return from_compute<T>(std::pow(static_cast<compute_t<T>>(a), static_cast<compute_t<T>>(b)));
    }
  }
};

#define IRLITE_COMPARE(Name, op)                                                   \
  struct Name {                                                                    \
    template <class T>                                                             \
    IRLITE_INLINE std::uint8_t operator()(T a, T b) const {                        \
      return static_cast<compute_t<T>>(a) op static_cast<compute_t<T>>(b) ? 1 : 0; \
    }                                                                              \
  };
IRLITE_COMPARE(Equal, ==)
IRLITE_COMPARE(NotEqual, !=)
IRLITE_COMPARE(Less, <)
IRLITE_COMPARE(LessEqual, <=)
IRLITE_COMPARE(Greater, >)
IRLITE_COMPARE(GreaterEqual, >=)
#undef IRLITE_COMPARE

struct LogicalAnd {
  IRLITE_INLINE std::uint8_t operator()(std::uint8_t a, std::uint8_t b) const {
    return (a != 0) & (b != 0);
  }
};
struct LogicalOr {
  IRLITE_INLINE std::uint8_t operator()(std::uint8_t a, std::uint8_t b) const {
    return (a != 0) | (b != 0);
  }
};
struct LogicalXor {
  IRLITE_INLINE std::uint8_t operator()(std::uint8_t a, std::uint8_t b) const {
    return (a != 0) ^ (b != 0);
  }
};

/// A comparison on booleans: any non-zero byte is true.
template <class F>
struct OnBooleans {
  F f;
  IRLITE_INLINE std::uint8_t operator()(std::uint8_t a, std::uint8_t b) const {
    return f(static_cast<std::uint8_t>(a != 0), static_cast<std::uint8_t>(b != 0));
  }
};

}  // namespace irlite::binary_fn
