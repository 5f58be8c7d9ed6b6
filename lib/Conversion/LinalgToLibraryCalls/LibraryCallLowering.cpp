//===- LibraryCallLowering.cpp - the library calls' shared helpers --------===//
//
// Part of amp-mlir. The shared helpers of the library calls: part of
// amp-linalg-to-library-calls (LinalgToLibraryCalls.cpp).
//
//===----------------------------------------------------------------------===//

#include "LibraryCallLowering.h"

#include "amp/Transforms/ContractionEpilogues.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

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
                                                std::string &why) {
  ContractionTypes types;
  types.lhs = getDTypeCode(lhs.type.getElementType(), true);
  types.rhs = getDTypeCode(rhs.type.getElementType(), true);
  types.result = getDTypeCode(result.type.getElementType());
  types.float8 = isFloat8Code(types.lhs) || isFloat8Code(types.rhs);
  // The FP8 operand types the runtime's GEMM and convolution take (those of
  // cuBLASLt: not E5M2 x E5M2) with an f32 result.
  int32_t e5m2 = static_cast<int32_t>(RuntimeDType::F8E5M2);
  if (types.float8 &&
      (!isFloat8Code(types.lhs) || !isFloat8Code(types.rhs) ||
       (types.lhs == e5m2 && types.rhs == e5m2) || types.result != kF32Code)) {
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

/// Matches the accumulator `acc` of `op`, zero-filled by `fill`: a
/// memref.alloc in op's block whose users are `fill`, `op`, deallocs and,
/// after `op` in the block, generics that read it, directly or through
/// reshaped views, only to narrow it to `type`.
std::optional<NarrowedAccumulator> matchNarrowedAccumulator(Operation *op,
                                                            Value acc,
                                                            linalg::FillOp fill,
                                                            Type type) {
  auto alloc = acc.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != op->getBlock() || !fill)
    return std::nullopt;
  NarrowedAccumulator result{alloc, {}, {}, {}};
  auto isNarrowingRead = [&](OpOperand &use) {
    auto generic = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!generic || generic->getBlock() != op->getBlock() ||
        !op->isBeforeInBlock(generic))
      return false;
    FloatType narrow = getNarrowedType(generic, use);
    return narrow && narrow == type;
  };
  for (OpOperand &use : alloc->getUses()) {
    Operation *user = use.getOwner();
    if (user == op || user == fill.getOperation() ||
        isa<memref::DeallocOp>(user))
      continue;
    if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(user)) {
      for (OpOperand &viewUse : user->getResult(0).getUses()) {
        if (!isNarrowingRead(viewUse))
          return std::nullopt;
        result.reads.push_back(&viewUse);
      }
      result.views.push_back(user);
      continue;
    }
    if (!isNarrowingRead(use))
      return std::nullopt;
    result.reads.push_back(&use);
  }
  if (result.reads.empty())
    return std::nullopt;
  result.type = cast<FloatType>(type);
  return result;
}

/// If `generic` does nothing but narrow its one input into its one output
/// (identity maps), that output; else null.
Value getConversionOnlyOutput(linalg::GenericOp generic) {
  if (generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity())
    return {};
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (body.getOperations().size() != 2 || yield.getNumOperands() != 1)
    return {};
  auto trunc = yield.getOperand(0).getDefiningOp<arith::TruncFOp>();
  if (!trunc || trunc.getIn() != body.getArgument(0))
    return {};
  return generic.getDpsInits()[0];
}

/// Makes `out`, the output of `generic` (the only reader of `op`'s
/// accumulator), the buffer that a call at `op` writes, if it can: `out`
/// dominates `op` (or is an operand-less alloc in its block, moved before
/// it), nothing between `op` and `generic` touches memory (the call writes
/// `out` earlier than the generic did), and `acceptable(out)`. Erases
/// `generic` then.
bool takeOutput(Operation *op, linalg::GenericOp generic, Value out,
                llvm::function_ref<bool(Value)> acceptable) {
  bool dominates = DominanceInfo().properlyDominates(out, op);
  auto outAlloc = out.getDefiningOp<memref::AllocOp>();
  bool movable = outAlloc && outAlloc->getNumOperands() == 0 &&
                 outAlloc->getBlock() == op->getBlock();
  bool quiet = generic->getBlock() == op->getBlock();
  for (Operation *between = op->getNextNode(); quiet && between != generic;
       between = between->getNextNode())
    quiet = isa<memref::AllocOp>(between) || isMemoryEffectFree(between);
  if (!quiet || !(dominates || movable) || !acceptable(out))
    return false;
  if (!dominates)
    outAlloc->moveBefore(op);
  generic->erase();
  return true;
}

