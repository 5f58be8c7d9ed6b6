//===- LinalgToLibraryCalls.cpp - the amp-linalg-to-library-calls pass ----===//
//
// Part of amp-mlir. Matmuls and 2-D convolutions on memrefs become calls of
// libamp_runtime's cuBLAS/cuDNN wrappers (runtime/include/amp/runtime/
// AmpRuntime.h):
//
//   ampGpuGemm(transA, transB, batch, m, n, k, a, aType, lda, strideA,
//              b, bType, ldb, strideB, c, cType, ldc, strideC, beta)
//   ampGpuConv2d(layout, n, c, h, w, f, kh, kw, oh, ow, padTop, padLeft,
//                strideH, strideW, dilH, dilW, x, xType, w, wType, y, yType,
//                beta)
//
// Buffers are passed as raw device pointers; a linalg.fill of zero into the
// output right before the op becomes beta = 0 (and is erased).
//
// With target=cpu (the CPU pipeline), matmuls and batch matmuls become
// ampCpuLibraryGemm and convolutions ampCpuLibraryConv2d on host pointers
// instead (same arguments: the host's CBLAS, f32 accumulation; the
// convolutions packed im2col, also in the NHWC/FHWC form of tosa.conv2d,
// and with a dynamic batch); unscaling stays loops.
//
// Epilogues: a zero-filled f32 accumulator (a memref.alloc) whose only
// readers narrow it (arith.truncf to the operands' f16/bf16 type, see
// ContractionEpilogues.h) is not materialised: the call writes the 16-bit
// type itself (f32 compute, one rounding), straight into the output of a
// conversion-only generic, which is erased, or else into a 16-bit buffer
// that the fused epilogue generics read in place of their truncf.
//
// FP8 GEMMs (amp-float8-contractions) become ampGpuScaledGemm
// (ampCpuLibraryScaledGemm on the CPU): when the zero-filled accumulator's
// one reader multiplies it by a 0-d buffer written before the GEMM (the
// dequantization factor 1 / (scale_a * scale_b)), the call takes that
// buffer as its scale pointer (cuBLASLt's A scale) and the multiplication
// leaves the epilogue; an epilogue left with nothing but a narrowing to
// bf16 or f16 is then folded as above (a bf16 D), one left with a copy
// into another f32 buffer too (the call writes that buffer). An abs-max
// reduction of the call's f32 output (amp.amax, lowered) becomes the call's
// dAmax.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/LinalgToLibraryCalls/LinalgToLibraryCalls.h"
#include "amp/Conversion/LossScalingToLinalg/LossScalingToLinalg.h"
#include "amp/Conversion/RuntimeCalls.h"
#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Transforms/ContractionEpilogues.h"
#include "amp/Transforms/Float8Gemms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPLINALGTOLIBRARYCALLSPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

/// The runtime's code of a floating-point element type the library calls
/// take (RuntimeCalls.h); -1 for other element types, and for the FP8
/// types unless `allowFloat8` (only the GEMM and the CPU's convolution take
/// them).
static int32_t getDTypeCode(Type type, bool allowFloat8 = false) {
  if (!allowFloat8 && isa<Float8E4M3FNType, Float8E5M2Type>(type))
    return -1;
  std::optional<RuntimeDType> code = getRuntimeFloatDType(type);
  return code ? static_cast<int32_t>(*code) : -1;
}

/// The `layout` argument of the convolution calls (the runtime's
/// AmpConvLayout, AmpRuntime.h).
enum class ConvLayout : int32_t { NchwFchw = 0, NhwcHwcf = 1, NhwcFhwc = 2 };

/// The code of f32, the accumulator type every library call may write.
static constexpr int32_t kF32Code = static_cast<int32_t>(RuntimeDType::F32);

static bool isFloat8Code(int32_t code) {
  return code == static_cast<int32_t>(RuntimeDType::F8E4M3FN) ||
         code == static_cast<int32_t>(RuntimeDType::F8E5M2);
}

/// The FP8 operand types the runtime's GEMM and convolution take (those of
/// cuBLASLt: not E5M2 x E5M2) with an f32 result.
static bool isFloat8Pair(int32_t a, int32_t b, int32_t result) {
  int32_t e5m2 = static_cast<int32_t>(RuntimeDType::F8E5M2);
  return isFloat8Code(a) && isFloat8Code(b) && !(a == e5m2 && b == e5m2) &&
         result == kF32Code;
}

namespace {
/// A memref operand as the runtime wants it: static strides and offset.
struct BufferInfo {
  MemRefType type;
  SmallVector<int64_t> strides;
  int64_t offset = 0;
};
} // namespace

/// `dynamic`: sizes and strides may be dynamic (read from the descriptor at
/// the call, see getSize/getStride); the innermost stride must still be a
/// static 1.
static FailureOr<BufferInfo> getBufferInfo(Value value, std::string &why,
                                           bool dynamic = false) {
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
static Value getSize(OpBuilder &b, Location loc, Value value, unsigned dim) {
  auto type = cast<MemRefType>(value.getType());
  if (!type.isDynamicDim(dim))
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(),
                                        type.getDimSize(dim));
  Value size = memref::DimOp::create(b, loc, value, dim);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), size);
}

/// Stride `dim` of `value` (elements) as an i64: a constant when static,
/// read from the descriptor otherwise.
static Value getStride(OpBuilder &b, Location loc, Value value,
                       const BufferInfo &info, unsigned dim) {
  if (!ShapedType::isDynamic(info.strides[dim]))
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(),
                                        info.strides[dim]);
  Value stride =
      memref::ExtractStridedMetadataOp::create(b, loc, value).getStrides()[dim];
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), stride);
}

