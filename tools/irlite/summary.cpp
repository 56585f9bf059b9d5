#include "summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <span>
#include <type_traits>

#include "elements.hpp"
#include "irlite/float16.hpp"

namespace irlite::cli {
namespace {

// Six significant digits; NaN as "nan" whatever its sign bit (printf would say "-nan").
std::string real_text(double v) {
  return std::isnan(v) ? "nan" : fmt::format("{:.6g}", v);
}

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
    const ValueStats<T> st = value_stats(tensor.values<T>());
    if (st.counted == 0)
      text = "min=nan max=nan mean=nan";
    else
      text = fmt::format("min={} max={} mean={}", value_text(st.lo), value_text(st.hi),
                         real_text(st.sum / static_cast<double>(st.counted)));
    if constexpr (is_float_v<T>) text += fmt::format(" nan={} inf={}", st.nan, st.inf);
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
