//===- UnscaleTest.cpp - CPU check-finite-and-unscale tests ---------------===//
//
// Part of amp-mlir. ampCheckFiniteAndUnscale{F32,F16,BF16,ToF32} against
// hand-computed values (subnormals, ties, Inf/NaN) and against a reference
// loop built on the exact conversions of Convert.cpp. Every test runs twice:
// with the SIMD (AVX2/F16C) kernels where the CPU has them, and with the
// portable kernels (AMP_RUNTIME_CPU_SIMD=0), so both must be bit-identical
// to the reference.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "amp/runtime/AmpRuntime.h"

#include "../lib/InlineConvert.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using amp::rt::bitsFloat;
using amp::rt::floatBits;

float invOf(float scale) {
  return static_cast<float>(1.0 / static_cast<double>(scale));
}

/// The documented semantics, element by element.
float refF32(float x, float scale) { return x * invOf(scale); }
uint16_t refF16(uint16_t h, float scale) {
  return ampF32ToF16(ampF16ToF32(h) * invOf(scale));
}
uint16_t refBF16(uint16_t h, float scale) {
  return ampF32ToBF16(ampBF16ToF32(h) * invOf(scale));
}
bool finiteF16(uint16_t h) { return (h & 0x7c00u) != 0x7c00u; }
bool finiteBF16(uint16_t h) { return (h & 0x7f80u) != 0x7f80u; }

enum class Type { F32, F16, BF16 };

const char *typeName(Type type) {
  return type == Type::F32 ? "f32" : type == Type::F16 ? "f16" : "bf16";
}

/// Runs the in-place entry point of `type` on `tensors` (stored as raw
/// 32-bit or 16-bit words).
int unscale16(Type type, std::vector<std::vector<uint16_t>> &tensors,
              float scale) {
  std::vector<uint16_t *> ptrs;
  std::vector<int64_t> numels;
  for (auto &t : tensors) {
    ptrs.push_back(t.empty() ? nullptr : t.data());
    numels.push_back(static_cast<int64_t>(t.size()));
  }
  int64_t count = static_cast<int64_t>(tensors.size());
  return type == Type::F16
             ? ampCheckFiniteAndUnscaleF16(ptrs.data(), numels.data(), count,
                                           scale)
             : ampCheckFiniteAndUnscaleBF16(ptrs.data(), numels.data(), count,
                                            scale);
}

int unscale32(std::vector<std::vector<float>> &tensors, float scale) {
  std::vector<float *> ptrs;
  std::vector<int64_t> numels;
  for (auto &t : tensors) {
    ptrs.push_back(t.empty() ? nullptr : t.data());
    numels.push_back(static_cast<int64_t>(t.size()));
  }
  return ampCheckFiniteAndUnscaleF32(
      ptrs.data(), numels.data(), static_cast<int64_t>(tensors.size()), scale);
}

/// Runs ToF32 for 16-bit sources into fresh fp32 buffers.
int unscaleToF32(Type type, const std::vector<std::vector<uint16_t>> &src,
                 std::vector<std::vector<float>> &dst, float scale) {
  std::vector<const void *> srcPtrs;
  std::vector<float *> dstPtrs;
  std::vector<int64_t> numels;
  dst.clear();
  for (auto &t : src)
    dst.emplace_back(t.size(), -12345.0f);
  for (size_t i = 0; i < src.size(); ++i) {
    srcPtrs.push_back(src[i].empty() ? nullptr : src[i].data());
    dstPtrs.push_back(dst[i].empty() ? nullptr : dst[i].data());
    numels.push_back(static_cast<int64_t>(src[i].size()));
  }
  return ampCheckFiniteAndUnscaleToF32(
      srcPtrs.data(), type == Type::F16 ? AMP_DTYPE_F16 : AMP_DTYPE_BF16,
      dstPtrs.data(), numels.data(), static_cast<int64_t>(src.size()), scale);
}

/// Checks an in-place 16-bit run and the ToF32 run on the same input
/// against the reference; returns the in-place result.
void expect16(Type type, const std::vector<std::vector<uint16_t>> &input,
              float scale, const std::string &what) {
  std::vector<std::vector<uint16_t>> data = input;
  // Non-finite inputs, and finite inputs whose result overflows.
  bool anyBad = false, anyBadWide = false;
  for (auto &t : input)
    for (uint16_t h : t) {
      uint16_t y = type == Type::F16 ? refF16(h, scale) : refBF16(h, scale);
      float x = type == Type::F16 ? ampF16ToF32(h) : ampBF16ToF32(h);
      anyBad |= type == Type::F16 ? !finiteF16(h) || !finiteF16(y)
                                  : !finiteBF16(h) || !finiteBF16(y);
      anyBadWide |= !std::isfinite(x * invOf(scale));
    }
  ampClearError();
  EXPECT_EQ(unscale16(type, data, scale), anyBad ? 1 : 0)
      << what << " " << typeName(type) << ": " << ampLastError();
  std::vector<std::vector<float>> wide;
  EXPECT_EQ(unscaleToF32(type, input, wide, scale), anyBadWide ? 1 : 0)
      << what << " " << typeName(type) << " ToF32: " << ampLastError();
  int reported = 0;
  for (size_t t = 0; t < input.size(); ++t) {
    for (size_t i = 0; i < input[t].size(); ++i) {
      uint16_t h = input[t][i];
      uint16_t expected = scale == 1.0f       ? h
                          : type == Type::F16 ? refF16(h, scale)
                                              : refBF16(h, scale);
      float x = type == Type::F16 ? ampF16ToF32(h) : ampBF16ToF32(h);
      float expectedWide = x * invOf(scale);
      bool ok = data[t][i] == expected &&
                floatBits(wide[t][i]) == floatBits(expectedWide);
      if (!ok && reported++ < 10)
        ADD_FAILURE() << what << " " << typeName(type) << " tensor " << t
                      << " element " << i << " input 0x" << std::hex << h
                      << " scale " << scale << ": got 0x" << data[t][i]
                      << " expected 0x" << expected << "; ToF32 got 0x"
                      << floatBits(wide[t][i]) << " expected 0x"
                      << floatBits(expectedWide);
    }
  }
}

void expect32(const std::vector<std::vector<float>> &input, float scale,
              const std::string &what) {
  std::vector<std::vector<float>> data = input;
  bool anyBad = false;
  for (auto &t : input)
    for (float x : t)
      anyBad |= !std::isfinite(x) || !std::isfinite(refF32(x, scale));
  EXPECT_EQ(unscale32(data, scale), anyBad ? 1 : 0) << what;
  // ToF32 out of place and in place.
  std::vector<std::vector<float>> out;
  std::vector<std::vector<float>> inPlace = input;
  std::vector<const void *> srcPtrs, inPtrsConst;
  std::vector<float *> dstPtrs, inPtrs;
  std::vector<int64_t> numels;
  for (auto &t : input)
    out.emplace_back(t.size(), -1.0f);
  for (size_t i = 0; i < input.size(); ++i) {
    srcPtrs.push_back(input[i].data());
    dstPtrs.push_back(out[i].data());
    inPtrs.push_back(inPlace[i].data());
    inPtrsConst.push_back(inPlace[i].data());
    numels.push_back(static_cast<int64_t>(input[i].size()));
  }
  int64_t count = static_cast<int64_t>(input.size());
  EXPECT_EQ(ampCheckFiniteAndUnscaleToF32(srcPtrs.data(), AMP_DTYPE_F32,
                                          dstPtrs.data(), numels.data(), count,
                                          scale),
            anyBad ? 1 : 0)
      << what << ": " << ampLastError();
  EXPECT_EQ(ampCheckFiniteAndUnscaleToF32(inPtrsConst.data(), AMP_DTYPE_F32,
                                          inPtrs.data(), numels.data(), count,
                                          scale),
            anyBad ? 1 : 0)
      << what << ": " << ampLastError();
  int reported = 0;
  for (size_t t = 0; t < input.size(); ++t) {
    for (size_t i = 0; i < input[t].size(); ++i) {
      float x = input[t][i];
      uint32_t expected = floatBits(scale == 1.0f ? x : refF32(x, scale));
      uint32_t expectedWide = floatBits(refF32(x, scale));
      bool ok = floatBits(data[t][i]) == expected &&
                floatBits(out[t][i]) == expectedWide &&
                floatBits(inPlace[t][i]) == expectedWide;
      if (!ok && reported++ < 10)
        ADD_FAILURE() << what << " f32 tensor " << t << " element " << i
                      << " input " << x << " scale " << scale << ": got "
                      << data[t][i] << " / " << out[t][i] << " / "
                      << inPlace[t][i];
    }
  }
}

/// Each test runs with the SIMD kernels (param true) and with the portable
/// ones (param false).
class Unscale : public ::testing::TestWithParam<bool> {
protected:
  void SetUp() override {
    setenv("AMP_RUNTIME_CPU_SIMD", GetParam() ? "1" : "0", /*overwrite=*/1);
  }
  void TearDown() override { unsetenv("AMP_RUNTIME_CPU_SIMD"); }
};

