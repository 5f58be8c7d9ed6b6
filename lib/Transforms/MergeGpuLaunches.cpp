//===- MergeGpuLaunches.cpp - the amp-merge-gpu-launches pass -------------===//
//
// Part of amp-mlir. Consecutive 1-D launches of outlined kernels that do not
// depend on each other become one launch of a kernel whose blocks run one
// body or the other, as Inductor's horizontal fusion and PyTorch's
// multi-tensor apply do for the many small kernels of a training step
// (include/amp/Transforms/Passes.td).
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPMERGEGPULAUNCHESPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {
/// A launch that can be merged (or a merged group of launches): the
/// kernel, the host buffers it reads and writes (each the value it is a
/// view of), whether a body synchronises its block, and its block size.
struct LaunchSummary {
  gpu::LaunchFuncOp launch;
  gpu::GPUFuncOp kernel;
  SmallVector<Value> reads, writes;
  bool synchronises = false;
  int64_t blockSize = 0;
};
} // namespace

/// The buffer `value` is a view of (through subviews, reshapes, casts).
static Value getBuffer(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      value = view.getViewSource();
      continue;
    }
    if (auto cast = dyn_cast<memref::CastOp>(def)) {
      value = cast.getSource();
      continue;
    }
    break;
  }
  return value;
}

/// Whether `buffer` is an allocation (distinct from every other buffer).
static bool isAllocation(Value buffer) {
  return isa_and_nonnull<memref::AllocOp, memref::AllocaOp, gpu::AllocOp>(
      buffer.getDefiningOp());
}

/// Whether two host buffers (getBuffer's) may be the same memory: the same
/// value, or neither an allocation of the function (two arguments may be
/// one buffer).
static bool mayAlias(Value lhs, Value rhs) {
  return lhs == rhs || (!isAllocation(lhs) && !isAllocation(rhs));
}

static bool touches(ArrayRef<Value> buffers, Value buffer) {
  return llvm::any_of(buffers,
                      [&](Value other) { return mayAlias(other, buffer); });
}

/// Whether `op` is the x index or size of the block or grid (what a merged
/// kernel gives each body its own of).
static bool isBlockOrGridX(Operation *op) {
  if (auto id = dyn_cast<gpu::BlockIdOp>(op))
    return id.getDimension() == gpu::Dimension::x;
  if (auto size = dyn_cast<gpu::GridDimOp>(op))
    return size.getDimension() == gpu::Dimension::x;
  if (auto size = dyn_cast<gpu::BlockDimOp>(op))
    return size.getDimension() == gpu::Dimension::x;
  return false;
}

