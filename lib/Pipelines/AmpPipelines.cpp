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

void mlir::amp::buildAmpPipeline(OpPassManager &pm, const AmpOptions &options) {
  // Calibrated ranges name the values of the module as written: first.
  if (!options.calibration.empty()) {
    AmpApplyRangesPassOptions ranges;
    ranges.calibration = options.calibration;
    pm.addPass(createAmpApplyRangesPass(ranges));
  }
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
    case AmpStage::Float8Contractions:
      pm.addPass(createAmpFloat8ContractionsPass(
          *options.fp8, /*markApplied=*/true, options.explain));
      break;
    case AmpStage::PrecisionGraph:
      pm.addPass(
          createAmpPrecisionGraphPass(getAmpPrecisionGraphOptions(options)));
      break;
    }
  }
}

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPO1PASS
#define GEN_PASS_DEF_AMPO2PASS
#define GEN_PASS_REGISTRATION
#include "amp/Pipelines/Passes.h.inc"
} // namespace amp
} // namespace mlir

namespace {
/// --amp-o1 / --amp-o2: binds its options (declared in PassOptions.td) to
/// AmpOptions and runs the pipeline buildAmpPipeline builds from them.
template <typename PassBase, AmpLevel Level>
struct AmpLevelPass : public PassBase {
  using PassBase::PassBase;
  AMP_OPTIONS_BINDABLE

  /// The typed options; on failure, `error` says which value is wrong.
  LogicalResult bind(AmpOptions &options, std::string &error) const {
    options = AmpOptions();
    options.level = Level;
    return bindAmpOptions(*this, options, error);
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    AmpOptions options;
    std::string error;
    if (failed(bind(options, error)))
      return;
    OpPassManager pipeline(ModuleOp::getOperationName());
    buildAmpPipeline(pipeline, options);
    pipeline.getDependentDialects(registry);
  }

  LogicalResult initialize(MLIRContext *) override {
    AmpOptions options;
    error.clear();
    pipeline = OpPassManager(ModuleOp::getOperationName());
    if (succeeded(bind(options, error)))
      buildAmpPipeline(pipeline, options);
    return success();
  }

  void runOnOperation() override {
    // An invalid value is reported on the module, before anything changes,
    // as the precision passes report theirs.
    if (!error.empty()) {
      mlir::emitError(this->getOperation().getLoc(), "amp: ") << error;
      return this->signalPassFailure();
    }
    if (failed(this->runPipeline(pipeline, this->getOperation())))
      this->signalPassFailure();
  }

  OpPassManager pipeline{ModuleOp::getOperationName()};
  std::string error;
};

struct AmpO1Pass
    : public AmpLevelPass<mlir::amp::impl::AmpO1PassBase<AmpO1Pass>,
                          AmpLevel::O1> {
  using AmpLevelPass::AmpLevelPass;
};
struct AmpO2Pass
    : public AmpLevelPass<mlir::amp::impl::AmpO2PassBase<AmpO2Pass>,
                          AmpLevel::O2> {
  using AmpLevelPass::AmpLevelPass;
};

template <typename LevelPass>
LogicalResult parseWith(StringRef text, AmpOptions &options,
                        std::string &error) {
  LevelPass pass;
  std::string message;
  if (failed(pass.initializeOptions(text, [&](const Twine &diagnostic) {
        message = diagnostic.str();
        return failure();
      }))) {
    error = !message.empty() ? message : "invalid options '" + text.str() + "'";
    return failure();
  }
  return pass.bind(options, error);
}
} // namespace

LogicalResult mlir::amp::parseAmpOptions(StringRef text, AmpLevel level,
                                         AmpOptions &options,
                                         std::string &error) {
  return level == AmpLevel::O1 ? parseWith<AmpO1Pass>(text, options, error)
                               : parseWith<AmpO2Pass>(text, options, error);
}

void mlir::amp::registerAmpPipelines() { registerAmpPipelinesPasses(); }