INSTANTIATE_TEST_SUITE_P(Paths, Unscale, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return info.param ? "Simd" : "Portable";
                         });

//===----------------------------------------------------------------------===//
// Hand-computed values
//===----------------------------------------------------------------------===//

TEST_P(Unscale, F32ExactValues) {
  std::vector<std::vector<float>> t = {{1024.0f, -2048.0f, 3.0f, 0.0f, -0.0f,
                                        1.0f, FLT_MAX, 0x1p-126f, 0x1p-149f,
                                        -0x1p-140f, 0x1p-139f * 3.0f}};
  ASSERT_EQ(unscale32(t, 1024.0f), 0);
  const float expected[] = {
      1.0f,
      -2.0f,
      3.0f / 1024.0f,
      0.0f,
      -0.0f,
      0x1p-10f,
      FLT_MAX / 1024.0f,
      0x1p-136f,        // Subnormal result, exact.
      0.0f,             // 2^-159 underflows to +0.
      -0.0f,            // -2^-150: a tie between -0 and -2^-149 -> -0 (even).
      3.0f * 0x1p-149f, // 3 * 2^-149: exact.
  };
  for (size_t i = 0; i < t[0].size(); ++i)
    EXPECT_EQ(floatBits(t[0][i]), floatBits(expected[i])) << "element " << i;
  expect32({{1024.0f, -3.0f, 0x1p-130f, 7.0f}}, 1024.0f, "exact");
}

TEST_P(Unscale, F16ExactValues) {
  std::vector<std::vector<uint16_t>> t = {{
      0x3c00, // 1.0 / 2 = 0.5
      0x0001, // 2^-24 / 2 = 2^-25: tie between 0 and 2^-24 -> 0 (even)
      0x0003, // 1.5 units -> 2
      0x0005, // 2.5 units -> 2
      0x0007, // 3.5 units -> 4
      0x0400, // smallest normal / 2 -> subnormal 0x200, exact
      0x0401, // (1024 + 1) / 2 = 512.5 units -> 512
      0x0403, // (1024 + 3) / 2 = 513.5 units -> 514
      0x8003, // -1.5 units -> -2
      0x8001, // -0.5 units -> -0
      0x7bff, // 65504 / 2 = 32752
      0x0000,
      0x8000,
  }};
  const uint16_t expected[] = {0x3800, 0x0000, 0x0002, 0x0002, 0x0004,
                               0x0200, 0x0200, 0x0202, 0x8002, 0x8000,
                               0x77ff, 0x0000, 0x8000};
  std::vector<std::vector<uint16_t>> input = t;
  ASSERT_EQ(unscale16(Type::F16, t, 2.0f), 0) << ampLastError();
  for (size_t i = 0; i < t[0].size(); ++i)
    EXPECT_EQ(t[0][i], expected[i]) << "element " << i;
  expect16(Type::F16, input, 2.0f, "exact");

  // Normal results that become subnormal with a large scale.
  std::vector<std::vector<uint16_t>> big = {{0x3c00, 0x4000, 0xbc00, 0x3e00}};
  ASSERT_EQ(unscale16(Type::F16, big, 1048576.0f), 0); // 2^20
  EXPECT_EQ(big[0][0], 0x0010);                        // 2^-20
  EXPECT_EQ(big[0][1], 0x0020);                        // 2^-19
  EXPECT_EQ(big[0][2], 0x8010);
  EXPECT_EQ(big[0][3], 0x0018); // 1.5 * 2^-20
  // 2^-24 is the last representable step: 1.0 / 2^25 is a tie -> 0.
  std::vector<std::vector<uint16_t>> tiny = {{0x3c00, 0x3e00}};
  ASSERT_EQ(unscale16(Type::F16, tiny, 33554432.0f), 0); // 2^25
  EXPECT_EQ(tiny[0][0], 0x0000);
  EXPECT_EQ(tiny[0][1], 0x0001); // 1.5 * 2^-25 -> 0.75 units -> 1
}

TEST_P(Unscale, FinitenessIsTestedOnTheResultsToo) {
  // A scale < 1 (valid for the scaler, down to FLT_MIN) makes finite inputs
  // overflow: the Inf written is reported, never called finite. Positions
  // in the SIMD body (20) and in the tail (37) of 40 elements.
  for (size_t at : {size_t(0), size_t(20), size_t(37)}) {
    SCOPED_TRACE("overflow at " + std::to_string(at));
    std::vector<std::vector<uint16_t>> h = {
        std::vector<uint16_t>(40, 0x3c00)}; // 1.0
    h[0][at] = 0x7bff;                      // 65504 -> 131008: Inf in f16
    std::vector<std::vector<uint16_t>> hIn = h;
    EXPECT_EQ(unscale16(Type::F16, h, 0.5f), 1);
    EXPECT_EQ(h[0][at], 0x7c00);
    EXPECT_EQ(h[0][(at + 1) % 40], 0x4000);
    // Widened to f32, 131008 is finite: nothing to report.
    std::vector<std::vector<float>> wide;
    EXPECT_EQ(unscaleToF32(Type::F16, hIn, wide, 0.5f), 0);
    EXPECT_EQ(wide[0][at], 131008.0f);
    expect16(Type::F16, hIn, 0.5f, "f16 overflow");

    std::vector<std::vector<uint16_t>> b = {
        std::vector<uint16_t>(40, 0x3f80)}; // 1.0
    b[0][at] = 0xff7f;                      // -3.39e38 -> -Inf
    std::vector<std::vector<uint16_t>> bIn = b;
    EXPECT_EQ(unscale16(Type::BF16, b, 0.5f), 1);
    EXPECT_EQ(b[0][at], 0xff80);
    EXPECT_EQ(unscaleToF32(Type::BF16, bIn, wide, 0.5f), 1); // -Inf in f32 too
    EXPECT_TRUE(std::isinf(wide[0][at]));
    expect16(Type::BF16, bIn, 0.5f, "bf16 overflow");

    std::vector<std::vector<float>> f = {std::vector<float>(40, 1.0f)};
    f[0][at] = FLT_MAX;
    std::vector<std::vector<float>> fIn = f;
    EXPECT_EQ(unscale32(f, 0.25f), 1);
    EXPECT_TRUE(std::isinf(f[0][at]));
    expect32(fIn, 0.25f, "f32 overflow");
  }
  // The smallest valid scale, FLT_MIN: 1/scale = 2^126 is finite, 4.0
  // overflows to Inf, and 0 stays 0.
  std::vector<std::vector<float>> f = {{0.0f, 0x1p-126f, 4.0f}};
  EXPECT_EQ(unscale32(f, FLT_MIN), 1);
  EXPECT_EQ(f[0][0], 0.0f);
  EXPECT_EQ(f[0][1], 1.0f);
  EXPECT_EQ(f[0][2], INFINITY);
  std::vector<std::vector<float>> zeros = {{0.0f, -0.0f, 0x1p-140f}};
  EXPECT_EQ(unscale32(zeros, FLT_MIN), 0);
}

TEST_P(Unscale, BF16ExactValues) {
  std::vector<std::vector<uint16_t>> t = {{
      0x3f80, // 1.0 / 2 = 0.5
      0xc000, // -2 / 2 = -1
      0x0001, // 2^-133 / 2 = 2^-134: tie -> 0 (even)
      0x0003, // 1.5 units -> 2
      0x0080, // smallest normal / 2 -> subnormal 0x0040
      0x7f7f, // largest finite / 2
      0x0000,
      0x8000,
  }};
  const uint16_t expected[] = {0x3f00, 0xbf80, 0x0000, 0x0002,
                               0x0040, 0x7eff, 0x0000, 0x8000};
  std::vector<std::vector<uint16_t>> input = t;
  ASSERT_EQ(unscale16(Type::BF16, t, 2.0f), 0);
  for (size_t i = 0; i < t[0].size(); ++i)
    EXPECT_EQ(t[0][i], expected[i]) << "element " << i;
  expect16(Type::BF16, input, 2.0f, "exact");
  // Scale 3: 1/3 rounds up in bf16 (0x3eaaaaab -> 0x3eab).
  std::vector<std::vector<uint16_t>> third = {{0x3f80, 0x4040}};
  ASSERT_EQ(unscale16(Type::BF16, third, 3.0f), 0);
  EXPECT_EQ(third[0][0], 0x3eab);
  EXPECT_EQ(third[0][1], 0x3f80); // 3 * float(1/3) = 1.0000000298 -> 1
}

