#pragma once
// Element types of tensors, as OpenVINO IR names them.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace irlite {

/// The element type of a tensor. `undefined` marks a type not known yet (a layer whose
/// shape inference failed).
enum class ElementType : std::uint8_t {
  undefined,
  boolean,
  f16,
  bf16,
  f32,
  f64,
  i8,
  i16,
  i32,
  i64,
  u8,
  u16,
  u32,
  u64,
};

/// The IR attribute spelling: "f32", "i64", "boolean"...
std::string_view to_string(ElementType type);
/// The IR port precision spelling: "FP32", "I64", "BOOL"...
std::string_view precision_name(ElementType type);
/// Parses either spelling ("f32" or "FP32"); nullopt for anything else.
std::optional<ElementType> parse_element_type(std::string_view text);
/// Bytes per element (boolean takes one byte); 0 for undefined.
std::size_t element_size(ElementType type);
/// f16, bf16, f32, f64.
bool is_real(ElementType type);
/// i8..i64, u8..u64 (not boolean).
bool is_integral(ElementType type);
/// is_real or is_integral: the types the numeric ops accept.
bool is_numeric(ElementType type);
/// i8..i64.
bool is_signed_integral(ElementType type);

}  // namespace irlite
