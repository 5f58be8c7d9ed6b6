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
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
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

/// True for an op that may move above the loops before it: a pure op or a
/// synchronous allocation, without regions.
static bool isMovableAllocationOrPure(Operation *op) {
  auto gpuAlloc = dyn_cast<gpu::AllocOp>(op);
  bool allocates =
      isa<memref::AllocOp>(op) || (gpuAlloc && !gpuAlloc.getAsyncToken());
  return (allocates || isPure(op)) && op->getNumRegions() == 0;
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
    if (!isMovableAllocationOrPure(op))
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

/// Whether `size` is the size of `buffer`'s dimension `dim`: its static
/// size, or for a dynamic one the allocation's operand or a `memref.dim`.
static bool isSizeOf(Value size, Value buffer, unsigned dim) {
  auto type = cast<MemRefType>(buffer.getType());
  if (!type.isDynamicDim(dim))
    return getConstantIntValue(size) == type.getDimSize(dim);
  auto dimOp = size.getDefiningOp<memref::DimOp>();
  if (dimOp && dimOp.getSource() == buffer &&
      getConstantIntValue(dimOp.getIndex()) == static_cast<int64_t>(dim))
    return true;
  ValueRange dynamicSizes;
  if (auto alloc = buffer.getDefiningOp<memref::AllocOp>())
    dynamicSizes = alloc.getDynamicSizes();
  else if (auto alloc = buffer.getDefiningOp<gpu::AllocOp>())
    dynamicSizes = alloc.getDynamicSizes();
  else
    return false;
  return dynamicSizes[type.getDynamicDimIndex(dim)] == size;
}

/// The constant that `loop` stores to every element of `buffer` (an
/// identity-layout buffer; a dynamic size its allocation's), and nothing
/// else, if it does: a bufferized `linalg.fill`.
static Value getFillValue(scf::ParallelOp loop, Value buffer) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type || !type.getLayout().isIdentity() || loop.getNumResults() != 0 ||
      loop.getNumLoops() != static_cast<unsigned>(type.getRank()) ||
      loop.getBody()->getOperations().size() != 2)
    return {};
  for (auto [dim, lb, ub, step] : llvm::enumerate(
           loop.getLowerBound(), loop.getUpperBound(), loop.getStep()))
    if (!isNormalized(lb, step) || !isSizeOf(ub, buffer, dim))
      return {};
  auto store = dyn_cast<memref::StoreOp>(loop.getBody()->front());
  if (!store || store.getMemRef() != buffer ||
      !llvm::equal(store.getIndices(), loop.getInductionVars()) ||
      !matchPattern(store.getValue(), m_Constant()))
    return {};
  return store.getValue();
}

