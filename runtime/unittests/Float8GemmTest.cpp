//===- Float8GemmTest.cpp - the GEMM with FP8 operands on the CPU ---------===//
//
// Part of amp-mlir. The FP8 decodings (ampF8E4M3FNToF32, ampF8E5M2ToF32;
// python/tests/test_dtypes.py compares all 256 codes with ml_dtypes), the
// reference GEMM (ampCpuGemm) on FP8 operands against a double-precision
// product of the decoded values, the CPU pipeline's GEMM
// (ampCpuLibraryGemm) against the reference for every transpose and a
// batch, the same for the convolutions (ampCpuConv2d,
// ampCpuLibraryConv2d), and the argument errors of the FP8 combinations.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "amp/runtime/AmpRuntime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

float decode(AmpDType type, uint8_t bits) {
  return type == AMP_DTYPE_F8E4M3FN ? ampF8E4M3FNToF32(bits)
                                    : ampF8E5M2ToF32(bits);
}

TEST(Float8Gemm, Decodings) {
  EXPECT_EQ(ampF8E4M3FNToF32(0x38), 1.0f);
  EXPECT_EQ(ampF8E4M3FNToF32(0x7e), 448.0f);
  EXPECT_EQ(ampF8E4M3FNToF32(0xfe), -448.0f);
  EXPECT_EQ(ampF8E4M3FNToF32(0x01), 0x1p-9f);
  EXPECT_EQ(ampF8E4M3FNToF32(0x08), 0x1p-6f);
  EXPECT_TRUE(std::isnan(ampF8E4M3FNToF32(0x7f)));
  EXPECT_TRUE(std::isnan(ampF8E4M3FNToF32(0xff)));
  EXPECT_EQ(ampF8E5M2ToF32(0x3c), 1.0f);
  EXPECT_EQ(ampF8E5M2ToF32(0x7b), 57344.0f);
  EXPECT_EQ(ampF8E5M2ToF32(0x01), 0x1p-16f);
  EXPECT_EQ(ampF8E5M2ToF32(0x7c), INFINITY);
  EXPECT_EQ(ampF8E5M2ToF32(0xfc), -INFINITY);
  EXPECT_TRUE(std::isnan(ampF8E5M2ToF32(0x7d)));
  // Increasing over the finite positive codes; negative codes mirror them.
  for (AmpDType type : {AMP_DTYPE_F8E4M3FN, AMP_DTYPE_F8E5M2}) {
    int lastFinite = type == AMP_DTYPE_F8E4M3FN ? 0x7e : 0x7b;
    for (int code = 1; code <= lastFinite; ++code) {
      EXPECT_GT(decode(type, code), decode(type, code - 1)) << code;
      EXPECT_EQ(decode(type, code | 0x80), -decode(type, code)) << code;
    }
  }
}

/// count random FP8 codes of `type` with |value| <= 4 (no NaN or Inf).
std::vector<uint8_t> randomCodes(AmpDType type, int64_t count,
                                 std::mt19937 &rng) {
  std::vector<uint8_t> codes;
  std::uniform_int_distribution<int> dist(0, 255);
  while (static_cast<int64_t>(codes.size()) < count) {
    uint8_t code = static_cast<uint8_t>(dist(rng));
    float value = decode(type, code);
    if (std::isfinite(value) && std::fabs(value) <= 4.0f)
      codes.push_back(code);
  }
  return codes;
}

struct Case {
  int transA, transB;
  int64_t batch, m, n, k;
  AmpDType aType, bType;
  float beta;
};

