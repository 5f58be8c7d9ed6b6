//===- CpuLibraryTest.cpp - the CPU library calls against the reference ---===//
//
// Part of amp-mlir. The CPU pipeline's GEMM (the host's CBLAS, or loops)
// against ampCpuGemm, the double-accumulating reference, for every
// transpose, type combination, batch stride and padded leading dimension;
// its convolution (im2col and that GEMM) against ampCpuConv2d for every
// layout and type, with strides, padding, dilations, 1x1 windows and odd
// sizes.
// Built twice: in AmpRuntimeTests (the library found at configure time) and
// in AmpRuntimeCpuLoopsTests, whose main sets AMP_CPU_BLAS=none (the
// fallback loops).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "amp/runtime/AmpRuntime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

size_t bytesOf(AmpDType type) { return type == AMP_DTYPE_F32 ? 4 : 2; }

float load(const std::vector<uint8_t> &data, AmpDType type, size_t i) {
  if (type == AMP_DTYPE_F32) {
    float value;
    std::memcpy(&value, data.data() + 4 * i, 4);
    return value;
  }
  uint16_t bits;
  std::memcpy(&bits, data.data() + 2 * i, 2);
  return type == AMP_DTYPE_F16 ? ampF16ToF32(bits) : ampBF16ToF32(bits);
}

void store(std::vector<uint8_t> &data, AmpDType type, size_t i, float value) {
  if (type == AMP_DTYPE_F32) {
    std::memcpy(data.data() + 4 * i, &value, 4);
    return;
  }
  uint16_t bits =
      type == AMP_DTYPE_F16 ? ampF32ToF16(value) : ampF32ToBF16(value);
  std::memcpy(data.data() + 2 * i, &bits, 2);
}

struct LibraryGemmCase {
  int transA, transB;
  int64_t batch, m, n, k;
  AmpDType inType, outType;
  float beta;
};

void runCase(const LibraryGemmCase &g) {
  SCOPED_TRACE(testing::Message()
               << "transA=" << g.transA << " transB=" << g.transB
               << " batch=" << g.batch << " m=" << g.m << " n=" << g.n
               << " k=" << g.k << " in=" << g.inType << " out=" << g.outType
               << " beta=" << g.beta);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  int64_t aRows = g.transA ? g.k : g.m, aCols = g.transA ? g.m : g.k;
  int64_t bRows = g.transB ? g.n : g.k, bCols = g.transB ? g.k : g.n;
  int64_t lda = aCols + 3, ldb = bCols + 1, ldc = g.n + 2;
  int64_t strideA = aRows * lda + 5, strideB = bRows * ldb + 7,
          strideC = g.m * ldc + 1;
  auto tensor = [&](AmpDType type, int64_t count) {
    std::vector<uint8_t> data(count * bytesOf(type));
    for (int64_t i = 0; i < count; ++i)
      store(data, type, i, dist(rng));
    return data;
  };
  std::vector<uint8_t> a = tensor(g.inType, g.batch * strideA);
  std::vector<uint8_t> b = tensor(g.inType, g.batch * strideB);
  std::vector<uint8_t> c = tensor(g.outType, g.batch * strideC);
  std::vector<uint8_t> want = c;
  ampCpuGemm(g.transA, g.transB, g.batch, g.m, g.n, g.k, a.data(), g.inType,
             lda, strideA, b.data(), g.inType, ldb, strideB, want.data(),
             g.outType, ldc, strideC, g.beta);
  std::vector<uint8_t> got = c;
  ampCpuLibraryGemm(g.transA, g.transB, g.batch, g.m, g.n, g.k, a.data(),
                    g.inType, lda, strideA, b.data(), g.inType, ldb, strideB,
                    got.data(), g.outType, ldc, strideC, g.beta);
  for (int64_t t = 0; t < g.batch; ++t)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        size_t index = t * strideC + i * ldc + j;
        float w = load(want, g.outType, index), r = load(got, g.outType, index);
        // f32 accumulation in the library's order: a few f32 ulps of the
        // sum of |products| (< 2 * k * 2^-24 with |a|, |b| < 1); a 16-bit
        // result may then round to the neighbouring 16-bit value.
        float bound = 4 * g.k * 0x1p-24f;
        if (g.outType == AMP_DTYPE_F16)
          bound += 0x1p-10f * std::max(std::fabs(w), 0x1p-14f);
        else if (g.outType == AMP_DTYPE_BF16)
          bound += 0x1p-7f * std::max(std::fabs(w), 0x1p-126f);
        ASSERT_LE(std::fabs(r - w), bound) << "at " << t << "," << i << ","
                                           << j << ": " << r << " vs " << w;
      }
  // The gaps between rows and batches are not written.
  for (int64_t t = 0; t < g.batch; ++t)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = g.n; j < ldc && t * strideC + i * ldc + j <
                                           g.batch * strideC;
           ++j) {
        size_t index = t * strideC + i * ldc + j;
        ASSERT_EQ(std::memcmp(got.data() + index * bytesOf(g.outType),
                              c.data() + index * bytesOf(g.outType),
                              bytesOf(g.outType)),
                  0)
            << "gap at " << index;
      }
}

