#include "ops/shape_utils.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernels/element.hpp"

namespace irlite {

std::optional<std::int64_t> normalize_axis(std::int64_t axis, std::int64_t rank) {
  if (axis < -rank || axis >= rank) return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

std::string axis_range_message(std::int64_t axis, std::int64_t rank) {
  return fmt::format("axis {} is out of the tensor rank range [{}, {}]", axis, -rank, rank - 1);
}

std::optional<std::vector<bool>> axes_mask(const std::vector<std::int64_t>& axes,
                                           std::int64_t rank, std::string* why) {
  std::vector<bool> mask(static_cast<std::size_t>(rank), false);
  for (const std::int64_t a : axes) {
    const auto n = normalize_axis(a, rank);
    if (!n) {
      *why = axis_range_message(a, rank);
      return std::nullopt;
    }
    if (mask[static_cast<std::size_t>(*n)]) {
      *why = fmt::format("axis {} is given twice", *n);
      return std::nullopt;
    }
    mask[static_cast<std::size_t>(*n)] = true;
  }
  return mask;
}

std::size_t row_size(const Tensor& a, const Tensor& b) {
  for (const Tensor* t : {&a, &b}) {
    const auto rows = static_cast<std::size_t>(t->shape()[0]);
    if (rows != 0) return t->size() / rows;
  }
  return 0;
}

std::int64_t integer_type_max(ElementType type) {
  switch (type) {
    case ElementType::i8:
      return INT8_MAX;
    case ElementType::i16:
      return INT16_MAX;
    case ElementType::i32:
      return INT32_MAX;
    case ElementType::u8:
      return UINT8_MAX;
    case ElementType::u16:
      return UINT16_MAX;
    case ElementType::u32:
      return UINT32_MAX;
    default:
      return INT64_MAX;
  }
}

std::optional<Dimension> known_dimension(const ValueInfo& in, std::size_t i) {
  if (in.value)
    return i < in.value->size() ? std::optional(Dimension(integer_at(*in.value, i))) : std::nullopt;
  if (!in.lower || !in.upper || i >= in.lower->size()) return std::nullopt;
  const std::int64_t lo = std::max<std::int64_t>(0, integer_at(*in.lower, i));
  const std::int64_t hi = integer_at(*in.upper, i);
  if (hi >= integer_type_max(in.type)) return Dimension(lo, Dimension::unbounded);
  if (hi < lo) return std::nullopt;
  return Dimension(lo, hi);
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

std::optional<Dimension> intersect(const Dimension& a, const Dimension& b) {
  const std::int64_t lo = std::max(a.min(), b.min());
  if (!a.has_upper_bound() && !b.has_upper_bound()) return Dimension(lo, Dimension::unbounded);
  const std::int64_t hi = !a.has_upper_bound()   ? b.max()
                          : !b.has_upper_bound() ? a.max()
                                                 : std::min(a.max(), b.max());
  if (hi < lo) return std::nullopt;
  return Dimension(lo, hi);
}

}  // namespace irlite