/// The summary of `launch` if it can be merged: a 1-D grid and block of
/// constant size; no async dependencies, dynamic shared memory or
/// clusters; a kernel of one block, without memory attributions, that
/// reads its block and grid x indices and sizes only in that block, and
/// whose every memory effect is on an argument (or on memory it allocates).
static std::optional<LaunchSummary> summarise(gpu::LaunchFuncOp launch,
                                              SymbolTableCollection &symbols) {
  if (!launch.getAsyncDependencies().empty() || launch.getAsyncToken() ||
      launch.getDynamicSharedMemorySize() || launch.hasClusterSize())
    return std::nullopt;
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  for (Value unit : {grid.y, grid.z, block.y, block.z})
    if (getConstantIntValue(unit) != 1)
      return std::nullopt;
  std::optional<int64_t> blockX = getConstantIntValue(block.x);
  auto kernel = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
      launch, launch.getKernel());
  if (!blockX || *blockX <= 0 || !kernel || !kernel.getBody().hasOneBlock() ||
      kernel.getNumWorkgroupAttributions() != 0 ||
      kernel.getNumPrivateAttributions() != 0 ||
      kernel.getNumArguments() != launch.getNumKernelOperands())
    return std::nullopt;
  LaunchSummary summary;
  summary.launch = launch;
  summary.kernel = kernel;
  summary.blockSize = *blockX;
  Block &entry = kernel.getBody().front();
  if (!isa<gpu::ReturnOp>(entry.getTerminator()) ||
      entry.getTerminator()->getNumOperands() != 0)
    return std::nullopt;
  WalkResult walk = kernel.walk([&](Operation *op) {
    if (isBlockOrGridX(op))
      return op->getBlock() == &entry ? WalkResult::advance()
                                      : WalkResult::interrupt();
    if (isa<gpu::BarrierOp, gpu::AllReduceOp, gpu::SubgroupReduceOp,
            gpu::ShuffleOp>(op)) {
      summary.synchronises = true;
      return WalkResult::advance();
    }
    if (op == kernel.getOperation() ||
        op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return op->getNumRegions() == 0 && isMemoryEffectFree(op)
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (MemoryEffects::EffectInstance &instance : instances) {
      Value value = instance.getValue();
      if (!value)
        return WalkResult::interrupt();
      Value buffer = getBuffer(value);
      // Memory of the kernel's own (a private array): nobody else's.
      if (isAllocation(buffer))
        continue;
      auto argument = dyn_cast<BlockArgument>(buffer);
      if (!argument || argument.getOwner() != &entry)
        return WalkResult::interrupt();
      Value host =
          getBuffer(launch.getKernelOperands()[argument.getArgNumber()]);
      if (isa<MemoryEffects::Read>(instance.getEffect()))
        summary.reads.push_back(host);
      else if (isa<MemoryEffects::Write>(instance.getEffect()))
        summary.writes.push_back(host);
      else
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return std::nullopt;
  return summary;
}

/// Whether `op`, between `first` and a later launch, may run before
/// `first` instead: pure, an allocation, or the free of a buffer `first`
/// does not touch.
static bool canRunBefore(Operation *op, const LaunchSummary &first) {
  if (isa<memref::AllocOp, memref::AllocaOp>(op))
    return true;
  if (auto alloc = dyn_cast<gpu::AllocOp>(op))
    return !alloc.getAsyncToken() && alloc.getAsyncDependencies().empty();
  Value freed;
  if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
    freed = dealloc.getMemref();
  else if (auto dealloc = dyn_cast<gpu::DeallocOp>(op);
           dealloc && !dealloc.getAsyncToken())
    freed = dealloc.getMemref();
  if (freed)
    return !touches(first.reads, getBuffer(freed)) &&
           !touches(first.writes, getBuffer(freed));
  return isMemoryEffectFree(op);
}

/// The bodies of a kernel that merged launches (its module's
/// amp.uneven_blocks), 0 for another kernel.
static int64_t getMergedBodies(gpu::GPUFuncOp kernel) {
  auto module = kernel->getParentOfType<gpu::GPUModuleOp>();
  auto bodies =
      module->getAttrOfType<IntegerAttr>(AmpDialect::kUnevenBlocksAttrName);
  return bodies ? bodies.getInt() : 0;
}

/// How many launches `summary` stands for.
static int64_t countBodies(const LaunchSummary &summary) {
  return std::max<int64_t>(1, getMergedBodies(summary.kernel));
}

/// The bytes of a kernel's parameters once lowered: a memref is its
/// descriptor (two pointers, the offset, and a size and a stride per
/// dimension), an index or integer 8 bytes at most.
static int64_t getParameterBytes(ValueRange operands) {
  int64_t bytes = 0;
  for (Type type : operands.getTypes())
    bytes += isa<MemRefType>(type)
                 ? 8 * (3 + 2 * cast<MemRefType>(type).getRank())
                 : 8;
  return bytes;
}

/// The most parameter bytes a merged kernel may take: CUDA's limit before
/// 12.1 (4 KiB; 32 KiB since, on Volta and later).
static constexpr int64_t kMaxParameterBytes = 4096;

/// Whether the launches of `first` and `second` (consecutive but for ops
/// canRunBefore accepted) can be one.
static bool canMerge(const LaunchSummary &first, const LaunchSummary &second,
                     unsigned maxBodies) {
  if (countBodies(first) + countBodies(second) > maxBodies)
    return false;
  // Both kernels' parameters and the two grid sizes.
  gpu::LaunchFuncOp a = first.launch, b = second.launch;
  if (getParameterBytes(a.getKernelOperands()) +
          getParameterBytes(b.getKernelOperands()) + 16 >
      kMaxParameterBytes)
    return false;
  // A body that synchronises its block runs in all of the block's threads.
  if ((first.synchronises && first.blockSize < second.blockSize) ||
      (second.synchronises && second.blockSize < first.blockSize))
    return false;
  for (Value written : first.writes)
    if (touches(second.reads, written) || touches(second.writes, written))
      return false;
  for (Value written : second.writes)
    if (touches(first.reads, written))
      return false;
  return true;
}

/// Clones the body of `source` (a kernel of `blockSize` threads) at
/// `builder`'s insertion point, its arguments `arguments`, its block index
/// `blockId` and its grid `gridSize` blocks; threads of the merged block
/// beyond `blockSize` skip it.
static void cloneBody(OpBuilder &builder, gpu::GPUFuncOp source,
                      ValueRange arguments, Value blockId, Value gridSize,
                      int64_t blockSize, int64_t mergedBlockSize) {
  Location loc = source.getLoc();
  OpBuilder::InsertionGuard guard(builder);
  if (blockSize < mergedBlockSize) {
    Value thread = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
    Value inBlock = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::ult, thread,
        arith::ConstantIndexOp::create(builder, loc, blockSize));
    auto guarded = scf::IfOp::create(builder, loc, inBlock);
    builder.setInsertionPoint(guarded.thenBlock()->getTerminator());
  }
  Block &entry = source.getBody().front();
  IRMapping mapping;
  mapping.map(entry.getArguments(), arguments);
  Value blockSizeValue;
  for (Operation &op : entry.without_terminator()) {
    if (!isBlockOrGridX(&op)) {
      builder.clone(op, mapping);
      continue;
    }
    Value replacement = blockId;
    if (isa<gpu::GridDimOp>(op))
      replacement = gridSize;
    else if (isa<gpu::BlockDimOp>(op)) {
      if (!blockSizeValue)
        blockSizeValue =
            arith::ConstantIndexOp::create(builder, loc, blockSize);
      replacement = blockSizeValue;
    }
    mapping.map(op.getResult(0), replacement);
  }
}

namespace {
/// A launch's operands as a merge takes them: the kernel's own, and the
/// grid size of each of its bodies (a merged kernel's trailing operands;
/// another kernel's grid).
struct LaunchOperands {
  SmallVector<Value> own, sizes;
};
} // namespace

static LaunchOperands getLaunchOperands(const LaunchSummary &summary) {
  gpu::LaunchFuncOp launch = summary.launch;
  int64_t bodies = getMergedBodies(summary.kernel);
  ValueRange operands = launch.getKernelOperands();
  LaunchOperands parts;
  llvm::append_range(parts.own, operands.drop_back(bodies));
  if (bodies)
    llvm::append_range(parts.sizes, operands.take_back(bodies));
  else
    parts.sizes.push_back(launch.getGridSizeOperandValues().x);
  return parts;
}

/// Replaces the launches of `first` and `second` by one launch, where
/// `second` was, of a new kernel in a gpu.module of its own, marked
/// amp.uneven_blocks with its number of bodies. Its arguments: both
/// kernels' own, then the grid size of each body, in block order. Returns
/// its summary.
static LaunchSummary merge(const LaunchSummary &first,
                           const LaunchSummary &second, ModuleOp module,
                           SymbolTable &moduleSymbols) {
  gpu::LaunchFuncOp a = first.launch, b = second.launch;
  MLIRContext *context = module.getContext();
  Location loc = FusedLoc::get(context, {a.getLoc(), b.getLoc()});
  OpBuilder builder(b);
  Value grid =
      arith::AddIOp::create(builder, loc, a.getGridSizeOperandValues().x,
                            b.getGridSizeOperandValues().x);
  int64_t blockSize = std::max(first.blockSize, second.blockSize);
  Value block = arith::ConstantIndexOp::create(builder, loc, blockSize);
  Value one = b.getGridSizeOperandValues().y;
  LaunchOperands partsA = getLaunchOperands(first);
  LaunchOperands partsB = getLaunchOperands(second);
  SmallVector<Value> operands(partsA.own);
  llvm::append_range(operands, partsB.own);
  llvm::append_range(operands, partsA.sizes);
  llvm::append_range(operands, partsB.sizes);

  // The kernel, in a module of its own (as outlining makes them), named
  // after the function that launches it (outlining's `<function>_kernel`).
  std::string name = "merged_kernel";
  if (auto function = b->getParentOfType<FunctionOpInterface>())
    name = (function.getName() + "_" + name).str();
  OpBuilder top = OpBuilder::atBlockEnd(module.getBody());
  auto kernelModule = gpu::GPUModuleOp::create(top, loc, name);
  moduleSymbols.insert(kernelModule);
  kernelModule->setAttr(
      AmpDialect::kUnevenBlocksAttrName,
      IntegerAttr::get(IntegerType::get(context, 32),
                       partsA.sizes.size() + partsB.sizes.size()));
  auto type = FunctionType::get(context, ValueRange(operands).getTypes(), {});
  OpBuilder inModule = OpBuilder::atBlockBegin(kernelModule.getBody());
  auto kernel = gpu::GPUFuncOp::create(inModule, loc, name, type);
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                  UnitAttr::get(context));
  kernel.setKnownBlockSizeAttr(
      DenseI32ArrayAttr::get(context, {static_cast<int32_t>(blockSize), 1, 1}));
  Block &entry = kernel.getBody().front();
  ValueRange arguments = entry.getArguments();
  size_t ownA = partsA.own.size(), ownB = partsB.own.size();
  ValueRange sizesA = arguments.slice(ownA + ownB, partsA.sizes.size());
  ValueRange sizesB = arguments.take_back(partsB.sizes.size());
  // A kernel's arguments in the new one: its own, and a merged kernel's
  // grid sizes.
  auto getArguments = [&](const LaunchSummary &side, ValueRange own,
                          ValueRange sizes) {
    SmallVector<Value> values(own);
    if (getMergedBodies(side.kernel))
      llvm::append_range(values, sizes);
    return values;
  };
  OpBuilder body = OpBuilder::atBlockBegin(&entry);
  auto sum = [&](ValueRange sizes) {
    Value total = sizes.front();
    for (Value size : sizes.drop_front())
      total = arith::AddIOp::create(body, loc, total, size);
    return total;
  };
  Value gridA = sum(sizesA);
  Value blockId = gpu::BlockIdOp::create(body, loc, gpu::Dimension::x);
  Value inFirst = arith::CmpIOp::create(body, loc, arith::CmpIPredicate::ult,
                                        blockId, gridA);
  auto choice = scf::IfOp::create(body, loc, inFirst, /*withElse=*/true);
  body.setInsertionPoint(choice.thenBlock()->getTerminator());
  cloneBody(body, first.kernel,
            getArguments(first, arguments.take_front(ownA), sizesA), blockId,
            gridA, first.blockSize, blockSize);
  body.setInsertionPoint(choice.elseBlock()->getTerminator());
  Value secondId = arith::SubIOp::create(body, loc, blockId, gridA);
  Value gridB = sum(sizesB);
  cloneBody(body, second.kernel,
            getArguments(second, arguments.slice(ownA, ownB), sizesB), secondId,
            gridB, second.blockSize, blockSize);
  body.setInsertionPointToEnd(&entry);
  gpu::ReturnOp::create(body, loc);

  auto launch = gpu::LaunchFuncOp::create(
      builder, loc, kernel, gpu::KernelDim3{grid, one, one},
      gpu::KernelDim3{block, one, one}, /*dynamicSharedMemorySize=*/Value(),
      operands);

  LaunchSummary summary;
  summary.launch = launch;
  summary.kernel = kernel;
  summary.reads = first.reads;
  llvm::append_range(summary.reads, second.reads);
  summary.writes = first.writes;
  llvm::append_range(summary.writes, second.writes);
  summary.synchronises = first.synchronises || second.synchronises;
  summary.blockSize = blockSize;
  a.erase();
  b.erase();
  return summary;
}

namespace {
struct AmpMergeGpuLaunchesPass
    : public amp::impl::AmpMergeGpuLaunchesPassBase<AmpMergeGpuLaunchesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (maxBodies < 2) {
      module.emitError() << "amp-merge-gpu-launches: max-bodies must be at "
                            "least 2, not "
                         << static_cast<unsigned>(maxBodies);
      return signalPassFailure();
    }
    SymbolTableCollection symbols;
    SymbolTable &moduleSymbols = symbols.getSymbolTable(module);
    // The blocks that hold launches (a function's, a loop's body).
    llvm::SetVector<Block *> blocks;
    module.walk(
        [&](gpu::LaunchFuncOp launch) { blocks.insert(launch->getBlock()); });
    // The kernels that merged launches no longer call.
    llvm::SetVector<gpu::GPUModuleOp> replaced;
    for (Block *block : blocks) {
      std::optional<LaunchSummary> current;
      for (Operation &op : llvm::make_early_inc_range(*block)) {
        auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
        if (!launch) {
          if (current && !canRunBefore(&op, *current))
            current.reset();
          continue;
        }
        std::optional<LaunchSummary> next = summarise(launch, symbols);
        if (!current || !next || !canMerge(*current, *next, maxBodies)) {
          current = std::move(next);
          continue;
        }
        for (const LaunchSummary *old : {&*current, &*next})
          replaced.insert(old->kernel->getParentOfType<gpu::GPUModuleOp>());
        current = merge(*current, *next, module, moduleSymbols);
      }
    }
    for (gpu::GPUModuleOp kernelModule : replaced)
      if (SymbolTable::symbolKnownUseEmpty(kernelModule, module))
        moduleSymbols.erase(kernelModule);
  }
};
} // namespace
