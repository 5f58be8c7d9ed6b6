//===- CpuLibraryTest.cpp - ampCpuLibraryGemm against the reference -------===//
//
// Part of amp-mlir. The CPU pipeline's GEMM (the host's CBLAS, or loops)
// against ampCpuGemm, the double-accumulating reference, for every
// transpose, type combination, batch stride and padded leading dimension.
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
