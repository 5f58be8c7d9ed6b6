//===- CastElision.cpp - the amp-cast-elision pass ------------------------===//
//
// Part of amp-mlir. Makes the conversions the AMP passes inserted cheap:
// folds what is exact (and, on request, what is not), shares one cast per
// (value, type), hoists loop-invariant casts, moves casts across data
// movement to the smaller side and fuses them into elementwise generics.
// A user's own conversions keep their rounding: only provably exact
// combinations with AMP's casts are simplified.
//
//===----------------------------------------------------------------------===//

#include "ConstantUtils.h"
#include "ReportUtils.h"
#include "amp/Dialect/Amp/IR/AmpInterfaces.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPCASTELISIONPASS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

/// Number of float elements of `type`, or -1 when it is not static.
static int64_t getNumElements(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped)
    return 1;
  return shaped.hasStaticShape() ? shaped.getNumElements() : -1;
}

namespace {
//===----------------------------------------------------------------------===//
// Folding
//===----------------------------------------------------------------------===//

/// cast(cast(x : A to B) : B to A) -> x even when B rounds (opt-in).
struct FoldLossyRoundTrip : public OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<CastOp>();
    if (!inner || inner.getInput().getType() != op.getType())
      return rewriter.notifyMatchFailure(op, "not a round trip");
    rewriter.replaceOp(op, inner.getInput());
    return success();
  }
};

/// amp.cast of a constant -> the converted constant, unless it overflows.
struct FoldConstantCast : public OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    Attribute attr = getFloatConstant(op.getInput());
    if (!attr)
      return rewriter.notifyMatchFailure(op, "not a constant");
    if (isFloat8Source(op.getInput()))
      return rewriter.notifyMatchFailure(op, "kept in f32 for FP8");
    auto element = cast<FloatType>(getElementTypeOrSelf(op.getType()));
    bool overflow = false;
    Attribute converted = convertFloatConstant(attr, element, &overflow);
    if (overflow) {
      op->emitWarning() << "amp: constant does not fit in " << element
                        << " (it would overflow to infinity); the conversion "
                           "stays";
      return failure();
    }
    Value constant = materializeFloatConstantLike(rewriter, op.getInput(),
                                                  converted, op.getType());
    rewriter.replaceOp(op, constant);
    return success();
  }
};

/// A user's narrowing (arith.truncf, tosa.cast) of an exact AMP widening
/// back to the source type is the source.
template <typename OpTy>
struct FoldUserNarrowingOfExactCast : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto widening = op->getOperand(0).template getDefiningOp<CastOp>();
    if (!widening || !widening.isExact() ||
        widening.getInput().getType() != op->getResult(0).getType())
      return rewriter.notifyMatchFailure(op, "not narrowing an exact cast");
    rewriter.replaceOp(op, widening.getInput());
    return success();
  }
};

/// An AMP cast that narrows a user's exact widening (arith.extf, widening
/// tosa.cast) back to the source type is the source.
struct FoldCastOfExactUserWidening : public OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    Operation *def = op.getInput().getDefiningOp();
    if (!isa_and_nonnull<arith::ExtFOp, tosa::CastOp>(def))
      return rewriter.notifyMatchFailure(op, "not a user widening");
    Value source = def->getOperand(0);
    if (source.getType() != op.getType() ||
        !isExactConversion(source.getType(), op.getInput().getType()))
      return rewriter.notifyMatchFailure(op, "not an exact round trip");
    rewriter.replaceOp(op, source);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Motion across data movement
//===----------------------------------------------------------------------===//

/// Gives the operands of a data-movement op as amp.casts before it; an
/// operand that is itself a cast from the wanted type yields its source
/// (conversions commute with data movement, rounding included).
class MotionCaster : public ValueCaster {
public:
  explicit MotionCaster(PatternRewriter &rewriter) : rewriter(rewriter) {}
  Value cast(Value value, Type elementType) override {
    Type target = withFloatElementType(value.getType(), elementType);
    if (target == value.getType() || !isFloatLike(value.getType()))
      return value;
    if (auto castOp = value.getDefiningOp<CastOp>())
      if (castOp.getInput().getType() == target)
        return castOp.getInput();
    if (Value recreated = recreateInType(rewriter, value, target))
      return recreated;
    return CastOp::create(rewriter, value.getLoc(), target, value);
  }

private:
  PatternRewriter &rewriter;
};

/// True for operands that carry no data to convert: constants (converted at
/// compile time), empty tensors and destination-style inits (shapes).
static bool isShapeOrConstant(Operation *op, OpOperand &operand) {
  if (getFloatConstant(operand.get()) ||
      operand.get().getDefiningOp<tensor::EmptyOp>())
    return true;
  auto dps = dyn_cast<DestinationStyleOpInterface>(op);
  return dps && dps.isDpsInit(&operand);
}

