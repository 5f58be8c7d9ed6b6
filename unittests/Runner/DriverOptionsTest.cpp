//===- DriverOptionsTest.cpp - the driver's own enumerated options --------===//
//
// Part of amp-mlir. The target and the NaN/Inf checks are the driver's
// concepts (Runner.h), spelled by the same tables as the pipelines'
// options: every value parses back from its printed spelling, anything else
// is rejected; the level of a compilation is the AMP level.
//
//===----------------------------------------------------------------------===//

#include "../OptionSpellings.h"
#include "amp/Runner/Runner.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::runner;

namespace {
using mlir::amp::unittest::expectRoundTrip;

TEST(DriverOptionsTest, EveryValueRoundTrips) {
  expectRoundTrip<Target>();
  expectRoundTrip<CheckNanInf>();
}

TEST(DriverOptionsTest, TargetsAndLevels) {
  EXPECT_EQ(parseTarget("gpu-sim"), Target::GpuSim);
  EXPECT_FALSE(parseTarget("tpu"));
  EXPECT_EQ(getInvalidValueMessage<Target>("tpu"),
            "target must be cpu, gpu or gpu-sim, got 'tpu'");
  EXPECT_EQ(parseLevel("o0"), AmpLevel::O0);
  EXPECT_FALSE(parseLevel("O3"));
  EXPECT_EQ(getVariantLabel(AmpLevel::O2, "bf16"), "O2 bf16");
  EXPECT_EQ(getVariantLabel(AmpLevel::O0, "bf16"), "O0");
}

TEST(DriverOptionsTest, CheckNanInf) {
  EXPECT_EQ(parseCheckNanInf("all"), CheckNanInf::All);
  EXPECT_FALSE(parseCheckNanInf("some"));
  EXPECT_EQ(describeOptionValues<CheckNanInf>(), "low or all");
}
} // namespace
