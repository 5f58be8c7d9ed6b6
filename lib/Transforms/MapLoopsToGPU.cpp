//===- MapLoopsToGPU.cpp - the amp-map-loops-to-gpu pass ------------------===//
//
// Part of amp-mlir. Prepares the loops of a bufferized function for
// gpu-map-parallel-loops and convert-parallel-loops-to-gpu: every outermost
// scf.parallel is tiled so that its innermost dimension runs `block-size`
// threads per block (the other dimensions one), and host code that touches
// memory outside any parallel loop (the loops of a 0-d reduction, a store)
// is wrapped in a one-iteration scf.parallel, so that it runs on the device
// where its buffers live.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
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

#include <limits>

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

/// Threads per block of a reduction: one block per output row, or one block
/// for a reduction to a single value.
static constexpr unsigned kRowReductionThreads = 256;
static constexpr unsigned kScalarReductionThreads = 1024;

namespace {
/// One accumulation of a reduction nest: `acc = load M[I]; r = combine(x,
/// acc); store r, M[I]`, or, for a maximum or minimum into a 16-bit M,
/// `store truncf(combine(x, extf(acc)))`: rounding is monotonic, so the
/// rounded maximum of all elements is what the rounded running maximum
/// gives, and the block combines in the wide type and rounds once.
struct Accumulation {
  memref::LoadOp load;
  memref::StoreOp store;
  Operation *combine = nullptr;
  /// The widening of the load and the narrowing of the combined value, in
  /// the 16-bit form; null otherwise.
  arith::ExtFOp widen;
  arith::TruncFOp narrow;
  gpu::AllReduceOperation kind;
  float identity = 0;
  /// The accumulator as the combiner reads it, and what it combines to.
  Value accumulator() { return widen ? widen.getResult() : load.getResult(); }
  Value combined() { return combine->getResult(0); }
  /// The loop right before the nest that fills M with one constant (its
  /// `linalg.fill`), if there is one and the nest writes every element of
  /// M: thread 0 then starts from the constant, and the loop goes.
  scf::ParallelOp initLoop;
  Value initValue;
};

/// A reduction as convert-linalg-to-parallel-loops writes it: a perfect nest
/// of `scf.parallel` and `scf.for` loops (normalized, no results) whose
/// innermost body is `acc = load M[I]; r = combine(x, acc); store r, M[I]`,
/// with `x` not depending on `acc` and nothing else stored. The loops whose
/// induction variables index `M` are the outputs; the others (all
/// `scf.for`) are reduced. The reduced loops may be outside the output ones
/// (a column sum over rows: `scf.for` rows around `scf.parallel` columns).
/// A body may accumulate into several buffers at the same indices (a
/// generic of several reductions, amp-fuse-sibling-reductions'), each
/// independently of the others: one kernel then computes them all.
struct ReductionNest {
  /// Outermost first.
  SmallVector<Operation *> loops;
  SmallVector<Value> outputIvs, outputSizes, reducedIvs, reducedSizes;
  /// In the body's order; the first's store's indices are every store's.
  SmallVector<Accumulation> accumulations;
  memref::StoreOp firstStore() const { return accumulations.front().store; }
  /// The reduction's epilogue, if it has one (a nest of one accumulation):
  /// the elementwise loop right
  /// after the nest that is the only reader of its f32 result (a mean's
  /// division and its narrowing to f16). Thread 0 applies it to the total
  /// and stores what it stores; the f32 result is then never written.
  scf::ParallelOp epilogue;
  /// The epilogue's load of the result, and the ops between the nest and
  /// the epilogue (allocations and constants), which move above the nest.
  memref::LoadOp epilogueLoad;
  SmallVector<Operation *> hoisted;
  /// The stores that initialise the result before the nest, and the one
  /// constant they all store, if they do: then the kernel starts from that
  /// constant, and the result buffer goes away.
  SmallVector<memref::StoreOp> initStores;
  Value initValue;
};
} // namespace

/// The all-reduce kind and identity of an f32 or f64 combiner, or of an
/// integer sum (a count), if it is one.
static std::optional<std::pair<gpu::AllReduceOperation, float>>
getCombiner(Operation *op) {
  float inf = std::numeric_limits<float>::infinity();
  if (isa<arith::AddFOp, arith::AddIOp>(op))
    return std::make_pair(gpu::AllReduceOperation::ADD, 0.0f);
  if (isa<arith::MulFOp>(op))
    return std::make_pair(gpu::AllReduceOperation::MUL, 1.0f);
  if (isa<arith::MaxNumFOp>(op))
    return std::make_pair(gpu::AllReduceOperation::MAXNUMF, -inf);
  if (isa<arith::MaximumFOp>(op))
    return std::make_pair(gpu::AllReduceOperation::MAXIMUMF, -inf);
  if (isa<arith::MinNumFOp>(op))
    return std::make_pair(gpu::AllReduceOperation::MINNUMF, inf);
  if (isa<arith::MinimumFOp>(op))
    return std::make_pair(gpu::AllReduceOperation::MINIMUMF, inf);
  return std::nullopt;
}

/// True if the loop runs from 0 with step 1.
static bool isNormalized(Value lb, Value step) {
  return isConstantIntValue(lb, 0) && isConstantIntValue(step, 1);
}

/// True if `loop` (without results) runs over exactly `shape`: one
/// dimension per size, each from 0 to it with step 1.
static bool runsOverShape(scf::ParallelOp loop, ArrayRef<int64_t> shape) {
  if (loop.getNumResults() != 0 ||
      loop.getNumLoops() != static_cast<unsigned>(shape.size()))
    return false;
  for (auto [lb, ub, step, size] : llvm::zip(
           loop.getLowerBound(), loop.getUpperBound(), loop.getStep(), shape))
    if (!isNormalized(lb, step) || getConstantIntValue(ub) != size)
      return false;
  return true;
}

