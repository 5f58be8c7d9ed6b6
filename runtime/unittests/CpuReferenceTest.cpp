//===- CpuReferenceTest.cpp - CPU GEMM and convolution references ---------===//
//
// Part of amp-mlir. Hand-computed cases plus comparisons with independent
// naive loops for every transpose/layout/type combination.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "amp/runtime/AmpRuntime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

/// Host tensor stored in one of the AmpDType encodings.
struct Tensor {
  AmpDType type;
  std::vector<float> f32;
  std::vector<uint16_t> bits;

  Tensor(AmpDType type, size_t size) : type(type) {
    if (type == AMP_DTYPE_F32)
      f32.assign(size, 0.0f);
    else
      bits.assign(size, 0);
  }
  void *data() {
    return type == AMP_DTYPE_F32 ? static_cast<void *>(f32.data())
                                 : static_cast<void *>(bits.data());
  }
  size_t size() const {
    return type == AMP_DTYPE_F32 ? f32.size() : bits.size();
  }
  float get(size_t i) const {
    switch (type) {
    case AMP_DTYPE_F32:
      return f32[i];
    case AMP_DTYPE_F16:
      return ampF16ToF32(bits[i]);
    default:
      return ampBF16ToF32(bits[i]);
    }
  }
  void set(size_t i, float value) {
    switch (type) {
    case AMP_DTYPE_F32:
      f32[i] = value;
      break;
    case AMP_DTYPE_F16:
      bits[i] = ampF32ToF16(value);
      break;
    default:
      bits[i] = ampF32ToBF16(value);
      break;
    }
  }
  void fillRandom(std::mt19937 &rng) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (size_t i = 0; i < size(); ++i)
      set(i, dist(rng));
  }
};

//===----------------------------------------------------------------------===//
// GEMM
//===----------------------------------------------------------------------===//

TEST(CpuGemm, HandComputed) {
  float a[] = {1, 2, 3, 4}, b[] = {5, 6, 7, 8}, c[4];
  ampCpuGemm(0, 0, 1, 2, 2, 2, a, AMP_DTYPE_F32, 2, 0, b, AMP_DTYPE_F32, 2, 0,
             c, AMP_DTYPE_F32, 2, 0, 0.0f);
  EXPECT_EQ(c[0], 19);
  EXPECT_EQ(c[1], 22);
  EXPECT_EQ(c[2], 43);
  EXPECT_EQ(c[3], 50);
  // transA: A is stored k x m = [[1,3],[2,4]] -> same product; beta = 1 adds.
  float at[] = {1, 3, 2, 4};
  ampCpuGemm(1, 0, 1, 2, 2, 2, at, AMP_DTYPE_F32, 2, 0, b, AMP_DTYPE_F32, 2, 0,
             c, AMP_DTYPE_F32, 2, 0, 1.0f);
  EXPECT_EQ(c[0], 38);
  EXPECT_EQ(c[3], 100);
}

TEST(CpuGemm, BetaZeroDoesNotReadC) {
  float a[] = {1, 2}, b[] = {3, 4}, c[] = {NAN};
  ampCpuGemm(0, 0, 1, 1, 1, 2, a, AMP_DTYPE_F32, 2, 0, b, AMP_DTYPE_F32, 1, 0,
             c, AMP_DTYPE_F32, 1, 0, 0.0f);
  EXPECT_EQ(c[0], 11.0f);
}

struct GemmCase {
  int transA, transB;
  int64_t batch, m, n, k;
  AmpDType inType, outType;
  float beta;
};

void runGemmCase(const GemmCase &g) {
  SCOPED_TRACE(testing::Message()
               << "transA=" << g.transA << " transB=" << g.transB
               << " batch=" << g.batch << " m=" << g.m << " n=" << g.n
               << " k=" << g.k << " in=" << g.inType << " out=" << g.outType
               << " beta=" << g.beta);
  std::mt19937 rng(1234);
  // Padded leading dimensions and batch strides with gaps.
  int64_t aRows = g.transA ? g.k : g.m, aCols = g.transA ? g.m : g.k;
  int64_t bRows = g.transB ? g.n : g.k, bCols = g.transB ? g.k : g.n;
  int64_t lda = aCols + 3, ldb = bCols + 1, ldc = g.n + 2;
  int64_t strideA = aRows * lda + 5, strideB = bRows * ldb + 7,
          strideC = g.m * ldc + 1;
  Tensor a(g.inType, g.batch * strideA), b(g.inType, g.batch * strideB),
      c(g.outType, g.batch * strideC);
  a.fillRandom(rng);
  b.fillRandom(rng);
  c.fillRandom(rng);
  Tensor expected = c;

  for (int64_t t = 0; t < g.batch; ++t)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < g.k; ++p) {
          double av = g.transA ? a.get(t * strideA + p * lda + i)
                               : a.get(t * strideA + i * lda + p);
          double bv = g.transB ? b.get(t * strideB + j * ldb + p)
                               : b.get(t * strideB + p * ldb + j);
          acc += av * bv;
        }
        size_t ci = t * strideC + i * ldc + j;
        expected.set(ci, static_cast<float>(acc + g.beta * c.get(ci)));
      }

  ampCpuGemm(g.transA, g.transB, g.batch, g.m, g.n, g.k, a.data(), g.inType,
             lda, strideA, b.data(), g.inType, ldb, strideB, c.data(),
             g.outType, ldc, strideC, g.beta);
  float tolerance = g.outType == AMP_DTYPE_F32 ? 1e-5f : 0.0f;
  for (size_t i = 0; i < c.size(); ++i) {
    float want = expected.get(i), got = c.get(i);
    if (g.outType == AMP_DTYPE_F32) {
      ASSERT_NEAR(got, want, tolerance * (1 + std::fabs(want))) << "at " << i;
    } else {
      // Both round the double result to 16 bits; the test's path goes
      // through float first, so allow one 16-bit ulp of difference.
      float ulp = g.outType == AMP_DTYPE_F16 ? 0x1p-10f : 0x1p-7f;
      ASSERT_LE(std::fabs(got - want),
                ulp * std::max(std::fabs(want), 0x1p-14f))
          << "at " << i;
    }
  }
}

TEST(CpuGemm, AllTransposesF32) {
  for (int transA = 0; transA < 2; ++transA)
    for (int transB = 0; transB < 2; ++transB)
      for (float beta : {0.0f, 1.0f})
        runGemmCase(
            {transA, transB, 1, 5, 7, 3, AMP_DTYPE_F32, AMP_DTYPE_F32, beta});
}

TEST(CpuGemm, BatchedAllTransposes) {
  for (int transA = 0; transA < 2; ++transA)
    for (int transB = 0; transB < 2; ++transB)
      for (float beta : {0.0f, 1.0f, 0.5f})
        runGemmCase(
            {transA, transB, 3, 4, 6, 5, AMP_DTYPE_F32, AMP_DTYPE_F32, beta});
}

TEST(CpuGemm, F16InF32Out) {
  for (int transA = 0; transA < 2; ++transA)
    for (int transB = 0; transB < 2; ++transB)
      for (float beta : {0.0f, 1.0f})
        runGemmCase(
            {transA, transB, 2, 6, 5, 9, AMP_DTYPE_F16, AMP_DTYPE_F32, beta});
}

