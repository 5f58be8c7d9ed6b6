//===- NarrowConvolutionResults.cpp - amp-narrow-convolution-results ------===//
//
// Part of amp-mlir. On the GPU, a 2-D convolution (or convolution gradient)
// of f16/bf16 operands with an f32 result computes in its operands' type:
// cuDNN's legacy API accumulates in f32 and rounds once to f16/bf16, and the
// result is widened where it is read. cuDNN's legacy API has no half-in,
// f32-out configuration: the exact f32 result costs two widening passes
// over the operands and an f32 (TF32) convolution.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPNARROWCONVOLUTIONRESULTSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

/// The 2-D convolutions of ampGpuConv2d's forms (ConvCalls.cpp; the GPU
/// call takes no NHWC/FHWC filter), listed once: whether `op` is one, and
/// `op` again with `init` as its init (a named op's body is built for its
/// new types; its discardable attributes go with it).
template <typename... OpTys> struct ConvolutionOps {
  static bool contains(Operation *op) { return isa<OpTys...>(op); }
  static Operation *cloneWithInit(RewriterBase &rewriter, Operation *op,
                                  Value init) {
    Operation *clone = nullptr;
    auto create = [&](auto conv) {
      if (!conv)
        return false;
      clone = decltype(conv)::create(
          rewriter, op->getLoc(), TypeRange{init.getType()},
          conv.getDpsInputs(), ValueRange{init}, conv.getStrides(),
          conv.getDilations(), linalg::getPrunedAttributeList(conv));
      return true;
    };
    (create(dyn_cast<OpTys>(op)) || ...);
    return clone;
  }
};
using GpuCallConvolutions =
    ConvolutionOps<linalg::Conv2DNchwFchwOp, linalg::Conv2DNhwcHwcfOp,
                   linalg::Conv2DNgchwGfchwOp, linalg::DepthwiseConv2DNchwChwOp,
                   linalg::DepthwiseConv2DNhwcHwcOp,
                   linalg::DepthwiseConv2DNhwcHwcmOp>;

/// Those convolutions and the two gradient ops: their lhs, rhs and init,
/// or none.
static std::optional<std::array<Value, 3>>
getConvolutionOperands(Operation *op) {
  if (isa<Conv2DBackwardDataOp, Conv2DBackwardFilterOp>(op))
    return std::array<Value, 3>{op->getOperand(0), op->getOperand(1),
                                op->getOperand(2)};
  if (!GpuCallConvolutions::contains(op))
    return std::nullopt;
  auto linalgOp = cast<linalg::LinalgOp>(op);
  return std::array<Value, 3>{linalgOp.getDpsInputs()[0],
                              linalgOp.getDpsInputs()[1],
                              linalgOp.getDpsInits()[0]};
}

/// `op` again with `init` as its init, of the result type.
static Operation *cloneWithInit(RewriterBase &rewriter, Operation *op,
                                Value init) {
  if (Operation *clone = GpuCallConvolutions::cloneWithInit(rewriter, op, init))
    return clone;
  // The gradient ops have no body: only the init and the type change.
  Operation *clone = rewriter.clone(*op);
  clone->setOperand(2, init);
  clone->getResult(0).setType(init.getType());
  return clone;
}

/// Computes `op` in its operands' 16-bit type when it has one and an f32
/// result into a zero fill; remarks on one that accumulates into another
/// init. Returns whether `op` was replaced.
static bool narrowConvolution(RewriterBase &rewriter, Operation *op) {
  std::optional<std::array<Value, 3>> operands = getConvolutionOperands(op);
  if (!operands || op->getNumResults() != 1)
    return false;
  auto [lhs, rhs, init] = *operands;
  auto initType = dyn_cast<RankedTensorType>(init.getType());
  Type low = getElementTypeOrSelf(lhs.getType());
  if (!initType || !initType.getElementType().isF32() ||
      !isa<Float16Type, BFloat16Type>(low) ||
      getElementTypeOrSelf(rhs.getType()) != low)
    return false;
  if (!isZeroFill(init)) {
    op->emitRemark() << "amp: the f32 result of " << low
                     << " operands is kept: the convolution accumulates "
                        "into an init that is not zero (the GPU's call "
                        "widens the operands to f32)";
    return false;
  }
  Location loc = op->getLoc();
  rewriter.setInsertionPoint(op);
  Value empty = tensor::EmptyOp::create(
      rewriter, loc, tensor::getMixedSizes(rewriter, loc, init), low);
  Value zero = arith::ConstantOp::create(rewriter, loc, low,
                                         rewriter.getFloatAttr(low, 0.0));
  Value fill = linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
  Value narrow = cloneWithInit(rewriter, op, fill)->getResult(0);
  // A narrowing to the operands' type reads the new result itself.
  for (OpOperand &use : llvm::make_early_inc_range(op->getResult(0).getUses()))
    if (auto trunc = dyn_cast<arith::TruncFOp>(use.getOwner());
        trunc && trunc.getType() == narrow.getType() &&
        !trunc.getRoundingmodeAttr())
      rewriter.replaceOp(trunc, narrow);
  if (!op->use_empty()) {
    rewriter.setInsertionPointAfter(op);
    Value wide = arith::ExtFOp::create(rewriter, loc, initType, narrow);
    rewriter.replaceAllUsesWith(op->getResult(0), wide);
  }
  rewriter.eraseOp(op);
  // The f32 fill, unless something else reads it.
  if (auto oldFill = init.getDefiningOp<linalg::FillOp>();
      oldFill && oldFill->use_empty()) {
    Value oldEmpty = oldFill.getOutputs()[0];
    rewriter.eraseOp(oldFill);
    if (Operation *def = oldEmpty.getDefiningOp();
        def && isa<tensor::EmptyOp>(def) && def->use_empty())
      rewriter.eraseOp(def);
  }
  return true;
}

namespace {
struct AmpNarrowConvolutionResultsPass
    : public amp::impl::AmpNarrowConvolutionResultsPassBase<
          AmpNarrowConvolutionResultsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> convolutions;
    getOperation()->walk([&](Operation *op) {
      if (getConvolutionOperands(op))
        convolutions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    bool changed = false;
    for (Operation *op : convolutions)
      changed |= narrowConvolution(rewriter, op);
    if (!changed)
      markAllAnalysesPreserved();
  }
};
} // namespace
