//===- ContractionEpilogues.cpp - contractions and their narrowing --------===//
//
// Part of amp-mlir. See amp/Transforms/ContractionEpilogues.h.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/ContractionEpilogues.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/TilingInterface.h"

using namespace mlir;
using namespace mlir::amp;

FloatType mlir::amp::getNarrowedType(linalg::GenericOp consumer,
                                     OpOperand &operand) {
  if (operand.getOwner() != consumer.getOperation() ||
      !consumer.isDpsInput(&operand) ||
      consumer.getNumParallelLoops() != consumer.getNumLoops() ||
      !consumer.getMatchingIndexingMap(&operand).isIdentity())
    return {};
  BlockArgument arg = consumer.getMatchingBlockArgument(&operand);
  auto wide = dyn_cast<FloatType>(arg.getType());
  if (!wide || arg.use_empty())
    return {};
  FloatType narrow;
  for (Operation *user : arg.getUsers()) {
    auto trunc = dyn_cast<arith::TruncFOp>(user);
    if (!trunc)
      return {};
    auto type = dyn_cast<FloatType>(trunc.getType());
    if (!type || !(type.isF16() || type.isBF16()) ||
        type.getWidth() >= wide.getWidth() || (narrow && narrow != type))
      return {};
    // A rounding mode or fast-math flags other than the default would not
    // be what the library's output conversion does.
    if (trunc.getRoundingmodeAttr())
      return {};
    narrow = type;
  }
  return narrow;
}

bool mlir::amp::isContractionWithEpilogue(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumDpsInits() == 1 &&
         (linalg::isaContractionOpInterface(linalgOp) ||
          linalg::isaConvolutionOpInterface(linalgOp));
}

bool mlir::amp::hasEmptyLoop(linalg::LinalgOp op) {
  return llvm::is_contained(op.getStaticLoopRanges(), 0);
}

bool mlir::amp::privatizeAccumulatorFill(RewriterBase &rewriter,
                                         linalg::LinalgOp contraction) {
  if (!(isContractionWithEpilogue(contraction) ||
        isSingleInitReduction(contraction)) ||
      !contraction.hasPureTensorSemantics())
    return false;
  OpOperand *init = contraction.getDpsInitOperand(0);
  auto fill = init->get().getDefiningOp<linalg::FillOp>();
  if (!fill || !fill.hasPureTensorSemantics())
    return false;
  Operation *op = contraction.getOperation();
  if (fill->hasOneUse()) {
    // Already its own: only brought next to the contraction, within a block
    // (its operands dominate it, hence the contraction too), with an empty
    // tensor of its own (--cse merges the empties of one type: bufferized,
    // the accumulator would be the buffer of an earlier op of its type,
    // allocated there, and the GPU's narrowing of it would not apply).
    if (fill->getBlock() != op->getBlock())
      return false;
    bool changed = false;
    if (fill->getNextNode() != op) {
      rewriter.moveOpBefore(fill, op);
      changed = true;
    }
    auto empty = fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
    if (empty && !empty->hasOneUse()) {
      rewriter.setInsertionPoint(fill);
      Value clone = rewriter.clone(*empty)->getResult(0);
      rewriter.modifyOpInPlace(fill,
                               [&] { fill.getOutputsMutable()[0].set(clone); });
      changed = true;
    }
    return changed;
  }
  // The empty tensor it fills is cloned too: the accumulator's buffer is
  // the contraction's alone.
  Value clone = cloneFillBefore(rewriter, fill, op);
  rewriter.modifyOpInPlace(op, [&] { init->set(clone); });
  return true;
}

Value mlir::amp::cloneFillBefore(RewriterBase &rewriter, linalg::FillOp fill,
                                 Operation *before) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(before);
  IRMapping mapping;
  Value dest = fill.getOutputs()[0];
  if (auto empty = dest.getDefiningOp<tensor::EmptyOp>())
    mapping.map(dest, rewriter.clone(*empty)->getResult(0));
  return rewriter.clone(*fill, mapping)->getResult(0);
}

bool mlir::amp::isLowEpilogueRead(linalg::GenericOp consumer,
                                  OpOperand &operand) {
  if (operand.getOwner() != consumer.getOperation() ||
      !consumer.isDpsInput(&operand) ||
      consumer.getNumParallelLoops() != consumer.getNumLoops() ||
      !consumer.getMatchingIndexingMap(&operand).isIdentity())
    return false;
  auto isLow = [](Value value) {
    auto type = dyn_cast<ShapedType>(value.getType());
    return type &&
           (type.getElementType().isF16() || type.getElementType().isBF16());
  };
  if (llvm::any_of(consumer.getDpsInits(), isLow))
    return true;
  // An epilogue that rounds nothing (its result is f32) of a contraction
  // that reads the low type: AMP narrowed the result, and rounding once
  // removed the narrowing inside the fused loop nest.
  auto contraction = operand.get().getDefiningOp<linalg::LinalgOp>();
  return contraction && llvm::any_of(contraction.getDpsInputs(), isLow);
}