/// Whether the nest stores every element of `store`'s buffer: each index
/// is an output loop's induction variable running over the whole dimension
/// (isSizeOf), each such variable indexes one dimension, and the others
/// have static size 1, indexed by 0.
static bool writesEveryElement(const ReductionNest &nest,
                               memref::StoreOp store) {
  Value buffer = store.getMemRef();
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type)
    return false;
  llvm::SmallPtrSet<Value, 4> seen;
  for (auto [dim, index] : llvm::enumerate(store.getIndices())) {
    auto position = llvm::find(nest.outputIvs, index);
    if (position == nest.outputIvs.end()) {
      if (type.getDimSize(dim) != 1 || !isConstantIntValue(index, 0))
        return false;
      continue;
    }
    if (!seen.insert(index).second ||
        !isSizeOf(nest.outputSizes[position - nest.outputIvs.begin()], buffer,
                  dim))
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
    if (!isMovableAllocationOrPure(op))
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

/// The body's own ops on a reduction's total: widen the initial value
/// `init`, combine it with `total`, narrow the result (the 16-bit form).
/// Returns what the nest would store; `combined`, if given, is set to the
/// value before the narrowing.
static Value combineTotal(OpBuilder &b, Accumulation &accumulation, Value init,
                          Value total, Value *combined = nullptr) {
  IRMapping mapping;
  mapping.map(accumulation.load.getResult(), init);
  if (accumulation.widen)
    b.clone(*accumulation.widen, mapping);
  Value accumulatorOperand = accumulation.accumulator();
  for (Value operand : accumulation.combine->getOperands())
    if (operand != accumulatorOperand)
      mapping.map(operand, total);
  b.clone(*accumulation.combine, mapping);
  if (combined)
    *combined = mapping.lookup(accumulation.combined());
  if (accumulation.narrow)
    b.clone(*accumulation.narrow, mapping);
  return mapping.lookup(accumulation.store.getValue());
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
    Value result = combineTotal(b, accumulation, init, total);
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

namespace {
/// A launch of one block per row (a reduction's output), and in its body the
/// block's row, its thread, and the row's length.
struct RowBlocks {
  gpu::LaunchOp launch;
  int64_t threads = 0;
  Value blockSize, thread, zero, reduced;
  /// Whether the block has a row: false in the one idle block of a dynamic
  /// count of rows that comes out 0; null where the count is static.
  Value valid;
  SmallVector<Value> rowIndices;
};

/// Copies an op of a loop body into a block's loop instead of the plain
/// clone, where it returns true; its last argument is the row's element the
/// thread is at (the loop's induction variable).
using CloneHook =
    llvm::function_ref<bool(OpBuilder &, Operation &, IRMapping &, Value)>;
} // namespace

/// Creates, at b's insertion point, a launch of one block per row of
/// `outputSizes`, each row of `reducedSizes` elements and at most
/// `maxThreads` threads (fewer, a warp multiple, for a short row), and
/// leaves b in its body after the row's indices.
static RowBlocks createRowBlocks(OpBuilder &b, Location loc,
                                 ValueRange outputSizes,
                                 ValueRange reducedSizes, unsigned maxThreads) {
  RowBlocks frame;
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  frame.zero = arith::ConstantIndexOp::create(b, loc, 0);
  auto product = [&](ValueRange sizes) {
    Value result = one;
    for (Value size : sizes)
      result = arith::MulIOp::create(b, loc, result, size);
    return result;
  };
  Value outputs = product(outputSizes);
  frame.reduced = product(reducedSizes);
  frame.threads = getReductionThreads(reducedSizes, maxThreads);
  frame.blockSize = arith::ConstantIndexOp::create(b, loc, frame.threads);
  // A dynamic count of outputs may be 0 (an empty batch), and CUDA refuses
  // a grid of 0 blocks: one block then runs, and reduces and stores nothing.
  bool mayBeEmpty = llvm::any_of(outputSizes, [](Value size) {
    std::optional<int64_t> c = getConstantIntValue(size);
    return !c || *c <= 0;
  });
  Value grid = mayBeEmpty
                   ? arith::MaxSIOp::create(b, loc, outputs, one).getResult()
                   : outputs;
  frame.launch =
      gpu::LaunchOp::create(b, loc, grid, one, one, frame.blockSize, one, one);
  b.setInsertionPointToStart(&frame.launch.getBody().front());
  Value block = frame.launch.getBlockIds().x;
  frame.thread = frame.launch.getThreadIds().x;
  if (mayBeEmpty) {
    frame.valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        block, outputs);
    frame.reduced =
        arith::SelectOp::create(b, loc, frame.valid, frame.reduced, frame.zero);
  }
  frame.rowIndices = delinearizeRowMajor(b, loc, block, outputSizes);
  return frame;
}

/// Whether the thread is the one that stores the block's totals: thread 0
/// of a block that has a row.
static Value isStoringThread(OpBuilder &b, Location loc, RowBlocks &frame) {
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      frame.thread, frame.zero);
  if (frame.valid)
    first = arith::AndIOp::create(b, loc, first, frame.valid);
  return first;
}

