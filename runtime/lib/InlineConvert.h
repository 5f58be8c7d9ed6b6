//===- InlineConvert.h - inline f32 <-> f16/bf16 conversions ----*- C++ -*-===//
//
// Part of amp-mlir. Float/bit-pattern casts and branch-free, inlinable
// f32 <-> f16/bf16 conversions for the CPU kernels (CheckFinite.cpp,
// Optimizers.cpp). They give the same bits as the exported ampF32ToF16,
// ampF16ToF32, ampF32ToBF16 and ampBF16ToF32 (Convert.cpp) for every input,
// NaNs included, but contain no calls and no data-dependent branches, so
// that the loops using them vectorise.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_LIB_INLINECONVERT_H
#define AMP_RUNTIME_LIB_INLINECONVERT_H

#include <cstdint>
#include <cstring>

namespace amp {
namespace rt {

inline uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

inline float bitsFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

// The conversions below compute every candidate result and pick one with
// masks instead of `?:`: a conditional around a floating-point operation
// would stay a branch (the compiler may not speculate an operation that can
// trap under -ftrapping-math), which keeps the loops from vectorising.

/// All ones if `cond`, else 0.
inline uint32_t maskIf(bool cond) { return 0u - static_cast<uint32_t>(cond); }

/// `mask ? a : b` for a mask from maskIf.
inline uint32_t select(uint32_t mask, uint32_t a, uint32_t b) {
  return (a & mask) | (b & ~mask);
}

/// Exact binary16 -> binary32 (ampF16ToF32).
inline float f16ToF32(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t abs = h & 0x7fffu;
  uint32_t mantissa = h & 0x3ffu;
  // Normal: rebias 15 -> 127. Inf/NaN: exponent all ones, payload kept.
  uint32_t normal = (abs << 13) + 0x38000000u;
  uint32_t special = 0x7f800000u | (mantissa << 13);
  // Zero/subnormal: mantissa * 2^-24 is exact.
  uint32_t tiny =
      floatBits(static_cast<float>(static_cast<int32_t>(mantissa)) * 0x1p-24f);
  uint32_t bits = select(maskIf(abs >= 0x7c00u), special,
                         select(maskIf(abs >= 0x0400u), normal, tiny));
  return bitsFloat(sign | bits);
}

/// binary32 -> binary16, round to nearest even; NaN becomes a quiet NaN with
/// the top payload bits kept, overflow gives Inf, subnormals are rounded
/// exactly (ampF32ToF16).
inline uint16_t f32ToF16(float value) {
  uint32_t bits = floatBits(value);
  uint32_t sign = (bits >> 16) & 0x8000u;
  uint32_t abs = bits & 0x7fffffffu;
  uint32_t nan = 0x7e00u | ((abs >> 13) & 0x3ffu);
  // Normal results: rebias 127 -> 15 and round on the 13 dropped bits; a
  // carry correctly bumps the exponent, up to Inf (0x7c00) from 65520 on.
  uint32_t normal = (abs - 0x38000000u + 0x0fffu + ((abs >> 13) & 1u)) >> 13;
  // Below 2^-14 the result is subnormal or zero: adding 0.5 aligns the
  // result's units (2^-24) with the float's last mantissa bit, so the FPU
  // does the round to nearest even (0x400, the smallest normal, is correctly
  // reached by rounding up). The operand is clamped to 2^-14 so that larger
  // values (whose `tiny` is not selected) never feed the FPU a NaN.
  uint32_t small = select(maskIf(abs < 0x38800000u), abs, 0x38800000u);
  uint32_t tiny = floatBits(bitsFloat(small) + 0.5f) - 0x3f000000u;
  uint32_t result =
      select(maskIf(abs > 0x7f800000u), nan,
             select(maskIf(abs >= 0x477ff000u), 0x7c00u,
                    select(maskIf(abs >= 0x38800000u), normal, tiny)));
  return static_cast<uint16_t>(sign | result);
}

/// binary32 -> bfloat16, round to nearest even; NaN stays a quiet NaN, values
/// above the largest bf16 round to Inf (ampF32ToBF16).
inline uint16_t f32ToBF16(float value) {
  uint32_t bits = floatBits(value);
  uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  uint32_t nan = (bits >> 16) | 0x0040u;
  return static_cast<uint16_t>(
      select(maskIf((bits & 0x7fffffffu) > 0x7f800000u), nan, rounded));
}

/// Exact bfloat16 -> binary32 (ampBF16ToF32).
inline float bf16ToF32(uint16_t h) {
  return bitsFloat(static_cast<uint32_t>(h) << 16);
}

} // namespace rt
} // namespace amp

#endif // AMP_RUNTIME_LIB_INLINECONVERT_H
