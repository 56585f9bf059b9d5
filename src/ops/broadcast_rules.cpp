#include "ops/broadcast_rules.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/attribute_visitor.hpp"
#include "irlite/error.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {

void BroadcastSpec::visit(AttributeVisitor& v) {
  static constexpr std::string_view kWords[] = {"none", "explicit", "numpy", "pdpd"};
  static constexpr AutoBroadcast kTypes[] = {AutoBroadcast::none, AutoBroadcast::none,
                                             AutoBroadcast::numpy, AutoBroadcast::pdpd};
  v.on("auto_broadcast", type, kWords, kTypes, AutoBroadcast::numpy);
  if (type != AutoBroadcast::pdpd) return;
  v.on("axis", axis, -1);
  // OpenVINO refuses any other negative axis when it merges the shapes; here the layer's
  // attribute is wrong whatever the shapes, so it is refused as such.
  if (axis < -1)
    throw Error(
        ErrorCode::format,
        fmt::format("attribute 'axis' must be -1 or more with auto_broadcast=pdpd, got {}", axis));
}

std::string to_string(AutoBroadcast type) {
  switch (type) {
    case AutoBroadcast::none:
      return "none";
    case AutoBroadcast::numpy:
      return "numpy";
    case AutoBroadcast::pdpd:
      return "pdpd";
  }
  return "?";
}

namespace {

// Interval ends with `unbounded` read as +infinity.
std::int64_t upper_of(const Dimension& d) {
  return d.has_upper_bound() ? d.max() : INT64_MAX;
}

Dimension from_ends(std::int64_t lo, std::int64_t hi) {
  return Dimension(lo, hi == INT64_MAX ? Dimension::unbounded : hi);
}

}  // namespace

std::optional<Dimension> broadcast_merge(const Dimension& a, const Dimension& b) {
  const bool a1 = a.contains(1);
  const bool b1 = b.contains(1);
  if (a1 && b1) return from_ends(std::min(a.min(), b.min()), std::max(upper_of(a), upper_of(b)));
  if (a1) return b;
  if (b1) return a;
  return intersect(a, b);
}

std::optional<PartialShape> broadcast_shapes(const PartialShape& dst, const PartialShape& src,
                                             const BroadcastSpec& spec) {
  switch (spec.type) {
    case AutoBroadcast::none: {
      if (!dst.rank_is_static()) return src;
      if (!src.rank_is_static()) return dst;
      if (dst.rank() != src.rank()) return std::nullopt;
      std::vector<Dimension> dims;
      for (std::size_t i = 0; i < dst.dims().size(); ++i) {
        const std::optional<Dimension> d = intersect(dst[i], src[i]);
        if (!d) return std::nullopt;
        dims.push_back(*d);
      }
      return PartialShape(std::move(dims));
    }
    case AutoBroadcast::numpy: {
      if (!dst.rank_is_static() || !src.rank_is_static()) return PartialShape::dynamic_rank();
      const std::size_t rank = std::max(dst.dims().size(), src.dims().size());
      const std::size_t pad_dst = rank - dst.dims().size();
      const std::size_t pad_src = rank - src.dims().size();
      std::vector<Dimension> dims;
      for (std::size_t i = 0; i < rank; ++i) {
        const Dimension a = i < pad_dst ? Dimension(1) : dst[i - pad_dst];
        const Dimension b = i < pad_src ? Dimension(1) : src[i - pad_src];
        const std::optional<Dimension> d = broadcast_merge(a, b);
        if (!d) return std::nullopt;
        dims.push_back(*d);
      }
      return PartialShape(std::move(dims));
    }
    case AutoBroadcast::pdpd: {
      // The first shape is the output's; the second must fit into it from the axis on, each of
      // its dims 1 or compatible with the one it meets.
      if (!dst.rank_is_static() || !src.rank_is_static()) return dst;
      const std::int64_t dst_rank = dst.rank();
      const std::int64_t src_rank = src.rank();
      if (src_rank > dst_rank || spec.axis < -1) return std::nullopt;
      const std::int64_t axis = spec.axis == -1 ? dst_rank - src_rank : spec.axis;
      // Compared as a difference: the axis attribute may be as large as int64 allows.
      if (axis > dst_rank - src_rank) return std::nullopt;
      for (std::int64_t i = 0; i < src_rank; ++i) {
        const Dimension& s = src[static_cast<std::size_t>(i)];
        if (s == Dimension(1)) continue;
        if (!s.compatible(dst[static_cast<std::size_t>(axis + i)])) return std::nullopt;
      }
      return dst;
    }
  }
  return std::nullopt;
}

std::string broadcast_error(const PartialShape& a, const PartialShape& b,
                            const BroadcastSpec& spec) {
  std::string how = "auto_broadcast=" + to_string(spec.type);
  if (spec.type == AutoBroadcast::pdpd) how += fmt::format(", axis={}", spec.axis);
  return fmt::format("the shapes {} and {} cannot be broadcast together ({})", to_string(a),
                     to_string(b), how);
}

Shape align_shape(const Shape& in, std::size_t out_rank, const BroadcastSpec& spec) {
  if (in.size() >= out_rank) return in;
  Shape aligned(out_rank, 1);
  std::size_t start = out_rank - in.size();
  if (spec.type == AutoBroadcast::pdpd && spec.axis >= 0)
    start = static_cast<std::size_t>(spec.axis);
  std::copy(in.begin(), in.end(), aligned.begin() + static_cast<std::ptrdiff_t>(start));
  return aligned;
}

}  // namespace irlite