TEST(CpuLibraryGemm, Backend) {
  std::string name = ampCpuLibraryName();
#ifdef AMP_TEST_EXPECT_CPU_LOOPS
  EXPECT_EQ(name, "loops");
#else
  EXPECT_FALSE(name.empty());
#endif
}

TEST(CpuLibraryGemm, AllTransposesAndTypes) {
  for (int transA = 0; transA < 2; ++transA)
    for (int transB = 0; transB < 2; ++transB)
      for (AmpDType in : {AMP_DTYPE_F32, AMP_DTYPE_F16, AMP_DTYPE_BF16})
        for (AmpDType out : {AMP_DTYPE_F32, in})
          for (float beta : {0.0f, 1.0f, 0.5f})
            runCase({transA, transB, 1, 13, 11, 17, in, out, beta});
}

TEST(CpuLibraryGemm, Batched) {
  for (int transA = 0; transA < 2; ++transA)
    for (int transB = 0; transB < 2; ++transB) {
      runCase({transA, transB, 3, 9, 20, 33, AMP_DTYPE_F32, AMP_DTYPE_F32,
               0.0f});
      runCase({transA, transB, 3, 9, 20, 33, AMP_DTYPE_F16, AMP_DTYPE_F16,
               1.0f});
      runCase({transA, transB, 2, 9, 20, 33, AMP_DTYPE_BF16, AMP_DTYPE_F32,
               0.0f});
    }
}

TEST(CpuLibraryGemm, Larger) {
  // Sizes past the libraries' blocking (and the 8-wide F16C loops' tails).
  runCase({0, 0, 1, 70, 130, 300, AMP_DTYPE_F16, AMP_DTYPE_F16, 0.0f});
  runCase({0, 1, 1, 70, 130, 300, AMP_DTYPE_BF16, AMP_DTYPE_BF16, 0.0f});
  runCase({1, 0, 2, 65, 67, 129, AMP_DTYPE_F32, AMP_DTYPE_F32, 1.0f});
  // Wider 16-bit operands in every layout, with a few rows more than
  // fewRowsGemm takes.
  for (int transA = 0; transA < 2; ++transA)
    for (int transB = 0; transB < 2; ++transB) {
      runCase(
          {transA, transB, 1, 9, 600, 300, AMP_DTYPE_F16, AMP_DTYPE_F16, 0.5f});
      runCase({transA, transB, 2, 9, 600, 300, AMP_DTYPE_BF16, AMP_DTYPE_F32,
               0.0f});
    }
}

TEST(CpuLibraryGemm, WideningGemmBlocks) {
  // 16-bit operands with more rows than fewRowsGemm takes go to the
  // widening GEMM where the CPU has a micro-kernel for it: sizes past each
  // of its blocks (MC rows, NC columns, KC deep) with edge tiles in both
  // directions, every layout (each packing path), beta added once.
  for (int transA = 0; transA < 2; ++transA)
    for (int transB = 0; transB < 2; ++transB) {
      runCase({transA, transB, 1, 197, 1061, 263, AMP_DTYPE_F16, AMP_DTYPE_F16,
               0.5f});
      runCase({transA, transB, 1, 24, 96, 520, AMP_DTYPE_BF16, AMP_DTYPE_F32,
               1.0f});
    }
}

