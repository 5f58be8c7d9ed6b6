//===- BufferizationModels.cpp - bufferization of amp.all_reduce ----------===//
//
// Part of amp-mlir. amp.all_reduce bufferizes to a new buffer holding a copy
// of its operand, which its buffer form reduces in place:
//
//   %r = amp.all_reduce mean %g : tensor<?x8xf32>
//   // becomes
//   %n = memref.dim %gbuf, %c0 : memref<?x8xf32>
//   %buf = memref.alloc(%n) : memref<?x8xf32>
//   memref.copy %gbuf, %buf : memref<?x8xf32> to memref<?x8xf32>
//   amp.all_reduce_in_place mean %buf : memref<?x8xf32>
//
// The operand is only read, so it is never written in place: a function
// argument or a constant passed to the op keeps its value. The runtime call
// is the conversions' business (amp-collectives-to-library-calls), not the
// dialect's.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/ExternalModels/BufferizationModels.h"
#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
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

    // Reduced in place across the ranks.
    AllReduceInPlaceOp::create(rewriter, loc, reduce.getKind(), *buffer);
    replaceOpWithBufferizedValues(rewriter, op, *buffer);
    return success();
  }
};
} // namespace

void mlir::amp::registerBufferizationModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, AmpDialect *) {
    AllReduceOp::attachInterface<AllReduceOpModel>(*ctx);
    // What the bufferized form is made of.
    ctx->loadDialect<arith::ArithDialect, memref::MemRefDialect>();
  });
}
