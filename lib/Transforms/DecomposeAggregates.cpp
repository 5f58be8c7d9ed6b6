//===- DecomposeAggregates.cpp - the amp-decompose-aggregates pass --------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPDECOMPOSEAGGREGATESPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {
struct DecomposeAggregate
    : public OpInterfaceRewritePattern<linalg::AggregatedOpInterface> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::AggregatedOpInterface op,
                                PatternRewriter &rewriter) const override {
    // A softmax in f16/bf16 sums its exponentials: decompose it in f32 (the
    // conversions fuse into the generics), so the sum accumulates in f32.
    if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op.getOperation())) {
      auto type = dyn_cast<RankedTensorType>(softmax.getOutput().getType());
      auto element =
          type ? dyn_cast<FloatType>(type.getElementType()) : FloatType();
      if (element && element.getWidth() < 32 &&
          softmax.getInput().getType() == type) {
        Location loc = softmax.getLoc();
        auto wide = type.clone(rewriter.getF32Type());
        Value input =
            arith::ExtFOp::create(rewriter, loc, wide, softmax.getInput());
        SmallVector<OpFoldResult> sizes =
            tensor::getMixedSizes(rewriter, loc, softmax.getOutput());
        Value init = tensor::EmptyOp::create(rewriter, loc, sizes,
                                             rewriter.getF32Type());
        auto wideSoftmax = linalg::SoftmaxOp::create(
            rewriter, loc, wide, input, init, softmax.getDimension());
        FailureOr<SmallVector<Value>> results =
            wideSoftmax.decomposeOperation(rewriter);
        if (failed(results))
          return rewriter.notifyMatchFailure(op, "decomposition failed");
        rewriter.eraseOp(wideSoftmax);
        rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, type,
                                                     results->front());
        return success();
      }
    }
    FailureOr<SmallVector<Value>> results = op.decomposeOperation(rewriter);
    if (failed(results))
      return rewriter.notifyMatchFailure(op, "decomposition failed");
    rewriter.replaceOp(op, *results);
    return success();
  }
};

struct AmpDecomposeAggregatesPass
    : public amp::impl::AmpDecomposeAggregatesPassBase<
          AmpDecomposeAggregatesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateAmpDecomposeAggregatesPatterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    SmallVector<Operation *> ops;
    getOperation()->walk(
        [&](linalg::AggregatedOpInterface op) { ops.push_back(op); });
    if (ops.empty())
      return markAllAnalysesPreserved();
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    (void)applyOpPatternsGreedily(ops, frozen, config);
    getOperation()->walk([&](linalg::AggregatedOpInterface op) {
      op->emitRemark("amp: left as is: its decomposition failed (for "
                     "example buffer semantics)");
    });
  }
};
} // namespace

void mlir::amp::populateAmpDecomposeAggregatesPatterns(
    RewritePatternSet &patterns) {
  patterns.add<DecomposeAggregate>(patterns.getContext());
}