// Products of two bf16 values are exact in f32, so a k = 1 GEMM with a
// bf16 result is exactly their rounding to bf16: the vectorised widening
// and narrowing (8 at a time, then the tail) against ampF32ToBF16, ties,
// subnormals, infinities and NaNs included.
TEST(CpuLibraryGemm, BF16ConversionsAreExact) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<uint32_t> bits(0, 0xffff);
  const int64_t n = 1003;
  std::vector<uint16_t> b(n);
  for (uint16_t &value : b)
    value = static_cast<uint16_t>(bits(rng));
  b[0] = 0x7f80; // +Inf
  b[1] = 0xffc1; // NaN
  b[2] = 0x0001; // the smallest subnormal
  for (float scale : {1.0f, 1.0078125f, 0.99609375f, 3.0f}) {
    uint16_t a = ampF32ToBF16(scale);
    std::vector<uint16_t> c(n, 0);
    ampCpuLibraryGemm(0, 0, 1, 1, n, 1, &a, AMP_DTYPE_BF16, 1, 0, b.data(),
                      AMP_DTYPE_BF16, n, 0, c.data(), AMP_DTYPE_BF16, n, 0,
                      0.0f);
    for (int64_t j = 0; j < n; ++j) {
      float product = ampBF16ToF32(a) * ampBF16ToF32(b[j]);
      if (std::isnan(product)) {
        EXPECT_TRUE(std::isnan(ampBF16ToF32(c[j]))) << "at " << j;
        continue;
      }
      ASSERT_EQ(c[j], ampF32ToBF16(product))
          << "at " << j << ": " << scale << " * " << ampBF16ToF32(b[j]);
    }
  }
}

TEST(CpuLibraryGemm, Kernel) {
  std::string kernel = ampCpuGemmKernel();
  const char *wanted = std::getenv("AMP_CPU_GEMM");
  if (wanted && std::string(wanted) == "blas")
    EXPECT_EQ(kernel, "blas");
  else if (wanted && std::string(wanted) == "avx2" && kernel != "blas")
    EXPECT_EQ(kernel, "avx2");
  else
    EXPECT_TRUE(kernel == "avx512" || kernel == "avx2" || kernel == "blas")
        << kernel;
}

TEST(CpuLibraryGemm, FewRows) {
  // One to four rows read a 16-bit B in place (fewRowsGemm, on AVX2 with
  // FMA and F16C), five take the widening path: every row count, both
  // layouts of B, k and n with and without 8- and 16-wide tails, each beta
  // and a batch.
  for (int64_t m = 1; m <= 5; ++m)
    for (int transB = 0; transB < 2; ++transB)
      for (AmpDType in : {AMP_DTYPE_F16, AMP_DTYPE_BF16})
        for (float beta : {0.0f, 1.0f, 0.5f}) {
          runCase({0, transB, 1, m, 37, 45, in, AMP_DTYPE_F32, beta});
          runCase({0, transB, 2, m, 32, 64, in, in, beta});
          runCase({0, transB, 1, m, 5, 3, in, AMP_DTYPE_F32, beta});
        }
  // Transposed A keeps the widening path.
  runCase({1, 1, 1, 2, 37, 45, AMP_DTYPE_F16, AMP_DTYPE_F32, 0.0f});
}

TEST(CpuLibraryGemm, BetaZeroDoesNotReadC) {
  float a[] = {1, 2}, b[] = {3, 4}, c[] = {NAN};
  ampCpuLibraryGemm(0, 0, 1, 1, 1, 2, a, AMP_DTYPE_F32, 2, 0, b, AMP_DTYPE_F32,
                    1, 0, c, AMP_DTYPE_F32, 1, 0, 0.0f);
  EXPECT_EQ(c[0], 11.0f);
  uint16_t ah[] = {ampF32ToF16(1.0f), ampF32ToF16(2.0f)};
  uint16_t bh[] = {ampF32ToF16(3.0f), ampF32ToF16(4.0f)};
  uint16_t ch = 0x7e00; // f16 NaN
  ampCpuLibraryGemm(0, 0, 1, 1, 1, 2, ah, AMP_DTYPE_F16, 2, 0, bh,
                    AMP_DTYPE_F16, 1, 0, &ch, AMP_DTYPE_F16, 1, 0, 0.0f);
  EXPECT_EQ(ampF16ToF32(ch), 11.0f);
}

// The epilogue form: 4096 products of ones add up to 4096 in f32, written
// as f16/bf16 (a 16-bit accumulator would stop at 2048 or 256).
TEST(CpuLibraryGemm, SixteenBitOutputAccumulatesInF32) {
  for (AmpDType type : {AMP_DTYPE_F16, AMP_DTYPE_BF16}) {
    uint16_t one =
        type == AMP_DTYPE_F16 ? ampF32ToF16(1.0f) : ampF32ToBF16(1.0f);
    std::vector<uint16_t> a(4096, one), b(4096, one);
    uint16_t c = 0;
    ampCpuLibraryGemm(0, 0, 1, 1, 1, 4096, a.data(), type, 4096, 0, b.data(),
                      type, 1, 0, &c, type, 1, 0, 0.0f);
    float got = type == AMP_DTYPE_F16 ? ampF16ToF32(c) : ampBF16ToF32(c);
    EXPECT_EQ(got, 4096.0f) << "type " << type;
  }
}

