//===- AttentionCalls.cpp - amp.attention as the fused-attention call -----===//
//
// Part of amp-mlir. The attention family of amp-linalg-to-library-calls:
// amp.attention and amp.attention_backward on buffers become the backend's
// fused attention calls (the GPU's ampGpuAttention and
// ampGpuAttentionBackward, cuDNN's fused SDPA), each of query, key, value,
// out and the gradients passed as a pointer with its (batch, head,
// sequence) strides read from the buffer (a bshd view of a projection is
// read where it is), the bias with its strides (0 where it broadcasts),
// stats or NULL. What the call cannot take (another element type than
// f16/bf16, a head dimension that is not a multiple of 8 up to 128, a
// non-contiguous head dimension, a backend without the call) stays, with
// the reason, for amp-attention-to-linalg.
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

/// Why the fused attention calls cannot compute an attention of `query`;
/// empty if they can.
std::string getAttentionRefusal(Value query) {
  auto type = cast<MemRefType>(query.getType());
  Type element = type.getElementType();
  if (!element.isF16() && !element.isBF16())
    return "cuDNN's fused attention takes f16 or bf16 elements";
  int64_t headDim = type.getDimSize(3);
  if (ShapedType::isDynamic(headDim) || headDim % 8 != 0 ||
      headDim > kMaxHeadDim)
    return "cuDNN's fused attention takes a static head dimension that is a "
           "multiple of 8 up to 128";
  return {};
}

/// The arguments of an attention call, built in the call's order once its
/// buffers are known to be passable (`inspect`, before the IR changes).
class AttentionCallArgs {
public:
  AttentionCallArgs(PatternRewriter &rewriter, Location loc,
                    std::array<unsigned, 4> order)
      : rewriter(rewriter), loc(loc), order(order) {}

  /// Whether each of `buffers` is strided (its strides static or not) and
  /// each of `dense` dense of static shape; `why` says which is not.
  bool inspect(ValueRange buffers, ValueRange dense, std::string &why) {
    for (Value buffer : buffers) {
      FailureOr<BufferInfo> info = getBufferInfo(buffer, why, /*dynamic=*/true);
      if (failed(info))
        return false;
      infos.try_emplace(buffer, *info);
    }
    for (Value buffer : dense) {
      FailureOr<BufferInfo> info = getBufferInfo(buffer, why);
      if (failed(info) || !isContiguous(*info)) {
        why = "the stats buffer is not dense (of static shape)";
        return false;
      }
    }
    return true;
  }

  /// batch, heads, seqQ, seqKV, headDim and the element type.
  void addSizes(Value query, Value key) {
    for (unsigned i = 0; i < 3; ++i)
      args.push_back(getSize(rewriter, loc, query, order[i]));
    args.push_back(getSize(rewriter, loc, key, order[2]));
    args.push_back(getSize(rewriter, loc, query, order[3]));
    std::optional<RuntimeDType> dtype = getRuntimeFloatDType(
        cast<MemRefType>(query.getType()).getElementType());
    args.push_back(createI32(rewriter, loc, static_cast<int32_t>(*dtype)));
  }

  /// A query-, key- or value-like operand: pointer, then its batch, head and
  /// sequence strides.
  void addStrided(Value buffer) { add(buffer, order, /*broadcast=*/false); }

  /// The bias (B|1 x H|1 x Sq x Skv in every layout; a size-1 batch or head
  /// dimension has stride 0), or NULL and three 0 strides.
  void addBias(Value bias) {
    if (bias)
      return add(bias, {0, 1, 2}, /*broadcast=*/true);
    args.push_back(LLVM::ZeroOp::create(rewriter, loc, pointerType()));
    for (int i = 0; i < 3; ++i)
      args.push_back(createI64(rewriter, loc, 0));
  }

  /// A dense buffer's pointer, or NULL.
  void addPointer(Value buffer) {
    args.push_back(buffer ? createBufferPointer(rewriter, loc, buffer)
                          : LLVM::ZeroOp::create(rewriter, loc, pointerType()));
  }

  /// The scale and the causal flag, the calls' last arguments.
  template <typename OpTy> SmallVector<Value> finish(OpTy op) {
    args.push_back(createF32(rewriter, loc, op.getScale().convertToFloat()));
    args.push_back(createI32(rewriter, loc, op.getCausal() ? 1 : 0));
    return std::move(args);
  }

private:
  Type pointerType() {
    return LLVM::LLVMPointerType::get(rewriter.getContext());
  }

