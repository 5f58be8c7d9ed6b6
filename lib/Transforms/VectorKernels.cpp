//===- VectorKernels.cpp - elementwise loops as vectorised kernels -------===//
//
// Part of amp-mlir. amp-map-loops-to-gpu's kernels for elementwise loops
// over whole buffers (amp/Transforms/VectorKernels.h): 16-byte vector
// accesses, several groups per thread with their loads issued first, a
// contiguous share of the groups per block of a grid sized to the chip, and
// a scalar tail.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/VectorKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::amp;

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
namespace {
struct VectorAccess {
  SmallVector<unsigned, 4> dims;
  bool contiguous = true;
};

/// An elementwise loop `vectoriseElementwise` rewrites, as it will: its
/// sizes (the first may be dynamic: a batch), the vector length, how each
/// load reads, and whether the element count may not be a multiple of the
/// vector length (a scalar tail).
struct VectorPlan {
  SmallVector<int64_t, 4> shape;
  int64_t width = 0;
  DenseMap<Operation *, VectorAccess> loads;
  bool tail = false;
};
} // namespace

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

/// The product of the static sizes of `shape` (a dynamic batch left out).
static int64_t getStaticElements(ArrayRef<int64_t> shape) {
  int64_t elements = 1;
  for (int64_t size : shape)
    if (!ShapedType::isDynamic(size))
      elements *= size;
  return elements;
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
/// also of broadcast operands) and arith ops on scalars. Every group of
/// the vector length lies in one row of each access; or, where the element
/// count is no multiple of it, every access is of the whole buffer or of
/// one element (the groups are the elements' flat order, and what is left
/// over is a scalar tail). Returns the plan, or none.
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
  if (fitsGroups(getFullAccess(plan.shape.size()), plan.shape, plan.width)) {
    for (const auto &entry : plan.loads)
      if (!fitsGroups(entry.second, plan.shape, plan.width))
        return std::nullopt;
    return plan;
  }
  // Else whole groups of the flat order and a scalar tail, where no access
  // is a row broadcast (a group would straddle two of its rows) and there
  // is at least one whole group.
  for (const auto &entry : plan.loads)
    if (!entry.second.dims.empty() &&
        entry.second.dims.size() != plan.shape.size())
      return std::nullopt;
  int64_t staticTotal = getStaticElements(plan.shape);
  if (!ShapedType::isDynamic(plan.shape.front()) && staticTotal < plan.width)
    return std::nullopt;
  plan.tail = true;
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

/// Collapses each buffer the body of `loop` accesses to 1-D (a 0-d or 1-D
/// buffer stays as it is), at the current insertion point.
static llvm::MapVector<Value, Value> getFlatViews(OpBuilder &b,
                                                  scf::ParallelOp loop) {
  llvm::MapVector<Value, Value> flat;
  for (Operation &op : loop.getBody()->without_terminator()) {
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
      view = memref::CollapseShapeOp::create(b, loop.getLoc(), memref, all);
    }
    flat[memref] = view;
  }
  return flat;
}

namespace {
/// Emits the body of a loop matchVectorisable accepted on groups of
/// `plan.width` elements, or on one element of the scalar tail.
class BodyEmitter {
public:
  BodyEmitter(scf::ParallelOp loop, const VectorPlan &plan,
              const llvm::MapVector<Value, Value> &flat)
      : body(loop.getBody()), plan(plan), flat(flat) {}

  /// The body on the groups that start at the elements `offsets`, op by op
  /// (each op for every group before the next: all groups' loads are
  /// issued before their math). An access of a buffer of the loop's shape
  /// is a vector.load/store aligned to its size (16 bytes for the widest
  /// type), a broadcast operand one vector.load at its first element's
  /// index or one scalar load broadcast, each arith op works on vectors,
  /// and values from above are broadcast.
  void emitGroups(OpBuilder &b, ArrayRef<Value> offsets) const;

  /// The scalar body on the element `index` of the flat order (the tail: a
  /// plan whose accesses are all whole buffers or single elements).
  void emitElement(OpBuilder &b, Value index) const;

private:
  VectorType vectorOf(Type type) const {
    return VectorType::get({plan.width}, type);
  }
  void emitGroupOp(OpBuilder &b, Operation &op, Value offset,
                   IRMapping &mapping) const;

