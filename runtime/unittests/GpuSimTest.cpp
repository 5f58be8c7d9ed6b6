//===- GpuSimTest.cpp - the GPU simulator's runtime
//------------------------===//
//
// Part of amp-mlir. Kernels written in C++ against the simulator's ABI
// (AmpGpuSim.h), as amp-gpu-to-sim makes them: thread ids from
// ampSimSpecialRegister, barriers, PTX shuffles, checked accesses.
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/AmpGpuSim.h"
#include "amp/runtime/AmpRuntime.h"
#include "amp/runtime/MgpuAbi.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace {

std::string gError;
void recordError(const char *message) {
  if (gError.empty())
    gError = message;
}

class GpuSimTest : public ::testing::Test {
protected:
  void SetUp() override {
    gError.clear();
    previous = ampSetErrorHandler(recordError);
    AmpSimStats stats;
    ampSimGetStats(&stats);
    liveBefore = stats.liveBuffers;
  }
  void TearDown() override {
    ampSetErrorHandler(previous);
    AmpSimStats stats;
    ampSimGetStats(&stats);
    EXPECT_EQ(stats.liveBuffers, liveBefore) << "a test leaked";
  }
  AmpErrorHandler previous = nullptr;
  int64_t liveBefore = 0;
};

int32_t reg(AmpSimRegister r) { return ampSimSpecialRegister(r); }

int64_t globalThread() {
  return int64_t(reg(AMP_SIM_CTAID_X)) * reg(AMP_SIM_NTID_X) +
         reg(AMP_SIM_TID_X);
}

// out[i] = a[i] + 1, with a bounds guard.
void addOne(void **params) {
  float *in = *static_cast<float **>(params[0]);
  float *out = *static_cast<float **>(params[1]);
  int64_t n = *static_cast<int64_t *>(params[2]);
  int64_t i = globalThread();
  if (i >= n)
    return;
  float *src = static_cast<float *>(ampSimCheckAccess(in + i, 4, 0));
  float *dst = static_cast<float *>(ampSimCheckAccess(out + i, 4, 1));
  *dst = *src + 1.0f;
}

TEST_F(GpuSimTest, RunsEveryThreadOfTheGrid) {
  const int64_t n = 1000;
  auto *in = static_cast<float *>(mgpuMemAlloc(n * 4, nullptr, false));
  auto *out = static_cast<float *>(mgpuMemAlloc(n * 4, nullptr, false));
  std::vector<float> host(n);
  for (int64_t i = 0; i < n; ++i)
    host[i] = float(i);
  mgpuMemcpy(in, host.data(), n * 4, nullptr);
  int64_t count = n;
  void *params[] = {&in, &out, &count};
  ampSimLaunchKernel("test::addOne", addOne, (n + 127) / 128, 1, 1, 128, 1, 1,
                     0, params, 0);
  EXPECT_EQ(gError, "");
  mgpuMemcpy(host.data(), out, n * 4, nullptr);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(host[i], float(i) + 1.0f) << i;
  mgpuMemFree(in, nullptr);
  mgpuMemFree(out, nullptr);
}

TEST_F(GpuSimTest, ReportsAnOutOfBoundsAccessNamingTheKernel) {
  const int64_t n = 100;
  auto *in = static_cast<float *>(mgpuMemAlloc(n * 4, nullptr, false));
  auto *out = static_cast<float *>(mgpuMemAlloc(n * 4, nullptr, false));
  int64_t count = n + 1; // One element too many.
  void *params[] = {&in, &out, &count};
  ampSimLaunchKernel("test::addOne", addOne, 1, 1, 1, 128, 1, 1, 0, params, 0);
  EXPECT_NE(gError.find("kernel 'test::addOne'"), std::string::npos) << gError;
  EXPECT_NE(gError.find("thread (100,0,0)"), std::string::npos) << gError;
  EXPECT_NE(gError.find("out-of-bounds load of 4 bytes at offset 400"),
            std::string::npos)
      << gError;
  mgpuMemFree(in, nullptr);
  mgpuMemFree(out, nullptr);
}

/// Loads 16 bytes at `in + offset` (elements), as a vectorised kernel does.
void loadVector(void **params) {
  float *in = *static_cast<float **>(params[0]);
  int64_t offset = *static_cast<int64_t *>(params[1]);
  // Bit 0: load; bits 8 and up: the alignment the access states.
  ampSimCheckAccess(in + offset, 16, 16 << 8);
}

TEST_F(GpuSimTest, ChecksTheAlignmentAVectorAccessStates) {
  auto *in = static_cast<float *>(mgpuMemAlloc(64 * 4, nullptr, false));
  int64_t offset = 4; // 16 bytes in: aligned.
  void *params[] = {&in, &offset};
  ampSimLaunchKernel("test::loadVector", loadVector, 1, 1, 1, 1, 1, 1, 0,
                     params, 0);
  EXPECT_EQ(gError, "");
  offset = 1; // 4 bytes in: not 16-byte aligned.
  ampSimLaunchKernel("test::loadVector", loadVector, 1, 1, 1, 1, 1, 1, 0,
                     params, 0);
  EXPECT_NE(gError.find("kernel 'test::loadVector'"), std::string::npos)
      << gError;
  EXPECT_NE(gError.find("misaligned load"), std::string::npos) << gError;
  EXPECT_NE(gError.find("is not 16-byte aligned"), std::string::npos) << gError;
  mgpuMemFree(in, nullptr);
}

void nothing(void **) {}

TEST_F(GpuSimTest, RejectsLaunchesOverCudaLimits) {
  ampSimLaunchKernel("m::k", nothing, 1, 1, 1, 1, 1, 256, 0, nullptr, 0);
  EXPECT_NE(gError.find("kernel 'm::k' launched with block (1,1,256): "
                        "blockDim.z must be in [1, 64]"),
            std::string::npos)
      << gError;
  gError.clear();
  ampSimLaunchKernel("m::k", nothing, 1, 1, 1, 64, 32, 1, 0, nullptr, 0);
  EXPECT_NE(gError.find("2048 threads per block, more than 1024"),
            std::string::npos)
      << gError;
  gError.clear();
  ampSimLaunchKernel("m::k", nothing, 1, 70000, 1, 1, 1, 1, 0, nullptr, 0);
  EXPECT_NE(gError.find("gridDim.y must be in [1, 65535]"), std::string::npos)
      << gError;
  gError.clear();
  ampSimLaunchKernel("m::k", nothing, 1, 1, 1, 1024, 1, 1, 0, nullptr, 0);
  EXPECT_EQ(gError, "");
}

// Block sum through shared memory: every thread writes, a barrier, thread 0
// sums. Wrong without the barrier only if threads did not run as fibers.
struct Shared {
  float values[256];
};
thread_local Shared gShared;
void blockSum(void **params) {
  float *out = *static_cast<float **>(params[0]);
  int32_t t = reg(AMP_SIM_TID_X);
  gShared.values[t] = float(t);
  ampSimBarrier();
  // Every thread reads the sum of all: needs every write before it.
  float sum = 0;
  for (int32_t i = 0; i < reg(AMP_SIM_NTID_X); ++i)
    sum += gShared.values[i];
  ampSimBarrier();
  if (t == 0)
    *static_cast<float *>(ampSimCheckAccess(out, 4, 1)) = sum;
  gShared.values[t] = -1; // Overwrites only after everyone has read.
}