  void add(Value buffer, ArrayRef<unsigned> dims, bool broadcast) {
    args.push_back(createBufferPointer(rewriter, loc, buffer));
    auto type = cast<MemRefType>(buffer.getType());
    for (unsigned dim : dims.take_front(3))
      args.push_back(
          broadcast && dim < 2 && type.getDimSize(dim) == 1
              ? createI64(rewriter, loc, 0)
              : getStride(rewriter, loc, buffer, infos.at(buffer), dim));
  }

  PatternRewriter &rewriter;
  Location loc;
  std::array<unsigned, 4> order;
  llvm::DenseMap<Value, BufferInfo> infos;
  SmallVector<Value> args;
};

/// The checks both patterns make first: buffers, the backend's call, the
/// call's rules. Fills `function`.
template <typename OpTy>
LogicalResult checkAttentionCall(OpTy op, PatternRewriter &rewriter,
                                 const LibraryBackend &backend,
                                 LibraryCall call, RuntimeFunction &function) {
  if (op.hasPureTensorSemantics())
    return rewriter.notifyMatchFailure(op, kOnTensors);
  std::string why;
  FailureOr<RuntimeFunction> declared = getCallFunction(backend, call, why);
  if (failed(declared))
    return rewriter.notifyMatchFailure(op, why);
  why = getAttentionRefusal(op.getQuery());
  if (!why.empty())
    return rewriter.notifyMatchFailure(op, why);
  function = *declared;
  return success();
}

struct AttentionToCall : public OpRewritePattern<AttentionOp> {
  AttentionToCall(MLIRContext *context, const LibraryBackend &backend)
      : OpRewritePattern(context), backend(backend) {}

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    RuntimeFunction function;
    if (failed(checkAttentionCall(op, rewriter, backend, LibraryCall::Attention,
                                  function)))
      return failure();
    AttentionCallArgs call(rewriter, op.getLoc(), op.getDimensionOrder());
    SmallVector<Value> strided = {op.getQuery(), op.getKey(), op.getValue(),
                                  op.getOut()};
    if (Value bias = op.getBias())
      strided.push_back(bias);
    SmallVector<Value> dense;
    if (Value stats = op.getStats())
      dense.push_back(stats);
    std::string why;
    if (!call.inspect(strided, dense, why))
      return rewriter.notifyMatchFailure(op, why);
    call.addSizes(op.getQuery(), op.getKey());
    for (Value buffer : ArrayRef<Value>(strided).take_front(4))
      call.addStrided(buffer);
    call.addBias(op.getBias());
    call.addPointer(op.getStats());
    replaceWithCall(rewriter, op, function, call.finish(op), {});
    return success();
  }

  const LibraryBackend &backend;
};

struct AttentionBackwardToCall : public OpRewritePattern<AttentionBackwardOp> {
  AttentionBackwardToCall(MLIRContext *context, const LibraryBackend &backend)
      : OpRewritePattern(context), backend(backend) {}

  LogicalResult matchAndRewrite(AttentionBackwardOp op,
                                PatternRewriter &rewriter) const override {
    RuntimeFunction function;
    if (failed(checkAttentionCall(op, rewriter, backend,
                                  LibraryCall::AttentionBackward, function)))
      return failure();
    AttentionCallArgs call(rewriter, op.getLoc(), op.getDimensionOrder());
    // In the call's order: q, k, v, out, dOut, then (after stats) dq, dk,
    // dv.
    SmallVector<Value> strided = {
        op.getQuery(),   op.getKey(),       op.getValue(),   op.getOut(),
        op.getGradOut(), op.getGradQuery(), op.getGradKey(), op.getGradValue()};
    SmallVector<Value> all = strided;
    if (Value bias = op.getBias())
      all.push_back(bias);
    std::string why;
    if (!call.inspect(all, op.getStats(), why))
      return rewriter.notifyMatchFailure(op, why);
    call.addSizes(op.getQuery(), op.getKey());
    for (Value buffer : ArrayRef<Value>(strided).take_front(5))
      call.addStrided(buffer);
    call.addPointer(op.getStats());
    for (Value buffer : ArrayRef<Value>(strided).drop_front(5))
      call.addStrided(buffer);
    call.addBias(op.getBias());
    replaceWithCall(rewriter, op, function, call.finish(op), {});
    return success();
  }

  const LibraryBackend &backend;
};
} // namespace

void mlir::amp::populateAmpAttentionToLibraryCallsPatterns(
    RewritePatternSet &patterns, const LibraryBackend &backend) {
  patterns.add<AttentionToCall, AttentionBackwardToCall>(patterns.getContext(),
                                                         backend);
}
