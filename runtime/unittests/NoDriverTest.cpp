//===- NoDriverTest.cpp - behaviour without a CUDA driver -----------------===//
//
// Part of amp-mlir. The runtime must load and run its CPU parts without
// libcuda.so.1, accept the lazy module load/unload that MLIR emits in global
// ctors/dtors, and turn every GPU request into a precise error (TestMain.cpp
// hides a real driver if there is one).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "amp/runtime/AmpRuntime.h"
#include "amp/runtime/MgpuAbi.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace {

using amp_test::captureHandlerMessage;

bool contains(const std::string &haystack, const char *needle) {
  return haystack.find(needle) != std::string::npos;
}

const char kPtx[] = ".version 8.0\n.target sm_80\n.address_size 64\n";

TEST(NoDriver, ModuleLoadAndUnloadNeedNoDriver) {
  // What the priority-123 ctor/dtor pair of a gpu.binary does.
  static const unsigned char blob[16] = {0x50, 0xed, 0x55, 0xba};
  std::string message = captureHandlerMessage([] {
    void *module =
        mgpuModuleLoad(const_cast<unsigned char *>(blob), sizeof(blob));
    ASSERT_NE(module, nullptr);
    mgpuModuleUnload(module);
    void *jit = mgpuModuleLoadJIT(const_cast<char *>(kPtx), 3);
    ASSERT_NE(jit, nullptr);
    mgpuModuleUnload(jit);
    mgpuModuleUnload(nullptr);
  });
  EXPECT_EQ(message, "");
}

TEST(NoDriver, GpuAvailableIsZeroWithMessage) {
  ampClearError();
  EXPECT_EQ(ampGpuAvailable(), 0);
  std::string message = ampLastError();
  EXPECT_TRUE(contains(message, "ampGpuAvailable")) << message;
  EXPECT_TRUE(contains(message, "libcuda.so.1")) << message;
  // Asking twice gives the same answer (the failed load is remembered).
  EXPECT_EQ(ampGpuAvailable(), 0);
  char name[64] = "x";
  EXPECT_NE(ampGpuDeviceName(name, sizeof(name)), 0);
  EXPECT_STREQ(name, "");
  EXPECT_TRUE(contains(ampLastError(), "ampGpuDeviceName"));
}

TEST(NoDriver, ClearError) {
  ampGpuAvailable();
  EXPECT_STRNE(ampLastError(), "");
  ampClearError();
  EXPECT_STREQ(ampLastError(), "");
}

TEST(NoDriver, MemAllocCallsHandler) {
  void *volatile result = reinterpret_cast<void *>(1);
  std::string message = captureHandlerMessage(
      [&] { result = mgpuMemAlloc(1024, nullptr, false); });
  EXPECT_TRUE(contains(message, "mgpuMemAlloc: ")) << message;
  EXPECT_TRUE(contains(message, "libcuda.so.1")) << message;
  EXPECT_EQ(message, std::string(ampLastError()));
  // Zero bytes is not an error and needs no driver.
  message =
      captureHandlerMessage([&] { result = mgpuMemAlloc(0, nullptr, false); });
  EXPECT_EQ(message, "");
  EXPECT_EQ(result, nullptr);
}

std::string gReturningMessage;
void returningHandler(const char *message) { gReturningMessage = message; }

TEST(NoDriver, ReturningHandlerMakesPointerCallsReturnNull) {
  AmpErrorHandler previous = ampSetErrorHandler(returningHandler);
  EXPECT_EQ(previous, nullptr); // The default handler was installed.
  gReturningMessage.clear();
  EXPECT_EQ(mgpuMemAlloc(64, nullptr, true), nullptr);
  EXPECT_TRUE(contains(gReturningMessage, "mgpuMemAlloc")) << gReturningMessage;
  gReturningMessage.clear();
  EXPECT_EQ(mgpuStreamCreate(), nullptr);
  EXPECT_TRUE(contains(gReturningMessage, "mgpuStreamCreate"));
  gReturningMessage.clear();
  void *module = mgpuModuleLoad(const_cast<char *>(kPtx), 0);
  EXPECT_EQ(mgpuModuleGetFunction(module, "kernel"), nullptr);
  EXPECT_TRUE(contains(gReturningMessage, "mgpuModuleGetFunction"));
  mgpuModuleUnload(module);
  gReturningMessage.clear();
  mgpuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  EXPECT_TRUE(contains(gReturningMessage, "mgpuLaunchKernel"));
  EXPECT_EQ(ampSetErrorHandler(previous), returningHandler);
}

