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

/// The forward's arguments after the sizes, in the call's order: q, k, v,
/// out, the bias, stats or NULL; false with `why` if a buffer cannot be
/// passed (before the IR changes).
bool addArguments(AttentionOp op, AttentionCallArgs &call, std::string &why) {
  SmallVector<Value> strided = {op.getQuery(), op.getKey(), op.getValue(),
                                op.getOut()};
  SmallVector<Value> checked = strided, dense;
  if (Value bias = op.getBias())
    checked.push_back(bias);
  if (Value stats = op.getStats())
    dense.push_back(stats);
  if (!call.inspect(checked, dense, why))
    return false;
  call.addSizes(op.getQuery(), op.getKey());
  for (Value buffer : strided)
    call.addStrided(buffer);
  call.addBias(op.getBias());
  call.addPointer(op.getStats());
  return true;
}

/// The backward's: q, k, v, out, dOut, stats, dq, dk, dv, the bias.
bool addArguments(AttentionBackwardOp op, AttentionCallArgs &call,
                  std::string &why) {
  SmallVector<Value> inputs = {op.getQuery(), op.getKey(), op.getValue(),
                               op.getOut(), op.getGradOut()};
  SmallVector<Value> checked = inputs;
  llvm::append_range(checked, op.getInits());
  if (Value bias = op.getBias())
    checked.push_back(bias);
  if (!call.inspect(checked, op.getStats(), why))
    return false;
  call.addSizes(op.getQuery(), op.getKey());
  for (Value buffer : inputs)
    call.addStrided(buffer);
  call.addPointer(op.getStats());
  for (Value buffer : op.getInits())
    call.addStrided(buffer);
  call.addBias(op.getBias());
  return true;
}

/// An attention op (forward or backward) on buffers as the backend's
/// `call`.
template <typename OpTy>
struct AttentionToCall : public OpRewritePattern<OpTy> {
  AttentionToCall(MLIRContext *context, const LibraryBackend &backend,
                  LibraryCall call)
      : OpRewritePattern<OpTy>(context), backend(backend), call(call) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, kOnTensors);
    std::string why;
    FailureOr<RuntimeFunction> function = getCallFunction(backend, call, why);
    if (failed(function))
      return rewriter.notifyMatchFailure(op, why);
    why = getAttentionRefusal(op.getQuery());
    if (!why.empty())
      return rewriter.notifyMatchFailure(op, why);
    AttentionCallArgs args(rewriter, op.getLoc(), op.getDimensionOrder());
    if (!addArguments(op, args, why))
      return rewriter.notifyMatchFailure(op, why);
    replaceWithCall(rewriter, op, *function, args.finish(op), {});
    return success();
  }

  const LibraryBackend &backend;
  LibraryCall call;
};
} // namespace

void mlir::amp::populateAmpAttentionToLibraryCallsPatterns(
    RewritePatternSet &patterns, const LibraryBackend &backend) {
  patterns.add<AttentionToCall<AttentionOp>>(patterns.getContext(), backend,
                                             LibraryCall::Attention);
  patterns.add<AttentionToCall<AttentionBackwardOp>>(
      patterns.getContext(), backend, LibraryCall::AttentionBackward);
}
