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

inline std::uint16_t float16::from_float(float value) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(value);
  const std::uint16_t sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
  const std::uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return sign | 0x7e00u;  // NaN: quiet, keep the sign
  if (abs >= 0x477ff000u) return sign | 0x7c00u;  // rounds to >= 65520: infinity
  if (abs < 0x38800000u) {
    // Subnormal half (or zero): the value in units of 2^-24, rounded to nearest even.
    if (abs < 0x33000000u) return sign;  // below half the smallest subnormal
    const std::uint32_t exp = abs >> 23;
    const std::uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const std::uint32_t shift = 126 - exp;  // 14 + (127 - 1 - exp) ... aligns to 2^-24
    std::uint32_t half = mant >> shift;
    const std::uint32_t rem = mant & ((1u << shift) - 1);
    const std::uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half & 1u))) ++half;
    return sign | static_cast<std::uint16_t>(half);
  }
  // Normal: rebias the exponent and round the 13 dropped mantissa bits to nearest even.
  std::uint32_t h = ((abs - 0x38000000u) >> 13);
  const std::uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // may carry into the exponent: fine
  return sign | static_cast<std::uint16_t>(h);
}

inline float float16::to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t{h & 0x8000u} << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t mant = h & 0x3ffu;
  std::uint32_t u;
  if (exp == 0x1f) {
    u = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    u = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    u = sign;
  } else {
    // Subnormal: normalise.
    std::uint32_t e = 113;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --e;
    }
    u = sign | (e << 23) | ((mant & 0x3ffu) << 13);
  }
  return std::bit_cast<float>(u);
}

}  // namespace irlite
