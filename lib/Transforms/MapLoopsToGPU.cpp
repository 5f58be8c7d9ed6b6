//===- MapLoopsToGPU.cpp - the amp-map-loops-to-gpu pass ------------------===//
//
// Part of amp-mlir. Prepares the loops of a bufferized function for
// gpu-map-parallel-loops and convert-parallel-loops-to-gpu: every outermost
// scf.parallel is tiled so that its innermost dimension runs `block-size`
// threads per block (the other dimensions one), and host code that touches
// memory outside any parallel loop (the loops of a 0-d reduction, a store)
// is wrapped in a one-iteration scf.parallel, so that it runs on the device
// where its buffers live. Reductions become one block per output first
// (amp/Transforms/ReductionKernels.h).
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"
#include "amp/Transforms/ReductionKernels.h"

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
    ReductionKernelOptions reductions;
    reductions.fuseEpilogues = fuseReductionEpilogues;
    reductions.fuseRows = fuseRows;
    mapReductionsToBlocks(func, reductions);
    wrapHostMemoryCode(func);
    if (failed(tileOutermostLoops(func, blockSize, vectorBytes)))
      return signalPassFailure();
    foldTileBounds(func);
  }
};
} // namespace