TEST(CpuGemm, SixteenBitOutputs) {
  runGemmCase({0, 1, 2, 4, 4, 8, AMP_DTYPE_F16, AMP_DTYPE_F16, 1.0f});
  runGemmCase({1, 0, 2, 4, 4, 8, AMP_DTYPE_BF16, AMP_DTYPE_BF16, 0.0f});
  runGemmCase({1, 1, 1, 3, 5, 7, AMP_DTYPE_BF16, AMP_DTYPE_F32, 1.0f});
}

TEST(CpuGemm, RoundsOnceFromDouble) {
  // 1 + 2^-11 + 2^-30 is above the f16 midpoint 1 + 2^-11: the correctly
  // rounded f16 is 1 + 2^-10. Rounding the double to float first (RNE) would
  // give the tie 1 + 2^-11 and then 1.0.
  uint16_t ah[] = {ampF32ToF16(1.0f), ampF32ToF16(0x1p-11f),
                   ampF32ToF16(0x1p-24f)};
  uint16_t bh[] = {ampF32ToF16(1.0f), ampF32ToF16(1.0f), ampF32ToF16(0x1p-6f)};
  uint16_t ch = 0;
  ampCpuGemm(0, 0, 1, 1, 1, 3, ah, AMP_DTYPE_F16, 3, 0, bh, AMP_DTYPE_F16, 1, 0,
             &ch, AMP_DTYPE_F16, 1, 0, 0.0f);
  EXPECT_EQ(ch, 0x3c01); // 1 + 2^-11 + 2^-30 -> 1 + 2^-10.
}

// The epilogue form of the compiler (cType = f16/bf16, f32 compute): 4096
// products of ones add up to 4096, where a 16-bit accumulator would stop at
// 2048 (f16) or 256 (bf16).
TEST(CpuGemm, SixteenBitOutputAccumulatesWide) {
  for (AmpDType type : {AMP_DTYPE_F16, AMP_DTYPE_BF16}) {
    uint16_t one =
        type == AMP_DTYPE_F16 ? ampF32ToF16(1.0f) : ampF32ToBF16(1.0f);
    std::vector<uint16_t> a(4096, one), b(4096, one);
    uint16_t c = 0;
    ampCpuGemm(0, 0, 1, 1, 1, 4096, a.data(), type, 4096, 0, b.data(), type, 1,
               0, &c, type, 1, 0, 0.0f);
    float got = type == AMP_DTYPE_F16 ? ampF16ToF32(c) : ampBF16ToF32(c);
    EXPECT_EQ(got, 4096.0f) << "type " << type;
  }
}

TEST(CpuGemm, ValidationReachesHandler) {
  float a[4] = {}, b[4] = {}, c[4] = {};
  std::string message = amp_test::captureHandlerMessage([&] {
    ampCpuGemm(0, 0, 1, 2, 2, 0, a, AMP_DTYPE_F32, 2, 0, b, AMP_DTYPE_F32, 2, 0,
               c, AMP_DTYPE_F32, 2, 0, 0.0f);
  });
  EXPECT_NE(message.find("ampCpuGemm"), std::string::npos) << message;
  EXPECT_NE(message.find("k = 0"), std::string::npos) << message;
  message = amp_test::captureHandlerMessage([&] {
    ampCpuGemm(0, 0, 1, 2, 2, 2, a, AMP_DTYPE_F32, 1, 0, b, AMP_DTYPE_F32, 2, 0,
               c, AMP_DTYPE_F32, 2, 0, 0.0f);
  });
  EXPECT_NE(message.find("lda = 1"), std::string::npos) << message;
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

TEST(CpuConv, HandComputedNchw) {
  // x = 1..9 (3x3), 2x2 ones filter.
  float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, wt[4] = {1, 1, 1, 1}, y[4];
  ampCpuConv2d(AMP_CONV_NCHW_FCHW, 1, 1, 3, 3, 1, 2, 2, 2, 2, 0, 0, 1, 1, 1, 1,
               1, x, AMP_DTYPE_F32, wt, AMP_DTYPE_F32, y, AMP_DTYPE_F32, 0.0f);
  EXPECT_EQ(y[0], 12);
  EXPECT_EQ(y[1], 16);
  EXPECT_EQ(y[2], 24);
  EXPECT_EQ(y[3], 28);
  // Padding 1, stride 2: windows (-1..0, -1..0), (-1..0, 1..2), (1..2, -1..0),
  // (1..2, 1..2).
  ampCpuConv2d(AMP_CONV_NCHW_FCHW, 1, 1, 3, 3, 1, 2, 2, 2, 2, 1, 1, 2, 2, 1, 1,
               1, x, AMP_DTYPE_F32, wt, AMP_DTYPE_F32, y, AMP_DTYPE_F32, 0.0f);
  EXPECT_EQ(y[0], 1);
  EXPECT_EQ(y[1], 5);
  EXPECT_EQ(y[2], 11);
  EXPECT_EQ(y[3], 28);
}

TEST(CpuConv, HandComputedDilationNhwcBeta) {
  // x = 0..15 (4x4, one channel), 2x2 ones filter with dilation 2.
  float x[16], wt[4] = {1, 1, 1, 1}, y[4] = {1, 1, 1, 1};
  for (int i = 0; i < 16; ++i)
    x[i] = static_cast<float>(i);
  ampCpuConv2d(AMP_CONV_NHWC_HWCF, 1, 1, 4, 4, 1, 2, 2, 2, 2, 0, 0, 1, 1, 2, 2,
               1, x, AMP_DTYPE_F32, wt, AMP_DTYPE_F32, y, AMP_DTYPE_F32, 1.0f);
  EXPECT_EQ(y[0], 21);
  EXPECT_EQ(y[1], 25);
  EXPECT_EQ(y[2], 37);
  EXPECT_EQ(y[3], 41);
}

TEST(CpuConv, HandComputedChannels) {
  // Two input channels, two filters, NCHW 1x2x2x2, 1x1 kernel: a channel mix.
  float x[8] = {1, 2, 3, 4, 10, 20, 30, 40};
  float wt[4] = {1, 1, 2, -1}; // f0 = c0 + c1, f1 = 2*c0 - c1.
  float y[8];
  ampCpuConv2d(AMP_CONV_NCHW_FCHW, 1, 2, 2, 2, 2, 1, 1, 2, 2, 0, 0, 1, 1, 1, 1,
               1, x, AMP_DTYPE_F32, wt, AMP_DTYPE_F32, y, AMP_DTYPE_F32, 0.0f);
  float want[8] = {11, 22, 33, 44, -8, -16, -24, -32};
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(y[i], want[i]) << i;
}

struct ConvCase {
  int layout;
  int64_t n, c, h, w, f, kh, kw;
  int64_t pad, stride, dil;
  AmpDType inType, outType;
  float beta;
  int64_t groups = 1;
};

void runConvCase(const ConvCase &v) {
  SCOPED_TRACE(testing::Message()
               << "layout=" << v.layout << " c=" << v.c << " f=" << v.f
               << " groups=" << v.groups << " pad=" << v.pad << " stride="
               << v.stride << " dil=" << v.dil << " in=" << v.inType
               << " out=" << v.outType << " beta=" << v.beta);
  int64_t oh = (v.h + 2 * v.pad - v.dil * (v.kh - 1) - 1) / v.stride + 1;
  int64_t ow = (v.w + 2 * v.pad - v.dil * (v.kw - 1) - 1) / v.stride + 1;
  // Each group: groupC input channels into groupF output channels.
  int64_t groupC = v.c / v.groups, groupF = v.f / v.groups;
  std::mt19937 rng(99);
  Tensor x(v.inType, v.n * v.c * v.h * v.w),
      wt(v.inType, v.f * groupC * v.kh * v.kw),
      y(v.outType, v.n * v.f * oh * ow);
  x.fillRandom(rng);
  wt.fillRandom(rng);
  y.fillRandom(rng);
  Tensor expected = y;
  bool nchw = v.layout == AMP_CONV_NCHW_FCHW;
  for (int64_t b = 0; b < v.n; ++b)
    for (int64_t f = 0; f < v.f; ++f)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          double acc = 0;
          for (int64_t cw = 0; cw < groupC; ++cw)
            for (int64_t r = 0; r < v.kh; ++r)
              for (int64_t s = 0; s < v.kw; ++s) {
                int64_t iy = oy * v.stride - v.pad + r * v.dil;
                int64_t ix = ox * v.stride - v.pad + s * v.dil;
                if (iy < 0 || iy >= v.h || ix < 0 || ix >= v.w)
                  continue;
                // Filter channel cw of output channel f reads input
                // channel cw of f's group.
                int64_t c = (f / groupF) * groupC + cw;
                size_t xi = nchw ? ((b * v.c + c) * v.h + iy) * v.w + ix
                                 : ((b * v.h + iy) * v.w + ix) * v.c + c;
                size_t wi = nchw ? ((f * groupC + cw) * v.kh + r) * v.kw + s
                            : v.layout == AMP_CONV_NHWC_HWCF
                                ? ((r * v.kw + s) * groupC + cw) * v.f + f
                                : ((f * v.kh + r) * v.kw + s) * groupC + cw;
                acc += double(x.get(xi)) * wt.get(wi);
              }
          size_t yi = nchw ? ((b * v.f + f) * oh + oy) * ow + ox
                           : ((b * oh + oy) * ow + ox) * v.f + f;
          expected.set(yi, static_cast<float>(acc + v.beta * y.get(yi)));
        }
  ampCpuConv2d(v.layout, v.n, v.c, v.h, v.w, v.f, v.kh, v.kw, oh, ow, v.pad,
               v.pad, v.stride, v.stride, v.dil, v.dil, v.groups, x.data(),
               v.inType, wt.data(), v.inType, y.data(), v.outType, v.beta);
  for (size_t i = 0; i < y.size(); ++i) {
    float want = expected.get(i), got = y.get(i);
    if (v.outType == AMP_DTYPE_F32)
      ASSERT_NEAR(got, want, 1e-5f * (1 + std::fabs(want))) << "at " << i;
    else
      ASSERT_LE(std::fabs(got - want),
                0x1p-10f * std::max(std::fabs(want), 0x1p-14f))
          << "at " << i;
  }
}

