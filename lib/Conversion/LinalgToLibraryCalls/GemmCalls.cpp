//===- GemmCalls.cpp - GEMMs and FP8 GEMMs as library calls ---------------===//
//
// Part of amp-mlir. GEMMs and FP8 GEMMs as library calls: part of
// amp-linalg-to-library-calls (LinalgToLibraryCalls.cpp).
//
//===----------------------------------------------------------------------===//

#include "LibraryCallLowering.h"

#include "amp/Transforms/Float8Gemms.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Dominance.h"

namespace mlir {
namespace amp {
namespace library_calls {

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
/// The amax reduction (amp.amax, lowered by amp-float8-scaling-to-linalg) of a
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

/// Whether the (batch) matmul `op` reads A and B transposed: its maps must
/// be those of C(m, n) += A(m, k | k, m) * B(k, n | n, k), after the batch
/// dimension when `batched`.
static LogicalResult getGemmTransposes(linalg::LinalgOp op, bool batched,
                                       bool &transA, bool &transB,
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
  return success();
}

/// The element types' codes of a GEMM call, or why the call cannot take
/// them: 16-bit or f32 operands of one type into f32 or the same type, or
/// FP8 operands (on the GPU, in a form cuBLASLt's FP8 kernels take).
static FailureOr<ContractionTypes>
getGemmTypes(const BufferInfo &ai, const BufferInfo &bi, const BufferInfo &ci,
             bool transA, bool transB, unsigned o, bool onCpu,
             std::string &why) {
  FailureOr<ContractionTypes> types = getContractionTypes(ai, bi, ci, why);
  if (failed(types))
    return failure();
  int32_t aType = types->lhs, bType = types->rhs, cType = types->result;
  if (types->float8) {
    // FP8 operands (amp-float8-contractions): the runtime's scaled GEMM
    // widens them exactly on the CPU; on the GPU, cuBLASLt's FP8 kernels.
    if (!onCpu) {
      int64_t kSize = ai.type.getShape()[o + (transA ? 0 : 1)];
      int64_t nSize = ci.type.getShape()[o + 1];
      StringRef refusal = getCublasLtFloat8Refusal(
          ai.type.getElementType(), bi.type.getElementType(), transA, transB,
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
  return types;
}

LogicalResult Lowering::lowerGemm(linalg::LinalgOp op, bool batched,
                                  std::string &why) {
  unsigned o = batched ? 1 : 0; // the first non-batch loop
  bool transA, transB;
  if (failed(getGemmTransposes(op, batched, transA, transB, why)))
    return failure();
  Value a = op.getDpsInputs()[0], bv = op.getDpsInputs()[1],
        c = op.getDpsInits()[0];
  // Dynamic sizes (a dynamic batch from a frontend) and strides are read
  // from the descriptors at the call.
  FailureOr<BufferInfo> ai = getBufferInfo(a, why, /*dynamic=*/true),
                        bi = getBufferInfo(bv, why, /*dynamic=*/true),
                        ci = getBufferInfo(c, why, /*dynamic=*/true);
  if (failed(ai) || failed(bi) || failed(ci))
    return failure();
  FailureOr<ContractionTypes> types =
      getGemmTypes(*ai, *bi, *ci, transA, transB, o, onCpu, why);
  if (failed(types))
    return failure();
  int32_t aType = types->lhs, bType = types->rhs, cType = types->result;
  bool float8 = types->float8;
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
                             createBufferPointer(b, loc, a),
                             i32c(loc, aType),
                             ld(a, *ai),
                             batchStride(a, *ai),
                             createBufferPointer(b, loc, bv),
                             i32c(loc, bType),
                             ld(bv, *bi),
                             batchStride(bv, *bi),
                             createBufferPointer(b, loc, c),
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
      amax = createBufferPointer(b, loc, output->buffer);
    }
    args.push_back(scale ? createBufferPointer(b, loc, scale) : null);
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

} // namespace library_calls
} // namespace amp
} // namespace mlir