/// Float elements `op` reads from its operands that carry data.
static int64_t getNumInputElements(Operation *op) {
  int64_t total = 0;
  for (OpOperand &use : op->getOpOperands()) {
    Value operand = use.get();
    if (!isFloatLike(operand.getType()) || isShapeOrConstant(op, use))
      continue;
    int64_t n = getNumElements(operand.getType());
    if (n < 0)
      return -1;
    total += n;
  }
  return total;
}

static AmpPrecisionOpInterface getDataMovement(Operation *op) {
  auto iface = dyn_cast_or_null<AmpPrecisionOpInterface>(op);
  if (!iface || !iface.isDataMovement() || op->getNumResults() != 1)
    return {};
  return iface;
}

/// cast(D(x)) -> D(cast(x)) when D reads fewer elements than it writes
/// (broadcast, pad, tile, concat of a constant), or as many when that brings
/// the cast next to another conversion or a constant.
struct MoveCastBeforeDataMovement : public OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    Operation *def = op.getInput().getDefiningOp();
    AmpPrecisionOpInterface iface = getDataMovement(def);
    if (!iface || !def->hasOneUse())
      return rewriter.notifyMatchFailure(op, "not after data movement");
    auto element = dyn_cast<FloatType>(getElementTypeOrSelf(op.getType()));
    int64_t in = getNumInputElements(def);
    int64_t out = getNumElements(op.getType());
    if (!element || in < 0 || out < 0 || in > out)
      return rewriter.notifyMatchFailure(op, "not smaller before");
    if (in == out && llvm::none_of(def->getOperands(), [](Value v) {
          return v.getDefiningOp<CastOp>();
        }))
      return rewriter.notifyMatchFailure(op, "nothing gained");
    rewriter.setInsertionPoint(def);
    MotionCaster caster(rewriter);
    if (failed(iface.convertToPrecision(rewriter, element, caster)))
      return rewriter.notifyMatchFailure(op, "cannot convert the op");
    // The converted op (possibly a new one) now feeds the cast directly.
    rewriter.replaceOp(op, op.getInput());
    return success();
  }
};

/// D(cast(x)) -> cast(D(x)) when D writes strictly fewer elements than it
/// reads (slices).
/// Rooted on any op; whether an op is data movement is asked through its
/// AmpPrecisionOpInterface model.
struct MoveCastAfterDataMovement : public RewritePattern {
  explicit MoveCastAfterDataMovement(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    AmpPrecisionOpInterface iface = getDataMovement(op);
    if (!iface)
      return rewriter.notifyMatchFailure(op, "not data movement");
    // Exactly one float operand with data, produced by a cast.
    CastOp producer;
    for (OpOperand &use : op->getOpOperands()) {
      Value operand = use.get();
      if (!isFloatLike(operand.getType()) || isShapeOrConstant(op, use))
        continue;
      auto castOp = operand.getDefiningOp<CastOp>();
      if (!castOp || producer)
        return rewriter.notifyMatchFailure(op, "not a single cast operand");
      producer = castOp;
    }
    Type resultType = op->getResult(0).getType();
    int64_t in = getNumInputElements(op);
    int64_t out = getNumElements(resultType);
    if (!producer || !producer->hasOneUse() || in < 0 || out < 0 || out >= in)
      return rewriter.notifyMatchFailure(op, "not smaller after");
    auto source = dyn_cast<FloatType>(
        getElementTypeOrSelf(producer.getInput().getType()));
    if (!source)
      return failure();
    rewriter.setInsertionPoint(op);
    MotionCaster caster(rewriter);
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : op->getResult(0).getUses())
      uses.push_back(&use);
    if (failed(iface.convertToPrecision(rewriter, source, caster)))
      return rewriter.notifyMatchFailure(op, "cannot convert the op");
    // The (possibly new) op's result now reaches the old users; convert it
    // back for them.
    Value moved = uses.front()->get();
    rewriter.setInsertionPointAfterValue(moved);
    auto castOp = CastOp::create(rewriter, op->getLoc(), resultType, moved);
    for (OpOperand *use : uses)
      rewriter.modifyOpInPlace(use->getOwner(), [&] { use->set(castOp); });
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Fusion into elementwise generics
//===----------------------------------------------------------------------===//

static bool isElementwiseGeneric(linalg::GenericOp op) {
  return op.hasPureTensorSemantics() &&
         op.getNumLoops() == op.getNumParallelLoops() &&
         llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
           return map.isProjectedPermutation();
         });
}

