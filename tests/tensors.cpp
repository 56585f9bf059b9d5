#include "tensors.hpp"

#include <bit>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <type_traits>

#include "ops/shape_utils.hpp"

namespace irlite::test {
namespace {

// Rounds to float keeping a sticky bit (round to odd): rounding that float again to a format
// with at least 2 fewer significand bits (f16: 11, bf16: 8, against float's 24) gives the
// correctly rounded result of the double, which plain double->float->half does not (a value
// just above a half-way point can land exactly on it after the first rounding).
float round_to_odd_float(double d) {
  const float f = static_cast<float>(d);
  if (std::isnan(d) || std::isinf(f) || static_cast<double>(f) == d) return f;
  const float truncated =
      std::fabs(static_cast<double>(f)) > std::fabs(d) ? std::nextafter(f, 0.0f) : f;
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(truncated) | 1u);
}

template <class T>
T from_double(double d) {
  if constexpr (std::is_same_v<T, float16>) {
    return round_to_f16(d);
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return round_to_bf16(d);
  } else {
    return static_cast<T>(d);
  }
}

template <class T>
bool fits(std::int64_t v) {
  if constexpr (std::is_signed_v<T>) {
    return v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max();
  } else {
    return v >= 0 && static_cast<std::uint64_t>(v) <= std::numeric_limits<T>::max();
  }
}

template <class T>
bool fits_unsigned(std::uint64_t v) {
  return v <= static_cast<std::uint64_t>(std::numeric_limits<T>::max());
}

std::string where(std::size_t i) {
  return "value " + std::to_string(i);
}

}  // namespace

float16 round_to_f16(double d) {
  return float16(round_to_odd_float(d));
}
bfloat16 round_to_bf16(double d) {
  return bfloat16(round_to_odd_float(d));
}

Tensor tensor(ElementType type, Shape shape, const std::vector<double>& values) {
  Tensor t(type, std::move(shape));
  if (values.size() != t.size())
    throw std::invalid_argument("tensor(): " + std::to_string(values.size()) +
                                " values for shape " + to_string(t.shape()));
  std::size_t i = 0;
  if (type == ElementType::boolean) {
    for (double v : values) t.data<std::uint8_t>()[i++] = v != 0 ? 1 : 0;
    return t;
  }
  const bool ok = dispatch_numeric(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (double v : values) {
      if constexpr (!is_float_storage_v<T>) {
        // [-2^digits, 2^digits) for signed types, [0, 2^digits) for unsigned ones: exact bounds
        // even where max() is not a double.
        const double limit = std::ldexp(1.0, std::numeric_limits<T>::digits);
        const double low = std::is_signed_v<T> ? -limit : 0.0;
        if (!(v == std::floor(v) && v >= low && v < limit))
          throw std::invalid_argument("tensor(): " + where(i) + " does not fit " +
                                      std::string(to_string(type)));
      }
      t.data<T>()[i++] = from_double<T>(v);
    }
  });
  if (!ok)
    throw std::invalid_argument("tensor(): unsupported element type " +
                                std::string(to_string(type)));
  return t;
}

Tensor ints(ElementType type, Shape shape, const std::vector<std::int64_t>& values) {
  Tensor t(type, std::move(shape));
  if (values.size() != t.size())
    throw std::invalid_argument("ints(): " + std::to_string(values.size()) + " values for shape " +
                                to_string(t.shape()));
  const bool ok = dispatch_numeric(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      for (std::size_t i = 0; i < values.size(); ++i) t.data<T>()[i] = static_cast<T>(values[i]);
    } else {
      throw std::invalid_argument("ints() makes integer tensors, not " +
                                  std::string(to_string(type)));
    }
  });
  if (!ok)
    throw std::invalid_argument("ints() makes integer tensors, not " +
                                std::string(to_string(type)));
  return t;
}

Tensor i64s(const std::vector<std::int64_t>& values) {
  return ints(ElementType::i64, {static_cast<std::int64_t>(values.size())}, values);
}

