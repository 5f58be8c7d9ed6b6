//===- AmpOptionValuesTest.cpp - the AMP options by name, typed -----------===//
//
// Part of amp-mlir. The options of --amp-o1/--amp-o2 set by name with a
// typed value (setAmpOption, the C API's ampRunnerOptionsSetAmp*), from
// amp-tblgen's table of their declarations in PassOptions.td; text parsed
// over them (parseAmpOptions); both bound once (bindAmpOptions).
//
//===----------------------------------------------------------------------===//

#include "amp/Pipelines/AmpPipelines.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::amp;

namespace {

const OptionInfo *findInfo(llvm::StringRef name) {
  for (const OptionInfo &info : getAmpOptionInfos())
    if (info.name == name)
      return &info;
  return nullptr;
}

TEST(AmpOptionValuesTest, TheTableListsEveryDeclaredOptionWithItsKind) {
  llvm::ArrayRef<OptionInfo> infos = getAmpOptionInfos();
  // Every option of the level passes, in declaration order: PassOptions.td's
  // first (dtype) and last (split-stages), and one of each kind.
  ASSERT_GE(infos.size(), 20u);
  EXPECT_EQ(infos.front().name, "dtype");
  EXPECT_EQ(infos.back().name, "split-stages");
  EXPECT_EQ(findInfo("explain")->kind, OptionKind::Bool);
  EXPECT_EQ(findInfo("fp8-amax-history-len")->kind, OptionKind::Integer);
  EXPECT_EQ(findInfo("calibration-margin")->kind, OptionKind::Float);
  EXPECT_EQ(findInfo("placement")->kind, OptionKind::String);
  // An option of an enum type takes its spelling.
  EXPECT_EQ(findInfo("f64")->kind, OptionKind::String);
  EXPECT_EQ(findInfo("custom-black-list")->kind, OptionKind::StringList);
  EXPECT_EQ(describeOptionInfos(infos.take_front(2)),
            "dtype=string,fp8-format=string");
}

TEST(AmpOptionValuesTest, TypedSettersSetTheFieldsThatBindReads) {
  AmpOptionValues values;
  std::string error;
  ASSERT_TRUE(succeeded(setAmpOption(values, "explain", true, error))) << error;
  ASSERT_TRUE(succeeded(setAmpOption(
      values, "custom-black-list",
      std::vector<std::string>{"math.exp", "linalg.softmax"}, error)))
      << error;
  ASSERT_TRUE(succeeded(
      setAmpOption(values, "placement", std::string("greedy"), error)))
      << error;
  // An integer sets a float option too.
  ASSERT_TRUE(
      succeeded(setAmpOption(values, "calibration-margin", int64_t(8), error)))
      << error;
  ASSERT_TRUE(
      succeeded(setAmpOption(values, "f64", std::string("keep"), error)))
      << error;
  AmpOptions options;
  ASSERT_TRUE(succeeded(bindAmpOptions(values, AmpLevel::O1, options, error)))
      << error;
  EXPECT_EQ(options.level, AmpLevel::O1);
  EXPECT_TRUE(options.explain);
  EXPECT_EQ(options.customBlackList,
            (std::vector<std::string>{"math.exp", "linalg.softmax"}));
  EXPECT_EQ(options.placement, Placement::Greedy);
  EXPECT_EQ(options.calibrationMargin, 8.0);
  EXPECT_EQ(options.f64, F64Computations::Keep);
}

TEST(AmpOptionValuesTest, TypedSettersRefuseWhatTheOptionDoesNotTake) {
  AmpOptionValues values;
  std::string error;
  EXPECT_TRUE(failed(setAmpOption(values, "explain", int64_t(1), error)));
  EXPECT_EQ(error, "explain takes a bool, not an integer");
  EXPECT_TRUE(failed(setAmpOption(values, "custom-black-list",
                                  std::string("math.exp"), error)));
  EXPECT_EQ(error, "custom-black-list takes a list of strings, not a string");
  EXPECT_TRUE(
      failed(setAmpOption(values, "fp8-margin", int64_t(1) << 40, error)));
  EXPECT_EQ(error, "fp8-margin must be in [-2147483648, 2147483647], got "
                   "1099511627776");
  EXPECT_TRUE(
      failed(setAmpOption(values, "f64", std::string("double"), error)));
  EXPECT_NE(error.find("'double'"), std::string::npos) << error;
  EXPECT_TRUE(failed(setAmpOption(values, "dtyp", std::string("bf16"), error)));
  EXPECT_EQ(error.rfind("unknown option 'dtyp' of the AMP pipeline; it has "
                        "dtype, fp8-format,",
                        0),
            0u)
      << error;
  // Nothing was set by the refused calls.
  AmpOptions options;
  ASSERT_TRUE(succeeded(bindAmpOptions(values, AmpLevel::O2, options, error)))
      << error;
  EXPECT_FALSE(options.dtype.has_value());
  EXPECT_EQ(options.f64, F64Computations::Demote);
  // A spelling of an enumerated string option is checked when bound.
  ASSERT_TRUE(
      succeeded(setAmpOption(values, "placement", std::string("best"), error)));
  EXPECT_TRUE(failed(bindAmpOptions(values, AmpLevel::O2, options, error)));
  EXPECT_NE(error.find("placement must be"), std::string::npos) << error;
}

TEST(AmpOptionValuesTest, TextSetsOnlyTheOptionsItNames) {
  AmpOptionValues values;
  std::string error;
  ASSERT_TRUE(succeeded(setAmpOption(values, "explain", true, error)));
  ASSERT_TRUE(succeeded(parseAmpOptions(
      "placement=optimal custom-white-list=math.exp,math.log", values, error)))
      << error;
  EXPECT_TRUE(values.explain);
  EXPECT_EQ(values.placement, "optimal");
  EXPECT_EQ(values.customWhiteList,
            (llvm::SmallVector<std::string>{"math.exp", "math.log"}));
  // A later text wins over what was set before, option by option.
  ASSERT_TRUE(succeeded(parseAmpOptions("explain=false", values, error)));
  EXPECT_FALSE(values.explain);
  EXPECT_EQ(values.placement, "optimal");
  // A bad text changes nothing and says why.
  EXPECT_TRUE(
      failed(parseAmpOptions("placement=greedy dtyp=bf16", values, error)));
  EXPECT_NE(error.find("no such option dtyp"), std::string::npos) << error;
  EXPECT_EQ(values.placement, "optimal");
}

} // namespace
