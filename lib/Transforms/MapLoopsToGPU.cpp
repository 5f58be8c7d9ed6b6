//===- MapLoopsToGPU.cpp - the amp-map-loops-to-gpu pass ------------------===//
//
// Part of amp-mlir. Prepares the loops of a bufferized function for
// gpu-map-parallel-loops and convert-parallel-loops-to-gpu: every outermost
// scf.parallel is tiled so that its innermost dimension runs `block-size`
// threads per block (the other dimensions one), and host code that touches
// memory outside any parallel loop (the loops of a 0-d reduction, a store)
// is wrapped in a one-iteration scf.parallel, so that it runs on the device
// where its buffers live. Reductions become one block per output first
// (amp/Transforms/ReductionKernels.h), elementwise loops over whole buffers
// vectorised kernels (amp/Transforms/VectorKernels.h).
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"
#include "amp/Transforms/ReductionKernels.h"
#include "amp/Transforms/VectorKernels.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPMAPLOOPSTOGPUPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

/// True if `op` (or an op nested in it) reads or writes a memref.
static bool touchesMemory(Operation *op) {
  bool touches = false;
  op->walk([&](Operation *inner) {
    if (isa<memref::LoadOp, memref::StoreOp>(inner)) {
      touches = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return touches;
}

/// The iterations of the loop nest `op` (an scf.for or scf.parallel, and
/// the loops in its body), or nullopt when a bound is not a constant.
static std::optional<int64_t> getNestIterations(Operation *op) {
  std::optional<int64_t> most = 1;
  for (Region &region : op->getRegions())
    for (Operation &inner : region.getOps())
      if (isa<scf::ForOp, scf::ParallelOp>(inner)) {
        std::optional<int64_t> n = getNestIterations(&inner);
        if (!n)
          return std::nullopt;
        most = std::max(*most, *n);
      }
  auto trips = [](Value lb, Value ub, Value step) -> std::optional<int64_t> {
    std::optional<int64_t> l = getConstantIntValue(lb),
                           u = getConstantIntValue(ub),
                           s = getConstantIntValue(step);
    if (!l || !u || !s || *s <= 0)
      return std::nullopt;
    return std::max<int64_t>(0, llvm::divideCeil(*u - *l, *s));
  };
  std::optional<int64_t> own = 1;
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    own = trips(forOp.getLowerBound(), forOp.getUpperBound(), forOp.getStep());
  else if (auto parallel = dyn_cast<scf::ParallelOp>(op))
    for (auto [lb, ub, step] :
         llvm::zip(parallel.getLowerBound(), parallel.getUpperBound(),
                   parallel.getStep())) {
      std::optional<int64_t> n = trips(lb, ub, step);
      if (!n || !own)
        return std::nullopt;
      own = *own * *n;
    }
  if (!own)
    return std::nullopt;
  return *own * *most;
}

/// Loops of more iterations than this that run on one thread get a remark.
static constexpr int64_t kOneThreadRemarkIterations = 4096;

/// Wraps host code that touches memory outside any parallel loop (the loops
/// of a 0-d reduction, a store) in a one-iteration parallel loop, with the
/// loads and arithmetic that compute what it stores, so that it runs on the
/// device where its buffers live; warns of the loads left on the host, and
/// remarks on a loop of many (or a dynamic number of) iterations that now
/// runs on one GPU thread.
static void wrapHostMemoryCode(func::FuncOp func) {
  OpBuilder b(func.getContext());
  SmallVector<Operation *> toWrap;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<scf::ParallelOp, gpu::LaunchOp>(op))
      return WalkResult::skip();
    if ((isa<scf::ForOp>(op) || isa<memref::StoreOp>(op)) &&
        op->getNumResults() == 0 && touchesMemory(op)) {
      toWrap.push_back(op);
      return WalkResult::skip();
    }
    return WalkResult::advance();
  });
  // A producer several wrapped ops read is cloned into each of their
  // loops but listed (and erased) once.
  llvm::SetVector<Operation *> cloned;
  for (Operation *op : toWrap) {
    if (isa<scf::ForOp>(op)) {
      std::optional<int64_t> iterations = getNestIterations(op);
      if (!iterations || *iterations > kOneThreadRemarkIterations)
        op->emitRemark()
            << "amp: this loop runs on one GPU thread ("
            << (iterations ? std::to_string(*iterations) + " iterations"
                           : std::string("a dynamic number of iterations"))
            << "): it is neither a parallel loop nor a reduction that "
               "amp-map-loops-to-gpu maps to blocks";
    }
    b.setInsertionPoint(op);
    Location loc = op->getLoc();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ParallelOp::create(b, loc, ValueRange{zero},
                                        ValueRange{one}, ValueRange{one});
    // The loads (and the pure arithmetic on them) in the same block that
    // compute what the op stores, as a 0-d copy is: copied into the
    // kernel, so the values are read on the device.
    llvm::SetVector<Operation *> producers;
    SmallVector<Operation *> worklist{op};
    while (!worklist.empty()) {
      Operation *current = worklist.pop_back_val();
      current->walk([&](Operation *inner) {
        for (Value operand : inner->getOperands()) {
          Operation *def = operand.getDefiningOp();
          if (!def || def->getBlock() != op->getBlock() ||
              def->getNumRegions() != 0 || producers.contains(def) ||
              !(isa<memref::LoadOp>(def) || isPure(def)))
            continue;
          producers.insert(def);
          worklist.push_back(def);
        }
      });
    }
    IRMapping mapping;
    b.setInsertionPoint(loop.getBody()->getTerminator());
    SmallVector<Operation *> ordered(producers.begin(), producers.end());
    llvm::sort(ordered, [](Operation *a, Operation *c) {
      return a->isBeforeInBlock(c);
    });
    for (Operation *def : ordered) {
      b.clone(*def, mapping);
      cloned.insert(def);
    }
    op->moveBefore(loop.getBody()->getTerminator());
    for (OpOperand &operand : op->getOpOperands())
      if (Value mapped = mapping.lookupOrNull(operand.get()))
        operand.set(mapped);
    op->walk([&](Operation *inner) {
      for (OpOperand &operand : inner->getOpOperands())
        if (Value mapped = mapping.lookupOrNull(operand.get()))
          operand.set(mapped);
    });
  }
  // The host copies nothing uses any more.
  SmallVector<Operation *> hostCopies = cloned.takeVector();
  llvm::sort(hostCopies, [](Operation *a, Operation *c) {
    return a->getBlock() == c->getBlock() ? c->isBeforeInBlock(a) : a < c;
  });
  for (Operation *def : hostCopies)
    if (isOpTriviallyDead(def))
      def->erase();
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<scf::ParallelOp, gpu::LaunchOp>(op))
      return WalkResult::skip();
    if (auto load = dyn_cast<memref::LoadOp>(op))
      load.emitWarning("amp: a load of a device buffer on the host; it "
                       "faults on a GPU without unified memory");
    return WalkResult::advance();
  });
}

