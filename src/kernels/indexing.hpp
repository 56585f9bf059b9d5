#pragma once
// Helpers shared by the data-movement kernels (Gather, StridedSlice, Slice): they copy elements
// as unsigned words of the element's size, whatever the element type (booleans and 16-bit
// floats included), and read index tensors of any integer type.

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "irlite/element_type.hpp"
#include "kernels/element.hpp"
#include "kernels/simd.hpp"

namespace irlite {

/// Calls f(type_tag<I>{}) with I the storage type of an integer `type` (i8..u64). Returns false
/// for other types.
template <class F>
bool dispatch_integral(ElementType type, F&& f) {
  if (!is_integral(type)) return false;
  return dispatch_numeric(type, [&](auto tag) {
    using I = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<I>) f(tag);
  });
}

/// An index into an axis of `n` elements, negative ones counting from the end: its position in
/// [0, n), or -1 when it lies outside [-n, n). Unsigned indices are never negative, and those
/// beyond INT64_MAX are out of range however long the axis.
template <class I>
IRLITE_INLINE std::int64_t wrap_index(I index, std::int64_t n) {
  if constexpr (std::is_signed_v<I>) {
    std::int64_t i = index;
    if (i < 0) i += n;
    return i >= 0 && i < n ? i : -1;
  } else {
    const auto i = static_cast<std::uint64_t>(index);
    return i < static_cast<std::uint64_t>(n) ? static_cast<std::int64_t>(i) : -1;
  }
}

}  // namespace irlite