void runCase(const Case &g) {
  SCOPED_TRACE(testing::Message()
               << "transA=" << g.transA << " transB=" << g.transB
               << " batch=" << g.batch << " m=" << g.m << " n=" << g.n
               << " k=" << g.k << " a=" << g.aType << " b=" << g.bType);
  std::mt19937 rng(7);
  int64_t aRows = g.transA ? g.k : g.m, aCols = g.transA ? g.m : g.k;
  int64_t bRows = g.transB ? g.n : g.k, bCols = g.transB ? g.k : g.n;
  int64_t lda = aCols + 3, ldb = bCols + 1, ldc = g.n + 2;
  int64_t strideA = aRows * lda + 5, strideB = bRows * ldb + 7,
          strideC = g.m * ldc + 1;
  std::vector<uint8_t> a = randomCodes(g.aType, g.batch * strideA, rng);
  std::vector<uint8_t> b = randomCodes(g.bType, g.batch * strideB, rng);
  std::vector<float> c(g.batch * strideC, 0.5f);
  std::vector<float> want = c, got = c;
  ampCpuGemm(g.transA, g.transB, g.batch, g.m, g.n, g.k, a.data(), g.aType, lda,
             strideA, b.data(), g.bType, ldb, strideB, want.data(),
             AMP_DTYPE_F32, ldc, strideC, g.beta);
  ampCpuLibraryGemm(g.transA, g.transB, g.batch, g.m, g.n, g.k, a.data(),
                    g.aType, lda, strideA, b.data(), g.bType, ldb, strideB,
                    got.data(), AMP_DTYPE_F32, ldc, strideC, g.beta);
  for (int64_t t = 0; t < g.batch; ++t)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        // The exact product of the decoded values, in double.
        double exact = g.beta * 0.5;
        for (int64_t p = 0; p < g.k; ++p) {
          int64_t ai = t * strideA + (g.transA ? p * lda + i : i * lda + p);
          int64_t bi = t * strideB + (g.transB ? j * ldb + p : p * ldb + j);
          exact += double(decode(g.aType, a[ai])) * decode(g.bType, b[bi]);
        }
        size_t index = t * strideC + i * ldc + j;
        // The reference rounds the double sum once; the library sums in
        // f32 (a few ulps of the sum of |products| <= 16 k).
        EXPECT_EQ(want[index], static_cast<float>(exact)) << i << "," << j;
        EXPECT_LE(std::fabs(got[index] - want[index]), 64 * g.k * 0x1p-24f)
            << i << "," << j;
      }
}

TEST(Float8Gemm, MatchesTheReference) {
  for (int transA : {0, 1})
    for (int transB : {0, 1})
      runCase({transA, transB, 1, 5, 7, 33, AMP_DTYPE_F8E4M3FN,
               AMP_DTYPE_F8E4M3FN, 0.0f});
  runCase({0, 1, 3, 4, 16, 32, AMP_DTYPE_F8E4M3FN, AMP_DTYPE_F8E5M2, 1.0f});
  runCase({0, 0, 2, 9, 6, 17, AMP_DTYPE_F8E5M2, AMP_DTYPE_F8E4M3FN, 0.0f});
}

TEST(Float8Gemm, Errors) {
  uint8_t a[16] = {}, b[16] = {};
  float c[16] = {}, f[16] = {};
  auto gemm = [&](const void *x, int32_t xType, const void *y, int32_t yType,
                  int32_t cType) {
    return amp_test::captureHandlerMessage([&] {
      ampCpuGemm(0, 1, 1, 4, 4, 4, x, xType, 4, 0, y, yType, 4, 0, c, cType, 4,
                 0, 0.0f);
    });
  };
  EXPECT_NE(gemm(a, AMP_DTYPE_F8E4M3FN, f, AMP_DTYPE_F32, AMP_DTYPE_F32)
                .find("an FP8 GEMM takes FP8 a and b (got f8E4M3FN and f32)"),
            std::string::npos);
  EXPECT_NE(gemm(a, AMP_DTYPE_F8E5M2, b, AMP_DTYPE_F8E5M2, AMP_DTYPE_F32)
                .find("f8E5M2 x f8E5M2 is unsupported"),
            std::string::npos);
  EXPECT_NE(gemm(a, AMP_DTYPE_F8E4M3FN, b, AMP_DTYPE_F8E4M3FN, AMP_DTYPE_BF16)
                .find("an FP8 GEMM writes an f32 c (got cType bf16)"),
            std::string::npos);
  EXPECT_EQ(gemm(a, AMP_DTYPE_F8E4M3FN, b, AMP_DTYPE_F8E5M2, AMP_DTYPE_F32),
            "");
  // The convolution's FP8 operands follow the GEMM's rules.
  auto conv = [&](int32_t xType, int32_t wType, int32_t yType) {
    return amp_test::captureHandlerMessage([&] {
      ampCpuLibraryConv2d(AMP_CONV_NCHW_FCHW, 1, 1, 4, 4, 1, 1, 1, 4, 4, 0, 0,
                          1, 1, 1, 1, a, xType, b, wType, c, yType, 0.0f);
    });
  };
  EXPECT_NE(conv(AMP_DTYPE_F8E4M3FN, AMP_DTYPE_BF16, AMP_DTYPE_F32)
                .find("an FP8 convolution takes FP8 x and wt (got f8E4M3FN "
                      "and bf16)"),
            std::string::npos);
  EXPECT_NE(conv(AMP_DTYPE_F8E4M3FN, AMP_DTYPE_F8E4M3FN, AMP_DTYPE_BF16)
                .find("an FP8 convolution writes an f32 y (got yType bf16)"),
            std::string::npos);
  EXPECT_EQ(conv(AMP_DTYPE_F8E4M3FN, AMP_DTYPE_F8E5M2, AMP_DTYPE_F32), "");
}

