// The 16-bit float formats' conversions, used wherever texc stores or rounds an f16 or bf16 value on
// the host (tensors, npy files, both interpreters).
// f16 (IEEE 754 half precision): float_to_half rounds to nearest, ties to even, and keeps
// infinities, NaNs and subnormals; half_to_float is exact.
// bf16 (bfloat16: the upper 16 bits of an f32): float_to_bfloat rounds to nearest, ties to even
// (overflowing to infinity), keeps infinities and subnormals, and turns a NaN into a quiet NaN of
// the same sign (never an infinity); bfloat_to_float is exact.
#pragma once
#include <bit>
#include <cstdint>

namespace texc {

inline float half_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f;
  uint32_t mantissa = h & 0x3ff;
  uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    int shift = 0;
    while ((mantissa & 0x400) == 0) {
      mantissa <<= 1;
      ++shift;
    }
    mantissa &= 0x3ff;
    bits = sign | (uint32_t(113 - shift) << 23) | (mantissa << 13);
  }
  return std::bit_cast<float>(bits);
}

inline uint16_t float_to_half(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  uint16_t sign = uint16_t((bits >> 16) & 0x8000);
  uint32_t exponent = (bits >> 23) & 0xff;
  uint32_t mantissa = bits & 0x7fffff;
  if (exponent == 0xff) return uint16_t(sign | 0x7c00 | (mantissa ? 0x200 : 0));  // inf or NaN
  int e = int(exponent) - 127 + 15;
  if (e >= 0x1f) return uint16_t(sign | 0x7c00);  // overflow to infinity
  if (e <= 0) {                                    // subnormal half or zero
    if (e < -10) return sign;
    mantissa |= 0x800000;
    int shift = 14 - e;
    uint32_t half_mantissa = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half_mantissa & 1))) ++half_mantissa;
    return uint16_t(sign | half_mantissa);
  }
  uint32_t half = (uint32_t(e) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;  // may carry into the exponent: correct
  return uint16_t(sign | half);
}

/// x rounded to the nearest f16 value (as a double).
inline double round_to_half(double x) { return double(half_to_float(float_to_half(float(x)))); }

inline float bfloat_to_float(uint16_t b) { return std::bit_cast<float>(uint32_t(b) << 16); }

inline uint16_t float_to_bfloat(float f) {
  uint32_t bits = std::bit_cast<uint32_t>(f);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return uint16_t((bits >> 16) | 0x40);  // NaN: quiet, sign kept
  uint32_t kept_lsb = (bits >> 16) & 1;
  bits += 0x7fffu + kept_lsb;  // ties to even; a carry into the exponent is correct (up to infinity)
  return uint16_t(bits >> 16);
}

/// x rounded to the nearest bf16 value (as a double).
inline double round_to_bfloat(double x) { return double(bfloat_to_float(float_to_bfloat(float(x)))); }

}  // namespace texc
