//===- Float8ToNVVM.cpp - the amp-float8-to-nvvm pass ---------------------===//
//
// Part of amp-mlir. The saturated f32 -> FP8 roundings of amp.quantize (as
// amp-float8-scaling-to-linalg writes them: maximumf, minimumf, truncf) in GPU
// kernels as one PTX instruction, cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32,
// instead of amp-expand-float8's integer code. Both round to nearest even
// into the subnormals and keep NaN; on a value already clamped to the finite
// range, saturation changes nothing, so the bits are the same.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Float8ToNVVM/Float8ToNVVM.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPFLOAT8TONVVMPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {

/// Whether `value` is the f32 constant `expected`.
bool isConstant(Value value, double expected) {
  FloatAttr attr;
  return matchPattern(value, m_Constant(&attr)) &&
         attr.getValueAsDouble() == expected;
}

/// Whether `value` is `x` clamped to [-largest, largest] by
/// arith.maximumf and arith.minimumf (in either order, either operand
/// order), which keep NaN.
bool isClampedTo(Value value, double largest) {
  auto outer = value.getDefiningOp();
  if (!isa_and_nonnull<arith::MinimumFOp, arith::MaximumFOp>(outer))
    return false;
  bool outerMin = isa<arith::MinimumFOp>(outer);
  auto bound = [&](Operation *op, bool min) -> Value {
    double limit = min ? largest : -largest;
    if (isConstant(op->getOperand(1), limit))
      return op->getOperand(0);
    if (isConstant(op->getOperand(0), limit))
      return op->getOperand(1);
    return {};
  };
  Value inner = bound(outer, outerMin);
  Operation *innerOp = inner ? inner.getDefiningOp() : nullptr;
  if (!innerOp || (outerMin ? !isa<arith::MaximumFOp>(innerOp)
                            : !isa<arith::MinimumFOp>(innerOp)))
    return false;
  return static_cast<bool>(bound(innerOp, !outerMin));
}

struct SaturatedTruncFToCvt : public OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!isa<Float8E4M3FNType, Float8E5M2Type>(type) ||
        !op.getIn().getType().isF32())
      return rewriter.notifyMatchFailure(op, "not a scalar f32 -> FP8");
    // The bounds amp-float8-scaling-to-linalg clamps amp.quantize to.
    double largest = QuantizeOp::getLargestFinite(cast<FloatType>(type));
    if (!isClampedTo(op.getIn(), largest))
      return rewriter.notifyMatchFailure(op, "not clamped to the FP8 range");
    Location loc = op.getLoc();
    // Both halves convert the value; the low byte is the second's.
    Value packed = NVVM::ConvertF32x2ToF8x2Op::create(
        rewriter, loc, rewriter.getI16Type(), op.getIn(), op.getIn(),
        NVVM::FPRoundingMode::RN, NVVM::SaturationMode::SATFINITE,
        /*relu=*/false, type);
    Value low =
        arith::TruncIOp::create(rewriter, loc, rewriter.getI8Type(), packed);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, type, low);
    return success();
  }
};

struct AmpFloat8ToNVVMPass
    : public amp::impl::AmpFloat8ToNVVMPassBase<AmpFloat8ToNVVMPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateAmpFloat8ToNVVMPatterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    // Kernels only: host code has no PTX.
    getOperation()->walk([&](gpu::GPUModuleOp module) {
      if (failed(applyPatternsGreedily(module, frozen)))
        signalPassFailure();
    });
  }
};

} // namespace

void mlir::amp::populateAmpFloat8ToNVVMPatterns(RewritePatternSet &patterns) {
  patterns.add<SaturatedTruncFToCvt>(patterns.getContext());
}