/// The accumulation that `store` ends, in the innermost body `body`: an
/// f32 or f64 value (the batch-norm statistics torch-mlir imports in f64),
/// or an i32 or i64 sum (the count of a loss's labels), that gpu.all_reduce
/// combines (64-bit shuffles are split in two); or a maximum or minimum
/// computed in f32 and stored in f16 or bf16 (see Accumulation). `alone`: the
/// combined value may have no other reader than the store (a body of several).
static std::optional<Accumulation> matchAccumulation(memref::StoreOp store,
                                                     Block *body, bool alone) {
  Accumulation accumulation;
  Value value = store.getValue();
  // A maximum or minimum into f16 or bf16 (O2's row maxima of a softmax).
  auto narrow = value.getDefiningOp<arith::TruncFOp>();
  if (narrow && narrow->getBlock() == body && narrow->hasOneUse() &&
      !narrow.getRoundingmodeAttr() &&
      (value.getType().isF16() || value.getType().isBF16())) {
    accumulation.narrow = narrow;
    value = narrow.getIn();
    if (!value.hasOneUse())
      return std::nullopt;
  }
  Type valueType = value.getType();
  if (!(valueType.isF32() || valueType.isF64() || valueType.isInteger(32) ||
        valueType.isInteger(64)))
    return std::nullopt;
  Operation *combine = value.getDefiningOp();
  if (!combine || combine->getBlock() != body ||
      combine->getNumOperands() != 2 || (alone && !combine->hasOneUse()))
    return std::nullopt;
  std::optional<std::pair<gpu::AllReduceOperation, float>> kind =
      getCombiner(combine);
  if (!kind)
    return std::nullopt;
  if (narrow && (kind->first == gpu::AllReduceOperation::ADD ||
                 kind->first == gpu::AllReduceOperation::MUL))
    return std::nullopt; // a sum rounded at each step is not one rounding
  // One operand is the accumulator's load, used only here (through its
  // widening in the 16-bit form).
  for (Value operand : combine->getOperands()) {
    arith::ExtFOp widen;
    if (narrow) {
      widen = operand.getDefiningOp<arith::ExtFOp>();
      if (!widen || widen->getBlock() != body || !widen->hasOneUse() ||
          widen.getType() != valueType)
        continue;
      operand = widen.getIn();
    }
    auto load = operand.getDefiningOp<memref::LoadOp>();
    if (!load || load->getBlock() != body ||
        load.getMemRef() != store.getMemRef() ||
        load.getIndices() != store.getIndices() || !load->hasOneUse())
      continue;
    accumulation.load = load;
    accumulation.widen = widen;
  }
  if (!accumulation.load)
    return std::nullopt;
  accumulation.store = store;
  accumulation.combine = combine;
  accumulation.kind = kind->first;
  accumulation.identity = kind->second;
  return accumulation;
}

/// Matches a reduction nest rooted at `root` (an scf.parallel or scf.for).
static std::optional<ReductionNest> matchReductionNest(Operation *root) {
  ReductionNest nest;
  SmallVector<std::pair<Value, Value>> ivs; // (iv, upper bound)
  Operation *loop = root;
  Block *body = nullptr;
  bool anyFor = false;
  while (true) {
    if (auto forOp = dyn_cast<scf::ForOp>(loop)) {
      if (forOp.getNumResults() != 0 ||
          !isNormalized(forOp.getLowerBound(), forOp.getStep()))
        return std::nullopt;
      ivs.push_back({forOp.getInductionVar(), forOp.getUpperBound()});
      body = forOp.getBody();
      anyFor = true;
    } else if (auto parallel = dyn_cast<scf::ParallelOp>(loop)) {
      if (parallel.getNumResults() != 0)
        return std::nullopt;
      for (auto [iv, lb, ub, step] :
           llvm::zip(parallel.getInductionVars(), parallel.getLowerBound(),
                     parallel.getUpperBound(), parallel.getStep())) {
        if (!isNormalized(lb, step))
          return std::nullopt;
        ivs.push_back({iv, ub});
      }
      body = parallel.getBody();
    } else {
      return std::nullopt;
    }
    nest.loops.push_back(loop);
    if (body->getOperations().size() == 2 &&
        isa<scf::ForOp, scf::ParallelOp>(body->front())) {
      loop = &body->front();
      continue;
    }
    break;
  }
  if (!anyFor)
    return std::nullopt;
  SmallVector<memref::StoreOp> stores;
  for (Operation &op : body->without_terminator()) {
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      stores.push_back(store);
      continue;
    }
    // A frontend's index check (cross-entropy's gather of each target's
    // log-probability) goes into the kernel, which amp-strip-device-asserts
    // then drops, with a remark, as it does from every kernel.
    if (!isa<memref::LoadOp, cf::AssertOp>(op) && !isPure(&op))
      return std::nullopt;
    if (op.getNumRegions() != 0)
      return std::nullopt;
  }
  if (stores.empty())
    return std::nullopt;
  for (memref::StoreOp store : stores) {
    std::optional<Accumulation> accumulation =
        matchAccumulation(store, body, stores.size() > 1);
    if (!accumulation || store.getIndices() != stores.front().getIndices() ||
        llvm::any_of(nest.accumulations, [&](Accumulation other) {
          return other.store.getMemRef() == store.getMemRef();
        }))
      return std::nullopt;
    nest.accumulations.push_back(*accumulation);
  }
  // With several, no other load reads what the nest writes: each
  // accumulation is independent of the others.
  if (stores.size() > 1) {
    for (auto load : body->getOps<memref::LoadOp>())
      if (llvm::any_of(nest.accumulations, [&](Accumulation accumulation) {
            return accumulation.load != load &&
                   accumulation.store.getMemRef() == load.getMemRef();
          }))
        return std::nullopt;
  }
  // Each index of the accumulators is an output loop's induction variable
  // or defined outside the nest; the loops it does not name are reduced,
  // and must be scf.for (a parallel loop writing one element would race).
  llvm::SmallPtrSet<Value, 4> indexIvs;
  for (Value index : stores.front().getIndices()) {
    if (llvm::any_of(ivs, [&](auto pair) { return pair.first == index; })) {
      indexIvs.insert(index);
      continue;
    }
    if (root->isAncestor(index.getParentRegion()->getParentOp()))
      return std::nullopt;
  }
  for (auto [iv, ub] : ivs) {
    if (indexIvs.contains(iv)) {
      nest.outputIvs.push_back(iv);
      nest.outputSizes.push_back(ub);
      continue;
    }
    if (!isa<scf::ForOp>(cast<BlockArgument>(iv).getOwner()->getParentOp()))
      return std::nullopt;
    nest.reducedIvs.push_back(iv);
    nest.reducedSizes.push_back(ub);
  }
  if (nest.reducedIvs.empty())
    return std::nullopt;
  return nest;
}