bool mlir::amp::isSingleInitReduction(Operation *op) {
  if (!isa<linalg::GenericOp, linalg::ReduceOp>(op))
    return false;
  auto linalgOp = cast<linalg::LinalgOp>(op);
  return linalgOp.getNumDpsInits() == 1 &&
         linalgOp.getNumReductionLoops() != 0 &&
         linalgOp.hasPureTensorSemantics() && !isContractionWithEpilogue(op);
}

bool mlir::amp::isReductionWithEpilogue(Operation *op) {
  if (!isSingleInitReduction(op))
    return false;
  auto type = dyn_cast<ShapedType>(
      cast<linalg::LinalgOp>(op).getDpsInits()[0].getType());
  return type && type.getElementType().isF32();
}

linalg::LinalgOp mlir::amp::getNarrowedContraction(linalg::GenericOp consumer,
                                                   bool allowWideReads) {
  if (!consumer.hasPureTensorSemantics())
    return {};
  for (OpOperand *operand : consumer.getDpsInputOperands()) {
    auto result = dyn_cast<OpResult>(operand->get());
    if (!result || !result.hasOneUse() ||
        !(isContractionWithEpilogue(result.getOwner()) ||
          isReductionWithEpilogue(result.getOwner())) ||
        !(getNarrowedType(consumer, *operand) ||
          (allowWideReads && isLowEpilogueRead(consumer, *operand))))
      continue;
    auto contraction = cast<linalg::LinalgOp>(result.getOwner());
    auto fill = contraction.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
    if (fill && fill.hasPureTensorSemantics() &&
        contraction.hasPureTensorSemantics())
      return contraction;
  }
  return {};
}

FailureOr<scf::SCFTileAndFuseResult> mlir::amp::fuseContractionEpilogue(
    RewriterBase &rewriter, linalg::GenericOp consumer, int64_t tileSize) {
  linalg::LinalgOp contraction =
      getNarrowedContraction(consumer, /*allowWideReads=*/true);
  if (!contraction)
    return rewriter.notifyMatchFailure(
        consumer, "does not only narrow a contraction's fresh accumulator");
  // Upstream's tile-and-fuse crashes on a loop of size 0 (a matmul with
  // K = 0); such a contraction is its init (amp-prepare-contractions).
  if (hasEmptyLoop(contraction) ||
      hasEmptyLoop(cast<linalg::LinalgOp>(consumer.getOperation())))
    return rewriter.notifyMatchFailure(consumer, "has a loop of size 0");
  // The accumulator's fill is fused into the loop and erased: it must be
  // the contraction's own.
  privatizeAccumulatorFill(rewriter, contraction);
  Operation *fill = contraction.getDpsInits()[0].getDefiningOp();
  unsigned numLoops = consumer.getNumLoops();
  SmallVector<OpFoldResult> sizes(numLoops, rewriter.getIndexAttr(1));
  for (unsigned i = numLoops > 2 ? numLoops - 2 : 0; i < numLoops; ++i)
    sizes[i] = rewriter.getIndexAttr(tileSize);

  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(sizes);
  tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  // Only the contraction and its accumulator's fill move into the loop: the
  // producers of its operands (a pad, a transpose) are computed once.
  Operation *contractionOp = contraction.getOperation();
  options.setFusionControlFn(
      [contractionOp, fill](tensor::ExtractSliceOp, OpResult producer, bool)
          -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (producer.getOwner() == contractionOp || producer.getOwner() == fill)
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        return std::nullopt;
      });
  MLIRContext *context = rewriter.getContext();
  RewritePatternSet cleanup(context);
  tensor::ExtractSliceOp::getCanonicalizationPatterns(cleanup, context);
  tensor::populateMergeConsecutiveInsertExtractSlicePatterns(cleanup);
  tensor::populateFoldTensorEmptyPatterns(cleanup);
  options.cleanupPatterns = FrozenRewritePatternSet(std::move(cleanup));

  rewriter.setInsertionPoint(consumer);
  FailureOr<scf::SCFTileAndFuseResult> result =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(consumer.getOperation()), options);
  if (failed(result))
    return failure();
  for (OpResult value : consumer->getResults()) {
    Value replacement = result->replacements.lookup(value);
    if (replacement)
      rewriter.replaceAllUsesWith(value, replacement);
  }
  if (consumer->use_empty())
    rewriter.eraseOp(consumer);
  if (contractionOp->use_empty())
    rewriter.eraseOp(contractionOp);
  if (fill->use_empty())
    rewriter.eraseOp(fill);
  return result;
}