TEST_F(GpuSimTest, AConstantIsCachedInItsModulesSlot) {
  // One host buffer, as the constants of two modules loaded one after the
  // other at the same address: each module's slot (zero at load) gets its
  // own upload of what the address holds then; a slot already set returns
  // its copy without reading the host again.
  float host[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  void *first = nullptr, *second = nullptr;
  ampSimResetStats();
  auto *a = static_cast<float *>(ampGpuConstant(host, sizeof(host), &first));
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(first, a);
  host[0] = 10.0f; // The first module is gone; the next one's constant.
  EXPECT_EQ(ampGpuConstant(host, sizeof(host), &first), a)
      << "a set slot uploads again";
  auto *b = static_cast<float *>(ampGpuConstant(host, sizeof(host), &second));
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  EXPECT_EQ(second, b);
  EXPECT_EQ(a[0], 1.0f);
  EXPECT_EQ(b[0], 10.0f) << "the second module got the first one's copy";
  AmpSimStats stats;
  ampSimGetStats(&stats);
  EXPECT_EQ(stats.copyBytes, int64_t(2 * sizeof(host)))
      << "one upload per slot";
  EXPECT_EQ(gError, "");
}

TEST_F(GpuSimTest, BarriersSynchroniseTheBlock) {
  auto *out = static_cast<float *>(mgpuMemAlloc(4, nullptr, false));
  void *params[] = {&out};
  ampSimLaunchKernel("test::blockSum", blockSum, 1, 1, 1, 256, 1, 1, 0, params,
                     AMP_SIM_KERNEL_SYNCHRONIZES);
  EXPECT_EQ(gError, "");
  float sum = 0;
  mgpuMemcpy(&sum, out, 4, nullptr);
  EXPECT_EQ(sum, 255.0f * 256.0f / 2.0f);
  mgpuMemFree(out, nullptr);
}

TEST_F(GpuSimTest, WarpShufflesFollowPtx) {
  // One warp; each lane reads with every mode.
  static std::vector<int64_t> results;
  results.assign(4 * 32, 0);
  auto kernel = [](void **) {
    int32_t lane = reg(AMP_SIM_LANEID);
    int32_t value = 100 + lane;
    // Full-warp clamps as MLIR's gpu.shuffle lowering computes them.
    results[0 * 32 + lane] = ampSimShuffle(2, -1, value, 1, 0x1f); // bfly 1
    results[1 * 32 + lane] = ampSimShuffle(1, -1, value, 4, 0x1f); // down 4
    results[2 * 32 + lane] = ampSimShuffle(0, -1, value, 2, 0);    // up 2
    results[3 * 32 + lane] = ampSimShuffle(3, -1, value, 7, 0x1f); // idx 7
  };
  ampSimLaunchKernel("test::shuffle", kernel, 1, 1, 1, 32, 1, 1, 0, nullptr,
                     AMP_SIM_KERNEL_SYNCHRONIZES);
  ASSERT_EQ(gError, "");
  for (int32_t lane = 0; lane < 32; ++lane) {
    auto value = [&](int mode) { return int32_t(results[mode * 32 + lane]); };
    auto valid = [&](int mode) { return results[mode * 32 + lane] >> 32; };
    EXPECT_EQ(value(0), 100 + (lane ^ 1));
    EXPECT_EQ(valid(0), 1);
    EXPECT_EQ(value(1), lane + 4 <= 31 ? 100 + lane + 4 : 100 + lane);
    EXPECT_EQ(valid(1), lane + 4 <= 31);
    EXPECT_EQ(value(2), lane >= 2 ? 100 + lane - 2 : 100 + lane);
    EXPECT_EQ(valid(2), lane >= 2);
    EXPECT_EQ(value(3), 107);
  }
}

TEST_F(GpuSimTest, ExitedThreadsCountAsArrivedAtABarrier) {
  // Thread 0 waits at a barrier the others never reach: they exit, and it
  // is released (as on the hardware since Volta).
  auto kernel = [](void **) {
    if (reg(AMP_SIM_TID_X) == 0)
      ampSimBarrier();
  };
  ampSimLaunchKernel("test::exited", kernel, 2, 1, 1, 64, 1, 1, 0, nullptr,
                     AMP_SIM_KERNEL_SYNCHRONIZES);
  EXPECT_EQ(gError, "");
}

TEST_F(GpuSimTest, AShuffleWaitsForItsMemberMaskOnly) {
  // As in gpu.all_reduce's second stage: lanes 0..7 of warp 0 reduce with
  // mask 0xff while the other lanes go on to a barrier.
  static std::vector<int32_t> sums;
  sums.assign(64, -1);
  auto kernel = [](void **) {
    int32_t t = reg(AMP_SIM_TID_X);
    if (t < 8) {
      int32_t value = t + 1;
      for (int32_t offset = 4; offset > 0; offset /= 2)
        value += int32_t(ampSimShuffle(2, 0xff, value, offset, 0x1f));
      sums[t] = value;
    }
    ampSimBarrier();
  };
  ampSimLaunchKernel("test::partial", kernel, 1, 1, 1, 64, 1, 1, 0, nullptr,
                     AMP_SIM_KERNEL_SYNCHRONIZES);
  ASSERT_EQ(gError, "");
  for (int32_t t = 0; t < 8; ++t)
    EXPECT_EQ(sums[t], 36) << t;
  EXPECT_EQ(sums[8], -1);
}

TEST_F(GpuSimTest, ReportsADeadlockNamingTheKernel) {
  // Half of a warp at a shuffle, the other half at a barrier: neither the
  // warp nor the block can be released.
  auto kernel = [](void **) {
    if (reg(AMP_SIM_TID_X) < 16)
      ampSimShuffle(2, -1, 1, 1, 0x1f);
    else
      ampSimBarrier();
  };
  ampSimLaunchKernel("test::deadlock", kernel, 1, 1, 1, 32, 1, 1, 0, nullptr,
                     AMP_SIM_KERNEL_SYNCHRONIZES);
  EXPECT_NE(gError.find("kernel 'test::deadlock'"), std::string::npos)
      << gError;
  EXPECT_NE(gError.find("deadlock: 32 of 32 threads"), std::string::npos)
      << gError;
}

TEST_F(GpuSimTest, RefusesABarrierInAKernelLaunchedWithoutFibers) {
  auto kernel = [](void **) { ampSimBarrier(); };
  ampSimLaunchKernel("test::nofibers", kernel, 1, 1, 1, 32, 1, 1, 0, nullptr,
                     0);
  EXPECT_NE(gError.find("a barrier in a kernel launched without "
                        "AMP_SIM_KERNEL_SYNCHRONIZES"),
            std::string::npos)
      << gError;
}

TEST_F(GpuSimTest, TracksAllocationsAndRejectsBadFrees) {
  AmpSimStats before, after;
  ampSimGetStats(&before);
  void *a = mgpuMemAlloc(100, nullptr, false);
  void *b = mgpuMemAlloc(28, nullptr, false);
  char text[128];
  EXPECT_EQ(ampSimDescribeLiveBuffers(text, sizeof(text), 8),
            before.liveBuffers + 2);
  EXPECT_NE(std::string(text).find(": 100 bytes, #"), std::string::npos)
      << text;
  mgpuMemFree(a, nullptr);
  mgpuMemFree(a, nullptr); // Double free.
  EXPECT_NE(gError.find("is not the start of a live device allocation"),
            std::string::npos)
      << gError;
  gError.clear();
  mgpuMemFree(static_cast<char *>(b) + 4, nullptr); // Interior pointer.
  EXPECT_NE(gError.find("offset 4 of device allocation"), std::string::npos)
      << gError;
  gError.clear();
  // A copy past the end of a device buffer.
  std::vector<char> host(64);
  mgpuMemcpy(b, host.data(), 64, nullptr);
  EXPECT_NE(gError.find("mgpuMemcpy: destination: 64 bytes at offset 0"),
            std::string::npos)
      << gError;
  mgpuMemFree(b, nullptr);
  ampSimGetStats(&after);
  EXPECT_EQ(after.allocations - before.allocations, 2);
  EXPECT_EQ(after.frees - before.frees, 2);
  EXPECT_EQ(after.liveBuffers, before.liveBuffers);
}

TEST_F(GpuSimTest, LibraryCallsCheckTheirOperands) {
  // A 4x4 GEMM whose C is one element short.
  auto *a = static_cast<float *>(mgpuMemAlloc(64, nullptr, false));
  auto *b = static_cast<float *>(mgpuMemAlloc(64, nullptr, false));
  auto *c = static_cast<float *>(mgpuMemAlloc(60, nullptr, false));
  std::vector<float> ones(16, 1.0f);
  mgpuMemcpy(a, ones.data(), 64, nullptr);
  mgpuMemcpy(b, ones.data(), 64, nullptr);
  ampGpuGemm(0, 0, 1, 4, 4, 4, a, AMP_DTYPE_F32, 4, 0, b, AMP_DTYPE_F32, 4, 0,
             c, AMP_DTYPE_F32, 4, 0, 0.0f);
  EXPECT_NE(gError.find("ampGpuGemm: C: 64 bytes at offset 0"),
            std::string::npos)
      << gError;
  gError.clear();
  ampGpuGemm(0, 0, 1, 4, 3, 4, a, AMP_DTYPE_F32, 4, 0, b, AMP_DTYPE_F32, 4, 0,
             c, AMP_DTYPE_F32, 3, 0, 0.0f);
  EXPECT_EQ(gError, "");
  float result[12];
  mgpuMemcpy(result, c, 48, nullptr);
  for (float value : result)
    EXPECT_EQ(value, 4.0f);
  mgpuMemFree(a, nullptr);
  mgpuMemFree(b, nullptr);
  mgpuMemFree(c, nullptr);
}

// cvt.rn.satfinite to FP8 as the simulator runs it (amp-float8-to-nvvm's
// instruction): every finite code's value converts to that code, values
// between two codes go to the nearer one and a midpoint to the even code,
// beyond the largest finite value it saturates, NaN is 0x7f, the sign is
// kept, and the packed result holds a in its high byte.
TEST_F(GpuSimTest, Float8CvtSatfiniteRoundsToNearestEven) {
  for (int32_t type : {AMP_DTYPE_F8E4M3FN, AMP_DTYPE_F8E5M2}) {
    SCOPED_TRACE(type);
    auto decode = [&](int code) {
      return type == AMP_DTYPE_F8E4M3FN
                 ? ampF8E4M3FNToF32(static_cast<uint8_t>(code))
                 : ampF8E5M2ToF32(static_cast<uint8_t>(code));
    };
    auto cvt = [&](float x) { return ampSimCvtF32x2ToF8x2(x, x, type) & 0xff; };
    int largest = type == AMP_DTYPE_F8E4M3FN ? 0x7e : 0x7b;
    for (int code = 0; code <= largest; ++code) {
      float value = decode(code);
      EXPECT_EQ(cvt(value), code) << value;
      EXPECT_EQ(cvt(-value), code | 0x80) << value;
      if (code == largest)
        break;
      float next = decode(code + 1);
      float midpoint = (value + next) / 2;
      int even = code % 2 == 0 ? code : code + 1;
      EXPECT_EQ(cvt(midpoint), even) << midpoint;
      EXPECT_EQ(cvt(std::nextafter(midpoint, 0.0f)), code) << midpoint;
      EXPECT_EQ(cvt(std::nextafter(midpoint, INFINITY)), code + 1) << midpoint;
    }
    EXPECT_EQ(cvt(decode(largest) * 2), largest);
    EXPECT_EQ(cvt(INFINITY), largest);
    EXPECT_EQ(cvt(-INFINITY), largest | 0x80);
    EXPECT_EQ(cvt(NAN), 0x7f);
    EXPECT_EQ(ampSimCvtF32x2ToF8x2(decode(1), decode(2), type), 0x0102);
  }
}

TEST_F(GpuSimTest, Float8ConvolutionIsForTheCpu) {
  // cuDNN's legacy API has no FP8 convolution: the GPU call refuses it
  // before touching the (simulated) device.
  auto *x = static_cast<uint8_t *>(mgpuMemAlloc(16, nullptr, false));
  auto *wt = static_cast<uint8_t *>(mgpuMemAlloc(16, nullptr, false));
  auto *y = static_cast<float *>(mgpuMemAlloc(64, nullptr, false));
  ampGpuConv2d(AMP_CONV_NCHW_FCHW, 1, 1, 4, 4, 1, 1, 1, 4, 4, 0, 0, 1, 1, 1, 1,
               1, x, AMP_DTYPE_F8E4M3FN, wt, AMP_DTYPE_F8E4M3FN, y,
               AMP_DTYPE_F32, 0.0f);
  EXPECT_NE(gError.find("an FP8 convolution is for the CPU calls only"),
            std::string::npos)
      << gError;
  gError.clear();
  mgpuMemFree(x, nullptr);
  mgpuMemFree(wt, nullptr);
  mgpuMemFree(y, nullptr);
}

TEST_F(GpuSimTest, AConvolutionOfAnEmptyDynamicBatchDoesNothing) {
  // Compiled code passes a dynamic batch as it comes, 0 included: the call
  // reads and writes nothing (x and y may be NULL) and makes no library
  // call, and the rest of its arguments are still checked.
  auto *wt = static_cast<uint16_t *>(mgpuMemAlloc(54 * 2, nullptr, false));
  ampSimResetStats();
  ampGpuConv2d(AMP_CONV_NCHW_FCHW, 0, 2, 4, 4, 3, 3, 3, 4, 4, 1, 1, 1, 1, 1, 1,
               1, nullptr, AMP_DTYPE_F16, wt, AMP_DTYPE_F16, nullptr,
               AMP_DTYPE_F32, 0.0f);
  EXPECT_EQ(gError, "");
  AmpSimStats stats;
  ampSimGetStats(&stats);
  EXPECT_EQ(stats.libraryCalls, 0);
  // strideH = 0 is wrong whatever the batch.
  ampGpuConv2d(AMP_CONV_NCHW_FCHW, 0, 2, 4, 4, 3, 3, 3, 4, 4, 1, 1, 0, 1, 1, 1,
               1, nullptr, AMP_DTYPE_F16, wt, AMP_DTYPE_F16, nullptr,
               AMP_DTYPE_F32, 0.0f);
  EXPECT_NE(gError.find("ampGpuConv2d: invalid strideH = 0"), std::string::npos)
      << gError;
  gError.clear();
  mgpuMemFree(wt, nullptr);
}

TEST_F(GpuSimTest, AGemmOfAnEmptyDynamicSizeDoesNothing) {
  // A dynamic m (tokens of an empty batch) or n that comes out 0: the call
  // reads and writes nothing (A or C may be NULL) and makes no library call;
  // the rest of its arguments are still checked, and k = 0 is still refused.
  auto *b = static_cast<float *>(mgpuMemAlloc(4 * 3 * 4, nullptr, false));
  ampSimResetStats();
  ampGpuGemm(0, 0, 1, 0, 3, 4, nullptr, AMP_DTYPE_F32, 4, 0, b, AMP_DTYPE_F32,
             3, 0, nullptr, AMP_DTYPE_F32, 3, 0, 0.0f);
  EXPECT_EQ(gError, "");
  ampGpuScaledGemm(0, 1, 1, 0, 16, 32, nullptr, AMP_DTYPE_F8E4M3FN, 32, 0, b,
                   AMP_DTYPE_F8E4M3FN, 32, 0, nullptr, AMP_DTYPE_F32, 16, 0,
                   0.0f, nullptr, nullptr, nullptr);
  EXPECT_EQ(gError, "");
  AmpSimStats stats;
  ampSimGetStats(&stats);
  EXPECT_EQ(stats.libraryCalls, 0);
  // ldb = 2 is shorter than B's rows whatever m is.
  ampGpuGemm(0, 0, 1, 0, 3, 4, nullptr, AMP_DTYPE_F32, 4, 0, b, AMP_DTYPE_F32,
             2, 0, nullptr, AMP_DTYPE_F32, 3, 0, 0.0f);
  EXPECT_NE(gError.find("ampGpuGemm: ldb = 2 is smaller than the row length"),
            std::string::npos)
      << gError;
  gError.clear();
  ampGpuGemm(0, 0, 1, 4, 3, 0, b, AMP_DTYPE_F32, 4, 0, b, AMP_DTYPE_F32, 3, 0,
             b, AMP_DTYPE_F32, 3, 0, 0.0f);
  EXPECT_NE(gError.find("ampGpuGemm: invalid k = 0 (must be > 0)"),
            std::string::npos)
      << gError;
  gError.clear();
  mgpuMemFree(b, nullptr);
}

TEST_F(GpuSimTest, Float8GemmFollowsCublasLtRules) {
  // D (16 x 16) = aScale * bScale * A (16 x 32, E4M3) B^T, B stored 16 x 32
  // (E5M2): cuBLASLt's TN layout. Every A element is 1.0 (0x38), every B
  // 0.5 (0x38 in E5M2 is 0.5): each product sum is 32 * 0.5 = 16, scaled by
  // 0.25 * 3 (device scalars). dAmax gets the largest |D|.
  const int64_t m = 16, n = 16, k = 32;
  auto *a = static_cast<uint8_t *>(mgpuMemAlloc(m * k, nullptr, false));
  auto *b = static_cast<uint8_t *>(mgpuMemAlloc(n * k + 1, nullptr, false));
  auto *c = static_cast<float *>(mgpuMemAlloc(m * n * 4, nullptr, false));
  auto *scalars = static_cast<float *>(mgpuMemAlloc(4 * 4, nullptr, false));
  std::vector<uint8_t> aBits(m * k, 0x38), bBits(n * k + 1, 0x38);
  float hostScalars[4] = {0.25f, 3.0f, -1.0f, 0.0f};
  mgpuMemcpy(a, aBits.data(), aBits.size(), nullptr);
  mgpuMemcpy(b, bBits.data(), bBits.size(), nullptr);
  mgpuMemcpy(scalars, hostScalars, sizeof(hostScalars), nullptr);
  float *aScale = scalars, *bScale = scalars + 1, *amax = scalars + 2;
  ampGpuScaledGemm(0, 1, 1, m, n, k, a, AMP_DTYPE_F8E4M3FN, k, 0, b,
                   AMP_DTYPE_F8E5M2, k, 0, c, AMP_DTYPE_F32, n, 0, 0.0f, aScale,
                   bScale, amax);
  EXPECT_EQ(gError, "");
  std::vector<float> result(m * n);
  mgpuMemcpy(result.data(), c, m * n * 4, nullptr);
  for (float value : result)
    EXPECT_EQ(value, 12.0f);
  float hostAmax = 0;
  mgpuMemcpy(&hostAmax, amax, 4, nullptr);
  EXPECT_EQ(hostAmax, 12.0f);
  // A bf16 D, no scales (NULL is 1): cuBLASLt's bf16 output.
  auto *d = static_cast<uint16_t *>(mgpuMemAlloc(m * n * 2, nullptr, false));
  ampGpuScaledGemm(0, 1, 1, m, n, k, a, AMP_DTYPE_F8E4M3FN, k, 0, b,
                   AMP_DTYPE_F8E5M2, k, 0, d, AMP_DTYPE_BF16, n, 0, 0.0f,
                   nullptr, nullptr, nullptr);
  EXPECT_EQ(gError, "");
  std::vector<uint16_t> low(m * n);
  mgpuMemcpy(low.data(), d, m * n * 2, nullptr);
  for (uint16_t bits : low)
    EXPECT_EQ(bits, 0x4180); // 16.0 in bf16.
  // ampGpuGemm takes no FP8.
  ampGpuGemm(0, 1, 1, m, n, k, a, AMP_DTYPE_F8E4M3FN, k, 0, b, AMP_DTYPE_F8E5M2,
             k, 0, c, AMP_DTYPE_F32, n, 0, 0.0f);
  EXPECT_NE(gError.find("go through the scaled GEMM"), std::string::npos)
      << gError;
  gError.clear();
  auto scaled = [&](int transB, int64_t kk, int64_t lda, int64_t ldb,
                    const uint8_t *bb, void *cc, int32_t cType, int64_t ldc,
                    const float *scale) {
    ampGpuScaledGemm(0, transB, 1, m, n, kk, a, AMP_DTYPE_F8E4M3FN, lda, 0, bb,
                     AMP_DTYPE_F8E5M2, ldb, 0, cc, cType, ldc, 0, 0.0f, scale,
                     nullptr, nullptr);
    std::string error = gError;
    gError.clear();
    return error;
  };
  // B not transposed: not the TN layout.
  EXPECT_NE(scaled(0, k, k, n, b, c, AMP_DTYPE_F32, n, nullptr)
                .find("cuBLASLt's TN layout"),
            std::string::npos);
  // k not a multiple of 16.
  EXPECT_NE(scaled(1, 24, 32, 32, b, c, AMP_DTYPE_F32, n, nullptr)
                .find("k and n multiples of 16 (got k = 24"),
            std::string::npos);
  // A B that is not 16-byte aligned.
  EXPECT_NE(scaled(1, k, k, k, b + 1, c, AMP_DTYPE_F32, n, nullptr)
                .find("16-byte aligned operands (b ="),
            std::string::npos);
  // A bf16 D's ldc must be 16 bytes: 8 elements (24 is, 20 is not).
  EXPECT_NE(scaled(1, k, k, k, b, c, AMP_DTYPE_BF16, 20, nullptr)
                .find("ldc of 8 (16 bytes of bf16"),
            std::string::npos);
  // A scale not aligned to its f32.
  EXPECT_NE(scaled(1, k, k, k, b, c, AMP_DTYPE_F32, n,
                   reinterpret_cast<const float *>(
                       reinterpret_cast<const char *>(scalars) + 1))
                .find("aScale = "),
            std::string::npos);
  // A scale that is not device memory (the simulator's check).
  float hostScale = 1.0f;
  EXPECT_NE(
      scaled(1, k, k, k, b, c, AMP_DTYPE_F32, n, &hostScale).find("aScale"),
      std::string::npos);
  mgpuMemFree(a, nullptr);
  mgpuMemFree(b, nullptr);
  mgpuMemFree(c, nullptr);
  mgpuMemFree(d, nullptr);
  mgpuMemFree(scalars, nullptr);
}

TEST_F(GpuSimTest, Float8GemmAmaxIsTheRuntimesPassAsOnTheGpu) {
  // cuBLASLt computes the D amax only for an FP8 D, so the GPU's plan
  // (lib/ScaledGemmPlan.h) never asks it for one: the runtime's kernel
  // takes it, which the simulator runs as the GPU does, launches, f32
  // scratch and all. A bf16 D of 16 x 16 values 12 - 2 (beta 1, C = -2).
  const int64_t m = 16, n = 16, k = 32;
  auto *a = static_cast<uint8_t *>(mgpuMemAlloc(m * k, nullptr, false));
  auto *b = static_cast<uint8_t *>(mgpuMemAlloc(n * k, nullptr, false));
  auto *c = static_cast<uint16_t *>(mgpuMemAlloc(m * n * 2, nullptr, false));
  auto *scalars = static_cast<float *>(mgpuMemAlloc(4 * 4, nullptr, false));
  std::vector<uint8_t> aBits(m * k, 0x38), bBits(n * k, 0x38);
  float hostScalars[3] = {0.25f, 3.0f, -1.0f};
  mgpuMemcpy(a, aBits.data(), aBits.size(), nullptr);
  mgpuMemcpy(b, bBits.data(), bBits.size(), nullptr);
  mgpuMemcpy(scalars, hostScalars, sizeof(hostScalars), nullptr);
  struct Case {
    int32_t cType;
    bool amax;
    float beta;
    int64_t launches;    // Of the runtime's pass.
    int64_t allocations; // The f32 scratch, freed by the call.
  } cases[] = {{AMP_DTYPE_F32, true, 0.0f, 1, 0},
               {AMP_DTYPE_BF16, false, 1.0f, 0, 0},
               {AMP_DTYPE_BF16, true, 0.0f, 1, 1},
               {AMP_DTYPE_BF16, true, 1.0f, 2, 1},
               {AMP_DTYPE_F16, true, 1.0f, 2, 1}};
  for (const Case &t : cases) {
    SCOPED_TRACE(testing::Message() << "cType " << t.cType << " amax " << t.amax
                                    << " beta " << t.beta);
    // C = -2: 0xc000 in bf16 and in f16.
    std::vector<uint16_t> before(m * n, 0xc000);
    std::vector<float> beforeF32(m * n / 2, -2.0f);
    if (t.cType == AMP_DTYPE_F32)
      mgpuMemcpy(c, beforeF32.data(), m * n * 2, nullptr);
    else
      mgpuMemcpy(c, before.data(), m * n * 2, nullptr);
    mgpuMemcpy(scalars + 2, &hostScalars[2], 4, nullptr);
    ampSimResetStats();
    // An f32 D of 8 x 16 (the same bytes as 16 x 16 16-bit values).
    int64_t rows = t.cType == AMP_DTYPE_F32 ? m / 2 : m;
    ampGpuScaledGemm(0, 1, 1, rows, n, k, a, AMP_DTYPE_F8E4M3FN, k, 0, b,
                     AMP_DTYPE_F8E5M2, k, 0, c, t.cType, n, 0, t.beta, scalars,
                     scalars + 1, t.amax ? scalars + 2 : nullptr);
    EXPECT_EQ(gError, "");
    AmpSimStats stats;
    ampSimGetStats(&stats);
    EXPECT_EQ(stats.libraryCalls, 1);
    EXPECT_EQ(stats.launches, t.launches);
    EXPECT_EQ(stats.allocations, t.allocations);
    EXPECT_EQ(stats.frees, t.allocations);
    float want = 12.0f + t.beta * -2.0f, amax = 0;
    mgpuMemcpy(&amax, scalars + 2, 4, nullptr);
    EXPECT_EQ(amax, t.amax ? want : -1.0f);
    std::vector<uint16_t> low(m * n);
    std::vector<float> wide(m * n / 2);
    if (t.cType == AMP_DTYPE_F32) {
      mgpuMemcpy(wide.data(), c, m * n * 2, nullptr);
      for (float value : wide)
        EXPECT_EQ(value, want);
    } else {
      mgpuMemcpy(low.data(), c, m * n * 2, nullptr);
      // 10 or 12 in bf16 / f16.
      uint16_t bits = t.cType == AMP_DTYPE_BF16
                          ? (t.beta != 0.0f ? 0x4120 : 0x4140)
                          : (t.beta != 0.0f ? 0x4900 : 0x4a00);
      for (uint16_t value : low)
        EXPECT_EQ(value, bits);
    }
  }
  mgpuMemFree(a, nullptr);
  mgpuMemFree(b, nullptr);
  mgpuMemFree(c, nullptr);
  mgpuMemFree(scalars, nullptr);
}

} // namespace

