//===- MaterializeCasts.cpp - the amp-materialize-casts pass --------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpInterfaces.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPMATERIALIZECASTSPASS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

static bool isTosa(Operation *op) {
  return op && isa_and_nonnull<tosa::TosaDialect>(op->getDialect());
}

/// A cast lives in a TOSA graph when it converts a ranked tensor produced
/// or consumed by TOSA ops.
static bool inTosaGraph(CastOp op) {
  if (!isa<RankedTensorType>(op.getType()))
    return false;
  if (isTosa(op.getInput().getDefiningOp()))
    return true;
  return llvm::any_of(op->getUsers(), isTosa);
}

static Value convertWithTosa(OpBuilder &b, Location loc, Value value,
                             Type type) {
  auto from = cast<FloatType>(getElementTypeOrSelf(value.getType()));
  auto to = cast<FloatType>(getElementTypeOrSelf(type));
  if (from.getWidth() == to.getWidth() && from != to) {
    Type wide = withFloatElementType(type, b.getF32Type());
    value = tosa::CastOp::create(b, loc, wide, value);
  }
  return tosa::CastOp::create(b, loc, type, value);
}

/// Rewrites one amp.cast into upstream ops.
void mlir::amp::materializeCast(RewriterBase &rewriter, CastOp op) {
  rewriter.setInsertionPoint(op);
  Value result =
      inTosaGraph(op)
          ? convertWithTosa(rewriter, op.getLoc(), op.getInput(), op.getType())
          : convertFloat(rewriter, op.getLoc(), op.getInput(), op.getType());
  rewriter.replaceOp(op, result);
}

/// Materializes `op`, or drops it if it is an identity; fails, leaving it,
/// for unranked tensors (no upstream conversion takes them).
static LogicalResult rewriteCast(RewriterBase &rewriter, CastOp op) {
  if (op.getInput().getType() == op.getType()) {
    rewriter.replaceOp(op, op.getInput());
    return success();
  }
  if (isa<UnrankedTensorType>(op.getType()))
    return failure();
  materializeCast(rewriter, op);
  return success();
}

namespace {
struct MaterializeCast : public OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(rewriteCast(rewriter, op)))
      return rewriter.notifyMatchFailure(op, "unranked tensor");
    return success();
  }
};

struct AmpMaterializeCastsPass
    : public amp::impl::AmpMaterializeCastsPassBase<AmpMaterializeCastsPass> {
  using Base::Base;
  void runOnOperation() override { materializeAmpCasts(getOperation()); }
};
} // namespace

void mlir::amp::materializeAmpCasts(Operation *root) {
  SmallVector<CastOp> casts;
  root->walk([&](CastOp op) { casts.push_back(op); });
  materializeAmpCasts(casts);
}

void mlir::amp::materializeAmpCasts(ArrayRef<CastOp> casts) {
  if (casts.empty())
    return;
  IRRewriter rewriter(casts.front()->getContext());
  for (CastOp op : casts)
    if (failed(rewriteCast(rewriter, op)))
      op->emitRemark("amp: left as amp.cast: arith.extf/truncf and "
                     "tosa.cast do not take unranked tensors");
}

void mlir::amp::populateAmpMaterializeCastsPatterns(
    RewritePatternSet &patterns) {
  patterns.add<MaterializeCast>(patterns.getContext());
}
