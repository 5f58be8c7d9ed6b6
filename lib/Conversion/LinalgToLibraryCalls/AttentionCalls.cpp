//===- AttentionCalls.cpp - amp.attention as the fused-attention call -----===//
//
// Part of amp-mlir. The attention family of amp-linalg-to-library-calls:
// amp.attention on buffers becomes the backend's fused attention call
// (the GPU's ampGpuAttention, cuDNN's fused SDPA), each of query, key,
// value and out passed as a pointer with its (batch, head, sequence)
// strides read from the buffer (a bshd view of a projection is read where
// it is), the bias with its strides (0 where it broadcasts), stats or NULL.
// What the call cannot take (another element type than f16/bf16, a head
// dimension that is not a multiple of 8 up to 128, a non-contiguous head
// dimension, a backend without the call) stays, with the reason, for
// amp-attention-to-linalg.
//
//===----------------------------------------------------------------------===//

#include "LibraryCallLowering.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::library_calls;

namespace {
/// The largest head dimension of cuDNN's fused attention on every chip
/// (AttentionArgs' rules, LibraryCalls.def).
constexpr int64_t kMaxHeadDim = 128;

/// Why the fused attention call cannot compute `op`; empty if it can.
std::string getAttentionRefusal(AttentionOp op) {
  auto query = cast<MemRefType>(op.getQuery().getType());
  Type element = query.getElementType();
  if (!element.isF16() && !element.isBF16())
    return "cuDNN's fused attention takes f16 or bf16 elements";
  int64_t headDim = query.getDimSize(3);
  if (ShapedType::isDynamic(headDim) || headDim % 8 != 0 ||
      headDim > kMaxHeadDim)
    return "cuDNN's fused attention takes a static head dimension that is a "
           "multiple of 8 up to 128";
  return {};
}

struct AttentionToCall : public OpRewritePattern<AttentionOp> {
  AttentionToCall(MLIRContext *context, const LibraryBackend &backend)
      : OpRewritePattern(context), backend(backend) {}

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, kOnTensors);
    std::string why;
    FailureOr<RuntimeFunction> function =
        getCallFunction(backend, LibraryCall::Attention, why);
    if (failed(function))
      return rewriter.notifyMatchFailure(op, why);
    why = getAttentionRefusal(op);
    if (!why.empty())
      return rewriter.notifyMatchFailure(op, why);
    SmallVector<Value> buffers = {op.getQuery(), op.getKey(), op.getValue(),
                                  op.getOut()};
    if (Value bias = op.getBias())
      buffers.push_back(bias);
    SmallVector<BufferInfo> infos;
    for (Value buffer : buffers) {
      FailureOr<BufferInfo> info = getBufferInfo(buffer, why, /*dynamic=*/true);
      if (failed(info))
        return rewriter.notifyMatchFailure(op, why);
      infos.push_back(*info);
    }
    if (Value stats = op.getStats()) {
      FailureOr<BufferInfo> info = getBufferInfo(stats, why);
      if (failed(info) || !isContiguous(*info))
        return rewriter.notifyMatchFailure(
            op, "the stats buffer is not dense (of static shape)");
    }
    std::optional<RuntimeDType> dtype = getRuntimeFloatDType(
        cast<MemRefType>(buffers[0].getType()).getElementType());
    Location loc = op.getLoc();
    std::array<unsigned, 4> order = op.getDimensionOrder();
    // Pointer, then the strides of operand `i`'s dimensions `dims` (batch,
    // head, sequence); a broadcast one (`broadcast` and size 1) has 0.
    auto strided = [&](SmallVector<Value> &args, unsigned i,
                       ArrayRef<unsigned> dims, bool broadcast = false) {
      args.push_back(createBufferPointer(rewriter, loc, buffers[i]));
      auto type = cast<MemRefType>(buffers[i].getType());
      for (unsigned dim : dims.take_front(3))
        args.push_back(
            broadcast && dim < 2 && type.getDimSize(dim) == 1
                ? createI64(rewriter, loc, 0)
                : getStride(rewriter, loc, buffers[i], infos[i], dim));
    };
    Value query = op.getQuery(), key = op.getKey();
    SmallVector<Value> args = {
        getSize(rewriter, loc, query, order[0]),
        getSize(rewriter, loc, query, order[1]),
        getSize(rewriter, loc, query, order[2]),
        getSize(rewriter, loc, key, order[2]),
        getSize(rewriter, loc, query, order[3]),
        createI32(rewriter, loc, static_cast<int32_t>(*dtype))};
    for (unsigned i = 0; i < 4; ++i)
      strided(args, i, order);
    Type pointer = LLVM::LLVMPointerType::get(rewriter.getContext());
    if (op.getBias()) {
      strided(args, 4, {0, 1, 2}, /*broadcast=*/true);
    } else {
      args.push_back(LLVM::ZeroOp::create(rewriter, loc, pointer));
      for (int i = 0; i < 3; ++i)
        args.push_back(createI64(rewriter, loc, 0));
    }
    if (Value stats = op.getStats()) {
      args.push_back(createBufferPointer(rewriter, loc, stats));
    } else {
      args.push_back(LLVM::ZeroOp::create(rewriter, loc, pointer));
    }
    args.push_back(createF32(rewriter, loc, op.getScale().convertToFloat()));
    args.push_back(createI32(rewriter, loc, op.getCausal() ? 1 : 0));
    replaceWithCall(rewriter, op, *function, args, {});
    return success();
  }

  const LibraryBackend &backend;
};
} // namespace

void mlir::amp::populateAmpAttentionToLibraryCallsPatterns(
    RewritePatternSet &patterns, const LibraryBackend &backend) {
  patterns.add<AttentionToCall>(patterns.getContext(), backend);
}