/// Finds the epilogue of `nest` (see ReductionNest::epilogue): the next
/// loop in its block, with only allocations and pure ops in between; an
/// `scf.parallel` over the result's static shape, from 0 with unit steps,
/// whose body has no regions, reads the result once at exactly its
/// induction variables and stores elsewhere. The result is a temporary
/// buffer that nothing else reads or writes, apart from its initialisation
/// before the nest and its deallocation.
static void matchReductionEpilogue(ReductionNest &nest) {
  if (nest.accumulations.size() != 1)
    return;
  Accumulation accumulation = nest.accumulations.front();
  Value result = accumulation.store.getMemRef();
  auto type = dyn_cast<MemRefType>(result.getType());
  if (!type || type.getRank() == 0 || !type.hasStaticShape() ||
      !type.getLayout().isIdentity())
    return;
  Operation *alloc = result.getDefiningOp();
  auto gpuAlloc = dyn_cast_or_null<gpu::AllocOp>(alloc);
  if (!isa_and_nonnull<memref::AllocOp>(alloc) &&
      !(gpuAlloc && !gpuAlloc.getAsyncToken()))
    return;
  Operation *anchor = nest.loops.front();
  if (alloc->getBlock() != anchor->getBlock())
    return;
  SmallVector<Operation *> hoisted;
  scf::ParallelOp loop;
  for (Operation *op = anchor->getNextNode(); op; op = op->getNextNode()) {
    if ((loop = dyn_cast<scf::ParallelOp>(op)))
      break;
    auto otherGpuAlloc = dyn_cast<gpu::AllocOp>(op);
    bool allocates = isa<memref::AllocOp>(op) ||
                     (otherGpuAlloc && !otherGpuAlloc.getAsyncToken());
    if ((!allocates && !isPure(op)) || op->getNumRegions() != 0)
      return;
    hoisted.push_back(op);
  }
  if (!loop || !runsOverShape(loop, type.getShape()))
    return;
  memref::LoadOp load;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (op.getNumRegions() != 0)
      return;
    if (auto read = dyn_cast<memref::LoadOp>(op)) {
      if (read.getMemRef() != result)
        continue;
      if (load)
        return;
      load = read;
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      if (store.getMemRef() == result)
        return;
      continue;
    }
    if (!isPure(&op))
      return;
  }
  if (!load)
    return;
  // The result is read at exactly the loop's indices, each once (in any
  // order: the mapping below follows the load's).
  llvm::SmallPtrSet<Value, 4> seen;
  for (Value index : load.getIndices())
    if (!llvm::is_contained(loop.getInductionVars(), index) ||
        !seen.insert(index).second)
      return;
  SmallVector<memref::StoreOp> initStores;
  for (Operation *user : result.getUsers()) {
    if (user == accumulation.store || user == accumulation.load ||
        user == load || isa<memref::DeallocOp, gpu::DeallocOp>(user))
      continue;
    // The initialisation, before the nest.
    Operation *ancestor = anchor->getBlock()->findAncestorOpInBlock(*user);
    auto store = dyn_cast<memref::StoreOp>(user);
    if (store && store.getMemRef() == result && ancestor &&
        ancestor->isBeforeInBlock(anchor)) {
      initStores.push_back(store);
      continue;
    }
    return;
  }
  Value initValue;
  if (!initStores.empty() &&
      matchPattern(initStores.front().getValue(), m_Constant()) &&
      llvm::all_of(initStores, [&](memref::StoreOp store) {
        return store.getValue() == initStores.front().getValue();
      }))
    initValue = initStores.front().getValue();
  nest.initStores = std::move(initStores);
  nest.initValue = initValue;
  nest.epilogue = loop;
  nest.epilogueLoad = load;
  nest.hoisted = std::move(hoisted);
}

/// The constant that `loop` stores to every element of `buffer` (a static,
/// identity-layout buffer), and nothing else, if it does: a bufferized
/// `linalg.fill`.
static Value getFillValue(scf::ParallelOp loop, Value buffer) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity() ||
      !runsOverShape(loop, type.getShape()) ||
      loop.getBody()->getOperations().size() != 2)
    return {};
  auto store = dyn_cast<memref::StoreOp>(loop.getBody()->front());
  if (!store || store.getMemRef() != buffer ||
      !llvm::equal(store.getIndices(), loop.getInductionVars()) ||
      !matchPattern(store.getValue(), m_Constant()))
    return {};
  return store.getValue();
}

/// Whether the nest stores every element of `store`'s (static) buffer:
/// each index is an output loop's induction variable running over the
/// whole dimension, each such variable indexes one dimension, and the
/// others have size 1, indexed by 0.
static bool writesEveryElement(const ReductionNest &nest,
                               memref::StoreOp store) {
  auto type = dyn_cast<MemRefType>(store.getMemRef().getType());
  if (!type || !type.hasStaticShape())
    return false;
  llvm::SmallPtrSet<Value, 4> seen;
  for (auto [index, size] : llvm::zip(store.getIndices(), type.getShape())) {
    auto position = llvm::find(nest.outputIvs, index);
    if (position == nest.outputIvs.end()) {
      if (size != 1 || !isConstantIntValue(index, 0))
        return false;
      continue;
    }
    if (!seen.insert(index).second ||
        getConstantIntValue(
            nest.outputSizes[position - nest.outputIvs.begin()]) != size)
      return false;
  }
  return true;
}

