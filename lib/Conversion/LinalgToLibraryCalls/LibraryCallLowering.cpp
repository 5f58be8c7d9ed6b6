//===- LibraryCallLowering.cpp - the library calls' framework -------------===//
//
// Part of amp-mlir. What the families of amp-linalg-to-library-calls share:
// the driver that applies their patterns (applyLibraryCallPatterns), the
// buffers and element types as the runtime takes them, and the call.
//
//===----------------------------------------------------------------------===//

#include "LibraryCallLowering.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Rewrite/PatternApplicator.h"

namespace mlir {
namespace amp {
namespace library_calls {

/// The runtime's code of a floating-point element type the library calls
/// take (RuntimeCalls.h); -1 for other element types, and for the FP8
/// types unless `allowFloat8` (only the GEMM and the CPU's convolution take
/// them).
int32_t getDTypeCode(Type type, bool allowFloat8) {
  if (!allowFloat8 && isa<Float8E4M3FNType, Float8E5M2Type>(type))
    return -1;
  std::optional<RuntimeDType> code = getRuntimeFloatDType(type);
  return code ? static_cast<int32_t>(*code) : -1;
}

static bool isFloat8Code(int32_t code) {
  return code == static_cast<int32_t>(RuntimeDType::F8E4M3FN) ||
         code == static_cast<int32_t>(RuntimeDType::F8E5M2);
}

FailureOr<ContractionTypes> getContractionTypes(const BufferInfo &lhs,
                                                const BufferInfo &rhs,
                                                const BufferInfo &result,
                                                std::string &why,
                                                bool float8Narrow) {
  ContractionTypes types;
  types.lhs = getDTypeCode(lhs.type.getElementType(), true);
  types.rhs = getDTypeCode(rhs.type.getElementType(), true);
  types.result = getDTypeCode(result.type.getElementType());
  types.float8 = isFloat8Code(types.lhs) || isFloat8Code(types.rhs);
  // The FP8 operand types the runtime's GEMM and convolution take (those of
  // cuBLASLt: not E5M2 x E5M2) with an f32 result (or a 16-bit one).
  int32_t e5m2 = static_cast<int32_t>(RuntimeDType::F8E5M2);
  bool resultTaken =
      types.result == kF32Code ||
      (float8Narrow && types.result >= 0 && !isFloat8Code(types.result));
  if (types.float8 &&
      (!isFloat8Code(types.lhs) || !isFloat8Code(types.rhs) ||
       (types.lhs == e5m2 && types.rhs == e5m2) || !resultTaken)) {
    why = "FP8 operands must be E4M3 x E4M3, E4M3 x E5M2 or E5M2 x E4M3 "
          "with an f32 result";
    return failure();
  }
  return types;
}

/// `dynamic`: sizes and strides may be dynamic (read from the descriptor at
/// the call, see getSize/getStride); the innermost stride must still be a
/// static 1.
FailureOr<BufferInfo> getBufferInfo(Value value, std::string &why,
                                    bool dynamic) {
  auto type = dyn_cast<MemRefType>(value.getType());
  if (!type || (!dynamic && !type.hasStaticShape())) {
    why = "operands must be memrefs of static shape";
    return failure();
  }
  BufferInfo info;
  info.type = type;
  if (failed(type.getStridesAndOffset(info.strides, info.offset)) ||
      (!dynamic && (ShapedType::isDynamic(info.offset) ||
                    llvm::any_of(info.strides, ShapedType::isDynamic)))) {
    why = "operands must have static strides and offsets";
    return failure();
  }
  if (!info.strides.empty() && info.strides.back() != 1) {
    why = "the innermost dimension of every operand must be contiguous";
    return failure();
  }
  return info;
}

/// Size `dim` of `value` as an i64: a constant when static, memref.dim
/// otherwise.
Value getSize(OpBuilder &b, Location loc, Value value, unsigned dim) {
  auto type = cast<MemRefType>(value.getType());
  if (!type.isDynamicDim(dim))
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(),
                                        type.getDimSize(dim));
  Value size = memref::DimOp::create(b, loc, value, dim);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), size);
}

/// Stride `dim` of `value` (elements) as an i64: a constant when static,
/// read from the descriptor otherwise.
Value getStride(OpBuilder &b, Location loc, Value value, const BufferInfo &info,
                unsigned dim) {
  if (!ShapedType::isDynamic(info.strides[dim]))
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(),
                                        info.strides[dim]);
  Value stride =
      memref::ExtractStridedMetadataOp::create(b, loc, value).getStrides()[dim];
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), stride);
}

/// True if `value` is the constant +0.0.
bool isPositiveZero(Value value) {
  FloatAttr attr;
  return matchPattern(value, m_Constant(&attr)) && attr.getValue().isPosZero();
}

/// A linalg.fill of +0.0 into `output` earlier in the same block with no
/// other use of `output` in between: the library call can overwrite instead
/// of accumulating.
linalg::FillOp findZeroFill(Operation *op, Value output) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    auto fill = dyn_cast<linalg::FillOp>(prev);
    if (fill && fill.getOutputs()[0] == output)
      return isPositiveZero(fill.getInputs()[0]) ? fill : linalg::FillOp();
    // Any other op that touches the buffer (or has unknown effects on it).
    if (llvm::is_contained(prev->getOperands(), output) ||
        prev->getNumRegions() != 0)
      return {};
  }
  return {};
}