TEST(NoDriver, SynchronizeWithoutGpuUseIsANoOp) {
  std::string message = captureHandlerMessage([] { ampGpuSynchronize(); });
  EXPECT_EQ(message, "");
}

TEST(NoDriver, DefaultHandlerAborts) {
  EXPECT_DEATH(mgpuMemAlloc(16, nullptr, false),
               "amp-runtime: error: mgpuMemAlloc: .*libcuda.so.1");
}

// Argument errors are reported before any driver use, so their messages are
// about the arguments, not about the missing driver.
TEST(NoDriver, GemmValidationBeforeDriver) {
  float a[16] = {}, b[16] = {}, c[16] = {};
  std::string message = captureHandlerMessage([&] {
    ampGpuGemm(0, 0, 1, 2, 2, 0, a, AMP_DTYPE_F16, 2, 0, b, AMP_DTYPE_F16, 2, 0,
               c, AMP_DTYPE_F32, 2, 0, 0.0f);
  });
  EXPECT_TRUE(contains(message, "ampGpuGemm: invalid k = 0")) << message;
  EXPECT_FALSE(contains(message, "libcuda")) << message;

  message = captureHandlerMessage([&] {
    ampGpuGemm(0, 0, 1, 2, 2, 2, a, AMP_DTYPE_F16, 2, 0, b, AMP_DTYPE_BF16, 2,
               0, c, AMP_DTYPE_F32, 2, 0, 0.0f);
  });
  EXPECT_TRUE(contains(message, "ampGpuGemm: a and b must have the same type "
                                "(got f16 and bf16)"))
      << message;

  message = captureHandlerMessage([&] {
    ampGpuGemm(0, 0, 1, 2, 2, 2, a, AMP_DTYPE_F16, 2, 0, b, AMP_DTYPE_F16, 2, 0,
               c, AMP_DTYPE_BF16, 2, 0, 0.0f);
  });
  EXPECT_TRUE(contains(message, "unsupported type combination f16 x f16 -> "
                                "bf16"))
      << message;

  message = captureHandlerMessage([&] {
    ampGpuGemm(1, 0, 1, 4, 2, 3, a, AMP_DTYPE_F32, 3, 0, b, AMP_DTYPE_F32, 2, 0,
               c, AMP_DTYPE_F32, 2, 0, 0.0f);
  });
  EXPECT_TRUE(contains(message, "lda = 3 is smaller than the row length 4"))
      << message;

  message = captureHandlerMessage([&] {
    ampGpuGemm(0, 0, 2, 2, 2, 2, a, AMP_DTYPE_F32, 2, 4, b, AMP_DTYPE_F32, 2, 4,
               c, AMP_DTYPE_F32, 2, 1, 0.0f);
  });
  EXPECT_TRUE(contains(message, "strideC = 1")) << message;

  // Valid arguments get as far as the driver.
  message = captureHandlerMessage([&] {
    ampGpuGemm(0, 0, 1, 2, 2, 2, a, AMP_DTYPE_F32, 2, 0, b, AMP_DTYPE_F32, 2, 0,
               c, AMP_DTYPE_F32, 2, 0, 0.0f);
  });
  EXPECT_TRUE(contains(message, "ampGpuGemm: ")) << message;
  EXPECT_TRUE(contains(message, "libcuda.so.1")) << message;
}