/// Finds the fills of the nest's buffers (Accumulation::initLoop) among the
/// ops right before it: walking back from the nest over pure ops,
/// allocations and such fills only, so that nothing else touches a buffer
/// between its fill and the nest.
static void matchInitFills(ReductionNest &nest) {
  for (Operation *op = nest.loops.front()->getPrevNode(); op;
       op = op->getPrevNode()) {
    if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
      Accumulation *filled = nullptr;
      Value value;
      for (Accumulation &accumulation : nest.accumulations) {
        if (accumulation.initLoop)
          continue;
        value = getFillValue(loop, accumulation.store.getMemRef());
        if (value && writesEveryElement(nest, accumulation.store)) {
          filled = &accumulation;
          break;
        }
      }
      if (!filled)
        return;
      filled->initLoop = loop;
      filled->initValue = value;
      continue;
    }
    auto gpuAlloc = dyn_cast<gpu::AllocOp>(op);
    bool allocates =
        isa<memref::AllocOp>(op) || (gpuAlloc && !gpuAlloc.getAsyncToken());
    if ((!allocates && !isPure(op)) || op->getNumRegions() != 0)
      return;
  }
}

/// The product of `sizes` if they are all constants.
static std::optional<int64_t> getStaticProduct(ValueRange sizes) {
  int64_t product = 1;
  for (Value size : sizes) {
    std::optional<int64_t> c = getConstantIntValue(size);
    if (!c)
      return std::nullopt;
    product *= *c;
  }
  return product;
}

/// The threads of a reduction's block: a warp multiple that covers a static
/// reduction shorter than `maxThreads`, else `maxThreads`.
static int64_t getReductionThreads(ValueRange reducedSizes,
                                   unsigned maxThreads) {
  std::optional<int64_t> staticReduced = getStaticProduct(reducedSizes);
  if (!staticReduced || *staticReduced <= 0)
    return maxThreads;
  return std::min<int64_t>(
      maxThreads, std::max<int64_t>(32, llvm::PowerOf2Ceil(*staticReduced)));
}

/// Row-major delinearization of `linear` over `sizes`.
static SmallVector<Value> delinearizeRowMajor(OpBuilder &b, Location loc,
                                              Value linear, ValueRange sizes) {
  SmallVector<Value> indices(sizes.size());
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    indices[d] =
        d == 0 ? linear
               : arith::RemUIOp::create(b, loc, linear, sizes[d]).getResult();
    if (d > 0)
      linear = arith::DivUIOp::create(b, loc, linear, sizes[d]);
  }
  return indices;
}

/// Whether `load` reads, at indices that are the block's output (`outputs`)
/// or constants, a buffer that is none of `written`, with a static shape of no
/// empty dimension: it reads the same element in every iteration of a
/// thread's loop, and is in bounds even in a block that reduces nothing
/// (an empty output's block 0, which reads index 0).
static bool isInvariantLoad(memref::LoadOp load, ArrayRef<Value> written,
                            ArrayRef<Value> outputs) {
  auto type = load.getMemRefType();
  if (llvm::is_contained(written, load.getMemRef()) || !type.hasStaticShape() ||
      llvm::any_of(type.getShape(), [](int64_t size) { return size <= 0; }))
    return false;
  for (auto [index, size] : llvm::zip(load.getIndices(), type.getShape())) {
    if (llvm::is_contained(outputs, index))
      continue;
    std::optional<int64_t> constant = getConstantIntValue(index);
    if (!constant || *constant < 0 || *constant >= size)
      return false;
  }
  return true;
}

/// Moves what each thread of a reduction's block would compute again in
/// every iteration of its loop `partial` above the loop: pure ops of
/// operands defined outside it, and the invariant loads (isInvariantLoad)
/// of what the nest does not write to. A variance's mean, its division by
/// the count: read and divided once per thread, not once per element.
static void hoistInvariants(scf::ForOp partial, ArrayRef<Value> written,
                            ArrayRef<Value> outputs) {
  auto isOutside = [&](Value value) {
    return !partial->isAncestor(value.getParentRegion()->getParentOp());
  };
  for (Operation &op :
       llvm::make_early_inc_range(partial.getBody()->without_terminator())) {
    if (op.getNumRegions() || !llvm::all_of(op.getOperands(), isOutside))
      continue;
    auto load = dyn_cast<memref::LoadOp>(op);
    if (isPure(&op) || (load && isInvariantLoad(load, written, outputs)))
      op.moveBefore(partial);
  }
}

/// Thread 0's part of a reduction's block: folds each total into its
/// output at `indices` (from the fill's constant when the fill was folded,
/// else from the buffer), or runs the epilogue on it.
static void storeTotals(OpBuilder &b, Location loc, ReductionNest &nest,
                        ArrayRef<Value> totals, ArrayRef<Value> indices) {
  for (auto [accumulation, total] : llvm::zip(nest.accumulations, totals)) {
    Value buffer = accumulation.store.getMemRef();
    Value init =
        nest.epilogue && nest.initValue ? nest.initValue
        : accumulation.initValue
            ? accumulation.initValue
            : memref::LoadOp::create(b, loc, buffer, indices).getResult();
    // The body's own ops on the total: widen the initial value, combine,
    // narrow the result (the 16-bit form).
    IRMapping finalMapping;
    finalMapping.map(accumulation.load.getResult(), init);
    if (accumulation.widen)
      b.clone(*accumulation.widen, finalMapping);
    Value accumulatorOperand = accumulation.accumulator();
    for (Value operand : accumulation.combine->getOperands())
      if (operand != accumulatorOperand)
        finalMapping.map(operand, total);
    b.clone(*accumulation.combine, finalMapping);
    if (accumulation.narrow)
      b.clone(*accumulation.narrow, finalMapping);
    Value result = finalMapping.lookup(accumulation.store.getValue());
    if (!nest.epilogue) {
      memref::StoreOp::create(b, loc, result, buffer, indices);
      continue;
    }
    // The epilogue's body on the total, at this block's output.
    IRMapping epilogueMapping;
    for (auto [index, output] :
         llvm::zip(nest.epilogueLoad.getIndices(), indices))
      epilogueMapping.map(index, output);
    epilogueMapping.map(nest.epilogueLoad.getResult(), result);
    for (Operation &op : nest.epilogue.getBody()->without_terminator())
      if (&op != nest.epilogueLoad.getOperation())
        b.clone(op, epilogueMapping);
  }
}