/// generic(cast(x)) -> generic(x) with the conversion on read.
struct FuseCastIntoGenericInput : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!isElementwiseGeneric(op))
      return rewriter.notifyMatchFailure(op, "not elementwise");
    Block &body = op.getRegion().front();
    for (OpOperand *input : op.getDpsInputOperands()) {
      // Only widenings: the generic then reads the narrower tensor. Fusing
      // a narrowing would make it read the wider one, and keep in memory
      // what was decided low.
      auto castOp = input->get().getDefiningOp<CastOp>();
      if (!castOp || !isa<RankedTensorType>(castOp.getType()) ||
          !castOp.isExact())
        continue;
      BlockArgument arg = body.getArgument(input->getOperandNumber());
      Type oldType = arg.getType();
      Type newType = getElementTypeOrSelf(castOp.getInput().getType());
      rewriter.modifyOpInPlace(op, [&] {
        input->set(castOp.getInput());
        arg.setType(newType);
      });
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&body);
      Value converted = convertFloat(rewriter, op.getLoc(), arg, oldType);
      rewriter.replaceAllUsesExcept(arg, converted, converted.getDefiningOp());
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no cast input");
  }
};

/// cast(generic(...)) -> generic(...) with the conversion on write, when the
/// generic's result has no other user and its init is only a shape.
struct FuseCastIntoGenericOutput : public OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    auto result = dyn_cast<OpResult>(op.getInput());
    auto generic = dyn_cast_or_null<linalg::GenericOp>(
        result ? result.getOwner() : nullptr);
    if (!generic || !isElementwiseGeneric(generic) || !result.hasOneUse() ||
        !isa<RankedTensorType>(op.getType()))
      return rewriter.notifyMatchFailure(op, "not an elementwise result");
    // A narrowing makes the generic write the narrower tensor. A widening
    // would make it write the wider one: only worth it for a function's
    // result, which is read in the wider type anyway.
    if (op.isExact() && !isOnlyReturned(op.getResult()))
      return rewriter.notifyMatchFailure(op, "a widening not at the interface");
    unsigned index = result.getResultNumber();
    OpOperand *init = generic.getDpsInitOperand(index);
    BlockArgument initArg = generic.getMatchingBlockArgument(init);
    auto empty = init->get().getDefiningOp<tensor::EmptyOp>();
    if (!empty || !initArg.use_empty())
      return rewriter.notifyMatchFailure(op, "init is not just a shape");
    Type newElement = getElementTypeOrSelf(op.getType());
    rewriter.setInsertionPoint(generic);
    auto newEmpty = tensor::EmptyOp::create(
        rewriter, empty.getLoc(), op.getType(), empty.getDynamicSizes());
    Operation *yield = generic.getRegion().front().getTerminator();
    rewriter.modifyOpInPlace(generic, [&] {
      init->set(newEmpty);
      initArg.setType(newElement);
      result.setType(op.getType());
    });
    rewriter.setInsertionPoint(yield);
    Value converted = convertFloat(rewriter, generic.getLoc(),
                                   yield->getOperand(index), newElement);
    rewriter.modifyOpInPlace(yield,
                             [&] { yield->setOperand(index, converted); });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct AmpCastElisionPass
    : public amp::impl::AmpCastElisionPassBase<AmpCastElisionPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void mlir::amp::populateAmpCastElisionPatterns(RewritePatternSet &patterns,
                                               bool allowExcessPrecision) {
  MLIRContext *context = patterns.getContext();
  patterns.add<FoldConstantCast, FoldCastOfExactUserWidening,
               FoldUserNarrowingOfExactCast<arith::TruncFOp>,
               FoldUserNarrowingOfExactCast<tosa::CastOp>,
               MoveCastBeforeDataMovement, MoveCastAfterDataMovement,
               FuseCastIntoGenericInput, FuseCastIntoGenericOutput>(context);
  if (allowExcessPrecision)
    patterns.add<FoldLossyRoundTrip>(context);
}

/// Folds `casts` (in program order) and erases those left unused; the casts
/// that remain are appended to `remaining` if given.
static void foldCasts(RewriterBase &rewriter, ArrayRef<CastOp> casts,
                      SmallVectorImpl<CastOp> *remaining) {
  SmallVector<CastOp> kept;
  for (CastOp op : casts) {
    SmallVector<OpFoldResult> results;
    auto value = succeeded(op->fold(results)) && results.size() == 1
                     ? dyn_cast<Value>(results.front())
                     : Value();
    if (value && value != op.getResult())
      rewriter.replaceOp(op, value);
    else
      kept.push_back(op);
  }
  // Casts left without users by the folds above (chains: reverse order).
  SmallVector<CastOp> used;
  for (CastOp op : llvm::reverse(kept)) {
    if (op->use_empty())
      rewriter.eraseOp(op);
    else
      used.push_back(op);
  }
  if (remaining)
    remaining->append(used.rbegin(), used.rend());
}