/// The block's threads fold the nest's elements of the row, each a strided
/// share into private accumulators started at the identities (the body
/// copied with `mapping`, which maps the output loops to the row, and
/// `hook`), and gpu.all_reduce (warp shuffles and shared memory) combines
/// the shares into the row's totals, which it returns. Where a thread folds
/// several elements, what it would compute again for each moves above its
/// loop (hoistInvariants; `written`: the buffers the kernel writes).
static SmallVector<Value>
foldRowShares(OpBuilder &b, Location loc, ReductionNest &nest, RowBlocks &frame,
              IRMapping &mapping, ArrayRef<Value> written, CloneHook hook) {
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
  auto partial = scf::ForOp::create(b, loc, frame.thread, frame.reduced,
                                    frame.blockSize, identities);
  Block *innermost = nest.firstStore()->getBlock();
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(partial.getBody());
    for (auto [iv, index] :
         llvm::zip(nest.reducedIvs,
                   delinearizeRowMajor(b, loc, partial.getInductionVar(),
                                       nest.reducedSizes)))
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
      if (!skipped.contains(&op) &&
          !(hook && hook(b, op, mapping, partial.getInductionVar())))
        b.clone(op, mapping);
    SmallVector<Value> partials;
    for (Accumulation accumulation : nest.accumulations)
      partials.push_back(mapping.lookup(accumulation.combined()));
    scf::YieldOp::create(b, loc, partials);
  }
  // Only where a thread folds several elements: with a short row (a global
  // average pool's 7x7) a thread would run the hoisted ops for at most one.
  std::optional<int64_t> staticReduced = getStaticProduct(nest.reducedSizes);
  if (!staticReduced || *staticReduced >= 2 * frame.threads)
    hoistInvariants(partial, written, frame.rowIndices);
  SmallVector<Value> totals;
  for (auto [accumulation, value] :
       llvm::zip(nest.accumulations, partial.getResults()))
    totals.push_back(gpu::AllReduceOp::create(
        b, loc, value,
        gpu::AllReduceOperationAttr::get(b.getContext(), accumulation.kind),
        /*uniform=*/true));
  return totals;
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
  RowBlocks frame =
      createRowBlocks(b, loc, nest.outputSizes, nest.reducedSizes, maxThreads);
  IRMapping mapping;
  for (auto [iv, index] : llvm::zip(nest.outputIvs, frame.rowIndices))
    mapping.map(iv, index);
  SmallVector<Value> written;
  for (Accumulation accumulation : nest.accumulations)
    written.push_back(accumulation.store.getMemRef());
  SmallVector<Value> totals =
      foldRowShares(b, loc, nest, frame, mapping, written, nullptr);
  auto ifFirst = scf::IfOp::create(b, loc, isStoringThread(b, loc, frame),
                                   /*withElseRegion=*/false);
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
// Row kernels
//===----------------------------------------------------------------------===//

/// Bytes of workgroup memory a row kernel may take for the loads it stages
/// (within the 48 KiB a block may declare statically, beside gpu.all_reduce's
/// own, and small enough that several blocks share a multiprocessor).
static constexpr int64_t kMaxStagedBytes = 16 * 1024;

namespace {
/// An index of an access in a phase of a row kernel: the k-th dimension of
/// the rows, the k-th dimension of a row's elements, or a constant.
enum class IndexKind { Row, Element, Constant };
using IndexSlot = std::pair<IndexKind, int64_t>;
using IndexForm = SmallVector<IndexSlot>;
/// The induction variables of a phase as the rows' and elements' dimensions.
using PhaseSlots = DenseMap<Value, IndexSlot>;

/// Loads of one buffer at one index form in several phases of a row kernel
/// (a softmax's scores, read by its maximum, its sum and its division): the
/// first phase's load also stores what it reads in workgroup memory, at the
/// element, and the later phases' loads read it from there. A thread reads
/// back only the elements it stored, so no barrier is needed.
struct StagedLoads {
  Value memref;
  IndexForm form;
  /// (phase, load), the first phase first.
  SmallVector<std::pair<unsigned, Operation *>> loads;
};

/// Reductions over the same rows, each perhaps reading the results of the
/// ones before it at its row, then perhaps an elementwise loop over the rows
/// and their elements that reads them there: a softmax (the row's maximum,
/// the sum of the exponentials, the division), a layer norm (the mean, the
/// variance, the normalisation). They run as phases of one kernel with a
/// block per row, and a result read at the block's row is the value its
/// phase computed, in every thread (thread 0 still stores it).
struct RowKernel {
  SmallVector<ReductionNest *> nests;
  /// Its outer loops are the rows, its inner ones the elements.
  scf::ParallelOp elementwise;
  /// The pure ops and allocations between the phases: they move above.
  SmallVector<Operation *> between;
  /// The loads of a nest's result at the block's row: (nest, accumulation).
  DenseMap<Operation *, std::pair<unsigned, unsigned>> rowResults;
  SmallVector<StagedLoads> staged;
  /// The row's length when it is static, else 0.
  int64_t rowLength = 0;
};
} // namespace