TEST_P(Unscale, NaNStaysQuietNaN) {
  // Quiet and signalling NaNs of both signs: the result is a NaN with the
  // quiet bit set, whatever the path.
  std::vector<std::vector<uint16_t>> f16 = {{0x7e01, 0x7c01, 0xfd55, 0x7fff}};
  std::vector<std::vector<uint16_t>> input = f16;
  EXPECT_EQ(unscale16(Type::F16, f16, 4.0f), 1);
  for (size_t i = 0; i < f16[0].size(); ++i) {
    EXPECT_EQ(f16[0][i] & 0x7e00, 0x7e00) << i;
    EXPECT_EQ(f16[0][i] & 0x8000, input[0][i] & 0x8000) << i;
  }
  expect16(Type::F16, input, 4.0f, "nan");
  std::vector<std::vector<uint16_t>> bf16 = {{0x7fc1, 0x7f81, 0xff80 | 0x21}};
  input = bf16;
  EXPECT_EQ(unscale16(Type::BF16, bf16, 4.0f), 1);
  for (size_t i = 0; i < bf16[0].size(); ++i) {
    EXPECT_EQ(bf16[0][i] & 0x7fc0, 0x7fc0) << i;
    EXPECT_EQ(bf16[0][i] & 0x8000, input[0][i] & 0x8000) << i;
  }
  expect16(Type::BF16, input, 4.0f, "nan");
}

TEST_P(Unscale, NonPowerOfTwoScaleAgainstDouble) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1000.0f, 1000.0f);
  for (float scale : {3.0f, 0.7f, 1000.0f, 65535.0f, 1.1f, 123456.79f}) {
    float inv = invOf(scale);
    std::vector<std::vector<float>> t(1);
    for (int i = 0; i < 1000; ++i)
      t[0].push_back(dist(rng));
    std::vector<std::vector<float>> input = t;
    ASSERT_EQ(unscale32(t, scale), 0);
    for (size_t i = 0; i < t[0].size(); ++i) {
      // The product of two floats is exact in double: one rounding.
      float expected = static_cast<float>(static_cast<double>(input[0][i]) *
                                          static_cast<double>(inv));
      ASSERT_EQ(floatBits(t[0][i]), floatBits(expected))
          << "scale " << scale << " element " << i;
    }
    std::vector<std::vector<uint16_t>> h(1), b(1);
    for (float x : input[0]) {
      h[0].push_back(ampF32ToF16(x));
      b[0].push_back(ampF32ToBF16(x));
    }
    std::vector<std::vector<uint16_t>> hIn = h, bIn = b;
    ASSERT_EQ(unscale16(Type::F16, h, scale), 0);
    ASSERT_EQ(unscale16(Type::BF16, b, scale), 0);
    for (size_t i = 0; i < h[0].size(); ++i) {
      double xh = static_cast<double>(ampF16ToF32(hIn[0][i]));
      double xb = static_cast<double>(ampBF16ToF32(bIn[0][i]));
      float ph = static_cast<float>(xh * static_cast<double>(inv));
      float pb = static_cast<float>(xb * static_cast<double>(inv));
      ASSERT_EQ(h[0][i], ampF32ToF16(ph)) << "scale " << scale << " i " << i;
      ASSERT_EQ(b[0][i], ampF32ToBF16(pb)) << "scale " << scale << " i " << i;
    }
  }
}

TEST_P(Unscale, InverseIsComputedInDouble) {
  // A scale whose float reciprocal and double reciprocal may differ: the
  // result must use float(1.0 / double(scale)).
  float scale = 3.0f;
  std::vector<std::vector<float>> t = {{1.0f}};
  ASSERT_EQ(unscale32(t, scale), 0);
  EXPECT_EQ(t[0][0], static_cast<float>(1.0 / 3.0));
}

//===----------------------------------------------------------------------===//
// Non-finite inputs anywhere
//===----------------------------------------------------------------------===//

TEST_P(Unscale, NonFiniteInEveryPosition) {
  const std::vector<size_t> sizes = {37, 13, 1, 0, 64, 29};
  const uint16_t f16Bad[] = {0x7c00, 0xfc00, 0x7e00, 0x7c01};
  const uint16_t bf16Bad[] = {0x7f80, 0xff80, 0x7fc0, 0x7f81};
  const float f32Bad[] = {INFINITY, -INFINITY, NAN, -NAN};
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  auto fill = [&](auto &tensors, auto convert) {
    tensors.clear();
    for (size_t size : sizes) {
      tensors.emplace_back();
      for (size_t i = 0; i < size; ++i)
        tensors.back().push_back(convert(dist(rng)));
    }
  };
  // Positions: (tensor, element), including the first element of the first
  // tensor, the middle of a middle one and the last element of the last
  // one, and lengths that are not multiples of 8 or 16.
  const std::pair<size_t, size_t> positions[] = {
      {0, 0}, {0, 36}, {1, 6}, {1, 12}, {2, 0}, {4, 63}, {5, 28}, {5, 16}};
  for (int kind = 0; kind < 4; ++kind) {
    for (auto [tensor, element] : positions) {
      std::string what = "kind " + std::to_string(kind) + " at (" +
                         std::to_string(tensor) + ", " +
                         std::to_string(element) + ")";
      std::vector<std::vector<uint16_t>> h;
      fill(h, [](float x) { return ampF32ToF16(x); });
      h[tensor][element] = f16Bad[kind];
      expect16(Type::F16, h, 512.0f, what);
      expect16(Type::F16, h, 3.0f, what);
      std::vector<std::vector<uint16_t>> b;
      fill(b, [](float x) { return ampF32ToBF16(x); });
      b[tensor][element] = bf16Bad[kind];
      expect16(Type::BF16, b, 512.0f, what);
      expect16(Type::BF16, b, 1.0f, what);
      std::vector<std::vector<float>> f;
      fill(f, [](float x) { return x; });
      f[tensor][element] = f32Bad[kind];
      expect32(f, 512.0f, what);
      expect32(f, 1.0f, what);
    }
  }
  // No non-finite value anywhere.
  std::vector<std::vector<uint16_t>> h;
  fill(h, [](float x) { return ampF32ToF16(x); });
  expect16(Type::F16, h, 512.0f, "all finite");
}

TEST_P(Unscale, EveryPrefixLength) {
  // Lengths 0..80 with Inf at the last element: exercises every tail.
  for (size_t n = 1; n <= 80; ++n) {
    std::vector<std::vector<uint16_t>> h(1), b(1);
    std::vector<std::vector<float>> f(1);
    for (size_t i = 0; i < n; ++i) {
      h[0].push_back(static_cast<uint16_t>(0x3c00 + i));
      b[0].push_back(static_cast<uint16_t>(0x3f80 + i));
      f[0].push_back(1.0f + static_cast<float>(i));
    }
    expect16(Type::F16, h, 8.0f, "n " + std::to_string(n));
    expect16(Type::BF16, b, 8.0f, "n " + std::to_string(n));
    expect32(f, 8.0f, "n " + std::to_string(n));
    h[0][n - 1] = 0x7c00;
    b[0][n - 1] = 0xff80;
    f[0][n - 1] = NAN;
    expect16(Type::F16, h, 8.0f, "inf last, n " + std::to_string(n));
    expect16(Type::BF16, b, 8.0f, "inf last, n " + std::to_string(n));
    expect32(f, 8.0f, "nan last, n " + std::to_string(n));
  }
}

TEST_P(Unscale, UnalignedBuffers) {
  std::vector<uint16_t> storage(1000);
  for (size_t i = 0; i < storage.size(); ++i)
    storage[i] = static_cast<uint16_t>(0x3000 + 7 * i);
  for (size_t offset = 1; offset < 8; ++offset) {
    std::vector<uint16_t> copy = storage;
    uint16_t *p = copy.data() + offset;
    int64_t n = 900;
    ASSERT_EQ(ampCheckFiniteAndUnscaleF16(&p, &n, 1, 3.0f), 0);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(p[i], refF16(storage[offset + i], 3.0f));
    EXPECT_EQ(copy[offset - 1], storage[offset - 1]);
    EXPECT_EQ(copy[offset + n], storage[offset + n]); // Not written past.
  }
}

//===----------------------------------------------------------------------===//
// Sizes and counts
//===----------------------------------------------------------------------===//

TEST_P(Unscale, ZeroLengthAndCountZero) {
  EXPECT_EQ(ampCheckFiniteAndUnscaleF32(nullptr, nullptr, 0, 2.0f), 0);
  EXPECT_EQ(ampCheckFiniteAndUnscaleF16(nullptr, nullptr, 0, 2.0f), 0);
  EXPECT_EQ(ampCheckFiniteAndUnscaleBF16(nullptr, nullptr, 0, 2.0f), 0);
  EXPECT_EQ(ampCheckFiniteAndUnscaleToF32(nullptr, AMP_DTYPE_F16, nullptr,
                                          nullptr, 0, 2.0f),
            0);
  // Zero-length tensors with NULL pointers between real ones.
  std::vector<std::vector<uint16_t>> h = {{}, {0x4000, 0x4400}, {}, {0x7c00}};
  expect16(Type::F16, h, 2.0f, "zero length");
  h[3].clear();
  expect16(Type::F16, h, 2.0f, "zero length, finite");
  uint16_t *nulls[2] = {nullptr, nullptr};
  int64_t zeros[2] = {0, 0};
  EXPECT_EQ(ampCheckFiniteAndUnscaleBF16(nulls, zeros, 2, 2.0f), 0);
}