TEST(CpuConv, NaiveLoopBothLayouts) {
  for (int layout : {0, 1})
    for (int64_t pad : {0, 1, 2})
      for (int64_t stride : {1, 2})
        for (int64_t dil : {1, 2})
          runConvCase({layout, 2, 3, 7, 6, 4, 3, 2, pad, stride, dil,
                       AMP_DTYPE_F32, AMP_DTYPE_F32, 0.0f});
}

TEST(CpuConv, GroupedHandComputed) {
  // 1x1 windows: depthwise (c = f = groups = 2), y_k = w_k * x_k; and two
  // groups of two input channels into one output channel each,
  // y_0 = w_00 x_0 + w_01 x_1, y_1 = w_10 x_2 + w_11 x_3 (one pixel).
  float x[4] = {1, 2, 3, 4}, wt[4] = {10, 100, 1000, 10000}, y[4];
  ampCpuConv2d(AMP_CONV_NCHW_FCHW, 1, 2, 1, 2, 2, 1, 1, 1, 2, 0, 0, 1, 1, 1, 1,
               2, x, AMP_DTYPE_F32, wt, AMP_DTYPE_F32, y, AMP_DTYPE_F32, 0.0f);
  EXPECT_EQ(y[0], 10);
  EXPECT_EQ(y[1], 20);
  EXPECT_EQ(y[2], 300);
  EXPECT_EQ(y[3], 400);
  ampCpuConv2d(AMP_CONV_NCHW_FCHW, 1, 4, 1, 1, 2, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1,
               2, x, AMP_DTYPE_F32, wt, AMP_DTYPE_F32, y, AMP_DTYPE_F32, 0.0f);
  EXPECT_EQ(y[0], 1 * 10 + 2 * 100);
  EXPECT_EQ(y[1], 3 * 1000 + 4 * 10000);
  // Depthwise with a channel multiplier of 2 (c = 2, f = 4), NHWC/HWCF:
  // output channels 0 and 1 read input channel 0, 2 and 3 channel 1.
  float xh[2] = {2, 3};
  ampCpuConv2d(AMP_CONV_NHWC_HWCF, 1, 2, 1, 1, 4, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1,
               2, xh, AMP_DTYPE_F32, wt, AMP_DTYPE_F32, y, AMP_DTYPE_F32, 0.0f);
  EXPECT_EQ(y[0], 20);
  EXPECT_EQ(y[1], 200);
  EXPECT_EQ(y[2], 3000);
  EXPECT_EQ(y[3], 30000);
}

TEST(CpuConv, GroupedAndDepthwiseNaiveLoop) {
  for (int layout : {0, 1, 2})
    for (int64_t pad : {0, 1})
      for (int64_t stride : {1, 2})
        for (int64_t dil : {1, 2}) {
          // Two groups of 3 input channels into 2 output channels each.
          runConvCase({layout, 2, 6, 7, 6, 4, 3, 2, pad, stride, dil,
                       AMP_DTYPE_F32, AMP_DTYPE_F32, 0.0f, 2});
          // Three groups of 2 into 3.
          runConvCase({layout, 1, 6, 6, 7, 9, 2, 3, pad, stride, dil,
                       AMP_DTYPE_F32, AMP_DTYPE_F32, 0.5f, 3});
          // Depthwise, multiplier 1 and 2.
          runConvCase({layout, 2, 4, 7, 6, 4, 3, 3, pad, stride, dil,
                       AMP_DTYPE_F32, AMP_DTYPE_F32, 0.0f, 4});
          runConvCase({layout, 1, 3, 6, 6, 6, 3, 2, pad, stride, dil,
                       AMP_DTYPE_F32, AMP_DTYPE_F32, 1.0f, 3});
        }
  for (AmpDType type : {AMP_DTYPE_F16, AMP_DTYPE_BF16})
    for (AmpDType out : {AMP_DTYPE_F32, type}) {
      runConvCase({0, 1, 6, 6, 6, 4, 3, 3, 1, 1, 1, type, out, 0.0f, 2});
      runConvCase({2, 1, 4, 6, 6, 8, 3, 3, 1, 2, 1, type, out, 1.0f, 4});
    }
}