/// Rewrites a reduction nest into a gpu.launch with one block per output:
/// the block's threads stride over the reduced elements, each folding its
/// share into a private accumulator started at the identity, then combine
/// them with gpu.all_reduce (lowered to warp shuffles and shared memory),
/// and thread 0 folds the result into the output. At most `maxThreads`
/// threads per block, fewer (a warp multiple) for a short reduction.
static void mapReductionToBlocks(ReductionNest &nest, unsigned maxThreads) {
  Operation *anchor = nest.loops.front();
  // What the epilogue reads that is defined after the nest comes first.
  for (Operation *op : nest.hoisted)
    op->moveBefore(anchor);
  OpBuilder b(anchor);
  Location loc = anchor->getLoc();
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  auto product = [&](ValueRange sizes) {
    Value result = one;
    for (Value size : sizes)
      result = arith::MulIOp::create(b, loc, result, size);
    return result;
  };
  Value outputs = product(nest.outputSizes);
  Value reduced = product(nest.reducedSizes);
  int64_t threads = getReductionThreads(nest.reducedSizes, maxThreads);
  Value blockSize = arith::ConstantIndexOp::create(b, loc, threads);
  // A dynamic count of outputs may be 0 (an empty batch), and CUDA refuses
  // a grid of 0 blocks: one block then runs, and reduces and stores nothing.
  bool mayBeEmpty = llvm::any_of(nest.outputSizes, [](Value size) {
    std::optional<int64_t> c = getConstantIntValue(size);
    return !c || *c <= 0;
  });
  Value grid = mayBeEmpty
                   ? arith::MaxSIOp::create(b, loc, outputs, one).getResult()
                   : outputs;
  auto launch =
      gpu::LaunchOp::create(b, loc, grid, one, one, blockSize, one, one);
  Block &body = launch.getBody().front();
  b.setInsertionPointToStart(&body);
  Value block = launch.getBlockIds().x;
  Value thread = launch.getThreadIds().x;
  Value valid;
  if (mayBeEmpty) {
    valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, block,
                                  outputs);
    reduced = arith::SelectOp::create(b, loc, valid, reduced, zero);
  }
  IRMapping mapping;
  auto delinearize = [&](Value linear, ValueRange sizes) {
    return delinearizeRowMajor(b, loc, linear, sizes);
  };
  SmallVector<Value> outputIndices = delinearize(block, nest.outputSizes);
  for (auto [iv, index] : llvm::zip(nest.outputIvs, outputIndices))
    mapping.map(iv, index);
  SmallVector<Value> identities;
  for (Accumulation accumulation : nest.accumulations) {
    Type valueType = accumulation.combined().getType();
    TypedAttr identityAttr =
        isa<FloatType>(valueType)
            ? TypedAttr(b.getFloatAttr(valueType, accumulation.identity))
            : TypedAttr(b.getIntegerAttr(
                  valueType, static_cast<int64_t>(accumulation.identity)));
    identities.push_back(arith::ConstantOp::create(b, loc, identityAttr));
  }
  auto partial =
      scf::ForOp::create(b, loc, thread, reduced, blockSize, identities);
  Block *innermost = nest.firstStore()->getBlock();
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(partial.getBody());
    for (auto [iv, index] :
         llvm::zip(nest.reducedIvs,
                   delinearize(partial.getInductionVar(), nest.reducedSizes)))
      mapping.map(iv, index);
    llvm::SmallPtrSet<Operation *, 4> skipped;
    for (auto [accumulation, accumulator] :
         llvm::zip(nest.accumulations, partial.getRegionIterArgs())) {
      mapping.map(accumulation.accumulator(), accumulator);
      skipped.insert(accumulation.load);
      skipped.insert(accumulation.store);
      if (accumulation.widen)
        skipped.insert(accumulation.widen);
      if (accumulation.narrow)
        skipped.insert(accumulation.narrow);
    }
    for (Operation &op : innermost->without_terminator())
      if (!skipped.contains(&op))
        b.clone(op, mapping);
    SmallVector<Value> partials;
    for (Accumulation accumulation : nest.accumulations)
      partials.push_back(mapping.lookup(accumulation.combined()));
    scf::YieldOp::create(b, loc, partials);
  }
  SmallVector<Value> written;
  for (Accumulation accumulation : nest.accumulations)
    written.push_back(accumulation.store.getMemRef());
  // Only where a thread folds several elements: with a short row (a global
  // average pool's 7x7) a thread would run the hoisted ops for at most one.
  std::optional<int64_t> staticReduced = getStaticProduct(nest.reducedSizes);
  if (!staticReduced || *staticReduced >= 2 * threads)
    hoistInvariants(partial, written, outputIndices);
  SmallVector<Value> totals;
  for (auto [accumulation, value] :
       llvm::zip(nest.accumulations, partial.getResults()))
    totals.push_back(gpu::AllReduceOp::create(
        b, loc, value,
        gpu::AllReduceOperationAttr::get(b.getContext(), accumulation.kind),
        /*uniform=*/true));
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, thread, zero);
  if (valid)
    first = arith::AndIOp::create(b, loc, first, valid);
  auto ifFirst = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
  b.setInsertionPointToStart(ifFirst.thenBlock());
  SmallVector<Value> indices;
  for (Value index : nest.firstStore().getIndices())
    indices.push_back(mapping.lookupOrDefault(index));
  storeTotals(b, loc, nest, totals, indices);
  b.setInsertionPointAfter(ifFirst);
  gpu::TerminatorOp::create(b, loc);
  // The nest's ops (its stores included) go with it.
  Value result = nest.firstStore().getMemRef();
  anchor->erase();
  for (Accumulation &accumulation : nest.accumulations)
    if (accumulation.initLoop)
      accumulation.initLoop->erase();
  if (!nest.epilogue)
    return;
  nest.epilogue->erase();
  if (!nest.initValue)
    return;
  // Nothing reads the result any more: drop its initialisation (the loop
  // too, where the store was all it did) and the buffer.
  for (memref::StoreOp store : nest.initStores) {
    Operation *parent = store->getParentOp();
    auto loop = dyn_cast<scf::ParallelOp>(parent);
    if (loop && loop.getNumResults() == 0 &&
        loop.getBody()->getOperations().size() == 2)
      loop->erase();
    else
      store->erase();
  }
  if (llvm::all_of(result.getUsers(), [](Operation *user) {
        return isa<memref::DeallocOp, gpu::DeallocOp>(user);
      })) {
    for (Operation *user : llvm::make_early_inc_range(result.getUsers()))
      user->erase();
    result.getDefiningOp()->erase();
  }
}

