//===- UnscaleToLibraryCalls.cpp - the unscale as one runtime call --------===//
//
// Part of amp-mlir. amp.unscale_gradients on device buffers as one call of
// the runtime's multi-tensor unscale (a family of amp-to-library-calls,
// AmpToLibraryCalls.cpp):
//
//   amp.unscale_gradients ins(%g0, %g1 : memref<8xf32>, memref<?xbf16>)
//       by %inverse : memref<f32> outs(%o0, %o1, %flag : ...)
//   // becomes, with host arrays of the function's entry block
//   %ins = llvm.alloca %c2 x !llvm.ptr     (and %outs, %numels, %dtypes)
//   llvm.store (pointer of %g0), %ins ...  (one entry per gradient)
//   call @ampGpuCheckFiniteAndUnscaleBuffers(%c2, %ins, %outs, %numels,
//       %dtypes, (pointer of %inverse), (pointer of %flag))
//
// The call reads the inverse scale and ORs into the flag on the device (no
// host synchronisation), one launch for every gradient.
//
//===----------------------------------------------------------------------===//

#include "HostTables.h"
#include "amp/Conversion/AmpToLibraryCalls/AmpToLibraryCalls.h"
#include "amp/Conversion/RuntimeCalls.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::amp;

std::optional<std::string>
mlir::amp::getUnscaleCallMismatch(UnscaleGradientsOp op) {
  if (isa<TensorType>(op.getFlag().getType()))
    return std::string("the op is on tensors (run after bufferization)");
  if (!isa<MemRefType>(op.getInverse().getType()))
    return std::string("the scale is a host scalar (hold the scaler state in "
                       "0-d tensors on the GPU)");
  for (auto [gradient, output] :
       llvm::zip_equal(op.getGradients(), op.getOutputs())) {
    auto type = cast<MemRefType>(gradient.getType());
    if (!isDenseBuffer(type) ||
        !isDenseBuffer(cast<MemRefType>(output.getType())))
      return std::string("the gradient buffers must be contiguous");
    Type element = type.getElementType();
    if (!element.isF32() && !element.isF16() && !element.isBF16())
      return std::string("gradients must be f32, f16 or bf16");
  }
  return std::nullopt;
}

namespace {
struct UnscaleGradientsToLibraryCall
    : public OpRewritePattern<UnscaleGradientsOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(UnscaleGradientsOp op,
                                PatternRewriter &rewriter) const override {
    if (std::optional<std::string> why = getUnscaleCallMismatch(op))
      return rewriter.notifyMatchFailure(op, *why);
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    Type ptr = LLVM::LLVMPointerType::get(rewriter.getContext());
    auto constant = [&](int64_t value, unsigned width) -> Value {
      return arith::ConstantIntOp::create(rewriter, loc, value, width);
    };

    // The table: four host arrays, filled right before the call.
    int64_t count = static_cast<int64_t>(op.getGradients().size());
    HostTable table(rewriter, op, count);
    Value ins = table.addArray(ptr), outs = table.addArray(ptr);
    Value numels = table.addArray(i64), dtypes = table.addArray(i32);
    for (auto [index, gradient, output] :
         llvm::enumerate(op.getGradients(), op.getOutputs())) {
      int64_t k = static_cast<int64_t>(index);
      Type element = cast<MemRefType>(gradient.getType()).getElementType();
      table.store(ins, ptr, k, createBufferPointer(rewriter, loc, gradient));
      table.store(outs, ptr, k, createBufferPointer(rewriter, loc, output));
      table.store(numels, i64, k,
                  createBufferElementCount(rewriter, loc, gradient));
      table.store(
          dtypes, i32, k,
          constant(static_cast<int64_t>(*getRuntimeFloatDType(element)), 32));
    }
    SmallVector<Value> args = {
        constant(count, 64),
        ins,
        outs,
        numels,
        dtypes,
        createBufferPointer(rewriter, loc, op.getInverse()),
        createBufferPointer(rewriter, loc, op.getFlag())};
    if (failed(createRuntimeCall(
            rewriter, op, RuntimeFunction::ampGpuCheckFiniteAndUnscaleBuffers,
            args)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void mlir::amp::populateAmpUnscaleToLibraryCallsPatterns(
    RewritePatternSet &patterns) {
  patterns.add<UnscaleGradientsToLibraryCall>(patterns.getContext());
}