/// Whether two lists of sizes are the same: the same values or constants.
static bool isSameSizes(ValueRange a, ValueRange b) {
  if (a.size() != b.size())
    return false;
  for (auto [x, y] : llvm::zip(a, b)) {
    std::optional<int64_t> cx = getConstantIntValue(x);
    if (x != y && (!cx || cx != getConstantIntValue(y)))
      return false;
  }
  return true;
}

/// The buffer that `memref` is a view of (through every view-like op).
static Value getViewRoot(Value memref) {
  return memref::skipViewLikeOps(cast<MemrefValue>(memref));
}

/// Whether `memref` is a fresh allocation, which nothing else aliases.
static bool isAllocation(Value memref) {
  return isa_and_nonnull<memref::AllocOp, gpu::AllocOp>(memref.getDefiningOp());
}

/// The form of `indices` in a phase whose loops `slots` names, if each is a
/// loop's induction variable or a constant.
static std::optional<IndexForm> getIndexForm(ValueRange indices,
                                             const PhaseSlots &slots) {
  IndexForm form;
  for (Value index : indices) {
    if (std::optional<int64_t> c = getConstantIntValue(index)) {
      form.push_back({IndexKind::Constant, *c});
      continue;
    }
    auto slot = slots.find(index);
    if (slot == slots.end())
      return std::nullopt;
    form.push_back(slot->second);
  }
  return form;
}

/// The element of its root buffer that an access of `memref` at `form`
/// reads, as a linear function of the row's dimensions (their coefficients,
/// then a constant), if the access and the views between (reshapes only)
/// are static and contiguous and the form names no element dimension.
static std::optional<SmallVector<int64_t>>
getRowOffset(Value memref, const IndexForm &form, unsigned rows) {
  for (Value view = memref;;) {
    auto type = dyn_cast<MemRefType>(view.getType());
    if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
      return std::nullopt;
    Operation *def = view.getDefiningOp();
    if (!def || !isa<ViewLikeOpInterface>(def))
      break;
    if (!isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(def))
      return std::nullopt;
    view = cast<ViewLikeOpInterface>(def).getViewSource();
  }
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<int64_t> offset(rows + 1, 0);
  int64_t stride = 1;
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    auto [kind, value] = form[d];
    if (kind == IndexKind::Element)
      return std::nullopt;
    if (kind == IndexKind::Row)
      offset[value] += stride;
    else
      offset[rows] += value * stride;
    stride *= type.getDimSize(d);
  }
  return offset;
}

/// Whether `loop` is the elementwise phase of a row kernel over `rows` and
/// `elements`: its loops those sizes in that order, from 0 with unit steps,
/// and a body of loads, stores and pure ops.
static bool isRowElementwise(scf::ParallelOp loop, ValueRange rows,
                             ValueRange elements) {
  SmallVector<Value> sizes(rows);
  llvm::append_range(sizes, elements);
  if (loop.getNumResults() != 0 || !isSameSizes(loop.getUpperBound(), sizes) ||
      !llvm::all_of(llvm::zip(loop.getLowerBound(), loop.getStep()),
                    [](auto pair) {
                      return isNormalized(std::get<0>(pair), std::get<1>(pair));
                    }))
    return false;
  return llvm::all_of(loop.getBody()->without_terminator(), [](Operation &op) {
    return op.getNumRegions() == 0 &&
           (isa<memref::LoadOp, memref::StoreOp>(op) || isPure(&op));
  });
}

/// Whether `nest` can be a phase of a row kernel: rows, not one value; no
/// epilogue of its own; each result filled with a constant right before it
/// (folded: every thread starts from it).
static bool isRowPhase(const ReductionNest &nest) {
  return !nest.outputIvs.empty() && !nest.epilogue &&
         llvm::all_of(nest.accumulations, [](const Accumulation &a) {
           return static_cast<bool>(a.initValue);
         });
}

/// The slots of a nest's loops: its outputs are the rows, its reduced loops
/// the elements.
static PhaseSlots getPhaseSlots(const ReductionNest &nest) {
  PhaseSlots slots;
  for (auto [k, iv] : llvm::enumerate(nest.outputIvs))
    slots[iv] = {IndexKind::Row, k};
  for (auto [k, iv] : llvm::enumerate(nest.reducedIvs))
    slots[iv] = {IndexKind::Element, k};
  return slots;
}

