//===- PrecisionPipeline.cpp - the amp-precision-pipeline pass ------------===//
//
// Part of amp-mlir. The stages of --amp-o1/--amp-o2 in one pass: the pass
// manager verifies the module once after them instead of after each.
//
//===----------------------------------------------------------------------===//

#include "DecisionOptions.h"
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

namespace {
struct AmpPrecisionPipelinePass
    : public amp::impl::AmpPrecisionPipelinePassBase<AmpPrecisionPipelinePass> {
  using Base::Base;
  template <typename Dst, typename Src>
  friend void mlir::amp::copyDecisionOptions(const Src &src, Dst &dst);

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (report != "none" && report != "text" && report != "json") {
      mlir::emitError(module.getLoc(), "amp: report must be none, text or "
                                       "json, got '")
          << report << "'";
      return signalPassFailure();
    }
    AmpAutoMixedPrecisionPassOptions amp;
    amp.level = level;
    copyDecisionOptions(*this, amp);
    // The policy and the ops outside guards, for the report's ideal (guards
    // are gone by then), and the decisions, for its JSON.
    AmpDecisionLog log;
    if (failed(runAmpAutoMixedPrecision(module, amp, /*changed=*/nullptr,
                                        report != "none" ? &log : nullptr)))
      return signalPassFailure();
    inlineAmpGuards(module);
    SmallVector<CastOp> casts;
    elideAmpCasts(module, /*allowExcessPrecision=*/false, &casts);
    if (report != "none") {
      AmpReportPassOptions options;
      options.format = report;
      options.output = reportFile;
      options.title = level == "O1" || level == "o1" ? "amp-o1" : "amp-o2";
      if (failed(emitAmpReport(module, options, &log)))
        return signalPassFailure();
    }
    if (!keepAmpCasts)
      materializeAmpCasts(casts);
    if (!graphFile.empty()) {
      AmpPrecisionGraphPassOptions options;
      options.output = graphFile;
      options.title = level == "O1" || level == "o1" ? "amp-o1" : "amp-o2";
      if (failed(emitAmpPrecisionGraph(module, options)))
        return signalPassFailure();
    }
  }
};
} // namespace