/// A padded, strided NCHW convolution (and an NHWC one) of random FP8
/// codes: the reference (ampCpuConv2d) is the exact sum of the decoded
/// products, rounded once; the CPU pipeline's call (ampCpuLibraryConv2d)
/// sums in f32.
TEST(Float8Gemm, ConvolutionMatchesTheReference) {
  for (int32_t layout : {AMP_CONV_NCHW_FCHW, AMP_CONV_NHWC_HWCF})
    for (AmpDType wType : {AMP_DTYPE_F8E4M3FN, AMP_DTYPE_F8E5M2}) {
      SCOPED_TRACE(testing::Message()
                   << "layout=" << layout << " wType=" << wType);
      const int64_t n = 2, c = 3, h = 7, w = 6, f = 4, kh = 3, kw = 2;
      const int64_t pad = 1, stride = 2, oh = 4, ow = 4;
      std::mt19937 rng(11);
      std::vector<uint8_t> x =
          randomCodes(AMP_DTYPE_F8E4M3FN, n * c * h * w, rng);
      std::vector<uint8_t> wt = randomCodes(wType, f * c * kh * kw, rng);
      std::vector<float> want(n * f * oh * ow), got(want.size());
      ampCpuConv2d(layout, n, c, h, w, f, kh, kw, oh, ow, pad, pad, stride,
                   stride, 1, 1, x.data(), AMP_DTYPE_F8E4M3FN, wt.data(), wType,
                   want.data(), AMP_DTYPE_F32, 0.0f);
      ampCpuLibraryConv2d(layout, n, c, h, w, f, kh, kw, oh, ow, pad, pad,
                          stride, stride, 1, 1, x.data(), AMP_DTYPE_F8E4M3FN,
                          wt.data(), wType, got.data(), AMP_DTYPE_F32, 0.0f);
      bool nchw = layout == AMP_CONV_NCHW_FCHW;
      for (int64_t b = 0; b < n; ++b)
        for (int64_t o = 0; o < f; ++o)
          for (int64_t oy = 0; oy < oh; ++oy)
            for (int64_t ox = 0; ox < ow; ++ox) {
              double exact = 0;
              for (int64_t ci = 0; ci < c; ++ci)
                for (int64_t r = 0; r < kh; ++r)
                  for (int64_t s = 0; s < kw; ++s) {
                    int64_t iy = oy * stride - pad + r,
                            ix = ox * stride - pad + s;
                    if (iy < 0 || iy >= h || ix < 0 || ix >= w)
                      continue;
                    int64_t xi = nchw ? ((b * c + ci) * h + iy) * w + ix
                                      : ((b * h + iy) * w + ix) * c + ci;
                    int64_t wi = nchw ? ((o * c + ci) * kh + r) * kw + s
                                      : ((r * kw + s) * c + ci) * f + o;
                    exact += double(decode(AMP_DTYPE_F8E4M3FN, x[xi])) *
                             decode(wType, wt[wi]);
                  }
              int64_t yi = nchw ? ((b * f + o) * oh + oy) * ow + ox
                                : ((b * oh + oy) * ow + ox) * f + o;
              EXPECT_EQ(want[yi], static_cast<float>(exact)) << yi;
              EXPECT_LE(std::fabs(got[yi] - want[yi]),
                        64 * c * kh * kw * 0x1p-24f)
                  << yi;
            }
    }
}

} // namespace
