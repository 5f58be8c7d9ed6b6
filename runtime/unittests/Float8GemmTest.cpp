//===- Float8GemmTest.cpp - the GEMM with FP8 operands on the CPU ---------===//
//
// Part of amp-mlir. The FP8 decodings (ampF8E4M3FNToF32, ampF8E5M2ToF32;
// python/tests/test_dtypes.py compares all 256 codes with ml_dtypes), the
// reference scaled GEMM (ampCpuScaledGemm) on FP8 operands against a
// double-precision product of the decoded values, the CPU pipeline's
// (ampCpuLibraryScaledGemm) against the reference for every transpose, a
// batch, the scales, the amax and 16-bit outputs, the same for the
// convolutions (ampCpuConv2d, ampCpuLibraryConv2d), and the argument
// errors of the FP8 combinations.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "amp/runtime/AmpRuntime.h"

#include <gtest/gtest.h>

#include <algorithm>
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
  /// NULL for none (1).
  const float *aScale = nullptr, *bScale = nullptr;
  AmpDType cType = AMP_DTYPE_F32;
};

/// The f32 value of element `index` of a C of `type` (f32 or 16-bit bits).
float loadC(const std::vector<float> &f32, const std::vector<uint16_t> &low,
            AmpDType type, size_t index) {
  if (type == AMP_DTYPE_F32)
    return f32[index];
  return type == AMP_DTYPE_BF16 ? ampBF16ToF32(low[index])
                                : ampF16ToF32(low[index]);
}

void runCase(const Case &g) {
  SCOPED_TRACE(testing::Message()
               << "transA=" << g.transA << " transB=" << g.transB
               << " batch=" << g.batch << " m=" << g.m << " n=" << g.n
               << " k=" << g.k << " a=" << g.aType << " b=" << g.bType
               << " c=" << g.cType << " scaled=" << (g.aScale || g.bScale));
  std::mt19937 rng(7);
  int64_t aRows = g.transA ? g.k : g.m, aCols = g.transA ? g.m : g.k;
  int64_t bRows = g.transB ? g.n : g.k, bCols = g.transB ? g.k : g.n;
  int64_t lda = aCols + 3, ldb = bCols + 1, ldc = g.n + 2;
  int64_t strideA = aRows * lda + 5, strideB = bRows * ldb + 7,
          strideC = g.m * ldc + 1;
  std::vector<uint8_t> a = randomCodes(g.aType, g.batch * strideA, rng);
  std::vector<uint8_t> b = randomCodes(g.bType, g.batch * strideB, rng);
  // C holds 0.5 (exact in every output type).
  std::vector<float> c(g.batch * strideC, 0.5f);
  std::vector<uint16_t> cLow(g.batch * strideC,
                             g.cType == AMP_DTYPE_BF16 ? 0x3f00 : 0x3800);
  std::vector<float> want = c, got = c;
  std::vector<uint16_t> wantLow = cLow, gotLow = cLow;
  bool low = g.cType != AMP_DTYPE_F32;
  float wantAmax = -1, gotAmax = -1;
  ampCpuScaledGemm(g.transA, g.transB, g.batch, g.m, g.n, g.k, a.data(),
                   g.aType, lda, strideA, b.data(), g.bType, ldb, strideB,
                   low ? static_cast<void *>(wantLow.data()) : want.data(),
                   g.cType, ldc, strideC, g.beta, g.aScale, g.bScale,
                   &wantAmax);
  ampCpuLibraryScaledGemm(
      g.transA, g.transB, g.batch, g.m, g.n, g.k, a.data(), g.aType, lda,
      strideA, b.data(), g.bType, ldb, strideB,
      low ? static_cast<void *>(gotLow.data()) : got.data(), g.cType, ldc,
      strideC, g.beta, g.aScale, g.bScale, &gotAmax);
  float scale = (g.aScale ? *g.aScale : 1.0f) * (g.bScale ? *g.bScale : 1.0f);
  // The output type's half ulp at 1, relative.
  float rounding = g.cType == AMP_DTYPE_F32    ? 0x1p-24f
                   : g.cType == AMP_DTYPE_BF16 ? 0x1p-8f
                                               : 0x1p-11f;
  double exactAmax = 0;
  for (int64_t t = 0; t < g.batch; ++t)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        // The exact product of the decoded values, in double, scaled.
        double sum = 0;
        for (int64_t p = 0; p < g.k; ++p) {
          int64_t ai = t * strideA + (g.transA ? p * lda + i : i * lda + p);
          int64_t bi = t * strideB + (g.transB ? j * ldb + p : p * ldb + j);
          sum += double(decode(g.aType, a[ai])) * decode(g.bType, b[bi]);
        }
        double exact = sum * scale + g.beta * 0.5;
        exactAmax = std::max(exactAmax, std::fabs(exact));
        size_t index = t * strideC + i * ldc + j;
        float reference = loadC(want, wantLow, g.cType, index);
        float library = loadC(got, gotLow, g.cType, index);
        // The reference rounds the double value once (to f32 when C is
        // f32; a 16-bit C within its own rounding); the library sums in f32
        // (a few ulps of the sum of |products| <= 16 k, times the scale).
        if (!low)
          EXPECT_EQ(reference, static_cast<float>(exact)) << i << "," << j;
        else
          EXPECT_LE(std::fabs(reference - exact),
                    rounding * std::fabs(exact) + 1e-30)
              << i << "," << j;
        EXPECT_LE(std::fabs(library - reference),
                  64 * g.k * 0x1p-24f * scale +
                      2 * rounding * std::fabs(reference))
            << i << "," << j;
      }
  // The amax of the f32 values before rounding.
  EXPECT_NEAR(wantAmax, exactAmax, exactAmax * 0x1p-23);
  EXPECT_NEAR(gotAmax, wantAmax,
              64 * g.k * 0x1p-24f * scale + wantAmax * 0x1p-22);
}

