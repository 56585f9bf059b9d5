#include "ops/shape_utils.hpp"

#include <fmt/format.h>

#include <cmath>

#include "kernels/element.hpp"

namespace irlite {

std::optional<std::int64_t> normalize_axis(std::int64_t axis, std::int64_t rank) {
  if (axis < -rank || axis >= rank) return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

std::string axis_range_message(std::int64_t axis, std::int64_t rank) {
  return fmt::format("axis {} is out of the tensor rank range [{}, {}]", axis, -rank, rank - 1);
}

std::size_t row_size(const Tensor& a, const Tensor& b) {
  for (const Tensor* t : {&a, &b}) {
    const auto rows = static_cast<std::size_t>(t->shape()[0]);
    if (rows != 0) return t->size() / rows;
  }
  return 0;
}

std::vector<std::int64_t> integer_values(const Tensor& t) {
  std::vector<std::int64_t> v(t.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = integer_at(t, i);
  return v;
}

std::string value_text(const Tensor& t, std::size_t i) {
  std::string s;
  if (t.element_type() == ElementType::boolean) return t.data<std::uint8_t>()[i] ? "true" : "false";
  dispatch_numeric(t.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = t.data<T>()[i];
    if constexpr (is_float_storage_v<T>) {
      const compute_t<T> c = v;
      s = std::isnan(c) ? "nan" : fmt::format("{}", c);
    } else
      s = fmt::format("{}", v);
  });
  return s;
}

}  // namespace irlite