TEST(CpuConv, F16InF32OutBeta) {
  for (int layout : {0, 1})
    runConvCase({layout, 1, 5, 6, 6, 3, 3, 3, 1, 2, 1, AMP_DTYPE_F16,
                 AMP_DTYPE_F32, 1.0f});
  runConvCase(
      {1, 1, 4, 5, 5, 2, 2, 2, 0, 1, 2, AMP_DTYPE_F16, AMP_DTYPE_F16, 0.5f});
}

// A 1x1 convolution over 4096 channels of ones into an f16 output: 4096.
TEST(CpuConv, SixteenBitOutputAccumulatesWide) {
  for (int layout : {0, 1}) {
    std::vector<uint16_t> x(4096, ampF32ToF16(1.0f)),
        wt(4096, ampF32ToF16(1.0f));
    uint16_t y = 0;
    ampCpuConv2d(layout, 1, 4096, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1,
                 x.data(), AMP_DTYPE_F16, wt.data(), AMP_DTYPE_F16, &y,
                 AMP_DTYPE_F16, 0.0f);
    EXPECT_EQ(ampF16ToF32(y), 4096.0f) << "layout " << layout;
  }
}

TEST(CpuConv, LayoutsAgree) {
  // The same convolution stored NCHW/FCHW and NHWC/HWCF gives the same y.
  const int64_t n = 2, c = 3, h = 5, w = 4, f = 2, kh = 3, kw = 2, oh = 3,
                ow = 3;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> xN(n * c * h * w), wF(f * c * kh * kw), xH(xN.size()),
      wH(wF.size()), yN(n * f * oh * ow), yH(yN.size());
  for (float &v : xN)
    v = dist(rng);
  for (float &v : wF)
    v = dist(rng);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x)
          xH[((b * h + y) * w + x) * c + ch] =
              xN[((b * c + ch) * h + y) * w + x];
  for (int64_t k = 0; k < f; ++k)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t r = 0; r < kh; ++r)
        for (int64_t s = 0; s < kw; ++s)
          wH[((r * kw + s) * c + ch) * f + k] =
              wF[((k * c + ch) * kh + r) * kw + s];
  // Asymmetric effective padding is fine on the CPU (oh/ow imply bottom/right).
  ampCpuConv2d(0, n, c, h, w, f, kh, kw, oh, ow, 1, 0, 2, 1, 1, 1, 1, xN.data(),
               AMP_DTYPE_F32, wF.data(), AMP_DTYPE_F32, yN.data(),
               AMP_DTYPE_F32, 0.0f);
  ampCpuConv2d(1, n, c, h, w, f, kh, kw, oh, ow, 1, 0, 2, 1, 1, 1, 1, xH.data(),
               AMP_DTYPE_F32, wH.data(), AMP_DTYPE_F32, yH.data(),
               AMP_DTYPE_F32, 0.0f);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t k = 0; k < f; ++k)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x)
          EXPECT_EQ(yN[((b * f + k) * oh + y) * ow + x],
                    yH[((b * oh + y) * ow + x) * f + k]);
}

TEST(CpuConv, ValidationReachesHandler) {
  float x[4] = {}, wt[4] = {}, y[4] = {};
  std::string message = amp_test::captureHandlerMessage([&] {
    ampCpuConv2d(3, 1, 1, 2, 2, 1, 1, 1, 2, 2, 0, 0, 1, 1, 1, 1, 1, x,
                 AMP_DTYPE_F32, wt, AMP_DTYPE_F32, y, AMP_DTYPE_F32, 0.0f);
  });
  EXPECT_NE(message.find("ampCpuConv2d: invalid layout 3"), std::string::npos)
      << message;
  message = amp_test::captureHandlerMessage([&] {
    ampCpuConv2d(0, 1, 1, 2, 2, 1, 1, 1, 2, 2, 0, 0, 1, 1, 1, 1, 1, x,
                 AMP_DTYPE_F16, wt, AMP_DTYPE_BF16, y, AMP_DTYPE_F32, 0.0f);
  });
  EXPECT_NE(message.find("same type"), std::string::npos) << message;
}

// groups >= 1 dividing both c and f, for the forward convolution and both
// gradients.
TEST(CpuConv, GroupsValidation) {
  float a[64] = {}, b[64] = {}, out[64] = {};
  const int32_t f32 = AMP_DTYPE_F32;
  // c x 2 x 2 input, f output channels, 1x1 window.
  auto forward = [&](int64_t c, int64_t f, int64_t groups) {
    return amp_test::captureHandlerMessage([&] {
      ampCpuConv2d(AMP_CONV_NCHW_FCHW, 1, c, 2, 2, f, 1, 1, 2, 2, 0, 0, 1, 1, 1,
                   1, groups, a, f32, b, f32, out, f32, 0.0f);
    });
  };
  auto data = [&](int64_t c, int64_t f, int64_t groups) {
    return amp_test::captureHandlerMessage([&] {
      ampCpuConv2dBackwardData(AMP_CONV_NCHW_FCHW, 1, c, 2, 2, f, 1, 1, 2, 2, 0,
                               0, 1, 1, 1, 1, groups, a, f32, b, f32, out, f32,
                               0.0f);
    });
  };
  auto filter = [&](int64_t c, int64_t f, int64_t groups) {
    return amp_test::captureHandlerMessage([&] {
      ampCpuConv2dBackwardFilter(AMP_CONV_NCHW_FCHW, 1, c, 2, 2, f, 1, 1, 2, 2,
                                 0, 0, 1, 1, 1, 1, groups, a, f32, b, f32, out,
                                 f32, 0.0f);
    });
  };
  auto expectHas = [](const std::string &message, const std::string &text) {
    EXPECT_NE(message.find(text), std::string::npos) << message;
  };
  const struct {
    const char *name;
    std::function<std::string(int64_t, int64_t, int64_t)> call;
  } calls[] = {{"ampCpuConv2d", forward},
               {"ampCpuConv2dBackwardData", data},
               {"ampCpuConv2dBackwardFilter", filter}};
  for (const auto &call : calls) {
    SCOPED_TRACE(call.name);
    std::string name = call.name;
    expectHas(call.call(3, 4, 2), name + ": c = 3 is not a multiple of "
                                         "groups = 2 (a grouped convolution "
                                         "needs c and f divisible by groups; "
                                         "got c = 3, f = 4)");
    expectHas(call.call(4, 3, 2),
              name + ": f = 3 is not a multiple of groups = 2");
    expectHas(call.call(4, 6, 4),
              name + ": f = 6 is not a multiple of groups = 4");
    expectHas(call.call(4, 4, 0), name + ": invalid groups = 0 (must be > 0)");
    expectHas(call.call(4, 4, -2),
              name + ": invalid groups = -2 (must be > 0)");
    // Valid: grouped, depthwise (with a multiplier), plain.
    EXPECT_EQ(call.call(4, 6, 2), "");
    EXPECT_EQ(call.call(4, 8, 4), "");
    EXPECT_EQ(call.call(3, 5, 1), "");
  }
}

//===----------------------------------------------------------------------===//
// Convolution gradients
//===----------------------------------------------------------------------===//