TEST_P(Unscale, ManyTensors) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> len(0, 100);
  std::uniform_int_distribution<int> bits(0, 0xffff);
  std::vector<std::vector<uint16_t>> h(1500), b(1500);
  for (size_t t = 0; t < h.size(); ++t) {
    int n = len(rng);
    for (int i = 0; i < n; ++i) {
      // Finite values only: clear the top exponent bit.
      h[t].push_back(static_cast<uint16_t>(bits(rng) & 0xbfff));
      b[t].push_back(static_cast<uint16_t>(bits(rng) & 0xbfff));
    }
  }
  expect16(Type::F16, h, 1024.0f, "many");
  expect16(Type::BF16, b, 1024.0f, "many");
  h[1499].push_back(0x7c00);
  expect16(Type::F16, h, 1024.0f, "many, inf in the last");
  std::vector<std::vector<float>> f(1000);
  for (size_t t = 0; t < f.size(); ++t)
    for (int i = 0, n = len(rng); i < n; ++i)
      f[t].push_back(static_cast<float>(bits(rng)) - 30000.0f);
  expect32(f, 1024.0f, "many");
}

TEST_P(Unscale, ScaleOneLeavesValuesUnchanged) {
  std::vector<std::vector<uint16_t>> all(1);
  for (uint32_t h = 0; h <= 0xffff; ++h)
    all[0].push_back(static_cast<uint16_t>(h));
  for (Type type : {Type::F16, Type::BF16}) {
    std::vector<std::vector<uint16_t>> data = all;
    EXPECT_EQ(unscale16(type, data, 1.0f), 1); // Contains Inf/NaN.
    EXPECT_EQ(data, all) << typeName(type);
    data[0].resize(0x7c00); // Finite non-negative values only.
    std::vector<std::vector<uint16_t>> prefix = data;
    EXPECT_EQ(unscale16(type, data, 1.0f), 0);
    EXPECT_EQ(data, prefix);
  }
  std::mt19937 rng(5);
  std::vector<std::vector<float>> f(1);
  for (int i = 0; i < 10000; ++i)
    f[0].push_back(bitsFloat(static_cast<uint32_t>(rng())));
  std::vector<std::vector<float>> before = f;
  unscale32(f, 1.0f);
  for (size_t i = 0; i < f[0].size(); ++i)
    ASSERT_EQ(floatBits(f[0][i]), floatBits(before[0][i])) << i;
}

//===----------------------------------------------------------------------===//
// Bit identity with the reference on large and exhaustive inputs
//===----------------------------------------------------------------------===//

TEST_P(Unscale, ExhaustiveF16AndBF16) {
  std::vector<std::vector<uint16_t>> all(1);
  for (uint32_t h = 0; h <= 0xffff; ++h)
    all[0].push_back(static_cast<uint16_t>(h));
  for (float scale :
       {2.0f, 65536.0f, 3.0f, 0.7f, 0.5f, 1e-3f, 1e5f, 0x1p30f, 0x1p-20f,
        1e-30f, 1e30f, FLT_MIN /* the smallest valid scale */}) {
    expect16(Type::F16, all, scale, "exhaustive");
    expect16(Type::BF16, all, scale, "exhaustive");
  }
}

TEST_P(Unscale, LargeRandomBuffers) {
  std::mt19937 rng(11);
  const size_t n = (1u << 18) + 13;
  std::vector<std::vector<uint16_t>> h(2), b(2);
  std::vector<std::vector<float>> f(2);
  for (int t = 0; t < 2; ++t) {
    for (size_t i = 0; i < n - 5 * t; ++i) {
      uint32_t r = static_cast<uint32_t>(rng());
      h[t].push_back(static_cast<uint16_t>(r));
      b[t].push_back(static_cast<uint16_t>(r >> 16));
      f[t].push_back(bitsFloat(static_cast<uint32_t>(rng())));
    }
  }
  for (float scale : {65536.0f, 3.0f, 0.3f}) {
    expect16(Type::F16, h, scale, "random");
    expect16(Type::BF16, b, scale, "random");
    expect32(f, scale, "random");
  }
}

TEST(UnscalePaths, SimdMatchesPortable) {
  // Direct comparison of the two paths on the same random input.
  std::mt19937 rng(13);
  std::vector<uint16_t> input(100003);
  for (auto &h : input)
    h = static_cast<uint16_t>(rng());
  for (bool bf16 : {false, true}) {
    std::vector<uint16_t> a = input, b = input;
    uint16_t *pa = a.data(), *pb = b.data();
    int64_t n = static_cast<int64_t>(input.size());
    auto run = [&](uint16_t *p) {
      return bf16 ? ampCheckFiniteAndUnscaleBF16(&p, &n, 1, 0.37f)
                  : ampCheckFiniteAndUnscaleF16(&p, &n, 1, 0.37f);
    };
    setenv("AMP_RUNTIME_CPU_SIMD", "1", 1);
    int ra = run(pa);
    setenv("AMP_RUNTIME_CPU_SIMD", "0", 1);
    int rb = run(pb);
    unsetenv("AMP_RUNTIME_CPU_SIMD");
    EXPECT_EQ(ra, rb);
    EXPECT_EQ(a, b) << (bf16 ? "bf16" : "f16");
  }
}

//===----------------------------------------------------------------------===//
// Invalid arguments
//===----------------------------------------------------------------------===//

void expectInvalid(int result, const char *fragment, const std::string &what) {
  EXPECT_EQ(result, -1) << what;
  EXPECT_NE(std::string(ampLastError()).find(fragment), std::string::npos)
      << what << ": " << ampLastError();
}

TEST_P(Unscale, BadArguments) {
  std::vector<uint16_t> a = {0x3c00, 0x4000}, b = {0x4400};
  const std::vector<uint16_t> a0 = a, b0 = b;
  uint16_t *ptrs[2] = {a.data(), b.data()};
  int64_t numels[2] = {2, 1};
  for (float scale : {0.0f, -1.0f, NAN, INFINITY, -INFINITY}) {
    expectInvalid(ampCheckFiniteAndUnscaleF16(ptrs, numels, 2, scale),
                  "ampCheckFiniteAndUnscaleF16: scale must be finite and > 0",
                  "scale");
    expectInvalid(ampCheckFiniteAndUnscaleBF16(ptrs, numels, 2, scale),
                  "ampCheckFiniteAndUnscaleBF16: scale must be finite and > 0",
                  "scale");
  }
  expectInvalid(ampCheckFiniteAndUnscaleF16(ptrs, numels, -1, 2.0f),
                "count must be >= 0, got -1", "count");
  expectInvalid(ampCheckFiniteAndUnscaleF16(nullptr, numels, 2, 2.0f),
                "tensors is NULL with count 2", "tensors");
  expectInvalid(ampCheckFiniteAndUnscaleF16(ptrs, nullptr, 2, 2.0f),
                "numels is NULL with count 2", "numels");
  int64_t negative[2] = {2, -1};
  expectInvalid(ampCheckFiniteAndUnscaleF16(ptrs, negative, 2, 2.0f),
                "numels[1] must be >= 0, got -1", "negative numel");
  uint16_t *withNull[2] = {a.data(), nullptr};
  expectInvalid(ampCheckFiniteAndUnscaleF16(withNull, numels, 2, 2.0f),
                "tensors[1] is NULL with numel 1", "null tensor");
  // Nothing was written by any failed call.
  EXPECT_EQ(a, a0);
  EXPECT_EQ(b, b0);

  std::vector<float> f = {1.0f, 2.0f};
  float *fptrs[1] = {f.data()};
  int64_t fn[1] = {2};
  expectInvalid(ampCheckFiniteAndUnscaleF32(fptrs, fn, 1, 0.0f),
                "ampCheckFiniteAndUnscaleF32: scale", "f32 scale");
  EXPECT_EQ(f[0], 1.0f);

  // ToF32.
  std::vector<float> out(2, 0.0f);
  const void *src[1] = {a.data()};
  float *dst[1] = {out.data()};
  expectInvalid(ampCheckFiniteAndUnscaleToF32(src, 7, dst, numels, 1, 2.0f),
                "srcType must be F32, F16 or BF16, got 7", "srcType");
  expectInvalid(ampCheckFiniteAndUnscaleToF32(src, AMP_DTYPE_F16, nullptr,
                                              numels, 1, 2.0f),
                "dst is NULL with count 1", "dst");
  expectInvalid(ampCheckFiniteAndUnscaleToF32(nullptr, AMP_DTYPE_F16, dst,
                                              numels, 1, 2.0f),
                "src is NULL with count 1", "src");
  float *nullDst[1] = {nullptr};
  expectInvalid(ampCheckFiniteAndUnscaleToF32(src, AMP_DTYPE_F16, nullDst,
                                              numels, 1, 2.0f),
                "dst[0] is NULL with numel 2", "dst[0]");
  const void *nullSrc[1] = {nullptr};
  expectInvalid(ampCheckFiniteAndUnscaleToF32(nullSrc, AMP_DTYPE_F16, dst,
                                              numels, 1, 2.0f),
                "src[0] is NULL with numel 2", "src[0]");
  // A 16-bit source may not overlap its f32 destination.
  std::vector<float> shared(4, 0.0f);
  const void *overlapSrc[1] = {shared.data()};
  float *overlapDst[1] = {shared.data()};
  int64_t four[1] = {4};
  expectInvalid(ampCheckFiniteAndUnscaleToF32(overlapSrc, AMP_DTYPE_BF16,
                                              overlapDst, four, 1, 2.0f),
                "overlaps", "bf16 in place");
  // An f32 source may be unscaled in place, but not shifted.
  const void *shiftedSrc[1] = {shared.data()};
  float *shiftedDst[1] = {shared.data() + 1};
  int64_t three[1] = {3};
  expectInvalid(ampCheckFiniteAndUnscaleToF32(shiftedSrc, AMP_DTYPE_F32,
                                              shiftedDst, three, 1, 2.0f),
                "overlaps", "f32 shifted");
  EXPECT_EQ(out, std::vector<float>(2, 0.0f));

  // The error handler is never called.
  EXPECT_EQ(amp_test::captureHandlerMessage([&] {
              EXPECT_EQ(ampCheckFiniteAndUnscaleF16(ptrs, numels, 2, 0.0f), -1);
            }),
            "");
}

