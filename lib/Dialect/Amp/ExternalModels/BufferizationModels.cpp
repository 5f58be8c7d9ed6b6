//===- BufferizationModels.cpp - bufferization of amp.all_reduce ----------===//
//
// Part of amp-mlir. amp.all_reduce bufferizes to a new buffer holding a copy
// of its operand, which the runtime reduces in place:
//
//   %r = amp.all_reduce mean %g : tensor<?x8xf32>
//   // becomes
//   %n = memref.dim %gbuf, %c0 : memref<?x8xf32>
//   %buf = memref.alloc(%n) : memref<?x8xf32>
//   memref.copy %gbuf, %buf : memref<?x8xf32> to memref<?x8xf32>
//   %p = (the aligned pointer of %buf as an !llvm.ptr)
//   llvm.call @ampAllReduce(%p, %count, %dtype, %kind)
//       : (!llvm.ptr, i64, i32, i32) -> ()
//
// The operand is only read, so it is never written in place: a function
// argument or a constant passed to the op keeps its value. The call is an
// llvm.call of an llvm.func, not a func.call: the pipelines' C-wrapper
// request marks every func.func, and the runtime has no _mlir_ciface_
// entry points.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/ExternalModels/BufferizationModels.h"
#include "amp/Conversion/RuntimeCalls.h"
#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::bufferization;

namespace {
struct AllReduceOpModel
    : public BufferizableOpInterface::ExternalModel<AllReduceOpModel,
                                                    AllReduceOp> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                      const AnalysisState &) const {
    return {};
  }
  bool bufferizesToAllocation(Operation *, Value) const { return true; }

  FailureOr<BufferLikeType> getBufferType(Operation *op, Value value,
                                          const BufferizationOptions &options,
                                          const BufferizationState &,
                                          SmallVector<Value> &) const {
    auto type = cast<RankedTensorType>(value.getType());
    std::optional<Attribute> space = options.defaultMemorySpaceFn(type);
    if (!space)
      return op->emitError("could not infer the memory space of the result");
    return cast<BufferLikeType>(
        getMemRefTypeWithStaticIdentityLayout(type, *space));
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto reduce = cast<AllReduceOp>(op);
    Location loc = op->getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    if (!module)
      return op->emitOpError("must be in a module to be bufferized (it "
                             "becomes a call of the runtime)");
    std::optional<RuntimeDType> dtype =
        getRuntimeDType(reduce.getType().getElementType());
    if (!dtype)
      return op->emitOpError("unsupported element type");
    FailureOr<Value> source =
        getBuffer(rewriter, reduce.getInput(), options, state);
    if (failed(source))
      return failure();
    SmallVector<Value> invocationStack;
    FailureOr<BufferLikeType> bufferType =
        getBufferType(op, reduce.getResult(), options, state, invocationStack);
    if (failed(bufferType))
      return failure();
    auto memrefType = cast<MemRefType>(*bufferType);

    // The new buffer: a copy of the operand.
    SmallVector<Value> dynamicSizes;
    for (int64_t i = 0, e = memrefType.getRank(); i < e; ++i)
      if (memrefType.isDynamicDim(i))
        dynamicSizes.push_back(
            memref::DimOp::create(rewriter, loc, *source, i));
    FailureOr<Value> buffer =
        options.createAlloc(rewriter, loc, memrefType, dynamicSizes);
    if (failed(buffer))
      return failure();
    if (failed(options.createMemCpy(rewriter, loc, *source, *buffer)))
      return failure();

    // ampAllReduce(pointer, count, dtype, kind) on it.
    Type i64 = rewriter.getI64Type();
    Value count = arith::ConstantIndexOp::create(rewriter, loc, 1);
    for (int64_t i = 0, e = memrefType.getRank(); i < e; ++i) {
      Value size =
          memrefType.isDynamicDim(i)
              ? memref::DimOp::create(rewriter, loc, *buffer, i).getResult()
              : arith::ConstantIndexOp::create(rewriter, loc,
                                               memrefType.getDimSize(i))
                    .getResult();
      count = arith::MulIOp::create(rewriter, loc, count, size);
    }
    Value count64 = arith::IndexCastOp::create(rewriter, loc, i64, count);
    Value address =
        memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, *buffer);
    Value pointer = LLVM::IntToPtrOp::create(
        rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext()),
        arith::IndexCastOp::create(rewriter, loc, i64, address).getResult());
    Value dtypeValue = arith::ConstantIntOp::create(
        rewriter, loc, static_cast<int64_t>(*dtype), 32);
    Value kindValue = arith::ConstantIntOp::create(
        rewriter, loc, static_cast<int64_t>(reduce.getKind()), 32);
    if (failed(createRuntimeCall(
            rewriter, op, RuntimeFunction::ampAllReduce,
            ValueRange{pointer, count64, dtypeValue, kindValue})))
      return failure();
    replaceOpWithBufferizedValues(rewriter, op, *buffer);
    return success();
  }
};
} // namespace

void mlir::amp::registerBufferizationModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, AmpDialect *) {
    AllReduceOp::attachInterface<AllReduceOpModel>(*ctx);
    // What the bufferized form is made of.
    ctx->loadDialect<arith::ArithDialect, LLVM::LLVMDialect,
                     memref::MemRefDialect>();
  });
}
