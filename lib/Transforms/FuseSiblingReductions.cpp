//===- FuseSiblingReductions.cpp - the amp-fuse-sibling-reductions pass ---===//
//
// Part of amp-mlir. Merges reductions that read the same tensor over the
// same loops into one generic of several results (horizontal fusion), so
// that the GPU lowering reads that tensor once for all of them.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPFUSESIBLINGREDUCTIONSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

/// Whether `op` is a reduction this pass merges: a generic on tensors with
/// a reduced loop, whose results all have the same indexing map.
static bool isCandidate(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumReductionLoops() == 0 ||
      op.getNumDpsInputs() == 0)
    return false;
  AffineMap first = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  return llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
    return op.getMatchingIndexingMap(&init) == first;
  });
}

/// Whether `lhs` and `rhs` run the same loops: the same iterators, the same
/// results' map, and an input they both read through the same permutation
/// (the loops' sizes are that tensor's, the same in both).
static bool haveSameLoops(linalg::GenericOp lhs, linalg::GenericOp rhs) {
  if (lhs.getIteratorTypesArray() != rhs.getIteratorTypesArray() ||
      lhs.getMatchingIndexingMap(lhs.getDpsInitOperand(0)) !=
          rhs.getMatchingIndexingMap(rhs.getDpsInitOperand(0)))
    return false;
  for (OpOperand *lhsInput : lhs.getDpsInputOperands()) {
    AffineMap map = lhs.getMatchingIndexingMap(lhsInput);
    if (!map.isPermutation())
      continue;
    for (OpOperand *rhsInput : rhs.getDpsInputOperands())
      if (rhsInput->get() == lhsInput->get() &&
          rhs.getMatchingIndexingMap(rhsInput) == map)
        return true;
  }
  return false;
}

/// Whether `later` can be computed together with `earlier`, at `later`'s
/// place: `later` reads nothing computed from `earlier`'s results, and what
/// does between them is a view of them (a reshape of the first sum: pure,
/// no region, no destination), which can move after `later`. Those ops, in
/// order, are `moved`. A computation on them between the two (the rest of
/// a branch's backward) stays where it is, and so do the two reductions:
/// moving it would separate ops from their fills (a convolution's zero
/// fill, which the library call reads as beta = 0).
static bool canMergeAt(linalg::GenericOp earlier, linalg::GenericOp later,
                       SmallVectorImpl<Operation *> &moved) {
  llvm::SmallPtrSet<Operation *, 8> dependent = {earlier.getOperation()};
  auto readsDependent = [&](Operation *op) {
    WalkResult result = op->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (dependent.contains(operand.getDefiningOp()))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return result.wasInterrupted();
  };
  moved.clear();
  for (Operation *op = earlier->getNextNode(); op != later;
       op = op->getNextNode()) {
    if (!readsDependent(op))
      continue;
    if (!isPure(op) || op->getNumRegions() != 0 ||
        isa<DestinationStyleOpInterface>(op))
      return false;
    dependent.insert(op);
    moved.push_back(op);
  }
  return !readsDependent(later);
}

/// One generic computing both `earlier` and `later` (see haveSameLoops and
/// canMergeAt), at `later`'s place: the inputs of both (each tensor and map
/// once), the results of `earlier` then those of `later`.
static linalg::GenericOp merge(RewriterBase &rewriter,
                               linalg::GenericOp earlier,
                               linalg::GenericOp later) {
  SmallVector<Value> inputs, inits;
  SmallVector<AffineMap> maps, initMaps;
  // Each original block argument's index among the merged op's inputs.
  auto addInputs = [&](linalg::GenericOp op) {
    SmallVector<unsigned> positions;
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      unsigned position = 0;
      while (position < inputs.size() &&
             !(inputs[position] == input->get() && maps[position] == map))
        ++position;
      if (position == inputs.size()) {
        inputs.push_back(input->get());
        maps.push_back(map);
      }
      positions.push_back(position);
    }
    return positions;
  };
  SmallVector<unsigned> earlierInputs = addInputs(earlier);
  SmallVector<unsigned> laterInputs = addInputs(later);
  for (linalg::GenericOp op : {earlier, later})
    for (OpOperand &init : op.getDpsInitsMutable()) {
      inits.push_back(init.get());
      initMaps.push_back(op.getMatchingIndexingMap(&init));
    }
  maps.append(initMaps);
  rewriter.setInsertionPoint(later);
  auto merged = linalg::GenericOp::create(
      rewriter, later.getLoc(), TypeRange(inits), inputs, inits, maps,
      later.getIteratorTypesArray(),
      [&](OpBuilder &b, Location loc, ValueRange arguments) {
        SmallVector<Value> yielded;
        unsigned initBase = inputs.size();
        auto cloneBody = [&](linalg::GenericOp op,
                             ArrayRef<unsigned> positions) {
          IRMapping mapping;
          Block *body = op.getBlock();
          for (auto [argument, position] :
               llvm::zip(body->getArguments().take_front(positions.size()),
                         positions))
            mapping.map(argument, arguments[position]);
          for (BlockArgument argument :
               body->getArguments().drop_front(positions.size()))
            mapping.map(argument, arguments[initBase++]);
          for (Operation &inner : body->without_terminator())
            b.clone(inner, mapping);
          for (Value value : body->getTerminator()->getOperands())
            yielded.push_back(mapping.lookupOrDefault(value));
        };
        cloneBody(earlier, earlierInputs);
        cloneBody(later, laterInputs);
        linalg::YieldOp::create(b, loc, yielded);
      });
  unsigned count = earlier->getNumResults();
  rewriter.replaceOp(earlier, merged.getResults().take_front(count));
  rewriter.replaceOp(later, merged.getResults().drop_front(count));
  return merged;
}

namespace {
struct AmpFuseSiblingReductionsPass
    : public amp::impl::AmpFuseSiblingReductionsPassBase<
          AmpFuseSiblingReductionsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> reductions;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (isCandidate(op))
        reductions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    // The reductions met so far in each block (merged ones replaced).
    DenseMap<Block *, SmallVector<linalg::GenericOp>> seen;
    for (linalg::GenericOp op : reductions) {
      SmallVector<linalg::GenericOp> &earlier = seen[op->getBlock()];
      SmallVector<Operation *> moved;
      auto sibling = llvm::find_if(earlier, [&](linalg::GenericOp candidate) {
        return haveSameLoops(candidate, op) && canMergeAt(candidate, op, moved);
      });
      if (sibling == earlier.end()) {
        earlier.push_back(op);
        continue;
      }
      Operation *last = op;
      for (Operation *reader : moved) {
        reader->moveAfter(last);
        last = reader;
      }
      // The first's own fills (amp-prepare-contractions') come along, so
      // that each buffer's fill stays right before the reduction that
      // accumulates into it (amp-map-loops-to-gpu folds it there).
      for (Value init : sibling->getDpsInits()) {
        auto fill = init.getDefiningOp<linalg::FillOp>();
        if (!fill || !fill->hasOneUse() || fill->getBlock() != op->getBlock())
          continue;
        fill->moveBefore(op);
        Operation *empty = fill.getOutputs()[0].getDefiningOp();
        if (isa_and_nonnull<tensor::EmptyOp>(empty) && empty->hasOneUse() &&
            empty->getBlock() == op->getBlock())
          empty->moveBefore(fill);
      }
      linalg::GenericOp merged = merge(rewriter, *sibling, op);
      earlier.erase(sibling);
      earlier.push_back(merged);
    }
  }
};
} // namespace