  Block *body;
  const VectorPlan &plan;
  const llvm::MapVector<Value, Value> &flat;
};
} // namespace

void BodyEmitter::emitGroups(OpBuilder &b, ArrayRef<Value> offsets) const {
  SmallVector<IRMapping> mappings(offsets.size());
  for (Operation &op : body->without_terminator())
    for (auto [offset, mapping] : llvm::zip(offsets, mappings))
      emitGroupOp(b, op, offset, mapping);
}

void BodyEmitter::emitGroupOp(OpBuilder &b, Operation &op, Value offset,
                              IRMapping &mapping) const {
  Location loc = op.getLoc();
  int64_t width = plan.width;
  // A scalar from above the loop, as a vector.
  auto lookup = [&](Value v) -> Value {
    if (Value mapped = mapping.lookupOrNull(v))
      return mapped;
    Value splat = vector::BroadcastOp::create(b, loc, vectorOf(v.getType()), v);
    mapping.map(v, splat);
    return splat;
  };
  if (auto load = dyn_cast<memref::LoadOp>(op)) {
    Type element = load.getType();
    const VectorAccess &access = plan.loads.at(load);
    Value index = offset;
    if (access.dims.size() != plan.shape.size())
      index = getBroadcastIndex(b, loc, offset, plan.shape, access);
    Value value;
    Value buffer = flat.lookup(load.getMemRef());
    if (access.contiguous) {
      value = vector::LoadOp::create(
          b, loc, vectorOf(element), buffer, ValueRange{index},
          /*nontemporal=*/false,
          llvm::MaybeAlign(width * getVectorisableBytes(element)));
    } else {
      // One element, broadcast (a 0-d buffer has no index).
      bool scalarBuffer = cast<MemRefType>(buffer.getType()).getRank() == 0;
      Value one = memref::LoadOp::create(
          b, loc, buffer, scalarBuffer ? ValueRange{} : ValueRange{index});
      value = vector::BroadcastOp::create(b, loc, vectorOf(element), one);
    }
    mapping.map(load.getResult(), value);
    return;
  }
  if (auto store = dyn_cast<memref::StoreOp>(op)) {
    Type element = store.getValueToStore().getType();
    vector::StoreOp::create(
        b, loc, lookup(store.getValueToStore()), flat.lookup(store.getMemRef()),
        ValueRange{offset},
        /*nontemporal=*/false,
        llvm::MaybeAlign(width * getVectorisableBytes(element)));
    return;
  }
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    auto value = cast<TypedAttr>(constant.getValue());
    auto splat = arith::ConstantOp::create(
        b, loc, SplatElementsAttr::get(vectorOf(value.getType()), value));
    mapping.map(constant.getResult(), splat.getResult());
    return;
  }
  for (Value operand : op.getOperands())
    (void)lookup(operand);
  Operation *clone = b.clone(op, mapping);
  for (OpResult result : clone->getResults())
    result.setType(vectorOf(result.getType()));
}

void BodyEmitter::emitElement(OpBuilder &b, Value index) const {
  IRMapping mapping;
  // The index of a buffer's one element (a scalar operand), or `index`.
  auto indexOf = [&](Value buffer, bool whole) -> SmallVector<Value, 1> {
    if (cast<MemRefType>(buffer.getType()).getRank() == 0)
      return {};
    if (whole)
      return {index};
    return {arith::ConstantIndexOp::create(b, buffer.getLoc(), 0)};
  };
  for (Operation &op : body->without_terminator()) {
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      Value buffer = flat.lookup(load.getMemRef());
      bool whole = plan.loads.at(load).dims.size() == plan.shape.size();
      Value value = memref::LoadOp::create(b, load.getLoc(), buffer,
                                           indexOf(buffer, whole));
      mapping.map(load.getResult(), value);
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      Value buffer = flat.lookup(store.getMemRef());
      memref::StoreOp::create(b, store.getLoc(),
                              mapping.lookupOrDefault(store.getValueToStore()),
                              buffer, indexOf(buffer, /*whole=*/true));
      continue;
    }
    b.clone(op, mapping);
  }
}

namespace {
/// The grid of a vectorised kernel (buildVectorKernel): threads per block,
/// groups per thread and step, and either one group per thread or each
/// block's share of the groups; the blocks.
struct KernelGrid {
  int64_t threads = 0, perThread = 1;
  bool oneGroupEach = false;
  Value blocks, share;
};
} // namespace