//===----------------------------------------------------------------------===//
// Vectorised elementwise loops
//===----------------------------------------------------------------------===//

/// Bytes of a scalar the vectorised loops load and store (f16, bf16, f32,
/// i32, f64, i64); 0 for other types (i1 and i8 vectors are not byte arrays
/// in LLVM's layout, index has no fixed width).
static unsigned getVectorisableBytes(Type type) {
  if (isa<Float16Type, BFloat16Type>(type))
    return 2;
  if (type.isF32() || type.isInteger(32))
    return 4;
  if (type.isF64() || type.isInteger(64))
    return 8;
  return 0;
}

/// How one access of a vectorised loop reads or writes its buffer: the
/// loop dimensions its indices are (in order; its other indices are 0 on
/// unit dimensions), and whether a group of `width` consecutive elements
/// of the loop reads consecutive elements of the buffer (a vector) or one
/// (a scalar, broadcast).
struct VectorAccess {
  SmallVector<unsigned, 4> dims;
  bool contiguous = true;
};

/// An elementwise loop `vectoriseElementwise` rewrites, as it will: its
/// sizes (the first may be dynamic: a batch), the vector length, and how
/// each load reads.
struct VectorPlan {
  SmallVector<int64_t, 4> shape;
  int64_t width = 0;
  DenseMap<Operation *, VectorAccess> loads;
};

/// The access of a buffer of the loop's shape at the loop's indices.
static VectorAccess getFullAccess(unsigned rank) {
  VectorAccess access;
  access.dims = llvm::to_vector<4>(llvm::seq<unsigned>(0, rank));
  return access;
}

/// The access of `memref` at `indices` in a loop of `shape` with induction
/// variables `ivs`, or none: an identity layout; each index an induction
/// variable (in increasing order) of a dimension of the buffer's size, or
/// the constant 0 of a unit dimension. The buffer is the loop's shape (a
/// full access, the only kind a store may be) or has static sizes (a
/// broadcast operand: a bias, a batch norm's per-channel scale).
static std::optional<VectorAccess> getVectorAccess(Value memref,
                                                   ValueRange indices,
                                                   ArrayRef<int64_t> shape,
                                                   ArrayRef<Value> ivs) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || !type.getLayout().isIdentity())
    return std::nullopt;
  VectorAccess access;
  if (llvm::equal(indices, ivs) && type.getShape() == shape)
    return getFullAccess(shape.size());
  if (!type.hasStaticShape())
    return std::nullopt;
  for (auto [size, index] : llvm::zip(type.getShape(), indices)) {
    if (size == 1 && matchPattern(index, m_Zero()))
      continue;
    auto it = llvm::find(ivs, index);
    if (it == ivs.end())
      return std::nullopt;
    unsigned dim = it - ivs.begin();
    if (shape[dim] != size ||
        (!access.dims.empty() && dim <= access.dims.back()))
      return std::nullopt;
    access.dims.push_back(dim);
  }
  access.contiguous =
      !access.dims.empty() && access.dims.back() == shape.size() - 1;
  return access;
}

/// Whether each group of `width` consecutive elements, aligned to `width`,
/// of a loop of `shape` reads one element or consecutive ones of `access`:
/// `width` divides the trailing dimensions the access has (contiguous: a
/// vector of the buffer) or does not have (one element of it).
static bool fitsGroups(const VectorAccess &access, ArrayRef<int64_t> shape,
                       int64_t width) {
  int64_t block = 1;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    if (llvm::is_contained(access.dims, d) != access.contiguous)
      break;
    // A dynamic batch: the static dimensions after it decide.
    if (ShapedType::isDynamic(shape[d]))
      break;
    block *= shape[d];
  }
  return block % width == 0;
}