TEST(CpuConvBackward, HandComputed) {
  // The forward convolution of x = 1..9 (3x3) with wt = [[1, 2], [3, 4]]
  // (2x2, stride 1): y is 2x2. With dy = ones, dx[i][j] is the sum of the
  // filter taps that touch x[i][j], dw[r][s] the sum of the 2x2 block of x
  // at (r, s).
  float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, wt[4] = {1, 2, 3, 4};
  float dy[4] = {1, 1, 1, 1}, dx[9], dw[4];
  ampCpuConv2dBackwardData(AMP_CONV_NCHW_FCHW, 1, 1, 3, 3, 1, 2, 2, 2, 2, 0, 0,
                           1, 1, 1, 1, 1, dy, AMP_DTYPE_F32, wt, AMP_DTYPE_F32,
                           dx, AMP_DTYPE_F32, 0.0f);
  float wantDx[9] = {1, 3, 2, 4, 10, 6, 3, 7, 4};
  for (int i = 0; i < 9; ++i)
    EXPECT_EQ(dx[i], wantDx[i]) << i;
  ampCpuConv2dBackwardFilter(AMP_CONV_NCHW_FCHW, 1, 1, 3, 3, 1, 2, 2, 2, 2, 0,
                             0, 1, 1, 1, 1, 1, x, AMP_DTYPE_F32, dy,
                             AMP_DTYPE_F32, dw, AMP_DTYPE_F32, 0.0f);
  float wantDw[4] = {12, 16, 24, 28};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(dw[i], wantDw[i]) << i;
  // Padding 1, stride 2 (windows rows -1..0 and 1..2): every element of x
  // is under exactly one tap, dx[iy][ix] = dy[oy][ox] * wt[r][s]; beta 1
  // adds the old dx.
  float dy2[4] = {1, 2, 3, 4};
  for (float &value : dx)
    value = 100;
  ampCpuConv2dBackwardData(AMP_CONV_NCHW_FCHW, 1, 1, 3, 3, 1, 2, 2, 2, 2, 1, 1,
                           2, 2, 1, 1, 1, dy2, AMP_DTYPE_F32, wt, AMP_DTYPE_F32,
                           dx, AMP_DTYPE_F32, 1.0f);
  float wantStrided[9] = {4, 6, 8, 6, 4, 8, 12, 12, 16};
  for (int i = 0; i < 9; ++i)
    EXPECT_EQ(dx[i], 100 + wantStrided[i]) << i;
  // dw[r][s] = sum over the windows of x[2oy - 1 + r][2ox - 1 + s] * dy2.
  ampCpuConv2dBackwardFilter(AMP_CONV_NCHW_FCHW, 1, 1, 3, 3, 1, 2, 2, 2, 2, 1,
                             1, 2, 2, 1, 1, 1, x, AMP_DTYPE_F32, dy2,
                             AMP_DTYPE_F32, dw, AMP_DTYPE_F32, 0.0f);
  float wantDwStrided[4] = {5 * 4, 4 * 3 + 6 * 4, 2 * 2 + 8 * 4,
                            1 * 1 + 3 * 2 + 7 * 3 + 9 * 4};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(dw[i], wantDwStrided[i]) << i;
}

struct ConvBackwardCase {
  int64_t n, c, h, w, f, kh, kw;
  int64_t padTop, padLeft, strideH, strideW, dilH, dilW;
  AmpDType inType, outType;
  float beta;
  /// Rows and columns of y less than symmetric padding gives (the CPU
  /// takes any oh/ow: bottom/right padding is implied).
  int64_t cropH = 0, cropW = 0;
  int64_t groups = 1;
  int64_t outH() const {
    return (h + 2 * padTop - dilH * (kh - 1) - 1) / strideH + 1 - cropH;
  }
  int64_t outW() const {
    return (w + 2 * padLeft - dilW * (kw - 1) - 1) / strideW + 1 - cropW;
  }
};

/// The largest difference allowed between a result rounded once from the
/// exact sum `want` (of terms whose magnitudes add up to `magnitude`) and
/// the same sum rounded from another order of summation.
float gradientTolerance(AmpDType type, double want, double magnitude) {
  // One unit in the last place, relative (or, below the smallest normal
  // number, absolute).
  double unit = type == AMP_DTYPE_F32   ? 0x1p-23
                : type == AMP_DTYPE_F16 ? 0x1p-10
                                        : 0x1p-7;
  double floor = type == AMP_DTYPE_F16 ? 0x1p-14 : 0x1p-126;
  return static_cast<float>(unit * std::max(std::fabs(want), floor) +
                            0x1p-40 * magnitude);
}

/// Both gradients of `v` against sums written the other way round: every
/// term of the forward convolution is enumerated once and scattered into
/// the dx and dw elements it contributes to (the CPU twins gather each
/// output element's terms). With beta == 0 the outputs hold NaN before the
/// call (they must not be read).
void runConvBackwardCase(const ConvBackwardCase &v) {
  SCOPED_TRACE(testing::Message()
               << "pad=" << v.padTop << "," << v.padLeft
               << " stride=" << v.strideH << "," << v.strideW
               << " dil=" << v.dilH << "," << v.dilW << " k=" << v.kh << "x"
               << v.kw << " crop=" << v.cropH << "," << v.cropW << " c=" << v.c
               << " f=" << v.f << " groups=" << v.groups << " in=" << v.inType
               << " out=" << v.outType << " beta=" << v.beta);
  const int64_t oh = v.outH(), ow = v.outW();
  ASSERT_GE(oh, 1);
  ASSERT_GE(ow, 1);
  std::mt19937 rng(static_cast<unsigned>(17 + v.h * 31 + v.strideH * 7 +
                                         v.dilW * 3 + v.padTop));
  const int64_t groupC = v.c / v.groups, groupF = v.f / v.groups;
  Tensor x(v.inType, v.n * v.c * v.h * v.w),
      wt(v.inType, v.f * groupC * v.kh * v.kw),
      dy(v.inType, v.n * v.f * oh * ow), dx(v.outType, x.size()),
      dw(v.outType, wt.size());
  x.fillRandom(rng);
  wt.fillRandom(rng);
  dy.fillRandom(rng);
  dx.fillRandom(rng);
  dw.fillRandom(rng);
  const Tensor dxBefore = dx, dwBefore = dw;
  if (v.beta == 0.0f) {
    for (size_t i = 0; i < dx.size(); ++i)
      dx.set(i, NAN);
    for (size_t i = 0; i < dw.size(); ++i)
      dw.set(i, NAN);
  }
  std::vector<double> dxSum(dx.size(), 0.0), dwSum(dw.size(), 0.0),
      dxMagnitude(dx.size(), 0.0), dwMagnitude(dw.size(), 0.0);
  for (int64_t b = 0; b < v.n; ++b)
    for (int64_t f = 0; f < v.f; ++f)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox)
          for (int64_t cw = 0; cw < groupC; ++cw)
            for (int64_t r = 0; r < v.kh; ++r)
              for (int64_t s = 0; s < v.kw; ++s) {
                int64_t iy = oy * v.strideH - v.padTop + r * v.dilH;
                int64_t ix = ox * v.strideW - v.padLeft + s * v.dilW;
                if (iy < 0 || iy >= v.h || ix < 0 || ix >= v.w)
                  continue;
                // Filter channel cw of f: input channel cw of f's group.
                int64_t c = (f / groupF) * groupC + cw;
                size_t xi = ((b * v.c + c) * v.h + iy) * v.w + ix;
                size_t wi = ((f * groupC + cw) * v.kh + r) * v.kw + s;
                double g = dy.get(((b * v.f + f) * oh + oy) * ow + ox);
                dxSum[xi] += g * wt.get(wi);
                dxMagnitude[xi] += std::fabs(g * wt.get(wi));
                dwSum[wi] += g * x.get(xi);
                dwMagnitude[wi] += std::fabs(g * x.get(xi));
              }
  ampCpuConv2dBackwardData(
      AMP_CONV_NCHW_FCHW, v.n, v.c, v.h, v.w, v.f, v.kh, v.kw, oh, ow, v.padTop,
      v.padLeft, v.strideH, v.strideW, v.dilH, v.dilW, v.groups, dy.data(),
      v.inType, wt.data(), v.inType, dx.data(), v.outType, v.beta);
  ampCpuConv2dBackwardFilter(
      AMP_CONV_NCHW_FCHW, v.n, v.c, v.h, v.w, v.f, v.kh, v.kw, oh, ow, v.padTop,
      v.padLeft, v.strideH, v.strideW, v.dilH, v.dilW, v.groups, x.data(),
      v.inType, dy.data(), v.inType, dw.data(), v.outType, v.beta);
  auto compare = [&](const char *what, const Tensor &got, const Tensor &before,
                     const std::vector<double> &sum,
                     const std::vector<double> &magnitude) {
    for (size_t i = 0; i < got.size(); ++i) {
      double want = sum[i] + (v.beta != 0.0f ? v.beta * before.get(i) : 0.0);
      ASSERT_LE(std::fabs(got.get(i) - want),
                gradientTolerance(v.outType, want, magnitude[i]))
          << what << "[" << i << "] = " << got.get(i) << ", expected " << want;
    }
  };
  compare("dx", dx, dxBefore, dxSum, dxMagnitude);
  compare("dw", dw, dwBefore, dwSum, dwMagnitude);
}