TEST_P(Unscale, ScaleBelowFltMinIsRejected) {
  // 1/scale would round to +Inf (or be huge enough to overflow every finite
  // gradient): the loss scaler's configuration rejects such a scale, and so
  // does every host-scale entry point, writing nothing.
  std::vector<uint16_t> h = {0x3c00, 0x0001}, b = {0x3f80};
  std::vector<float> f = {1.0f, 0.0f}, out = {-7.0f, -7.0f};
  const std::vector<uint16_t> h0 = h, b0 = b;
  const std::vector<float> f0 = f, out0 = out;
  uint16_t *hp[1] = {h.data()}, *bp[1] = {b.data()};
  float *fp[1] = {f.data()}, *dst[1] = {out.data()};
  const void *src[1] = {h.data()};
  int64_t two[1] = {2}, one[1] = {1};
  const float tiny[] = {1e-45f, FLT_MIN / 4, std::nextafter(FLT_MIN, 0.0f)};
  for (float scale : tiny) {
    std::string what = "scale " + std::to_string(scale);
    const char *reason = "scale must be >= 1.17549e-38 (the smallest normal";
    expectInvalid(ampCheckFiniteAndUnscaleF32(fp, two, 1, scale), reason,
                  what + " f32");
    expectInvalid(ampCheckFiniteAndUnscaleF16(hp, two, 1, scale), reason,
                  what + " f16");
    expectInvalid(ampCheckFiniteAndUnscaleBF16(bp, one, 1, scale), reason,
                  what + " bf16");
    expectInvalid(
        ampCheckFiniteAndUnscaleToF32(src, AMP_DTYPE_F16, dst, two, 1, scale),
        reason, what + " ToF32");
    EXPECT_NE(std::string(ampLastError()).find("ampCheckFiniteAndUnscaleToF32"),
              std::string::npos);
  }
  EXPECT_EQ(h, h0);
  EXPECT_EQ(b, b0);
  EXPECT_EQ(f, f0);
  EXPECT_EQ(out, out0);
  // FLT_MIN itself is the scaler's smallest scale, and accepted.
  EXPECT_EQ(ampCheckFiniteAndUnscaleF16(hp, two, 1, FLT_MIN), 1); // 1.0 -> Inf
  EXPECT_EQ(ampCheckFiniteAndUnscaleF32(fp, two, 1, FLT_MIN), 0);
  EXPECT_EQ(f[0], 0x1p126f);
  // The scaler agrees: it refuses the same init_scale.
  AmpLossScalerConfig cfg;
  ASSERT_EQ(ampLossScalerConfigPreset("pytorch", &cfg), 0);
  for (float scale : tiny) {
    cfg.init_scale = scale;
    EXPECT_EQ(ampLossScalerCreate(&cfg), nullptr) << scale;
  }
}

TEST_P(Unscale, MisalignedPointersAreRejected) {
  // The rule of the buffer entry points: every pointer aligned to its
  // elements. A misaligned float (or 16-bit) pointer is rejected, nothing
  // is written.
  alignas(16) unsigned char bytes[64];
  for (size_t i = 0; i < sizeof(bytes); ++i)
    bytes[i] = static_cast<unsigned char>(0x30 + i);
  unsigned char before[64];
  std::memcpy(before, bytes, sizeof(bytes));
  int64_t four[1] = {4};
  for (size_t offset : {1, 2, 3}) {
    std::string what = "offset " + std::to_string(offset);
    float *f[1] = {reinterpret_cast<float *>(bytes + offset)};
    expectInvalid(ampCheckFiniteAndUnscaleF32(f, four, 1, 2.0f),
                  "ampCheckFiniteAndUnscaleF32: tensors[0] = ", what);
    expectInvalid(ampCheckFiniteAndUnscaleF32(f, four, 1, 2.0f),
                  "is not aligned to its 4-byte f32 elements", what);
    // ToF32: an f32 destination, an f32 source.
    const void *src16[1] = {bytes + 32};
    float *dst[1] = {reinterpret_cast<float *>(bytes + offset)};
    expectInvalid(ampCheckFiniteAndUnscaleToF32(src16, AMP_DTYPE_BF16, dst,
                                                four, 1, 2.0f),
                  "dst[0] = ", what + " ToF32 dst");
    const void *src32[1] = {bytes + 32 + offset};
    float *dst32[1] = {reinterpret_cast<float *>(bytes)};
    expectInvalid(ampCheckFiniteAndUnscaleToF32(src32, AMP_DTYPE_F32, dst32,
                                                four, 1, 2.0f),
                  "src[0] = ", what + " ToF32 src");
  }
  uint16_t *h[1] = {reinterpret_cast<uint16_t *>(bytes + 1)};
  expectInvalid(ampCheckFiniteAndUnscaleF16(h, four, 1, 2.0f),
                "is not aligned to its 2-byte f16 elements", "f16");
  expectInvalid(ampCheckFiniteAndUnscaleBF16(h, four, 1, 2.0f),
                "is not aligned to its 2-byte bf16 elements", "bf16");
  const void *src[1] = {bytes + 1};
  float *dst[1] = {reinterpret_cast<float *>(bytes + 32)};
  expectInvalid(
      ampCheckFiniteAndUnscaleToF32(src, AMP_DTYPE_F16, dst, four, 1, 2.0f),
      "src[0] = ", "ToF32 f16 src");
  EXPECT_EQ(std::memcmp(bytes, before, sizeof(bytes)), 0);
  // The buffer entry point rejects the same pointer the same way.
  const float inv = 0.5f;
  uint8_t flag = 0;
  std::string message = amp_test::captureHandlerMessage([&] {
    ampCpuCheckFiniteAndUnscaleBuffer(bytes + 1, bytes + 1, 4, AMP_DTYPE_F32,
                                      &inv, &flag);
  });
  EXPECT_NE(message.find("is not aligned to its 4-byte f32 elements"),
            std::string::npos)
      << message;
  EXPECT_EQ(std::memcmp(bytes, before, sizeof(bytes)), 0);
  // A misaligned tensor without elements is never touched: accepted.
  int64_t zero[1] = {0};
  float *f[1] = {reinterpret_cast<float *>(bytes + 1)};
  EXPECT_EQ(ampCheckFiniteAndUnscaleF32(f, zero, 1, 2.0f), 0);
}

//===----------------------------------------------------------------------===//
// ampCpuCheckFiniteAndUnscaleBuffer (the CPU twin of the entry point for
// compiled code)
//===----------------------------------------------------------------------===//

int32_t dtypeOf(Type type) {
  return type == Type::F32   ? AMP_DTYPE_F32
         : type == Type::F16 ? AMP_DTYPE_F16
                             : AMP_DTYPE_BF16;
}

size_t bytesOf(Type type) { return type == Type::F32 ? 4 : 2; }

/// Raw words of `n` random elements (every bit pattern, Inf/NaN included);
/// with `finite`, the top exponent bit is cleared.
std::vector<unsigned char> randomElements(Type type, size_t n,
                                          std::mt19937 &rng, bool finite) {
  std::vector<unsigned char> bytes(n * bytesOf(type));
  for (size_t i = 0; i < n; ++i) {
    uint32_t word = static_cast<uint32_t>(rng());
    if (type == Type::F32) {
      if (finite)
        word &= 0xbfffffffu;
      std::memcpy(&bytes[4 * i], &word, 4);
    } else {
      uint16_t h = static_cast<uint16_t>(word);
      if (finite)
        h &= 0xbfff;
      std::memcpy(&bytes[2 * i], &h, 2);
    }
  }
  return bytes;
}