/// The grid of a vectorised kernel over `groups` (a constant where
/// `staticGroups`), built at the current insertion point.
static KernelGrid getKernelGrid(OpBuilder &b, Location loc, Value groups,
                                std::optional<int64_t> staticGroups,
                                const VectorKernelOptions &options) {
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  KernelGrid grid;
  // The grid: threads per block (a loop of fewer groups is one block of
  // exactly its length), each block's share of the groups, and the blocks.
  int64_t threads = options.blockSize;
  if (staticGroups && *staticGroups < threads)
    threads = *staticGroups;
  grid.threads = threads;
  grid.perThread = std::max<unsigned>(options.vectorsPerThread, 1);
  Value &blocks = grid.blocks, &share = grid.share;
  bool &oneGroupEach = grid.oneGroupEach;
  if (staticGroups) {
    int64_t needed = llvm::divideCeil(*staticGroups, threads);
    oneGroupEach = options.maxBlocks <= 0 || needed <= options.maxBlocks;
    if (oneGroupEach) {
      blocks = constant(needed);
    } else {
      int64_t perBlock = llvm::alignTo(
          llvm::divideCeil(*staticGroups, options.maxBlocks), threads);
      share = constant(perBlock);
      blocks = constant(llvm::divideCeil(*staticGroups, perBlock));
    }
  } else {
    // ceil(ceil(groups / maxBlocks) / threads) * threads, at least one
    // group per thread; the blocks that takes, at least 1 (CUDA refuses a
    // grid of 0 blocks: an empty batch is one idle block).
    Value rounds = constant(1);
    if (options.maxBlocks > 0) {
      Value perBlock = arith::CeilDivUIOp::create(b, loc, groups,
                                                  constant(options.maxBlocks));
      rounds = arith::MaxUIOp::create(
          b, loc,
          arith::CeilDivUIOp::create(b, loc, perBlock, constant(threads)),
          rounds);
    }
    share = arith::MulIOp::create(b, loc, rounds, constant(threads));
    blocks = arith::MaxUIOp::create(
        b, loc, arith::CeilDivUIOp::create(b, loc, groups, share), constant(1));
  }
  return grid;
}

