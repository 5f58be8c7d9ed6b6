//===- AmpAttributesTest.cpp - #amp.loss_scaling --------------------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpAttributes.h"
#include "amp/InitAll.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <cmath>
#include <string>

using namespace mlir;
using namespace mlir::amp;

namespace {
class LossScalingAttrTest : public ::testing::Test {
protected:
  LossScalingAttrTest() {
    DialectRegistry registry;
    registerAmpDialect(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  MLIRContext context;
};

TEST_F(LossScalingAttrTest, PresetValuesMatchTheFrameworks) {
  // Values from shared/research/loss_scaling.md, section 3.1.
  auto pytorch = LossScalingAttr::getPreset(&context, "pytorch");
  ASSERT_TRUE(pytorch);
  EXPECT_EQ(pytorch.getInitScaleValue(), 65536.0);
  EXPECT_EQ(pytorch.getGrowthFactorValue(), 2.0);
  EXPECT_EQ(pytorch.getBackoffFactorValue(), 0.5);
  EXPECT_EQ(pytorch.getGrowthInterval(), 2000);
  EXPECT_EQ(pytorch.getHysteresis(), 1);
  EXPECT_FALSE(pytorch.getMinScaleValue().has_value());
  EXPECT_FALSE(pytorch.getMaxScaleValue().has_value());
  EXPECT_TRUE(pytorch.getDynamic());

  auto paddleStatic = LossScalingAttr::getPreset(&context, "paddle-static");
  ASSERT_TRUE(paddleStatic);
  EXPECT_EQ(paddleStatic.getInitScaleValue(), 32768.0);
  EXPECT_EQ(paddleStatic.getBackoffFactorValue(), 0.8);
  EXPECT_EQ(paddleStatic.getBackoffInterval(), 2);
  EXPECT_EQ(paddleStatic.getGrowthInterval(), 1000);
  EXPECT_EQ(paddleStatic.getMinScaleValue(), std::optional<double>(1.0));

  auto deepspeed = LossScalingAttr::getPreset(&context, "deepspeed");
  ASSERT_TRUE(deepspeed);
  EXPECT_EQ(deepspeed.getHysteresis(), 2);
  EXPECT_EQ(deepspeed.getGrowthInterval(), 1000);
  EXPECT_EQ(deepspeed.getMinScaleValue(), std::optional<double>(1.0));

  auto megatron = LossScalingAttr::getPreset(&context, "megatron");
  ASSERT_TRUE(megatron);
  EXPECT_EQ(megatron.getInitScaleValue(), std::ldexp(1.0, 32));

  auto apex = LossScalingAttr::getPreset(&context, "apex");
  ASSERT_TRUE(apex);
  EXPECT_EQ(apex.getMaxScaleValue(),
            std::optional<double>(std::ldexp(1.0, 24)));

  EXPECT_FALSE(LossScalingAttr::getPreset(&context, "tensorflow"));
}

TEST_F(LossScalingAttrTest, EveryPresetVerifiesAndRoundTrips) {
  ASSERT_GE(LossScalingAttr::getPresetNames().size(), 6u);
  for (StringRef name : LossScalingAttr::getPresetNames()) {
    SCOPED_TRACE(name.str());
    auto attr = LossScalingAttr::getPreset(&context, name);
    ASSERT_TRUE(attr);
    std::string text;
    llvm::raw_string_ostream os(text);
    Attribute(attr).print(os);
    Attribute parsed = parseAttribute(text, &context);
    EXPECT_EQ(parsed, attr) << text;
  }
}

TEST_F(LossScalingAttrTest, CheckedConstructionRejectsBadKnobs) {
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  auto loc = UnknownLoc::get(&context);
  auto emit = [&] { return emitError(loc); };
  auto make = [&](double init, double growth, double backoff,
                  std::optional<double> minScale,
                  std::optional<double> maxScale) {
    message.clear();
    auto opt = [](std::optional<double> v) -> std::optional<APFloat> {
      if (!v)
        return std::nullopt;
      return APFloat(*v);
    };
    return LossScalingAttr::getChecked(
        emit, &context, APFloat(init), APFloat(growth), APFloat(backoff),
        int64_t(2000), int64_t(1), int64_t(1), false, opt(minScale),
        opt(maxScale), true);
  };
  EXPECT_TRUE(make(1024.0, 2.0, 0.5, 1.0, 65536.0));
  EXPECT_FALSE(make(1024.0, 1.0, 0.5, {}, {}));
  EXPECT_NE(message.find("growth_factor"), std::string::npos) << message;
  EXPECT_FALSE(make(1024.0, 2.0, 1.0, {}, {}));
  EXPECT_NE(message.find("backoff_factor"), std::string::npos) << message;
  EXPECT_FALSE(make(NAN, 2.0, 0.5, {}, {}));
  EXPECT_NE(message.find("init_scale"), std::string::npos) << message;
  EXPECT_FALSE(make(1024.0, 2.0, 0.5, 4.0, 2.0));
  EXPECT_NE(message.find("min_scale"), std::string::npos) << message;
  EXPECT_FALSE(make(1024.0, 2.0, 0.5, {}, 512.0));
  EXPECT_NE(message.find("init_scale"), std::string::npos) << message;
}

TEST_F(LossScalingAttrTest, PresetFieldsCanBeOverridden) {
  Attribute parsed = parseAttribute(
      "#amp.loss_scaling<growth_interval = 7, preset = \"apex\", "
      "init_scale = 8>",
      &context);
  auto attr = dyn_cast_or_null<LossScalingAttr>(parsed);
  ASSERT_TRUE(attr);
  EXPECT_EQ(attr.getGrowthInterval(), 7);
  EXPECT_EQ(attr.getInitScaleValue(), 8.0);
  // The rest comes from the preset, wherever `preset` appears in the list.
  EXPECT_EQ(attr.getMaxScaleValue(), std::optional<double>(16777216.0));
}
} // namespace