TEST(NoDriver, ConvValidationBeforeDriver) {
  float x[64] = {}, wt[64] = {}, y[64] = {};
  // h = 5, kh = 2, stride 2, padTop 1: symmetric padding gives oh = 3, a
  // caller with padBottom = 0 has oh = 2.
  std::string message = captureHandlerMessage([&] {
    ampGpuConv2d(0, 1, 1, 5, 5, 1, 2, 2, 2, 2, 1, 1, 2, 2, 1, 1, 1, x,
                 AMP_DTYPE_F32, wt, AMP_DTYPE_F32, y, AMP_DTYPE_F32, 0.0f);
  });
  EXPECT_TRUE(contains(message, "ampGpuConv2d: ")) << message;
  EXPECT_TRUE(contains(message, "asymmetric padding is unsupported"))
      << message;
  EXPECT_FALSE(contains(message, "libcuda")) << message;

  message = captureHandlerMessage([&] {
    ampGpuConv2d(1, 1, 1, 4, 4, 1, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, 1, x,
                 AMP_DTYPE_BF16, wt, AMP_DTYPE_BF16, y, AMP_DTYPE_F16, 0.0f);
  });
  EXPECT_TRUE(contains(message, "unsupported type combination bf16 x bf16 -> "
                                "f16"))
      << message;

  message = captureHandlerMessage([&] {
    ampGpuConv2d(1, 1, 1, 4, 4, 1, 3, 3, 2, 2, 0, 0, 0, 1, 1, 1, 1, x,
                 AMP_DTYPE_F32, wt, AMP_DTYPE_F32, y, AMP_DTYPE_F32, 0.0f);
  });
  EXPECT_TRUE(contains(message, "invalid strideH = 0")) << message;

  // A consistent symmetric case passes validation and reaches the driver.
  message = captureHandlerMessage([&] {
    ampGpuConv2d(1, 1, 1, 4, 4, 1, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, 1, x,
                 AMP_DTYPE_F16, wt, AMP_DTYPE_F16, y, AMP_DTYPE_F32, 1.0f);
  });
  EXPECT_TRUE(contains(message, "libcuda.so.1")) << message;
}

// groups (>= 1, dividing c and f) is checked before the driver; a valid
// grouped or depthwise call reaches it (the build without CUDA: its stub).
TEST(NoDriver, ConvGroupsValidationBeforeDriver) {
  float x[64] = {}, wt[64] = {}, y[64] = {};
  // c = 4, f = 6, 4x4, 3x3 window, padding 1.
  auto forward = [&](int64_t groups) {
    return captureHandlerMessage([&] {
      ampGpuConv2d(0, 1, 4, 4, 4, 6, 3, 3, 4, 4, 1, 1, 1, 1, 1, 1, groups, x,
                   AMP_DTYPE_F32, wt, AMP_DTYPE_F32, y, AMP_DTYPE_F32, 0.0f);
    });
  };
  auto data = [&](int64_t groups) {
    return captureHandlerMessage([&] {
      ampGpuConv2dBackwardData(0, 1, 4, 4, 4, 6, 3, 3, 4, 4, 1, 1, 1, 1, 1, 1,
                               groups, y, AMP_DTYPE_F32, wt, AMP_DTYPE_F32, x,
                               AMP_DTYPE_F32, 0.0f);
    });
  };
  auto filter = [&](int64_t groups) {
    return captureHandlerMessage([&] {
      ampGpuConv2dBackwardFilter(0, 1, 4, 4, 4, 6, 3, 3, 4, 4, 1, 1, 1, 1, 1, 1,
                                 groups, x, AMP_DTYPE_F32, y, AMP_DTYPE_F32, wt,
                                 AMP_DTYPE_F32, 0.0f);
    });
  };
  for (const auto &call : {std::function<std::string(int64_t)>(forward),
                           std::function<std::string(int64_t)>(data),
                           std::function<std::string(int64_t)>(filter)}) {
    std::string message = call(4);
    EXPECT_TRUE(contains(message, "f = 6 is not a multiple of groups = 4"))
        << message;
    EXPECT_FALSE(contains(message, "libcuda")) << message;
    message = call(3);
    EXPECT_TRUE(contains(message, "c = 4 is not a multiple of groups = 3"))
        << message;
    message = call(-1);
    EXPECT_TRUE(contains(message, "invalid groups = -1 (must be > 0)"))
        << message;
    message = call(2);
    EXPECT_TRUE(contains(message, "libcuda.so.1")) << message;
  }
  // Depthwise with a multiplier: f = 8, groups = c = 4.
  std::string message = captureHandlerMessage([&] {
    ampGpuConv2d(0, 1, 4, 4, 4, 8, 3, 3, 4, 4, 1, 1, 1, 1, 1, 1, 4, x,
                 AMP_DTYPE_F16, wt, AMP_DTYPE_F16, y, AMP_DTYPE_F32, 0.0f);
  });
  EXPECT_TRUE(contains(message, "libcuda.so.1")) << message;
}

