#pragma once
// Mapping element types to C++ storage types, and where a kernel's element type is switched on
// (once per call, never per element): dispatch_numeric() is the public one
// (irlite/element_dispatch.hpp), the others are below.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "irlite/element_dispatch.hpp"  // type_tag, dispatch_numeric
#include "irlite/element_type.hpp"
#include "irlite/float16.hpp"

namespace irlite {

/// The C++ storage type of a numeric element type.
template <ElementType E>
struct storage;
template <> struct storage<ElementType::f16> { using type = float16; };
template <> struct storage<ElementType::bf16> { using type = bfloat16; };
template <> struct storage<ElementType::f32> { using type = float; };
template <> struct storage<ElementType::f64> { using type = double; };
template <> struct storage<ElementType::i8> { using type = std::int8_t; };
template <> struct storage<ElementType::i16> { using type = std::int16_t; };
template <> struct storage<ElementType::i32> { using type = std::int32_t; };
template <> struct storage<ElementType::i64> { using type = std::int64_t; };
template <> struct storage<ElementType::u8> { using type = std::uint8_t; };
template <> struct storage<ElementType::u16> { using type = std::uint16_t; };
template <> struct storage<ElementType::u32> { using type = std::uint32_t; };
template <> struct storage<ElementType::u64> { using type = std::uint64_t; };
template <> struct storage<ElementType::boolean> { using type = std::uint8_t; };

/// The type arithmetic is done in: float for the 16-bit floats, the type itself otherwise.
template <class T>
using compute_t =
    std::conditional_t<std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>, float, T>;

template <class T>
inline constexpr bool is_float_storage_v =
    std::is_floating_point_v<T> || std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

namespace element_detail {
template <class T, bool = std::is_integral_v<T>>
struct wrap {
  using type = compute_t<T>;
};
template <class T>
struct wrap<T, true> {
  using type = std::make_unsigned_t<T>;
};
template <class T, bool = std::is_integral_v<T>>
struct wrap_wide {
  using type = compute_t<T>;
};
template <class T>
struct wrap_wide<T, true> {
  using type = std::make_unsigned_t<std::conditional_t<(sizeof(T) < sizeof(int)), int, T>>;
};
}  // namespace element_detail

/// The type arithmetic on T is done in so that integers wrap as T's two's complement does
/// (signed overflow would be undefined): for an integer, the unsigned type of its width, which
/// also fits a SIMD lane of T; compute_t<T> for the others.
template <class T>
using wrap_t = typename element_detail::wrap<T>::type;

/// wrap_t for scalar arithmetic: for an integer, an unsigned type at least as wide as int, so
/// that the usual promotions never take an 8- or 16-bit operand back to a signed int.
template <class T>
using wrap_wide_t = typename element_detail::wrap_wide<T>::type;

/// The lowest finite value of a storage type (f16: -65504, bf16: -3.38953e38).
template <class T>
T lowest_value() {
  if constexpr (std::is_same_v<T, float16>) {
    return float16::from_bits(0xfbff);
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return bfloat16::from_bits(0xff7f);
  } else {
    return std::numeric_limits<T>::lowest();
  }
}

/// Calls f(type_tag<T>{}) for an index type: i32 or i64. Returns false for others.
template <class F>
bool dispatch_index(ElementType type, F&& f) {
  switch (type) {
    case ElementType::i32: f(type_tag<std::int32_t>{}); return true;
    case ElementType::i64: f(type_tag<std::int64_t>{}); return true;
    default: return false;
  }
}

/// Calls f(type_tag<W>{}) with W the unsigned integer of `bytes` bytes (1, 2, 4 or 8): for
/// kernels that move elements without looking at them. Returns false for other sizes.
template <class F>
bool dispatch_word(std::size_t bytes, F&& f) {
  switch (bytes) {
    case 1: f(type_tag<std::uint8_t>{}); return true;
    case 2: f(type_tag<std::uint16_t>{}); return true;
    case 4: f(type_tag<std::uint32_t>{}); return true;
    case 8: f(type_tag<std::uint64_t>{}); return true;
    default: return false;
  }
}

/// dispatch_word() for an element of `type`, whatever its type (booleans and 16-bit floats
/// included).
template <class F>
bool dispatch_word(ElementType type, F&& f) {
  return dispatch_word(element_size(type), std::forward<F>(f));
}

}  // namespace irlite