/// The kernel of a loop matchVectorisable accepted, in place of it: a
/// blocks' loop and a threads' loop (block-size threads, fewer for fewer
/// groups). Where one group per thread covers the loop within
/// options.maxBlocks blocks (or there is no limit and the size is static),
/// each thread takes its group. Else each block takes a contiguous share
/// of the groups, a multiple of block-size (every block's but the last's
/// the same, as few blocks as options.maxBlocks allows), in steps of
/// block-size x vectorsPerThread groups: in a whole step each thread takes
/// vectorsPerThread groups a block apart (each a coalesced access of the
/// block's threads), their loads issued before their math; in a step that
/// is not whole (a share's last) each group alone, if in range. The
/// condition is the same for a whole block. A tail of fewer elements than
/// a group is taken by the last block's first thread, one element at a
/// time. (Every block but the last then does the same work, which the GPU
/// simulator's count-only mode takes as given.)
static void buildVectorKernel(RewriterBase &rewriter, scf::ParallelOp loop,
                              const VectorPlan &plan,
                              const VectorKernelOptions &options) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  int64_t width = plan.width;
  // The elements and the whole groups: the static part's, times a dynamic
  // batch.
  int64_t staticTotal = getStaticElements(plan.shape);
  bool dynamic = ShapedType::isDynamic(plan.shape.front());
  std::optional<int64_t> staticGroups;
  Value groups, total;
  if (!dynamic) {
    staticGroups = staticTotal / width;
    groups = constant(*staticGroups);
    total = constant(staticTotal);
  } else if (plan.tail) {
    total = arith::MulIOp::create(rewriter, loc, loop.getUpperBound()[0],
                                  constant(staticTotal));
    groups = arith::DivUIOp::create(rewriter, loc, total, constant(width));
  } else {
    groups = arith::MulIOp::create(rewriter, loc, loop.getUpperBound()[0],
                                   constant(staticTotal / width));
  }
  llvm::MapVector<Value, Value> flat = getFlatViews(rewriter, loop);
  BodyEmitter emitter(loop, plan, flat);

  KernelGrid shape =
      getKernelGrid(rewriter, loc, groups, staticGroups, options);
  int64_t threads = shape.threads, perThread = shape.perThread,
          step = threads * perThread;
  Value blocks = shape.blocks, share = shape.share;
  Value zero = constant(0), one = constant(1);
  auto grid = scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                                      ValueRange{blocks}, ValueRange{one});
  rewriter.setInsertionPointToStart(grid.getBody());
  auto block =
      scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                              ValueRange{constant(threads)}, ValueRange{one});
  rewriter.setInsertionPointToStart(block.getBody());
  Value blockId = grid.getInductionVars()[0];
  Value threadId = block.getInductionVars()[0];
  auto offsetOf = [&](Value group) -> Value {
    return arith::MulIOp::create(rewriter, loc, group, constant(width));
  };
  // Emits `emit` where `group` is below `end` (unconditionally where it is
  // known to be).
  auto ifBelow = [&](Value group, Value end, bool known,
                     llvm::function_ref<void()> emit) {
    if (known)
      return emit();
    Value inRange = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ult, group, end);
    auto guarded = scf::IfOp::create(rewriter, loc, inRange);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(guarded.thenBlock());
    emit();
  };
  if (shape.oneGroupEach) {
    Value group = arith::AddIOp::create(
        rewriter, loc,
        arith::MulIOp::create(rewriter, loc, blockId, constant(threads)),
        threadId);
    bool exact = *staticGroups % threads == 0;
    ifBelow(group, groups, exact,
            [&] { emitter.emitGroups(rewriter, {offsetOf(group)}); });
  } else {
    Value start = arith::MulIOp::create(rewriter, loc, blockId, share);
    Value end = arith::MinUIOp::create(
        rewriter, loc, arith::AddIOp::create(rewriter, loc, start, share),
        groups);
    auto steps = scf::ForOp::create(rewriter, loc, start, end, constant(step));
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(steps.getBody());
    Value base = steps.getInductionVar();
    Value first = arith::AddIOp::create(rewriter, loc, base, threadId);
    auto groupAt = [&](Value k) -> Value {
      return arith::AddIOp::create(
          rewriter, loc, first,
          arith::MulIOp::create(rewriter, loc, k, constant(threads)));
    };
    auto eachAlone = [&] {
      auto each =
          scf::ForOp::create(rewriter, loc, zero, constant(perThread), one);
      OpBuilder::InsertionGuard inner(rewriter);
      rewriter.setInsertionPointToStart(each.getBody());
      Value group = groupAt(each.getInductionVar());
      ifBelow(group, end, /*known=*/false,
              [&] { emitter.emitGroups(rewriter, {offsetOf(group)}); });
    };
    Value whole = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ule,
        arith::AddIOp::create(rewriter, loc, base, constant(step)), end);
    auto ifWhole = scf::IfOp::create(rewriter, loc, whole,
                                     /*withElseRegion=*/true);
    rewriter.setInsertionPointToStart(ifWhole.thenBlock());
    SmallVector<Value> offsets;
    for (int64_t k = 0; k < perThread; ++k)
      offsets.push_back(offsetOf(groupAt(constant(k))));
    emitter.emitGroups(rewriter, offsets);
    rewriter.setInsertionPointToStart(ifWhole.elseBlock());
    eachAlone();
  }
  if (plan.tail) {
    Value lastBlock = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, blockId,
        arith::SubIOp::create(rewriter, loc, blocks, one));
    Value firstThread = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, threadId, zero);
    auto ifTaker = scf::IfOp::create(
        rewriter, loc,
        arith::AndIOp::create(rewriter, loc, lastBlock, firstThread));
    rewriter.setInsertionPointToStart(ifTaker.thenBlock());
    auto tail = scf::ForOp::create(rewriter, loc, offsetOf(groups), total, one);
    rewriter.setInsertionPointToStart(tail.getBody());
    emitter.emitElement(rewriter, tail.getInductionVar());
  }
  rewriter.eraseOp(loop);
}

bool mlir::amp::mapVectorisableLoop(RewriterBase &rewriter,
                                    scf::ParallelOp loop,
                                    const VectorKernelOptions &options) {
  std::optional<VectorPlan> plan = matchVectorisable(loop, options.vectorBytes);
  if (!plan)
    return false;
  buildVectorKernel(rewriter, loop, *plan, options);
  return true;
}
