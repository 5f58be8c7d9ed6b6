//===- OptionsTest.cpp - the one options struct of AMP --------------------===//
//
// Part of amp-mlir. The spelling tables of Options.h: every value parses
// back from its printed spelling, aliases parse to their value, anything
// else is rejected with the message the passes report; the textual options
// of --amp-o1/--amp-o2 bind to the typed struct and back.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Options.h"
#include "../../OptionSpellings.h"
#include "amp/Pipelines/AmpPipelines.h"

#include "gtest/gtest.h"

#include <string>

using namespace mlir;
using namespace mlir::amp;

namespace {
using mlir::amp::unittest::expectRoundTrip;

TEST(OptionsTest, EveryValueRoundTrips) {
  expectRoundTrip<AmpLevel>();
  expectRoundTrip<Precision>();
  expectRoundTrip<GuardMode>();
  expectRoundTrip<Placement>();
  expectRoundTrip<LossScalingMode>();
  expectRoundTrip<ArgPrecision>();
  expectRoundTrip<RoundingMode>();
  expectRoundTrip<ReportFormat>();
  expectRoundTrip<F64Computations>();
}

TEST(OptionsTest, InvalidValuesAreRejectedWithTheirMessage) {
  EXPECT_FALSE(parseOptionValue<ArgPrecision>("half"));
  EXPECT_EQ(getInvalidValueMessage<ArgPrecision>("half"),
            "arg-precision must be keep or low, got 'half'");
  EXPECT_FALSE(parseOptionValue<RoundingMode>("per_op"));
  EXPECT_EQ(getInvalidValueMessage<RoundingMode>("per_op"),
            "rounding must be once or per-op, got 'per_op'");
  EXPECT_FALSE(parseOptionValue<Placement>("best"));
  EXPECT_EQ(getInvalidValueMessage<Placement>("best"),
            "placement must be auto, optimal, greedy or autocast, got 'best'");
  EXPECT_FALSE(parseOptionValue<LossScalingMode>("maybe"));
  EXPECT_EQ(getInvalidValueMessage<LossScalingMode>("maybe"),
            "loss-scaling must be auto, on or off, got 'maybe'");
  EXPECT_FALSE(parseOptionValue<GuardMode>("maybe"));
  EXPECT_EQ(getInvalidValueMessage<GuardMode>("maybe"),
            "use-fp16-guard must be true, false or auto, got 'maybe'");
  EXPECT_FALSE(parseOptionValue<ReportFormat>("xml"));
  EXPECT_EQ(getInvalidValueMessage<ReportFormat>("xml"),
            "report must be none, text or json, got 'xml'");
  EXPECT_FALSE(parseOptionValue<AmpLevel>("O3"));
  // O0 is a level of compilations, not of the precision passes.
  EXPECT_EQ(parseOptionValue<AmpLevel>("O0"), AmpLevel::O0);
  EXPECT_FALSE(parsePassLevel("O0"));
  EXPECT_EQ(parsePassLevel("o1"), AmpLevel::O1);
  // Case matters except for the level and the dtype.
  EXPECT_FALSE(parseOptionValue<RoundingMode>("ONCE"));
  EXPECT_EQ(parseOptionValue<AmpLevel>("o2"), AmpLevel::O2);
}

TEST(OptionsTest, DtypeSpellings) {
  EXPECT_EQ(parseLowPrecision("Half"), Precision::f16);
  EXPECT_EQ(parseLowPrecision("FP16"), Precision::f16);
  EXPECT_EQ(parseLowPrecision("bfloat16"), Precision::bf16);
  EXPECT_FALSE(parseLowPrecision("float32"));
  EXPECT_FALSE(parseLowPrecision("f32"));
  EXPECT_EQ(stringifyOptionValue(Precision::f16), "f16");
  EXPECT_EQ(getUnknownDtypeMessage("f8"),
            "unknown dtype 'f8' (expected f16, bf16 or fp8, or fp16, float16, "
            "half, bfloat16, float8)");
}

TEST(OptionsTest, PipelineOptionsBindToTheStruct) {
  AmpOptions options;
  std::string error;
  ASSERT_TRUE(succeeded(parseAmpOptions(
      "dtype=bfloat16 placement=greedy arg-precision=low rounding=per-op "
      "loss-scaling=off use-fp16-guard=false report=json f64=keep "
      "custom-black-list=math.exp,math.log split-stages=true scaler=paddle",
      AmpLevel::O2, options, error)))
      << error;
  EXPECT_EQ(options.level, AmpLevel::O2);
  EXPECT_EQ(options.dtype, Precision::bf16);
  EXPECT_EQ(options.placement, Placement::Greedy);
  EXPECT_EQ(options.argPrecision, ArgPrecision::Low);
  EXPECT_EQ(options.rounding, RoundingMode::PerOp);
  EXPECT_EQ(options.lossScaling, LossScalingMode::Off);
  EXPECT_EQ(options.useFp16Guard, GuardMode::Off);
  EXPECT_EQ(options.report, ReportFormat::Json);
  EXPECT_EQ(options.f64, F64Computations::Keep);
  ASSERT_EQ(options.customBlackList.size(), 2u);
  EXPECT_EQ(options.customBlackList[1], "math.log");
  EXPECT_TRUE(options.splitStages);
  EXPECT_EQ(options.scaler, "paddle");

  // Defaults: what --amp-o1 with no options means.
  AmpOptions defaults;
  ASSERT_TRUE(succeeded(parseAmpOptions("", AmpLevel::O1, defaults, error)));
  EXPECT_FALSE(defaults.dtype.has_value());
  EXPECT_EQ(defaults.placement, Placement::Auto);
  EXPECT_EQ(defaults.rounding, RoundingMode::Once);
  EXPECT_EQ(defaults.report, ReportFormat::None);

  EXPECT_TRUE(
      failed(parseAmpOptions("arg-precision=x", AmpLevel::O2, options, error)));
  EXPECT_EQ(error, "arg-precision must be keep or low, got 'x'");
  error.clear();
  EXPECT_TRUE(
      failed(parseAmpOptions("dtyp=bf16", AmpLevel::O2, options, error)));
  EXPECT_NE(error.find("no such option dtyp"), std::string::npos) << error;
}

/// A textual holder with the members of the decision options.
struct TextOptions {
  std::string level = "O1", dtype, useFp16Guard = "auto", policyFile,
              placement = "auto", lossScaling = "auto", argPrecision = "keep",
              rounding = "once", fp8Format = "hybrid", fp8Scaling = "delayed",
              fp8AmaxCompute = "max", fp8CostModel = "none",
              fp8Kernels = "auto", calibrationFallback = "f32";
  std::vector<std::string> customWhiteList, customBlackList;
  double calibrationMargin = 4.0;
  bool explain = false;
  F64Computations f64 = F64Computations::Demote;
  int fp8Margin = 0;
  int64_t fp8MinSize = 0;
  int64_t fp8AmaxHistoryLen = 16;
};

TEST(OptionsTest, UnbindThenBindIsTheIdentity) {
  AmpOptions options;
  options.level = AmpLevel::O2;
  options.dtype = Precision::bf16;
  options.customWhiteList = {"linalg.softmax"};
  options.useFp16Guard = GuardMode::On;
  options.placement = Placement::Greedy;
  options.lossScaling = LossScalingMode::On;
  options.argPrecision = ArgPrecision::Low;
  options.rounding = RoundingMode::PerOp;
  options.f64 = F64Computations::Keep;
  options.calibrationMargin = 8;
  options.calibrationFallback = CalibrationFallback::BF16;
  TextOptions text;
  unbindAmpDecisionOptions(options, text);
  EXPECT_EQ(text.calibrationFallback, "bf16");
  EXPECT_EQ(text.level, "O2");
  EXPECT_EQ(text.dtype, "bf16");
  EXPECT_EQ(text.rounding, "per-op");
  AmpOptions back;
  back.level = AmpLevel::O2;
  std::string error;
  ASSERT_TRUE(succeeded(bindAmpDecisionOptions(text, back, error))) << error;
  EXPECT_EQ(back.dtype, options.dtype);
  EXPECT_EQ(back.customWhiteList, options.customWhiteList);
  EXPECT_EQ(back.useFp16Guard, options.useFp16Guard);
  EXPECT_EQ(back.placement, options.placement);
  EXPECT_EQ(back.lossScaling, options.lossScaling);
  EXPECT_EQ(back.argPrecision, options.argPrecision);
  EXPECT_EQ(back.rounding, options.rounding);
  EXPECT_EQ(back.f64, options.f64);
  EXPECT_EQ(back.calibrationMargin, 8);
  EXPECT_EQ(back.calibrationFallback, CalibrationFallback::BF16);
  EXPECT_FALSE(back.fp8.has_value());
}

// dtype=fp8: bf16 for the level, the FP8 recipe's options kept.
TEST(OptionsTest, Float8RoundTrips) {
  AmpOptions options;
  options.level = AmpLevel::O2;
  options.dtype = Precision::bf16;
  Float8Options fp8;
  fp8.format = Float8Format::E4M3;
  fp8.amaxHistoryLen = 1024;
  fp8.amaxCompute = Float8AmaxCompute::MostRecent;
  fp8.margin = 2;
  fp8.minSize = 4096;
  fp8.costModel = Float8CostModel::H100;
  options.fp8 = fp8;
  TextOptions text;
  unbindAmpDecisionOptions(options, text);
  EXPECT_EQ(text.dtype, "fp8");
  EXPECT_EQ(text.fp8Format, "e4m3");
  EXPECT_EQ(text.fp8AmaxCompute, "most_recent");
  EXPECT_EQ(text.fp8CostModel, "h100");
  AmpOptions back;
  std::string error;
  ASSERT_TRUE(succeeded(bindAmpDecisionOptions(text, back, error))) << error;
  EXPECT_EQ(back.dtype, Precision::bf16);
  ASSERT_TRUE(back.fp8.has_value());
  EXPECT_EQ(back.fp8->format, Float8Format::E4M3);
  EXPECT_EQ(back.fp8->margin, 2);
  EXPECT_EQ(back.fp8->minSize, 4096);
  EXPECT_EQ(back.fp8->scaling, Float8Scaling::Delayed);
  EXPECT_EQ(back.fp8->amaxHistoryLen, 1024);
  EXPECT_EQ(back.fp8->amaxCompute, Float8AmaxCompute::MostRecent);
  EXPECT_EQ(back.fp8->costModel, Float8CostModel::H100);
}

// The FP8 options are checked, and mean nothing without dtype=fp8.
TEST(OptionsTest, Float8Errors) {
  auto bindError = [](TextOptions text) {
    AmpOptions options;
    std::string error;
    EXPECT_TRUE(failed(bindAmpDecisionOptions(text, options, error)));
    return error;
  };
  TextOptions text;
  text.dtype = "fp8";
  text.fp8Margin = -1;
  EXPECT_EQ(bindError(text), "fp8-margin must be in [0, 30], got -1");
  text.fp8Margin = 0;
  text.fp8MinSize = -5;
  EXPECT_EQ(bindError(text), "fp8-min-size must be at least 0, got -5");
  text.fp8MinSize = 0;
  text.fp8Format = "e3m4";
  EXPECT_EQ(bindError(text),
            "fp8-format must be e4m3, hybrid or e5m2, got 'e3m4'");
  text.fp8Format = "hybrid";
  text.fp8AmaxHistoryLen = 0;
  EXPECT_EQ(bindError(text),
            "fp8-amax-history-len must be in [1, 65536], got 0");
  text.fp8AmaxHistoryLen = 16;
  text.fp8Scaling = "static";
  EXPECT_EQ(bindError(text),
            "fp8-scaling must be delayed or current, got 'static'");
  text.fp8Scaling = "current";
  text.fp8AmaxHistoryLen = 8;
  EXPECT_EQ(bindError(text),
            "fp8-amax-history-len applies to fp8-scaling=delayed, not current");
  text.fp8AmaxHistoryLen = 16;
  text.fp8AmaxCompute = "mean";
  EXPECT_EQ(bindError(text),
            "fp8-amax-compute must be max or most_recent, got 'mean'");
  text.fp8AmaxCompute = "max";
  text.fp8CostModel = "a100";
  EXPECT_EQ(bindError(text), "fp8-cost-model must be none or h100, got 'a100'");
  TextOptions bf16;
  bf16.dtype = "bf16";
  bf16.fp8Margin = 1;
  EXPECT_EQ(bindError(bf16), "fp8-margin applies to dtype=fp8, not dtype=bf16");
  bf16.fp8Margin = 0;
  bf16.fp8Scaling = "current";
  EXPECT_EQ(bindError(bf16),
            "fp8-scaling applies to dtype=fp8, not dtype=bf16");
}
} // namespace