TEST(CpuConvBackward, ScatteredSumsF32) {
  // Padding 0, 1 and 2, strides 1 and 2, dilations 1 and 2, a 3x2 kernel,
  // beta 0 (NaN outputs) and 1.
  for (int64_t pad : {0, 1, 2})
    for (int64_t stride : {1, 2})
      for (int64_t dil : {1, 2})
        for (float beta : {0.0f, 1.0f})
          runConvBackwardCase({2, 3, 7, 6, 4, 3, 2, pad, pad, stride, stride,
                               dil, dil, AMP_DTYPE_F32, AMP_DTYPE_F32, beta});
}

TEST(CpuConvBackward, WindowsThatMissRowsAndColumns) {
  // Stride 3 over a kernel of 2 rows (rows 2 and 5 of x are under no
  // window), stride 2 over a 1x1 kernel (every other row and column), and
  // unequal strides, paddings and dilations: the gradient of x there is
  // 0, or beta times its old value.
  for (float beta : {0.0f, 1.0f}) {
    runConvBackwardCase({2, 2, 8, 9, 3, 2, 3, 0, 1, 3, 2, 1, 1, AMP_DTYPE_F32,
                         AMP_DTYPE_F32, beta});
    runConvBackwardCase({1, 3, 7, 7, 2, 1, 1, 0, 0, 2, 2, 1, 1, AMP_DTYPE_F32,
                         AMP_DTYPE_F32, beta});
    runConvBackwardCase({2, 2, 9, 8, 3, 3, 2, 2, 1, 2, 3, 2, 1, AMP_DTYPE_F32,
                         AMP_DTYPE_F32, beta});
  }
}

TEST(CpuConvBackward, AsymmetricPaddingOnTheCpu) {
  // oh/ow one less than symmetric padding gives (no bottom/right padding):
  // the CPU twins take it, the GPU calls do not.
  ConvBackwardCase v{
      2,   3, 6, 7, 2, 3, 3, 1, 1, 2, 2, 1, 1, AMP_DTYPE_F32, AMP_DTYPE_F32,
      0.0f};
  v.cropH = 1;
  v.cropW = 1;
  runConvBackwardCase(v);
}

TEST(CpuConvBackward, SixteenBitInputs) {
  // f16 and bf16 inputs into an f32 output and into their own type, beta 0
  // and 1, padding 1 and 2, stride 2, dilation 2, non-square kernels.
  for (AmpDType type : {AMP_DTYPE_F16, AMP_DTYPE_BF16})
    for (AmpDType out : {AMP_DTYPE_F32, type})
      for (float beta : {0.0f, 1.0f}) {
        runConvBackwardCase(
            {2, 3, 7, 6, 4, 3, 2, 1, 1, 2, 2, 1, 1, type, out, beta});
        runConvBackwardCase(
            {1, 4, 6, 7, 3, 2, 3, 2, 2, 1, 1, 2, 2, type, out, beta});
      }
}

TEST(CpuConvBackward, GroupedAndDepthwise) {
  // Two groups (c = 6, f = 4), three groups of 2 into 3, depthwise with
  // multipliers 1 and 2; padding, strides, dilations, beta 0 (NaN outputs)
  // and 1, 16-bit inputs.
  for (int64_t pad : {0, 1})
    for (int64_t stride : {1, 2})
      for (int64_t dil : {1, 2})
        for (float beta : {0.0f, 1.0f}) {
          ConvBackwardCase grouped{2,
                                   6,
                                   7,
                                   6,
                                   4,
                                   3,
                                   2,
                                   pad,
                                   pad,
                                   stride,
                                   stride,
                                   dil,
                                   dil,
                                   AMP_DTYPE_F32,
                                   AMP_DTYPE_F32,
                                   beta};
          grouped.groups = 2;
          runConvBackwardCase(grouped);
          ConvBackwardCase threes = grouped;
          threes.f = 9;
          threes.groups = 3;
          runConvBackwardCase(threes);
          ConvBackwardCase depthwise{2,
                                     4,
                                     7,
                                     7,
                                     4,
                                     3,
                                     3,
                                     pad,
                                     pad,
                                     stride,
                                     stride,
                                     dil,
                                     dil,
                                     AMP_DTYPE_F32,
                                     AMP_DTYPE_F32,
                                     beta};
          depthwise.groups = 4;
          runConvBackwardCase(depthwise);
          depthwise.f = 8;
          runConvBackwardCase(depthwise);
        }
  for (AmpDType type : {AMP_DTYPE_F16, AMP_DTYPE_BF16})
    for (AmpDType out : {AMP_DTYPE_F32, type}) {
      ConvBackwardCase v{1, 6, 6, 7, 4, 3,    2,   1,
                         1, 2, 1, 1, 2, type, out, 1.0f};
      v.groups = 2;
      runConvBackwardCase(v);
      v.f = 12;
      v.groups = 6;
      runConvBackwardCase(v);
    }
  // Asymmetric padding (the CPU twins' implied bottom/right padding).
  ConvBackwardCase cropped{
      2,   6, 7, 7, 6, 3, 3, 1, 1, 2, 2, 1, 1, AMP_DTYPE_F32, AMP_DTYPE_F32,
      0.0f};
  cropped.cropH = 1;
  cropped.cropW = 1;
  cropped.groups = 6;
  runConvBackwardCase(cropped);
}

