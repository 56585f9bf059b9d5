#pragma once
// 16-bit floating-point storage types: IEEE half (f16) and bfloat16 (bf16).
// Arithmetic goes through float; conversions from float round to nearest, ties to even.

#include <bit>
#include <cstdint>

namespace irlite {

/// IEEE 754 binary16, stored as its bit pattern.
struct float16 {
  std::uint16_t bits = 0;

  float16() = default;
  /// Rounds to nearest, ties to even; overflow gives infinity, NaN stays NaN.
  explicit float16(float value) : bits(from_float(value)) {}
  static float16 from_bits(std::uint16_t b) {
    float16 h;
    h.bits = b;
    return h;
  }
  operator float() const { return to_float(bits); }

  static std::uint16_t from_float(float value);
  static float to_float(std::uint16_t bits);
};

/// bfloat16: the upper half of an IEEE binary32, stored as its bit pattern.
struct bfloat16 {
  std::uint16_t bits = 0;

  bfloat16() = default;
  /// Rounds to nearest, ties to even; NaN stays NaN.
  explicit bfloat16(float value) : bits(from_float(value)) {}
  static bfloat16 from_bits(std::uint16_t b) {
    bfloat16 h;
    h.bits = b;
    return h;
  }
  operator float() const { return std::bit_cast<float>(std::uint32_t{bits} << 16); }

  static std::uint16_t from_float(float value) {
    const std::uint32_t u = std::bit_cast<std::uint32_t>(value);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40);  // quiet NaN
    const std::uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);
    return static_cast<std::uint16_t>((u + rounding) >> 16);
  }
};

}  // namespace irlite
