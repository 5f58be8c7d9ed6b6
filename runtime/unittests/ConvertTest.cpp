//===- ConvertTest.cpp - exact f16/bf16 conversion tests ------------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/AmpRuntime.h"

#include "../lib/InlineConvert.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace {

using amp::rt::bitsFloat;
using amp::rt::floatBits;

bool isF16NaN(uint16_t bits) {
  return (bits & 0x7c00u) == 0x7c00u && (bits & 0x3ffu) != 0;
}

TEST(ConvertF16, ExactValues) {
  EXPECT_EQ(ampF32ToF16(1.0f), 0x3c00);
  EXPECT_EQ(ampF32ToF16(-2.0f), 0xc000);
  EXPECT_EQ(ampF32ToF16(0.0f), 0x0000);
  EXPECT_EQ(ampF32ToF16(-0.0f), 0x8000);
  EXPECT_EQ(ampF32ToF16(0.5f), 0x3800);
  EXPECT_EQ(ampF32ToF16(65504.0f), 0x7bff); // Largest finite f16.
  EXPECT_EQ(ampF32ToF16(-65504.0f), 0xfbff);
  EXPECT_EQ(ampF32ToF16(0x1p-14f), 0x0400);            // Smallest normal.
  EXPECT_EQ(ampF32ToF16(0x1p-14f - 0x1p-24f), 0x03ff); // Largest subnormal.
}

TEST(ConvertF16, Overflow) {
  // 65520 is the midpoint between 65504 (odd mantissa) and 2^16: ties to even
  // rounds up, i.e. to Inf.
  EXPECT_EQ(ampF32ToF16(65520.0f), 0x7c00);
  EXPECT_EQ(ampF32ToF16(-65520.0f), 0xfc00);
  EXPECT_EQ(ampF32ToF16(std::nextafter(65520.0f, 0.0f)), 0x7bff);
  EXPECT_EQ(ampF32ToF16(1.0e6f), 0x7c00);
  EXPECT_EQ(ampF32ToF16(FLT_MAX), 0x7c00);
  EXPECT_EQ(ampF32ToF16(INFINITY), 0x7c00);
  EXPECT_EQ(ampF32ToF16(-INFINITY), 0xfc00);
}

TEST(ConvertF16, Subnormals) {
  EXPECT_EQ(ampF32ToF16(0x1p-24f), 0x0001); // Smallest subnormal.
  EXPECT_EQ(ampF32ToF16(0x1p-25f), 0x0000); // Tie -> even (0).
  EXPECT_EQ(ampF32ToF16(-0x1p-25f), 0x8000);
  EXPECT_EQ(ampF32ToF16(3.0f * 0x1p-25f), 0x0002); // Tie 1.5 units -> 2.
  EXPECT_EQ(ampF32ToF16(5.0f * 0x1p-25f), 0x0002); // Tie 2.5 units -> 2.
  EXPECT_EQ(ampF32ToF16(std::nextafter(0x1p-25f, 1.0f)), 0x0001);
  EXPECT_EQ(ampF32ToF16(0x1p-26f), 0x0000);
  EXPECT_EQ(ampF32ToF16(0x1p-100f), 0x0000);
  EXPECT_EQ(ampF16ToF32(0x0001), 0x1p-24f);
  EXPECT_EQ(ampF16ToF32(0x03ff), 0x1p-14f - 0x1p-24f);
  EXPECT_EQ(ampF16ToF32(0x8001), -0x1p-24f);
}

