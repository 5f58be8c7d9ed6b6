//===- ApproximateMath.cpp - the amp-approximate-math pass ----------------===//
//
// Part of amp-mlir. On the CPU, math.erf (GELU's) has no LLVM intrinsic and
// would become a call of libm's scalar erff in each iteration, which keeps
// the loop nest around it from being vectorised. Upstream MLIR's polynomial
// approximation computes it with arithmetic instead (a rational approximation
// on three intervals, clamped outside them), which LLVM vectorises with the
// rest of the loop body.
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
}

namespace {
struct AmpApproximateMathPass
    : public amp::impl::AmpApproximateMathPassBase<AmpApproximateMathPass> {
  using Base::Base;

  void runOnOperation() override {
    // What the approximation does not cover stays a libm call, and says so.
    getOperation()->walk([&](math::ErfOp op) {
      if (!getElementTypeOrSelf(op.getType()).isF32())
        op.emitRemark() << "amp: math.erf on "
                        << getElementTypeOrSelf(op.getType())
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
