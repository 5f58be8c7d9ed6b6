//===- DriverOptionsTest.cpp - the driver's own enumerated options --------===//
//
// Part of amp-mlir. The target and the NaN/Inf checks are the driver's
// concepts (Runner.h), spelled by the same tables as the pipelines'
// options: every value parses back from its printed spelling, anything else
// is rejected; the level of a compilation is the AMP level.
//
//===----------------------------------------------------------------------===//

#include "../OptionSpellings.h"
#include "amp/Runner/CompileFlags.h"
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
  EXPECT_EQ(parseOptionValue<Target>("gpu-sim"), Target::GpuSim);
  EXPECT_FALSE(parseOptionValue<Target>("tpu"));
  EXPECT_EQ(getInvalidValueMessage<Target>("tpu"),
            "target must be cpu, gpu or gpu-sim, got 'tpu'");
  EXPECT_EQ(parseOptionValue<AmpLevel>("o0"), AmpLevel::O0);
  EXPECT_FALSE(parseOptionValue<AmpLevel>("O3"));
  EXPECT_EQ(getVariantLabel(AmpLevel::O2, "bf16"), "O2 bf16");
  EXPECT_EQ(getVariantLabel(AmpLevel::O0, "bf16"), "O0");
}

TEST(DriverOptionsTest, CompileOptionsAreParsedOnceWithOneMessage) {
  CompileOptionsText text;
  text.level = "o2";
  text.dtype = "Half";
  text.target = "gpu-sim";
  text.rounding = "per-op";
  CompileOptions options;
  llvm::Error error = parseCompileOptions(text, options, "--");
  ASSERT_FALSE(error) << llvm::toString(std::move(error));
  EXPECT_EQ(options.level, AmpLevel::O2);
  EXPECT_EQ(options.dtype, Precision::f16);
  EXPECT_EQ(options.target, Target::GpuSim);
  EXPECT_EQ(options.rounding, RoundingMode::PerOp);
  // fp8 is the AMP options' dtype, set after their text so that it wins.
  text.dtype = "float8";
  text.ampOptions = "dtype=bf16 placement=greedy";
  CompileOptions fp8;
  ASSERT_FALSE(llvm::errorToBool(parseCompileOptions(text, fp8)));
  EXPECT_FALSE(fp8.dtype);
  EXPECT_EQ(fp8.ampOptions.dtype, "fp8");
  EXPECT_EQ(fp8.ampOptions.placement, "greedy");

  auto message = [](CompileOptionsText text) {
    CompileOptions options;
    return llvm::toString(parseCompileOptions(text, options, "--"));
  };
  CompileOptionsText bad;
  bad.level = "O3";
  EXPECT_EQ(message(bad), "--level must be O0, O1 or O2, not 'O3'");
  bad = {};
  bad.rounding = "twice";
  EXPECT_EQ(message(bad), "--rounding must be once or per-op, not 'twice'");
  bad = {};
  bad.target = "gpu";
  bad.cpuOptions = "libraries=false";
  EXPECT_EQ(message(bad), "--cpu-options are options of the CPU lowering "
                          "(--lower-to-cpu); target 'gpu' does not read "
                          "them");
}

TEST(DriverOptionsTest, LoweringOptionsArriveTyped) {
  CompileOptionsText text;
  text.target = "gpu";
  text.gpuOptions = "chip=sm_80 format=isa block-size=64";
  CompileOptions options;
  llvm::Error error = parseCompileOptions(text, options, "--");
  ASSERT_FALSE(error) << llvm::toString(std::move(error));
  EXPECT_EQ(options.gpu.chip.computeCapability, 80);
  EXPECT_EQ(options.gpu.format, KernelFormat::Isa);
  EXPECT_EQ(options.gpu.blockSize, 64u);
  // The CPU's stay at their declared defaults.
  EXPECT_TRUE(options.cpu.libraries);

  auto message = [](CompileOptionsText text) {
    CompileOptions options;
    return llvm::toString(parseCompileOptions(text, options, "--"));
  };
  CompileOptionsText bad;
  bad.gpuOptions = "chip=volta";
  EXPECT_EQ(message(bad),
            "--gpu-options: chip 'volta' is not of the form sm_<N>[a]");
  bad = {};
  bad.cpuOptions = "split-reductions=many";
  EXPECT_NE(message(bad).find("--cpu-options: invalid options "
                              "'split-reductions=many'"),
            std::string::npos)
      << message(bad);
}

TEST(DriverOptionsTest, CheckNanInf) {
  EXPECT_EQ(parseOptionValue<CheckNanInf>("all"), CheckNanInf::All);
  EXPECT_FALSE(parseOptionValue<CheckNanInf>("some"));
  EXPECT_EQ(describeOptionValues<CheckNanInf>(), "low or all");
}
} // namespace