/// The slots of the elementwise loop's: the first `rows` are the rows.
static PhaseSlots getPhaseSlots(scf::ParallelOp loop, unsigned rows) {
  PhaseSlots slots;
  for (auto [k, iv] : llvm::enumerate(loop.getInductionVars()))
    slots[iv] = k < rows ? IndexSlot{IndexKind::Row, k}
                         : IndexSlot{IndexKind::Element, k - rows};
  return slots;
}

/// Plans the reads of a row kernel's phases, false if they cannot share a
/// kernel. Each result is a fresh buffer written at the row's own element
/// (a linear function of the row's dimensions); a later phase reads it only
/// there, through reshapes at most (the value replaces the load), and an
/// earlier one not at all. The elementwise loop writes fresh buffers, which
/// the phases read at most at the element it writes, before it writes it.
/// Everything else the phases read, nothing in the kernel writes: where a later
/// phase reads a buffer at the index form an earlier one did, with a static
/// row, it is staged (StagedLoads), within kMaxStagedBytes.
static bool planRowKernel(RowKernel &kernel) {
  kernel.rowResults.clear();
  kernel.staged.clear();
  unsigned rows = kernel.nests.front()->outputIvs.size();
  SmallVector<std::pair<Block *, PhaseSlots>> phases;
  for (ReductionNest *nest : kernel.nests)
    phases.push_back({nest->firstStore()->getBlock(), getPhaseSlots(*nest)});
  if (kernel.elementwise)
    phases.push_back({kernel.elementwise.getBody(),
                      getPhaseSlots(kernel.elementwise, rows)});
  struct Result {
    Value root, memref;
    unsigned nest, accumulation;
    IndexForm form;
    std::optional<SmallVector<int64_t>> offset;
  };
  SmallVector<Result> results;
  auto findResult = [&](Value root) {
    return llvm::find_if(results,
                         [&](const Result &r) { return r.root == root; });
  };
  for (auto [i, nest] : llvm::enumerate(kernel.nests)) {
    for (auto [a, accumulation] : llvm::enumerate(nest->accumulations)) {
      Value memref = accumulation.store.getMemRef();
      Value root = getViewRoot(memref);
      std::optional<IndexForm> form =
          getIndexForm(accumulation.store.getIndices(), phases[i].second);
      if (!form ||
          llvm::any_of(*form,
                       [](IndexSlot slot) {
                         return slot.first == IndexKind::Element;
                       }) ||
          !isAllocation(root) || findResult(root) != results.end())
        return false;
      results.push_back({root, memref, static_cast<unsigned>(i),
                         static_cast<unsigned>(a), *form,
                         getRowOffset(memref, *form, rows)});
    }
  }
  // The elementwise loop's outputs, and the roots it has stored to before
  // each of its ops: it may read an output (a layer norm in place) before
  // it writes it, at the element it writes.
  struct Output {
    Value root, memref;
    IndexForm form;
  };
  SmallVector<Output> outputs;
  if (kernel.elementwise) {
    llvm::SmallPtrSet<Value, 2> stored;
    for (Operation &op : kernel.elementwise.getBody()->without_terminator()) {
      if (auto load = dyn_cast<memref::LoadOp>(op);
          load && stored.contains(getViewRoot(load.getMemRef())))
        return false;
      auto store = dyn_cast<memref::StoreOp>(op);
      if (!store)
        continue;
      Value root = getViewRoot(store.getMemRef());
      std::optional<IndexForm> form =
          getIndexForm(store.getIndices(), phases.back().second);
      if (!form || !isAllocation(root) || findResult(root) != results.end())
        return false;
      outputs.push_back({root, store.getMemRef(), *form});
      stored.insert(root);
    }
  }
  SmallVector<StagedLoads> groups;
  for (auto [p, phase] : llvm::enumerate(phases)) {
    for (auto load : phase.first->getOps<memref::LoadOp>()) {
      Value root = getViewRoot(load.getMemRef());
      std::optional<IndexForm> form =
          getIndexForm(load.getIndices(), phase.second);
      // An output is read only at the element the loop writes: the block's
      // row, which no other block touches; every phase before the
      // elementwise one ends at a barrier (gpu.all_reduce).
      if (llvm::any_of(outputs,
                       [&](const Output &o) { return o.root == root; }) &&
          (!form || llvm::none_of(outputs, [&](const Output &o) {
            return o.memref == load.getMemRef() && o.form == *form;
          })))
        return false;
      auto result = findResult(root);
      if (result != results.end()) {
        if (p == result->nest &&
            load == kernel.nests[p]->accumulations[result->accumulation].load)
          continue;
        // The element the nest stores: the same access, or the same offset
        // through reshapes.
        bool atRow =
            form && load.getMemRef() == result->memref && *form == result->form;
        if (!atRow && form && result->offset)
          atRow = getRowOffset(load.getMemRef(), *form, rows) == result->offset;
        if (p <= result->nest || !atRow)
          return false;
        kernel.rowResults[load] = {result->nest, result->accumulation};
        continue;
      }
      if (!form || llvm::none_of(*form, [](IndexSlot slot) {
            return slot.first == IndexKind::Element;
          }))
        continue;
      auto group = llvm::find_if(groups, [&](const StagedLoads &g) {
        return g.memref == load.getMemRef() && g.form == *form;
      });
      if (group == groups.end()) {
        groups.push_back({load.getMemRef(), *form, {}});
        group = std::prev(groups.end());
      }
      // A second load in the staging phase reads the buffer itself.
      if (!group->loads.empty() && group->loads.front().first == p)
        continue;
      group->loads.push_back({static_cast<unsigned>(p), load});
    }
  }
  std::optional<int64_t> length =
      getStaticProduct(kernel.nests.front()->reducedSizes);
  kernel.rowLength = length.value_or(0);
  if (!length)
    return true;
  int64_t bytes = 0;
  for (StagedLoads &group : groups) {
    Type element = cast<MemRefType>(group.memref.getType()).getElementType();
    if (group.loads.size() < 2 || !element.isIntOrFloat() ||
        element.getIntOrFloatBitWidth() % 8 != 0)
      continue;
    int64_t size = *length * element.getIntOrFloatBitWidth() / 8;
    if (bytes + size > kMaxStagedBytes)
      continue;
    bytes += size;
    kernel.staged.push_back(std::move(group));
  }
  return true;
}

