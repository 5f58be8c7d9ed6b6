//===- ScaledGemmCalls.cpp - FP8 GEMMs as library calls -------------------===//
//
// Part of amp-mlir. The scaled-GEMM family of amp-linalg-to-library-calls:
// a (batch) matmul of FP8 operands (amp-float8-contractions) becomes the
// backend's scaled GEMM (ampGpuScaledGemm: cuBLASLt, whose rules the GPU
// backend applies; ampCpuLibraryScaledGemm: widened exactly, CBLAS). When
// the zero-filled accumulator's one reader multiplies it by a 0-d buffer
// written before the GEMM (the dequantization factor
// 1 / (scale_a * scale_b)), the call takes that buffer as its scale
// pointer (cuBLASLt's A scale) and the multiplication leaves the epilogue;
// an epilogue left with nothing but a narrowing to bf16 or f16 is then
// folded (a 16-bit D, Epilogues.cpp), one left with a copy into another
// f32 buffer too (the call writes that buffer). An abs-max reduction of
// the call's f32 output (amp.amax, lowered) becomes the call's dAmax.
//
// The FP8 contraction is matched here after amp-float8-scaling-to-linalg
// lowered its scaling: building the call from an amp op instead is
// docs/architecture.md's "Decisions kept in two passes".
//
//===----------------------------------------------------------------------===//

#include "LibraryCallLowering.h"

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
static void dropScaling(RewriterBase &rewriter, ScaledEpilogue &epilogue) {
  linalg::GenericOp generic = epilogue.generic;
  BlockArgument scaleArg = generic.getMatchingBlockArgument(epilogue.scale);
  Value acc = epilogue.mul.getLhs() == scaleArg ? epilogue.mul.getRhs()
                                                : epilogue.mul.getLhs();
  rewriter.replaceOp(epilogue.mul, acc);
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
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(generic);
  auto rebuilt = linalg::GenericOp::create(
      rewriter, generic.getLoc(), TypeRange(), inputs, generic.getDpsInits(),
      maps, generic.getIteratorTypesArray());
  rebuilt->setDiscardableAttrs(generic->getDiscardableAttrDictionary());
  rewriter.inlineRegionBefore(generic.getRegion(), rebuilt.getRegion(),
                              rebuilt.getRegion().end());
  rewriter.modifyOpInPlace(rebuilt, [&] {
    rebuilt.getRegion().front().eraseArgument(scaleArg.getArgNumber());
  });
  rewriter.eraseOp(generic);
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

namespace {
/// A (batch) matmul of FP8 operands as the backend's scaled GEMM.
template <typename OpTy>
struct ScaledGemmToLibraryCall : public OpRewritePattern<OpTy> {
  ScaledGemmToLibraryCall(MLIRContext *context, const LibraryBackend &backend)
      : OpRewritePattern<OpTy>(context), backend(backend) {}

  LogicalResult matchAndRewrite(OpTy matmul,
                                PatternRewriter &rewriter) const override {
    auto op = cast<linalg::LinalgOp>(matmul.getOperation());
    FailureOr<GemmOperands> gemm =
        matchGemmCall(op, rewriter, backend, LibraryCall::ScaledGemm);
    if (failed(gemm))
      return failure();
    Value c = gemm->c;
    BufferInfo ci = gemm->ci;
    int32_t cType = gemm->types.result;
    ArrayRef<int64_t> cShape = ci.type.getShape();
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    linalg::FillOp fill = findZeroFill(op, c);
    memref::AllocOp accumulator;
    // An epilogue that multiplies by the dequantization factor: the call
    // scales the product instead, and its output may then be narrowed to
    // the epilogue's 16-bit type (not to FP8).
    Value scale;
    if (std::optional<ScaledEpilogue> epilogue =
            matchScaledEpilogue(op, c, fill)) {
      scale = epilogue->scale->get();
      dropScaling(rewriter, *epilogue);
    }
    Type low = scale ? getReadersNarrowedType(c) : Type();
    auto acceptable = [&](Value buffer) {
      return isGemmOutput(buffer, cShape);
    };
    if (Value narrow = narrowOutput(rewriter, op, c, fill, low, acceptable)) {
      accumulator = c.getDefiningOp<memref::AllocOp>();
      c = narrow;
      cType = getDTypeCode(low);
    } else if (Value copied =
                   scale ? takeCopiedOutput(rewriter, op, c, fill, acceptable)
                         : Value()) {
      // An epilogue that only copied the scaled product: the call writes
      // the copy's output.
      accumulator = c.getDefiningOp<memref::AllocOp>();
      c = copied;
    }
    std::string ignored;
    ci = *getBufferInfo(c, ignored, /*dynamic=*/true);
    float beta = fill ? 0.0f : 1.0f;
    if (fill)
      rewriter.eraseOp(fill);
    SmallVector<Value> args =
        buildGemmArguments(rewriter, loc, *gemm, c, ci, cType, beta);
    // aScale: the factor, or NULL (1); bScale NULL; dAmax: the buffer of
    // the output's amax reduction, which the call replaces, or NULL.
    Value null = LLVM::ZeroOp::create(
        rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext()));
    Value amax = null;
    if (std::optional<OutputAmax> output = matchOutputAmax(op, c)) {
      if (!output->buffer->isBeforeInBlock(op))
        rewriter.moveOpBefore(output->buffer, op);
      rewriter.eraseOp(output->reduction);
      rewriter.eraseOp(output->fill);
      amax = createBufferPointer(rewriter, loc, output->buffer);
    }
    args.push_back(scale ? createBufferPointer(rewriter, loc, scale) : null);
    args.push_back(null);
    args.push_back(amax);
    replaceWithCall(rewriter, op, gemm->function, args, {accumulator});
    return success();
  }

  const LibraryBackend &backend;
};
} // namespace

} // namespace library_calls

void populateAmpScaledGemmToLibraryCallsPatterns(
    RewritePatternSet &patterns, const LibraryBackend &backend) {
  patterns.add<library_calls::ScaledGemmToLibraryCall<linalg::MatmulOp>,
               library_calls::ScaledGemmToLibraryCall<linalg::BatchMatmulOp>>(
      patterns.getContext(), backend);
}

} // namespace amp
} // namespace mlir