Tensor tensor_from_json(ElementType type, const Shape& shape, const nlohmann::json& values) {
  Tensor t(type, shape);
  if (!values.is_array() || values.size() != t.size())
    throw std::invalid_argument("expected an array of " + std::to_string(t.size()) +
                                " values for shape " + to_string(shape) + ", got " +
                                values.dump().substr(0, 80));
  if (type == ElementType::boolean) {
    for (std::size_t i = 0; i < t.size(); ++i) {
      const auto& v = values[i];
      if (v.is_boolean()) {
        t.data<std::uint8_t>()[i] = v.get<bool>() ? 1 : 0;
      } else if (v.is_number_integer() &&
                 (v.get<std::int64_t>() == 0 || v.get<std::int64_t>() == 1)) {
        t.data<std::uint8_t>()[i] = static_cast<std::uint8_t>(v.get<std::int64_t>());
      } else {
        throw std::invalid_argument(where(i) + " is not a boolean: " + v.dump());
      }
    }
    return t;
  }
  const bool ok = dispatch_numeric(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = t.data<T>();
    for (std::size_t i = 0; i < t.size(); ++i) {
      const auto& v = values[i];
      if constexpr (is_float_storage_v<T>) {
        if (!v.is_number()) throw std::invalid_argument(where(i) + " is not a number: " + v.dump());
        // nlohmann keeps integers as 64-bit integers; convert them without going through a
        // lossy path other than the final rounding.
        double d = 0;
        if (v.is_number_unsigned()) {
          d = static_cast<double>(v.get<std::uint64_t>());
        } else if (v.is_number_integer()) {
          d = static_cast<double>(v.get<std::int64_t>());
        } else {
          d = v.get<double>();
        }
        out[i] = from_double<T>(d);
      } else {
        if (v.is_number_unsigned()) {
          const auto u = v.get<std::uint64_t>();
          if (!fits_unsigned<T>(u))
            throw std::invalid_argument(where(i) + " = " + v.dump() + " does not fit " +
                                        std::string(to_string(type)));
          out[i] = static_cast<T>(u);
        } else if (v.is_number_integer()) {
          const auto s = v.get<std::int64_t>();
          if (!fits<T>(s))
            throw std::invalid_argument(where(i) + " = " + v.dump() + " does not fit " +
                                        std::string(to_string(type)));
          out[i] = static_cast<T>(s);
        } else if (v.is_number_float() && v.get<double>() == std::floor(v.get<double>()) &&
                   std::fabs(v.get<double>()) < 9.0e15 &&
                   fits<T>(static_cast<std::int64_t>(v.get<double>()))) {
          out[i] = static_cast<T>(static_cast<std::int64_t>(v.get<double>()));
        } else {
          throw std::invalid_argument(where(i) + " = " + v.dump() + " is not an integer of " +
                                      std::string(to_string(type)));
        }
      }
    }
  });
  if (!ok) throw std::invalid_argument("unsupported element type " + std::string(to_string(type)));
  return t;
}

std::vector<double> doubles(const Tensor& t) {
  std::vector<double> v(t.size());
  dispatch_numeric(t.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (std::size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<double>(static_cast<compute_t<T>>(t.data<T>()[i]));
  });
  return v;
}

std::vector<std::int64_t> integers(const Tensor& t) {
  std::vector<std::int64_t> v(t.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = integer_at(t, i);
  return v;
}

std::string element_text(const Tensor& t, std::size_t i) {
  return value_text(t, i);
}

double element_as_double(const Tensor& t, std::size_t i) {
  double d = 0;
  if (t.element_type() == ElementType::boolean) return t.data<std::uint8_t>()[i];
  dispatch_numeric(t.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    d = static_cast<double>(static_cast<compute_t<T>>(t.data<T>()[i]));
  });
  return d;
}

bool same_bits(const Tensor& a, const Tensor& b, std::size_t i) {
  const std::size_t w = element_size(a.element_type());
  return std::memcmp(static_cast<const std::byte*>(a.data()) + i * w,
                     static_cast<const std::byte*>(b.data()) + i * w, w) == 0;
}

}  // namespace irlite::test