/// The device pointer of the first element of `value` as an !llvm.ptr: the
/// aligned base plus the layout's offset, a constant when it is static, read
/// from the descriptor otherwise (a slice at a loop index).
static Value getPointer(OpBuilder &b, Location loc, Value value) {
  auto type = cast<MemRefType>(value.getType());
  int64_t bytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  if (failed(type.getStridesAndOffset(strides, offset)))
    offset = ShapedType::kDynamic;
  Value address = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, value);
  Value byteOffset;
  if (ShapedType::isDynamic(offset))
    byteOffset = arith::MulIOp::create(
        b, loc,
        memref::ExtractStridedMetadataOp::create(b, loc, value).getOffset(),
        arith::ConstantIndexOp::create(b, loc, bytes));
  else if (offset != 0)
    byteOffset = arith::ConstantIndexOp::create(b, loc, offset * bytes);
  if (byteOffset)
    address = arith::AddIOp::create(b, loc, address, byteOffset);
  Value asInt = arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), asInt);
}

/// True if `value` is the constant +0.0.
static bool isPositiveZero(Value value) {
  FloatAttr attr;
  return matchPattern(value, m_Constant(&attr)) && attr.getValue().isPosZero();
}

/// A linalg.fill of +0.0 into `output` earlier in the same block with no
/// other use of `output` in between: the library call can overwrite instead
/// of accumulating.
static linalg::FillOp findZeroFill(Operation *op, Value output) {
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

namespace {
/// A zero-filled f32 accumulator buffer of a contraction whose readers only
/// narrow it to one 16-bit type.
struct NarrowedAccumulator {
  memref::AllocOp alloc;
  FloatType type;
  SmallVector<OpOperand *> reads;
  /// Reshaped views of the buffer that readers read it through (a
  /// [B*S, N] result read as [B, S, N] by its epilogue).
  SmallVector<Operation *> views;
};
} // namespace

/// Matches the accumulator `acc` of `op`, zero-filled by `fill`: a
/// memref.alloc in op's block whose users are `fill`, `op`, deallocs and,
/// after `op` in the block, generics that read it, directly or through
/// reshaped views, only to narrow it to `type`.
static std::optional<NarrowedAccumulator>
matchNarrowedAccumulator(Operation *op, Value acc, linalg::FillOp fill,
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
static Value getConversionOnlyOutput(linalg::GenericOp generic) {
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
static bool takeOutput(Operation *op, linalg::GenericOp generic, Value out,
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
static Value takeCopiedOutput(Operation *op, Value acc, linalg::FillOp fill,
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
static Value narrowAccumulator(Operation *op, NarrowedAccumulator &narrowed,
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
static Value narrowOutput(Operation *op, Value acc, linalg::FillOp fill,
                          Type low,
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
static Type getReadersNarrowedType(Value acc) {
  for (OpOperand &use : acc.getUses())
    if (auto generic = dyn_cast<linalg::GenericOp>(use.getOwner()))
      return getNarrowedType(generic, use);
  return {};
}

/// The buffer `value` is a view of (through view-like ops), or itself.
static Value getViewSource(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// True if an op in `op`'s block after `op`, up to and including `last`,
/// may write `buffer` or a view of it (its users through view-like ops).
static bool isWrittenBetween(Operation *op, Operation *last, Value buffer) {
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

namespace {
/// The multiplication of an FP8 GEMM's accumulator by its dequantization
/// factor in the one generic that reads it.
struct ScaledEpilogue {
  linalg::GenericOp generic;
  arith::MulFOp mul;
  /// The generic's 0-d input of the factor.
  OpOperand *scale;
};
} // namespace

/// Matches the epilogue of the FP8 contraction `op` whose zero-filled
/// (`fill`) accumulator is `acc`: a memref.alloc in op's block whose only
/// other user (deallocs aside) is a generic after `op` in the block that
/// reads it elementwise (identity map, parallel loops) into nothing but an
/// arith.mulf by a 0-d input. The factor's buffer must not be written
/// between `op` and the generic: the call reads it at `op`.
static std::optional<ScaledEpilogue>
matchScaledEpilogue(Operation *op, Value acc, linalg::FillOp fill) {
  auto alloc = acc.getDefiningOp<memref::AllocOp>();
  if (!fill || !alloc || alloc->getBlock() != op->getBlock())
    return std::nullopt;
  OpOperand *read = nullptr;
  for (OpOperand &use : alloc->getUses()) {
    Operation *user = use.getOwner();
    if (user == op || user == fill.getOperation() ||
        isa<memref::DeallocOp>(user))
      continue;
    if (read)
      return std::nullopt;
    read = &use;
  }
  auto generic = read ? dyn_cast<linalg::GenericOp>(read->getOwner())
                      : linalg::GenericOp();
  if (!generic || generic->getBlock() != op->getBlock() ||
      !op->isBeforeInBlock(generic) || !generic.isDpsInput(read) ||
      !generic.getMatchingIndexingMap(read).isIdentity() ||
      generic.getNumLoops() != generic.getNumParallelLoops())
    return std::nullopt;
  BlockArgument arg = generic.getMatchingBlockArgument(read);
  if (!arg.hasOneUse())
    return std::nullopt;
  auto mul = dyn_cast<arith::MulFOp>(*arg.getUsers().begin());
  if (!mul)
    return std::nullopt;
  Value other = mul.getLhs() == arg ? mul.getRhs() : mul.getLhs();
  auto otherArg = dyn_cast<BlockArgument>(other);
  if (!otherArg || otherArg.getOwner() != &generic.getRegion().front() ||
      otherArg == arg || otherArg.getArgNumber() >= generic.getNumDpsInputs())
    return std::nullopt;
  OpOperand *scale = generic.getDpsInputOperand(otherArg.getArgNumber());
  auto scaleType = dyn_cast<MemRefType>(scale->get().getType());
  if (!scaleType || scaleType.getRank() != 0 ||
      !scaleType.getElementType().isF32() ||
      !DominanceInfo().properlyDominates(scale->get(), op) ||
      isWrittenBetween(op, generic, scale->get()))
    return std::nullopt;
  return ScaledEpilogue{generic, mul, scale};
}

/// Takes the multiplication out of `epilogue` (its result is the
/// accumulator now) and, when nothing else reads the factor there, the
/// factor's input too (the generic is rebuilt without it).
static void dropScaling(ScaledEpilogue &epilogue) {
  linalg::GenericOp generic = epilogue.generic;
  BlockArgument scaleArg = generic.getMatchingBlockArgument(epilogue.scale);
  Value acc = epilogue.mul.getLhs() == scaleArg ? epilogue.mul.getRhs()
                                                : epilogue.mul.getLhs();
  epilogue.mul.getResult().replaceAllUsesWith(acc);
  epilogue.mul->erase();
  if (!scaleArg.use_empty())
    return;
  unsigned index = epilogue.scale->getOperandNumber();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    if (input->getOperandNumber() == index)
      continue;
    inputs.push_back(input->get());
    maps.push_back(generic.getMatchingIndexingMap(input));
  }
  for (OpOperand &init : generic.getDpsInitsMutable())
    maps.push_back(generic.getMatchingIndexingMap(&init));
  OpBuilder b(generic);
  auto rebuilt = linalg::GenericOp::create(b, generic.getLoc(), TypeRange(),
                                           inputs, generic.getDpsInits(), maps,
                                           generic.getIteratorTypesArray());
  rebuilt->setDiscardableAttrs(generic->getDiscardableAttrDictionary());
  rebuilt.getRegion().takeBody(generic.getRegion());
  rebuilt.getRegion().front().eraseArgument(scaleArg.getArgNumber());
  generic->erase();
  epilogue.generic = rebuilt;
}

namespace {
/// The amax reduction (amp.amax, lowered by amp-lower-float8-scaling) of a
/// scaled GEMM's f32 output, which the call computes instead (its dAmax).
struct OutputAmax {
  linalg::GenericOp reduction;
  linalg::FillOp fill;
  memref::AllocOp buffer;
};
} // namespace

/// True if `body` is `maximumf(out, absf(in))` (either order), yielded.
static bool isAbsMaxBody(linalg::GenericOp reduction) {
  Block &body = reduction.getRegion().front();
  if (body.getOperations().size() != 3)
    return false;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto max = yield.getOperand(0).getDefiningOp<arith::MaximumFOp>();
  if (!max)
    return false;
  BlockArgument in = body.getArgument(0), out = body.getArgument(1);
  Value other = max.getLhs() == out ? max.getRhs() : max.getLhs();
  auto abs = other.getDefiningOp<math::AbsFOp>();
  return abs && abs.getOperand() == in &&
         (max.getLhs() == out || max.getRhs() == out);
}

/// Matches the amax of `c`, the f32 buffer that the scaled GEMM call at
/// `op` writes whole: a generic after `op` in its block reducing all of `c`
/// (an identity map, only reduction loops) with `maximumf(out, absf(in))`
/// into a 0-d f32 buffer, a memref.alloc in the block filled with +0 before
/// the reduction, and nothing else touching that buffer before the
/// reduction or writing `c` between the call and the reduction. The call
/// then writes the amax (the largest |value| of `c`, 0 for none, NaN if
/// any): the same value.
static std::optional<OutputAmax> matchOutputAmax(Operation *op, Value c) {
  if (!cast<MemRefType>(c.getType()).getElementType().isF32())
    return std::nullopt;
  for (Operation *user : c.getUsers()) {
    auto reduction = dyn_cast<linalg::GenericOp>(user);
    if (!reduction || reduction->getBlock() != op->getBlock() ||
        !op->isBeforeInBlock(reduction) || reduction.getNumDpsInputs() != 1 ||
        reduction.getNumDpsInits() != 1 || reduction.getDpsInputs()[0] != c ||
        reduction.getNumReductionLoops() != reduction.getNumLoops() ||
        !reduction.getMatchingIndexingMap(reduction.getDpsInputOperand(0))
             .isIdentity() ||
        !isAbsMaxBody(reduction))
      continue;
    Value amax = reduction.getDpsInits()[0];
    auto buffer = amax.getDefiningOp<memref::AllocOp>();
    auto type = cast<MemRefType>(amax.getType());
    if (!buffer || buffer->getNumOperands() != 0 ||
        buffer->getBlock() != op->getBlock() || type.getRank() != 0 ||
        !type.getElementType().isF32() || isWrittenBetween(op, reduction, c))
      continue;
    linalg::FillOp fill;
    bool usable = true;
    for (Operation *bufferUser : buffer->getUsers()) {
      if (bufferUser == reduction.getOperation())
        continue;
      auto zero = dyn_cast<linalg::FillOp>(bufferUser);
      if (zero && !fill && zero->getBlock() == op->getBlock() &&
          zero->isBeforeInBlock(reduction) &&
          isPositiveZero(zero.getInputs()[0])) {
        fill = zero;
        continue;
      }
      Operation *inBlock = op->getBlock()->findAncestorOpInBlock(*bufferUser);
      usable &= inBlock && reduction->isBeforeInBlock(inBlock);
    }
    if (usable && fill)
      return OutputAmax{reduction, fill, buffer};
  }
  return std::nullopt;
}

namespace {
/// One gradient of an amp.check_finite_and_unscale (its per-gradient generic
/// after bufferization).
struct UnscaleEntry {
  linalg::GenericOp op;
  Value in, out, inverse, flag;
  int32_t dtype = 0;
};

struct Lowering {
  ModuleOp module;
  OpBuilder b;
  Type i32, i64, f32, ptr;

  /// The CPU pipeline's calls (ampCpuLibraryGemm, ampCpuLibraryConv2d)
  /// instead of the GPU's.
  bool onCpu = false;

  explicit Lowering(ModuleOp module) : module(module), b(module.getContext()) {
    i32 = b.getI32Type();
    i64 = b.getI64Type();
    f32 = b.getF32Type();
    ptr = LLVM::LLVMPointerType::get(module.getContext());
  }

  Value i32c(Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 32);
  }
  Value i64c(Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 64);
  }

  /// Set when a call could not be emitted (an error was reported).
  bool hadError = false;

  /// Calls `function` with `args` at `op`, declaring it on first use.
  LogicalResult emitCall(Operation *op, RuntimeFunction function,
                         ArrayRef<Value> args) {
    if (succeeded(createRuntimeCall(b, op, function, args)))
      return success();
    hadError = true;
    return failure();
  }

  LogicalResult lowerGemm(linalg::LinalgOp op, bool batched, std::string &why);
  LogicalResult lowerConv(linalg::LinalgOp op, ConvLayout layout,
                          std::string &why);
  FailureOr<UnscaleEntry> matchCheckFiniteAndUnscale(linalg::GenericOp op,
                                                     std::string &why);
  Value buildNumel(Location loc, Value in);
  void lowerCheckFiniteAndUnscaleGroup(ArrayRef<UnscaleEntry> group);
};
} // namespace

LogicalResult Lowering::lowerGemm(linalg::LinalgOp op, bool batched,
                                  std::string &why) {
  MLIRContext *ctx = op->getContext();
  unsigned o = batched ? 1 : 0; // the first non-batch loop
  AffineExpr bd = getAffineDimExpr(0, ctx);
  AffineExpr m = getAffineDimExpr(o, ctx), n = getAffineDimExpr(o + 1, ctx),
             k = getAffineDimExpr(o + 2, ctx);
  unsigned numDims = o + 3;
  auto map = [&](ArrayRef<AffineExpr> exprs) {
    SmallVector<AffineExpr> all;
    if (batched)
      all.push_back(bd);
    all.append(exprs.begin(), exprs.end());
    return AffineMap::get(numDims, 0, all, ctx);
  };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps.size() != 3 || maps[2] != map({m, n})) {
    why = "unsupported indexing maps";
    return failure();
  }
  bool transA, transB;
  if (maps[0] == map({m, k}))
    transA = false;
  else if (maps[0] == map({k, m}))
    transA = true;
  else {
    why = "the LHS indexing map is neither (m, k) nor (k, m)";
    return failure();
  }
  if (maps[1] == map({k, n}))
    transB = false;
  else if (maps[1] == map({n, k}))
    transB = true;
  else {
    why = "the RHS indexing map is neither (k, n) nor (n, k)";
    return failure();
  }
  Value a = op.getDpsInputs()[0], bv = op.getDpsInputs()[1],
        c = op.getDpsInits()[0];
  // Dynamic sizes (a dynamic batch from a frontend) and strides are read
  // from the descriptors at the call.
  FailureOr<BufferInfo> ai = getBufferInfo(a, why, /*dynamic=*/true),
                        bi = getBufferInfo(bv, why, /*dynamic=*/true),
                        ci = getBufferInfo(c, why, /*dynamic=*/true);
  if (failed(ai) || failed(bi) || failed(ci))
    return failure();
  int32_t aType = getDTypeCode(ai->type.getElementType(), true);
  int32_t bType = getDTypeCode(bi->type.getElementType(), true);
  int32_t cType = getDTypeCode(ci->type.getElementType());
  bool float8 = isFloat8Code(aType) || isFloat8Code(bType);
  if (float8) {
    // FP8 operands (amp-float8-contractions): the runtime's scaled GEMM
    // widens them exactly on the CPU; on the GPU, cuBLASLt's FP8 kernels.
    if (!isFloat8Pair(aType, bType, cType)) {
      why = "FP8 operands must be E4M3 x E4M3, E4M3 x E5M2 or E5M2 x E4M3 "
            "with an f32 result";
      return failure();
    }
    if (!onCpu) {
      int64_t kSize = ai->type.getShape()[o + (transA ? 0 : 1)];
      int64_t nSize = ci->type.getShape()[o + 1];
      StringRef refusal = getCublasLtFloat8Refusal(
          ai->type.getElementType(), bi->type.getElementType(), transA, transB,
          kSize, nSize);
      if (!refusal.empty()) {
        why = refusal.str();
        return failure();
      }
    }
  } else if (aType < 0 || aType != bType || cType < 0 ||
             (cType != kF32Code && cType != aType)) {
    why = "element types must be f16, bf16 or f32 operands of one type and "
          "an f32 or same-typed result";
    return failure();
  }
  ArrayRef<int64_t> cShape = ci->type.getShape();
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  float beta = 1.0f;
  linalg::FillOp fill = findZeroFill(op, c);
  memref::AllocOp accumulator;
  // An FP8 GEMM whose epilogue multiplies by the dequantization factor:
  // the call scales the product instead, and its output may then be
  // narrowed to the epilogue's 16-bit type (not to FP8).
  Value scale;
  if (float8) {
    if (std::optional<ScaledEpilogue> epilogue =
            matchScaledEpilogue(op, c, fill)) {
      scale = epilogue->scale->get();
      dropScaling(*epilogue);
    }
  }
  Type low = !float8 ? ai->type.getElementType()
             : scale ? getReadersNarrowedType(c)
                     : Type();
  auto acceptable = [&](Value buffer) {
    std::string ignored;
    FailureOr<BufferInfo> info =
        getBufferInfo(buffer, ignored, /*dynamic=*/true);
    return succeeded(info) && info->type.getShape() == cShape;
  };
  if (Value narrow = narrowOutput(op, c, fill, low, acceptable)) {
    accumulator = c.getDefiningOp<memref::AllocOp>();
    c = narrow;
    ci = getBufferInfo(c, why, /*dynamic=*/true);
    cType = getDTypeCode(low);
  } else if (Value copied =
                 scale ? takeCopiedOutput(op, c, fill, acceptable) : Value()) {
    // A scaled FP8 GEMM whose epilogue only copied the scaled product: the
    // call writes the copy's output.
    accumulator = c.getDefiningOp<memref::AllocOp>();
    c = copied;
    ci = getBufferInfo(c, why, /*dynamic=*/true);
  }
  if (fill) {
    fill.erase();
    beta = 0.0f;
  }
  // Sizes of the buffer the call writes, read once it is known: a dynamic
  // size read from the f32 accumulator (memref.dim) would be one more
  // reader of it, and keep it from being narrowed.
  Value batch = batched ? getSize(b, loc, c, 0) : i64c(loc, 1);
  Value mm = getSize(b, loc, c, o), nn = getSize(b, loc, c, o + 1);
  Value kk = getSize(b, loc, a, o + (transA ? 0 : 1));
  auto ld = [&](Value buffer, const BufferInfo &info) {
    return getStride(b, loc, buffer, info, o);
  };
  auto batchStride = [&](Value buffer, const BufferInfo &info) {
    return batched ? getStride(b, loc, buffer, info, 0) : i64c(loc, 0);
  };
  SmallVector<Value> args = {i32c(loc, transA),
                             i32c(loc, transB),
                             batch,
                             mm,
                             nn,
                             kk,
                             getPointer(b, loc, a),
                             i32c(loc, aType),
                             ld(a, *ai),
                             batchStride(a, *ai),
                             getPointer(b, loc, bv),
                             i32c(loc, bType),
                             ld(bv, *bi),
                             batchStride(bv, *bi),
                             getPointer(b, loc, c),
                             i32c(loc, cType),
                             ld(c, *ci),
                             batchStride(c, *ci),
                             arith::ConstantFloatOp::create(
                                 b, loc, cast<FloatType>(f32), APFloat(beta))};
  RuntimeFunction function =
      onCpu ? RuntimeFunction::ampCpuLibraryGemm : RuntimeFunction::ampGpuGemm;
  if (float8) {
    // aScale: the factor, or NULL (1); bScale NULL; dAmax: the buffer of
    // the output's amax reduction, which the call replaces, or NULL.
    Value null = LLVM::ZeroOp::create(b, loc, ptr);
    Value amax = null;
    if (std::optional<OutputAmax> output = matchOutputAmax(op, c)) {
      if (!output->buffer->isBeforeInBlock(op))
        output->buffer->moveBefore(op);
      output->reduction->erase();
      output->fill->erase();
      amax = getPointer(b, loc, output->buffer);
    }
    args.push_back(scale ? getPointer(b, loc, scale) : null);
    args.push_back(null);
    args.push_back(amax);
    function = onCpu ? RuntimeFunction::ampCpuLibraryScaledGemm
                     : RuntimeFunction::ampGpuScaledGemm;
  }
  if (failed(emitCall(op, function, args)))
    return success(); // Reported; the pass fails.
  op->erase();
  if (accumulator)
    accumulator->erase();
  return success();
}

/// True if `info` describes a contiguous row-major buffer.
static bool isContiguous(const BufferInfo &info) {
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
static bool isZeroFillOf(Operation *op, Value buffer) {
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

namespace {
/// A convolution input that is a copy of another buffer with zeros around
/// it, as tensor.pad bufferizes: a buffer filled with zeros and the source
/// copied into a subview of it.
struct PaddedInput {
  Value source;
  int64_t padTop = 0, padLeft = 0;
  /// The copy, the subview, the fill and the buffer: erased in this order
  /// once the call reads the source.
  SmallVector<Operation *, 4> ops;
};
} // namespace

/// The source and the padding of the convolution input `input` of `conv`
/// when the padding is zeros, in the spatial dimensions `hDim` and `wDim`
/// only, and the same on both sides of each (the calls' padTop/padLeft:
/// cuDNN's padding is symmetric), so that the call can read the source in
/// place; none otherwise. The source must not change between the copy and
/// the convolution: the ops between them only read it, and no view of it
/// is taken before the convolution.
static std::optional<PaddedInput> matchPaddedInput(Operation *conv, Value input,
                                                   int hDim, int wDim) {
  auto alloc = input.getDefiningOp<memref::AllocOp>();
  if (!alloc || !alloc.getType().hasStaticShape() ||
      alloc->getBlock() != conv->getBlock())
    return std::nullopt;
  Operation *fill = nullptr;
  memref::SubViewOp subview;
  memref::CopyOp copy;
  for (Operation *user : alloc->getUsers()) {
    if (user == conv)
      continue;
    if (!fill && isZeroFillOf(user, input)) {
      fill = user;
      continue;
    }
    auto view = dyn_cast<memref::SubViewOp>(user);
    if (subview || !view || !view->hasOneUse())
      return std::nullopt;
    subview = view;
    copy = dyn_cast<memref::CopyOp>(*view->getUsers().begin());
    if (!copy || copy.getTarget() != view.getResult())
      return std::nullopt;
  }
  if (!fill || !subview || fill->getBlock() != conv->getBlock() ||
      copy->getBlock() != conv->getBlock() || !fill->isBeforeInBlock(copy) ||
      !copy->isBeforeInBlock(conv))
    return std::nullopt;

  // Zeros on both sides of H and W, nothing elsewhere.
  ArrayRef<int64_t> padded = alloc.getType().getShape();
  ArrayRef<int64_t> offsets = subview.getStaticOffsets();
  ArrayRef<int64_t> sizes = subview.getStaticSizes();
  if (llvm::any_of(subview.getStaticStrides(),
                   [](int64_t stride) { return stride != 1; }) ||
      llvm::any_of(offsets, ShapedType::isDynamic) ||
      llvm::any_of(sizes, ShapedType::isDynamic))
    return std::nullopt;
  for (int64_t i = 0, e = padded.size(); i < e; ++i) {
    bool spatial = i == hDim || i == wDim;
    if ((!spatial && offsets[i] != 0) || sizes[i] + 2 * offsets[i] != padded[i])
      return std::nullopt;
  }

  // The source, unchanged from the copy to the convolution.
  Value source = copy.getSource();
  auto sourceType = dyn_cast<MemRefType>(source.getType());
  if (!sourceType || sourceType.getShape() != sizes ||
      sourceType.getElementType() != alloc.getType().getElementType())
    return std::nullopt;
  Operation *producer = source.getDefiningOp();
  if (producer && !isa<memref::AllocOp>(producer))
    return std::nullopt;
  for (Operation *user : source.getUsers()) {
    if (user == copy)
      continue;
    Operation *inBlock = conv->getBlock()->findAncestorOpInBlock(*user);
    if (!inBlock)
      return std::nullopt;
    if (conv->isBeforeInBlock(inBlock))
      continue;
    // A view could be written through later; between the copy and the
    // convolution, only reads.
    if (isa<ViewLikeOpInterface>(user))
      return std::nullopt;
    if (inBlock->isBeforeInBlock(copy))
      continue;
    auto interface = dyn_cast<MemoryEffectOpInterface>(user);
    if (!interface)
      return std::nullopt;
    SmallVector<MemoryEffects::EffectInstance> effects;
    interface.getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects)
      if (!isa<MemoryEffects::Read>(effect.getEffect()) &&
          (!effect.getValue() || effect.getValue() == source))
        return std::nullopt;
  }
  PaddedInput result;
  result.source = source;
  result.padTop = offsets[hDim];
  result.padLeft = offsets[wDim];
  result.ops = {copy, subview, fill, alloc};
  return result;
}

/// On the CPU, the batch (dimension 0 of the input and the output) may be
/// dynamic, read at the call: the other sizes, the strides and the offset
/// must be static.
static FailureOr<BufferInfo> getConvBufferInfo(Value value, bool dynamicBatch,
                                               std::string &why) {
  FailureOr<BufferInfo> info = getBufferInfo(value, why, dynamicBatch);
  if (failed(info) || !dynamicBatch)
    return info;
  if (llvm::any_of(info->type.getShape().drop_front(), ShapedType::isDynamic) ||
      ShapedType::isDynamic(info->offset) ||
      llvm::any_of(info->strides, ShapedType::isDynamic)) {
    why = "only the batch of a convolution may be dynamic";
    return failure();
  }
  return info;
}

LogicalResult Lowering::lowerConv(linalg::LinalgOp op, ConvLayout layout,
                                  std::string &why) {
  Value x = op.getDpsInputs()[0], w = op.getDpsInputs()[1],
        y = op.getDpsInits()[0];
  // A zero-padded input: the call reads the unpadded source in place.
  bool nchw = layout == ConvLayout::NchwFchw;
  std::optional<PaddedInput> padded =
      matchPaddedInput(op, x, nchw ? 2 : 1, nchw ? 3 : 2);
  if (padded)
    x = padded->source;
  FailureOr<BufferInfo> xi = getConvBufferInfo(x, onCpu, why),
                        wi = getConvBufferInfo(w, /*dynamicBatch=*/false, why),
                        yi = getConvBufferInfo(y, onCpu, why);
  if (failed(xi) || failed(wi) || failed(yi))
    return failure();
  if (!isContiguous(*xi) || !isContiguous(*wi) || !isContiguous(*yi)) {
    why = "convolution operands must be contiguous";
    return failure();
  }
  int32_t xType = getDTypeCode(xi->type.getElementType(), true);
  int32_t wType = getDTypeCode(wi->type.getElementType(), true);
  int32_t yType = getDTypeCode(yi->type.getElementType());
  bool float8 = isFloat8Code(xType) || isFloat8Code(wType);
  if (float8) {
    // FP8 operands (amp-float8-contractions): the CPU call widens them
    // exactly; cuDNN's legacy API has no FP8 convolution.
    if (!isFloat8Pair(xType, wType, yType)) {
      why = "FP8 operands must be E4M3 x E4M3, E4M3 x E5M2 or E5M2 x E4M3 "
            "with an f32 result";
      return failure();
    }
    if (!onCpu) {
      why = "cuDNN's legacy API has no FP8 convolution";
      return failure();
    }
  } else if (xType < 0 || xType != wType || yType < 0 ||
             (yType != kF32Code && yType != xType)) {
    why = "element types must be f16, bf16 or f32 operands of one type and "
          "an f32 or same-typed result";
    return failure();
  }
  auto strides = op->getAttrOfType<DenseIntElementsAttr>("strides");
  auto dilations = op->getAttrOfType<DenseIntElementsAttr>("dilations");
  auto get = [](DenseIntElementsAttr attr, int i) -> int64_t {
    return attr ? attr.getValues<int64_t>()[i] : 1;
  };
  ArrayRef<int64_t> xs = xi->type.getShape(), ws = wi->type.getShape(),
                    ys = yi->type.getShape();
  int64_t c = 0, h = 0, wd = 0, f = 0, kh = 0, kw = 0, oh = 0, ow = 0;
  switch (layout) {
  case ConvLayout::NchwFchw:
    c = xs[1], h = xs[2], wd = xs[3];
    f = ws[0], kh = ws[2], kw = ws[3];
    oh = ys[2], ow = ys[3];
    break;
  case ConvLayout::NhwcHwcf:
    h = xs[1], wd = xs[2], c = xs[3];
    kh = ws[0], kw = ws[1], f = ws[3];
    oh = ys[1], ow = ys[2];
    break;
  case ConvLayout::NhwcFhwc:
    h = xs[1], wd = xs[2], c = xs[3];
    f = ws[0], kh = ws[1], kw = ws[2];
    oh = ys[1], ow = ys[2];
    break;
  }
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  float beta = 1.0f;
  linalg::FillOp fill = findZeroFill(op, y);
  memref::AllocOp accumulator;
  // An FP8 convolution writes f32: the result is not narrowed into FP8.
  if (Value narrow =
          float8 ? Value()
                 : narrowOutput(op, y, fill, xi->type.getElementType(),
                                [&](Value buffer) {
                                  std::string ignored;
                                  FailureOr<BufferInfo> info =
                                      getConvBufferInfo(buffer, onCpu, ignored);
                                  return succeeded(info) &&
                                         isContiguous(*info) &&
                                         info->type.getShape() == ys;
                                })) {
    accumulator = y.getDefiningOp<memref::AllocOp>();
    y = narrow;
    yType = xType;
  }
  if (fill) {
    fill.erase();
    beta = 0.0f;
  }
  // The batch, read once the buffer the call writes is known (as for the
  // GEMM: a memref.dim of the f32 accumulator would keep it).
  SmallVector<Value> args = {i32c(loc, static_cast<int32_t>(layout)),
                             getSize(b, loc, y, 0),
                             i64c(loc, c),
                             i64c(loc, h),
                             i64c(loc, wd),
                             i64c(loc, f),
                             i64c(loc, kh),
                             i64c(loc, kw),
                             i64c(loc, oh),
                             i64c(loc, ow),
                             i64c(loc, padded ? padded->padTop : 0),
                             i64c(loc, padded ? padded->padLeft : 0),
                             i64c(loc, get(strides, 0)),
                             i64c(loc, get(strides, 1)),
                             i64c(loc, get(dilations, 0)),
                             i64c(loc, get(dilations, 1)),
                             getPointer(b, loc, x),
                             i32c(loc, xType),
                             getPointer(b, loc, w),
                             i32c(loc, wType),
                             getPointer(b, loc, y),
                             i32c(loc, yType),
                             arith::ConstantFloatOp::create(
                                 b, loc, cast<FloatType>(f32), APFloat(beta))};
  if (failed(emitCall(op,
                      onCpu ? RuntimeFunction::ampCpuLibraryConv2d
                            : RuntimeFunction::ampGpuConv2d,
                      args)))
    return success(); // Reported; the pass fails.
  op->erase();
  if (accumulator)
    accumulator->erase();
  if (padded)
    for (Operation *padding : padded->ops)
      padding->erase();
  return success();
}

/// True if every element of `type` is stored once, densely, in row-major
/// order: an identity layout, or static strides that say so (any offset).
static bool isDenseBuffer(MemRefType type) {
  if (type.getLayout().isIdentity())
    return true;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  int64_t expected = 1;
  for (int64_t i = type.getRank() - 1; i >= 0; --i) {
    if (type.getDimSize(i) == 1)
      continue;
    if (ShapedType::isDynamic(strides[i]) || strides[i] != expected ||
        ShapedType::isDynamic(type.getDimSize(i)))
      return false;
    expected *= type.getDimSize(i);
  }
  return true;
}

FailureOr<UnscaleEntry>
Lowering::matchCheckFiniteAndUnscale(linalg::GenericOp op, std::string &why) {
  // ins(gradient, inverse scale) outs(unscaled, flag), as emitted by
  // amp-lower-loss-scaling with the scale in a 0-d tensor.
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 2) {
    why = "the scale is a host scalar (hold the scaler state in 0-d tensors "
          "on the GPU)";
    return failure();
  }
  UnscaleEntry entry;
  entry.op = op;
  entry.in = op.getDpsInputOperand(0)->get();
  entry.inverse = op.getDpsInputOperand(1)->get();
  entry.out = op.getDpsInitOperand(0)->get();
  entry.flag = op.getDpsInitOperand(1)->get();
  auto inType = dyn_cast<MemRefType>(entry.in.getType());
  auto outType = dyn_cast<MemRefType>(entry.out.getType());
  auto inverseType = dyn_cast<MemRefType>(entry.inverse.getType());
  auto flagType = dyn_cast<MemRefType>(entry.flag.getType());
  if (!inType || !outType || !inverseType || !flagType) {
    why = "operands must be memrefs";
    return failure();
  }
  if (!isDenseBuffer(inType) || !isDenseBuffer(outType)) {
    why = "the gradient buffers must be contiguous";
    return failure();
  }
  entry.dtype = getDTypeCode(inType.getElementType());
  if (entry.dtype < 0 || inType.getElementType() != outType.getElementType()) {
    why = "gradients must be f32, f16 or bf16";
    return failure();
  }
  if (inverseType.getRank() != 0 || flagType.getRank() != 0) {
    why = "the scale and the flag must be 0-d buffers";
    return failure();
  }
  return entry;
}

Value Lowering::buildNumel(Location loc, Value in) {
  auto inType = cast<MemRefType>(in.getType());
  // The element count: static, or the product of the dynamic sizes.
  Value numel = i64c(loc, 1);
  int64_t staticCount = 1;
  for (int64_t i = 0, e = inType.getRank(); i < e; ++i) {
    if (!inType.isDynamicDim(i)) {
      staticCount *= inType.getDimSize(i);
      continue;
    }
    Value size = memref::DimOp::create(b, loc, in, i);
    numel = arith::MulIOp::create(
        b, loc, numel, arith::IndexCastOp::create(b, loc, i64, size));
  }
  if (staticCount != 1)
    numel = arith::MulIOp::create(b, loc, numel, i64c(loc, staticCount));
  return numel;
}

void Lowering::lowerCheckFiniteAndUnscaleGroup(ArrayRef<UnscaleEntry> group) {
  // The table: three host arrays in the function's entry block (allocated
  // once per call of the function, not per loop iteration), filled right
  // before the call, which reads them before it returns.
  linalg::GenericOp last = group.back().op;
  Location loc = last.getLoc();
  auto func = last->getParentOfType<FunctionOpInterface>();
  int64_t count = static_cast<int64_t>(group.size());
  b.setInsertionPointToStart(&func.getFunctionBody().front());
  Value size =
      LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(count));
  Value ins = LLVM::AllocaOp::create(b, loc, ptr, ptr, size);
  Value outs = LLVM::AllocaOp::create(b, loc, ptr, ptr, size);
  Value numels = LLVM::AllocaOp::create(b, loc, ptr, i64, size);
  Value dtypes = LLVM::AllocaOp::create(b, loc, ptr, i32, size);
  b.setInsertionPoint(last);
  auto store = [&](Value array, Type element, int64_t index, Value value) {
    Value slot = LLVM::GEPOp::create(
        b, loc, ptr, element, array,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(index)});
    LLVM::StoreOp::create(b, loc, value, slot);
  };
  for (auto [index, entry] : llvm::enumerate(group)) {
    int64_t k = static_cast<int64_t>(index);
    store(ins, ptr, k, getPointer(b, loc, entry.in));
    store(outs, ptr, k, getPointer(b, loc, entry.out));
    store(numels, i64, k, buildNumel(loc, entry.in));
    store(dtypes, i32, k, i32c(loc, entry.dtype));
  }
  SmallVector<Value> args = {i64c(loc, count),
                             ins,
                             outs,
                             numels,
                             dtypes,
                             getPointer(b, loc, group.front().inverse),
                             getPointer(b, loc, group.front().flag)};
  if (failed(emitCall(last, RuntimeFunction::ampGpuCheckFiniteAndUnscaleBuffers,
                      args)))
    return; // Reported; the pass fails.
  for (const UnscaleEntry &entry : group)
    entry.op->erase();
}

/// Whether `next` can join the table of `group` (one call at `next`): the
/// same block, inverse scale and flag buffer, and nothing in between that
/// touches memory (that could read a gradient the call has not written yet,
/// or write one it reads) other than allocating.
static bool canJoin(ArrayRef<UnscaleEntry> group, const UnscaleEntry &next) {
  const UnscaleEntry &last = group.back();
  if (last.op->getBlock() != next.op->getBlock() ||
      last.inverse != next.inverse || last.flag != next.flag ||
      !last.op->isBeforeInBlock(next.op))
    return false;
  for (Operation *op = last.op->getNextNode(); op != next.op;
       op = op->getNextNode()) {
    if (isMemoryEffectFree(op))
      continue;
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects || op->getNumRegions() != 0)
      return false;
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (const MemoryEffects::EffectInstance &effect : list)
      if (!isa<MemoryEffects::Allocate>(effect.getEffect()))
        return false;
  }
  return true;
}

/// The convolutions that the CPU pipeline leaves to the loops with a remark
/// when they have no library call: linalg's named convolutions (pooling
/// aside).
static bool isConvolution(linalg::LinalgOp op) {
  StringRef name = op->getName().getStringRef();
  return name.starts_with("linalg.conv_") ||
         name.starts_with("linalg.depthwise_conv_");
}

/// The layout of the library call of a convolution; NHWC/FHWC (tosa.conv2d)
/// on the CPU only.
static std::optional<ConvLayout> getConvLayout(Operation *op, bool onCpu) {
  if (isa<linalg::Conv2DNchwFchwOp>(op))
    return ConvLayout::NchwFchw;
  if (isa<linalg::Conv2DNhwcHwcfOp>(op))
    return ConvLayout::NhwcHwcf;
  if (onCpu && isa<linalg::Conv2DNhwcFhwcOp>(op))
    return ConvLayout::NhwcFhwc;
  return std::nullopt;
}

namespace {
struct AmpLinalgToLibraryCallsPass
    : public amp::impl::AmpLinalgToLibraryCallsPassBase<
          AmpLinalgToLibraryCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (target != "gpu" && target != "cpu") {
      module.emitError() << "amp-linalg-to-library-calls: target must be gpu "
                            "or cpu, got '"
                         << target << "'";
      return signalPassFailure();
    }
    bool onCpu = target == "cpu";
    SmallVector<linalg::LinalgOp> ops;
    module.walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::Conv2DNchwFchwOp,
              linalg::Conv2DNhwcHwcfOp>(op) ||
          (onCpu && isConvolution(op)))
        if (convolutions || isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
          ops.push_back(op);
    });
    Lowering lowering(module);
    lowering.onCpu = onCpu;
    SmallVector<linalg::GenericOp> checks;
    // On the CPU the unscaling generics are loops already.
    module.walk([&](linalg::GenericOp op) {
      if (onCpu)
        return;
      if (op.getLibraryCallAttr() && op.getLibraryCallAttr().getValue() ==
                                         kCheckFiniteAndUnscaleLibraryCall)
        checks.push_back(op);
    });
    // The generics of one amp.check_finite_and_unscale (consecutive, one
    // inverse scale, one flag) become one table call: one launch for all
    // gradients.
    SmallVector<SmallVector<UnscaleEntry>> groups;
    for (linalg::GenericOp op : checks) {
      std::string why;
      if (!op.hasPureBufferSemantics()) {
        op->emitRemark("amp: not a library call: the op is on tensors "
                       "(run after bufferization)");
        continue;
      }
      FailureOr<UnscaleEntry> entry =
          lowering.matchCheckFiniteAndUnscale(op, why);
      if (failed(entry)) {
        op->emitRemark() << "amp: check_finite_and_unscale kept as a "
                            "one-thread generated kernel: "
                         << why;
        continue;
      }
      if (!groups.empty() && canJoin(groups.back(), *entry))
        groups.back().push_back(*entry);
      else
        groups.push_back({*entry});
    }
    for (ArrayRef<UnscaleEntry> group : groups)
      lowering.lowerCheckFiniteAndUnscaleGroup(group);
    for (linalg::LinalgOp op : ops) {
      if (!op.hasPureBufferSemantics()) {
        op->emitRemark("amp: not a library call: the op is on tensors "
                       "(run after bufferization)");
        continue;
      }
      std::string why;
      Operation *raw = op.getOperation();
      std::optional<ConvLayout> layout = getConvLayout(raw, onCpu);
      if (onCpu && !layout &&
          !isa<linalg::MatmulOp, linalg::BatchMatmulOp>(raw)) {
        raw->emitRemark()
            << "amp: kept as loops, not a library call: the CPU library "
               "calls compute 2-D convolutions of the forms "
               "conv_2d_nchw_fchw, conv_2d_nhwc_hwcf and conv_2d_nhwc_fhwc "
               "only (no groups, depthwise, 1-D or 3-D), not "
            << raw->getName();
        continue;
      }
      LogicalResult lowered =
          isa<linalg::MatmulOp>(raw) ? lowering.lowerGemm(op, false, why)
          : isa<linalg::BatchMatmulOp>(raw)
              ? lowering.lowerGemm(op, true, why)
              : lowering.lowerConv(op, *layout, why);
      if (failed(lowered))
        raw->emitRemark() << (onCpu ? "amp: kept as loops, not a library "
                                      "call: "
                                    : "amp: kept as a generated kernel, not a "
                                      "library call: ")
                          << why;
    }
    if (lowering.hadError)
      signalPassFailure();
  }
};
} // namespace