/// The row kernel that starts at `reductions[first]`, if one does: the
/// reductions right after it in its block over the same rows and elements
/// (RowKernel), with only pure ops, allocations and their own fills in
/// between, then the elementwise loop over the rows and their elements if
/// it comes next; at least two phases, whose reads planRowKernel plans.
static std::optional<RowKernel>
matchRowKernel(std::vector<ReductionNest> &reductions, size_t first) {
  ReductionNest &head = reductions[first];
  if (!isRowPhase(head))
    return std::nullopt;
  RowKernel kernel;
  kernel.nests.push_back(&head);
  Operation *last = head.loops.front();
  // The first op after `last` that is neither movable nor one of `fills`;
  // the movable ones on the way go to `between`.
  auto skip = [&](const llvm::SmallPtrSetImpl<Operation *> &fills,
                  SmallVectorImpl<Operation *> &between) {
    Operation *op = last->getNextNode();
    for (; op; op = op->getNextNode()) {
      if (fills.contains(op))
        continue;
      if (!isMovableAllocationOrPure(op))
        break;
      between.push_back(op);
    }
    return op;
  };
  for (size_t next = first + 1; next < reductions.size(); ++next) {
    ReductionNest &nest = reductions[next];
    llvm::SmallPtrSet<Operation *, 4> fills;
    for (Accumulation &accumulation : nest.accumulations)
      if (accumulation.initLoop)
        fills.insert(accumulation.initLoop);
    SmallVector<Operation *> between;
    if (skip(fills, between) != nest.loops.front() || !isRowPhase(nest) ||
        !isSameSizes(nest.outputSizes, head.outputSizes) ||
        !isSameSizes(nest.reducedSizes, head.reducedSizes))
      break;
    kernel.nests.push_back(&nest);
    llvm::append_range(kernel.between, between);
    last = nest.loops.front();
  }
  size_t betweenNests = kernel.between.size();
  SmallVector<Operation *> between;
  auto loop = dyn_cast_or_null<scf::ParallelOp>(
      skip(llvm::SmallPtrSet<Operation *, 1>(), between));
  if (loop && isRowElementwise(loop, head.outputSizes, head.reducedSizes)) {
    kernel.elementwise = loop;
    llvm::append_range(kernel.between, between);
    if (planRowKernel(kernel))
      return kernel;
    kernel.elementwise = nullptr;
    kernel.between.resize(betweenNests);
  }
  if (kernel.nests.size() < 2 || !planRowKernel(kernel))
    return std::nullopt;
  return kernel;
}