//===----------------------------------------------------------------------===//
// The roofline estimate's counts (AmpGpuSim.h's records)
//===----------------------------------------------------------------------===//

// addOne with its one FLOP counted, as amp-gpu-to-sim counts it.
void addOneCounted(void **params) {
  float *in = *static_cast<float **>(params[0]);
  float *out = *static_cast<float **>(params[1]);
  int64_t n = *static_cast<int64_t *>(params[2]);
  int64_t i = globalThread();
  if (i >= n)
    return;
  ampSimCountFlops(1);
  float *src = static_cast<float *>(ampSimCheckAccess(in + i, 4, 0));
  float *dst = static_cast<float *>(ampSimCheckAccess(out + i, 4, 1));
  *dst = *src + 1.0f;
}

/// Two launches of addOneCounted merged (amp-merge-gpu-launches' form):
/// blocks below the first grid (params[4]) run the first body over
/// params[2] elements from element 0, the others the second over params[3]
/// elements from element 512, their block index less the first grid.
int64_t gMergedBlocksRun = 0;
void addOneMerged(void **params) {
  float *in = *static_cast<float **>(params[0]);
  float *out = *static_cast<float **>(params[1]);
  int64_t gridA = *static_cast<int64_t *>(params[4]);
  int64_t block = ampSimSpecialRegister(AMP_SIM_CTAID_X);
  int64_t threads = ampSimSpecialRegister(AMP_SIM_NTID_X);
  int64_t thread = ampSimSpecialRegister(AMP_SIM_TID_X);
  bool first = block < gridA;
  if (thread == 0)
    ++gMergedBlocksRun;
  int64_t n = *static_cast<int64_t *>(params[first ? 2 : 3]);
  int64_t i = (first ? block : block - gridA) * threads + thread;
  if (i >= n)
    return;
  int64_t at = first ? i : 512 + i;
  ampSimCountFlops(1);
  float *src = static_cast<float *>(ampSimCheckAccess(in + at, 4, 0));
  float *dst = static_cast<float *>(ampSimCheckAccess(out + at, 4, 1));
  *dst = *src + 1.0f;
}

std::vector<AmpSimRecord> getRecords(const char *chip) {
  int64_t count = ampSimGetRecords(chip, nullptr, 0);
  std::vector<AmpSimRecord> records(count > 0 ? count : 0);
  ampSimGetRecords(chip, records.data(), count);
  return records;
}

TEST_F(GpuSimTest, CountsTheBytesFlopsAndAccessWidthsOfAKernel) {
  ampSimResetStats();
  const int64_t n = 1000;
  auto *in = static_cast<float *>(mgpuMemAlloc(n * 4, nullptr, false));
  auto *out = static_cast<float *>(mgpuMemAlloc(n * 4, nullptr, false));
  std::vector<float> host(n, 1.0f);
  mgpuMemcpy(in, host.data(), n * 4, nullptr);
  int64_t count = n;
  void *params[] = {&in, &out, &count};
  ampSimLaunchKernel("test::addOneCounted", addOneCounted, 8, 1, 1, 128, 1, 1,
                     0, params, 0);
  // One 16-byte load (the bucket of 16 bytes and more).
  int64_t offset = 4;
  void *vectorParams[] = {&in, &offset};
  ampSimLaunchKernel("test::loadVector", loadVector, 1, 1, 1, 1, 1, 1, 0,
                     vectorParams, 0);
  EXPECT_EQ(gError, "");

  std::vector<AmpSimRecord> records = getRecords("h100-sxm");
  ASSERT_EQ(records.size(), 3u);
  const AmpSimRecord &copy = records[0], &kernel = records[1],
                     &vector = records[2];
  EXPECT_STREQ(copy.name, "memcpy host->device");
  EXPECT_EQ(copy.kind, AMP_SIM_RECORD_COPY);
  EXPECT_EQ(copy.bytesWritten, 4000);
  EXPECT_EQ(copy.hostBytes, 4000);
  EXPECT_EQ(copy.launches, 0);

  EXPECT_STREQ(kernel.name, "test::addOneCounted");
  EXPECT_EQ(kernel.kind, AMP_SIM_RECORD_KERNEL);
  EXPECT_EQ(kernel.calls, 1);
  EXPECT_EQ(kernel.launches, 1);
  EXPECT_EQ(kernel.threads, 1024);
  EXPECT_EQ(kernel.grid[0], 8);
  EXPECT_EQ(kernel.block[0], 128);
  EXPECT_EQ(kernel.bytesRead, 4000);
  EXPECT_EQ(kernel.bytesWritten, 4000);
  EXPECT_EQ(kernel.flops, 1000);
  EXPECT_EQ(kernel.loads[2], 1000); // 4 bytes
  EXPECT_EQ(kernel.stores[2], 1000);
  EXPECT_EQ(
      kernel.loads[0] + kernel.loads[1] + kernel.loads[3] + kernel.loads[4], 0);
  EXPECT_EQ(vector.loads[4], 1);
  EXPECT_EQ(vector.bytesRead, 16);

  // max(8000 B / 3.35 TB/s, 1000 FLOP / 66.9 TFLOP/s) + the launch cost:
  // the launch cost is larger.
  AmpSimChip chip;
  ASSERT_EQ(ampSimGetChip("h100-sxm", &chip), 0);
  EXPECT_EQ(chip.bandwidth, 3.35e12);
  EXPECT_EQ(kernel.bound, AMP_SIM_BOUND_LAUNCH);
  EXPECT_NEAR(kernel.seconds, 8000 / chip.bandwidth + chip.launchSeconds,
              1e-15);
  std::vector<AmpSimRecord> h200 = getRecords("h200");
  ASSERT_EQ(h200.size(), 3u);
  EXPECT_LT(h200[1].seconds, kernel.seconds);

  AmpSimStats stats;
  ampSimGetStats(&stats);
  EXPECT_EQ(stats.kernelBytesRead, 4016);
  EXPECT_EQ(stats.kernelBytesWritten, 4000);
  EXPECT_EQ(stats.kernelFlops, 1000);
  EXPECT_EQ(stats.copyBytes, 4000);
  EXPECT_EQ(stats.hostBytes, 4000);
  // `in` written (the copy) and read, `out` written: each once.
  EXPECT_EQ(stats.idealBytes, 12000);

  // A reset starts a new step: nothing recorded, nothing marked.
  ampSimResetStats();
  EXPECT_EQ(ampSimGetRecords("h100-sxm", nullptr, 0), 0);
  ampSimLaunchKernel("test::addOneCounted", addOneCounted, 8, 1, 1, 128, 1, 1,
                     0, params, 0);
  ampSimGetStats(&stats);
  EXPECT_EQ(stats.idealBytes, 8000);
  mgpuMemFree(in, nullptr);
  mgpuMemFree(out, nullptr);
}