/// An elementwise loop `vectoriseElementwise` rewrites: bounds from 0 (all
/// static but perhaps the outermost: a dynamic batch), unit steps, no
/// reductions, and a body of loads and stores of buffers (getVectorAccess:
/// stores at exactly the loop's indices of buffers of its shape, loads
/// also of broadcast operands) and arith ops on scalars. Returns the plan,
/// or none.
static std::optional<VectorPlan> matchVectorisable(scf::ParallelOp loop,
                                                   unsigned vectorBytes) {
  if (vectorBytes == 0 || loop.getNumResults() != 0)
    return std::nullopt;
  VectorPlan plan;
  for (auto [dim, bounds] : llvm::enumerate(llvm::zip(
           loop.getLowerBound(), loop.getUpperBound(), loop.getStep()))) {
    auto [lb, ub, step] = bounds;
    std::optional<int64_t> l = getConstantIntValue(lb);
    std::optional<int64_t> u = getConstantIntValue(ub);
    std::optional<int64_t> s = getConstantIntValue(step);
    if (!l || !s || *l != 0 || *s != 1 || (u && *u <= 0) || (!u && dim != 0))
      return std::nullopt;
    plan.shape.push_back(u ? *u : ShapedType::kDynamic);
  }
  SmallVector<Value> ivs(loop.getInductionVars());
  unsigned widest = 0;
  bool accesses = false;
  Block *body = loop.getBody();
  for (Operation &op : body->without_terminator()) {
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      unsigned bytes = getVectorisableBytes(load.getType());
      std::optional<VectorAccess> access =
          getVectorAccess(load.getMemRef(), load.getIndices(), plan.shape, ivs);
      if (!bytes || !access)
        return std::nullopt;
      plan.loads[load] = *access;
      widest = std::max(widest, bytes);
      accesses = true;
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      unsigned bytes = getVectorisableBytes(store.getValueToStore().getType());
      std::optional<VectorAccess> access = getVectorAccess(
          store.getMemRef(), store.getIndices(), plan.shape, ivs);
      // A store writes the whole buffer (every index an induction
      // variable, in order: the loop's shape).
      if (!bytes || !access || access->dims.size() != plan.shape.size() ||
          llvm::is_contained(ivs, store.getValueToStore()))
        return std::nullopt;
      widest = std::max(widest, bytes);
      accesses = true;
      continue;
    }
    // Scalar arith ops: elementwise on vectors too. Index arithmetic (the
    // indices themselves) is not vectorised. Math functions too (the NVVM
    // lowering calls libdevice per element, amp-precise-gpu-math makes
    // sqrt and rsqrt per element), but for integer powers, which
    // amp-gpu-integer-powers rewrites on scalars only.
    bool isArith =
        op.getDialect() == op.getContext()->getLoadedDialect("arith");
    bool isMath =
        op.getDialect() == op.getContext()->getLoadedDialect("math") &&
        OpTrait::hasElementwiseMappableTraits(&op) &&
        !isa<math::FPowIOp, math::IPowIOp>(op);
    if ((!isArith && !isMath) || op.getNumRegions() != 0 ||
        !isMemoryEffectFree(&op))
      return std::nullopt;
    auto scalar = [](Type t) {
      return isa<FloatType>(t) || (isa<IntegerType>(t));
    };
    if (!llvm::all_of(op.getOperandTypes(), scalar) ||
        !llvm::all_of(op.getResultTypes(), scalar))
      return std::nullopt;
  }
  // The terminator reduces nothing.
  if (body->getTerminator()->getNumOperands() != 0 || !accesses)
    return std::nullopt;
  // The induction variables are only indices of the accesses.
  for (Value iv : ivs)
    for (Operation *user : iv.getUsers())
      if (!isa<memref::LoadOp, memref::StoreOp>(user))
        return std::nullopt;
  plan.width = vectorBytes / widest;
  if (plan.width < 2)
    return std::nullopt;
  // Every group of `width` elements lies in one row of each access (a
  // full buffer's row is the loop's static part).
  if (!fitsGroups(getFullAccess(plan.shape.size()), plan.shape, plan.width))
    return std::nullopt;
  for (const auto &entry : plan.loads)
    if (!fitsGroups(entry.second, plan.shape, plan.width))
      return std::nullopt;
  return plan;
}

/// The element of the 1-D view of a broadcast operand (`access`) at the
/// first element `offset` of a group of a loop of `shape`: the sum over its
/// dimensions d of ((offset / inner_d) mod shape[d]) times the operand's
/// stride of d, inner_d the product of the loop's sizes after d.
static Value getBroadcastIndex(OpBuilder &b, Location loc, Value offset,
                               ArrayRef<int64_t> shape,
                               const VectorAccess &access) {
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  Value index;
  int64_t stride = 1;
  for (unsigned d : llvm::reverse(access.dims)) {
    int64_t inner = 1;
    for (int64_t size : shape.drop_front(d + 1))
      inner *= size;
    Value iv = offset;
    if (inner != 1)
      iv = arith::DivUIOp::create(b, loc, iv, constant(inner));
    iv = arith::RemUIOp::create(b, loc, iv, constant(shape[d]));
    if (stride != 1)
      iv = arith::MulIOp::create(b, loc, iv, constant(stride));
    index = index ? arith::AddIOp::create(b, loc, index, iv).getResult() : iv;
    stride *= shape[d];
  }
  return index ? index : constant(0);
}