// Infinities and NaNs of 16-bit inputs widen exactly; an f32 result past
// f16's range is written as Inf.
TEST(CpuLibraryGemm, SpecialValues) {
  uint16_t a[] = {ampF32ToF16(INFINITY), ampF32ToF16(1.0f)};
  uint16_t b[] = {ampF32ToF16(1.0f), ampF32ToF16(2.0f)};
  float c = 0;
  ampCpuLibraryGemm(0, 0, 1, 1, 1, 2, a, AMP_DTYPE_F16, 2, 0, b, AMP_DTYPE_F16,
                    1, 0, &c, AMP_DTYPE_F32, 1, 0, 0.0f);
  EXPECT_TRUE(std::isinf(c) && c > 0);
  uint16_t big[] = {ampF32ToF16(60000.0f), ampF32ToF16(60000.0f)};
  uint16_t two[] = {ampF32ToF16(1.0f), ampF32ToF16(1.0f)};
  uint16_t ch = 0;
  ampCpuLibraryGemm(0, 0, 1, 1, 1, 2, big, AMP_DTYPE_F16, 2, 0, two,
                    AMP_DTYPE_F16, 1, 0, &ch, AMP_DTYPE_F16, 1, 0, 0.0f);
  EXPECT_EQ(ch, 0x7c00); // +Inf
}

// Sizes of 0 (dynamic sizes of compiled code): m, n or batch == 0 writes
// nothing, k == 0 gives beta * C; other arguments are still checked.
TEST(CpuLibraryGemm, EmptySizes) {
  float a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 3, 4}, c[4] = {7, 7, 7, 7};
  ampCpuLibraryGemm(0, 0, 1, 0, 2, 2, a, AMP_DTYPE_F32, 2, 0, b, AMP_DTYPE_F32,
                    2, 0, c, AMP_DTYPE_F32, 2, 0, 0.0f);
  ampCpuLibraryGemm(0, 0, 0, 2, 2, 2, a, AMP_DTYPE_F32, 2, 0, b, AMP_DTYPE_F32,
                    2, 0, c, AMP_DTYPE_F32, 2, 0, 0.0f);
  EXPECT_EQ(c[0], 7.0f);
  ampCpuLibraryGemm(0, 0, 1, 2, 2, 0, nullptr, AMP_DTYPE_F32, 0, 0, nullptr,
                    AMP_DTYPE_F32, 2, 0, c, AMP_DTYPE_F32, 2, 0, 0.5f);
  EXPECT_EQ(c[0], 3.5f);
  EXPECT_EQ(c[3], 3.5f);
  ampCpuLibraryGemm(0, 0, 1, 2, 2, 0, nullptr, AMP_DTYPE_F32, 0, 0, nullptr,
                    AMP_DTYPE_F32, 2, 0, c, AMP_DTYPE_F32, 2, 0, 0.0f);
  EXPECT_EQ(c[0], 0.0f);
  std::string message = amp_test::captureHandlerMessage([&] {
    ampCpuLibraryGemm(0, 0, 1, 0, 2, 2, a, AMP_DTYPE_F32, 2, 0, b,
                      AMP_DTYPE_F16, 2, 0, c, AMP_DTYPE_F32, 2, 0, 0.0f);
  });
  EXPECT_NE(message.find("same type"), std::string::npos) << message;
}

struct LibraryConvCase {
  AmpConvLayout layout;
  int64_t n, c, h, w, f, kh, kw;
  int64_t padTop, padLeft, strideH, strideW, dilH, dilW;
  AmpDType inType, outType;
  float beta;
  // The output size: what symmetric padding gives, plus `extraH/W` rows or
  // columns (more padding at the bottom/right), or minus.
  int64_t extraH = 0, extraW = 0;
  int64_t groups = 1;
};