TEST(Float8Gemm, MatchesTheReference) {
  for (int transA : {0, 1})
    for (int transB : {0, 1})
      runCase({transA, transB, 1, 5, 7, 33, AMP_DTYPE_F8E4M3FN,
               AMP_DTYPE_F8E4M3FN, 0.0f});
  runCase({0, 1, 3, 4, 16, 32, AMP_DTYPE_F8E4M3FN, AMP_DTYPE_F8E5M2, 1.0f});
  runCase({0, 0, 2, 9, 6, 17, AMP_DTYPE_F8E5M2, AMP_DTYPE_F8E4M3FN, 0.0f});
  // The scales (one or both), and 16-bit outputs.
  const float aScale = 0.0625f, bScale = 3.0f;
  runCase({0, 1, 2, 4, 16, 32, AMP_DTYPE_F8E4M3FN, AMP_DTYPE_F8E5M2, 0.0f,
           &aScale, &bScale});
  runCase({1, 0, 1, 6, 5, 19, AMP_DTYPE_F8E4M3FN, AMP_DTYPE_F8E4M3FN, 1.0f,
           nullptr, &bScale});
  runCase({0, 1, 2, 4, 16, 32, AMP_DTYPE_F8E4M3FN, AMP_DTYPE_F8E4M3FN, 0.0f,
           &aScale, &bScale, AMP_DTYPE_BF16});
  runCase({0, 0, 1, 3, 9, 16, AMP_DTYPE_F8E5M2, AMP_DTYPE_F8E4M3FN, 2.0f,
           &aScale, nullptr, AMP_DTYPE_F16});
}

/// The CPU pipeline's call computes what compiled code computes when it
/// scales the f32 product itself: the same f32 product, times the f32
/// factor, bit for bit.
TEST(Float8Gemm, LibraryScalingIsTheEpiloguesMultiplication) {
  std::mt19937 rng(11);
  const int64_t m = 8, n = 16, k = 48;
  std::vector<uint8_t> a = randomCodes(AMP_DTYPE_F8E4M3FN, m * k, rng);
  std::vector<uint8_t> b = randomCodes(AMP_DTYPE_F8E4M3FN, n * k, rng);
  const float factor = 1.0f / (448.0f / 3.7f * (448.0f / 2.9f));
  std::vector<float> unscaled(m * n), scaled(m * n);
  ampCpuLibraryScaledGemm(0, 1, 1, m, n, k, a.data(), AMP_DTYPE_F8E4M3FN, k, 0,
                          b.data(), AMP_DTYPE_F8E4M3FN, k, 0, unscaled.data(),
                          AMP_DTYPE_F32, n, 0, 0.0f, nullptr, nullptr, nullptr);
  ampCpuLibraryScaledGemm(0, 1, 1, m, n, k, a.data(), AMP_DTYPE_F8E4M3FN, k, 0,
                          b.data(), AMP_DTYPE_F8E4M3FN, k, 0, scaled.data(),
                          AMP_DTYPE_F32, n, 0, 0.0f, &factor, nullptr, nullptr);
  for (int64_t i = 0; i < m * n; ++i)
    EXPECT_EQ(scaled[i], unscaled[i] * factor) << i;
}

