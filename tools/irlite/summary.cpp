#include "summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <type_traits>

#include "kernels/element.hpp"

namespace irlite::cli {
namespace {

template <class T>
double as_double(T v) {
  return static_cast<double>(static_cast<compute_t<T>>(v));
}

template <class T>
std::string value_text(T v) {
  if constexpr (is_float_storage_v<T>)
    return fmt::format("{:.6g}", as_double(v));
  else if constexpr (std::is_signed_v<T>)
    return fmt::format("{}", static_cast<std::int64_t>(v));
  else
    return fmt::format("{}", static_cast<std::uint64_t>(v));
}

// Calls f(type_tag<T>) for every element type a tensor can hold; booleans are their 0/1 bytes.
template <class F>
void dispatch_all(ElementType type, F&& f) {
  if (type == ElementType::boolean)
    f(type_tag<std::uint8_t>{});
  else
    dispatch_numeric(type, f);
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
      if constexpr (is_float_storage_v<T>) {
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
      text = fmt::format("min={} max={} mean={:.6g}", value_text(lo), value_text(hi),
                         sum / static_cast<double>(counted));
    if constexpr (is_float_storage_v<T>) text += fmt::format(" nan={} inf={}", nan, inf);
  });
  return text;
}

std::string summary_values(const Tensor& tensor, std::size_t count) {
  std::string text = "[";
  dispatch_all(tensor.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto values = tensor.values<T>();
    const std::size_t shown = std::min(count, values.size());
    for (std::size_t i = 0; i < shown; ++i) text += (i ? ", " : "") + value_text(values[i]);
    if (shown < values.size()) text += shown ? ", ..." : "...";
  });
  return text + "]";
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
  dispatch_numeric(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (T& v : t.values<T>()) {
      if constexpr (is_float_storage_v<T>) {
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
