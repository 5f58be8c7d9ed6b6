//===- ApproximateMath.cpp - the amp-approximate-math pass ----------------===//
//
// Part of amp-mlir. On the CPU, math.erf and math.tanh (the two forms of
// GELU) have no LLVM intrinsic and would become calls of libm's scalar erff
// and tanhf in each iteration, which keeps the loop nest around them from
// being vectorised. Upstream MLIR's polynomial approximations compute them
// with arithmetic instead, which LLVM vectorises with the rest of the loop
// body.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPAPPROXIMATEMATHPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

void mlir::amp::populateAmpApproximateMathPatterns(
    RewritePatternSet &patterns) {
  mlir::populatePolynomialApproximateErfPattern(patterns);
  mlir::populatePolynomialApproximateTanhPattern(patterns);
  // exp (a softmax's, a sigmoid's): a libm call of expf per element, which
  // keeps a split reduction's lanes (amp-split-reductions) scalar.
  mlir::populateMathPolynomialApproximationPatterns(
      patterns, [](StringRef name) {
        return name == math::ExpOp::getOperationName() || name == "exp";
      });
}

namespace {
struct AmpApproximateMathPass
    : public amp::impl::AmpApproximateMathPassBase<AmpApproximateMathPass> {
  using Base::Base;

  void runOnOperation() override {
    // What the approximation does not cover stays a libm call, and says so.
    getOperation()->walk([&](Operation *op) {
      if (!isa<math::ErfOp, math::TanhOp, math::ExpOp>(op))
        return;
      Type type = getElementTypeOrSelf(op->getResult(0).getType());
      if (!type.isF32())
        op->emitRemark() << "amp: " << op->getName() << " on " << type
                         << " is left to libm (the approximation is of f32)";
    });
    RewritePatternSet patterns(&getContext());
    populateAmpApproximateMathPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      getOperation()->emitRemark(
          "amp: math approximation did not converge; partial result kept");
  }
};
} // namespace
