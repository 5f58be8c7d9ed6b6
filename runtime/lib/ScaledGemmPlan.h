//===- ScaledGemmPlan.h - ampGpuScaledGemm's cuBLASLt plan ------*- C++ -*-===//
//
// Part of amp-mlir. The decision of the FP8 GEMM on the GPU (lib/CublasLt.cpp)
// and in the GPU simulator (sim/SimLibraries.cpp): which cuBLASLt matmul it
// describes, and what the runtime's own kernel does around it, as pure
// functions (no CUDA types) so that they are unit-tested without a GPU
// (runtime/unittests/ScaledGemmPlanTest.cpp), plus cuBLASLt's rules on that
// description, which both backends check before the matmul: the GPU so that a
// refusal names the rule instead of a bare cublasStatus_t, the simulator so
// that a call a GPU refuses also fails in CI.
//
// The rule that shapes the plan: cuBLASLt computes the D amax
// (CUBLASLT_MATMUL_DESC_AMAX_D_POINTER) only when D is FP8. With FP8 inputs
// and an f32, bf16 or f16 D, setting it makes cublasLtMatmulAlgoGetHeuristic
// (and cublasLtMatmul) return CUBLAS_STATUS_INVALID_VALUE (cublasLt.h: "If
// set for an unsupported matrix data, scale, and compute type combination,
// calling cublasLtMatmul() will return CUBLAS_INVALID_VALUE"; the cuBLAS team
// via PyTorch #122821: "amax computation is unsupported for non-fp8 outputs
// when the inputs are in fp8"). An H200 with CUDA 13's cuBLASLt refused a
// call that set it for a bf16 D with that status, from the heuristic (the
// GPU kit of d63d663, its contract test ScaledFloat8GemmScalesAndWritesBf16).
// ampGpuScaledGemm's D is never FP8, so the amax is the runtime's own pass
// (cuda/LossScalingKernels.h, matrixPass) over the f32 values of D:
//
//  * an f32 D: cuBLASLt writes C, then the pass reads it (the stored values
//    are the f32 values);
//  * a bf16 or f16 D with an amax: cuBLASLt writes an f32 scratch matrix
//    (C widened into it first when beta != 0), then the pass takes the amax
//    of those f32 values and rounds them into C (round to nearest even, as
//    cuBLASLt would): the amax stays the one of the values before their
//    rounding, as docs/runtime-api.md promises;
//  * no amax: cuBLASLt writes C in its type, nothing else runs.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_LIB_SCALEDGEMMPLAN_H
#define AMP_RUNTIME_LIB_SCALEDGEMMPLAN_H

#include "amp/runtime/AmpRuntime.h"

#include <cstdint>

namespace amp {
namespace rt {

/// The cuBLASLt matmul of an FP8 GEMM, as far as cuBLASLt's rules on the
/// descriptor's attributes go (the layout rules are ArgCheck.cpp's).
struct CublasLtFloat8Matmul {
  /// cuBLASLt's A and B (our B and A) and its C/D (one layout, one type).
  int32_t aType = AMP_DTYPE_F8E4M3FN, bType = AMP_DTYPE_F8E4M3FN;
  int32_t dType = AMP_DTYPE_F32;
  /// CUBLASLT_MATMUL_DESC_{A,B}_SCALE_POINTER and AMAX_D_POINTER are set.
  bool aScale = false, bScale = false, amaxD = false;
};

/// The rule of cuBLASLt that `matmul` breaks, as a message, or nullptr.
inline const char *
getCublasLtFloat8Refusal(const CublasLtFloat8Matmul &matmul) {
  bool float8D =
      matmul.dType == AMP_DTYPE_F8E4M3FN || matmul.dType == AMP_DTYPE_F8E5M2;
  if (matmul.amaxD && !float8D)
    return "cuBLASLt computes the D amax (CUBLASLT_MATMUL_DESC_AMAX_D_POINTER) "
           "only for an FP8 D: with FP8 inputs and an f32, bf16 or f16 D it "
           "returns CUBLAS_STATUS_INVALID_VALUE";
  return nullptr;
}

/// What ampGpuScaledGemm does: the matmul it asks cuBLASLt for and the
/// runtime's passes around it.
struct ScaledGemmPlan {
  CublasLtFloat8Matmul matmul;
  /// cuBLASLt writes an f32 scratch matrix (batch x m x n, ld n, batch
  /// stride m * n) instead of C: a 16-bit D whose amax is wanted.
  bool f32Scratch = false;
  /// Before the matmul, C is widened into the scratch (beta != 0).
  bool widenC = false;
  /// After the matmul, the runtime's pass takes the amax of the f32 values
  /// (of C, or of the scratch while rounding it into C).
  bool amaxPass = false;
  /// After the matmul, the pass rounds the scratch into C.
  bool narrowPass = false;
};

/// For a call accepted by validateScaledGemm (aType, bType FP8; cType f32,
/// bf16 or f16). Our A is cuBLASLt's B and our B its A (CublasLt.cpp).
inline ScaledGemmPlan planScaledGemm(int32_t aType, int32_t bType,
                                     int32_t cType, bool aScale, bool bScale,
                                     bool dAmax, float beta) {
  ScaledGemmPlan plan;
  plan.matmul.aType = bType;
  plan.matmul.bType = aType;
  plan.matmul.aScale = bScale;
  plan.matmul.bScale = aScale;
  // D is never FP8 (validateScaledGemm), so AMAX_D_POINTER is never set.
  plan.amaxPass = dAmax;
  plan.f32Scratch = dAmax && cType != AMP_DTYPE_F32;
  plan.widenC = plan.f32Scratch && beta != 0.0f;
  plan.narrowPass = plan.f32Scratch;
  plan.matmul.dType = plan.f32Scratch ? int32_t(AMP_DTYPE_F32) : cType;
  return plan;
}

} // namespace rt
} // namespace amp

#endif // AMP_RUNTIME_LIB_SCALEDGEMMPLAN_H
