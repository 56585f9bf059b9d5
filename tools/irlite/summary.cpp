#include "summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <span>
#include <type_traits>

#include "irlite/float16.hpp"

namespace irlite::cli {
namespace {

template <class T>
struct TypeTag {
  using type = T;
};

template <class T>
inline constexpr bool is_float_v =
    std::is_floating_point_v<T> || std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

// The type values are compared and summed in: float for the 16-bit floats.
template <class T>
using compute_t = std::conditional_t<std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>,
                                     float, T>;

// Calls f(TypeTag<T>{}) with the C++ type of the tensor's elements; booleans are their 0/1
// bytes.
template <class F>
void dispatch_all(ElementType type, F&& f) {
  switch (type) {
    case ElementType::boolean: return f(TypeTag<std::uint8_t>{});
    case ElementType::f16: return f(TypeTag<float16>{});
    case ElementType::bf16: return f(TypeTag<bfloat16>{});
    case ElementType::f32: return f(TypeTag<float>{});
    case ElementType::f64: return f(TypeTag<double>{});
    case ElementType::i8: return f(TypeTag<std::int8_t>{});
    case ElementType::i16: return f(TypeTag<std::int16_t>{});
    case ElementType::i32: return f(TypeTag<std::int32_t>{});
    case ElementType::i64: return f(TypeTag<std::int64_t>{});
    case ElementType::u8: return f(TypeTag<std::uint8_t>{});
    case ElementType::u16: return f(TypeTag<std::uint16_t>{});
    case ElementType::u32: return f(TypeTag<std::uint32_t>{});
    case ElementType::u64: return f(TypeTag<std::uint64_t>{});
    case ElementType::undefined: break;
  }
}

// Six significant digits; NaN as "nan" whatever its sign bit (printf would say "-nan").
std::string real_text(double v) { return std::isnan(v) ? "nan" : fmt::format("{:.6g}", v); }

template <class T>
std::string value_text(T v) {
  if constexpr (is_float_v<T>)
    return real_text(static_cast<double>(static_cast<compute_t<T>>(v)));
  else if constexpr (std::is_signed_v<T>)
    return fmt::format("{}", static_cast<std::int64_t>(v));
  else
    return fmt::format("{}", static_cast<std::uint64_t>(v));
}

// The values of dimension `dim` onwards from element `offset`, nested like NumPy prints them
// ("[[1, 2], [3, 4]]"), until `left` values are shown; then "..." and the closing brackets.
template <class T>
void append_nested(std::string& text, std::span<const T> values, const Shape& shape,
                   std::size_t dim, std::size_t offset, std::size_t& left) {
  std::size_t stride = 1;
  for (std::size_t d = dim + 1; d < shape.size(); ++d) stride *= static_cast<std::size_t>(shape[d]);
  text += '[';
  for (std::int64_t i = 0; i < shape[dim]; ++i) {
    if (i) text += ", ";
    if (left == 0) {
      text += "...";
      break;
    }
    const std::size_t at = offset + static_cast<std::size_t>(i) * stride;
    if (dim + 1 == shape.size()) {
      text += value_text(values[at]);
      --left;
    } else {
      append_nested(text, values, shape, dim + 1, at, left);
    }
  }
  text += ']';
}

// Bits after the binary point of the random grid: -1 + k * 2^-bits is exact in the type for
// every k in [0, 2^(bits+1)), so the values stay inside [-1, 1) after conversion.
template <class T>
constexpr int grid_bits() {
  if constexpr (std::is_same_v<T, float16>)
    return 10;
  else if constexpr (std::is_same_v<T, bfloat16>)
    return 7;
  else
    return std::numeric_limits<T>::digits - 1;
}

}  // namespace

std::string summary_stats(const Tensor& tensor) {
  if (tensor.empty()) return "empty";
  std::string text;
  dispatch_all(tensor.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto values = tensor.values<T>();
    std::size_t nan = 0, inf = 0, counted = 0;
    double sum = 0;
    compute_t<T> lo{}, hi{};
    for (const T v : values) {
      const compute_t<T> c = v;
      if constexpr (is_float_v<T>) {
        if (std::isnan(c)) {
          ++nan;
          continue;
        }
        if (std::isinf(c)) ++inf;
      }
      if (counted == 0 || c < lo) lo = c;
      if (counted == 0 || c > hi) hi = c;
      sum += static_cast<double>(c);
      ++counted;
    }
    if (counted == 0)
      text = "min=nan max=nan mean=nan";
    else
      text = fmt::format("min={} max={} mean={}", value_text(lo), value_text(hi),
                         real_text(sum / static_cast<double>(counted)));
    if constexpr (is_float_v<T>) text += fmt::format(" nan={} inf={}", nan, inf);
  });
  return text;
}

std::string summary_values(const Tensor& tensor, std::size_t count) {
  std::string text;
  dispatch_all(tensor.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto values = tensor.values<T>();
    if (tensor.rank() == 0) {
      text = count ? value_text(values[0]) : "...";
      return;
    }
    std::size_t left = count;
    append_nested(text, std::span<const T>(values), tensor.shape(), 0, 0, left);
  });
  return text;
}

Tensor random_tensor(ElementType type, const Shape& shape, std::uint64_t seed,
                     std::uint64_t stream) {
  // mt19937_64 and seed_seq are specified exactly by the standard, so a seed gives the same
  // inputs with every compiler; the distributions below are written out for the same reason.
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(stream), static_cast<std::uint32_t>(stream >> 32)};
  std::mt19937_64 rng(seq);
  Tensor t(type, shape);
  if (type == ElementType::boolean) {
    for (std::uint8_t& v : t.values<std::uint8_t>()) v = static_cast<std::uint8_t>(rng() >> 63);
    return t;
  }
  dispatch_all(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (T& v : t.values<T>()) {
      if constexpr (is_float_v<T>) {
        constexpr int bits = grid_bits<T>();
        const auto k = static_cast<double>(rng() >> (63 - bits));
        v = static_cast<T>(static_cast<compute_t<T>>(-1.0 + std::ldexp(k, -bits)));
      } else {
        v = static_cast<T>(rng() % 10);
      }
    }
  });
  return t;
}

}  // namespace irlite::cli