TEST(NoDriver, ConvBackwardValidationBeforeDriver) {
  float a[64] = {}, b[64] = {}, out[64] = {};
  const int32_t f32 = AMP_DTYPE_F32;
  auto data = [&](int32_t layout, int64_t n, int64_t oh, int32_t dyType,
                  int32_t wType, int32_t dxType) {
    return captureHandlerMessage([&] {
      ampGpuConv2dBackwardData(layout, n, 1, 5, 5, 1, 2, 2, oh, oh, 1, 1, 2, 2,
                               1, 1, 1, a, dyType, b, wType, out, dxType, 0.0f);
    });
  };
  auto filter = [&](int32_t layout, int64_t n, int64_t oh, int32_t xType,
                    int32_t dyType, int32_t dwType) {
    return captureHandlerMessage([&] {
      ampGpuConv2dBackwardFilter(layout, n, 1, 5, 5, 1, 2, 2, oh, oh, 1, 1, 2,
                                 2, 1, 1, 1, a, xType, b, dyType, out, dwType,
                                 0.0f);
    });
  };
  // h = 5, kh = 2, stride 2, padTop 1: symmetric padding gives oh = 3, a
  // caller with padBottom = 0 has oh = 2: ampGpuConv2d's refusal.
  for (const std::string &message :
       {data(0, 1, 2, f32, f32, f32), filter(0, 1, 2, f32, f32, f32)}) {
    EXPECT_TRUE(contains(message, "Backward")) << message;
    EXPECT_TRUE(contains(message, "output 2x2 is not what symmetric padding "
                                  "gives"))
        << message;
    EXPECT_TRUE(contains(message, "asymmetric padding is unsupported by the "
                                  "cuDNN path"))
        << message;
    EXPECT_FALSE(contains(message, "libcuda")) << message;
  }
  std::string message = data(AMP_CONV_NHWC_HWCF, 1, 3, f32, f32, f32);
  EXPECT_TRUE(contains(message, "ampGpuConv2dBackwardData: layout 1 = "
                                "NHWC/HWCF is unsupported"))
      << message;
  // A batch of 0 is an error here (ampGpuConv2d takes it).
  message = filter(0, 0, 3, f32, f32, f32);
  EXPECT_TRUE(contains(message, "ampGpuConv2dBackwardFilter: invalid n = 0"))
      << message;
  message = data(0, 1, 3, AMP_DTYPE_F16, AMP_DTYPE_BF16, f32);
  EXPECT_TRUE(contains(message, "dy and wt must have the same type"))
      << message;
  message = filter(0, 1, 3, AMP_DTYPE_BF16, AMP_DTYPE_BF16, AMP_DTYPE_F16);
  EXPECT_TRUE(contains(message, "unsupported type combination bf16 x bf16 -> "
                                "f16"))
      << message;

  // Consistent symmetric cases pass validation and reach the driver.
  message = data(0, 1, 3, AMP_DTYPE_F16, AMP_DTYPE_F16, f32);
  EXPECT_TRUE(contains(message, "ampGpuConv2dBackwardData: ")) << message;
  EXPECT_TRUE(contains(message, "libcuda.so.1")) << message;
  message = filter(0, 1, 3, AMP_DTYPE_BF16, AMP_DTYPE_BF16, AMP_DTYPE_BF16);
  EXPECT_TRUE(contains(message, "ampGpuConv2dBackwardFilter: ")) << message;
  EXPECT_TRUE(contains(message, "libcuda.so.1")) << message;
}