TEST_F(GpuSimTest, LibraryCallsRecordFlopsAndBytesFromTheirShapes) {
  auto *a = static_cast<float *>(mgpuMemAlloc(64, nullptr, false));
  auto *b = static_cast<float *>(mgpuMemAlloc(64, nullptr, false));
  auto *c = static_cast<float *>(mgpuMemAlloc(48, nullptr, false));
  auto *x = static_cast<uint16_t *>(mgpuMemAlloc(32 * 2, nullptr, false));
  auto *wt = static_cast<uint16_t *>(mgpuMemAlloc(54 * 2, nullptr, false));
  auto *y = static_cast<float *>(mgpuMemAlloc(48 * 4, nullptr, false));
  std::vector<uint16_t> zeros(54, 0);
  mgpuMemcpy(x, zeros.data(), 64, nullptr);
  mgpuMemcpy(wt, zeros.data(), 108, nullptr);
  std::vector<float> ones(16, 1.0f);
  mgpuMemcpy(a, ones.data(), 64, nullptr);
  mgpuMemcpy(b, ones.data(), 64, nullptr);
  ampSimResetStats();
  // C (4 x 3) = A (4 x 4) B (4 x 3), f32: 2*4*3*4 FLOPs, A and B read, C
  // written (beta 0: not read).
  ampGpuGemm(0, 0, 1, 4, 3, 4, a, AMP_DTYPE_F32, 4, 0, b, AMP_DTYPE_F32, 3, 0,
             c, AMP_DTYPE_F32, 3, 0, 0.0f);
  // y (1x3x4x4, f32) = conv(x (1x2x4x4, f16), w (3x2x3x3, f16)), padding 1:
  // x and w widened to f32 first (two passes), then an f32 convolution.
  ampGpuConv2d(AMP_CONV_NCHW_FCHW, 1, 2, 4, 4, 3, 3, 3, 4, 4, 1, 1, 1, 1, 1, 1,
               1, x, AMP_DTYPE_F16, wt, AMP_DTYPE_F16, y, AMP_DTYPE_F32, 0.0f);
  EXPECT_EQ(gError, "");
  std::vector<AmpSimRecord> records = getRecords("h100-sxm");
  ASSERT_EQ(records.size(), 2u);
  const AmpSimRecord &gemm = records[0], &conv = records[1];
  EXPECT_STREQ(gemm.name, "ampGpuGemm f32*f32->f32 m=4 n=3 k=4");
  EXPECT_EQ(gemm.kind, AMP_SIM_RECORD_LIBRARY);
  EXPECT_EQ(gemm.flops, 96);
  EXPECT_EQ(gemm.bytesRead, (16 + 12) * 4);
  EXPECT_EQ(gemm.bytesWritten, 12 * 4);
  EXPECT_EQ(gemm.launches, 1);
  EXPECT_EQ(gemm.bound, AMP_SIM_BOUND_LAUNCH);
  AmpSimChip chip;
  ASSERT_EQ(ampSimGetChip("h100-sxm", &chip), 0);
  EXPECT_NEAR(gemm.seconds,
              160 / chip.bandwidth / chip.libraryEfficiency +
                  chip.launchSeconds,
              1e-15);

  EXPECT_STREQ(conv.name,
               "ampGpuConv2d f16*f16->f32 nchw n=1 c=2 h=4 w=4 f=3 k=3x3 s=1");
  EXPECT_EQ(conv.flops, 2 * 3 * 4 * 4 * 2 * 3 * 3);
  // Widening x (64 -> 128 bytes) and w (108 -> 216), then the f32
  // convolution reads both (128 + 216) and writes y (192).
  EXPECT_EQ(conv.bytesRead, 64 + 108 + 128 + 216);
  EXPECT_EQ(conv.bytesWritten, 128 + 216 + 192);
  EXPECT_EQ(conv.launches, 3);

  AmpSimEstimate total;
  ASSERT_EQ(ampSimEstimate("h100-sxm", &total), 0);
  EXPECT_EQ(total.launches, 4);
  EXPECT_EQ(total.kernelSeconds, 0.0);
  EXPECT_NEAR(total.librarySeconds, gemm.seconds + conv.seconds, 1e-15);
  AmpSimStats stats;
  ampSimGetStats(&stats);
  EXPECT_EQ(stats.libraryFlops, 96 + 1728);
  EXPECT_EQ(stats.libraryBytes, 160 + 516 + 536);
  for (void *pointer :
       {(void *)a, (void *)b, (void *)c, (void *)x, (void *)wt, (void *)y})
    mgpuMemFree(pointer, nullptr);
}

TEST_F(GpuSimTest, AGemmEpilogueRecordsItsBiasAndAddend) {
  // C (4 x 3, f16) = relu(A (4 x 8) B (8 x 3) + R + bias), f16 operands.
  std::vector<uint16_t> ones(32, ampF32ToF16(1.0f)),
      addend(12, ampF32ToF16(-9.0f)), bias(3);
  for (int j = 0; j < 3; ++j)
    bias[j] = ampF32ToF16(static_cast<float>(j));
  auto upload = [](std::vector<uint16_t> &host) {
    void *device = mgpuMemAlloc(host.size() * 2, nullptr, false);
    mgpuMemcpy(device, host.data(), host.size() * 2, nullptr);
    return device;
  };
  void *a = upload(ones), *b = upload(ones), *r = upload(addend),
       *biasDevice = upload(bias);
  void *c = mgpuMemAlloc(12 * 2, nullptr, false);
  ampSimResetStats();
  ampGpuGemmEpilogue(0, 0, 1, 4, 3, 8, a, AMP_DTYPE_F16, 8, 0, b, AMP_DTYPE_F16,
                     3, 0, c, AMP_DTYPE_F16, 3, 0, 1.0f,
                     AMP_GEMM_EPILOGUE_RELU_BIAS, biasDevice, r, nullptr);
  EXPECT_EQ(gError, "");
  std::vector<AmpSimRecord> records = getRecords("h100-sxm");
  EXPECT_EQ(records.size(), 1u);
  if (!records.empty()) {
    EXPECT_STREQ(records[0].name, "ampGpuGemmEpilogue f16*f16->f16 m=4 n=3 "
                                  "k=8 epilogue=relu_bias");
    EXPECT_EQ(records[0].kind, AMP_SIM_RECORD_LIBRARY);
    EXPECT_EQ(records[0].flops, 2 * 4 * 3 * 8);
    // A, B, the addend (beta 1) and the bias read; C written once.
    EXPECT_EQ(records[0].bytesRead, (32 + 24 + 12 + 3) * 2);
    EXPECT_EQ(records[0].bytesWritten, 12 * 2);
  }
  // Each element: 8 - 9 + j, so 0 (the ReLU), 0 and 1.
  std::vector<uint16_t> result(12);
  mgpuMemcpy(result.data(), c, 24, nullptr);
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(ampF16ToF32(result[i]), i % 3 == 2 ? 1.0f : 0.0f) << i;
  // The bias must lie in a device allocation, as the operands.
  ampGpuGemmEpilogue(0, 0, 1, 4, 3, 8, a, AMP_DTYPE_F16, 8, 0, b, AMP_DTYPE_F16,
                     3, 0, c, AMP_DTYPE_F16, 3, 0, 0.0f, AMP_GEMM_EPILOGUE_BIAS,
                     bias.data(), nullptr, nullptr);
  EXPECT_NE(gError.find("ampGpuGemmEpilogue: bias"), std::string::npos)
      << gError;
  gError.clear();
  // GELU_AUX_BIAS also writes the GELU's input, a second C: recorded as
  // written, and the sums 8 + j (j = 0, 1, 2) there.
  void *aux = mgpuMemAlloc(12 * 2, nullptr, false);
  ampSimResetStats();
  ampGpuGemmEpilogue(0, 0, 1, 4, 3, 8, a, AMP_DTYPE_F16, 8, 0, b, AMP_DTYPE_F16,
                     3, 0, c, AMP_DTYPE_F16, 3, 0, 0.0f,
                     AMP_GEMM_EPILOGUE_GELU_AUX_BIAS, biasDevice, nullptr, aux);
  EXPECT_EQ(gError, "");
  records = getRecords("h100-sxm");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_STREQ(records[0].name, "ampGpuGemmEpilogue f16*f16->f16 m=4 n=3 "
                                "k=8 epilogue=gelu_aux_bias");
  EXPECT_EQ(records[0].bytesRead, (32 + 24 + 3) * 2);
  EXPECT_EQ(records[0].bytesWritten, 2 * 12 * 2);
  mgpuMemcpy(result.data(), aux, 24, nullptr);
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(ampF16ToF32(result[i]), 8.0f + static_cast<float>(i % 3)) << i;
  // gelu(x) for x >= 8 is x to within f16's rounding.
  mgpuMemcpy(result.data(), c, 24, nullptr);
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(ampF16ToF32(result[i]), 8.0f + static_cast<float>(i % 3)) << i;
  // DGELU reads aux (a second C) and no bias: 8 * gelu'(x), gelu'(x) 1 to
  // within f16's rounding for x >= 8.
  ampSimResetStats();
  ampGpuGemmEpilogue(0, 0, 1, 4, 3, 8, a, AMP_DTYPE_F16, 8, 0, b, AMP_DTYPE_F16,
                     3, 0, c, AMP_DTYPE_F16, 3, 0, 0.0f,
                     AMP_GEMM_EPILOGUE_DGELU, nullptr, nullptr, aux);
  EXPECT_EQ(gError, "");
  records = getRecords("h100-sxm");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_STREQ(records[0].name, "ampGpuGemmEpilogue f16*f16->f16 m=4 n=3 "
                                "k=8 epilogue=dgelu");
  EXPECT_EQ(records[0].bytesRead, (32 + 24 + 12) * 2);
  EXPECT_EQ(records[0].bytesWritten, 12 * 2);
  mgpuMemcpy(result.data(), c, 24, nullptr);
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(ampF16ToF32(result[i]), 8.0f) << i;
  for (void *pointer : {a, b, r, biasDevice, c, aux})
    mgpuMemFree(pointer, nullptr);
}

TEST_F(GpuSimTest, TheReluMaskEpiloguesRecordTheMaskNotAMatrix) {
  // h (2 x 136, f16) = relu(A (2 x 8) B (8 x 136) + bias), A and B ones,
  // bias[j] -7 for even j and -9 for odd: the sum 8 + bias[j] is positive
  // for even j only; the mask is 2 rows of 256 bits (136 rounded up to a
  // multiple of 128).
  const int64_t m = 2, n = 136, k = 8;
  ASSERT_EQ(ampGemmReluMaskRowBits(n), 256);
  ASSERT_EQ(ampGemmReluMaskBytes(1, m, n), 64);
  std::vector<uint16_t> ones(n * k, ampF32ToF16(1.0f)), bias(n);
  for (int64_t j = 0; j < n; ++j)
    bias[j] = ampF32ToF16(j % 2 ? -9.0f : -7.0f);
  auto upload = [](std::vector<uint16_t> &host) {
    void *device = mgpuMemAlloc(host.size() * 2, nullptr, false);
    mgpuMemcpy(device, host.data(), host.size() * 2, nullptr);
    return device;
  };
  void *a = upload(ones), *b = upload(ones), *biasDevice = upload(bias);
  void *h = mgpuMemAlloc(m * n * 2, nullptr, false);
  void *dx = mgpuMemAlloc(m * n * 2, nullptr, false);
  void *mask = mgpuMemAlloc(64, nullptr, false);
  ampSimResetStats();
  ampGpuGemmEpilogue(0, 0, 1, m, n, k, a, AMP_DTYPE_F16, k, 0, b, AMP_DTYPE_F16,
                     n, 0, h, AMP_DTYPE_F16, n, 0, 0.0f,
                     AMP_GEMM_EPILOGUE_RELU_AUX_BIAS, biasDevice, nullptr,
                     mask);
  EXPECT_EQ(gError, "");
  std::vector<AmpSimRecord> records = getRecords("h100-sxm");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_STREQ(records[0].name, "ampGpuGemmEpilogue f16*f16->f16 m=2 n=136 "
                                "k=8 epilogue=relu_aux_bias");
  // A, B and the bias read; C and the 64-byte mask written.
  EXPECT_EQ(records[0].bytesRead, (m * k + k * n + n) * 2);
  EXPECT_EQ(records[0].bytesWritten, m * n * 2 + 64);
  // The simulator's layout: bit j % 8 of byte i * 32 + j / 8, set for
  // even j (0x55).
  std::vector<uint8_t> bits(64);
  mgpuMemcpy(bits.data(), mask, 64, nullptr);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t byte = 0; byte < 17; ++byte)
      EXPECT_EQ(bits[i * 32 + byte], 0x55) << i << " " << byte;
  std::vector<uint16_t> result(m * n);
  mgpuMemcpy(result.data(), h, m * n * 2, nullptr);
  for (int64_t e = 0; e < m * n; ++e)
    EXPECT_EQ(ampF16ToF32(result[e]), e % 2 ? 0.0f : 1.0f) << e;
  // DRELU reads the mask, no bias: the product (8) where the bit is set.
  ampSimResetStats();
  ampGpuGemmEpilogue(0, 0, 1, m, n, k, a, AMP_DTYPE_F16, k, 0, b, AMP_DTYPE_F16,
                     n, 0, dx, AMP_DTYPE_F16, n, 0, 0.0f,
                     AMP_GEMM_EPILOGUE_DRELU, nullptr, nullptr, mask);
  EXPECT_EQ(gError, "");
  records = getRecords("h100-sxm");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_STREQ(records[0].name, "ampGpuGemmEpilogue f16*f16->f16 m=2 n=136 "
                                "k=8 epilogue=drelu");
  EXPECT_EQ(records[0].bytesRead, (m * k + k * n) * 2 + 64);
  EXPECT_EQ(records[0].bytesWritten, m * n * 2);
  mgpuMemcpy(result.data(), dx, m * n * 2, nullptr);
  for (int64_t e = 0; e < m * n; ++e)
    EXPECT_EQ(ampF16ToF32(result[e]), e % 2 ? 0.0f : 8.0f) << e;
  // The mask must lie whole in a device allocation: 48 bytes hold 1.5 rows.
  void *shortMask = mgpuMemAlloc(48, nullptr, false);
  ampGpuGemmEpilogue(0, 0, 1, m, n, k, a, AMP_DTYPE_F16, k, 0, b, AMP_DTYPE_F16,
                     n, 0, dx, AMP_DTYPE_F16, n, 0, 0.0f,
                     AMP_GEMM_EPILOGUE_DRELU, nullptr, nullptr, shortMask);
  EXPECT_NE(gError.find("ampGpuGemmEpilogue: aux"), std::string::npos)
      << gError;
  gError.clear();
  for (void *pointer : {a, b, biasDevice, h, dx, mask, shortMask})
    mgpuMemFree(pointer, nullptr);
}