TEST(ConvertF16, TiesToEvenInNormals) {
  // f16 has 10 mantissa bits: the ulp at 1.0 is 2^-10.
  EXPECT_EQ(ampF32ToF16(1.0f + 0x1p-11f), 0x3c00);        // Tie -> even.
  EXPECT_EQ(ampF32ToF16(1.0f + 3.0f * 0x1p-11f), 0x3c02); // Tie -> even.
  EXPECT_EQ(ampF32ToF16(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);
}

TEST(ConvertF16, NaNStaysNaN) {
  uint16_t quiet = ampF32ToF16(std::numeric_limits<float>::quiet_NaN());
  EXPECT_TRUE(isF16NaN(quiet));
  EXPECT_TRUE(quiet & 0x0200u) << "quiet bit";
  uint16_t signaling = ampF32ToF16(bitsFloat(0x7f800001u));
  EXPECT_TRUE(isF16NaN(signaling));
  EXPECT_TRUE(signaling & 0x0200u);
  EXPECT_TRUE(isF16NaN(ampF32ToF16(bitsFloat(0xffc00000u))));
  EXPECT_TRUE(std::isnan(ampF16ToF32(0x7e00)));
  EXPECT_TRUE(std::isnan(ampF16ToF32(0x7c01)));
  EXPECT_TRUE(std::isinf(ampF16ToF32(0x7c00)));
  EXPECT_EQ(ampF16ToF32(0xfc00), -INFINITY);
}

TEST(ConvertF16, AllPatternsRoundTrip) {
  for (uint32_t bits = 0; bits <= 0xffffu; ++bits) {
    float value = ampF16ToF32(static_cast<uint16_t>(bits));
    if (isF16NaN(static_cast<uint16_t>(bits))) {
      ASSERT_TRUE(std::isnan(value)) << std::hex << bits;
      continue;
    }
    ASSERT_EQ(ampF32ToF16(value), bits) << std::hex << bits;
  }
}

TEST(ConvertF16, MatchesDoubleRounding) {
  // Every f32 (sampled) against round-to-nearest-even computed from the
  // exact neighbours: the result must be the closer f16, ties to even.
  for (uint64_t raw = 0; raw <= 0xffffffffull; raw += 65521) {
    float value = bitsFloat(static_cast<uint32_t>(raw));
    if (std::isnan(value))
      continue;
    uint16_t got = ampF32ToF16(value);
    double back = ampF16ToF32(got);
    double exact = value;
    if (std::isinf(back)) {
      ASSERT_GE(std::fabs(exact), 65520.0) << value;
      continue;
    }
    // Neighbours of `got` in f16 (towards and away from zero).
    uint16_t magnitude = got & 0x7fffu;
    double up = magnitude < 0x7bffu
                    ? ampF16ToF32(static_cast<uint16_t>(magnitude + 1))
                    : 65536.0;
    double down = magnitude > 0
                      ? ampF16ToF32(static_cast<uint16_t>(magnitude - 1))
                      : -static_cast<double>(ampF16ToF32(1));
    double abs = std::fabs(exact), absBack = std::fabs(back);
    double errGot = std::fabs(abs - absBack);
    ASSERT_LE(errGot, std::fabs(abs - up)) << value;
    ASSERT_LE(errGot, std::fabs(abs - down)) << value;
    bool tie = errGot == std::fabs(abs - up) || errGot == std::fabs(abs - down);
    if (tie && errGot != 0) {
      ASSERT_EQ(got & 1u, 0u) << "tie not to even for " << value;
    }
  }
}

#if defined(__FLT16_MAX__) && defined(__x86_64__)
TEST(ConvertF16, MatchesCompilerFloat16) {
  for (uint64_t raw = 0; raw <= 0xffffffffull; raw += 4099) {
    float value = bitsFloat(static_cast<uint32_t>(raw));
    if (std::isnan(value))
      continue;
    _Float16 reference = static_cast<_Float16>(value);
    uint16_t bits;
    std::memcpy(&bits, &reference, sizeof(bits));
    ASSERT_EQ(ampF32ToF16(value), bits) << value;
  }
}
#endif

TEST(ConvertBF16, ExactValues) {
  EXPECT_EQ(ampF32ToBF16(1.0f), 0x3f80);
  EXPECT_EQ(ampF32ToBF16(-2.0f), 0xc000);
  EXPECT_EQ(ampF32ToBF16(0.0f), 0x0000);
  EXPECT_EQ(ampF32ToBF16(-0.0f), 0x8000);
  // bf16 has 7 mantissa bits: the ulp at 1.0 is 2^-7.
  EXPECT_EQ(ampF32ToBF16(1.00390625f), 0x3f80); // 1 + 2^-8: tie -> even 1.0.
  EXPECT_EQ(ampF32ToBF16(1.01171875f), 0x3f82); // 1 + 3*2^-8: tie -> 1.015625.
  EXPECT_EQ(ampBF16ToF32(0x3f82), 1.015625f);
  EXPECT_EQ(ampF32ToBF16(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);
  EXPECT_EQ(ampF32ToBF16(INFINITY), 0x7f80);
  EXPECT_EQ(ampF32ToBF16(-INFINITY), 0xff80);
  EXPECT_EQ(ampF32ToBF16(bitsFloat(0x7f7f0000u)), 0x7f7f); // Largest bf16.
  EXPECT_EQ(ampF32ToBF16(FLT_MAX), 0x7f80);                // Rounds to Inf.
  EXPECT_EQ(ampF32ToBF16(bitsFloat(0x00000001u)), 0x0000); // f32 denormal.
  EXPECT_EQ(ampF32ToBF16(bitsFloat(0x00018000u)), 0x0002); // Tie -> even.
}

TEST(ConvertBF16, NaNStaysQuietNaN) {
  uint16_t quiet = ampF32ToBF16(std::numeric_limits<float>::quiet_NaN());
  EXPECT_TRUE(std::isnan(ampBF16ToF32(quiet)));
  EXPECT_TRUE(quiet & 0x0040u);
  // A signalling NaN whose payload lives only in the low 16 bits would
  // truncate to Inf; it must stay a (quiet) NaN.
  uint16_t signaling = ampF32ToBF16(bitsFloat(0x7f800001u));
  EXPECT_TRUE(std::isnan(ampBF16ToF32(signaling)));
  EXPECT_TRUE(signaling & 0x0040u);
  uint16_t negative = ampF32ToBF16(bitsFloat(0xff800001u));
  EXPECT_TRUE(std::isnan(ampBF16ToF32(negative)));
  EXPECT_TRUE(negative & 0x8000u);
}

TEST(ConvertBF16, AllPatternsRoundTrip) {
  for (uint32_t bits = 0; bits <= 0xffffu; ++bits) {
    float value = ampBF16ToF32(static_cast<uint16_t>(bits));
    ASSERT_EQ(floatBits(value), bits << 16);
    if (std::isnan(value)) {
      ASSERT_TRUE(std::isnan(ampBF16ToF32(ampF32ToBF16(value))));
      continue;
    }
    ASSERT_EQ(ampF32ToBF16(value), bits) << std::hex << bits;
  }
}

TEST(Convert, Bulk) {
  std::vector<float> values = {1.0f,     -2.0f,    65504.0f,    65520.0f,
                               0x1p-24f, 0x1p-25f, 1.00390625f, 1.01171875f};
  int64_t n = static_cast<int64_t>(values.size());
  std::vector<uint16_t> half(values.size()), brain(values.size());
  std::vector<float> back(values.size());
  ampConvertF32ToF16(values.data(), half.data(), n);
  ampConvertF32ToBF16(values.data(), brain.data(), n);
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(half[i], ampF32ToF16(values[i]));
    EXPECT_EQ(brain[i], ampF32ToBF16(values[i]));
  }
  ampConvertF16ToF32(half.data(), back.data(), n);
  for (size_t i = 0; i < values.size(); ++i)
    EXPECT_EQ(floatBits(back[i]), floatBits(ampF16ToF32(half[i])));
  ampConvertBF16ToF32(brain.data(), back.data(), n);
  for (size_t i = 0; i < values.size(); ++i)
    EXPECT_EQ(floatBits(back[i]), floatBits(ampBF16ToF32(brain[i])));
  ampConvertF32ToF16(values.data(), half.data(), 0); // n = 0 is a no-op.
}

} // namespace
