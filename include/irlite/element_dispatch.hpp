#pragma once
// The C++ type of each numeric element type, for code that loops over a tensor's values: one
// switch on the type, then the loop written once as a generic lambda.
//
//   double sum = 0;
//   irlite::dispatch_numeric(tensor.element_type(), [&](auto tag) {
//     using T = typename decltype(tag)::type;  // float, std::int32_t, irlite::float16...
//     for (const T v : tensor.values<T>()) sum += static_cast<double>(v);
//   });

#include <cstdint>

#include "irlite/element_type.hpp"
#include "irlite/float16.hpp"

namespace irlite {

/// A type passed as a value: `typename decltype(tag)::type` names it.
template <class T>
struct type_tag {
  using type = T;
};

/// Calls f(type_tag<T>{}) with T the C++ type a numeric element type's values are stored as
/// (float16, bfloat16, float, double, std::int8_t to std::int64_t, std::uint8_t to
/// std::uint64_t) and returns true. Returns false without calling f for boolean and undefined.
template <class F>
bool dispatch_numeric(ElementType type, F&& f) {
  switch (type) {
    case ElementType::f16:
      f(type_tag<float16>{});
      return true;
    case ElementType::bf16:
      f(type_tag<bfloat16>{});
      return true;
    case ElementType::f32:
      f(type_tag<float>{});
      return true;
    case ElementType::f64:
      f(type_tag<double>{});
      return true;
    case ElementType::i8:
      f(type_tag<std::int8_t>{});
      return true;
    case ElementType::i16:
      f(type_tag<std::int16_t>{});
      return true;
    case ElementType::i32:
      f(type_tag<std::int32_t>{});
      return true;
    case ElementType::i64:
      f(type_tag<std::int64_t>{});
      return true;
    case ElementType::u8:
      f(type_tag<std::uint8_t>{});
      return true;
    case ElementType::u16:
      f(type_tag<std::uint16_t>{});
      return true;
    case ElementType::u32:
      f(type_tag<std::uint32_t>{});
      return true;
    case ElementType::u64:
      f(type_tag<std::uint64_t>{});
      return true;
    case ElementType::boolean:
    case ElementType::undefined:
      break;
  }
  return false;
}

/// dispatch_numeric() for the floating-point types (f16, bf16, f32, f64) alone: false without
/// calling f for the others, and f is instantiated for those four types only.
template <class F>
bool dispatch_float(ElementType type, F&& f) {
  switch (type) {
    case ElementType::f16:
      f(type_tag<float16>{});
      return true;
    case ElementType::bf16:
      f(type_tag<bfloat16>{});
      return true;
    case ElementType::f32:
      f(type_tag<float>{});
      return true;
    case ElementType::f64:
      f(type_tag<double>{});
      return true;
    default:
      return false;
  }
}

}  // namespace irlite
