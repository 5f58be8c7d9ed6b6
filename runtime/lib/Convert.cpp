//===- Convert.cpp - exact f32 <-> f16/bf16 conversions -------------------===//
//
// Part of amp-mlir. Bit-exact IEEE conversions on the CPU: round to nearest,
// ties to even; NaN stays NaN (quietened, payload kept where it fits);
// overflow gives +-Inf; f16 subnormals are produced and read exactly.
//
//===----------------------------------------------------------------------===//

#include "InlineConvert.h"

#include "amp/runtime/AmpRuntime.h"

using amp::rt::bitsFloat;
using amp::rt::floatBits;

namespace {
/// Shifts `value` right by `shift` (1..31) rounding to nearest even.
uint32_t shiftRightRne(uint32_t value, unsigned shift) {
  uint32_t result = value >> shift;
  uint32_t rest = value & ((1u << shift) - 1u);
  uint32_t half = 1u << (shift - 1);
  if (rest > half || (rest == half && (result & 1u)))
    ++result;
  return result;
}
} // namespace

extern "C" {

uint16_t ampF32ToF16(float value) {
  uint32_t bits = floatBits(value);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t abs = bits & 0x7fffffffu;

  if (abs > 0x7f800000u) // NaN: quiet it, keep the top payload bits.
    return static_cast<uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));
  // 65520 = 0x477ff000 is the midpoint between 65504 (max f16, odd
  // mantissa) and 2^16: it and everything above (Inf included) give Inf.
  if (abs >= 0x477ff000u)
    return static_cast<uint16_t>(sign | 0x7c00u);
  if (abs >= 0x38800000u) { // Normal f16 (>= 2^-14): rebias 127 -> 15.
    uint32_t rebased = abs - 0x38000000u;
    // A carry out of the mantissa correctly bumps the exponent.
    return static_cast<uint16_t>(sign | shiftRightRne(rebased, 13));
  }
  // f16 subnormal or zero: units of 2^-24. 2^-25 (0x33000000) is a tie
  // between 0 and 2^-24 and rounds to even (0).
  if (abs <= 0x33000000u)
    return sign;
  uint32_t exponent = abs >> 23;                     // 102..112
  uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u; // value = m * 2^(e-150)
  unsigned shift = 126u - exponent;                  // 14..24
  return static_cast<uint16_t>(sign | shiftRightRne(mantissa, shift));
}

float ampF16ToF32(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0x1f) // Inf / NaN (payload kept, quiet bit kept as is).
    return bitsFloat(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24 is exact in binary32.
    float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  return bitsFloat(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

uint16_t ampF32ToBF16(float value) {
  uint32_t bits = floatBits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN: keep it a quiet NaN.
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  // Round to nearest even on the upper 16 bits; values above the largest
  // bf16 round to Inf through the carry.
  uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

float ampBF16ToF32(uint16_t bits) {
  return bitsFloat(static_cast<uint32_t>(bits) << 16);
}

float ampF8E4M3FNToF32(uint8_t bits) {
  uint32_t sign = (bits & 0x80u) << 24;
  uint32_t exponent = (bits >> 3) & 0xfu, mantissa = bits & 0x7u;
  if (exponent == 0xfu && mantissa == 0x7u) // The only NaN (no infinities).
    return bitsFloat(sign | 0x7fc00000u);
  if (exponent == 0) { // Zero or subnormal: mantissa * 2^-9.
    float magnitude = static_cast<float>(mantissa) * 0x1p-9f;
    return sign ? -magnitude : magnitude;
  }
  // Bias 7 -> 127.
  return bitsFloat(sign | ((exponent + 120u) << 23) | (mantissa << 20));
}

float ampF8E5M2ToF32(uint8_t bits) {
  uint32_t sign = (bits & 0x80u) << 24;
  uint32_t exponent = (bits >> 2) & 0x1fu, mantissa = bits & 0x3u;
  if (exponent == 0x1fu) // Inf / NaN, as binary16's.
    return bitsFloat(sign | 0x7f800000u | (mantissa << 21));
  if (exponent == 0) { // Zero or subnormal: mantissa * 2^-16.
    float magnitude = static_cast<float>(mantissa) * 0x1p-16f;
    return sign ? -magnitude : magnitude;
  }
  // Bias 15 -> 127.
  return bitsFloat(sign | ((exponent + 112u) << 23) | (mantissa << 21));
}

void ampConvertF32ToF16(const float *src, uint16_t *dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    dst[i] = ampF32ToF16(src[i]);
}

void ampConvertF16ToF32(const uint16_t *src, float *dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    dst[i] = ampF16ToF32(src[i]);
}

void ampConvertF32ToBF16(const float *src, uint16_t *dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    dst[i] = ampF32ToBF16(src[i]);
}

void ampConvertBF16ToF32(const uint16_t *src, float *dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    dst[i] = ampBF16ToF32(src[i]);
}

} // extern "C"