/// The in-place table entry point of `type` on one buffer of raw bytes.
int unscaleTableEntry(Type type, void *data, int64_t n, float scale) {
  switch (type) {
  case Type::F32: {
    float *p = static_cast<float *>(data);
    return ampCheckFiniteAndUnscaleF32(&p, &n, 1, scale);
  }
  case Type::F16: {
    uint16_t *p = static_cast<uint16_t *>(data);
    return ampCheckFiniteAndUnscaleF16(&p, &n, 1, scale);
  }
  default: {
    uint16_t *p = static_cast<uint16_t *>(data);
    return ampCheckFiniteAndUnscaleBF16(&p, &n, 1, scale);
  }
  }
}

/// Runs the buffer entry point in place and out of place (at element offset
/// `outOffset` in a fresh buffer) on `input` and compares both with the
/// table entry point, every byte of the buffers included.
void expectBufferMatchesTable(Type type,
                              const std::vector<unsigned char> &input,
                              float scale, size_t outOffset,
                              const std::string &what) {
  SCOPED_TRACE(what + " " + typeName(type) + " scale " + std::to_string(scale) +
               " out offset " + std::to_string(outOffset));
  const size_t es = bytesOf(type);
  const int64_t n = static_cast<int64_t>(input.size() / es);
  const int32_t dtype = dtypeOf(type);
  const float inv = invOf(scale);

  std::vector<unsigned char> expected = input;
  int result = unscaleTableEntry(type, expected.data(), n, scale);
  ASSERT_GE(result, 0) << ampLastError();

  // In place.
  std::vector<unsigned char> inPlace = input;
  uint8_t flag = 0;
  std::string error = amp_test::captureHandlerMessage([&] {
    ampCpuCheckFiniteAndUnscaleBuffer(inPlace.data(), inPlace.data(), n, dtype,
                                      &inv, &flag);
  });
  EXPECT_EQ(error, "");
  EXPECT_EQ(flag, result);
  EXPECT_TRUE(inPlace == expected) << "in place differs";

  // Out of place: the input is left alone, the bytes around out too.
  std::vector<unsigned char> source = input;
  std::vector<unsigned char> out((outOffset + 3) * es + input.size(), 0xa5);
  std::vector<unsigned char> sentinel = out;
  unsigned char *dst = out.data() + outOffset * es;
  flag = 0;
  error = amp_test::captureHandlerMessage([&] {
    ampCpuCheckFiniteAndUnscaleBuffer(source.data(), dst, n, dtype, &inv,
                                      &flag);
  });
  EXPECT_EQ(error, "");
  EXPECT_EQ(flag, result);
  EXPECT_TRUE(source == input) << "the input was written";
  EXPECT_EQ(std::memcmp(dst, expected.data(), expected.size()), 0)
      << "out of place differs";
  EXPECT_EQ(std::memcmp(out.data(), sentinel.data(), outOffset * es), 0);
  EXPECT_EQ(std::memcmp(dst + input.size(), sentinel.data(), 3 * es), 0);
}

TEST_P(Unscale, BufferMatchesTableEntryPoints) {
  std::mt19937 rng(17);
  // Across the SIMD steps (16) and the out-of-place chunks (16 KiB).
  const size_t sizes[] = {1,    2,    3,    7,    8,     15,    16,
                          17,   31,   33,   100,  1000,  4095,  4096,
                          4097, 8191, 8192, 8193, 12291, 40001, 65536 + 9};
  // FLT_MIN: the smallest valid scale, 1/scale = 2^126 (results overflow).
  const float scales[] = {65536.0f, 3.0f, 0.3f, 1.0f, FLT_MIN};
  for (Type type : {Type::F32, Type::F16, Type::BF16}) {
    for (size_t n : sizes) {
      for (int variant = 0; variant < 2; ++variant) {
        std::vector<unsigned char> input =
            randomElements(type, n, rng, /*finite=*/variant == 0);
        for (float scale : scales)
          expectBufferMatchesTable(type, input, scale, n % 5,
                                   "n " + std::to_string(n) +
                                       (variant ? " random" : " finite"));
      }
    }
  }
}

TEST_P(Unscale, BufferExhaustive16Bit) {
  for (Type type : {Type::F16, Type::BF16}) {
    std::vector<unsigned char> all(2 * 65536);
    for (uint32_t h = 0; h <= 0xffff; ++h) {
      uint16_t bits = static_cast<uint16_t>(h);
      std::memcpy(&all[2 * h], &bits, 2);
    }
    for (float scale : {2.0f, 3.0f, 0.7f, 1.0f, 0x1p30f, 1e-30f})
      expectBufferMatchesTable(type, all, scale, 1, "exhaustive");
  }
}

TEST_P(Unscale, BufferHandValues) {
  // Hand-computed results, signalling NaNs included.
  const float inv = 0.5f;
  std::vector<float> f = {2.0f, -3.0f, 0x1p-149f, INFINITY, 1.0f};
  std::vector<float> fOut(f.size(), 7.0f);
  uint8_t flag = 0;
  ampCpuCheckFiniteAndUnscaleBuffer(f.data(), fOut.data(), 5, AMP_DTYPE_F32,
                                    &inv, &flag);
  EXPECT_EQ(flag, 1);
  EXPECT_EQ(fOut[0], 1.0f);
  EXPECT_EQ(fOut[1], -1.5f);
  EXPECT_EQ(floatBits(fOut[2]), 0u); // 2^-150: a tie -> +0 (even).
  EXPECT_TRUE(std::isinf(fOut[3]));
  EXPECT_EQ(fOut[4], 0.5f);
  EXPECT_EQ(f[0], 2.0f); // The input is untouched.

  std::vector<uint16_t> h = {0x3c00, 0x0003, 0x7c01, 0xc000};
  std::vector<uint16_t> hOut(h.size(), 0);
  flag = 0;
  ampCpuCheckFiniteAndUnscaleBuffer(h.data(), hOut.data(), 4, AMP_DTYPE_F16,
                                    &inv, &flag);
  EXPECT_EQ(flag, 1);
  EXPECT_EQ(hOut, (std::vector<uint16_t>{0x3800, 0x0002, 0x7e01, 0xbc00}));

  std::vector<uint16_t> b = {0x3f80, 0x0003, 0xbf80};
  flag = 0;
  ampCpuCheckFiniteAndUnscaleBuffer(b.data(), b.data(), 3, AMP_DTYPE_BF16, &inv,
                                    &flag);
  EXPECT_EQ(flag, 0);
  EXPECT_EQ(b, (std::vector<uint16_t>{0x3f00, 0x0002, 0xbf00}));

  // inv == 1 (x * 1 == x): a signalling NaN keeps its bits, in place and
  // out of place, like the table entry points.
  const float one = 1.0f;
  std::vector<uint32_t> nans = {0x7f800001u, 0xffa00005u, 0x3f800000u};
  std::vector<uint32_t> nansOut(3, 0);
  flag = 0;
  ampCpuCheckFiniteAndUnscaleBuffer(nans.data(), nansOut.data(), 3,
                                    AMP_DTYPE_F32, &one, &flag);
  EXPECT_EQ(flag, 1);
  EXPECT_EQ(nansOut, nans);
  std::vector<uint16_t> hNans = {0x7c01, 0xfd55, 0x3c00};
  std::vector<uint16_t> hNansIn = hNans;
  flag = 0;
  ampCpuCheckFiniteAndUnscaleBuffer(hNans.data(), hNans.data(), 3,
                                    AMP_DTYPE_F16, &one, &flag);
  EXPECT_EQ(flag, 1);
  EXPECT_EQ(hNans, hNansIn);
}