/// Flattens each outermost parallel loop into one dimension and tiles it by
/// `vectors.blockSize`; an elementwise loop over whole buffers becomes a
/// vectorised kernel instead (mapVectorisableLoop).
static LogicalResult tileOutermostLoops(func::FuncOp func,
                                        const VectorKernelOptions &vectors) {
  unsigned blockSize = vectors.blockSize;
  // Flatten each outermost parallel loop into one dimension, then tile it
  // by the block size: every launch is 1-D, `block-size` threads per block
  // (fewer only for a shorter loop), within CUDA's limits whatever the
  // rank (a 3-D tile would put its innermost dimension on threadIdx.z,
  // limited to 64, and gpu-map-parallel-loops leaves dimensions beyond
  // the third to one thread).
  SmallVector<scf::ParallelOp> outermost;
  func.walk([&](scf::ParallelOp op) {
    if (!op->getParentOfType<scf::ParallelOp>())
      outermost.push_back(op);
  });
  IRRewriter rewriter(func.getContext());
  for (scf::ParallelOp op : outermost) {
    // Elementwise loops over whole buffers: 16-byte accesses where the
    // types allow them, already in blocks and threads.
    if (mapVectorisableLoop(rewriter, op, vectors))
      continue;
    // The trip count, when static: a loop shorter than a block is one
    // block of exactly its length (convert-parallel-loops-to-gpu cannot
    // bound a larger tile).
    int64_t staticTrips = 1;
    bool isStatic = true;
    for (auto [lb, ub, step] :
         llvm::zip(op.getLowerBound(), op.getUpperBound(), op.getStep())) {
      std::optional<int64_t> l = getConstantIntValue(lb);
      std::optional<int64_t> u = getConstantIntValue(ub);
      std::optional<int64_t> s = getConstantIntValue(step);
      if (!l || !u || !s || *s <= 0) {
        isStatic = false;
        break;
      }
      staticTrips *= std::max<int64_t>(0, (*u - *l + *s - 1) / *s);
    }
    std::optional<int64_t> trips;
    if (isStatic)
      trips = staticTrips;
    scf::ParallelOp flat = op;
    if (op.getNumLoops() > 1) {
      std::vector<unsigned> all(op.getNumLoops());
      std::iota(all.begin(), all.end(), 0);
      rewriter.setInsertionPoint(op);
      Block *block = op->getBlock();
      Operation *next = op->getNextNode();
      collapseParallelLoops(rewriter, op, {all});
      // The collapsed loop replaces `op` in place.
      flat = nullptr;
      for (Operation *cursor = next ? next->getPrevNode() : &block->back();
           cursor && !flat; cursor = cursor->getPrevNode())
        flat = dyn_cast<scf::ParallelOp>(cursor);
      if (!flat) {
        func.emitError("amp-map-loops-to-gpu: flattening a parallel loop "
                       "failed");
        return failure();
      }
      // The flattened bounds are products of constants: fold them.
      SmallVector<Operation *> bounds;
      for (Value v : flat.getUpperBound())
        if (Operation *def = v.getDefiningOp())
          bounds.push_back(def);
      GreedyRewriteConfig folding;
      folding.setStrictness(GreedyRewriteStrictness::ExistingOps);
      (void)applyOpPatternsGreedily(
          bounds, RewritePatternSet(func.getContext()), folding);
    }
    int64_t tile = blockSize;
    if (trips && *trips > 0 && *trips < tile)
      tile = *trips;
    scf::ParallelOp blocks =
        scf::tileParallelLoop(flat, {tile}, /*noMinMaxBounds=*/false).first;
    // A dynamic trip count may be 0 (an empty batch), and CUDA refuses a
    // grid of 0 blocks: the blocks' loop runs at least once, and the
    // threads' loop, bounded by the real count, leaves that block idle.
    // (An scf.if around the launch instead would make gpu-async-region wait
    // for the device before and after it.)
    if (!trips) {
      rewriter.setInsertionPoint(blocks);
      Location loc = blocks.getLoc();
      Value lower = blocks.getLowerBound()[0];
      Value once =
          arith::AddIOp::create(rewriter, loc, lower, blocks.getStep()[0]);
      Value upper = arith::MaxSIOp::create(rewriter, loc,
                                           blocks.getUpperBound()[0], once);
      blocks.getUpperBoundMutable()[0].set(upper);
    }
  }
  return success();
}

