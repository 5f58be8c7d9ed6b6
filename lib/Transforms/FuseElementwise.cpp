//===- FuseElementwise.cpp - the amp-fuse-elementwise pass ----------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPFUSEELEMENTWISEPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

/// The most ops a shared producer's body may have and still be recomputed
/// by each reader (a GELU is about 15 once fused; a long chain is stored).
static constexpr unsigned kMaxRecomputeBodyOps = 32;

/// Whether `value` is computed from the results of `source`, an op of its
/// block: only the ops after `source` are followed back.
static bool isComputedFrom(Value value, Operation *source) {
  Block *block = source->getBlock();
  SmallVector<Value> worklist = {value};
  DenseSet<Operation *> visited;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val().getDefiningOp();
    if (op == source)
      return true;
    if (!op || op->getBlock() != block || !source->isBeforeInBlock(op) ||
        !visited.insert(op).second)
      continue;
    llvm::append_range(worklist, op->getOperands());
  }
  return false;
}

/// The bits of `value`'s elements (0 for an index or other non-scalar).
static unsigned getBitWidth(Value value) {
  Type type = getElementTypeOrSelf(value.getType());
  return type.isIntOrFloat() ? type.getIntOrFloatBitWidth() : 0;
}

/// The matmul, convolution or pooling whose result `value` is, directly or,
/// where `libraryEpilogues`, narrowed by an elementwise generic that only
/// rounds it (O2's f16 copy of an f32 accumulator, which the library call
/// writes itself); null if none.
static Operation *getContractionRead(Value value, bool libraryEpilogues) {
  if (Operation *contraction = getContractionProducer(value))
    return contraction;
  if (!libraryEpilogues)
    return nullptr;
  auto narrow = value.getDefiningOp<linalg::GenericOp>();
  if (!narrow || narrow.getNumDpsInputs() != 1 ||
      narrow.getNumDpsInits() != 1 || narrow->getNumResults() != 1 ||
      narrow.getNumParallelLoops() != narrow.getNumLoops() ||
      !llvm::all_of(narrow.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return nullptr;
  Block &body = narrow.getRegion().front();
  auto trunc = dyn_cast<arith::TruncFOp>(&body.front());
  if (!trunc || trunc.getIn() != body.getArgument(0) ||
      body.getTerminator()->getOperand(0) != trunc.getResult() ||
      body.getOperations().size() != 2)
    return nullptr;
  return getContractionProducer(narrow.getDpsInputs()[0]);
}

/// Whether `producer` yields, for each element, its input `arg` (maybe
/// widened, the yield maybe rounding it back: exact) or a scalar of its
/// result's type (a constant, or an input read as one value: torch's 0-d
/// tensor), chosen by a select: storing it rounds nothing.
static bool isMaskOf(linalg::GenericOp producer, BlockArgument arg) {
  Block &body = producer.getRegion().front();
  Value value = body.getTerminator()->getOperand(0);
  if (auto trunc = value.getDefiningOp<arith::TruncFOp>())
    value = trunc.getIn();
  auto select = value.getDefiningOp<arith::SelectOp>();
  if (!select || !isa<FloatType>(arg.getType()))
    return false;
  Type type = getElementTypeOrSelf(producer->getResult(0).getType());
  auto exact = [&](Value choice) {
    if (auto ext = choice.getDefiningOp<arith::ExtFOp>())
      choice = ext.getIn();
    if (choice == arg)
      return true;
    auto scalar = dyn_cast<BlockArgument>(choice);
    if (scalar && scalar.getOwner() == &body &&
        scalar.getArgNumber() < producer.getNumDpsInputs())
      return choice.getType() == type &&
             producer.getMatchingIndexingMap(
                         producer.getDpsInputOperand(scalar.getArgNumber()))
                     .getNumResults() == 0;
    return choice.getType() == type && matchPattern(choice, m_Constant());
  };
  return exact(select.getTrueValue()) && exact(select.getFalseValue()) &&
         type == arg.getType();
}

/// Whether `producer`, when it reads the result of a matmul, a convolution
/// or a pooling, is stored once rather than recomputed by its readers. It
/// is when it may be that op's epilogue (what the library call or a fused
/// tile writes, as the narrowing of its result): when none of its other
/// inputs is computed from that result. One that also reads a statistic of
/// the result (batch norm's `x - mean` after a convolution: the mean, read
/// broadcast, needs the whole result first) is no epilogue, and is
/// recomputed where `everyReaderFuses`: then nothing stores it, and each
/// reader reads the result and the statistic instead of a stored copy. One
/// whose other inputs include a full-size value computed from the result
/// (a residual add after a pooling), or that reads a result wider than it
/// stores, stays stored: each reader would read more than the stored copy.
/// With `libraryEpilogues`, a bias add of a result narrowed to 16 bits
/// (getContractionRead) is stored as the contraction's epilogue: after an O2
/// GEMM the library call computes it from the unrounded product (and the
/// ReLU after it can be a training epilogue), where without it the readers
/// would recompute it from the rounded product.
static bool isStoredAfterContraction(linalg::GenericOp producer,
                                     bool everyReaderFuses,
                                     bool libraryEpilogues) {
  bool readsContraction = false;
  for (OpOperand *input : producer.getDpsInputOperands()) {
    Operation *contraction = getContractionRead(input->get(), libraryEpilogues);
    if (!contraction)
      continue;
    // Through the narrowing (libraryEpilogues), only what costs no
    // rounding when stored is: a bias epilogue (its other inputs biases,
    // read along the last loop, the call's own epilogue, computed from the
    // unrounded product), or a mask of the result (a ReLU's gradient: each
    // element the 16-bit value or a constant). Any other op stays
    // recomputed, as it was: stored, it would round what its readers
    // computed in f32.
    if (!getContractionProducer(input->get())) {
      unsigned rank = producer.getNumLoops();
      AffineExpr last = getAffineDimExpr(rank - 1, producer.getContext());
      bool bias =
          rank > 0 && producer.getNumDpsInputs() > 1 &&
          llvm::all_of(producer.getDpsInputOperands(), [&](OpOperand *other) {
            AffineMap map = producer.getMatchingIndexingMap(other);
            return other == input ||
                   (map.getNumResults() == 1 && map.getResult(0) == last &&
                    !isComputedFrom(other->get(), contraction));
          });
      if (bias || isMaskOf(producer, producer.getMatchingBlockArgument(input)))
        return true;
      continue;
    }
    readsContraction = true;
    // Recomputed from a result wider than what it stores (an f32
    // convolution result centred to f16, at O1), each reader would read
    // more bytes than the stored copy's.
    if (getBitWidth(input->get()) > getBitWidth(producer->getResult(0)))
      return true;
    bool statistic = false, fullSize = false;
    for (OpOperand *other : producer.getDpsInputOperands()) {
      if (other == input ||
          getContractionRead(other->get(), libraryEpilogues) == contraction ||
          !isComputedFrom(other->get(), contraction))
        continue;
      (producer.getMatchingIndexingMap(other).isPermutation() ? fullSize
                                                              : statistic) =
          true;
    }
    if (!statistic || fullSize)
      return true;
  }
  return readsContraction && !everyReaderFuses;
}

/// Clones each elementwise generic that several generics read, and that
/// every one of them could fuse, once per extra reader: each reader then
/// fuses its own copy and recomputes it instead of reading it back from
/// memory. Producers are visited from the last to the first, so that a
/// chain of shared producers is cloned back to the stored values it reads.
/// The clones made in a block are bounded by the number of its ops.
static void cloneSharedProducers(Operation *root, unsigned maxUsers,
                                 bool libraryEpilogues) {
  SmallVector<linalg::GenericOp> producers;
  root->walk([&](linalg::GenericOp op) { producers.push_back(op); });
  IRRewriter rewriter(root->getContext());
  DenseMap<Block *, int64_t> budget;
  for (linalg::GenericOp producer : llvm::reverse(producers)) {
    if (producer->getNumResults() != 1 || producer->use_empty() ||
        !producer.hasPureTensorSemantics() ||
        producer.getNumParallelLoops() != producer.getNumLoops() ||
        !producer.getIndexingMapMatchingResult(producer->getResult(0))
             .isPermutation())
      continue;
    Block &body = *producer.getBlock();
    if (body.getOperations().size() > kMaxRecomputeBodyOps)
      continue;
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : producer->getResult(0).getUses())
      uses.push_back(&use);
    if (uses.size() > maxUsers)
      continue;
    auto isFusable = [&](OpOperand *use) {
      auto consumer = dyn_cast<linalg::GenericOp>(use->getOwner());
      return consumer && consumer.hasPureTensorSemantics() &&
             consumer.isDpsInput(use) &&
             consumer.getMatchingIndexingMap(use).getNumResults() ==
                 producer.getNumLoops() &&
             consumer->getBlock() == producer->getBlock();
    };
    // Readers that cannot fuse it (a contraction, a reshape, a return)
    // read the stored, rounded value; each reader that can recomputes it
    // in f32. When every reader can, the first one takes the original.
    SmallVector<OpOperand *> fusable(llvm::make_filter_range(uses, isFusable));
    if (fusable.empty() ||
        isStoredAfterContraction(producer, fusable.size() == uses.size(),
                                 libraryEpilogues))
      continue;
    if (fusable.size() == uses.size())
      fusable.erase(fusable.begin());
    if (fusable.empty())
      continue;
    Block *block = producer->getBlock();
    auto [it, inserted] = budget.try_emplace(block, 0);
    if (inserted)
      it->second = block->getOperations().size();
    int64_t cost = static_cast<int64_t>(fusable.size()) *
                   static_cast<int64_t>(body.getOperations().size());
    if (it->second < cost)
      continue;
    it->second -= cost;
    rewriter.setInsertionPointAfter(producer);
    for (OpOperand *use : fusable) {
      Operation *clone = rewriter.clone(*producer);
      rewriter.modifyOpInPlace(use->getOwner(),
                               [&] { use->set(clone->getResult(0)); });
    }
  }
}

/// Whether `lhs` and `rhs` are fills of the same value into empty tensors
/// of the same type and sizes.
static bool areEqualFills(Value lhs, Value rhs) {
  auto lhsFill = lhs.getDefiningOp<linalg::FillOp>();
  auto rhsFill = rhs.getDefiningOp<linalg::FillOp>();
  if (!lhsFill || !rhsFill || lhs.getType() != rhs.getType() ||
      lhsFill.getInputs() != rhsFill.getInputs())
    return false;
  auto lhsEmpty = lhsFill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
  auto rhsEmpty = rhsFill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
  return lhsEmpty && rhsEmpty &&
         lhsEmpty.getDynamicSizes() == rhsEmpty.getDynamicSizes();
}

/// Replaces each reduction generic by an earlier one of its block that
/// computes the same: the same inputs, body and maps, and inits that are
/// the same values or equal fills. torch's batch norm computes the mean of
/// its input twice (once for the variance): one pass over the activation
/// then reads it. (Not CSE, which would also merge the zero fills of
/// contractions; here only reductions merge, and their own fills die.)
static void mergeEqualReductions(Operation *root) {
  // Candidates by block and first input.
  DenseMap<std::pair<Block *, Value>, SmallVector<linalg::GenericOp>> seen;
  SmallVector<linalg::GenericOp> reductions;
  root->walk([&](linalg::GenericOp op) {
    if (op.hasPureTensorSemantics() && op.getNumReductionLoops() > 0 &&
        op.getNumDpsInputs() > 0)
      reductions.push_back(op);
  });
  IRRewriter rewriter(root->getContext());
  for (linalg::GenericOp op : reductions) {
    auto &earlier = seen[{op->getBlock(), op.getDpsInputs()[0]}];
    auto same = llvm::find_if(earlier, [&](linalg::GenericOp candidate) {
      DenseMap<Value, Value> equivalent;
      return OperationEquivalence::isEquivalentTo(
          candidate, op,
          [&](Value lhs, Value rhs) {
            return success(lhs == rhs || equivalent.lookup(lhs) == rhs ||
                           areEqualFills(lhs, rhs));
          },
          [&](Value lhs, Value rhs) { equivalent[lhs] = rhs; },
          OperationEquivalence::IgnoreLocations);
    });
    if (same == earlier.end()) {
      earlier.push_back(op);
      continue;
    }
    rewriter.replaceOp(op, (*same)->getResults());
  }
}

namespace {
struct AmpFuseElementwisePass
    : public amp::impl::AmpFuseElementwisePassBase<AmpFuseElementwisePass> {
  using Base::Base;
  AmpFuseElementwisePass(RoundingMode mode, bool epilogues) : typedMode(mode) {
    // Only for printing the pass (a reproducer, a dumped pipeline) as it
    // runs: the typed mode is what it reads.
    rounding = stringifyOptionValue(mode).str();
    libraryEpilogues = epilogues;
  }

  /// Set by the typed constructor: wins over `rounding`.
  std::optional<RoundingMode> typedMode;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    FailureOr<RoundingMode> mode =
        typedMode ? FailureOr<RoundingMode>(*typedMode)
                  : resolveRoundingMode(getOperation(), rounding);
    if (failed(mode))
      return signalPassFailure();
    // Named elementwise ops (linalg.add, linalg.exp, ...) as generics, so
    // that they fuse with the casts AMP put around them: an O2 linalg.add
    // of f32 arguments is then one kernel, not two narrowings, the add and
    // a widening. Only ops whose indexing maps are all identities: fills
    // stay (a zero fill before a matmul becomes beta = 0 in a library
    // call), and so do copies, transposes and broadcasts (fused with the
    // narrowing of a matmul's result, a transpose would read the f32
    // accumulator through a permuted map, and the library call could no
    // longer write f16 itself).
    IRRewriter rewriter(context);
    SmallVector<linalg::LinalgOp> named;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::GenericOp, linalg::FillOp, linalg::CopyOp>(op) &&
          linalg::isElementwise(op) && op.hasPureTensorSemantics() &&
          llvm::all_of(op.getIndexingMapsArray(),
                       [](AffineMap map) { return map.isIdentity(); }))
        named.push_back(op);
    });
    for (linalg::LinalgOp op : named) {
      rewriter.setInsertionPoint(op);
      (void)linalg::generalizeNamedOp(rewriter, op);
    }
    // A reshape between two loop nests (torch-mlir's views: a linear's
    // [B*S, N] result expanded to [B, S, N] before the residual add or the
    // GELU) would make the producer store, and round, what the consumer
    // reads. Reshapes are moved out of elementwise chains instead, towards
    // the contractions, as IREE moves them to its dispatch regions' edges:
    // an elementwise producer is computed in its readers' expanded shape,
    // and a reader of a collapsed value in its producer's shape, when that
    // lets the two fuse. Named ops (contractions, library calls) keep their
    // shapes.
    linalg::ControlFusionFn reshapeControl = [](OpOperand *operand) {
      auto fusable = [](Operation *op) {
        auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
        return generic && generic.hasPureTensorSemantics();
      };
      Operation *owner = operand->getOwner();
      Operation *producer = operand->get().getDefiningOp();
      if (isa<tensor::ExpandShapeOp>(owner))
        // The elementwise producer of an expand_shape that only generics
        // read.
        return fusable(producer) &&
               cast<linalg::GenericOp>(producer).getNumParallelLoops() ==
                   cast<linalg::GenericOp>(producer).getNumLoops() &&
               llvm::all_of(owner->getUsers(), fusable);
      // A generic reading a collapse_shape of a generic's result.
      auto collapse = dyn_cast_or_null<tensor::CollapseShapeOp>(producer);
      return fusable(owner) && collapse &&
             fusable(collapse.getSrc().getDefiningOp());
    };
    if (*mode == RoundingMode::Once)
      cloneSharedProducers(getOperation(), maxRecomputeUsers, libraryEpilogues);
    RewritePatternSet patterns(context);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, reshapeControl);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    // Producer-consumer fusion of elementwise generics, and the reshapes
    // above; named matmuls and convolutions (library calls) are never
    // turned into generics.
    linalg::ControlFusionFn control = [&](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      return producer && producer->hasOneUse();
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::EmptyOp::getCanonicalizationPatterns(patterns, context);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      getOperation()->emitRemark(
          "amp: elementwise fusion did not converge; partial result kept");
    mergeEqualReductions(getOperation());
  }
};
} // namespace

std::unique_ptr<Pass>
mlir::amp::createAmpFuseElementwisePass(RoundingMode rounding,
                                        bool libraryEpilogues) {
  return std::make_unique<AmpFuseElementwisePass>(rounding, libraryEpilogues);
}
