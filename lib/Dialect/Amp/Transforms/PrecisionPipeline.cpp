//===- PrecisionPipeline.cpp - the amp-precision-pipeline pass ------------===//
//
// Part of amp-mlir. The stages of --amp-o1/--amp-o2 in one pass: the pass
// manager verifies the module once after them instead of after each. The
// order of the stages is getAmpStages's, which the split-stages pipeline
// follows too.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPPRECISIONPIPELINEPASS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

AmpReportPassOptions
mlir::amp::getAmpReportOptions(const AmpOptions &options) {
  AmpReportPassOptions report;
  report.format = stringifyOptionValue(options.report);
  report.output = options.reportFile;
  report.title = options.getTitle();
  return report;
}

AmpPrecisionGraphPassOptions
mlir::amp::getAmpPrecisionGraphOptions(const AmpOptions &options) {
  AmpPrecisionGraphPassOptions graph;
  graph.output = options.graphFile;
  graph.title = options.getTitle();
  return graph;
}

SmallVector<AmpStage> mlir::amp::getAmpStages(const AmpOptions &options) {
  SmallVector<AmpStage> stages = {AmpStage::Decide, AmpStage::InlineGuards,
                                  AmpStage::ElideCasts};
  bool report = options.report != ReportFormat::None;
  if (report && !options.fp8)
    stages.push_back(AmpStage::Report);
  if (!options.keepAmpCasts)
    stages.push_back(AmpStage::MaterializeCasts);
  // After the casts: it quantizes the f32 value that a narrowing of a
  // contraction's operand reads, where there is one. The report then
  // counts what it quantizes.
  if (options.fp8) {
    stages.push_back(AmpStage::Float8Contractions);
    if (report)
      stages.push_back(AmpStage::Report);
  }
  if (!options.graphFile.empty())
    stages.push_back(AmpStage::PrecisionGraph);
  return stages;
}

namespace {
struct AmpPrecisionPipelinePass
    : public amp::impl::AmpPrecisionPipelinePassBase<AmpPrecisionPipelinePass> {
  using Base::Base;
  AMP_OPTIONS_BINDABLE

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The options are checked here, where errors have the module's
    // location, before anything changes.
    auto emit = [&] { return mlir::emitError(module.getLoc(), "amp: "); };
    AmpOptions options;
    std::string error;
    if (failed(bindAmpOutputOptions(*this, options, error))) {
      emit() << error;
      return signalPassFailure();
    }
    std::optional<AmpLevel> parsedLevel = parsePassLevel(level);
    if (!parsedLevel) {
      emit() << "unknown level '" << level << "' (expected O1 or O2)";
      return signalPassFailure();
    }
    options.level = *parsedLevel;
    if (failed(bindAmpDecisionOptions(*this, options, error))) {
      emit() << error;
      return signalPassFailure();
    }

    // The policy and the ops outside guards, for the report's ideal (guards
    // are gone by then), and the decisions, for its JSON.
    AmpDecisionLog log;
    SmallVector<CastOp> casts;
    for (AmpStage stage : getAmpStages(options)) {
      switch (stage) {
      case AmpStage::Decide:
        if (failed(runAmpAutoMixedPrecision(
                module, options, /*changed=*/nullptr,
                options.report != ReportFormat::None ? &log : nullptr)))
          return signalPassFailure();
        break;
      case AmpStage::InlineGuards:
        inlineAmpGuards(module);
        break;
      case AmpStage::ElideCasts:
        elideAmpCasts(module, /*allowExcessPrecision=*/false, &casts);
        break;
      case AmpStage::Report: {
        if (failed(emitAmpReport(module, getAmpReportOptions(options), &log)))
          return signalPassFailure();
        break;
      }
      case AmpStage::MaterializeCasts:
        materializeAmpCasts(casts);
        break;
      case AmpStage::Float8Contractions:
        if (failed(runAmpFloat8Contractions(
                module, *options.fp8,
                /*markApplied=*/true, options.explain,
                options.report != ReportFormat::None ? &log : nullptr)))
          return signalPassFailure();
        break;
      case AmpStage::PrecisionGraph: {
        if (failed(emitAmpPrecisionGraph(module,
                                         getAmpPrecisionGraphOptions(options))))
          return signalPassFailure();
        break;
      }
      }
    }
  }
};
} // namespace

std::unique_ptr<Pass>
mlir::amp::createAmpPrecisionPipelinePass(const AmpOptions &options) {
  AmpPrecisionPipelinePassOptions text;
  unbindAmpDecisionOptions(options, text);
  unbindAmpOutputOptions(options, text);
  return createAmpPrecisionPipelinePass(std::move(text));
}
