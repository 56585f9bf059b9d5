#pragma once
// What Convolution-1, GroupConvolution-1 and their BackpropData versions share: the window
// attributes and their padding words, the element types, interval arithmetic on extents, and the
// checks of the data against the filters that come before each op's own shape rule.

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/attribute_visitor.hpp"
#include "core/saturating.hpp"
#include "graph/op.hpp"
#include "irlite/float16.hpp"

namespace irlite::conv {

enum class AutoPad { explicit_pads, valid, same_upper, same_lower };

// `notset` is an older name for explicit padding, which some IR writes.
inline constexpr std::string_view kAutoPadWords[] = {"explicit", "notset", "valid", "same_upper",
                                                     "same_lower"};
inline constexpr AutoPad kAutoPadValues[] = {AutoPad::explicit_pads, AutoPad::explicit_pads,
                                             AutoPad::valid, AutoPad::same_upper,
                                             AutoPad::same_lower};

inline bool all_positive(const Shape& values) {
  return std::all_of(values.begin(), values.end(), [](std::int64_t v) { return v > 0; });
}

/// The window attributes, read and printed from this one description. strides sets the number
/// of spatial axes; the pads are read in every mode but used only with explicit padding.
struct WindowAttributes {
  Shape strides, pads_begin, pads_end, dilations;
  AutoPad auto_pad = AutoPad::explicit_pads;

  void visit(AttributeVisitor& v) {
    v.on("strides", strides);
    v.require("strides", !strides.empty() && strides.size() <= 3,
              "expected 1 to 3 values, one per spatial axis");
    v.require("strides", all_positive(strides), "expected positive values");
    v.on("pads_begin", pads_begin);
    v.on("pads_end", pads_end);
    v.on("dilations", dilations);
    v.require("dilations", dilations.size() == strides.size(),
              "expected one value per spatial axis, as many as strides has");
    v.require("dilations", all_positive(dilations), "expected positive values");
    v.on("auto_pad", auto_pad, kAutoPadWords, kAutoPadValues, AutoPad::explicit_pads);
    const bool explicit_pads = auto_pad == AutoPad::explicit_pads;
    v.require("pads_begin", !explicit_pads || pads_begin.size() == strides.size(),
              "expected one value per spatial axis, as many as strides has");
    v.require("pads_end", !explicit_pads || pads_end.size() == strides.size(),
              "expected one value per spatial axis, as many as strides has");
  }
};

/// The element types the kernels run: f32, and f16 and bf16 summed in float.
template <class T>
inline constexpr bool has_kernel =
    std::is_same_v<T, float> || std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

inline std::vector<ElementType> conv_types() {
  return {ElementType::f32, ElementType::f16, ElementType::bf16};
}

/// a + b, saturating at the largest extent.
inline std::int64_t add(std::int64_t a, std::int64_t b) {
  return a > std::numeric_limits<std::int64_t>::max() - b ? std::numeric_limits<std::int64_t>::max()
                                                          : a + b;
}

/// a * b over intervals of non-negative extents.
inline Dimension multiply(const Dimension& a, const Dimension& b) {
  const bool bounded = a.has_upper_bound() && b.has_upper_bound();
  return Dimension(saturating_mul(a.min(), b.min()),
                   bounded ? saturating_mul(a.max(), b.max()) : Dimension::unbounded);
}

/// The checks every one of these shape rules starts with, where the ranks are known: the
/// filters of the data's type, the data of rank `spatial` + 2 (or a located word on which of
/// data and strides is off), the filters of rank `filters_rank` (laid out as `layout` says), and
/// no kernel axis of extent 0.
inline void check_inputs(const ValueInfo& data, const ValueInfo& filters, std::size_t spatial,
                         std::int64_t filters_rank, std::string_view layout) {
  if (filters.type != data.type)
    input_error(1, fmt::format("filters must have data's element type {}, got {}",
                               to_string(data.type), to_string(filters.type)));
  const auto rank = static_cast<std::int64_t>(spatial + 2);
  if (data.shape.rank_is_static() && data.shape.rank() != rank) {
    if (data.shape.rank() < 3 || data.shape.rank() > 5)
      input_error(0, fmt::format("data must have rank 3, 4 or 5 (N, C and 1 to 3 spatial axes), "
                                 "got {}",
                                 to_string(data.shape)));
    op_error(fmt::format("strides has {} values, but data {} has {} spatial axes", spatial,
                         to_string(data.shape), data.shape.rank() - 2));
  }
  if (!filters.shape.rank_is_static()) return;
  if (filters.shape.rank() != filters_rank)
    input_error(1, fmt::format("filters must have rank {} ({}) for {} spatial axes, got {}",
                               filters_rank, layout, spatial, to_string(filters.shape)));
  for (std::int64_t i = filters_rank - static_cast<std::int64_t>(spatial); i < filters_rank; ++i) {
    const Dimension& k = filters.shape[static_cast<std::size_t>(i)];
    if (k.has_upper_bound() && k.max() == 0)
      input_error(1,
                  fmt::format("filters {} have an empty kernel axis", to_string(filters.shape)));
  }
}

}  // namespace irlite::conv