void runConvCase(const LibraryConvCase &v) {
  int64_t oh =
      (v.h + 2 * v.padTop - v.dilH * (v.kh - 1) - 1) / v.strideH + 1 + v.extraH;
  int64_t ow = (v.w + 2 * v.padLeft - v.dilW * (v.kw - 1) - 1) / v.strideW + 1 +
               v.extraW;
  SCOPED_TRACE(testing::Message()
               << "layout=" << v.layout << " n=" << v.n << " c=" << v.c << " h="
               << v.h << " w=" << v.w << " f=" << v.f << " k=" << v.kh << "x"
               << v.kw << " out=" << oh << "x" << ow << " pad=" << v.padTop
               << "," << v.padLeft << " stride=" << v.strideH << "x"
               << v.strideW << " dil=" << v.dilH << "x" << v.dilW
               << " groups=" << v.groups << " in=" << v.inType
               << " out=" << v.outType << " beta=" << v.beta);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto tensor = [&](AmpDType type, int64_t count) {
    std::vector<uint8_t> data(count * bytesOf(type));
    for (int64_t i = 0; i < count; ++i)
      store(data, type, i, dist(rng));
    return data;
  };
  std::vector<uint8_t> x = tensor(v.inType, v.n * v.c * v.h * v.w);
  std::vector<uint8_t> wt =
      tensor(v.inType, v.f * (v.c / v.groups) * v.kh * v.kw);
  int64_t outputs = v.n * v.f * oh * ow;
  std::vector<uint8_t> y = tensor(v.outType, outputs);
  std::vector<uint8_t> want = y, got = y;
  ampCpuConv2d(v.layout, v.n, v.c, v.h, v.w, v.f, v.kh, v.kw, oh, ow, v.padTop,
               v.padLeft, v.strideH, v.strideW, v.dilH, v.dilW, v.groups,
               x.data(), v.inType, wt.data(), v.inType, want.data(), v.outType,
               v.beta);
  ampCpuLibraryConv2d(v.layout, v.n, v.c, v.h, v.w, v.f, v.kh, v.kw, oh, ow,
                      v.padTop, v.padLeft, v.strideH, v.strideW, v.dilH, v.dilW,
                      v.groups, x.data(), v.inType, wt.data(), v.inType,
                      got.data(), v.outType, v.beta);
  int64_t k = v.c / v.groups * v.kh * v.kw;
  for (int64_t i = 0; i < outputs; ++i) {
    float w = load(want, v.outType, i), r = load(got, v.outType, i);
    // As for the GEMM: f32 sums of k products in another order, then one
    // rounding to a 16-bit output.
    float bound = 4 * (k + 1) * 0x1p-24f;
    if (v.outType == AMP_DTYPE_F16)
      bound += 0x1p-10f * std::max(std::fabs(w), 0x1p-14f);
    else if (v.outType == AMP_DTYPE_BF16)
      bound += 0x1p-7f * std::max(std::fabs(w), 0x1p-126f);
    ASSERT_LE(std::fabs(r - w), bound)
        << "at " << i << ": " << r << " vs " << w;
  }
}

TEST(CpuLibraryConv, AllLayoutsAndTypes) {
  for (AmpConvLayout layout :
       {AMP_CONV_NCHW_FCHW, AMP_CONV_NHWC_HWCF, AMP_CONV_NHWC_FHWC})
    for (AmpDType in : {AMP_DTYPE_F32, AMP_DTYPE_F16, AMP_DTYPE_BF16})
      for (AmpDType out : {AMP_DTYPE_F32, in})
        for (float beta : {0.0f, 1.0f}) {
          // 3x3, unit stride, padding 1 (resnet's body).
          runConvCase(
              {layout, 2, 3, 7, 5, 4, 3, 3, 1, 1, 1, 1, 1, 1, in, out, beta});
          // 7x7 at stride 2, padding 3 (resnet's stem), odd sizes.
          runConvCase(
              {layout, 1, 3, 13, 11, 5, 7, 7, 3, 3, 2, 2, 1, 1, in, out, beta});
          // 1x1: read in place (f32) or widened; and at stride 2 (resnet's
          // downsampling), gathered.
          runConvCase(
              {layout, 2, 5, 6, 7, 3, 1, 1, 0, 0, 1, 1, 1, 1, in, out, beta});
          runConvCase(
              {layout, 2, 5, 7, 9, 3, 1, 1, 0, 0, 2, 2, 1, 1, in, out, beta});
        }
}