TEST_F(GpuSimTest, AnAttentionRecordsOneLibraryCall) {
  // b 1, h 2, sq 8, skv 16, d 8, f16; v holds 1 at every key, so out is 1
  // whatever the softmax; a causal mask and stats.
  std::vector<uint16_t> ones(2 * 16 * 8, ampF32ToF16(1.0f));
  void *q = mgpuMemAlloc(2 * 8 * 8 * 2, nullptr, false);
  void *kv = mgpuMemAlloc(ones.size() * 2, nullptr, false);
  mgpuMemcpy(q, ones.data(), 2 * 8 * 8 * 2, nullptr);
  mgpuMemcpy(kv, ones.data(), ones.size() * 2, nullptr);
  void *out = mgpuMemAlloc(2 * 8 * 8 * 2, nullptr, false);
  void *stats = mgpuMemAlloc(2 * 8 * 4, nullptr, false);
  ampSimResetStats();
  // Dense (b, h, s, d) tensors; k and v are one buffer.
  ampGpuAttention(1, 2, 8, 16, 8, AMP_DTYPE_F16, q, 128, 64, 8, kv, 256, 128, 8,
                  kv, 256, 128, 8, out, 128, 64, 8, nullptr, 0, 0, 0,
                  static_cast<float *>(stats), 0.5f, 1);
  EXPECT_EQ(gError, "");
  std::vector<AmpSimRecord> records = getRecords("h100-sxm");
  EXPECT_EQ(records.size(), 1u);
  if (!records.empty()) {
    EXPECT_STREQ(records[0].name,
                 "ampGpuAttention f16 b=1 h=2 sq=8 skv=16 d=8 causal stats");
    EXPECT_EQ(records[0].kind, AMP_SIM_RECORD_LIBRARY);
    // The two products, half of them masked.
    EXPECT_EQ(records[0].flops, 4 * 2 * 8 * 16 * 8 / 2);
    // q, k and v read once; out and the f32 stats written once: no scores.
    EXPECT_EQ(records[0].bytesRead, (128 + 256 + 256) * 2);
    EXPECT_EQ(records[0].bytesWritten, 128 * 2 + 16 * 4);
  }
  std::vector<uint16_t> result(128);
  mgpuMemcpy(result.data(), out, 256, nullptr);
  for (int i = 0; i < 128; ++i)
    EXPECT_EQ(ampF16ToF32(result[i]), 1.0f) << i;
  // Row i sees keys 0..i, each score 0.5 * 8: log-sum-exp 4 + log(i + 1).
  std::vector<float> lse(16);
  mgpuMemcpy(lse.data(), stats, 64, nullptr);
  for (int i = 0; i < 16; ++i)
    EXPECT_NEAR(lse[i], 4.0 + std::log(i % 8 + 1.0), 1e-5) << i;
  // v past its allocation is reported.
  ampGpuAttention(1, 2, 8, 16, 8, AMP_DTYPE_F16, q, 128, 64, 8, kv, 256, 128, 8,
                  static_cast<char *>(kv) + 16, 256, 128, 8, out, 128, 64, 8,
                  nullptr, 0, 0, 0, nullptr, 0.5f, 0);
  EXPECT_NE(gError.find("ampGpuAttention: v"), std::string::npos) << gError;
  gError.clear();
  for (void *pointer : {q, kv, out, stats})
    mgpuMemFree(pointer, nullptr);
}

TEST_F(GpuSimTest, AnAttentionBackwardRecordsOneLibraryCall) {
  // b 1, h 2, sq 8, skv 16, d 8, f16, causal, a zero mask broadcast over
  // batch and heads. q, k, v and dOut hold 1: every score of row i is
  // 0.5 * 8 for keys 0..i, P[i,j] = 1/(i+1) there, out = 1, dP = D = 8, so
  // dS = 0 (dq = dk = 0) and dv[j] = sum over i >= j of 1/(i+1) (0 for the
  // keys past the last query).
  std::vector<uint16_t> ones(2 * 16 * 8, ampF32ToF16(1.0f));
  void *q = mgpuMemAlloc(2 * 8 * 8 * 2, nullptr, false);
  void *kv = mgpuMemAlloc(ones.size() * 2, nullptr, false);
  void *dOut = mgpuMemAlloc(2 * 8 * 8 * 2, nullptr, false);
  mgpuMemcpy(q, ones.data(), 2 * 8 * 8 * 2, nullptr);
  mgpuMemcpy(kv, ones.data(), ones.size() * 2, nullptr);
  mgpuMemcpy(dOut, ones.data(), 2 * 8 * 8 * 2, nullptr);
  std::vector<uint16_t> zeros(8 * 16, 0);
  void *bias = mgpuMemAlloc(zeros.size() * 2, nullptr, false);
  mgpuMemcpy(bias, zeros.data(), zeros.size() * 2, nullptr);
  void *out = mgpuMemAlloc(2 * 8 * 8 * 2, nullptr, false);
  void *stats = mgpuMemAlloc(2 * 8 * 4, nullptr, false);
  // The gradients, filled with 2 (that nothing may add to).
  std::vector<uint16_t> twos(2 * 16 * 8, ampF32ToF16(2.0f));
  void *dq = mgpuMemAlloc(2 * 8 * 8 * 2, nullptr, false);
  void *dk = mgpuMemAlloc(twos.size() * 2, nullptr, false);
  void *dv = mgpuMemAlloc(twos.size() * 2, nullptr, false);
  mgpuMemcpy(dq, twos.data(), 2 * 8 * 8 * 2, nullptr);
  mgpuMemcpy(dk, twos.data(), twos.size() * 2, nullptr);
  mgpuMemcpy(dv, twos.data(), twos.size() * 2, nullptr);
  // Dense (b, h, s, d) tensors; k and v are one buffer.
  ampGpuAttention(1, 2, 8, 16, 8, AMP_DTYPE_F16, q, 128, 64, 8, kv, 256, 128, 8,
                  kv, 256, 128, 8, out, 128, 64, 8, bias, 0, 0, 16,
                  static_cast<float *>(stats), 0.5f, 1);
  ampSimResetStats();
  auto backward = [&](const void *v) {
    ampGpuAttentionBackward(1, 2, 8, 16, 8, AMP_DTYPE_F16, q, 128, 64, 8, kv,
                            256, 128, 8, v, 256, 128, 8, out, 128, 64, 8, dOut,
                            128, 64, 8, static_cast<const float *>(stats), dq,
                            128, 64, 8, dk, 256, 128, 8, dv, 256, 128, 8, bias,
                            0, 0, 16, 0.5f, 1);
  };
  backward(kv);
  EXPECT_EQ(gError, "");
  std::vector<AmpSimRecord> records = getRecords("h100-sxm");
  EXPECT_EQ(records.size(), 1u);
  if (!records.empty()) {
    EXPECT_STREQ(records[0].name, "ampGpuAttentionBackward f16 b=1 h=2 sq=8 "
                                  "skv=16 d=8 causal bias");
    EXPECT_EQ(records[0].kind, AMP_SIM_RECORD_LIBRARY);
    // The five products, half of them masked.
    EXPECT_EQ(records[0].flops, 10 * 2 * 8 * 16 * 8 / 2);
    // q, k, v, out, dOut, the mask and the f32 stats read once; dq, dk and
    // dv written once: no scores.
    EXPECT_EQ(records[0].bytesRead,
              (128 + 256 + 256 + 128 + 128 + 8 * 16) * 2 + 16 * 4);
    EXPECT_EQ(records[0].bytesWritten, (128 + 256 + 256) * 2);
  }
  std::vector<uint16_t> dqValues(128), dkValues(256), dvValues(256);
  mgpuMemcpy(dqValues.data(), dq, 256, nullptr);
  mgpuMemcpy(dkValues.data(), dk, 512, nullptr);
  mgpuMemcpy(dvValues.data(), dv, 512, nullptr);
  for (int i = 0; i < 128; ++i)
    EXPECT_EQ(ampF16ToF32(dqValues[i]), 0.0f) << i;
  for (int i = 0; i < 256; ++i) {
    EXPECT_EQ(ampF16ToF32(dkValues[i]), 0.0f) << i;
    int key = i / 8 % 16;
    double expected = 0.0;
    for (int query = key; query < 8; ++query)
      expected += 1.0 / (query + 1);
    // One rounding to f16: within 2^-11 of it.
    EXPECT_NEAR(ampF16ToF32(dvValues[i]), expected, expected / 2048) << i;
  }
  // Count-only: the same record, and the gradients written as zeros.
  ampSimSetCountOnly(1);
  ampSimResetStats();
  backward(kv);
  ampSimSetCountOnly(0);
  EXPECT_EQ(gError, "");
  EXPECT_EQ(getRecords("h100-sxm").size(), 1u);
  mgpuMemcpy(dvValues.data(), dv, 512, nullptr);
  for (int i = 0; i < 256; ++i)
    EXPECT_EQ(dvValues[i], 0) << i;
  // v past its allocation is reported.
  backward(static_cast<char *>(kv) + 16);
  EXPECT_NE(gError.find("ampGpuAttentionBackward: v"), std::string::npos)
      << gError;
  gError.clear();
  for (void *pointer : {q, kv, dOut, bias, out, stats, dq, dk, dv})
    mgpuMemFree(pointer, nullptr);
}

TEST_F(GpuSimTest, AnUnknownChipIsAnError) {
  EXPECT_STREQ(ampSimChipNames(), "h100-sxm, h200");
  AmpSimChip chip;
  EXPECT_EQ(ampSimGetChip("a100", &chip), 1);
  EXPECT_EQ(gError, "ampSimEstimate: unknown chip 'a100' (known: h100-sxm, "
                    "h200)");
  gError.clear();
  EXPECT_EQ(ampSimGetRecords("h300", nullptr, 0), -1);
  EXPECT_NE(gError.find("unknown chip 'h300'"), std::string::npos) << gError;
  gError.clear();
  AmpSimEstimate total;
  EXPECT_EQ(ampSimEstimate(nullptr, &total), 1);
  gError.clear();
}

std::vector<AmpSimLaunch> getLaunches() {
  int64_t count = ampSimGetLaunches(nullptr, 0);
  std::vector<AmpSimLaunch> launches(count > 0 ? count : 0);
  ampSimGetLaunches(launches.data(), count);
  return launches;
}

