//===- AmpPipelines.cpp - the --amp-o1 / --amp-o2 pipelines ---------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Pipelines/AmpPipelines.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::amp;

namespace {
/// Reports an invalid option on the module it runs on: the pipeline of
/// options that do not bind.
struct AmpOptionErrorPass
    : public PassWrapper<AmpOptionErrorPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AmpOptionErrorPass)

  explicit AmpOptionErrorPass(std::string message)
      : message(std::move(message)) {}
  StringRef getArgument() const override { return "amp-option-error"; }
  StringRef getDescription() const override {
    return "Reports an invalid option of --amp-o1/--amp-o2";
  }
  void runOnOperation() override {
    mlir::emitError(getOperation().getLoc(), "amp: ") << message;
    signalPassFailure();
  }

  std::string message;
};
} // namespace

void mlir::amp::buildAmpPipeline(OpPassManager &pm, const AmpOptions &options) {
  // Weights held in constant ml_program globals become constants, which the
  // policies convert at compile time.
  pm.addPass(createAmpInlineGlobalConstantsPass());
  // Forward-backward functions of the training convention become training
  // steps (loss scaling, fp32 masters, the optimizer); other functions are
  // left alone.
  AmpTrainingPassOptions training;
  training.scaler = options.scaler;
  training.dataParallel = options.dataParallel;
  pm.addPass(createAmpTrainingPass(training));
  if (!options.splitStages) {
    pm.addPass(createAmpPrecisionPipelinePass(options));
    return;
  }
  for (AmpStage stage : getAmpStages(options)) {
    switch (stage) {
    case AmpStage::Decide:
      pm.addPass(createAmpAutoMixedPrecisionPass(options));
      break;
    case AmpStage::InlineGuards:
      pm.addPass(createAmpInlineGuardsPass());
      break;
    case AmpStage::ElideCasts:
      pm.addPass(createAmpCastElisionPass());
      break;
    case AmpStage::Report:
      pm.addPass(createAmpReportPass(getAmpReportOptions(options)));
      break;
    case AmpStage::MaterializeCasts:
      pm.addPass(createAmpMaterializeCastsPass());
      break;
    case AmpStage::PrecisionGraph:
      pm.addPass(
          createAmpPrecisionGraphPass(getAmpPrecisionGraphOptions(options)));
      break;
    }
  }
}

void mlir::amp::buildAmpPipeline(OpPassManager &pm, AmpLevel level,
                                 const AmpPipelineOptions &text) {
  AmpOptions options;
  options.level = level;
  std::string error;
  if (failed(bindAmpOptions(text, options, error))) {
    pm.addPass(std::make_unique<AmpOptionErrorPass>(std::move(error)));
    return;
  }
  buildAmpPipeline(pm, options);
}

void mlir::amp::registerAmpPipelines() {
  PassPipelineRegistration<AmpPipelineOptions>(
      "amp-o1",
      "AMP level O1: white-list ops in low precision, black-list ops in "
      "fp32, gray ops placed as autocast's type promotion places them "
      "(placement=optimal: to move the fewest bytes; greedy: each follows "
      "its operands)",
      [](OpPassManager &pm, const AmpPipelineOptions &options) {
        buildAmpPipeline(pm, AmpLevel::O1, options);
      });
  PassPipelineRegistration<AmpPipelineOptions>(
      "amp-o2",
      "AMP level O2: every op that can runs in low precision, except the "
      "custom black list, pinned ops, ops outside guards, and norm "
      "statistics",
      [](OpPassManager &pm, const AmpPipelineOptions &options) {
        buildAmpPipeline(pm, AmpLevel::O2, options);
      });
}