TEST(CpuLibraryConv, StridesDilationsPadding) {
  for (AmpConvLayout layout :
       {AMP_CONV_NCHW_FCHW, AMP_CONV_NHWC_HWCF, AMP_CONV_NHWC_FHWC})
    for (AmpDType in : {AMP_DTYPE_F32, AMP_DTYPE_F16, AMP_DTYPE_BF16}) {
      // Unequal strides and dilations, asymmetric padding.
      runConvCase({layout, 2, 4, 11, 9, 6, 3, 2, 2, 1, 2, 3, 2, 1, in,
                   AMP_DTYPE_F32, 0.0f});
      runConvCase(
          {layout, 1, 2, 9, 10, 3, 2, 3, 0, 2, 1, 2, 3, 2, in, in, 0.0f});
      // More padding at the bottom/right than at the top/left (the output
      // is larger than symmetric padding gives), and less.
      runConvCase({layout, 1, 3, 8, 8, 2, 3, 3, 1, 0, 2, 2, 1, 1, in,
                   AMP_DTYPE_F32, 0.0f, 1, 2});
      runConvCase({layout, 1, 3, 8, 8, 2, 3, 3, 2, 2, 1, 1, 1, 1, in, in, 0.0f,
                   -1, -2});
      // A window larger than the input with padding: some rows all zero.
      runConvCase({layout, 1, 2, 3, 4, 3, 5, 5, 2, 2, 1, 1, 1, 1, in,
                   AMP_DTYPE_F32, 0.0f});
      // A larger one: the library's blocked kernels.
      runConvCase(
          {layout, 2, 16, 19, 17, 24, 3, 3, 1, 1, 1, 1, 1, 1, in, in, 0.0f});
    }
}

const AmpConvLayout kLayouts[] = {AMP_CONV_NCHW_FCHW, AMP_CONV_NHWC_HWCF,
                                  AMP_CONV_NHWC_FHWC};

/// The cases of a grouped (not depthwise) convolution: per-group GEMMs on
/// strided views of the filter and y.
void runGroupedCases(AmpConvLayout layout, AmpDType in, AmpDType out,
                     float beta) {
  // Two groups of 3 input channels into 2 outputs each, 3x3, padding 1.
  runConvCase(
      {layout, 2, 6, 7, 5, 4, 3, 3, 1, 1, 1, 1, 1, 1, in, out, beta, 0, 0, 2});
  // Three groups of 2 into 3: strides, dilations, asymmetric padding.
  runConvCase({layout, 1, 6, 11, 9,  9,   3,    2, 2,  1,
               2,      3, 2, 1,  in, out, beta, 1, -1, 3});
  // 1x1: the input read in place (its group's rows or columns), and at
  // stride 2, gathered.
  runConvCase(
      {layout, 2, 8, 6, 7, 6, 1, 1, 0, 0, 1, 1, 1, 1, in, out, beta, 0, 0, 2});
  runConvCase(
      {layout, 2, 8, 7, 9, 4, 1, 1, 0, 0, 2, 2, 1, 1, in, out, beta, 0, 0, 4});
  // Larger groups: the library's blocked kernels.
  runConvCase({layout, 1, 32, 13, 12, 48,  3,    3, 1, 1,
               1,      1, 1,  1,  in, out, beta, 0, 0, 2});
}

