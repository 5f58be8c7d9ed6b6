//===- CollectivesToLibraryCalls.cpp - collectives as runtime calls -------===//
//
// Part of amp-mlir. The buffer form of the collectives as runtime calls (a
// family of amp-to-library-calls, AmpToLibraryCalls.cpp):
//
//   amp.all_reduce_in_place mean %buf : memref<?x8xf32>
//   // becomes
//   %n = memref.dim %buf, %c0 : memref<?x8xf32>
//   %count = (8 * %n as i64)
//   %p = (the aligned pointer of %buf as an !llvm.ptr)
//   llvm.call @ampAllReduce(%p, %count, %dtype, %kind)
//       : (!llvm.ptr, i64, i32, i32) -> ()
//
// or, with device=true, `call @ampGpuAllReduce(...)` of a stream-ordered
// func.func. The host call is an llvm.call of an llvm.func, not a func.call:
// the pipelines' C-wrapper request marks every func.func, and the runtime
// has no _mlir_ciface_ entry points (createRuntimeCall decides).
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/AmpToLibraryCalls/AmpToLibraryCalls.h"
#include "amp/Conversion/RuntimeCalls.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::amp;

namespace {

/// amp.all_reduce_in_place -> ampAllReduce / ampGpuAllReduce(pointer, count,
/// dtype, kind).
struct AllReduceInPlaceToLibraryCall
    : public OpRewritePattern<AllReduceInPlaceOp> {
  AllReduceInPlaceToLibraryCall(MLIRContext *context, bool device)
      : OpRewritePattern(context), device(device) {}

  LogicalResult matchAndRewrite(AllReduceInPlaceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value buffer = op.getBuffer();
    MemRefType type = op.getBuffer().getType();
    std::optional<RuntimeDType> dtype = getRuntimeDType(type.getElementType());
    if (!dtype || !type.getLayout().isIdentity())
      return rewriter.notifyMatchFailure(op, "not a buffer the runtime takes");

    Value count64 = createBufferElementCount(rewriter, loc, buffer);
    Value pointer = createBufferPointer(rewriter, loc, buffer);
    Value dtypeValue = arith::ConstantIntOp::create(
        rewriter, loc, static_cast<int64_t>(*dtype), 32);
    Value kindValue = arith::ConstantIntOp::create(
        rewriter, loc, static_cast<int64_t>(op.getKind()), 32);
    if (failed(createRuntimeCall(
            rewriter, op,
            device ? RuntimeFunction::ampGpuAllReduce
                   : RuntimeFunction::ampAllReduce,
            ValueRange{pointer, count64, dtypeValue, kindValue})))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }

  bool device;
};

} // namespace

void mlir::amp::populateAmpCollectivesToLibraryCallsPatterns(
    RewritePatternSet &patterns, bool device) {
  patterns.add<AllReduceInPlaceToLibraryCall>(patterns.getContext(), device);
}