TEST(NoDriver, ConstantValidationBeforeDriver) {
  static const float weights[2] = {1.0f, 2.0f};
  void *slot = nullptr;
  std::string message =
      captureHandlerMessage([&] { ampGpuConstant(nullptr, 8, &slot); });
  EXPECT_TRUE(contains(message, "ampGpuConstant: invalid constant: 8 bytes"))
      << message;
  EXPECT_FALSE(contains(message, "libcuda")) << message;
  message = captureHandlerMessage(
      [&] { ampGpuConstant(weights, sizeof(weights), nullptr); });
  EXPECT_TRUE(contains(message, "ampGpuConstant: slot = ")) << message;
  EXPECT_FALSE(contains(message, "libcuda")) << message;
  // Nothing to upload: NULL, no driver call, no error.
  message = captureHandlerMessage(
      [&] { EXPECT_EQ(ampGpuConstant(weights, 0, &slot), nullptr); });
  EXPECT_EQ(message, "");
  // A valid constant gets as far as the GPU, which is not there.
  message = captureHandlerMessage([&] {
    EXPECT_EQ(ampGpuConstant(weights, sizeof(weights), &slot), nullptr);
  });
  EXPECT_TRUE(contains(message, "ampGpuConstant: ")) << message;
  EXPECT_FALSE(contains(message, "invalid constant")) << message;
  EXPECT_EQ(slot, nullptr) << "a failed upload left a copy in the slot";
}

TEST(NoDriver, UnscaleBuffersTableValidationBeforeDriver) {
  uint16_t data[8] = {};
  float wide[4] = {};
  const float inv = 0.5f;
  uint8_t flag = 0;
  const void *ins[] = {data, wide};
  void *outs[] = {data, wide};
  const int64_t numels[] = {8, 4};
  const int32_t dtypes[] = {AMP_DTYPE_F16, AMP_DTYPE_F32};
  const int32_t badTypes[] = {AMP_DTYPE_F16, 9};
  std::string message = captureHandlerMessage([&] {
    ampGpuCheckFiniteAndUnscaleBuffers(2, ins, outs, numels, badTypes, &inv,
                                       &flag);
  });
  EXPECT_TRUE(contains(message, "ampGpuCheckFiniteAndUnscaleBuffers: dtype "
                                "must be F32, F16 or BF16, got 9 (table "
                                "entry 1 of 2)"))
      << message;
  EXPECT_FALSE(contains(message, "libcuda")) << message;
  // Nothing to do: no driver call, no error.
  const int64_t empty[] = {0, 0};
  message = captureHandlerMessage([&] {
    ampGpuCheckFiniteAndUnscaleBuffers(0, nullptr, nullptr, nullptr, nullptr,
                                       nullptr, nullptr);
    ampGpuCheckFiniteAndUnscaleBuffers(2, ins, outs, empty, dtypes, nullptr,
                                       nullptr);
  });
  EXPECT_EQ(message, "");
  // Valid arguments get as far as the GPU, which is not there.
  message = captureHandlerMessage([&] {
    ampGpuCheckFiniteAndUnscaleBuffers(2, ins, outs, numels, dtypes, &inv,
                                       &flag);
  });
  EXPECT_TRUE(contains(message, "ampGpuCheckFiniteAndUnscaleBuffers: "))
      << message;
  EXPECT_FALSE(contains(message, "table entry")) << message;
  EXPECT_EQ(flag, 0);
}