/// The cases of a depthwise convolution (groups == c; multiplier f/c).
void runDepthwiseCases(AmpConvLayout layout, AmpDType in, AmpDType out,
                       float beta) {
  // 7x7, padding 3 (ConvNeXt's), multiplier 1 and 2.
  runConvCase(
      {layout, 2, 5, 9, 8, 5, 7, 7, 3, 3, 1, 1, 1, 1, in, out, beta, 0, 0, 5});
  runConvCase(
      {layout, 1, 3, 9, 10, 6, 7, 7, 3, 3, 1, 1, 1, 1, in, out, beta, 0, 0, 3});
  // 3x3 at stride 2 (EfficientNet's downsampling), 5x5 dilated, unequal
  // strides and dilations, more and less bottom/right padding.
  runConvCase(
      {layout, 2, 4, 9, 7, 4, 3, 3, 1, 1, 2, 2, 1, 1, in, out, beta, 0, 0, 4});
  runConvCase({layout, 1, 4, 12, 11, 8,   5,    5, 4,  2,
               1,      2, 2, 1,  in, out, beta, 1, -1, 4});
  runConvCase(
      {layout, 1, 3, 8, 8, 3, 3, 3, 0, 1, 2, 1, 1, 2, in, out, beta, 2, 1, 3});
  // Dilated windows at unit stride (3x3 and 7x7 dilation 2, 5x5 dilation
  // 3 by 1), a 4x2 window (no unrolled kernel).
  runConvCase(
      {layout, 1, 4, 9, 10, 4, 3, 3, 2, 2, 1, 1, 2, 2, in, out, beta, 0, 0, 4});
  runConvCase({layout, 1, 2, 15, 14, 4,   7,    7, 6, 6,
               1,      1, 2, 2,  in, out, beta, 0, 0, 2});
  runConvCase({layout, 1, 3, 11, 12, 3,   5,    5, 2, 6,
               1,      1, 1, 3,  in, out, beta, 0, 0, 3});
  runConvCase(
      {layout, 2, 3, 7, 8, 6, 4, 2, 1, 1, 1, 1, 1, 1, in, out, beta, 0, 0, 3});
  // 7x7 at stride 2; stride 3 (no unrolled kernel).
  runConvCase({layout, 1, 3, 13, 15, 3,   7,    7, 3, 3,
               2,      2, 1, 1,  in, out, beta, 0, 0, 3});
  runConvCase({layout, 1, 2, 10, 11, 4,   3,    3, 1, 1,
               3,      3, 1, 1,  in, out, beta, 0, 0, 2});
  // A window larger than the input with padding; a 1x1 window.
  runConvCase(
      {layout, 1, 2, 3, 4, 4, 5, 5, 2, 2, 1, 1, 1, 1, in, out, beta, 0, 0, 2});
  runConvCase(
      {layout, 2, 6, 5, 6, 6, 1, 1, 0, 0, 1, 1, 1, 1, in, out, beta, 0, 0, 6});
  // Many channels, a wide row (the vectorised loops and their tails).
  runConvCase({layout, 1, 24, 10, 37, 24,  3,    3, 1, 1,
               1,      1, 1,  1,  in, out, beta, 0, 0, 24});
}

TEST(CpuLibraryConv, Grouped) {
  for (AmpConvLayout layout : kLayouts)
    for (AmpDType in : {AMP_DTYPE_F32, AMP_DTYPE_F16, AMP_DTYPE_BF16})
      for (AmpDType out : {AMP_DTYPE_F32, in})
        for (float beta : {0.0f, 1.0f})
          runGroupedCases(layout, in, out, beta);
}

TEST(CpuLibraryConv, Depthwise) {
  for (AmpConvLayout layout : kLayouts)
    for (AmpDType in : {AMP_DTYPE_F32, AMP_DTYPE_F16, AMP_DTYPE_BF16})
      for (AmpDType out : {AMP_DTYPE_F32, in})
        for (float beta : {0.0f, 1.0f})
          runDepthwiseCases(layout, in, out, beta);
}

/// Sets an environment variable for its lifetime.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name(name) {
    if (const char *old = std::getenv(name))
      previous = old, hadPrevious = true;
    setenv(name, value, /*overwrite=*/1);
  }
  ~ScopedEnv() {
    if (hadPrevious)
      setenv(name, previous.c_str(), 1);
    else
      unsetenv(name);
  }

private:
  const char *name;
  std::string previous;
  bool hadPrevious = false;
};

// AMP_CPU_NO_DIRECT_DEPTHWISE=1: the depthwise convolutions as per-group
// GEMMs (one input channel each), which must agree with the reference too.
TEST(CpuLibraryConv, DepthwiseAsPerGroupGemms) {
  ScopedEnv off("AMP_CPU_NO_DIRECT_DEPTHWISE", "1");
  for (AmpConvLayout layout : kLayouts)
    for (AmpDType in : {AMP_DTYPE_F32, AMP_DTYPE_BF16})
      runDepthwiseCases(layout, in, in, 1.0f);
}