/// True if an op in `op`'s block after `op`, up to and including `last`,
/// may write `buffer` or a view of it (its users through view-like ops).
bool isWrittenBetween(Operation *op, Operation *last, Value buffer) {
  SmallVector<Value> worklist = {
      memref::skipViewLikeOps(cast<MemrefValue>(buffer))};
  while (!worklist.empty()) {
    Value alias = worklist.pop_back_val();
    for (OpOperand &use : alias.getUses()) {
      Operation *user = use.getOwner();
      if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
        if (view.getViewSource() == alias)
          worklist.push_back(view->getResult(0));
        continue;
      }
      Operation *inBlock = op->getBlock()->findAncestorOpInBlock(*user);
      if (!inBlock || !op->isBeforeInBlock(inBlock) ||
          last->isBeforeInBlock(inBlock))
        continue;
      auto effects = dyn_cast<MemoryEffectOpInterface>(user);
      if (!effects || effects.getEffectOnValue<MemoryEffects::Write>(alias))
        return true;
    }
  }
  return false;
}

/// True if `info` describes a contiguous row-major buffer.
bool isContiguous(const BufferInfo &info) {
  int64_t expected = 1;
  ArrayRef<int64_t> shape = info.type.getShape();
  for (int i = shape.size() - 1; i >= 0; --i) {
    if (shape[i] != 1 && info.strides[i] != expected)
      return false;
    expected *= shape[i];
  }
  return true;
}

bool hasFloat8Operand(linalg::LinalgOp op) {
  return llvm::any_of(op.getDpsInputs(), [](Value input) {
    return isa<Float8E4M3FNType, Float8E5M2Type>(getElementTypeOrSelf(input));
  });
}

FailureOr<RuntimeFunction> getCallFunction(const LibraryBackend &backend,
                                           LibraryCall call, std::string &why) {
  if (std::optional<RuntimeFunction> function = backend.getFunction(call))
    return *function;
  why = ("the target's libraries have no counterpart of " +
         getRuntimeFunctionName(getGpuFunction(call)))
            .str();
  return failure();
}

void replaceWithCall(RewriterBase &rewriter, Operation *op,
                     RuntimeFunction function, ArrayRef<Value> args,
                     ArrayRef<Operation *> replaced) {
  if (failed(createRuntimeCall(rewriter, op, function, args)))
    return;
  rewriter.eraseOp(op);
  for (Operation *unneeded : replaced)
    if (unneeded)
      rewriter.eraseOp(unneeded);
}

Value createI32(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
}
Value createI64(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 64);
}
Value createF32(OpBuilder &b, Location loc, float value) {
  return arith::ConstantFloatOp::create(b, loc, b.getF32Type(), APFloat(value));
}

/// True if `op` sets every element of `buffer` to +0: a linalg.fill of a
/// constant, or a linalg.map without inputs that yields one (tensor.pad's
/// padding, bufferized).
bool isZeroFillOf(Operation *op, Value buffer) {
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return fill.getOutputs()[0] == buffer &&
           isPositiveZero(fill.getInputs()[0]);
  if (auto map = dyn_cast<linalg::MapOp>(op)) {
    if (!map.getInputs().empty() || map.getInit() != buffer)
      return false;
    auto yield = cast<linalg::YieldOp>(map.getMapper().front().getTerminator());
    return yield.getNumOperands() == 1 && isPositiveZero(yield.getOperand(0));
  }
  return false;
}

} // namespace library_calls

LibraryBackend::~LibraryBackend() = default;

namespace {
/// What the driver needs to hear from the rewriter: the ops it erased
/// (not to be visited), and why the last pattern declined.
struct LibraryCallListener : public RewriterBase::Listener {
  DenseSet<Operation *> erased;
  std::string reason;

  void notifyOperationErased(Operation *op) override { erased.insert(op); }
  void
  notifyMatchFailure(Location loc,
                     function_ref<void(Diagnostic &)> reasonCallback) override {
    Diagnostic diagnostic(loc, DiagnosticSeverity::Remark);
    reasonCallback(diagnostic);
    reason = diagnostic.str();
  }
};
} // namespace

LogicalResult applyLibraryCallPatterns(Operation *root,
                                       const FrozenRewritePatternSet &patterns,
                                       const LibraryBackend &backend) {
  MLIRContext *context = root->getContext();
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (isa<linalg::LinalgOp, ScaledMatmulOp, Conv2DBackwardDataOp,
            Conv2DBackwardFilterOp, AttentionOp, AttentionBackwardOp>(op))
      ops.push_back(op);
  });
  LibraryCallListener listener;
  PatternRewriter rewriter(context);
  rewriter.setListener(&listener);
  PatternApplicator applicator(patterns);
  applicator.applyDefaultCostModel();
  // A call that cannot be declared is reported as an error by the pattern
  // (which has changed the IR by then, so it succeeds): heard here.
  bool hadError = false;
  ScopedDiagnosticHandler handler(context, [&](Diagnostic &diagnostic) {
    hadError |= diagnostic.getSeverity() == DiagnosticSeverity::Error;
    return failure();
  });
  for (Operation *op : ops) {
    if (listener.erased.contains(op))
      continue;
    listener.reason.clear();
    rewriter.setInsertionPoint(op);
    if (succeeded(applicator.matchAndRewrite(op, rewriter)) ||
        listener.reason.empty())
      continue;
    op->emitRemark() << "amp: kept as " << backend.getFallback()
                     << ", not a library call: " << listener.reason;
  }
  return failure(hadError);
}

} // namespace amp
} // namespace mlir