TEST_F(GpuSimTest, ListsEveryLaunchAndEstimatesAGivenList) {
  const int64_t n = 1000;
  auto *in = static_cast<float *>(mgpuMemAlloc(n * 4, nullptr, false));
  auto *out = static_cast<float *>(mgpuMemAlloc(n * 4, nullptr, false));
  auto *x = static_cast<uint16_t *>(mgpuMemAlloc(32 * 2, nullptr, false));
  auto *wt = static_cast<uint16_t *>(mgpuMemAlloc(54 * 2, nullptr, false));
  auto *y = static_cast<float *>(mgpuMemAlloc(48 * 4, nullptr, false));
  std::vector<float> host(n, 1.0f);
  mgpuMemcpy(in, host.data(), n * 4, nullptr);
  std::vector<uint16_t> zeros(54, 0);
  mgpuMemcpy(x, zeros.data(), 64, nullptr);
  mgpuMemcpy(wt, zeros.data(), 108, nullptr);
  ampSimResetStats();
  int64_t count = n;
  void *params[] = {&in, &out, &count};
  // The same kernel twice (one record, two launches), a convolution that
  // launches three kernels (two widening passes), a copy.
  ampSimLaunchKernel("test::addOneCounted", addOneCounted, 8, 1, 1, 128, 1, 1,
                     0, params, 0);
  ampSimLaunchKernel("test::addOneCounted", addOneCounted, 8, 1, 1, 128, 1, 1,
                     0, params, 0);
  ampGpuConv2d(AMP_CONV_NCHW_FCHW, 1, 2, 4, 4, 3, 3, 3, 4, 4, 1, 1, 1, 1, 1, 1,
               1, x, AMP_DTYPE_F16, wt, AMP_DTYPE_F16, y, AMP_DTYPE_F32, 0.0f);
  mgpuMemcpy(host.data(), out, n * 4, nullptr);
  EXPECT_EQ(gError, "");

  std::vector<AmpSimLaunch> launches = getLaunches();
  ASSERT_EQ(launches.size(), 6u);
  EXPECT_EQ(launches[0].record, 0);
  EXPECT_EQ(launches[1].record, 0);
  EXPECT_EQ(launches[0].kind, AMP_SIM_RECORD_KERNEL);
  EXPECT_EQ(launches[0].peak, AMP_SIM_PEAK_FP32);
  EXPECT_EQ(launches[0].library, 0);
  EXPECT_EQ(launches[0].bytesRead, 4000);
  EXPECT_EQ(launches[0].flops, 1000);
  for (int i = 2; i < 5; ++i) {
    EXPECT_EQ(launches[i].record, 1);
    EXPECT_EQ(launches[i].kind, AMP_SIM_RECORD_LIBRARY);
    EXPECT_EQ(launches[i].library, 1);
  }
  // The f16 convolution widened to f32 runs at the TF32 rate; its two
  // widening passes compute nothing.
  EXPECT_EQ(launches[4].peak, AMP_SIM_PEAK_TF32);
  EXPECT_EQ(launches[4].flops, 1728);
  EXPECT_EQ(launches[2].flops + launches[3].flops, 0);
  EXPECT_EQ(launches[5].kind, AMP_SIM_RECORD_COPY);
  EXPECT_EQ(launches[5].hostBytes, 4000);

  // The list estimates to what the records add up to, launch by launch.
  for (const char *chip : {"h100-sxm", "h200"}) {
    AmpSimEstimate recorded, listed;
    ASSERT_EQ(ampSimEstimate(chip, &recorded), 0);
    ASSERT_EQ(ampSimEstimateLaunches(chip, launches.data(),
                                     int64_t(launches.size()), &listed),
              0);
    EXPECT_NEAR(listed.seconds, recorded.seconds, 1e-15);
    EXPECT_NEAR(listed.kernelSeconds, recorded.kernelSeconds, 1e-15);
    EXPECT_NEAR(listed.librarySeconds, recorded.librarySeconds, 1e-15);
    EXPECT_NEAR(listed.copySeconds, recorded.copySeconds, 1e-15);
    EXPECT_EQ(listed.launches, recorded.launches);
    EXPECT_EQ(listed.launches, 5);
  }
  // Counts of one's own: ten times the kernel's bytes make it memory bound.
  AmpSimChip chip;
  ASSERT_EQ(ampSimGetChip("h100-sxm", &chip), 0);
  AmpSimLaunch big = launches[0];
  big.bytesRead = 4e9;
  big.bytesWritten = 0;
  AmpSimEstimate one;
  ASSERT_EQ(ampSimEstimateLaunches("h100-sxm", &big, 1, &one), 0);
  EXPECT_NEAR(one.kernelSeconds, 4e9 / chip.bandwidth + chip.launchSeconds,
              1e-12);
  // A negative count, an unknown kind or peak, an unknown chip: errors.
  big.flops = -1;
  EXPECT_EQ(ampSimEstimateLaunches("h100-sxm", &big, 1, &one), 1);
  EXPECT_NE(gError.find("ampSimEstimateLaunches: launch #0"), std::string::npos)
      << gError;
  gError.clear();
  big.flops = 0;
  big.peak = 7;
  EXPECT_EQ(ampSimEstimateLaunches("h100-sxm", &big, 1, &one), 1);
  gError.clear();
  EXPECT_EQ(ampSimEstimateLaunches("a100", launches.data(), 1, &one), 1);
  EXPECT_NE(gError.find("unknown chip 'a100'"), std::string::npos) << gError;
  gError.clear();
  // A reset empties the list.
  ampSimResetStats();
  EXPECT_EQ(ampSimGetLaunches(nullptr, 0), 0);
  for (void *pointer :
       {(void *)in, (void *)out, (void *)x, (void *)wt, (void *)y})
    mgpuMemFree(pointer, nullptr);
}

TEST_F(GpuSimTest, CountOnlyCountsWithoutComputing) {
  const int64_t n = 1000;
  auto *in = static_cast<float *>(mgpuMemAlloc(n * 4, nullptr, false));
  auto *out = static_cast<float *>(mgpuMemAlloc(n * 4, nullptr, false));
  auto *c = static_cast<float *>(mgpuMemAlloc(48, nullptr, false));
  std::vector<float> host(n, 1.0f);
  mgpuMemcpy(in, host.data(), n * 4, nullptr);
  int64_t count = n;
  void *params[] = {&in, &out, &count};
  auto measure = [&](bool countOnly) {
    ampSimSetCountOnly(countOnly);
    ampSimResetStats();
    // 8 blocks of 128 over 1000 elements: the last block is a tail of 104.
    ampSimLaunchKernel("test::addOneCounted", addOneCounted, 8, 1, 1, 128, 1, 1,
                       0, params, 0);
    ampGpuGemm(0, 0, 1, 4, 3, 4, in, AMP_DTYPE_F32, 4, 0, in, AMP_DTYPE_F32, 3,
               0, c, AMP_DTYPE_F32, 3, 0, 0.0f);
    ampSimSetCountOnly(0);
    return getLaunches();
  };
  std::vector<AmpSimLaunch> full = measure(false);
  std::vector<float> result(n), gemm(12);
  mgpuMemcpy(result.data(), out, n * 4, nullptr);
  mgpuMemcpy(gemm.data(), c, 48, nullptr);
  EXPECT_EQ(result[500], 2.0f);
  EXPECT_EQ(gemm[0], 4.0f);

  // Count-only: the same counts; blocks 0, 1 and 7 ran (others are
  // counted as block 1), and the GEMM wrote zeros.
  std::vector<float> marker(n, -1.0f);
  mgpuMemcpy(out, marker.data(), n * 4, nullptr);
  std::vector<AmpSimLaunch> counted = measure(true);
  EXPECT_EQ(gError, "");
  ASSERT_EQ(counted.size(), full.size());
  for (size_t i = 0; i < full.size(); ++i) {
    EXPECT_EQ(counted[i].bytesRead, full[i].bytesRead) << i;
    EXPECT_EQ(counted[i].bytesWritten, full[i].bytesWritten) << i;
    EXPECT_EQ(counted[i].flops, full[i].flops) << i;
  }
  EXPECT_EQ(counted[0].flops, 1000);
  mgpuMemcpy(result.data(), out, n * 4, nullptr);
  mgpuMemcpy(gemm.data(), c, 48, nullptr);
  EXPECT_EQ(result[0], 2.0f);    // block 0
  EXPECT_EQ(result[200], 2.0f);  // block 1
  EXPECT_EQ(result[300], -1.0f); // block 2: counted, not run
  EXPECT_EQ(result[999], 2.0f);  // block 7, the tail
  EXPECT_EQ(gemm[0], 0.0f);

  // The kernel, the GEMM, the copies that read the results back.
  std::vector<AmpSimRecord> records = getRecords("h100-sxm");
  ASSERT_EQ(records.size(), 3u);
  EXPECT_STREQ(records[0].name, "test::addOneCounted");
  EXPECT_EQ(records[0].loads[2], 1000);
  EXPECT_EQ(records[0].stores[2], 1000);

  // A two-dimensional grid (8 x 2 blocks of 64) runs every block, in count-only
  // mode.
  mgpuMemcpy(out, marker.data(), n * 4, nullptr);
  ampSimSetCountOnly(1);
  ampSimLaunchKernel("test::addOneCounted", addOneCounted, 8, 2, 1, 64, 1, 1, 0,
                     params, 0);
  ampSimSetCountOnly(0);
  mgpuMemcpy(result.data(), out, n * 4, nullptr);
  EXPECT_EQ(result[300], 2.0f); // block (4, 0): run
  EXPECT_EQ(gError, "");
  for (void *pointer : {(void *)in, (void *)out, (void *)c})
    mgpuMemFree(pointer, nullptr);
}

TEST_F(GpuSimTest, CountOnlyCountsEachBodyOfAMergedKernel) {
  // Two bodies in one launch: 5 blocks of 64 threads over 300 elements
  // (64 x 4 and 44), then 6 over 330 (64 x 5 and 10). Count-only counts
  // each body's range as a kernel (its blocks 0, 1 and last run): the full
  // run's counts, and 6 of the 11 blocks run. Without the segments (an
  // uneven kernel) every block runs; segments that do not add up to the
  // grid are an error.
  const int64_t n = 1024;
  auto *in = static_cast<float *>(mgpuMemAlloc(n * 4, nullptr, false));
  auto *out = static_cast<float *>(mgpuMemAlloc(n * 4, nullptr, false));
  std::vector<float> host(n, 1.0f);
  mgpuMemcpy(in, host.data(), n * 4, nullptr);
  int64_t countA = 300, countB = 330, gridA = 5, gridB = 6;
  void *params[] = {&in, &out, &countA, &countB, &gridA, &gridB};
  int32_t sizes[] = {8, 8, 8, 8, 8, 8};
  int32_t segments[] = {4, 5};
  auto measure = [&](bool countOnly, int32_t numSegments, int64_t grid) {
    ampSimSetCountOnly(countOnly);
    ampSimResetStats();
    gMergedBlocksRun = 0;
    ampSimLaunchKernelInSegments("test::addOneMerged", addOneMerged, grid, 1, 1,
                                 64, 1, 1, 0, params, AMP_SIM_KERNEL_UNEVEN, 6,
                                 sizes, numSegments, segments);
    ampSimSetCountOnly(0);
    std::vector<AmpSimLaunch> launches = getLaunches();
    return launches.size() == 1 ? launches[0].bytesRead : int64_t(-1);
  };
  EXPECT_EQ(measure(false, 2, 11), (300 + 330) * 4);
  EXPECT_EQ(gMergedBlocksRun, 11);
  EXPECT_EQ(measure(true, 2, 11), (300 + 330) * 4);
  EXPECT_EQ(gMergedBlocksRun, 6);
  EXPECT_EQ(measure(true, 0, 11), (300 + 330) * 4);
  EXPECT_EQ(gMergedBlocksRun, 11);
  EXPECT_EQ(gError, "");
  EXPECT_EQ(measure(true, 2, 12), -1);
  EXPECT_NE(gError.find("launched with 12 blocks in segments that add up to "
                        "11"),
            std::string::npos)
      << gError;
  gError.clear();
  std::vector<float> result(n);
  mgpuMemcpy(result.data(), out, n * 4, nullptr);
  EXPECT_EQ(result[299], 2.0f);
  EXPECT_EQ(result[512 + 329], 2.0f);
  mgpuMemFree(in, nullptr);
  mgpuMemFree(out, nullptr);
}

TEST_F(GpuSimTest, CountOnlyRunsEveryBlockOfAnUnevenKernel) {
  // Blocks 0 and 1 count the same, block 2 does less: with
  // AMP_SIM_KERNEL_UNEVEN count-only mode runs every block, so the counts
  // are the full run's; without it block 2 is counted as block 1.
  const int64_t n = 1000;
  auto *in = static_cast<float *>(mgpuMemAlloc(n * 4, nullptr, false));
  auto *out = static_cast<float *>(mgpuMemAlloc(n * 4, nullptr, false));
  std::vector<float> host(n, 1.0f);
  mgpuMemcpy(in, host.data(), n * 4, nullptr);
  // 4 blocks of 128 threads over 300 elements: 128, 128, 44, 0.
  int64_t count = 300;
  void *params[] = {&in, &out, &count};
  auto bytesRead = [&](bool countOnly, int32_t flags) {
    ampSimSetCountOnly(countOnly);
    ampSimResetStats();
    ampSimLaunchKernel("test::addOneCounted", addOneCounted, 4, 1, 1, 128, 1, 1,
                       0, params, flags);
    ampSimSetCountOnly(0);
    std::vector<AmpSimLaunch> launches = getLaunches();
    return launches.size() == 1 ? launches[0].bytesRead : int64_t(-1);
  };
  EXPECT_EQ(bytesRead(false, 0), 300 * 4);
  EXPECT_EQ(bytesRead(true, AMP_SIM_KERNEL_UNEVEN), 300 * 4);
  EXPECT_EQ(bytesRead(true, 0), 256 * 4 + 128 * 4); // block 2 as block 1
  EXPECT_EQ(gError, "");

  // The runtime's multi-tensor optimizer (a compiled step's): one tensor of
  // two full chunks (blocks 0 and 1), two of 100 elements (blocks 2, 3).
  // Count-only mode counts what the full run counts.
  const int64_t numels[3] = {2 * 16 * 1024, 100, 100};
  std::vector<void *> owned;
  auto device = [&](int64_t elements) {
    void *pointer = mgpuMemAlloc(elements * 4, nullptr, false);
    std::vector<float> zeros(elements, 0.0f);
    mgpuMemcpy(pointer, zeros.data(), elements * 4, nullptr);
    owned.push_back(pointer);
    return static_cast<float *>(pointer);
  };
  const float *param[3], *state0[3], *state1[3];
  float *paramOut[3], *state0Out[3], *state1Out[3];
  const void *grad[3];
  int32_t gradType[3];
  for (int i = 0; i < 3; ++i) {
    param[i] = device(numels[i]), state0[i] = device(numels[i]);
    state1[i] = device(numels[i]), grad[i] = device(numels[i]);
    paramOut[i] = device(numels[i]), state0Out[i] = device(numels[i]);
    state1Out[i] = device(numels[i]);
    gradType[i] = AMP_DTYPE_F32;
  }
  auto *step = static_cast<int32_t *>(mgpuMemAlloc(8, nullptr, false));
  auto *skip = static_cast<uint8_t *>(mgpuMemAlloc(8, nullptr, false));
  int64_t zero = 0;
  mgpuMemcpy(step, &zero, 8, nullptr);
  mgpuMemcpy(skip, &zero, 8, nullptr);
  auto optimizerBytes = [&](bool countOnly) {
    ampSimSetCountOnly(countOnly);
    ampSimResetStats();
    ampGpuOptimizerUpdateBuffers(3, param, paramOut, grad, gradType, state0,
                                 state0Out, state1, state1Out, numels,
                                 AMP_OPTIMIZER_ADAMW, 1e-3f, 1e-2f, 0.0f, 0.0f,
                                 0, 0.9f, 0.999f, 1e-8f, step, skip);
    ampSimSetCountOnly(0);
    int64_t bytes = 0;
    for (const AmpSimLaunch &launch : getLaunches())
      if (launch.kind == AMP_SIM_RECORD_KERNEL)
        bytes += launch.bytesRead + launch.bytesWritten;
    return bytes;
  };
  int64_t full = optimizerBytes(false);
  // Master, both moments and the gradient read, three values written; each
  // of the 4 x 256 threads reads the skip flag and the step count.
  EXPECT_EQ(full, (2 * 16 * 1024 + 200) * 28 + 4 * 256 * 5);
  EXPECT_EQ(optimizerBytes(true), full);
  EXPECT_EQ(gError, "");
  for (void *pointer : owned)
    mgpuMemFree(pointer, nullptr);
  for (void *pointer : {(void *)in, (void *)out, (void *)step, (void *)skip})
    mgpuMemFree(pointer, nullptr);
}