TEST(NoDriver, UnscaleBufferValidationBeforeDriver) {
  uint16_t data[8] = {};
  const float inv = 0.5f;
  uint8_t flag = 0;
  std::string message = captureHandlerMessage([&] {
    ampGpuCheckFiniteAndUnscaleBuffer(data, data, 8, 5, &inv, &flag);
  });
  EXPECT_TRUE(contains(message, "ampGpuCheckFiniteAndUnscaleBuffer: dtype "
                                "must be F32, F16 or BF16, got 5"))
      << message;
  message = captureHandlerMessage([&] {
    ampGpuCheckFiniteAndUnscaleBuffer(data, data, -1, AMP_DTYPE_F16, &inv,
                                      &flag);
  });
  EXPECT_TRUE(contains(message, "numel must be in [0, 2^54], got -1"))
      << message;
  message = captureHandlerMessage([&] {
    ampGpuCheckFiniteAndUnscaleBuffer(data, data, 8, AMP_DTYPE_F16, nullptr,
                                      &flag);
  });
  EXPECT_TRUE(contains(message, "invScale is NULL with numel 8")) << message;
  message = captureHandlerMessage([&] {
    ampGpuCheckFiniteAndUnscaleBuffer(data, data + 1, 4, AMP_DTYPE_F16, &inv,
                                      &flag);
  });
  EXPECT_TRUE(contains(message, "overlap")) << message;
  EXPECT_FALSE(contains(message, "libcuda")) << message;
  // numel 0 makes no driver call and reports nothing.
  message = captureHandlerMessage([&] {
    ampGpuCheckFiniteAndUnscaleBuffer(nullptr, nullptr, 0, AMP_DTYPE_BF16,
                                      nullptr, nullptr);
  });
  EXPECT_EQ(message, "");
  // Valid arguments get as far as the GPU, which is not there.
  message = captureHandlerMessage([&] {
    ampGpuCheckFiniteAndUnscaleBuffer(data, data, 8, AMP_DTYPE_F16, &inv,
                                      &flag);
  });
  EXPECT_TRUE(contains(message, "ampGpuCheckFiniteAndUnscaleBuffer: "))
      << message;
  EXPECT_FALSE(contains(message, "numel")) << message;
  EXPECT_EQ(flag, 0);
}

TEST(NoDriver, OtherMgpuEntryPointsReport) {
  struct Case {
    const char *name;
    void (*call)();
  } cases[] = {
      {"mgpuStreamSynchronize", [] { mgpuStreamSynchronize(nullptr); }},
      {"mgpuEventCreate", [] { mgpuEventCreate(); }},
      {"mgpuMemcpy",
       [] {
         static char a[4], b[4];
         mgpuMemcpy(a, b, 4, nullptr);
       }},
      {"mgpuMemset32",
       [] {
         static unsigned a[4];
         mgpuMemset32(a, 1, 4, nullptr);
       }},
      {"mgpuMemset16",
       [] {
         static uint16_t a[4];
         mgpuMemset16(a, 1, 4, nullptr);
       }},
      {"mgpuMemFree",
       [] {
         static char a[4];
         mgpuMemFree(a, nullptr);
       }},
  };
  for (const Case &c : cases) {
    std::string message = captureHandlerMessage(c.call);
    EXPECT_TRUE(contains(message, c.name)) << c.name << ": " << message;
  }
  // Not errors: nothing to do.
  EXPECT_EQ(captureHandlerMessage([] { mgpuStreamDestroy(nullptr); }), "");
  EXPECT_EQ(captureHandlerMessage([] { mgpuMemFree(nullptr, nullptr); }), "");
  EXPECT_EQ(
      captureHandlerMessage([] { mgpuMemcpy(nullptr, nullptr, 0, nullptr); }),
      "");
}

} // namespace