/// Rewrites a loop matchVectorisable accepted as a 1-D loop over groups of
/// `plan.width` elements: each buffer is collapsed to 1-D, each access of
/// a buffer of the loop's shape is a vector.load/store of `width` elements
/// aligned to its size (16 bytes for the widest type), a broadcast operand
/// is one vector.load at its first element's index, or one scalar load
/// broadcast, each arith op works on vectors, and values from above are
/// broadcast. Buffers must start 16-byte aligned: device allocations do
/// (cudaMalloc: 256 bytes), and so must the buffers passed to a compiled
/// function (the GPU simulator checks it). Returns the new loop.
static scf::ParallelOp vectoriseElementwise(RewriterBase &rewriter,
                                            scf::ParallelOp loop,
                                            const VectorPlan &plan) {
  Location loc = loop.getLoc();
  int64_t width = plan.width;
  rewriter.setInsertionPoint(loop);
  // The groups: the static part's, times a dynamic batch.
  int64_t staticTotal = 1;
  for (int64_t size : plan.shape)
    if (!ShapedType::isDynamic(size))
      staticTotal *= size;
  Value groups =
      arith::ConstantIndexOp::create(rewriter, loc, staticTotal / width);
  if (ShapedType::isDynamic(plan.shape.front()))
    groups =
        arith::MulIOp::create(rewriter, loc, loop.getUpperBound()[0], groups);
  // One 1-D view per buffer.
  llvm::MapVector<Value, Value> flat;
  Block *body = loop.getBody();
  for (Operation &op : body->without_terminator()) {
    Value memref;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      memref = load.getMemRef();
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      memref = store.getMemRef();
    if (!memref || flat.count(memref))
      continue;
    auto type = cast<MemRefType>(memref.getType());
    Value view = memref;
    if (type.getRank() > 1) {
      SmallVector<ReassociationIndices> all(1);
      for (int64_t d = 0; d < type.getRank(); ++d)
        all[0].push_back(d);
      view = memref::CollapseShapeOp::create(rewriter, loc, memref, all);
    }
    flat[memref] = view;
  }
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  auto vectorised = scf::ParallelOp::create(
      rewriter, loc, ValueRange{zero}, ValueRange{groups}, ValueRange{one});
  rewriter.setInsertionPointToStart(vectorised.getBody());
  Value widthValue = arith::ConstantIndexOp::create(rewriter, loc, width);
  Value offset = arith::MulIOp::create(
      rewriter, loc, vectorised.getInductionVars()[0], widthValue);
  auto vectorOf = [&](Type t) { return VectorType::get({width}, t); };
  IRMapping mapping;
  // A scalar from above the loop, as a vector.
  auto lookup = [&](Value v) -> Value {
    if (Value mapped = mapping.lookupOrNull(v))
      return mapped;
    Value splat =
        vector::BroadcastOp::create(rewriter, loc, vectorOf(v.getType()), v);
    mapping.map(v, splat);
    return splat;
  };
  for (Operation &op : body->without_terminator()) {
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      Type element = load.getType();
      const VectorAccess &access = plan.loads.at(load);
      Value index = offset;
      if (access.dims.size() != plan.shape.size())
        index = getBroadcastIndex(rewriter, load.getLoc(), offset, plan.shape,
                                  access);
      Value value;
      if (access.contiguous) {
        value = vector::LoadOp::create(
            rewriter, load.getLoc(), vectorOf(element), flat[load.getMemRef()],
            ValueRange{index}, /*nontemporal=*/false,
            llvm::MaybeAlign(width * getVectorisableBytes(element)));
      } else {
        // One element, broadcast (a 0-d buffer has no index).
        bool scalarBuffer =
            cast<MemRefType>(load.getMemRef().getType()).getRank() == 0;
        Value one = memref::LoadOp::create(
            rewriter, load.getLoc(), flat[load.getMemRef()],
            scalarBuffer ? ValueRange{} : ValueRange{index});
        value = vector::BroadcastOp::create(rewriter, load.getLoc(),
                                            vectorOf(element), one);
      }
      mapping.map(load.getResult(), value);
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      Type element = store.getValueToStore().getType();
      vector::StoreOp::create(
          rewriter, store.getLoc(), lookup(store.getValueToStore()),
          flat[store.getMemRef()], ValueRange{offset}, /*nontemporal=*/false,
          llvm::MaybeAlign(width * getVectorisableBytes(element)));
      continue;
    }
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      auto value = cast<TypedAttr>(constant.getValue());
      auto splat = arith::ConstantOp::create(
          rewriter, constant.getLoc(),
          SplatElementsAttr::get(vectorOf(value.getType()), value));
      mapping.map(constant.getResult(), splat.getResult());
      continue;
    }
    for (Value operand : op.getOperands())
      (void)lookup(operand);
    Operation *clone = rewriter.clone(op, mapping);
    for (OpResult result : clone->getResults())
      result.setType(vectorOf(result.getType()));
  }
  rewriter.eraseOp(loop);
  return vectorised;
}

/// Maps each reduction nest to blocks: one block per output, a tree across
/// its threads (with the elementwise loop that only reads its result, when
/// `fuseEpilogues`).
static void mapReductions(func::FuncOp func, bool fuseEpilogues) {
  std::vector<ReductionNest> reductions;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<gpu::LaunchOp>(op))
      return WalkResult::skip();
    if (isa<scf::ParallelOp, scf::ForOp>(op)) {
      if (std::optional<ReductionNest> nest = matchReductionNest(op)) {
        if (fuseEpilogues)
          matchReductionEpilogue(*nest);
        if (!nest->epilogue)
          matchInitFills(*nest);
        reductions.push_back(std::move(*nest));
        return WalkResult::skip();
      }
      // Other parallel loops are mapped below; a loop of other code may
      // hold reductions (a training loop).
      if (isa<scf::ParallelOp>(op))
        return WalkResult::skip();
    }
    return WalkResult::advance();
  });
  for (ReductionNest &nest : reductions)
    mapReductionToBlocks(nest, nest.outputIvs.empty() ? kScalarReductionThreads
                                                      : kRowReductionThreads);
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
/// `blockSize` (vectorising elementwise loops over whole buffers to
/// `vectorBytes` per access first).
static LogicalResult tileOutermostLoops(func::FuncOp func, unsigned blockSize,
                                        unsigned vectorBytes) {
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
    // Elementwise loops over whole buffers: one 16-byte access per thread
    // and buffer where the types allow it.
    if (std::optional<VectorPlan> plan = matchVectorisable(op, vectorBytes))
      op = vectoriseElementwise(rewriter, op, *plan);
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
    mapReductions(func, fuseReductionEpilogues);
    wrapHostMemoryCode(func);
    if (failed(tileOutermostLoops(func, blockSize, vectorBytes)))
      return signalPassFailure();
    foldTileBounds(func);
  }
};
} // namespace