/// Drops the stores of a row kernel's results that nothing reads any more
/// (a softmax's row maximum and sum), with their buffers: the buffer, its
/// views, and their deallocations have no other users.
static void dropUnreadResults(ArrayRef<memref::StoreOp> stores) {
  for (memref::StoreOp store : stores) {
    Value root = getViewRoot(store.getMemRef());
    llvm::SetVector<Operation *> dead;
    SmallVector<Value> worklist = {root};
    bool unread = true;
    while (!worklist.empty() && unread) {
      Value memref = worklist.pop_back_val();
      for (Operation *user : memref.getUsers()) {
        dead.insert(user);
        if (auto view = dyn_cast<ViewLikeOpInterface>(user);
            view && view.getViewSource() == memref)
          worklist.append(user->result_begin(), user->result_end());
        else if (!isa<memref::DeallocOp, gpu::DeallocOp>(user) &&
                 !llvm::is_contained(stores, dyn_cast<memref::StoreOp>(user)))
          unread = false;
      }
    }
    if (!unread)
      continue;
    // Users first: a view's users come after it in `dead`.
    for (Operation *op : llvm::reverse(dead)) {
      Block *block = op->getBlock();
      op->erase();
      if (auto ifOp = dyn_cast<scf::IfOp>(block->getParentOp());
          ifOp && block->getOperations().size() == 1)
        ifOp->erase();
    }
    root.getDefiningOp()->erase();
  }
}