// 4096 terms of 1 * 1 into an f16 output: 4096 (an f16 accumulator stops
// at 2048).
TEST(CpuConvBackward, SixteenBitOutputAccumulatesWide) {
  std::vector<uint16_t> ones(4096, ampF32ToF16(1.0f));
  uint16_t dx = 0, dw = 0;
  // dx of one pixel over 4096 filters of a 1x1 kernel.
  ampCpuConv2dBackwardData(AMP_CONV_NCHW_FCHW, 1, 1, 1, 1, 4096, 1, 1, 1, 1, 0,
                           0, 1, 1, 1, 1, 1, ones.data(), AMP_DTYPE_F16,
                           ones.data(), AMP_DTYPE_F16, &dx, AMP_DTYPE_F16,
                           0.0f);
  EXPECT_EQ(ampF16ToF32(dx), 4096.0f);
  // dw of a 1x1 kernel over a 64x64 image.
  ampCpuConv2dBackwardFilter(AMP_CONV_NCHW_FCHW, 1, 1, 64, 64, 1, 1, 1, 64, 64,
                             0, 0, 1, 1, 1, 1, 1, ones.data(), AMP_DTYPE_F16,
                             ones.data(), AMP_DTYPE_F16, &dw, AMP_DTYPE_F16,
                             0.0f);
  EXPECT_EQ(ampF16ToF32(dw), 4096.0f);
}

TEST(CpuConvBackward, AdjointsOfTheForwardConvolution) {
  // <dy, conv(x, wt)> == <backwardData(dy, wt), x> == <backwardFilter(x, dy),
  // wt>: both gradients are the adjoints of ampCpuConv2d's linear maps.
  struct Geometry {
    int64_t n, c, h, w, f, kh, kw, oh, ow, padTop, padLeft, strideH, strideW,
        dilH, dilW;
    int64_t groups = 1;
  };
  const Geometry geometries[] = {
      {2, 3, 9, 8, 4, 3, 3, 5, 4, 1, 1, 2, 2, 1, 1},
      {1, 2, 10, 9, 3, 2, 3, 12, 4, 2, 1, 1, 2, 2, 2},
      {2, 2, 8, 8, 2, 2, 2, 3, 3, 0, 0, 3, 3, 1, 1},
      // Asymmetric: oh/ow below what symmetric padding gives.
      {1, 3, 7, 7, 2, 3, 3, 3, 2, 1, 1, 2, 2, 1, 1},
      // Grouped: two groups of 3 input channels into 2 outputs each.
      {2, 6, 9, 8, 4, 3, 3, 5, 4, 1, 1, 2, 2, 1, 1, 2},
      // Depthwise, multiplier 2 (dilated, unequal strides) and 1.
      {1, 4, 10, 9, 8, 3, 3, 8, 5, 1, 1, 1, 2, 2, 1, 4},
      {2, 5, 7, 7, 5, 3, 3, 4, 4, 1, 1, 2, 2, 1, 1, 5},
  };
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (const Geometry &g : geometries) {
    std::vector<float> x(g.n * g.c * g.h * g.w),
        wt(g.f * (g.c / g.groups) * g.kh * g.kw), dy(g.n * g.f * g.oh * g.ow),
        y(dy.size()), dx(x.size()), dw(wt.size());
    for (auto *values : {&x, &wt, &dy})
      for (float &value : *values)
        value = dist(rng);
    ampCpuConv2d(AMP_CONV_NCHW_FCHW, g.n, g.c, g.h, g.w, g.f, g.kh, g.kw, g.oh,
                 g.ow, g.padTop, g.padLeft, g.strideH, g.strideW, g.dilH,
                 g.dilW, g.groups, x.data(), AMP_DTYPE_F32, wt.data(),
                 AMP_DTYPE_F32, y.data(), AMP_DTYPE_F32, 0.0f);
    ampCpuConv2dBackwardData(AMP_CONV_NCHW_FCHW, g.n, g.c, g.h, g.w, g.f, g.kh,
                             g.kw, g.oh, g.ow, g.padTop, g.padLeft, g.strideH,
                             g.strideW, g.dilH, g.dilW, g.groups, dy.data(),
                             AMP_DTYPE_F32, wt.data(), AMP_DTYPE_F32, dx.data(),
                             AMP_DTYPE_F32, 0.0f);
    ampCpuConv2dBackwardFilter(AMP_CONV_NCHW_FCHW, g.n, g.c, g.h, g.w, g.f,
                               g.kh, g.kw, g.oh, g.ow, g.padTop, g.padLeft,
                               g.strideH, g.strideW, g.dilH, g.dilW, g.groups,
                               x.data(), AMP_DTYPE_F32, dy.data(),
                               AMP_DTYPE_F32, dw.data(), AMP_DTYPE_F32, 0.0f);
    auto dot = [](const std::vector<float> &a, const std::vector<float> &b,
                  double *magnitude) {
      double sum = 0;
      for (size_t i = 0; i < a.size(); ++i) {
        sum += double(a[i]) * b[i];
        *magnitude += std::fabs(double(a[i]) * b[i]);
      }
      return sum;
    };
    double magnitude = 0;
    double forward = dot(dy, y, &magnitude);
    double data = dot(dx, x, &magnitude), filter = dot(dw, wt, &magnitude);
    // y, dx and dw are each rounded to f32 once: 2^-24 relative per term.
    EXPECT_NEAR(data, forward, 1e-6 * magnitude)
        << "oh=" << g.oh << " groups=" << g.groups;
    EXPECT_NEAR(filter, forward, 1e-6 * magnitude)
        << "oh=" << g.oh << " groups=" << g.groups;
    EXPECT_GT(std::fabs(forward), 1e-3) << "a degenerate case";
  }
}

