//===- Pipelines.cpp - the --amp-o1 / --amp-o2 pipelines ------------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Pipelines.h"
#include "DecisionOptions.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::amp;

void mlir::amp::buildAmpPipeline(OpPassManager &pm, AmpLevel level,
                                 const AmpPipelineOptions &options) {
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
    AmpPrecisionPipelinePassOptions all;
    all.level = level == AmpLevel::O1 ? "O1" : "O2";
    copyDecisionOptions(options, all);
    all.report = options.report;
    all.reportFile = options.reportFile;
    all.graphFile = options.graphFile;
    all.keepAmpCasts = options.keepAmpCasts;
    pm.addPass(createAmpPrecisionPipelinePass(all));
    return;
  }
  AmpAutoMixedPrecisionPassOptions amp;
  amp.level = level == AmpLevel::O1 ? "O1" : "O2";
  copyDecisionOptions(options, amp);
  pm.addPass(createAmpAutoMixedPrecisionPass(amp));
  pm.addPass(createAmpInlineGuardsPass());
  pm.addPass(createAmpCastElisionPass());
  if (options.report != "none") {
    AmpReportPassOptions report;
    report.format = options.report;
    report.output = options.reportFile;
    report.title = level == AmpLevel::O1 ? "amp-o1" : "amp-o2";
    pm.addPass(createAmpReportPass(report));
  }
  if (!options.keepAmpCasts)
    pm.addPass(createAmpMaterializeCastsPass());
  if (!options.graphFile.empty()) {
    AmpPrecisionGraphPassOptions graph;
    graph.output = options.graphFile;
    graph.title = level == AmpLevel::O1 ? "amp-o1" : "amp-o2";
    pm.addPass(createAmpPrecisionGraphPass(graph));
  }
}

void mlir::amp::registerAmpPipelines() {
  PassPipelineRegistration<AmpPipelineOptions>(
      "amp-o1",
      "AMP level O1: white-list ops in low precision, black-list ops in "
      "fp32, gray ops placed to move the fewest bytes (placement=greedy: "
      "each follows its operands)",
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