TEST_P(Unscale, BufferInvalidInverseScaleSetsTheFlagAndWritesNothing) {
  // The inverse scale is read where the GPU twin reads it (on the device),
  // so it cannot be rejected by the call: an inverse that is not finite and
  // > 0 is reported as found_inf, and no element is written, in place or
  // out of place, for every type and through the SIMD and portable paths.
  const float invalid[] = {NAN,  -NAN,  INFINITY, -INFINITY,
                           0.0f, -0.0f, -1.0f,    -0x1p-149f};
  std::mt19937 rng(31);
  for (Type type : {Type::F32, Type::F16, Type::BF16}) {
    for (size_t n : {size_t(1), size_t(17), size_t(5000)}) {
      std::vector<unsigned char> input =
          randomElements(type, n, rng, /*finite=*/true);
      for (float inv : invalid) {
        SCOPED_TRACE(std::string(typeName(type)) + " n " + std::to_string(n) +
                     " inv " + std::to_string(inv));
        std::vector<unsigned char> inPlace = input;
        std::vector<unsigned char> out(input.size(), 0xa5);
        const std::vector<unsigned char> out0 = out;
        uint8_t flag = 0, flag2 = 0;
        std::string error = amp_test::captureHandlerMessage([&] {
          ampCpuCheckFiniteAndUnscaleBuffer(inPlace.data(), inPlace.data(),
                                            static_cast<int64_t>(n),
                                            dtypeOf(type), &inv, &flag);
          ampCpuCheckFiniteAndUnscaleBuffer(input.data(), out.data(),
                                            static_cast<int64_t>(n),
                                            dtypeOf(type), &inv, &flag2);
        });
        EXPECT_EQ(error, "");
        EXPECT_EQ(flag, 1);
        EXPECT_EQ(flag2, 1);
        EXPECT_TRUE(inPlace == input) << "written in place";
        EXPECT_TRUE(out == out0) << "written out of place";
      }
    }
  }
  // A set flag stays set; a valid tiny (subnormal) inverse is accepted.
  std::vector<float> x = {1.0f, -2.0f};
  uint8_t flag = 1;
  const float nan = NAN, tiny = 0x1p-149f;
  ampCpuCheckFiniteAndUnscaleBuffer(x.data(), x.data(), 2, AMP_DTYPE_F32, &nan,
                                    &flag);
  EXPECT_EQ(flag, 1);
  flag = 0;
  ampCpuCheckFiniteAndUnscaleBuffer(x.data(), x.data(), 2, AMP_DTYPE_F32, &tiny,
                                    &flag);
  EXPECT_EQ(flag, 0);
  EXPECT_EQ(x[0], 0x1p-149f);
  EXPECT_EQ(x[1], -0x1p-148f);
}

TEST_P(Unscale, BufferResultsThatOverflowSetTheFlag) {
  // inv = 2 (scale 0.5): finite inputs whose result is Inf are reported,
  // in place and out of place, exactly as by the table entry points.
  const float inv = 2.0f;
  std::vector<uint16_t> h(40, 0x3c00), b(40, 0x3f80);
  std::vector<float> f(40, 1.0f);
  h[33] = 0xfbff; // -65504 -> -Inf
  b[3] = 0x7f7f;  // 3.39e38 -> Inf
  f[21] = -FLT_MAX;
  uint8_t flags[3] = {0, 0, 0};
  std::vector<uint16_t> hOut(40), bIn = b;
  std::vector<float> fOut(40);
  ampCpuCheckFiniteAndUnscaleBuffer(h.data(), hOut.data(), 40, AMP_DTYPE_F16,
                                    &inv, &flags[0]);
  ampCpuCheckFiniteAndUnscaleBuffer(b.data(), b.data(), 40, AMP_DTYPE_BF16,
                                    &inv, &flags[1]);
  ampCpuCheckFiniteAndUnscaleBuffer(f.data(), fOut.data(), 40, AMP_DTYPE_F32,
                                    &inv, &flags[2]);
  EXPECT_EQ(flags[0], 1);
  EXPECT_EQ(flags[1], 1);
  EXPECT_EQ(flags[2], 1);
  EXPECT_EQ(hOut[33], 0xfc00);
  EXPECT_EQ(b[3], 0x7f80);
  EXPECT_TRUE(std::isinf(fOut[21]));
  for (const auto &[type, bytes] :
       {std::make_pair(Type::F16,
                       std::vector<unsigned char>(
                           reinterpret_cast<unsigned char *>(h.data()),
                           reinterpret_cast<unsigned char *>(h.data() + 40))),
        std::make_pair(Type::BF16,
                       std::vector<unsigned char>(
                           reinterpret_cast<unsigned char *>(bIn.data()),
                           reinterpret_cast<unsigned char *>(bIn.data() + 40))),
        std::make_pair(Type::F32,
                       std::vector<unsigned char>(
                           reinterpret_cast<unsigned char *>(f.data()),
                           reinterpret_cast<unsigned char *>(f.data() + 40)))})
    expectBufferMatchesTable(type, bytes, 0.5f, 3, "overflow");
}

TEST_P(Unscale, BufferFlagIsOredAndNeverCleared) {
  const float inv = 0.25f;
  std::vector<float> clean = {1.0f, 2.0f, 3.0f};
  std::vector<uint16_t> bad = {0x3c00, 0xfc00}; // -Inf (f16)
  std::vector<uint16_t> cleanBF16 = {0x3f80};
  uint8_t flag = 0;
  ampCpuCheckFiniteAndUnscaleBuffer(clean.data(), clean.data(), 3,
                                    AMP_DTYPE_F32, &inv, &flag);
  EXPECT_EQ(flag, 0);
  ampCpuCheckFiniteAndUnscaleBuffer(bad.data(), bad.data(), 2, AMP_DTYPE_F16,
                                    &inv, &flag);
  EXPECT_EQ(flag, 1);
  ampCpuCheckFiniteAndUnscaleBuffer(cleanBF16.data(), cleanBF16.data(), 1,
                                    AMP_DTYPE_BF16, &inv, &flag);
  EXPECT_EQ(flag, 1) << "a clean buffer cleared the flag";
  EXPECT_EQ(clean, (std::vector<float>{0.25f, 0.5f, 0.75f}));
  EXPECT_EQ(cleanBF16[0], 0x3e80);
  // Only the flag's byte is ever written, and only with 1.
  uint8_t bytes[3] = {0xee, 0x00, 0xee};
  ampCpuCheckFiniteAndUnscaleBuffer(bad.data(), bad.data(), 2, AMP_DTYPE_F16,
                                    &inv, &bytes[1]);
  EXPECT_EQ(bytes[0], 0xee);
  EXPECT_EQ(bytes[1], 1);
  EXPECT_EQ(bytes[2], 0xee);
  uint8_t other = 0x42; // Left alone by a clean buffer.
  ampCpuCheckFiniteAndUnscaleBuffer(clean.data(), clean.data(), 3,
                                    AMP_DTYPE_F32, &inv, &other);
  EXPECT_EQ(other, 0x42);
}

TEST_P(Unscale, BufferZeroLength) {
  uint8_t flag = 0;
  const float inv = 2.0f;
  // numel 0 does nothing, whatever the pointers.
  EXPECT_EQ(amp_test::captureHandlerMessage([&] {
              ampCpuCheckFiniteAndUnscaleBuffer(
                  nullptr, nullptr, 0, AMP_DTYPE_F16, nullptr, nullptr);
              float x = INFINITY;
              ampCpuCheckFiniteAndUnscaleBuffer(&x, &x, 0, AMP_DTYPE_F32, &inv,
                                                &flag);
              EXPECT_EQ(x, INFINITY);
            }),
            "");
  EXPECT_EQ(flag, 0);
}

TEST_P(Unscale, BufferBadArgumentsReachTheHandler) {
  std::vector<uint16_t> in = {0x3c00, 0x7c00, 0x4000, 0x4400};
  std::vector<uint16_t> out(4, 0x1234);
  const std::vector<uint16_t> in0 = in, out0 = out;
  const float inv = 0.5f;
  uint8_t flag = 0;
  const char *call = "ampCpuCheckFiniteAndUnscaleBuffer: ";
  auto expectError = [&](const char *fragment, auto fn) {
    std::string message = amp_test::captureHandlerMessage(fn);
    EXPECT_EQ(message.rfind(call, 0), 0u) << message;
    EXPECT_NE(message.find(fragment), std::string::npos)
        << "expected '" << fragment << "' in: " << message;
  };
  expectError("dtype must be F32, F16 or BF16, got 3", [&] {
    ampCpuCheckFiniteAndUnscaleBuffer(in.data(), out.data(), 4, 3, &inv, &flag);
  });
  expectError("dtype must be F32, F16 or BF16, got -1", [&] {
    ampCpuCheckFiniteAndUnscaleBuffer(in.data(), out.data(), 0, -1, &inv,
                                      &flag);
  });
  expectError("numel must be in [0, 2^54], got -2", [&] {
    ampCpuCheckFiniteAndUnscaleBuffer(in.data(), out.data(), -2, AMP_DTYPE_F16,
                                      &inv, &flag);
  });
  expectError("in is NULL with numel 4", [&] {
    ampCpuCheckFiniteAndUnscaleBuffer(nullptr, out.data(), 4, AMP_DTYPE_F16,
                                      &inv, &flag);
  });
  expectError("out is NULL with numel 4", [&] {
    ampCpuCheckFiniteAndUnscaleBuffer(in.data(), nullptr, 4, AMP_DTYPE_F16,
                                      &inv, &flag);
  });
  expectError("invScale is NULL with numel 4", [&] {
    ampCpuCheckFiniteAndUnscaleBuffer(in.data(), out.data(), 4, AMP_DTYPE_F16,
                                      nullptr, &flag);
  });
  expectError("foundInf is NULL with numel 4", [&] {
    ampCpuCheckFiniteAndUnscaleBuffer(in.data(), out.data(), 4, AMP_DTYPE_F16,
                                      &inv, nullptr);
  });
  // Overlapping without being equal.
  expectError("overlap", [&] {
    ampCpuCheckFiniteAndUnscaleBuffer(in.data(), in.data() + 1, 3,
                                      AMP_DTYPE_F16, &inv, &flag);
  });
  expectError("overlap", [&] {
    ampCpuCheckFiniteAndUnscaleBuffer(in.data() + 1, in.data(), 2,
                                      AMP_DTYPE_BF16, &inv, &flag);
  });
  // Misaligned for the element type.
  expectError("is not aligned to its 4-byte f32 elements", [&] {
    ampCpuCheckFiniteAndUnscaleBuffer(in.data(), out.data() + 1, 1,
                                      AMP_DTYPE_F32, &inv, &flag);
  });
  // Nothing was read or written by a failed call.
  EXPECT_EQ(in, in0);
  EXPECT_EQ(out, out0);
  EXPECT_EQ(flag, 0);
  // Adjacent (touching) buffers are disjoint.
  EXPECT_EQ(amp_test::captureHandlerMessage([&] {
              ampCpuCheckFiniteAndUnscaleBuffer(in.data(), in.data() + 2, 2,
                                                AMP_DTYPE_F16, &inv, &flag);
            }),
            "");
  EXPECT_EQ(flag, 1); // in[1] is +Inf.
  EXPECT_EQ(in[2], 0x3800);
  EXPECT_EQ(in[3], 0x7c00);
  // Without a capturing handler, the default one aborts with the message.
  EXPECT_DEATH(ampCpuCheckFiniteAndUnscaleBuffer(in.data(), out.data(), 4, 9,
                                                 &inv, &flag),
               "amp-runtime: error: ampCpuCheckFiniteAndUnscaleBuffer: dtype");
}

