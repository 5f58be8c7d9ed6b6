//===- UnscaleCalls.cpp - check finite and unscale as a call --------------===//
//
// Part of amp-mlir. amp.unscale_gradients on buffers (what
// amp-lower-loss-scaling makes of amp.check_finite_and_unscale for library
// calls) as one call of the runtime's multi-tensor unscale: part of
// amp-linalg-to-library-calls (LinalgToLibraryCalls.cpp).
//
//===----------------------------------------------------------------------===//

#include "LibraryCallLowering.h"

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

LogicalResult Lowering::lowerUnscaleGradients(UnscaleGradientsOp op,
                                              std::string &why) {
  if (isa<TensorType>(op.getFlag().getType())) {
    why = "the op is on tensors (run after bufferization)";
    return failure();
  }
  if (!isa<MemRefType>(op.getInverse().getType())) {
    why = "the scale is a host scalar (hold the scaler state in 0-d tensors "
          "on the GPU)";
    return failure();
  }
  SmallVector<int32_t> dtypes;
  for (auto [gradient, output] :
       llvm::zip_equal(op.getGradients(), op.getOutputs())) {
    auto inType = cast<MemRefType>(gradient.getType());
    if (!isDenseBuffer(inType) ||
        !isDenseBuffer(cast<MemRefType>(output.getType()))) {
      why = "the gradient buffers must be contiguous";
      return failure();
    }
    int32_t dtype = getDTypeCode(inType.getElementType());
    if (dtype < 0) {
      why = "gradients must be f32, f16 or bf16";
      return failure();
    }
    dtypes.push_back(dtype);
  }

  // The table: four host arrays in the function's entry block (allocated
  // once per call of the function, not per loop iteration), filled right
  // before the call, which reads them before it returns.
  Location loc = op.getLoc();
  auto func = op->getParentOfType<FunctionOpInterface>();
  int64_t count = static_cast<int64_t>(dtypes.size());
  b.setInsertionPointToStart(&func.getFunctionBody().front());
  Value size =
      LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(count));
  Value ins = LLVM::AllocaOp::create(b, loc, ptr, ptr, size);
  Value outs = LLVM::AllocaOp::create(b, loc, ptr, ptr, size);
  Value numels = LLVM::AllocaOp::create(b, loc, ptr, i64, size);
  Value codes = LLVM::AllocaOp::create(b, loc, ptr, i32, size);
  b.setInsertionPoint(op);
  auto store = [&](Value array, Type element, int64_t index, Value value) {
    Value slot = LLVM::GEPOp::create(
        b, loc, ptr, element, array,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(index)});
    LLVM::StoreOp::create(b, loc, value, slot);
  };
  for (auto [index, gradient, output] :
       llvm::enumerate(op.getGradients(), op.getOutputs())) {
    int64_t k = static_cast<int64_t>(index);
    store(ins, ptr, k, getPointer(b, loc, gradient));
    store(outs, ptr, k, getPointer(b, loc, output));
    store(numels, i64, k, buildNumel(loc, gradient));
    store(codes, i32, k, i32c(loc, dtypes[index]));
  }
  SmallVector<Value> args = {i64c(loc, count),
                             ins,
                             outs,
                             numels,
                             codes,
                             getPointer(b, loc, op.getInverse()),
                             getPointer(b, loc, op.getFlag())};
  if (succeeded(emitCall(
          op, RuntimeFunction::ampGpuCheckFiniteAndUnscaleBuffers, args)))
    op->erase();
  // Else reported; the pass fails.
  return success();
}

} // namespace library_calls
} // namespace amp
} // namespace mlir