void mlir::amp::foldAmpCasts(RewriterBase &rewriter, Operation *root) {
  SmallVector<CastOp> casts;
  root->walk([&](CastOp op) { casts.push_back(op); });
  foldCasts(rewriter, casts, nullptr);
}

/// Shares `casts` (in program order) per (input, type); the casts kept are
/// appended to `kept` in the same order.
static unsigned shareCasts(RewriterBase &rewriter, ArrayRef<CastOp> casts,
                           SmallVectorImpl<CastOp> &kept) {
  llvm::MapVector<std::pair<Value, Type>, SmallVector<CastOp>> groups;
  for (CastOp op : casts)
    groups[{op.getInput(), op.getType()}].push_back(op);
  unsigned removed = 0;
  for (auto &[key, group] : groups) {
    CastOp first = group.front();
    kept.push_back(first);
    // Right after the value: dominates every use, outside every loop the
    // value is invariant in.
    Value input = key.first;
    if (Operation *anchor = input.getDefiningOp()) {
      if (anchor->getNextNode() != first)
        rewriter.moveOpAfter(first, anchor);
    } else {
      Block *block = cast<BlockArgument>(input).getOwner();
      if (&block->front() != first.getOperation())
        rewriter.moveOpBefore(first, &block->front());
    }
    for (CastOp other : llvm::drop_begin(group)) {
      rewriter.replaceOp(other, first.getResult());
      ++removed;
    }
  }
  return removed;
}

unsigned mlir::amp::shareAmpCasts(RewriterBase &rewriter, Operation *root) {
  SmallVector<CastOp> casts, kept;
  root->walk([&](CastOp op) { casts.push_back(op); });
  return shareCasts(rewriter, casts, kept);
}

void AmpCastElisionPass::runOnOperation() {
  elideAmpCasts(getOperation(), allowExcessPrecision);
}

void mlir::amp::elideAmpCasts(Operation *root, bool allowExcessPrecision,
                              SmallVectorImpl<CastOp> *remaining) {
  MLIRContext *context = root->getContext();
  IRRewriter rewriter(context);

  RewritePatternSet patterns(context);
  populateAmpCastElisionPatterns(patterns, allowExcessPrecision);
  CastOp::getCanonicalizationPatterns(patterns, context);
  FrozenRewritePatternSet frozen(std::move(patterns));

  // One walk before the patterns and one after: walking a large module is
  // what costs here.
  //  * the casts, to share;
  //  * constants and empty tensors in use now: those the rewrites leave
  //    unused are erased afterwards (and so are new ones left unused), while
  //    the user's own dead code stays;
  //  * only the ops the patterns look at (and what they create): the rest
  //    of the module, dead code included, is none of this pass's business.
  SmallVector<CastOp> casts;
  llvm::DenseSet<Operation *> existing, live;
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (auto cast = dyn_cast<CastOp>(op)) {
      casts.push_back(cast);
      ops.push_back(op);
    } else if (isa<arith::ConstantOp, tosa::ConstOp, tensor::EmptyOp>(op)) {
      existing.insert(op);
      if (!op->use_empty())
        live.insert(op);
    } else if (isa<arith::TruncFOp, tosa::CastOp, linalg::GenericOp>(op) ||
               getDataMovement(op)) {
      ops.push_back(op);
    }
  });
  SmallVector<CastOp> shared;
  if (shareCasts(rewriter, casts, shared) != 0) {
    // Drop the casts sharing erased, keeping program order. The erased ones
    // are freed: compare pointers only, never look at the ops.
    llvm::DenseSet<Operation *> kept, cast;
    for (CastOp op : shared)
      kept.insert(op);
    for (CastOp op : casts)
      cast.insert(op);
    llvm::erase_if(ops, [&](Operation *op) {
      return cast.contains(op) && !kept.contains(op);
    });
  }
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  (void)applyOpPatternsGreedily(ops, frozen, config);

  // Motion may have made new duplicates and pairs; dead casts go.
  casts.clear();
  SmallVector<Operation *> producers;
  root->walk([&](Operation *op) {
    if (auto cast = dyn_cast<CastOp>(op))
      casts.push_back(cast);
    else if (isa<arith::ConstantOp, tosa::ConstOp, tensor::EmptyOp>(op) &&
             (live.contains(op) || !existing.contains(op)))
      producers.push_back(op);
  });
  shared.clear();
  shareCasts(rewriter, casts, shared);
  foldCasts(rewriter, shared, remaining);
  for (Operation *op : producers)
    if (op->use_empty())
      rewriter.eraseOp(op);
}
