//===- SplitReductions.cpp - the amp-split-reductions pass ----------------===//
//
// Part of amp-mlir. Reductions along a contiguous innermost dimension (the
// max and sum of a softmax, a norm's moments) as `ratio` lanes of f32
// accumulators, so that the loops LLVM gets are vectorisable without
// reordering any sum: upstream's linalg::splitReduction does the split; a
// 16-bit accumulator is made f32 first (rounded once after the loop nest).
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPSPLITREDUCTIONSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

/// Whether every indexing map of `op` only selects loop dimensions (no
/// constants), which is what linalg::splitReduction handles.
static bool hasOnlyDimensions(linalg::GenericOp op) {
  return llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
    return map.isProjectedPermutation(/*allowZeroInResults=*/false);
  });
}

/// Whether `op` is a reduction this pass splits by `ratio`, its 16-bit
/// accumulator aside: tensors, static sizes, one result, one reduction
/// dimension that is the innermost loop and the innermost dimension of
/// every input that reads along it, of a size that is a multiple of `ratio`
/// and at least twice it, and no linalg.index (the split renumbers the
/// iterations).
/// With `dimsOnly` false, maps may still index unit dimensions by a
/// constant 0 (dropped before the split).
static bool isSplittable(linalg::GenericOp op, int64_t ratio, bool dimsOnly) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 1 || op.hasIndexSemantics() ||
      (dimsOnly && !hasOnlyDimensions(op)))
    return false;
  SmallVector<unsigned> dims;
  op.getReductionDims(dims);
  unsigned reduction = dims.front();
  if (reduction + 1 != op.getNumLoops())
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return false;
  int64_t size = ranges[reduction];
  if (size % ratio != 0 || size < 2 * ratio)
    return false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    for (unsigned i = 0; i < map.getNumResults(); ++i) {
      auto dim = dyn_cast<AffineDimExpr>(map.getResult(i));
      if (dim && dim.getPosition() == reduction && i + 1 != map.getNumResults())
        return false;
    }
  }
  return true;
}

/// The f32 value a reduction into f16/bf16 accumulates, where its body is
/// `extf(acc) -> f32 combine -> truncf -> yield` with the extension the
/// accumulator's only use and one two-operand op combining it; else null.
static Value getWideCombined(linalg::GenericOp op) {
  BlockArgument acc = op.getRegionOutputArgs().front();
  auto low = dyn_cast<FloatType>(acc.getType());
  if (!low || !(low.isF16() || low.isBF16()) || !acc.hasOneUse())
    return {};
  auto ext = dyn_cast<arith::ExtFOp>(*acc.getUsers().begin());
  if (!ext || !ext.getType().isF32())
    return {};
  auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
  auto trunc = yield.getOperand(0).getDefiningOp<arith::TruncFOp>();
  if (!trunc || !trunc.getIn().getType().isF32() || !trunc->hasOneUse())
    return {};
  // One op combines the element with the extended accumulator.
  Operation *combiner = trunc.getIn().getDefiningOp();
  if (!combiner || combiner->getNumOperands() != 2 ||
      !llvm::is_contained(combiner->getOperands(), ext.getResult()))
    return {};
  return trunc.getIn();
}

