#pragma once
// Element types as C++ types for the command's own loops over tensor values (summaries,
// comparisons, JSON): a tag per type, the type values are computed in, and a dispatch.

#include <cstdint>
#include <type_traits>

#include "irlite/element_type.hpp"
#include "irlite/float16.hpp"

namespace irlite::cli {

template <class T>
struct type_tag {
  using type = T;
};

/// Whether T stores floating-point values: float, double and the 16-bit floats.
template <class T>
inline constexpr bool is_float_v =
    std::is_floating_point_v<T> || std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

/// The type values are compared and summed in: float for the 16-bit floats.
template <class T>
using compute_t = std::conditional_t<std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>,
                                     float, T>;

/// Calls f(type_tag<T>{}) with the C++ type of a numeric element type (every type but boolean)
/// and returns true; false for boolean and undefined.
template <class F>
bool dispatch_numeric(ElementType type, F&& f) {
  switch (type) {
    case ElementType::f16: f(type_tag<float16>{}); return true;
    case ElementType::bf16: f(type_tag<bfloat16>{}); return true;
    case ElementType::f32: f(type_tag<float>{}); return true;
    case ElementType::f64: f(type_tag<double>{}); return true;
    case ElementType::i8: f(type_tag<std::int8_t>{}); return true;
    case ElementType::i16: f(type_tag<std::int16_t>{}); return true;
    case ElementType::i32: f(type_tag<std::int32_t>{}); return true;
    case ElementType::i64: f(type_tag<std::int64_t>{}); return true;
    case ElementType::u8: f(type_tag<std::uint8_t>{}); return true;
    case ElementType::u16: f(type_tag<std::uint16_t>{}); return true;
    case ElementType::u32: f(type_tag<std::uint32_t>{}); return true;
    case ElementType::u64: f(type_tag<std::uint64_t>{}); return true;
    case ElementType::boolean:
    case ElementType::undefined: break;
  }
  return false;
}

/// dispatch_numeric, with booleans as their 0/1 bytes (std::uint8_t).
template <class F>
bool dispatch_all(ElementType type, F&& f) {
  if (type != ElementType::boolean) return dispatch_numeric(type, f);
  f(type_tag<std::uint8_t>{});
  return true;
}

}  // namespace irlite::cli
