#include "irlite/shape.hpp"

#include <cstdint>

#include "core/text.hpp"

namespace irlite {

std::optional<std::int64_t> element_count(const Shape& shape) {
  // A zero extent empties the tensor whatever the others are, so it is looked for before any
  // product could overflow: {0, 2^62, 2^62} and {2^62, 2^62, 0} both have no elements.
  bool empty = false;
  for (std::int64_t d : shape) {
    if (d < 0) return std::nullopt;
    empty = empty || d == 0;
  }
  if (empty) return 0;
  std::int64_t n = 1;
  for (std::int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n)) return std::nullopt;
  return n;
}

std::string to_string(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(shape[i]);
  }
  return s + ']';
}

bool Dimension::compatible(const Dimension& other) const {
  const bool below_max = other.max_ == unbounded || min_ <= other.max_;
  const bool above_min = max_ == unbounded || other.min_ <= max_;
  return below_max && above_min;
}

std::string to_string(const Dimension& dim) {
  if (dim.is_static()) return std::to_string(dim.min());
  if (dim.min() > 0 && dim.has_upper_bound())
    return std::to_string(dim.min()) + ".." + std::to_string(dim.max());
  if (dim.min() > 0) return std::to_string(dim.min()) + "..";
  if (dim.has_upper_bound()) return ".." + std::to_string(dim.max());
  return "?";
}

PartialShape PartialShape::from_shape(const Shape& shape) {
  std::vector<Dimension> dims;
  dims.reserve(shape.size());
  for (std::int64_t d : shape) dims.emplace_back(d);
  return PartialShape(std::move(dims));
}

PartialShape PartialShape::dynamic_rank() {
  PartialShape s;
  s.dynamic_rank_ = true;
  return s;
}

bool PartialShape::is_static() const {
  if (dynamic_rank_) return false;
  for (const auto& d : dims_)
    if (!d.is_static()) return false;
  return true;
}

Shape PartialShape::to_shape() const {
  Shape s;
  s.reserve(dims_.size());
  for (const auto& d : dims_) s.push_back(d.min());
  return s;
}

bool PartialShape::accepts(const Shape& shape) const {
  if (dynamic_rank_) return true;
  if (shape.size() != dims_.size()) return false;
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (!dims_[i].contains(shape[i])) return false;
  return true;
}

bool PartialShape::compatible(const PartialShape& other) const {
  if (dynamic_rank_ || other.dynamic_rank_) return true;
  if (dims_.size() != other.dims_.size()) return false;
  for (std::size_t i = 0; i < dims_.size(); ++i)
    if (!dims_[i].compatible(other.dims_[i])) return false;
  return true;
}

std::string to_string(const PartialShape& shape) {
  if (!shape.rank_is_static()) return "[...]";
  std::string s = "[";
  for (std::size_t i = 0; i < shape.dims().size(); ++i) {
    if (i) s += ',';
    s += to_string(shape[i]);
  }
  return s + ']';
}

namespace {

std::optional<std::int64_t> parse_bound(std::string_view s) {
  const auto v = parse_uint64(s);
  if (!v || *v > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  return static_cast<std::int64_t>(*v);
}

std::optional<Dimension> parse_dimension(std::string_view s, std::string* why) {
  s = trim_blanks(s);
  auto fail = [&](std::string reason) -> std::optional<Dimension> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  if (s == "?" || s == "-1") return Dimension::dynamic();
  if (s.empty()) return fail("empty dimension");
  const auto dots = s.find("..");
  if (dots == std::string_view::npos) {
    auto v = parse_bound(s);
    if (!v) return fail("cannot parse dimension '" + std::string(s) + "'");
    return Dimension(*v);
  }
  const auto lo_text = s.substr(0, dots);
  const auto hi_text = s.substr(dots + 2);
  std::int64_t lo = 0;
  std::int64_t hi = Dimension::unbounded;
  if (!lo_text.empty()) {
    auto v = parse_bound(lo_text);
    if (!v) return fail("cannot parse min bound of '" + std::string(s) + "'");
    lo = *v;
  }
  if (!hi_text.empty()) {
    auto v = parse_bound(hi_text);
    if (!v) return fail("cannot parse max bound of '" + std::string(s) + "'");
    hi = *v;
  }
  if (hi != Dimension::unbounded && hi < lo)
    return fail("empty interval '" + std::string(s) + "'");
  return Dimension(lo, hi);
}

}  // namespace

std::optional<PartialShape> parse_partial_shape(std::string_view text, std::string* why) {
  text = trim_blanks(text);
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']')
    text = trim_blanks(text.substr(1, text.size() - 2));
  if (text == "...") return PartialShape::dynamic_rank();
  if (text.empty()) return PartialShape();
  std::vector<Dimension> dims;
  std::size_t start = 0;
  while (true) {
    const auto comma = text.find(',', start);
    const auto field = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
    auto dim = parse_dimension(field, why);
    if (!dim) return std::nullopt;
    dims.push_back(*dim);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return PartialShape(std::move(dims));
}

}  // namespace irlite