// NHWC/FHWC (amp-channels-last's form, cuDNN's NHWC and KRSC): each
// gradient is the NCHW/FCHW one of the same convolution, stored in the
// layout's order. The CPU twins sum each element in one order whatever the
// layout, so the values are equal.
TEST(CpuConvBackward, ChannelsLastIsTheTransposedNchw) {
  struct Geometry {
    int64_t n, c, h, w, f, kh, kw, pad, stride, groups;
  };
  const Geometry geometries[] = {{2, 3, 7, 6, 4, 3, 3, 1, 2, 1},
                                 {1, 8, 5, 5, 16, 1, 1, 0, 1, 1},
                                 {2, 6, 6, 7, 4, 3, 3, 1, 1, 2}};
  std::mt19937 rng(4321);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (const Geometry &g : geometries) {
    SCOPED_TRACE(testing::Message()
                 << "c=" << g.c << " f=" << g.f << " groups=" << g.groups);
    const int64_t oh = (g.h + 2 * g.pad - g.kh) / g.stride + 1,
                  ow = (g.w + 2 * g.pad - g.kw) / g.stride + 1,
                  groupC = g.c / g.groups;
    // (a, b, y, x) of an a x b x ys x xs NCHW tensor, at its NHWC place.
    auto toLast = [](const std::vector<float> &nchw, int64_t a, int64_t b,
                     int64_t ys, int64_t xs) {
      std::vector<float> last(nchw.size());
      for (int64_t i = 0; i < a; ++i)
        for (int64_t j = 0; j < b; ++j)
          for (int64_t y = 0; y < ys; ++y)
            for (int64_t x = 0; x < xs; ++x)
              last[((i * ys + y) * xs + x) * b + j] =
                  nchw[((i * b + j) * ys + y) * xs + x];
      return last;
    };
    std::vector<float> x(g.n * g.c * g.h * g.w), wt(g.f * groupC * g.kh * g.kw),
        dy(g.n * g.f * oh * ow);
    for (auto *values : {&x, &wt, &dy})
      for (float &value : *values)
        value = dist(rng);
    std::vector<float> dx(x.size()), dw(wt.size()), dxLast(x.size()),
        dwLast(wt.size());
    auto run = [&](int32_t layout, const std::vector<float> &xs,
                   const std::vector<float> &wts, const std::vector<float> &dys,
                   std::vector<float> &dxs, std::vector<float> &dws) {
      ampCpuConv2dBackwardData(layout, g.n, g.c, g.h, g.w, g.f, g.kh, g.kw, oh,
                               ow, g.pad, g.pad, g.stride, g.stride, 1, 1,
                               g.groups, dys.data(), AMP_DTYPE_F32, wts.data(),
                               AMP_DTYPE_F32, dxs.data(), AMP_DTYPE_F32, 0.0f);
      ampCpuConv2dBackwardFilter(
          layout, g.n, g.c, g.h, g.w, g.f, g.kh, g.kw, oh, ow, g.pad, g.pad,
          g.stride, g.stride, 1, 1, g.groups, xs.data(), AMP_DTYPE_F32,
          dys.data(), AMP_DTYPE_F32, dws.data(), AMP_DTYPE_F32, 0.0f);
    };
    run(AMP_CONV_NCHW_FCHW, x, wt, dy, dx, dw);
    run(AMP_CONV_NHWC_FHWC, toLast(x, g.n, g.c, g.h, g.w),
        toLast(wt, g.f, groupC, g.kh, g.kw), toLast(dy, g.n, g.f, oh, ow),
        dxLast, dwLast);
    EXPECT_EQ(dxLast, toLast(dx, g.n, g.c, g.h, g.w));
    EXPECT_EQ(dwLast, toLast(dw, g.f, groupC, g.kh, g.kw));
    EXPECT_NE(dx, std::vector<float>(dx.size(), 0.0f));
  }
}

TEST(CpuConvBackward, ValidationReachesHandler) {
  float a[16] = {}, b[16] = {}, out[16] = {};
  auto data = [&](int32_t layout, int64_t n, int32_t dyType, int32_t wType,
                  int32_t dxType, void *dx) {
    return amp_test::captureHandlerMessage([&] {
      ampCpuConv2dBackwardData(layout, n, 1, 2, 2, 1, 1, 1, 2, 2, 0, 0, 1, 1, 1,
                               1, 1, a, dyType, b, wType, dx, dxType, 0.0f);
    });
  };
  auto filter = [&](int32_t layout, int64_t n, int32_t xType, int32_t dyType,
                    int32_t dwType) {
    return amp_test::captureHandlerMessage([&] {
      ampCpuConv2dBackwardFilter(layout, n, 1, 2, 2, 1, 1, 1, 2, 2, 0, 0, 1, 1,
                                 1, 1, 1, a, xType, b, dyType, out, dwType,
                                 0.0f);
    });
  };
  const int32_t f32 = AMP_DTYPE_F32, f16 = AMP_DTYPE_F16, bf16 = AMP_DTYPE_BF16;
  auto expectHas = [](const std::string &message, const char *text) {
    EXPECT_NE(message.find(text), std::string::npos) << message;
  };
  expectHas(data(AMP_CONV_NHWC_HWCF, 1, f32, f32, f32, out),
            "ampCpuConv2dBackwardData: layout 1 = NHWC/HWCF is unsupported "
            "(the backward convolutions take layout 0 = NCHW/FCHW or 2 = "
            "NHWC/FHWC)");
  expectHas(filter(AMP_CONV_NHWC_HWCF, 1, f32, f32, f32),
            "ampCpuConv2dBackwardFilter: layout 1 = NHWC/HWCF is unsupported");
  expectHas(filter(7, 1, f32, f32, f32),
            "ampCpuConv2dBackwardFilter: layout 7 is unsupported");
  expectHas(data(0, 1, f16, bf16, f32, out),
            "ampCpuConv2dBackwardData: dy and wt must have the same type "
            "(got f16 and bf16)");
  expectHas(filter(0, 1, bf16, f32, f32),
            "ampCpuConv2dBackwardFilter: x and dy must have the same type");
  expectHas(data(0, 1, bf16, bf16, f16, out),
            "unsupported type combination bf16 x bf16 -> f16 (dx must be f32 "
            "or the type of dy and wt)");
  expectHas(filter(0, 1, AMP_DTYPE_F8E4M3FN, AMP_DTYPE_F8E4M3FN, f32),
            "ampCpuConv2dBackwardFilter: xType is f8E4M3FN: the backward "
            "convolutions take f32, f16 or bf16 operands");
  expectHas(data(0, 0, f32, f32, f32, out),
            "ampCpuConv2dBackwardData: invalid n = 0 (must be > 0)");
  expectHas(filter(0, 0, f32, f32, f32),
            "ampCpuConv2dBackwardFilter: invalid n = 0 (must be > 0)");
  expectHas(data(0, 1, f32, f32, f32, nullptr),
            "ampCpuConv2dBackwardData: null dx pointer");
  // A valid call reports nothing.
  EXPECT_EQ(data(0, 1, f32, f32, f32, out), "");
  EXPECT_EQ(filter(0, 1, f16, f16, f32), "");
}

// ampCpuConstant, the CPU twin of ampGpuConstant: host constants are their
// own "device" copy.
TEST(CpuConstant, ReturnsTheHostPointer) {
  static const float weights[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  void *slot = nullptr;
  EXPECT_EQ(ampCpuConstant(weights, sizeof(weights), &slot),
            static_cast<const void *>(weights));
  EXPECT_EQ(ampCpuConstant(weights, 0, &slot), nullptr);
  EXPECT_EQ(ampCpuConstant(nullptr, 0, nullptr), nullptr);
  std::string message = amp_test::captureHandlerMessage(
      [&] { EXPECT_EQ(ampCpuConstant(nullptr, 16, &slot), nullptr); });
  EXPECT_NE(message.find("ampCpuConstant: invalid constant: 16 bytes"),
            std::string::npos)
      << message;
  message = amp_test::captureHandlerMessage(
      [&] { ampCpuConstant(weights, -1, &slot); });
  EXPECT_NE(message.find("ampCpuConstant: invalid constant: -1 bytes"),
            std::string::npos)
      << message;
  // The slot that caches the device copy is required (the same contract
  // as ampGpuConstant's), and pointer-aligned.
  message = amp_test::captureHandlerMessage(
      [&] { EXPECT_EQ(ampCpuConstant(weights, 16, nullptr), nullptr); });
  EXPECT_NE(message.find("ampCpuConstant: slot = "), std::string::npos)
      << message;
  void *slots[2] = {nullptr, nullptr};
  message = amp_test::captureHandlerMessage([&] {
    ampCpuConstant(weights, 16, reinterpret_cast<char *>(slots) + 1);
  });
  EXPECT_NE(message.find("a pointer-aligned word"), std::string::npos)
      << message;
}

} // namespace