/// Folds the tile sizes into the affine.min bounds of the intra-tile loops.
static void foldTileBounds(func::FuncOp func) {
  // Fold the tile sizes into the affine.min bounds of the intra-tile loops:
  // convert-parallel-loops-to-gpu bounds a thread loop only by a constant
  // in the min's map, not by a constant operand. Loops are left alone
  // (their canonicalization would merge the tile loops back).
  SmallVector<Operation *> products;
  func.walk([&](arith::MulIOp op) { products.push_back(op); });
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingOps);
  (void)applyOpPatternsGreedily(products, RewritePatternSet(func.getContext()),
                                config);
  func.walk([&](affine::AffineMinOp op) {
    AffineMap map = op.getMap();
    SmallVector<AffineExpr> dims, symbols;
    for (unsigned i = 0, e = map.getNumDims(); i < e; ++i) {
      std::optional<int64_t> c = getConstantIntValue(op.getOperand(i));
      dims.push_back(c ? getAffineConstantExpr(*c, op.getContext())
                       : getAffineDimExpr(i, op.getContext()));
    }
    for (unsigned i = 0, e = map.getNumSymbols(); i < e; ++i) {
      std::optional<int64_t> c =
          getConstantIntValue(op.getOperand(map.getNumDims() + i));
      symbols.push_back(c ? getAffineConstantExpr(*c, op.getContext())
                          : getAffineSymbolExpr(i, op.getContext()));
    }
    AffineMap folded = simplifyAffineMap(map.replaceDimsAndSymbols(
        dims, symbols, map.getNumDims(), map.getNumSymbols()));
    if (folded != map)
      op.setMap(folded);
  });
}

namespace {
struct AmpMapLoopsToGPUPass
    : public amp::impl::AmpMapLoopsToGPUPassBase<AmpMapLoopsToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return markAllAnalysesPreserved();
    if (blockSize == 0) {
      func.emitError("amp-map-loops-to-gpu: block-size must be positive");
      return signalPassFailure();
    }
    if (vectorsPerThread == 0) {
      func.emitError(
          "amp-map-loops-to-gpu: vectors-per-thread must be positive");
      return signalPassFailure();
    }
    ReductionKernelOptions reductions;
    reductions.fuseEpilogues = fuseReductionEpilogues;
    reductions.fuseRows = fuseRows;
    mapReductionsToBlocks(func, reductions);
    wrapHostMemoryCode(func);
    VectorKernelOptions vectors;
    vectors.vectorBytes = vectorBytes;
    vectors.blockSize = blockSize;
    vectors.vectorsPerThread = vectorsPerThread;
    // Threads an SM holds at most (2048 from sm_80 on, fewer on others: a
    // grid of more blocks than fit runs in waves, correct and nearly as
    // fast, where one of fewer would leave SMs idle).
    constexpr int64_t kMaxThreadsPerSm = 2048;
    vectors.maxBlocks =
        int64_t(smCount) * std::max<int64_t>(1, kMaxThreadsPerSm / blockSize);
    if (failed(tileOutermostLoops(func, vectors)))
      return signalPassFailure();
    foldTileBounds(func);
  }
};
} // namespace
