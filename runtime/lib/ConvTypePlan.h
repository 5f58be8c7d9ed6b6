//===- ConvTypePlan.h - which types ampGpuConv2d asks cuDNN for -*- C++ -*-===//
//
// Part of amp-mlir. The type decision of the cuDNN convolution, as a pure
// function (no CUDA types) so that it is unit-tested without a GPU
// (runtime/unittests/ConvTypePlanTest.cpp).
//
// cuDNN's legacy API runs a convolution on x, w and y of one data type
// (TRUE/PSEUDO_HALF, PSEUDO_BFLOAT16 or FLOAT configurations); it has no
// configuration that reads f16/bf16 and writes f32. An f32 output must never
// be rounded through a 16-bit intermediate (f16 overflows above 65504, bf16
// keeps 8 significant bits), so for f16/bf16 x and w with an f32 y the plan
// widens x and w (exactly) into f32 scratch buffers and runs an f32
// convolution that writes y directly, with beta applied by cuDNN in f32.
//
// Because every f16 and bf16 value is exactly representable in TF32 (10 and
// 7 explicit mantissa bits, TF32 has 10 and the f32 exponent range), the
// widened convolution may use TF32 tensor cores without losing anything on
// its inputs: the products of two such values are exact in f32 and the
// accumulation is f32. Plain f32 inputs keep preferring FMA kernels (TF32
// would round them).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_LIB_CONVTYPEPLAN_H
#define AMP_RUNTIME_LIB_CONVTYPEPLAN_H

#include "amp/runtime/AmpRuntime.h"

#include <cstdint>

namespace amp {
namespace rt {

struct ConvTypePlan {
  /// The AmpDType of every cuDNN descriptor (x, w, y, and the NHWC filter
  /// transform): cuDNN computes and writes in this type.
  int32_t computeType = AMP_DTYPE_F32;
  /// x / wt are widened to f32 into scratch buffers before the convolution.
  bool widenX = false;
  bool widenW = false;
  /// cuDNN writes y itself (true for every valid combination): no 16-bit
  /// intermediate output, beta is applied by cuDNN.
  bool writesYDirectly = true;
  /// Prefer results with CUDNN_FMA_MATH (true fp32, no TF32 rounding of the
  /// inputs). False when TF32 tensor cores are exact on the inputs.
  bool preferFma = true;
};

/// For a combination accepted by validateConv (xType == wType; yType f32 or
/// xType).
inline ConvTypePlan planConvTypes(int32_t xType, int32_t wType,
                                  int32_t yType) {
  ConvTypePlan plan;
  if (yType == AMP_DTYPE_F32) {
    plan.computeType = AMP_DTYPE_F32;
    plan.widenX = xType != AMP_DTYPE_F32;
    plan.widenW = wType != AMP_DTYPE_F32;
    // f32 data only from f16/bf16 sources: TF32 tensor cores are exact.
    plan.preferFma = !plan.widenX && !plan.widenW;
  } else {
    // Same 16-bit type everywhere: cuDNN accumulates in f32 (pseudo-half /
    // pseudo-bf16 configuration, f32 convolution descriptor) and rounds once
    // to the output type, exactly what the output type asks for.
    plan.computeType = xType;
    plan.preferFma = false;
  }
  plan.writesYDirectly = true;
  return plan;
}

} // namespace rt
} // namespace amp

#endif // AMP_RUNTIME_LIB_CONVTYPEPLAN_H
