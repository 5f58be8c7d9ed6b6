//===- ReductionKernels.cpp - reductions as one block per output ----------===//
//
// Part of amp-mlir. See amp/Transforms/ReductionKernels.h.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/ReductionKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::amp;

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

void mlir::amp::mapReductionsToBlocks(func::FuncOp func,
                                      const ReductionKernelOptions &options) {
  std::vector<ReductionNest> reductions;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<gpu::LaunchOp>(op))
      return WalkResult::skip();
    if (isa<scf::ParallelOp, scf::ForOp>(op)) {
      if (std::optional<ReductionNest> nest = matchReductionNest(op)) {
        if (options.fuseEpilogues)
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