TEST(Float8Gemm, Errors) {
  uint8_t a[16] = {}, b[16] = {};
  float c[16] = {}, f[16] = {};
  auto gemm = [&](const void *x, int32_t xType, const void *y, int32_t yType,
                  int32_t cType, const float *scale = nullptr) {
    return amp_test::captureHandlerMessage([&] {
      ampCpuScaledGemm(0, 1, 1, 4, 4, 4, x, xType, 4, 0, y, yType, 4, 0, c,
                       cType, 4, 0, 0.0f, scale, nullptr, nullptr);
    });
  };
  EXPECT_NE(gemm(a, AMP_DTYPE_F8E4M3FN, f, AMP_DTYPE_F32, AMP_DTYPE_F32)
                .find("an FP8 GEMM takes FP8 a and b (got f8E4M3FN and f32)"),
            std::string::npos);
  EXPECT_NE(gemm(a, AMP_DTYPE_F8E5M2, b, AMP_DTYPE_F8E5M2, AMP_DTYPE_F32)
                .find("f8E5M2 x f8E5M2 is unsupported"),
            std::string::npos);
  EXPECT_NE(
      gemm(a, AMP_DTYPE_F8E4M3FN, b, AMP_DTYPE_F8E4M3FN, AMP_DTYPE_F8E4M3FN)
          .find("an FP8 GEMM writes an f32, bf16 or f16 c (got cType "
                "f8E4M3FN)"),
      std::string::npos);
  EXPECT_NE(gemm(a, AMP_DTYPE_F8E4M3FN, b, AMP_DTYPE_F8E4M3FN, AMP_DTYPE_F32,
                 reinterpret_cast<const float *>(
                     reinterpret_cast<const char *>(f) + 2))
                .find("aScale = "),
            std::string::npos);
  EXPECT_EQ(gemm(a, AMP_DTYPE_F8E4M3FN, b, AMP_DTYPE_F8E5M2, AMP_DTYPE_F32),
            "");
  EXPECT_EQ(gemm(a, AMP_DTYPE_F8E4M3FN, b, AMP_DTYPE_F8E5M2, AMP_DTYPE_BF16, f),
            "");
  // The unscaled GEMM takes no FP8.
  std::string plain = amp_test::captureHandlerMessage([&] {
    ampCpuGemm(0, 1, 1, 4, 4, 4, a, AMP_DTYPE_F8E4M3FN, 4, 0, b,
               AMP_DTYPE_F8E4M3FN, 4, 0, c, AMP_DTYPE_F32, 4, 0, 0.0f);
  });
  EXPECT_NE(plain.find("FP8 operands (f8E4M3FN x f8E4M3FN) go through the "
                       "scaled GEMM, ampGpuScaledGemm / ampCpuScaledGemm"),
            std::string::npos)
      << plain;
  // A dynamic size of 0 in the CPU pipeline's call: nothing is written,
  // not even the amax.
  float amax = -1;
  std::string empty = amp_test::captureHandlerMessage([&] {
    ampCpuLibraryScaledGemm(0, 1, 1, 0, 4, 4, a, AMP_DTYPE_F8E4M3FN, 4, 0, b,
                            AMP_DTYPE_F8E4M3FN, 4, 0, c, AMP_DTYPE_F32, 4, 0,
                            0.0f, f, f, &amax);
  });
  EXPECT_EQ(empty, "");
  EXPECT_EQ(amax, -1.0f);
  // The convolution's FP8 operands follow the GEMM's rules.
  auto conv = [&](int32_t xType, int32_t wType, int32_t yType) {
    return amp_test::captureHandlerMessage([&] {
      ampCpuLibraryConv2d(AMP_CONV_NCHW_FCHW, 1, 1, 4, 4, 1, 1, 1, 4, 4, 0, 0,
                          1, 1, 1, 1, 1, a, xType, b, wType, c, yType, 0.0f);
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
                   stride, 1, 1, 1, x.data(), AMP_DTYPE_F8E4M3FN, wt.data(),
                   wType, want.data(), AMP_DTYPE_F32, 0.0f);
      ampCpuLibraryConv2d(layout, n, c, h, w, f, kh, kw, oh, ow, pad, pad,
                          stride, stride, 1, 1, 1, x.data(), AMP_DTYPE_F8E4M3FN,
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