//===----------------------------------------------------------------------===//
// The convolution's gradients
//===----------------------------------------------------------------------===//

namespace {

/// Device and host copies of the operands of both gradients of one
/// convolution (NCHW: x 1x2x5x5, wt 3x2x3x3, dy 1x3x3x3; padding 1, stride
/// 2), with f16 inputs and f32 outputs.
struct ConvGradients {
  static constexpr int64_t n = 1, c = 2, h = 5, w = 5, f = 3, k = 3, oh = 3,
                           ow = 3;
  static constexpr int64_t xCount = n * c * h * w, wCount = f * c * k * k,
                           dyCount = n * f * oh * ow;
  std::vector<uint16_t> x, wt, dy;
  std::vector<float> dx, dw;
  uint16_t *xDevice, *wtDevice, *dyDevice;
  float *dxDevice, *dwDevice;

  ConvGradients() : x(xCount), wt(wCount), dy(dyCount), dx(xCount, NAN) {
    for (int64_t i = 0; i < xCount; ++i)
      x[i] = ampF32ToF16(float(i % 7) - 3.0f);
    for (int64_t i = 0; i < wCount; ++i)
      wt[i] = ampF32ToF16(0.25f * float(i % 5) - 0.5f);
    for (int64_t i = 0; i < dyCount; ++i)
      dy[i] = ampF32ToF16(0.5f * float(i % 9) - 2.0f);
    for (int64_t i = 0; i < wCount; ++i)
      dw.push_back(float(i) / 8);
    xDevice = upload(x);
    wtDevice = upload(wt);
    dyDevice = upload(dy);
    dxDevice = upload(dx);
    dwDevice = upload(dw);
  }
  ~ConvGradients() {
    for (void *pointer : {(void *)xDevice, (void *)wtDevice, (void *)dyDevice,
                          (void *)dxDevice, (void *)dwDevice})
      mgpuMemFree(pointer, nullptr);
  }
  template <typename T> static T *upload(const std::vector<T> &host) {
    auto *device =
        static_cast<T *>(mgpuMemAlloc(host.size() * sizeof(T), nullptr, false));
    mgpuMemcpy(device, const_cast<T *>(host.data()), host.size() * sizeof(T),
               nullptr);
    return device;
  }
  template <typename T>
  static std::vector<T> download(const T *device, size_t count) {
    std::vector<T> host(count);
    mgpuMemcpy(host.data(), const_cast<T *>(device), count * sizeof(T),
               nullptr);
    return host;
  }
  /// dx (beta 0: dx holds NaN) and dw (beta 1) on the simulated GPU.
  void runOnGpu() {
    ampGpuConv2dBackwardData(AMP_CONV_NCHW_FCHW, n, c, h, w, f, k, k, oh, ow, 1,
                             1, 2, 2, 1, 1, 1, dyDevice, AMP_DTYPE_F16,
                             wtDevice, AMP_DTYPE_F16, dxDevice, AMP_DTYPE_F32,
                             0.0f);
    ampGpuConv2dBackwardFilter(AMP_CONV_NCHW_FCHW, n, c, h, w, f, k, k, oh, ow,
                               1, 1, 2, 2, 1, 1, 1, xDevice, AMP_DTYPE_F16,
                               dyDevice, AMP_DTYPE_F16, dwDevice, AMP_DTYPE_F32,
                               1.0f);
  }
};

TEST_F(GpuSimTest, ConvolutionGradientsAreTheCpuTwinsAndRecordTheirWork) {
  ConvGradients g;
  ampSimResetStats();
  g.runOnGpu();
  EXPECT_EQ(gError, "");
  std::vector<AmpSimRecord> records = getRecords("h100-sxm");
  std::vector<AmpSimLaunch> launches = getLaunches();
  AmpSimStats stats;
  ampSimGetStats(&stats);
  EXPECT_EQ(stats.libraryCalls, 2);

  // The simulator's results are the CPU twins', bit for bit.
  std::vector<float> dx = g.dx, dw = g.dw;
  ampCpuConv2dBackwardData(AMP_CONV_NCHW_FCHW, g.n, g.c, g.h, g.w, g.f, g.k,
                           g.k, g.oh, g.ow, 1, 1, 2, 2, 1, 1, 1, g.dy.data(),
                           AMP_DTYPE_F16, g.wt.data(), AMP_DTYPE_F16, dx.data(),
                           AMP_DTYPE_F32, 0.0f);
  ampCpuConv2dBackwardFilter(AMP_CONV_NCHW_FCHW, g.n, g.c, g.h, g.w, g.f, g.k,
                             g.k, g.oh, g.ow, 1, 1, 2, 2, 1, 1, 1, g.x.data(),
                             AMP_DTYPE_F16, g.dy.data(), AMP_DTYPE_F16,
                             dw.data(), AMP_DTYPE_F32, 1.0f);
  std::vector<float> simDx = ConvGradients::download(g.dxDevice, g.xCount),
                     simDw = ConvGradients::download(g.dwDevice, g.wCount);
  EXPECT_EQ(std::memcmp(simDx.data(), dx.data(), dx.size() * 4), 0);
  EXPECT_EQ(std::memcmp(simDw.data(), dw.data(), dw.size() * 4), 0);
  EXPECT_EQ(std::count_if(simDx.begin(), simDx.end(),
                          [](float value) { return std::isnan(value); }),
            0);
  EXPECT_GT(std::count_if(simDw.begin(), simDw.end(),
                          [&](const float &value) {
                            return value != g.dw[&value - simDw.data()];
                          }),
            0)
      << "dw was not computed";

  // Each call: two widening passes (the f16 inputs to f32) and an f32
  // convolution of 2*n*f*oh*ow*c*kh*kw FLOPs at the TF32 rate.
  ASSERT_EQ(records.size(), 2u);
  const AmpSimRecord &data = records[0], &filter = records[1];
  EXPECT_STREQ(data.name, "ampGpuConv2dBackwardData f16*f16->f32 nchw n=1 c=2 "
                          "h=5 w=5 f=3 k=3x3 s=2");
  EXPECT_STREQ(filter.name, "ampGpuConv2dBackwardFilter f16*f16->f32 nchw n=1 "
                            "c=2 h=5 w=5 f=3 k=3x3 s=2");
  EXPECT_EQ(data.kind, AMP_SIM_RECORD_LIBRARY);
  EXPECT_EQ(data.flops, 2 * 1 * 3 * 3 * 3 * 2 * 3 * 3);
  EXPECT_EQ(filter.flops, data.flops);
  // dy (27 x 2 -> 4 bytes) and wt (54 x 2 -> 4) widened, both read by the
  // convolution, dx (50 x 4) written (beta 0: not read).
  EXPECT_EQ(data.bytesRead, 54 + 108 + (27 + 54) * 4);
  EXPECT_EQ(data.bytesWritten, 108 + 216 + 200);
  // x (50 x 2 -> 4) and dy widened, both read, dw (54 x 4) read (beta 1)
  // and written.
  EXPECT_EQ(filter.bytesRead, 100 + 54 + (50 + 27) * 4 + 216);
  EXPECT_EQ(filter.bytesWritten, 200 + 108 + 216);
  EXPECT_EQ(data.launches, 3);
  EXPECT_EQ(filter.launches, 3);
  ASSERT_EQ(launches.size(), 6u);
  for (int i : {2, 5}) {
    EXPECT_EQ(launches[i].peak, AMP_SIM_PEAK_TF32) << i;
    EXPECT_EQ(launches[i].flops, 972) << i;
  }
  EXPECT_EQ(launches[0].flops + launches[1].flops, 0);
}

TEST_F(GpuSimTest, AConvolutionWithAnEpilogueIsOneFusedPass) {
  // ampGpuConv2dEpilogue (cuDNN's graph: the convolution and its epilogue
  // in one kernel): one library call, one launch, no widening pass for its
  // f16 inputs into an f32 output; x, wt, the scale, the bias and the
  // residual read once, y written once; the CPU twin's result, bit for bit.
  const int64_t n = 2, c = 8, h = 4, w = 4, f = 8;
  std::vector<uint16_t> x(n * h * w * c), wt(f * 3 * 3 * c);
  std::vector<float> residual(n * h * w * f), scale(f), bias(f);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = ampF32ToF16(static_cast<float>(int(i % 7) - 3));
  for (size_t i = 0; i < wt.size(); ++i)
    wt[i] = ampF32ToF16(static_cast<float>(int(i % 5) - 2) / 4);
  for (int64_t i = 0; i < f; ++i) {
    scale[i] = 0.5f + i;
    bias[i] = -2.0f * i;
  }
  for (size_t i = 0; i < residual.size(); ++i)
    residual[i] = static_cast<float>(int(i % 9) - 4);
  auto upload = [](const void *host, size_t bytes) {
    void *device = mgpuMemAlloc(bytes, nullptr, false);
    mgpuMemcpy(device, const_cast<void *>(host), bytes, nullptr);
    return device;
  };
  void *dx = upload(x.data(), x.size() * 2),
       *dw = upload(wt.data(), wt.size() * 2),
       *ds = upload(scale.data(), f * 4), *db = upload(bias.data(), f * 4),
       *dr = upload(residual.data(), residual.size() * 4);
  void *dy = mgpuMemAlloc(residual.size() * 4, nullptr, false);
  ampSimResetStats();
  ampGpuConv2dEpilogue(AMP_CONV_NHWC_FHWC, n, c, h, w, f, 3, 3, h, w, 1, 1, 1,
                       1, 1, 1, 1, dx, AMP_DTYPE_F16, dw, AMP_DTYPE_F16, dy,
                       AMP_DTYPE_F32, AMP_CONV_EPILOGUE_SCALE_BIAS_RELU,
                       static_cast<float *>(ds), static_cast<float *>(db), dr);
  EXPECT_EQ(gError, "");
  AmpSimStats stats;
  ampSimGetStats(&stats);
  EXPECT_EQ(stats.libraryCalls, 1);
  std::vector<AmpSimRecord> records = getRecords("h100-sxm");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_STREQ(records[0].name,
               "ampGpuConv2dEpilogue f16*f16->f32 nhwc n=2 c=8 h=4 w=4 f=8 "
               "k=3x3 s=1 epilogue=scale_bias_relu+residual");
  EXPECT_EQ(records[0].launches, 1);
  const int64_t yCount = n * h * w * f;
  EXPECT_EQ(records[0].bytesRead,
            (n * h * w * c + f * 9 * c) * 2 + 2 * f * 4 + yCount * 4);
  EXPECT_EQ(records[0].bytesWritten, yCount * 4);
  EXPECT_EQ(records[0].flops, 2 * yCount * c * 9 + 4 * yCount);
  std::vector<float> simulated(yCount), expected(yCount);
  mgpuMemcpy(simulated.data(), dy, yCount * 4, nullptr);
  ampCpuConv2dEpilogue(AMP_CONV_NHWC_FHWC, n, c, h, w, f, 3, 3, h, w, 1, 1, 1,
                       1, 1, 1, 1, x.data(), AMP_DTYPE_F16, wt.data(),
                       AMP_DTYPE_F16, expected.data(), AMP_DTYPE_F32,
                       AMP_CONV_EPILOGUE_SCALE_BIAS_RELU, scale.data(),
                       bias.data(), residual.data());
  EXPECT_EQ(std::memcmp(simulated.data(), expected.data(), yCount * 4), 0);
  EXPECT_GT(std::count(expected.begin(), expected.end(), 0.0f), 0)
      << "the ReLU clamps some";
  EXPECT_GT(std::count_if(expected.begin(), expected.end(),
                          [](float value) { return value > 0; }),
            0);
  for (void *pointer : {dx, dw, ds, db, dr, dy})
    mgpuMemFree(pointer, nullptr);
}

TEST_F(GpuSimTest, ConvolutionGradientsCountOnly) {
  // Counted and checked as usual, the outputs zeroed instead of computed.
  ConvGradients g;
  ampSimResetStats();
  ampSimSetCountOnly(1);
  g.runOnGpu();
  ampSimSetCountOnly(0);
  EXPECT_EQ(gError, "");
  std::vector<AmpSimRecord> records = getRecords("h100-sxm");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].flops, 972);
  EXPECT_EQ(records[1].bytesWritten, 200 + 108 + 216);
  for (float value : ConvGradients::download(g.dxDevice, g.xCount))
    ASSERT_EQ(value, 0.0f);
  for (float value : ConvGradients::download(g.dwDevice, g.wCount))
    ASSERT_EQ(value, 0.0f);
}

