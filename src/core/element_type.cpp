#include "irlite/element_type.hpp"

#include <array>

#include "core/ir_element_types.hpp"

namespace irlite {
namespace {

struct TypeNames {
  ElementType type;
  std::string_view name;
  std::string_view precision;
  std::size_t size;
};

constexpr std::array<TypeNames, 14> kTypes{{
    {ElementType::undefined, "undefined", "UNSPECIFIED", 0},
    {ElementType::boolean, "boolean", "BOOL", 1},
    {ElementType::f16, "f16", "FP16", 2},
    {ElementType::bf16, "bf16", "BF16", 2},
    {ElementType::f32, "f32", "FP32", 4},
    {ElementType::f64, "f64", "FP64", 8},
    {ElementType::i8, "i8", "I8", 1},
    {ElementType::i16, "i16", "I16", 2},
    {ElementType::i32, "i32", "I32", 4},
    {ElementType::i64, "i64", "I64", 8},
    {ElementType::u8, "u8", "U8", 1},
    {ElementType::u16, "u16", "U16", 2},
    {ElementType::u32, "u32", "U32", 4},
    {ElementType::u64, "u64", "U64", 8},
}};

const TypeNames& entry(ElementType type) {
  for (const auto& t : kTypes)
    if (t.type == type) return t;
  return kTypes[0];
}

}  // namespace

std::string_view to_string(ElementType type) { return entry(type).name; }
std::string_view precision_name(ElementType type) { return entry(type).precision; }
std::size_t element_size(ElementType type) { return entry(type).size; }

std::optional<ElementType> parse_element_type(std::string_view text) {
  // Both spellings are accepted in either place, with their exact case (as OpenVINO does);
  // `undefined`/`dynamic` are not types a tensor can have here.
  for (const auto& t : kTypes) {
    if (t.type == ElementType::undefined) continue;
    if (text == t.name || text == t.precision) return t.type;
  }
  return std::nullopt;
}

bool is_unsupported_element_type(std::string_view text) {
  // OpenVINO's element types beyond kTypes, in its two spellings; BIN is IR v10's name for u1.
  static constexpr std::string_view kNames[][2] = {
      {"dynamic", "UNSPECIFIED"}, {"undefined", "UNSPECIFIED"},
      {"u1", "U1"}, {"u1", "BIN"}, {"u2", "U2"}, {"u3", "U3"}, {"u4", "U4"}, {"u6", "U6"},
      {"i4", "I4"}, {"nf4", "NF4"},
      {"f4e2m1", "F4E2M1"}, {"f8e4m3", "F8E4M3"}, {"f8e5m2", "F8E5M2"}, {"f8e8m0", "F8E8M0"},
      {"string", "STRING"}};
  for (const auto& names : kNames)
    if (text == names[0] || text == names[1]) return true;
  return false;
}

bool is_real(ElementType type) {
  return type == ElementType::f16 || type == ElementType::bf16 || type == ElementType::f32 ||
         type == ElementType::f64;
}

bool is_signed_integral(ElementType type) {
  return type == ElementType::i8 || type == ElementType::i16 || type == ElementType::i32 ||
         type == ElementType::i64;
}

bool is_integral(ElementType type) {
  return is_signed_integral(type) || type == ElementType::u8 || type == ElementType::u16 ||
         type == ElementType::u32 || type == ElementType::u64;
}

bool is_numeric(ElementType type) { return is_real(type) || is_integral(type); }

}  // namespace irlite
