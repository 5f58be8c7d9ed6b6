//===- ConvTypePlanTest.cpp - the cuDNN convolution type plan -------------===//
//
// Part of amp-mlir. planConvTypes (runtime/lib/ConvTypePlan.h) decides which
// types ampGpuConv2d asks cuDNN for and which buffers it converts; checked
// here without a GPU. The GPU results are in GpuTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/AmpRuntime.h"

#include "../lib/ConvTypePlan.h"

#include <gtest/gtest.h>

namespace {

using amp::rt::ConvTypePlan;
using amp::rt::planConvTypes;

// An f32 output is never produced through a 16-bit intermediate: the 16-bit
// inputs are widened and cuDNN computes and writes f32.
TEST(ConvTypePlan, SixteenBitInputsWithF32OutputRunAnF32Convolution) {
  for (int32_t in : {AMP_DTYPE_F16, AMP_DTYPE_BF16}) {
    SCOPED_TRACE(in);
    ConvTypePlan plan = planConvTypes(in, in, AMP_DTYPE_F32);
    EXPECT_EQ(plan.computeType, AMP_DTYPE_F32);
    EXPECT_TRUE(plan.widenX);
    EXPECT_TRUE(plan.widenW);
    EXPECT_TRUE(plan.writesYDirectly);
    // f16/bf16 values are exact in TF32: tensor cores lose nothing.
    EXPECT_FALSE(plan.preferFma);
  }
}

TEST(ConvTypePlan, F32ConvolutionConvertsNothingAndAvoidsTf32) {
  ConvTypePlan plan = planConvTypes(AMP_DTYPE_F32, AMP_DTYPE_F32,
                                    AMP_DTYPE_F32);
  EXPECT_EQ(plan.computeType, AMP_DTYPE_F32);
  EXPECT_FALSE(plan.widenX);
  EXPECT_FALSE(plan.widenW);
  EXPECT_TRUE(plan.writesYDirectly);
  EXPECT_TRUE(plan.preferFma);
}

TEST(ConvTypePlan, SameSixteenBitTypeComputesInThatType) {
  for (int32_t in : {AMP_DTYPE_F16, AMP_DTYPE_BF16}) {
    SCOPED_TRACE(in);
    ConvTypePlan plan = planConvTypes(in, in, in);
    EXPECT_EQ(plan.computeType, in);
    EXPECT_FALSE(plan.widenX);
    EXPECT_FALSE(plan.widenW);
    EXPECT_TRUE(plan.writesYDirectly);
    EXPECT_FALSE(plan.preferFma);
  }
}

} // namespace
