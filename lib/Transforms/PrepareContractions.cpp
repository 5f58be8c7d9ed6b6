//===- PrepareContractions.cpp - amp-prepare-contractions -----------------===//
//
// Part of amp-mlir. Both lowerings match a contraction together with the
// fill of its f32 accumulator. After --cse one zero fill often feeds several
// contractions (and reductions): each gets its own here, right before it. A contraction with
// an empty loop computes nothing: it is replaced by its accumulator. A
// matmul operand that is a transpose of its two innermost dimensions
// (torch-mlir's linear: x times the transposed weight) is read through the
// matmul's indexing map instead, so no transpose runs per call.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/Transforms/ContractionEpilogues.h"
#include "amp/Transforms/Passes.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPPREPARECONTRACTIONSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

/// Reads each operand of `op` (a linalg.matmul or linalg.batch_matmul) that
/// is an inner transpose through the op's indexing map instead: the map's
/// two innermost results swap. Returns whether anything changed.
static bool foldTransposedOperands(RewriterBase &rewriter,
                                   linalg::LinalgOp op) {
  if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
      !op.hasPureTensorSemantics())
    return false;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  bool changed = false;
  for (unsigned i = 0; i < 2; ++i) {
    OpOperand *operand = op.getDpsInputOperand(i);
    // FP8 operands keep the layout amp-float8-contractions chose (B stored
    // n x k, cuBLASLt's TN): their transposes copy bytes, not words.
    if (isa<Float8E4M3FNType, Float8E5M2Type>(
            getElementTypeOrSelf(operand->get().getType())))
      continue;
    Value input = getInnerTransposeInput(operand->get());
    AffineMap map = maps[i];
    if (!input || map.getNumResults() < 2)
      continue;
    SmallVector<AffineExpr> results(map.getResults());
    std::swap(results[results.size() - 2], results[results.size() - 1]);
    maps[i] = AffineMap::get(map.getNumDims(), map.getNumSymbols(), results,
                             op.getContext());
    rewriter.modifyOpInPlace(op, [&] { operand->set(input); });
    changed = true;
  }
  if (!changed)
    return false;
  ArrayAttr attr = rewriter.getAffineMapArrayAttr(maps);
  rewriter.modifyOpInPlace(op, [&] {
    if (auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation()))
      matmul.setIndexingMapsAttr(attr);
    else
      cast<linalg::BatchMatmulOp>(op.getOperation()).setIndexingMapsAttr(attr);
  });
  return true;
}

/// Gives the zero padding of convolution `op`'s input (its input inserted
/// into a zero fill that other ops share, as --cse leaves torch-mlir's
/// padding of the backward's gradients) a fill of its own, right before
/// the insertion: bufferized, the padded buffer is then filled in place
/// instead of copied from the shared one, and the library calls read the
/// unpadded source with their own padding. Returns whether it changed.
static bool privatizePaddingFill(RewriterBase &rewriter, linalg::LinalgOp op) {
  if (!linalg::isaConvolutionOpInterface(op) || !op.hasPureTensorSemantics())
    return false;
  auto insert =
      op.getDpsInputOperand(0)->get().getDefiningOp<tensor::InsertSliceOp>();
  if (!insert)
    return false;
  auto fill = insert.getDest().getDefiningOp<linalg::FillOp>();
  if (!fill || !fill.hasPureTensorSemantics() || fill->hasOneUse())
    return false;
  Value clone = cloneFillBefore(rewriter, fill, insert);
  rewriter.modifyOpInPlace(insert, [&] { insert.getDestMutable().set(clone); });
  return true;
}

namespace {
struct AmpPrepareContractionsPass
    : public amp::impl::AmpPrepareContractionsPassBase<
          AmpPrepareContractionsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> contractions, reductions;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (isContractionWithEpilogue(op) && op.hasPureTensorSemantics())
        contractions.push_back(op);
      else if (isSingleInitReduction(op))
        reductions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    bool changed = false;
    // A reduction's accumulator too: bufferized, a shared fill is copied
    // into each reduction's buffer (a kernel per reduction on the GPU:
    // batch norm's sums share one zero fill per channel count, attention's
    // row maxima one -inf fill per model).
    for (linalg::LinalgOp reduction : reductions)
      changed |= privatizeAccumulatorFill(rewriter, reduction);
    for (linalg::LinalgOp contraction : contractions) {
      if (hasEmptyLoop(contraction)) {
        // Nothing to accumulate: the result is the init (the fill).
        rewriter.replaceOp(contraction, contraction.getDpsInits());
        changed = true;
        continue;
      }
      // The last user of a shared fill finds it with one use left: it takes
      // the original, so nothing is left dead.
      changed |= privatizeAccumulatorFill(rewriter, contraction);
      changed |= privatizePaddingFill(rewriter, contraction);
      changed |= foldTransposedOperands(rewriter, contraction);
    }
    // Transposes no contraction reads any more.
    if (changed)
      getOperation()->walk([&](linalg::TransposeOp op) {
        if (op->use_empty() && op.hasPureTensorSemantics())
          rewriter.eraseOp(op);
      });
    if (!changed)
      markAllAnalysesPreserved();
  }
};
} // namespace
