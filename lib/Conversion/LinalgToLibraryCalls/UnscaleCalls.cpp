//===- UnscaleCalls.cpp - check finite and unscale as a call --------------===//
//
// Part of amp-mlir. Check finite and unscale as a table call: part of
// amp-linalg-to-library-calls (LinalgToLibraryCalls.cpp).
//
//===----------------------------------------------------------------------===//

#include "LibraryCallLowering.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace amp {
namespace library_calls {

static bool isDenseBuffer(MemRefType type) {
  if (type.getLayout().isIdentity())
    return true;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  int64_t expected = 1;
  for (int64_t i = type.getRank() - 1; i >= 0; --i) {
    if (type.getDimSize(i) == 1)
      continue;
    if (ShapedType::isDynamic(strides[i]) || strides[i] != expected ||
        ShapedType::isDynamic(type.getDimSize(i)))
      return false;
    expected *= type.getDimSize(i);
  }
  return true;
}

FailureOr<UnscaleEntry>
Lowering::matchCheckFiniteAndUnscale(linalg::GenericOp op, std::string &why) {
  // ins(gradient, inverse scale) outs(unscaled, flag), as emitted by
  // amp-lower-loss-scaling with the scale in a 0-d tensor.
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 2) {
    why = "the scale is a host scalar (hold the scaler state in 0-d tensors "
          "on the GPU)";
    return failure();
  }
  UnscaleEntry entry;
  entry.op = op;
  entry.in = op.getDpsInputOperand(0)->get();
  entry.inverse = op.getDpsInputOperand(1)->get();
  entry.out = op.getDpsInitOperand(0)->get();
  entry.flag = op.getDpsInitOperand(1)->get();
  auto inType = dyn_cast<MemRefType>(entry.in.getType());
  auto outType = dyn_cast<MemRefType>(entry.out.getType());
  auto inverseType = dyn_cast<MemRefType>(entry.inverse.getType());
  auto flagType = dyn_cast<MemRefType>(entry.flag.getType());
  if (!inType || !outType || !inverseType || !flagType) {
    why = "operands must be memrefs";
    return failure();
  }
  if (!isDenseBuffer(inType) || !isDenseBuffer(outType)) {
    why = "the gradient buffers must be contiguous";
    return failure();
  }
  entry.dtype = getDTypeCode(inType.getElementType());
  if (entry.dtype < 0 || inType.getElementType() != outType.getElementType()) {
    why = "gradients must be f32, f16 or bf16";
    return failure();
  }
  if (inverseType.getRank() != 0 || flagType.getRank() != 0) {
    why = "the scale and the flag must be 0-d buffers";
    return failure();
  }
  return entry;
}

Value Lowering::buildNumel(Location loc, Value in) {
  auto inType = cast<MemRefType>(in.getType());
  // The element count: static, or the product of the dynamic sizes.
  Value numel = i64c(loc, 1);
  int64_t staticCount = 1;
  for (int64_t i = 0, e = inType.getRank(); i < e; ++i) {
    if (!inType.isDynamicDim(i)) {
      staticCount *= inType.getDimSize(i);
      continue;
    }
    Value size = memref::DimOp::create(b, loc, in, i);
    numel = arith::MulIOp::create(
        b, loc, numel, arith::IndexCastOp::create(b, loc, i64, size));
  }
  if (staticCount != 1)
    numel = arith::MulIOp::create(b, loc, numel, i64c(loc, staticCount));
  return numel;
}

void Lowering::lowerCheckFiniteAndUnscaleGroup(ArrayRef<UnscaleEntry> group) {
  // The table: three host arrays in the function's entry block (allocated
  // once per call of the function, not per loop iteration), filled right
  // before the call, which reads them before it returns.
  linalg::GenericOp last = group.back().op;
  Location loc = last.getLoc();
  auto func = last->getParentOfType<FunctionOpInterface>();
  int64_t count = static_cast<int64_t>(group.size());
  b.setInsertionPointToStart(&func.getFunctionBody().front());
  Value size =
      LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(count));
  Value ins = LLVM::AllocaOp::create(b, loc, ptr, ptr, size);
  Value outs = LLVM::AllocaOp::create(b, loc, ptr, ptr, size);
  Value numels = LLVM::AllocaOp::create(b, loc, ptr, i64, size);
  Value dtypes = LLVM::AllocaOp::create(b, loc, ptr, i32, size);
  b.setInsertionPoint(last);
  auto store = [&](Value array, Type element, int64_t index, Value value) {
    Value slot = LLVM::GEPOp::create(
        b, loc, ptr, element, array,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(index)});
    LLVM::StoreOp::create(b, loc, value, slot);
  };
  for (auto [index, entry] : llvm::enumerate(group)) {
    int64_t k = static_cast<int64_t>(index);
    store(ins, ptr, k, getPointer(b, loc, entry.in));
    store(outs, ptr, k, getPointer(b, loc, entry.out));
    store(numels, i64, k, buildNumel(loc, entry.in));
    store(dtypes, i32, k, i32c(loc, entry.dtype));
  }
  SmallVector<Value> args = {i64c(loc, count),
                             ins,
                             outs,
                             numels,
                             dtypes,
                             getPointer(b, loc, group.front().inverse),
                             getPointer(b, loc, group.front().flag)};
  if (failed(emitCall(last, RuntimeFunction::ampGpuCheckFiniteAndUnscaleBuffers,
                      args)))
    return; // Reported; the pass fails.
  for (const UnscaleEntry &entry : group)
    entry.op->erase();
}

/// Whether `next` can join the table of `group` (one call at `next`): the
/// same block, inverse scale and flag buffer, and nothing in between that
/// touches memory (that could read a gradient the call has not written yet,
/// or write one it reads) other than allocating.
bool canJoin(ArrayRef<UnscaleEntry> group, const UnscaleEntry &next) {
  const UnscaleEntry &last = group.back();
  if (last.op->getBlock() != next.op->getBlock() ||
      last.inverse != next.inverse || last.flag != next.flag ||
      !last.op->isBeforeInBlock(next.op))
    return false;
  for (Operation *op = last.op->getNextNode(); op != next.op;
       op = op->getNextNode()) {
    if (isMemoryEffectFree(op))
      continue;
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects || op->getNumRegions() != 0)
      return false;
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (const MemoryEffects::EffectInstance &effect : list)
      if (!isa<MemoryEffects::Allocate>(effect.getEffect()))
        return false;
  }
  return true;
}

/// The convolutions that the CPU pipeline leaves to the loops with a remark
/// when they have no library call: linalg's named convolutions (pooling
/// aside).

} // namespace library_calls
} // namespace amp
} // namespace mlir
