//===- FuseElementwise.cpp - the amp-fuse-elementwise pass ----------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
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
    // Named elementwise ops (linalg.add, linalg.exp, ...) as generics, so
    // that they fuse with the casts AMP put around them: an O2 linalg.add
    // of f32 arguments is then one kernel, not two narrowings, the add and
    // a widening. Only ops whose indexing maps are all identities: fills
    // stay (a zero fill before a matmul becomes beta = 0 in a library
    // call), and so do copies, transposes and broadcasts (fused with the
    // narrowing of a matmul's result, a transpose would read the f32
    // accumulator through a permuted map, and the library call could no
    // longer write f16 itself).
    IRRewriter rewriter(context);
    SmallVector<linalg::LinalgOp> named;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::GenericOp, linalg::FillOp, linalg::CopyOp>(op) &&
          linalg::isElementwise(op) && op.hasPureTensorSemantics() &&
          llvm::all_of(op.getIndexingMapsArray(),
                       [](AffineMap map) { return map.isIdentity(); }))
        named.push_back(op);
    });
    for (linalg::LinalgOp op : named) {
      rewriter.setInsertionPoint(op);
      (void)linalg::generalizeNamedOp(rewriter, op);
    }
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