/// When the only reader (deallocs aside) of `op`'s accumulator `acc`, a
/// memref.alloc zero-filled by `fill`, is a generic that copies it whole
/// into a buffer of its type (an FP8 epilogue left with nothing to do once
/// the call scales), that buffer, which the call then writes (takeOutput);
/// the copy and `acc`'s deallocs are erased. Null otherwise.
Value takeCopiedOutput(Operation *op, Value acc, linalg::FillOp fill,
                       llvm::function_ref<bool(Value)> acceptable) {
  auto alloc = acc.getDefiningOp<memref::AllocOp>();
  if (!fill || !alloc || alloc->getBlock() != op->getBlock())
    return {};
  linalg::GenericOp copy;
  for (Operation *user : alloc->getUsers()) {
    if (user == op || user == fill.getOperation() ||
        isa<memref::DeallocOp>(user))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (copy || !generic)
      return {};
    copy = generic;
  }
  if (!copy || copy.getNumDpsInputs() != 1 || copy.getNumDpsInits() != 1 ||
      copy.getDpsInputs()[0] != acc ||
      copy.getNumLoops() != copy.getNumParallelLoops() ||
      !llvm::all_of(copy.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return {};
  Block &body = copy.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Value out = copy.getDpsInits()[0];
  if (body.getOperations().size() != 1 ||
      yield.getOperand(0) != body.getArgument(0) ||
      out.getType() != acc.getType() || !takeOutput(op, copy, out, acceptable))
    return {};
  for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
    if (isa<memref::DeallocOp>(user))
      user->erase();
  return out;
}

/// Makes `narrowed` ready for a call that writes its 16-bit type at `op`:
/// returns the buffer the call writes, either the output of a lone
/// conversion-only generic (erased; an operand-less alloc of it is moved
/// before `op`) or a new 16-bit buffer in place of the f32 one, which its
/// readers now read without truncf. The f32 buffer is left for the caller
/// to erase with `op` and the fill. `acceptable` says whether the call can
/// write a given buffer.
Value narrowAccumulator(Operation *op, NarrowedAccumulator &narrowed,
                        llvm::function_ref<bool(Value)> acceptable) {
  memref::AllocOp alloc = narrowed.alloc;
  auto dropDeallocs = [&](Value replacement) {
    for (OpOperand &use : llvm::make_early_inc_range(alloc->getUses())) {
      if (!isa<memref::DeallocOp>(use.getOwner()))
        continue;
      if (replacement)
        use.set(replacement);
      else
        use.getOwner()->erase();
    }
  };
  if (narrowed.reads.size() == 1 && narrowed.views.empty()) {
    auto generic = cast<linalg::GenericOp>(narrowed.reads[0]->getOwner());
    Value out = getConversionOnlyOutput(generic);
    if (out && takeOutput(op, generic, out, acceptable)) {
      dropDeallocs(Value());
      return out;
    }
  }
  OpBuilder b(alloc);
  auto type = cast<MemRefType>(alloc.getType());
  auto narrowType = MemRefType::get(type.getShape(), narrowed.type,
                                    type.getLayout(), type.getMemorySpace());
  auto replacement = memref::AllocOp::create(
      b, alloc.getLoc(), narrowType, alloc.getDynamicSizes(),
      alloc.getSymbolOperands(), alloc.getAlignmentAttr());
  if (!acceptable(replacement)) {
    replacement->erase();
    return {};
  }
  // Each view of the f32 buffer becomes the same view of the 16-bit one.
  DenseMap<Value, Value> narrowViews;
  for (Operation *view : narrowed.views) {
    OpBuilder vb(view);
    Operation *clone = vb.clone(*view);
    clone->setOperand(0, replacement);
    auto viewType = cast<MemRefType>(view->getResult(0).getType());
    clone->getResult(0).setType(
        MemRefType::get(viewType.getShape(), narrowed.type,
                        viewType.getLayout(), viewType.getMemorySpace()));
    narrowViews[view->getResult(0)] = clone->getResult(0);
  }
  for (OpOperand *read : narrowed.reads) {
    auto generic = cast<linalg::GenericOp>(read->getOwner());
    BlockArgument arg = generic.getMatchingBlockArgument(read);
    Value view = narrowViews.lookup(read->get());
    read->set(view ? view : Value(replacement));
    arg.setType(narrowed.type);
    for (Operation *user : llvm::make_early_inc_range(arg.getUsers())) {
      user->getResult(0).replaceAllUsesWith(arg);
      user->erase();
    }
  }
  for (Operation *view : narrowed.views)
    view->erase();
  dropDeallocs(replacement);
  return replacement;
}

/// The 16-bit buffer that a library call for `op` writes instead of its f32
/// accumulator `acc` (zero-filled by `fill`) when its readers narrow it to
/// `low` (f16 or bf16), after rewriting its epilogue; null if `acc` must
/// stay f32.
Value narrowOutput(Operation *op, Value acc, linalg::FillOp fill, Type low,
                   llvm::function_ref<bool(Value)> acceptable) {
  auto accType = cast<MemRefType>(acc.getType());
  if (!low || !accType.getElementType().isF32() ||
      !(low.isF16() || low.isBF16()))
    return {};
  std::optional<NarrowedAccumulator> narrowed =
      matchNarrowedAccumulator(op, acc, fill, low);
  if (!narrowed)
    return {};
  return narrowAccumulator(op, *narrowed, acceptable);
}

/// The type that the first generic reading `acc` narrows it to (f16 or
/// bf16), or null: the type an FP8 GEMM's output may be written in.
Type getReadersNarrowedType(Value acc) {
  for (OpOperand &use : acc.getUses())
    if (auto generic = dyn_cast<linalg::GenericOp>(use.getOwner()))
      return getNarrowedType(generic, use);
  return {};
}

/// The buffer `value` is a view of (through view-like ops), or itself.
Value getViewSource(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// True if an op in `op`'s block after `op`, up to and including `last`,
/// may write `buffer` or a view of it (its users through view-like ops).
bool isWrittenBetween(Operation *op, Operation *last, Value buffer) {
  SmallVector<Value> worklist = {getViewSource(buffer)};
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
} // namespace amp
} // namespace mlir