/// Rewrites a row kernel into one launch with a block per row. Each nest's
/// phase folds the row as mapReductionToBlocks' kernel does, and every
/// thread combines the totals with the fills' constants (thread 0 stores
/// them); the elementwise phase's threads stride over the row's elements.
/// A later phase's read of a result at the row is that value; a staged load
/// is stored to workgroup memory by the first phase that reads it and read
/// from there by the later ones.
static void mapRowKernelToBlocks(RowKernel &kernel) {
  ReductionNest &head = *kernel.nests.front();
  Operation *anchor = head.loops.front();
  for (Operation *op : kernel.between)
    op->moveBefore(anchor);
  OpBuilder b(anchor);
  Location loc = anchor->getLoc();
  RowBlocks frame = createRowBlocks(b, loc, head.outputSizes, head.reducedSizes,
                                    kRowReductionThreads);
  auto workgroup = gpu::AddressSpaceAttr::get(
      b.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
  // Each staged load: its buffer, and whether it is the one that stores it.
  DenseMap<Operation *, std::pair<Value, bool>> staging;
  for (StagedLoads &group : kernel.staged) {
    auto type = MemRefType::get(
        {kernel.rowLength},
        cast<MemRefType>(group.memref.getType()).getElementType(),
        MemRefLayoutAttrInterface(), workgroup);
    Value buffer = frame.launch.addWorkgroupAttribution(type, loc);
    for (auto [i, load] : llvm::enumerate(group.loads))
      staging[load.second] = {buffer, i == 0};
  }
  SmallVector<Value> written;
  for (ReductionNest *nest : kernel.nests)
    for (Accumulation &accumulation : nest->accumulations)
      written.push_back(accumulation.store.getMemRef());
  if (kernel.elementwise)
    for (auto store : kernel.elementwise.getBody()->getOps<memref::StoreOp>())
      written.push_back(store.getMemRef());
  // Each phase's results as stored, and as combined before a narrowing.
  SmallVector<SmallVector<Value>> values, wideValues;
  SmallVector<memref::StoreOp> resultStores;
  auto hook = [&](OpBuilder &b, Operation &op, IRMapping &mapping,
                  Value element) {
    auto result = kernel.rowResults.find(&op);
    if (result != kernel.rowResults.end()) {
      mapping.map(op.getResult(0),
                  values[result->second.first][result->second.second]);
      return true;
    }
    // A narrowed result widened again (O2's f16 row maximum) is its value
    // before the narrowing: the kernel rounds only what it stores.
    if (auto widen = dyn_cast<arith::ExtFOp>(op)) {
      Operation *def = widen.getIn().getDefiningOp();
      auto loaded = def ? kernel.rowResults.find(def) : kernel.rowResults.end();
      if (loaded != kernel.rowResults.end()) {
        Value wide = wideValues[loaded->second.first][loaded->second.second];
        if (wide.getType() == widen.getType()) {
          mapping.map(widen.getResult(), wide);
          return true;
        }
      }
    }
    auto staged = staging.find(&op);
    if (staged == staging.end())
      return false;
    auto [buffer, stores] = staged->second;
    if (stores) {
      Value value = b.clone(op, mapping)->getResult(0);
      memref::StoreOp::create(b, op.getLoc(), value, buffer, element);
    } else {
      mapping.map(op.getResult(0),
                  memref::LoadOp::create(b, op.getLoc(), buffer, element));
    }
    return true;
  };
  for (ReductionNest *nest : kernel.nests) {
    IRMapping mapping;
    for (auto [iv, index] : llvm::zip(nest->outputIvs, frame.rowIndices))
      mapping.map(iv, index);
    SmallVector<Value> totals =
        foldRowShares(b, loc, *nest, frame, mapping, written, hook);
    SmallVector<Value> &phaseValues = values.emplace_back();
    SmallVector<Value> &phaseWideValues = wideValues.emplace_back();
    for (auto [accumulation, total] : llvm::zip(nest->accumulations, totals))
      phaseValues.push_back(combineTotal(b, accumulation,
                                         accumulation.initValue, total,
                                         &phaseWideValues.emplace_back()));
    auto ifFirst = scf::IfOp::create(b, loc, isStoringThread(b, loc, frame),
                                     /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifFirst.thenBlock());
    for (auto [accumulation, value] :
         llvm::zip(nest->accumulations, phaseValues)) {
      SmallVector<Value> indices;
      for (Value index : accumulation.store.getIndices())
        indices.push_back(mapping.lookupOrDefault(index));
      resultStores.push_back(memref::StoreOp::create(
          b, loc, value, accumulation.store.getMemRef(), indices));
    }
  }
  if (scf::ParallelOp loop = kernel.elementwise) {
    auto elements = scf::ForOp::create(b, loc, frame.thread, frame.reduced,
                                       frame.blockSize);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(elements.getBody());
      Value element = elements.getInductionVar();
      SmallVector<Value> indices(frame.rowIndices);
      llvm::append_range(
          indices, delinearizeRowMajor(b, loc, element, head.reducedSizes));
      IRMapping mapping;
      for (auto [iv, index] : llvm::zip(loop.getInductionVars(), indices))
        mapping.map(iv, index);
      for (Operation &op : loop.getBody()->without_terminator())
        if (!hook(b, op, mapping, element))
          b.clone(op, mapping);
    }
    if (!kernel.rowLength || kernel.rowLength >= 2 * frame.threads)
      hoistInvariants(elements, written, frame.rowIndices);
  }
  gpu::TerminatorOp::create(b, loc);
  for (ReductionNest *nest : kernel.nests) {
    nest->loops.front()->erase();
    for (Accumulation &accumulation : nest->accumulations)
      accumulation.initLoop->erase();
  }
  if (kernel.elementwise)
    kernel.elementwise->erase();
  dropUnreadResults(resultStores);
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
  // Reductions over the same rows that read each other's results, and the
  // elementwise loop after them: one kernel.
  std::vector<RowKernel> kernels;
  llvm::SmallPtrSet<ReductionNest *, 8> inKernels;
  for (size_t first = 0; options.fuseRows && first < reductions.size();) {
    std::optional<RowKernel> kernel = matchRowKernel(reductions, first);
    if (!kernel) {
      ++first;
      continue;
    }
    first += kernel->nests.size();
    inKernels.insert(kernel->nests.begin(), kernel->nests.end());
    kernels.push_back(std::move(*kernel));
  }
  for (ReductionNest &nest : reductions)
    if (!inKernels.contains(&nest))
      mapReductionToBlocks(nest, nest.outputIvs.empty()
                                     ? kScalarReductionThreads
                                     : kRowReductionThreads);
  for (RowKernel &kernel : kernels)
    mapRowKernelToBlocks(kernel);
}