/// `op` (a reduction getWideCombined accepts) accumulating in f32 from the
/// extension of its init, and its result rounded once afterwards by an
/// elementwise generic: the generic that accumulates.
static linalg::GenericOp
widenAccumulator(RewriterBase &rewriter, linalg::GenericOp op, Value combined) {
  Location loc = op.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Value init = op.getDpsInits().front();
  auto lowType = cast<RankedTensorType>(init.getType());
  auto wideType = lowType.clone(rewriter.getF32Type());
  Type lowElement = lowType.getElementType();
  auto identity = [&](unsigned rank) {
    return rewriter.getMultiDimIdentityMap(rank);
  };
  SmallVector<utils::IteratorType> parallel(lowType.getRank(),
                                            utils::IteratorType::parallel);
  // The f32 init: a fill of the extended constant, or the extension.
  Value wideInit;
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    Value value = fill.getInputs().front();
    if (value.getType() == lowElement)
      value =
          arith::ExtFOp::create(rewriter, loc, rewriter.getF32Type(), value);
    Value empty = tensor::EmptyOp::create(rewriter, loc, wideType.getShape(),
                                          rewriter.getF32Type());
    wideInit = linalg::FillOp::create(rewriter, loc, value, empty).result();
  } else {
    Value empty = tensor::EmptyOp::create(rewriter, loc, wideType.getShape(),
                                          rewriter.getF32Type());
    wideInit = linalg::GenericOp::create(
                   rewriter, loc, wideType, init, empty,
                   ArrayRef<AffineMap>{identity(lowType.getRank()),
                                       identity(lowType.getRank())},
                   parallel,
                   [&](OpBuilder &b, Location nested, ValueRange args) {
                     Value wide = arith::ExtFOp::create(
                         b, nested, b.getF32Type(), args[0]);
                     linalg::YieldOp::create(b, nested, wide);
                   })
                   .getResult(0);
  }
  // The same reduction with an f32 accumulator: the extension of the
  // accumulator is the f32 argument, and the combined value is yielded
  // before its rounding.
  auto wide = linalg::GenericOp::create(
      rewriter, loc, wideType, op.getDpsInputs(), wideInit,
      op.getIndexingMapsArray(), op.getIteratorTypesArray());
  Block *body = rewriter.createBlock(&wide.getRegion());
  IRMapping mapping;
  Block *old = op.getBody();
  for (BlockArgument arg : old->getArguments().drop_back())
    mapping.map(arg, body->addArgument(arg.getType(), loc));
  BlockArgument wideAcc = body->addArgument(rewriter.getF32Type(), loc);
  auto ext =
      cast<arith::ExtFOp>(*old->getArguments().back().getUsers().begin());
  mapping.map(ext.getResult(), wideAcc);
  rewriter.setInsertionPointToStart(body);
  Operation *trunc =
      cast<linalg::YieldOp>(old->getTerminator()).getOperand(0).getDefiningOp();
  for (Operation &nested : old->without_terminator())
    if (&nested != ext.getOperation() && &nested != trunc)
      rewriter.clone(nested, mapping);
  linalg::YieldOp::create(rewriter, loc, mapping.lookup(combined));
  // Rounded once, where it is stored.
  rewriter.setInsertionPointAfter(wide);
  auto rounded = linalg::GenericOp::create(
      rewriter, loc, lowType, wide.getResult(0), init,
      ArrayRef<AffineMap>{identity(lowType.getRank()),
                          identity(lowType.getRank())},
      parallel, [&](OpBuilder &b, Location nested, ValueRange args) {
        Value narrow = arith::TruncFOp::create(b, nested, lowElement, args[0]);
        linalg::YieldOp::create(b, nested, narrow);
      });
  rewriter.replaceOp(op, rounded.getResults());
  return wide;
}

namespace {
struct AmpSplitReductionsPass
    : public amp::impl::AmpSplitReductionsPassBase<AmpSplitReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (ratio < 0) {
      getOperation()->emitError()
          << "amp-split-reductions: ratio must be 0 (off) or more, got "
          << static_cast<int64_t>(ratio);
      return signalPassFailure();
    }
    if (ratio <= 1)
      return;
    SmallVector<linalg::GenericOp> candidates;
    getOperation().walk([&](linalg::GenericOp op) {
      if (isSplittable(op, ratio, /*dimsOnly=*/false))
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : candidates) {
      // Unit dimensions indexed by a constant 0 (a keepdim result, a
      // broadcast mask) dropped first: the split needs dimensions only.
      if (!hasOnlyDimensions(op)) {
        rewriter.setInsertionPoint(op);
        FailureOr<linalg::DropUnitDimsResult> dropped =
            linalg::dropUnitDims(rewriter, op, linalg::ControlDropUnitDims());
        if (failed(dropped))
          continue;
        auto generic =
            dyn_cast<linalg::GenericOp>(dropped->resultOp.getOperation());
        if (!generic)
          continue;
        rewriter.replaceOp(op, dropped->replacements);
        op = generic;
      }
      if (!isSplittable(op, ratio, /*dimsOnly=*/true))
        continue;
      // Only a combiner upstream knows (one op, with a neutral element) is
      // split; check on the f32 form before changing anything.
      Value combined = getWideCombined(op);
      Operation *combiner = nullptr;
      if (combined) {
        combiner = combined.getDefiningOp();
      } else {
        SmallVector<Operation *> combiners;
        if (!matchReduction(op.getRegionOutputArgs(), 0, combiners) ||
            combiners.size() != 1)
          continue;
        combiner = combiners.front();
      }
      if (!arith::getNeutralElement(combiner))
        continue;
      linalg::GenericOp reduction = op;
      if (combined)
        reduction = widenAccumulator(rewriter, op, combined);
      int64_t outputRank =
          cast<RankedTensorType>(reduction.getResultTypes().front()).getRank();
      auto control = [&](linalg::LinalgOp) {
        linalg::SplitReductionOptions options;
        options.ratio = ratio;
        options.index = static_cast<unsigned>(outputRank);
        options.innerParallel = true;
        return options;
      };
      rewriter.setInsertionPoint(reduction);
      (void)linalg::splitReduction(rewriter, reduction, control);
    }
  }
};
} // namespace