// The direct depthwise kernels and the per-group GEMMs compute the same
// convolution; on an input of small integers (exact products and sums in
// f32) they agree exactly, and a 16-bit y is rounded once from that value.
TEST(CpuLibraryConv, DepthwiseDirectMatchesPerGroupGemms) {
  const int64_t n = 2, c = 8, h = 13, w = 19, f = 16, kh = 5, kw = 5;
  const int64_t oh = 13, ow = 10; // padding 2, strides 1 and 2.
  for (AmpConvLayout layout : kLayouts)
    for (AmpDType type : {AMP_DTYPE_F32, AMP_DTYPE_F16}) {
      SCOPED_TRACE(testing::Message()
                   << "layout=" << layout << " type=" << type);
      std::vector<uint8_t> x(n * c * h * w * bytesOf(type)),
          wt(f * kh * kw * bytesOf(type));
      for (int64_t i = 0; i < n * c * h * w; ++i)
        store(x, type, i, float(i % 7) - 3.0f);
      for (int64_t i = 0; i < f * kh * kw; ++i)
        store(wt, type, i, float(i % 5) - 2.0f);
      std::vector<uint8_t> direct(n * f * oh * ow * bytesOf(type)),
          perGroup(direct.size());
      auto run = [&](std::vector<uint8_t> &y) {
        ampCpuLibraryConv2d(layout, n, c, h, w, f, kh, kw, oh, ow, 2, 2, 1, 2,
                            1, 1, c, x.data(), type, wt.data(), type, y.data(),
                            type, 0.0f);
      };
      run(direct);
      {
        ScopedEnv off("AMP_CPU_NO_DIRECT_DEPTHWISE", "1");
        run(perGroup);
      }
      EXPECT_EQ(direct, perGroup);
      // Not all zero: the convolution was computed.
      int64_t nonzero = 0;
      for (int64_t i = 0; i < n * f * oh * ow; ++i)
        nonzero += load(direct, type, i) != 0.0f;
      EXPECT_GT(nonzero, n * f * oh * ow / 2);
    }
}

// groups >= 1 dividing c and f; the checks run for a batch of 0 too.
TEST(CpuLibraryConv, GroupsValidation) {
  float x[32] = {}, wt[32] = {}, y[32] = {};
  auto call = [&](int64_t n, int64_t c, int64_t f, int64_t groups) {
    return amp_test::captureHandlerMessage([&] {
      ampCpuLibraryConv2d(AMP_CONV_NHWC_FHWC, n, c, 2, 2, f, 1, 1, 2, 2, 0, 0,
                          1, 1, 1, 1, groups, x, AMP_DTYPE_F32, wt,
                          AMP_DTYPE_F32, y, AMP_DTYPE_F32, 0.0f);
    });
  };
  for (int64_t n : {0, 1}) {
    SCOPED_TRACE(n);
    std::string message = call(n, 6, 4, 4);
    EXPECT_NE(message.find("ampCpuLibraryConv2d: c = 6 is not a multiple of "
                           "groups = 4"),
              std::string::npos)
        << message;
    message = call(n, 6, 4, 3);
    EXPECT_NE(message.find("f = 4 is not a multiple of groups = 3"),
              std::string::npos)
        << message;
    message = call(n, 6, 4, 0);
    EXPECT_NE(message.find("invalid groups = 0"), std::string::npos) << message;
    EXPECT_EQ(call(n, 6, 4, 2), "");
  }
}

// A batch of 0 (a dynamic batch of compiled code) writes nothing; the other
// arguments are still checked.
TEST(CpuLibraryConv, EmptyBatch) {
  float y[4] = {7, 7, 7, 7};
  ampCpuLibraryConv2d(AMP_CONV_NCHW_FCHW, 0, 1, 2, 2, 1, 1, 1, 2, 2, 0, 0, 1, 1,
                      1, 1, 1, nullptr, AMP_DTYPE_F32, y, AMP_DTYPE_F32,
                      nullptr, AMP_DTYPE_F32, 0.0f);
  EXPECT_EQ(y[0], 7.0f);
  std::string message = amp_test::captureHandlerMessage([&] {
    ampCpuLibraryConv2d(AMP_CONV_NCHW_FCHW, 0, 1, 2, 2, 1, 1, 1, 2, 2, 0, 0, 0,
                        1, 1, 1, 1, nullptr, AMP_DTYPE_F32, y, AMP_DTYPE_F32,
                        nullptr, AMP_DTYPE_F32, 0.0f);
  });
  EXPECT_NE(message.find("strideH = 0"), std::string::npos) << message;
}

TEST(CpuLibraryGemm, ValidationReachesHandler) {
  float a[4] = {}, b[4] = {}, c[4] = {};
  std::string message = amp_test::captureHandlerMessage([&] {
    ampCpuLibraryGemm(0, 0, 1, 2, 2, 2, a, AMP_DTYPE_F32, 1, 0, b,
                      AMP_DTYPE_F32, 2, 0, c, AMP_DTYPE_F32, 2, 0, 0.0f);
  });
  EXPECT_NE(message.find("ampCpuLibraryGemm"), std::string::npos) << message;
  EXPECT_NE(message.find("lda = 1"), std::string::npos) << message;
}

} // namespace
