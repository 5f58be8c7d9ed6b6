//===- CollectivesToLibraryCalls.cpp - amp-collectives-to-library-calls ---===//
//
// Part of amp-mlir. The buffer form of the collectives as runtime calls:
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
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPCOLLECTIVESTOLIBRARYCALLSPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace amp
} // namespace mlir

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

    // The element count: the static sizes' product times the dynamic ones.
    Type i64 = rewriter.getI64Type();
    int64_t staticCount = 1;
    for (int64_t i = 0, e = type.getRank(); i < e; ++i)
      if (!type.isDynamicDim(i))
        staticCount *= type.getDimSize(i);
    Value count;
    for (int64_t i = 0, e = type.getRank(); i < e; ++i) {
      if (!type.isDynamicDim(i))
        continue;
      Value size = memref::DimOp::create(rewriter, loc, buffer, i);
      count = count ? arith::MulIOp::create(rewriter, loc, count, size)
                          .getResult()
                    : size;
    }
    Value count64;
    if (!count) {
      count64 = arith::ConstantIntOp::create(rewriter, loc, staticCount, 64);
    } else {
      count64 = arith::IndexCastOp::create(rewriter, loc, i64, count);
      if (staticCount != 1)
        count64 = arith::MulIOp::create(
            rewriter, loc, count64,
            arith::ConstantIntOp::create(rewriter, loc, staticCount, 64));
    }

    Value address =
        memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, buffer);
    Value pointer = LLVM::IntToPtrOp::create(
        rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext()),
        arith::IndexCastOp::create(rewriter, loc, i64, address).getResult());
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

struct AmpCollectivesToLibraryCallsPass
    : public amp::impl::AmpCollectivesToLibraryCallsPassBase<
          AmpCollectivesToLibraryCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    populateAmpCollectivesToLibraryCallsPatterns(patterns, device);
    ConversionTarget target(*context);
    target.addIllegalOp<AllReduceInPlaceOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void mlir::amp::populateAmpCollectivesToLibraryCallsPatterns(
    RewritePatternSet &patterns, bool device) {
  patterns.add<AllReduceInPlaceToLibraryCall>(patterns.getContext(), device);
}
