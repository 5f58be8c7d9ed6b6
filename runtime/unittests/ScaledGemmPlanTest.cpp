//===- ScaledGemmPlanTest.cpp - ampGpuScaledGemm's cuBLASLt plan ----------===//
//
// Part of amp-mlir. lib/ScaledGemmPlan.h without a GPU: cuBLASLt's rule on
// the D amax (AMAX_D_POINTER only with an FP8 D, which an H200 enforced with
// CUBLAS_STATUS_INVALID_VALUE for a bf16 D), refused by the check that the
// CUDA backend and the GPU simulator both run before the matmul, and the
// plans of every output type, amax and beta, which never ask cuBLASLt for
// an amax and compute it from the f32 values instead.
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/AmpRuntime.h"

#include "../lib/ScaledGemmPlan.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using amp::rt::CublasLtFloat8Matmul;
using amp::rt::getCublasLtFloat8Refusal;
using amp::rt::planScaledGemm;
using amp::rt::ScaledGemmPlan;

TEST(ScaledGemmPlan, AmaxOfANonFloat8DIsRefused) {
  for (int32_t dType : {AMP_DTYPE_F32, AMP_DTYPE_BF16, AMP_DTYPE_F16}) {
    CublasLtFloat8Matmul matmul;
    matmul.aType = AMP_DTYPE_F8E5M2;
    matmul.dType = dType;
    matmul.aScale = matmul.bScale = true;
    EXPECT_EQ(getCublasLtFloat8Refusal(matmul), nullptr) << dType;
    matmul.amaxD = true;
    const char *rule = getCublasLtFloat8Refusal(matmul);
    ASSERT_NE(rule, nullptr) << dType;
    EXPECT_NE(std::string(rule).find("cuBLASLt computes the D amax "
                                     "(CUBLASLT_MATMUL_DESC_AMAX_D_POINTER) "
                                     "only for an FP8 D"),
              std::string::npos)
        << rule;
    EXPECT_NE(std::string(rule).find("CUBLAS_STATUS_INVALID_VALUE"),
              std::string::npos)
        << rule;
  }
  // With an FP8 D cuBLASLt computes it (no call of the runtime has one).
  for (int32_t dType : {AMP_DTYPE_F8E4M3FN, AMP_DTYPE_F8E5M2}) {
    CublasLtFloat8Matmul matmul;
    matmul.dType = dType;
    matmul.amaxD = true;
    EXPECT_EQ(getCublasLtFloat8Refusal(matmul), nullptr) << dType;
  }
}

TEST(ScaledGemmPlan, TheAmaxIsTheRuntimesPassOverF32Values) {
  for (int32_t cType : {AMP_DTYPE_F32, AMP_DTYPE_BF16, AMP_DTYPE_F16})
    for (bool amax : {false, true})
      for (float beta : {0.0f, 1.0f}) {
        SCOPED_TRACE(testing::Message() << "cType " << cType << " amax " << amax
                                        << " beta " << beta);
        ScaledGemmPlan plan =
            planScaledGemm(AMP_DTYPE_F8E4M3FN, AMP_DTYPE_F8E5M2, cType,
                           /*aScale=*/true, /*bScale=*/false, amax, beta);
        // What cuBLASLt is asked for passes its rules: never its amax.
        EXPECT_EQ(getCublasLtFloat8Refusal(plan.matmul), nullptr);
        EXPECT_FALSE(plan.matmul.amaxD);
        // Our A is cuBLASLt's B, our B its A, and so are the scales.
        EXPECT_EQ(plan.matmul.aType, AMP_DTYPE_F8E5M2);
        EXPECT_EQ(plan.matmul.bType, AMP_DTYPE_F8E4M3FN);
        EXPECT_FALSE(plan.matmul.aScale);
        EXPECT_TRUE(plan.matmul.bScale);
        EXPECT_EQ(plan.amaxPass, amax);
        // A 16-bit D with an amax goes through f32 (the amax of the values
        // before their rounding), C widened first when beta reads it.
        bool wide = amax && cType != AMP_DTYPE_F32;
        EXPECT_EQ(plan.f32Scratch, wide);
        EXPECT_EQ(plan.narrowPass, wide);
        EXPECT_EQ(plan.widenC, wide && beta != 0.0f);
        EXPECT_EQ(plan.matmul.dType, wide ? AMP_DTYPE_F32 : cType);
      }
}

} // namespace
