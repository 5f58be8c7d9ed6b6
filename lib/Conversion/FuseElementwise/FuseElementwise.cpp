//===- FuseElementwise.cpp - the amp-fuse-elementwise pass ----------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPFUSEELEMENTWISEPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {
struct AmpFuseElementwisePass
    : public amp::impl::AmpFuseElementwisePassBase<AmpFuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    // Producer-consumer fusion of elementwise generics only: no reshape
    // propagation, which would turn named matmuls and convolutions (library
    // calls on GPUs) into generics.
    // A generic with a library_call (the unscale of a gradient) is a
    // contract with the runtime: nothing is fused into or out of it.
    auto isLibraryCall = [](Operation *op) {
      auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
      return generic && generic.getLibraryCallAttr();
    };
    linalg::ControlFusionFn control = [&](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      return producer && producer->hasOneUse() && !isLibraryCall(producer) &&
             !isLibraryCall(operand->getOwner());
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::EmptyOp::getCanonicalizationPatterns(patterns, context);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      getOperation()->emitRemark(
          "amp: elementwise fusion did not converge; partial result kept");
  }
};
} // namespace
