//===- BufferizationModels.cpp - bufferization of the amp ops -------------===//
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
// is the conversions' business (amp-to-library-calls), not the
// dialect's.
//
// amp.unscale_gradients is in destination-passing style: it bufferizes to
// its own buffer form, writing into the buffers of its inits (in place,
// where the analysis allows), which its results then are. The destinations
// of the gradients are only written; the flag is read (ORed into) and
// written.
//
// amp.scaled_matmul is in destination-passing style too: its buffer form
// writes the destination's buffer (without reading it) and reads the
// operands' and the scale's.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/ExternalModels/BufferizationModels.h"
#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::bufferization;

namespace {
/// The buffers of `values`, appended to `buffers`.
LogicalResult getBuffers(RewriterBase &rewriter, ValueRange values,
                         const BufferizationOptions &options,
                         BufferizationState &state,
                         SmallVectorImpl<Value> &buffers) {
  for (Value value : values) {
    FailureOr<Value> buffer = getBuffer(rewriter, value, options, state);
    if (failed(buffer))
      return failure();
    buffers.push_back(*buffer);
  }
  return success();
}

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

struct UnscaleGradientsOpModel
    : public DstBufferizableOpInterfaceExternalModel<UnscaleGradientsOpModel,
                                                     UnscaleGradientsOp> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const AnalysisState &) const {
    // The gradients' destinations are overwritten, never read.
    auto unscale = cast<UnscaleGradientsOp>(op);
    return !unscale.isDpsInit(&operand) || operand.get() == unscale.getFlag();
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto unscale = cast<UnscaleGradientsOp>(op);
    // The inverse scale is a 0-d tensor, or a host scalar that stays one.
    SmallVector<Value> gradients, inverse, inits;
    if (failed(getBuffers(rewriter, unscale.getGradients(), options, state,
                          gradients)) ||
        failed(getBuffers(rewriter, unscale.getInits(), options, state, inits)))
      return failure();
    if (!isa<TensorType>(unscale.getInverse().getType()))
      inverse.push_back(unscale.getInverse());
    else if (failed(getBuffers(rewriter, unscale.getInverse(), options, state,
                               inverse)))
      return failure();
    rewriter.setInsertionPoint(op);
    UnscaleGradientsOp::create(rewriter, op->getLoc(), TypeRange{}, gradients,
                               inverse.front(), inits);
    replaceOpWithBufferizedValues(rewriter, op, inits);
    return success();
  }
};
/// The optimizer's update: every operand becomes a buffer; the destinations
/// of the new parameters and state are written, never read (a fresh
/// destination is not copied into).
struct OptimizerUpdateOpModel
    : public DstBufferizableOpInterfaceExternalModel<OptimizerUpdateOpModel,
                                                     OptimizerUpdateOp> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const AnalysisState &) const {
    return !cast<OptimizerUpdateOp>(op).isDpsInit(&operand);
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto update = cast<OptimizerUpdateOp>(op);
    SmallVector<Value> buffers;
    if (failed(
            getBuffers(rewriter, op->getOperands(), options, state, buffers)))
      return failure();
    rewriter.setInsertionPoint(op);
    // The same properties (kind, settings, operand segments): nothing is
    // dropped on the way.
    OptimizerUpdateOp::create(rewriter, op->getLoc(), TypeRange{}, buffers,
                              update.getProperties(),
                              llvm::to_vector(op->getDiscardableAttrs()));
    replaceOpWithBufferizedValues(
        rewriter, op,
        ArrayRef<Value>(buffers).take_back(update.getInits().size()));
    return success();
  }
};
struct ScaledMatmulOpModel
    : public DstBufferizableOpInterfaceExternalModel<ScaledMatmulOpModel,
                                                     ScaledMatmulOp> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const AnalysisState &) const {
    // The destination is overwritten, never read.
    return !cast<ScaledMatmulOp>(op).isDpsInit(&operand);
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    SmallVector<Value> buffers;
    if (failed(
            getBuffers(rewriter, op->getOperands(), options, state, buffers)))
      return failure();
    rewriter.setInsertionPoint(op);
    ScaledMatmulOp::create(rewriter, op->getLoc(), TypeRange{}, buffers[0],
                           buffers[1], buffers[2], buffers[3]);
    replaceOpWithBufferizedValues(rewriter, op, buffers[3]);
    return success();
  }
};
/// A convolution gradient: its two operands and the destination it
/// accumulates into (read and written) become buffers.
template <typename OpTy>
struct ConvolutionGradientOpModel
    : public DstBufferizableOpInterfaceExternalModel<
          ConvolutionGradientOpModel<OpTy>, OpTy> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto gradient = cast<OpTy>(op);
    SmallVector<Value> buffers;
    if (failed(
            getBuffers(rewriter, op->getOperands(), options, state, buffers)))
      return failure();
    rewriter.setInsertionPoint(op);
    OpTy::create(rewriter, op->getLoc(), TypeRange{}, buffers[0], buffers[1],
                 buffers[2], gradient.getStridesAttr(),
                 gradient.getPaddingAttr(), gradient.getDilationsAttr(),
                 gradient.getChannelsLastAttr());
    replaceOpWithBufferizedValues(rewriter, op, buffers[2]);
    return success();
  }
};
/// Attention, forward or backward: the inputs are read; the destinations
/// (out and stats, or the gradients) are written, never read (a fresh
/// destination is not copied into).
template <typename OpTy>
struct AttentionOpModel
    : public DstBufferizableOpInterfaceExternalModel<AttentionOpModel<OpTy>,
                                                     OpTy> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const AnalysisState &) const {
    return !cast<OpTy>(op).isDpsInit(&operand);
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto attention = cast<OpTy>(op);
    SmallVector<Value> buffers;
    if (failed(
            getBuffers(rewriter, op->getOperands(), options, state, buffers)))
      return failure();
    rewriter.setInsertionPoint(op);
    // The same properties (scale, causal, layout, operand segments).
    OpTy::create(rewriter, op->getLoc(), TypeRange{}, buffers,
                 attention.getProperties(),
                 llvm::to_vector(op->getDiscardableAttrs()));
    replaceOpWithBufferizedValues(
        rewriter, op,
        ArrayRef<Value>(buffers).take_back(attention.getInits().size()));
    return success();
  }
};
} // namespace

void mlir::amp::registerBufferizationModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, AmpDialect *) {
    AllReduceOp::attachInterface<AllReduceOpModel>(*ctx);
    UnscaleGradientsOp::attachInterface<UnscaleGradientsOpModel>(*ctx);
    OptimizerUpdateOp::attachInterface<OptimizerUpdateOpModel>(*ctx);
    ScaledMatmulOp::attachInterface<ScaledMatmulOpModel>(*ctx);
    AttentionOp::attachInterface<AttentionOpModel<AttentionOp>>(*ctx);
    AttentionBackwardOp::attachInterface<AttentionOpModel<AttentionBackwardOp>>(
        *ctx);
    Conv2DBackwardDataOp::attachInterface<
        ConvolutionGradientOpModel<Conv2DBackwardDataOp>>(*ctx);
    Conv2DBackwardFilterOp::attachInterface<
        ConvolutionGradientOpModel<Conv2DBackwardFilterOp>>(*ctx);
    // What the bufferized form is made of.
    ctx->loadDialect<arith::ArithDialect, memref::MemRefDialect>();
  });
}
