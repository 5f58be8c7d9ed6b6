//===- InlineGuards.cpp - the amp-inline-guards pass ----------------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPINLINEGUARDSPASS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {
/// Moves the body of a guard in front of it and forwards the yielded values.
struct InlineFp16Guard : public OpRewritePattern<Fp16GuardOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Fp16GuardOp op,
                                PatternRewriter &rewriter) const override {
    inlineFp16Guard(rewriter, op);
    return success();
  }
};

struct AmpInlineGuardsPass
    : public amp::impl::AmpInlineGuardsPassBase<AmpInlineGuardsPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void mlir::amp::inlineFp16Guard(RewriterBase &rewriter, Fp16GuardOp op) {
  YieldOp yield = op.getYield();
  SmallVector<Value> yielded(yield.getOperands());
  rewriter.eraseOp(yield);
  rewriter.inlineBlockBefore(&op.getBodyBlock(), op);
  rewriter.replaceOp(op, yielded);
}

void mlir::amp::populateAmpInlineGuardsPatterns(RewritePatternSet &patterns) {
  patterns.add<InlineFp16Guard>(patterns.getContext());
}

bool mlir::amp::inlineAmpGuards(Operation *root) {
  // Post-order: inner guards are inlined into their parent guard's body
  // before that one is inlined in turn. Unreachable blocks are included.
  SmallVector<Fp16GuardOp> guards;
  root->walk([&](Fp16GuardOp op) { guards.push_back(op); });
  if (guards.empty())
    return false;
  IRRewriter rewriter(root->getContext());
  for (Fp16GuardOp guard : guards) {
    rewriter.setInsertionPoint(guard);
    inlineFp16Guard(rewriter, guard);
  }
  // A guard's boundary may have needed a conversion that its user undoes
  // (f16 -> f32 at the yield, f32 -> f16 after it): now adjacent, such
  // exact round trips fold.
  foldAmpCasts(rewriter, root);
  return true;
}

void AmpInlineGuardsPass::runOnOperation() {
  unsigned before = 0;
  getOperation()->walk([&](Fp16GuardOp) { ++before; });
  if (!inlineAmpGuards(getOperation()))
    return markAllAnalysesPreserved();
  numGuardsInlined += before;
}