TEST_P(Unscale, ToF32FromEachType) {
  std::vector<std::vector<uint16_t>> h = {{0x3c00, 0x0001, 0x7bff, 0x8400},
                                          {0x7c00}};
  std::vector<std::vector<float>> wide;
  EXPECT_EQ(unscaleToF32(Type::F16, h, wide, 4.0f), 1);
  EXPECT_EQ(wide[0][0], 0.25f);
  EXPECT_EQ(wide[0][1], 0x1p-26f); // Exact in f32 (no f16 rounding).
  EXPECT_EQ(wide[0][2], 65504.0f / 4.0f);
  EXPECT_EQ(wide[0][3], -0x1p-16f);
  EXPECT_TRUE(std::isinf(wide[1][0]));
  std::vector<std::vector<uint16_t>> b = {{0x3f80, 0x0001, 0xc2c8}};
  EXPECT_EQ(unscaleToF32(Type::BF16, b, wide, 4.0f), 0);
  EXPECT_EQ(wide[0][0], 0.25f);
  EXPECT_EQ(wide[0][1], 0x1p-135f);
  EXPECT_EQ(wide[0][2], -25.0f);
  expect32({{1.0f, 3.0f}, {0x1p-149f, INFINITY}}, 4.0f, "f32 to f32");
}

//===----------------------------------------------------------------------===//
// ampCpuCheckFiniteAndUnscaleBuffers: the table twin (one call for every
// gradient of an amp.check_finite_and_unscale, as --lower-to-gpu emits it)
//===----------------------------------------------------------------------===//

TEST_P(Unscale, BuffersTableMatchesOneCallPerBuffer) {
  // Mixed types, in place and out of place, sizes that exercise the block
  // paths: the table gives exactly the bytes and the flag of one buffer
  // call per entry.
  std::mt19937 rng(37);
  const Type types[] = {Type::F32, Type::F16, Type::BF16, Type::F16, Type::F32};
  const size_t sizes[] = {1001, 77, 40000, 3, 0};
  const float inv = 0.125f;
  for (int variant = 0; variant < 2; ++variant) {
    SCOPED_TRACE(variant == 0 ? "finite" : "with non-finite values");
    std::vector<std::vector<unsigned char>> in, viaTable, viaOne;
    for (size_t i = 0; i < 5; ++i)
      in.push_back(randomElements(types[i], sizes[i], rng,
                                  /*finite=*/variant == 0 || i != 2));
    viaTable = in;
    viaOne = in;
    // Entries 1 and 3 out of place, the others in place.
    std::vector<std::vector<unsigned char>> outTable = in, outOne = in;
    std::vector<const void *> ins;
    std::vector<void *> outs;
    std::vector<int64_t> numels;
    std::vector<int32_t> dtypes;
    uint8_t flagOne = 0, flagTable = 0;
    for (size_t i = 0; i < 5; ++i) {
      bool outOfPlace = i == 1 || i == 3;
      void *target = outOfPlace ? outTable[i].data() : viaTable[i].data();
      ins.push_back(viaTable[i].data());
      outs.push_back(target);
      numels.push_back(static_cast<int64_t>(sizes[i]));
      dtypes.push_back(dtypeOf(types[i]));
      ampCpuCheckFiniteAndUnscaleBuffer(
          viaOne[i].data(), outOfPlace ? outOne[i].data() : viaOne[i].data(),
          static_cast<int64_t>(sizes[i]), dtypeOf(types[i]), &inv, &flagOne);
    }
    std::string error = amp_test::captureHandlerMessage([&] {
      ampCpuCheckFiniteAndUnscaleBuffers(5, ins.data(), outs.data(),
                                         numels.data(), dtypes.data(), &inv,
                                         &flagTable);
    });
    EXPECT_EQ(error, "");
    EXPECT_EQ(flagTable, variant == 0 ? 0 : 1);
    EXPECT_EQ(flagTable, flagOne);
    for (size_t i = 0; i < 5; ++i) {
      EXPECT_TRUE(viaTable[i] == viaOne[i]) << "entry " << i;
      EXPECT_TRUE(outTable[i] == outOne[i]) << "entry " << i;
    }
    // The values really were unscaled (entry 0, f32, in place).
    if (variant == 0 && sizes[0] > 0) {
      float before, after;
      std::memcpy(&before, in[0].data(), 4);
      std::memcpy(&after, viaTable[0].data(), 4);
      EXPECT_EQ(after, before * inv);
    }
  }
}

TEST_P(Unscale, BuffersTableInvalidScaleAndArguments) {
  std::vector<float> a = {1.0f, 2.0f};
  std::vector<uint16_t> h = {0x3c00, 0x4000};
  const std::vector<float> a0 = a;
  const std::vector<uint16_t> h0 = h;
  const void *ins[] = {a.data(), h.data()};
  void *outs[] = {a.data(), h.data()};
  const int64_t numels[] = {2, 2};
  const int32_t dtypes[] = {AMP_DTYPE_F32, AMP_DTYPE_F16};
  // An invalid inverse scale: the flag, and nothing written in any entry.
  for (float bad : {NAN, INFINITY, 0.0f, -1.0f}) {
    uint8_t flag = 0;
    ampCpuCheckFiniteAndUnscaleBuffers(2, ins, outs, numels, dtypes, &bad,
                                       &flag);
    EXPECT_EQ(flag, 1) << bad;
    EXPECT_EQ(a, a0);
    EXPECT_EQ(h, h0);
  }
  // A set flag is never cleared; count 0 and empty entries touch nothing.
  const float half = 0.5f;
  uint8_t flag = 1;
  ampCpuCheckFiniteAndUnscaleBuffers(2, ins, outs, numels, dtypes, &half,
                                     &flag);
  EXPECT_EQ(flag, 1);
  EXPECT_EQ(a[1], 1.0f);
  EXPECT_EQ(h[1], 0x3c00);
  const int64_t empty[] = {0, 0};
  std::string error = amp_test::captureHandlerMessage([&] {
    ampCpuCheckFiniteAndUnscaleBuffers(0, nullptr, nullptr, nullptr, nullptr,
                                       nullptr, nullptr);
    ampCpuCheckFiniteAndUnscaleBuffers(2, ins, outs, empty, dtypes, nullptr,
                                       nullptr);
  });
  EXPECT_EQ(error, "");
  // An invalid entry rejects the whole call, naming the entry, before any
  // work on the valid ones.
  a = a0;
  const int32_t badTypes[] = {AMP_DTYPE_F32, 7};
  flag = 0;
  error = amp_test::captureHandlerMessage([&] {
    ampCpuCheckFiniteAndUnscaleBuffers(2, ins, outs, numels, badTypes, &half,
                                       &flag);
  });
  EXPECT_NE(error.find("ampCpuCheckFiniteAndUnscaleBuffers: dtype must be "
                       "F32, F16 or BF16, got 7 (table entry 1 of 2)"),
            std::string::npos)
      << error;
  EXPECT_EQ(a, a0);
  error = amp_test::captureHandlerMessage([&] {
    ampCpuCheckFiniteAndUnscaleBuffers(-1, ins, outs, numels, dtypes, &half,
                                       &flag);
  });
  EXPECT_NE(error.find("count must be >= 0, got -1"), std::string::npos)
      << error;
  error = amp_test::captureHandlerMessage([&] {
    ampCpuCheckFiniteAndUnscaleBuffers(2, ins, nullptr, numels, dtypes, &half,
                                       &flag);
  });
  EXPECT_NE(error.find("outs is NULL with count 2"), std::string::npos)
      << error;
}

} // namespace
