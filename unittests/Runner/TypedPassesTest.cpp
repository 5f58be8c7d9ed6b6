//===- TypedPassesTest.cpp - options handed to passes typed ---------------===//
//
// Part of amp-mlir. A driver that parsed an option where it entered hands it
// to the passes typed (the lowering's roundingMode, the AMP pipeline's FP8
// recipe): the pipelines it builds carry the value, and print it as the
// pass would be written, so that a dumped pipeline or a reproducer runs the
// same.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/Pipelines/AmpPipelines.h"
#include "amp/Pipelines/LoweringPipelines.h"
#include "amp/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <string>

using namespace mlir;
using namespace mlir::amp;

namespace {
/// The textual form of the module pipeline `build` makes from `options`.
template <typename Options>
std::string printBuilt(void (*build)(OpPassManager &, const Options &),
                       const Options &options) {
  OpPassManager pm(ModuleOp::getOperationName());
  build(pm, options);
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  return text;
}

TEST(TypedPassesTest, LoweringTakesTheRoundingTyped) {
  CpuLoweringOptions options;
  options.rounding = RoundingMode::PerOp;
  std::string text = printBuilt(buildLowerToCpuPipeline, options);
  EXPECT_NE(text.find("amp-fuse-elementwise{library-epilogues=false "
                      "max-recompute-users=4 rounding=per-op}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("amp-round-once{keep-library-narrowing=false "
                      "rounding=per-op}"),
            std::string::npos)
      << text;
}

TEST(TypedPassesTest, LoweringWithoutTypedRoundingLeavesItToTheModule) {
  GpuLoweringOptions options;
  options.simulate = true;
  std::string text = printBuilt(buildLowerToGpuPipeline, options);
  EXPECT_NE(text.find("amp-round-once{keep-library-narrowing=true "
                      "rounding=}"),
            std::string::npos)
      << text;
}

TEST(TypedPassesTest, TheFloat8RecipeIsHandedOnTyped) {
  AmpOptions options;
  options.level = AmpLevel::O2;
  options.splitStages = true;
  options.dtype = Precision::bf16;
  Float8Options fp8;
  fp8.format = Float8Format::E4M3;
  fp8.scaling = Float8Scaling::Current;
  fp8.margin = 2;
  options.fp8 = fp8;
  std::string text = printBuilt(buildAmpPipeline, options);
  EXPECT_NE(text.find("amp-float8-contractions{"), std::string::npos) << text;
  EXPECT_NE(text.find("format=e4m3"), std::string::npos) << text;
  EXPECT_NE(text.find("scaling=current"), std::string::npos) << text;
  EXPECT_NE(text.find("margin=2"), std::string::npos) << text;
}
} // namespace
