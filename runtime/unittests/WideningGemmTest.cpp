//===- WideningGemmTest.cpp - the runtime's GEMM gives one set of bits ----===//
//
// Part of amp-mlir. lib/WideningGemm.cpp's micro-kernels (AVX2 6 x 16,
// AVX-512 8 x 32) tile C differently but sum each element in the same
// order (KC-deep blocks, one FMA per product, beta C added by one FMA), so
// that ampCpuLibraryGemm gives the same bits on every x86-64 CPU with AVX2:
// checked here bit for bit, for every type, layout, beta and edge tile.
// (Its accuracy against the double reference is CpuLibraryTest.cpp's.)
//
//===----------------------------------------------------------------------===//

#include "WideningGemm.h"

#include "amp/runtime/AmpRuntime.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace {

using amp::rt::cpu::wideningGemmWithKernel;

std::vector<uint8_t> randomMatrix(AmpDType type, int64_t count,
                                  std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<uint8_t> data(count * (type == AMP_DTYPE_F32 ? 4 : 2));
  for (int64_t i = 0; i < count; ++i) {
    float value = dist(rng);
    if (type == AMP_DTYPE_F32) {
      std::memcpy(data.data() + 4 * i, &value, 4);
      continue;
    }
    uint16_t bits =
        type == AMP_DTYPE_F16 ? ampF32ToF16(value) : ampF32ToBF16(value);
    std::memcpy(data.data() + 2 * i, &bits, 2);
  }
  return data;
}

TEST(WideningGemm, SameBitsOnEveryKernel) {
  float probe = 0;
  if (!wideningGemmWithKernel("avx2", false, false, 1, 1, 1, &probe,
                              AMP_DTYPE_F32, 1, &probe, AMP_DTYPE_F32, 1, 0.0f,
                              &probe, 1))
    GTEST_SKIP() << "no AVX2, FMA and F16C here";
  if (!wideningGemmWithKernel("avx512", false, false, 1, 1, 1, &probe,
                              AMP_DTYPE_F32, 1, &probe, AMP_DTYPE_F32, 1, 0.0f,
                              &probe, 1))
    GTEST_SKIP() << "no AVX-512 here: one kernel only";
  std::mt19937 rng(7);
  struct Shape {
    int64_t m, n, k;
  };
  // Edge tiles of both kernels, more than one KC block, NC panel and MC
  // block.
  for (Shape shape :
       {Shape{13, 37, 45}, Shape{50, 70, 300}, Shape{197, 1100, 263}})
    for (AmpDType type : {AMP_DTYPE_F32, AMP_DTYPE_F16, AMP_DTYPE_BF16})
      for (int transA = 0; transA < 2; ++transA)
        for (int transB = 0; transB < 2; ++transB)
          for (float beta : {0.0f, 0.7f}) {
            SCOPED_TRACE(testing::Message()
                         << shape.m << "x" << shape.n << "x" << shape.k
                         << " type " << type << " transA " << transA
                         << " transB " << transB << " beta " << beta);
            auto a = randomMatrix(type, shape.m * shape.k, rng);
            auto b = randomMatrix(type, shape.k * shape.n, rng);
            std::vector<float> c0(shape.m * shape.n), c1;
            std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
            for (float &value : c0)
              value = dist(rng);
            c1 = c0;
            int64_t lda = transA ? shape.m : shape.k;
            int64_t ldb = transB ? shape.k : shape.n;
            ASSERT_TRUE(wideningGemmWithKernel(
                "avx2", transA, transB, shape.m, shape.n, shape.k, a.data(),
                type, lda, b.data(), type, ldb, beta, c0.data(), shape.n));
            ASSERT_TRUE(wideningGemmWithKernel(
                "avx512", transA, transB, shape.m, shape.n, shape.k, a.data(),
                type, lda, b.data(), type, ldb, beta, c1.data(), shape.n));
            ASSERT_EQ(
                std::memcmp(c0.data(), c1.data(), c0.size() * sizeof(float)),
                0);
          }
}

} // namespace
