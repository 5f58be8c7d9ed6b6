//===- AmpToLibraryCalls.cpp - the amp-to-library-calls pass --------------===//
//
// Part of amp-mlir. The amp buffer ops as runtime calls, one family per
// file (AmpToLibraryCalls.h): a partial conversion in which the collectives
// must become calls (an error otherwise) and an unscale or an optimizer
// update becomes one where the call fits, and is left, with a remark, where
// it does not.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/AmpToLibraryCalls/AmpToLibraryCalls.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPTOLIBRARYCALLSPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {
struct AmpToLibraryCallsPass
    : public amp::impl::AmpToLibraryCallsPassBase<AmpToLibraryCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    ConversionTarget target(*context);
    target.addIllegalOp<AllReduceInPlaceOp>();
    // An unscale is a call where the call fits (on device buffers), left
    // for amp-loss-scaling-to-linalg where it does not.
    if (device) {
      getOperation()->walk([&](UnscaleGradientsOp op) {
        if (std::optional<std::string> why = getUnscaleCallMismatch(op))
          op->emitRemark()
              << "amp: unscale_gradients left for "
                 "amp-loss-scaling-to-linalg (one-thread generated "
                 "kernels), not a library call: "
              << *why;
      });
      target.addDynamicallyLegalOp<UnscaleGradientsOp>(
          [](UnscaleGradientsOp op) {
            return getUnscaleCallMismatch(op).has_value();
          });
      // The optimizer's update likewise.
      getOperation()->walk([&](OptimizerUpdateOp op) {
        if (std::optional<std::string> why = getOptimizerCallMismatch(op))
          op->emitRemark() << "amp: optimizer_update left for "
                              "amp-loss-scaling-to-linalg (a generated "
                              "kernel per parameter), not a library call: "
                           << *why;
      });
      target.addDynamicallyLegalOp<OptimizerUpdateOp>([](OptimizerUpdateOp op) {
        return getOptimizerCallMismatch(op).has_value();
      });
    }
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(context);
    populateAmpToLibraryCallsPatterns(patterns, device);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void mlir::amp::populateAmpToLibraryCallsPatterns(RewritePatternSet &patterns,
                                                  bool device) {
  populateAmpCollectivesToLibraryCallsPatterns(patterns, device);
  if (device) {
    populateAmpUnscaleToLibraryCallsPatterns(patterns);
    populateAmpOptimizerToLibraryCallsPatterns(patterns);
  }
}