TEST_F(GpuSimTest, ConvolutionGradientsCheckTheirOperands) {
  ConvGradients g;
  ampSimResetStats();
  // dx in a buffer of 50 f16 (its f32 needs 200 bytes): outside it.
  ampGpuConv2dBackwardData(AMP_CONV_NCHW_FCHW, g.n, g.c, g.h, g.w, g.f, g.k,
                           g.k, g.oh, g.ow, 1, 1, 2, 2, 1, 1, 1, g.dyDevice,
                           AMP_DTYPE_F16, g.wtDevice, AMP_DTYPE_F16, g.xDevice,
                           AMP_DTYPE_F32, 0.0f);
  EXPECT_NE(gError.find("ampGpuConv2dBackwardData: dx: "), std::string::npos)
      << gError;
  gError.clear();
  // dy of a 2-image batch is past its buffer.
  ampGpuConv2dBackwardFilter(AMP_CONV_NCHW_FCHW, 2, g.c, g.h, g.w, g.f, g.k,
                             g.k, g.oh, g.ow, 1, 1, 2, 2, 1, 1, 1, g.xDevice,
                             AMP_DTYPE_F16, g.dyDevice, AMP_DTYPE_F16,
                             g.dwDevice, AMP_DTYPE_F32, 0.0f);
  EXPECT_NE(gError.find("ampGpuConv2dBackwardFilter: x: "), std::string::npos)
      << gError;
  gError.clear();
  AmpSimStats stats;
  ampSimGetStats(&stats);
  EXPECT_EQ(stats.libraryCalls, 2);
  // A batch of 0 and asymmetric padding are refused before any library
  // call.
  ampSimResetStats();
  ampGpuConv2dBackwardFilter(AMP_CONV_NCHW_FCHW, 0, g.c, g.h, g.w, g.f, g.k,
                             g.k, g.oh, g.ow, 1, 1, 2, 2, 1, 1, 1, nullptr,
                             AMP_DTYPE_F16, nullptr, AMP_DTYPE_F16, g.dwDevice,
                             AMP_DTYPE_F32, 0.0f);
  EXPECT_NE(gError.find("ampGpuConv2dBackwardFilter: invalid n = 0"),
            std::string::npos)
      << gError;
  gError.clear();
  ampGpuConv2dBackwardData(AMP_CONV_NCHW_FCHW, g.n, g.c, g.h, g.w, g.f, g.k,
                           g.k, g.oh - 1, g.ow, 1, 1, 2, 2, 1, 1, 1, g.dyDevice,
                           AMP_DTYPE_F16, g.wtDevice, AMP_DTYPE_F16, g.dxDevice,
                           AMP_DTYPE_F32, 0.0f);
  EXPECT_NE(gError.find("asymmetric padding is unsupported"), std::string::npos)
      << gError;
  gError.clear();
  ampSimGetStats(&stats);
  EXPECT_EQ(stats.libraryCalls, 0);
}

// A grouped convolution and its gradients on the simulated GPU: the filter
// buffer holds f x c/groups x kh x kw values (the device range checks), the
// results are the CPU twins' and the records count c/groups channels per
// output.
TEST_F(GpuSimTest, GroupedConvolutionsAreTheCpuTwinsAndRecordTheirWork) {
  const int64_t n = 1, c = 4, h = 5, w = 5, f = 6, k = 3, groups = 2;
  const int64_t xCount = n * c * h * w, wCount = f * (c / groups) * k * k,
                yCount = n * f * h * w;
  std::vector<float> x(xCount), wt(wCount), dy(yCount);
  for (int64_t i = 0; i < xCount; ++i)
    x[i] = float(i % 7) - 3.0f;
  for (int64_t i = 0; i < wCount; ++i)
    wt[i] = 0.25f * float(i % 5) - 0.5f;
  for (int64_t i = 0; i < yCount; ++i)
    dy[i] = 0.5f * float(i % 9) - 2.0f;
  auto upload = [](const std::vector<float> &host) {
    auto *device =
        static_cast<float *>(mgpuMemAlloc(host.size() * 4, nullptr, false));
    mgpuMemcpy(device, const_cast<float *>(host.data()), host.size() * 4,
               nullptr);
    return device;
  };
  auto download = [](const float *device, int64_t count) {
    std::vector<float> host(count);
    mgpuMemcpy(host.data(), const_cast<float *>(device), count * 4, nullptr);
    return host;
  };
  float *xDevice = upload(x), *wtDevice = upload(wt), *dyDevice = upload(dy),
        *yDevice = upload(std::vector<float>(yCount)),
        *dxDevice = upload(std::vector<float>(xCount)),
        *dwDevice = upload(std::vector<float>(wCount));
  ampSimResetStats();
  ampGpuConv2d(AMP_CONV_NCHW_FCHW, n, c, h, w, f, k, k, h, w, 1, 1, 1, 1, 1, 1,
               groups, xDevice, AMP_DTYPE_F32, wtDevice, AMP_DTYPE_F32, yDevice,
               AMP_DTYPE_F32, 0.0f);
  ampGpuConv2dBackwardData(AMP_CONV_NCHW_FCHW, n, c, h, w, f, k, k, h, w, 1, 1,
                           1, 1, 1, 1, groups, dyDevice, AMP_DTYPE_F32,
                           wtDevice, AMP_DTYPE_F32, dxDevice, AMP_DTYPE_F32,
                           0.0f);
  ampGpuConv2dBackwardFilter(AMP_CONV_NCHW_FCHW, n, c, h, w, f, k, k, h, w, 1,
                             1, 1, 1, 1, 1, groups, xDevice, AMP_DTYPE_F32,
                             dyDevice, AMP_DTYPE_F32, dwDevice, AMP_DTYPE_F32,
                             0.0f);
  EXPECT_EQ(gError, "");
  std::vector<AmpSimRecord> records = getRecords("h100-sxm");
  std::vector<float> y(yCount), dx(xCount), dw(wCount);
  ampCpuConv2d(AMP_CONV_NCHW_FCHW, n, c, h, w, f, k, k, h, w, 1, 1, 1, 1, 1, 1,
               groups, x.data(), AMP_DTYPE_F32, wt.data(), AMP_DTYPE_F32,
               y.data(), AMP_DTYPE_F32, 0.0f);
  ampCpuConv2dBackwardData(AMP_CONV_NCHW_FCHW, n, c, h, w, f, k, k, h, w, 1, 1,
                           1, 1, 1, 1, groups, dy.data(), AMP_DTYPE_F32,
                           wt.data(), AMP_DTYPE_F32, dx.data(), AMP_DTYPE_F32,
                           0.0f);
  ampCpuConv2dBackwardFilter(AMP_CONV_NCHW_FCHW, n, c, h, w, f, k, k, h, w, 1,
                             1, 1, 1, 1, 1, groups, x.data(), AMP_DTYPE_F32,
                             dy.data(), AMP_DTYPE_F32, dw.data(), AMP_DTYPE_F32,
                             0.0f);
  EXPECT_EQ(download(yDevice, yCount), y);
  EXPECT_EQ(download(dxDevice, xCount), dx);
  EXPECT_EQ(download(dwDevice, wCount), dw);
  EXPECT_NE(std::count(y.begin(), y.end(), 0.0f), yCount) << "y not computed";

  EXPECT_EQ(records.size(), 3u);
  for (size_t i = 0; i < records.size() && i < 3; ++i) {
    SCOPED_TRACE(records[i].name);
    // 2*n*f*oh*ow*(c/groups)*kh*kw.
    EXPECT_EQ(records[i].flops, 2 * 1 * 6 * 5 * 5 * 2 * 3 * 3);
  }
  EXPECT_STREQ(records.empty() ? "" : records[0].name,
               "ampGpuConv2d f32*f32->f32 nchw n=1 c=4 h=5 "
               "w=5 f=6 k=3x3 s=1 groups=2");
  if (!records.empty()) {
    // The forward convolution reads x and the grouped filter, writes y.
    EXPECT_EQ(records[0].bytesRead, (xCount + wCount) * 4);
    EXPECT_EQ(records[0].bytesWritten, yCount * 4);
  }

  // A filter of f x c x kh x kw is not what the grouped filter buffer
  // holds: an ungrouped call reads past it.
  ampGpuConv2d(AMP_CONV_NCHW_FCHW, n, c, h, w, f, k, k, h, w, 1, 1, 1, 1, 1, 1,
               1, xDevice, AMP_DTYPE_F32, wtDevice, AMP_DTYPE_F32, yDevice,
               AMP_DTYPE_F32, 0.0f);
  EXPECT_NE(gError.find("ampGpuConv2d: wt: "), std::string::npos) << gError;
  gError.clear();
  for (float *pointer :
       {xDevice, wtDevice, dyDevice, yDevice, dxDevice, dwDevice})
    mgpuMemFree(pointer, nullptr);
}

// A CUDA graph in the simulator: what the capture queues (a temporary's
// allocation, a kernel with its parameters' sizes, a library call, a
// device-to-device copy, the temporary's free) is recorded, not run; each
// launch runs it all on the values of the capture, and the capture's host
// waits are not made. The graph's memory lives until it is destroyed.
TEST_F(GpuSimTest, AGraphReplaysWhatItsCaptureQueued) {
  const int64_t n = 16;
  auto *x = static_cast<float *>(mgpuMemAlloc(n * 4, nullptr, false));
  auto *b = static_cast<float *>(mgpuMemAlloc(n * 4, nullptr, false));
  auto *y = static_cast<float *>(mgpuMemAlloc(4 * 4 * 4, nullptr, false));
  std::vector<float> host(n, 1.0f);
  mgpuMemcpy(x, host.data(), n * 4, nullptr);
  mgpuMemcpy(b, host.data(), n * 4, nullptr);
  AmpSimStats before, captured, after;
  ampSimGetStats(&before);

  ASSERT_EQ(ampGpuGraphBeginCapture(), 0) << ampLastError();
  auto *t = static_cast<float *>(mgpuMemAlloc(n * 4, nullptr, false));
  int64_t count = n;
  void *params[] = {&x, &t, &count};
  const int32_t sizes[] = {8, 8, 8};
  // t = x + 1; y = t (4x4) * b (4x4); x = t: the next launch reads it.
  ampSimLaunchKernelWithSizes("test::addOne", addOne, 1, 1, 1, 32, 1, 1, 0,
                              params, 0, 3, sizes);
  count = 0; // The launch keeps the value the capture saw.
  ampGpuGemm(0, 0, 1, 4, 4, 4, t, AMP_DTYPE_F32, 4, 0, b, AMP_DTYPE_F32, 4, 0,
             y, AMP_DTYPE_F32, 4, 0, 0.0f);
  mgpuMemcpy(x, t, n * 4, nullptr);
  mgpuMemFree(t, nullptr);
  mgpuStreamSynchronize(nullptr);
  AmpGpuGraph *graph = ampGpuGraphEndCapture();
  ASSERT_NE(graph, nullptr) << ampLastError();
  EXPECT_EQ(gError, "");
  ampSimGetStats(&captured);
  EXPECT_EQ(captured.launches, before.launches);
  EXPECT_EQ(captured.libraryCalls, before.libraryCalls);
  EXPECT_EQ(captured.synchronizations, before.synchronizations);
  EXPECT_EQ(captured.liveBuffers, before.liveBuffers + 1); // t, the graph's
  mgpuMemcpy(host.data(), x, n * 4, nullptr);
  EXPECT_EQ(host[0], 1.0f) << "the capture ran";

  for (float expected : {2.0f, 3.0f}) {
    ASSERT_EQ(ampGpuGraphLaunch(graph), 0) << ampLastError();
    mgpuMemcpy(host.data(), x, n * 4, nullptr);
    EXPECT_EQ(host[n - 1], expected);
    float result[4 * 4];
    mgpuMemcpy(result, y, sizeof(result), nullptr);
    EXPECT_EQ(result[15], 4 * expected); // a row of t times a column of 1
  }
  EXPECT_EQ(gError, "");
  ampSimGetStats(&after);
  EXPECT_EQ(after.graphLaunches - before.graphLaunches, 2);
  EXPECT_EQ(after.launches - before.launches, 2);
  EXPECT_EQ(after.libraryCalls - before.libraryCalls, 2);
  EXPECT_EQ(after.synchronizations, before.synchronizations);
  // The graph's temporary is not the caller's to free.
  mgpuMemFree(t, nullptr);
  EXPECT_NE(gError.find("belongs to a CUDA graph"), std::string::npos)
      << gError;
  ampGpuGraphDestroy(graph);
  ampSimGetStats(&after);
  EXPECT_EQ(after.liveBuffers, before.liveBuffers);
  for (float *pointer : {x, b, y})
    mgpuMemFree(pointer, nullptr);
}

TEST_F(GpuSimTest, ACaptureRefusesWhatAGraphCannotHold) {
  auto *x = static_cast<float *>(mgpuMemAlloc(64, nullptr, false));
  std::vector<float> host(16, 1.0f);
  mgpuMemcpy(x, host.data(), 64, nullptr);
  EXPECT_EQ(ampGpuGraphEndCapture(), nullptr);
  EXPECT_NE(std::string(ampLastError()).find("not being captured"),
            std::string::npos)
      << ampLastError();
  ASSERT_EQ(ampGpuGraphBeginCapture(), 0);
  EXPECT_EQ(ampGpuGraphBeginCapture(), 1);
  EXPECT_NE(std::string(ampLastError()).find("already being captured"),
            std::string::npos)
      << ampLastError();
  mgpuMemcpy(x, host.data(), 64, nullptr);
  EXPECT_NE(gError.find("mgpuMemcpy: cannot be captured in a CUDA graph: a "
                        "copy between host and device memory"),
            std::string::npos)
      << gError;
  gError.clear();
  int64_t count = 16;
  void *params[] = {&x, &x, &count};
  ampSimLaunchKernel("test::addOne", addOne, 1, 1, 1, 32, 1, 1, 0, params, 0);
  EXPECT_NE(gError.find("without its parameters' sizes"), std::string::npos)
      << gError;
  gError.clear();
  AmpGpuGraph *graph = ampGpuGraphEndCapture();
  ASSERT_NE(graph, nullptr);
  EXPECT_EQ(ampGpuGraphLaunch(nullptr), 1);
  ASSERT_EQ(ampGpuGraphLaunch(graph), 0); // Nothing was recorded.
  mgpuMemcpy(host.data(), x, 64, nullptr);
  EXPECT_EQ(host[0], 1.0f);
  EXPECT_EQ(gError, "");
  ampGpuGraphDestroy(graph);
  mgpuMemFree(x, nullptr);
}

} // namespace
