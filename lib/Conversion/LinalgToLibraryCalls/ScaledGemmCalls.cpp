//===- ScaledGemmCalls.cpp - FP8 GEMMs as library calls -------------------===//
//
// Part of amp-mlir. The scaled-GEMM family of amp-linalg-to-library-calls:
// amp.scaled_matmul on buffers (amp-float8-contractions' FP8 GEMM, which
// stays one op through bufferization) becomes the backend's scaled GEMM
// (ampGpuScaledGemm: cuBLASLt, whose rules the GPU backend applies;
// ampCpuLibraryScaledGemm: widened exactly, CBLAS), built from the op: its
// scale is the call's A scale pointer, and an f32 destination whose readers
// only narrow it to bf16 or f16 is written in that type (a 16-bit D,
// Epilogues.cpp). A linalg (batch) matmul of FP8 operands (unscaled) is the
// same call with no scale. An abs-max reduction of the call's f32 output
// (amp.amax, lowered) becomes the call's dAmax. A scaled matmul no call
// takes is loops (amp-float8-scaling-to-linalg, on buffers).
//
//===----------------------------------------------------------------------===//

#include "LibraryCallLowering.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Dominance.h"

namespace mlir {
namespace amp {
namespace library_calls {

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

/// Replaces `op` by the scaled GEMM call of `gemm` writing `c` (of
/// `cType`, described by `ci`) with `beta`, `scale` (a 0-d f32 buffer: the
/// call's A scale) or none (1), and the amax of an f32 `c` when a reduction
/// computes it (the call's dAmax). `replaced`: what the call makes unneeded
/// (replaceWithCall).
static void replaceWithScaledGemmCall(PatternRewriter &rewriter, Operation *op,
                                      const GemmOperands &gemm, Value c,
                                      const BufferInfo &ci, int32_t cType,
                                      float beta, Value scale,
                                      ArrayRef<Operation *> replaced) {
  Location loc = op->getLoc();
  SmallVector<Value> args =
      buildGemmArguments(rewriter, loc, gemm, c, ci, cType, beta);
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
  replaceWithCall(rewriter, op, gemm.function, args, replaced);
}

namespace {
/// amp.scaled_matmul on buffers as the backend's scaled GEMM: its scale is
/// the call's A scale, and an f32 destination whose readers only narrow it
/// to f16 or bf16 is written in that type (Epilogues.cpp).
struct ScaledMatmulToLibraryCall : public OpRewritePattern<ScaledMatmulOp> {
  ScaledMatmulToLibraryCall(MLIRContext *context, const LibraryBackend &backend)
      : OpRewritePattern<ScaledMatmulOp>(context), backend(backend) {}

  LogicalResult matchAndRewrite(ScaledMatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, kOnTensors);
    GemmOperands operands;
    operands.batched = op.isBatched();
    operands.transA = false;
    operands.transB = true; // B is stored n x k.
    operands.a = op.getLhs();
    operands.b = op.getRhs();
    operands.c = op.getInit();
    FailureOr<GemmOperands> gemm =
        completeGemmCall(op, operands, rewriter, backend,
                         LibraryCall::ScaledGemm, /*float8Narrow=*/true);
    if (failed(gemm))
      return failure();
    rewriter.setInsertionPoint(op);
    GemmOutput output =
        getGemmOutput(rewriter, op, *gemm, op, getReadersNarrowedType(gemm->c));
    replaceWithScaledGemmCall(rewriter, op, *gemm, output.c, output.ci,
                              output.type, /*beta=*/0.0f, op.getScale(),
                              {output.accumulator});
    return success();
  }

  const LibraryBackend &backend;
};

/// A (batch) matmul of FP8 operands (a linalg op: unscaled, accumulating
/// onto its output unless a zero fill precedes it) as the backend's scaled
/// GEMM with no scale.
template <typename OpTy>
struct Float8GemmToLibraryCall : public OpRewritePattern<OpTy> {
  Float8GemmToLibraryCall(MLIRContext *context, const LibraryBackend &backend)
      : OpRewritePattern<OpTy>(context), backend(backend) {}

  LogicalResult matchAndRewrite(OpTy matmul,
                                PatternRewriter &rewriter) const override {
    auto op = cast<linalg::LinalgOp>(matmul.getOperation());
    FailureOr<GemmOperands> gemm =
        matchGemmCall(op, rewriter, backend, LibraryCall::ScaledGemm);
    if (failed(gemm))
      return failure();
    rewriter.setInsertionPoint(op);
    linalg::FillOp fill = findZeroFill(op, gemm->c);
    float beta = fill ? 0.0f : 1.0f;
    if (fill)
      rewriter.eraseOp(fill);
    replaceWithScaledGemmCall(rewriter, op, *gemm, gemm->c, gemm->ci,
                              gemm->types.result, beta, /*scale=*/Value(), {});
    return success();
  }

  const LibraryBackend &backend;
};
} // namespace

} // namespace library_calls

void populateAmpScaledGemmToLibraryCallsPatterns(
    RewritePatternSet &patterns, const LibraryBackend &backend) {
  patterns.add<library_calls::ScaledMatmulToLibraryCall,
               library_calls::Float8GemmToLibraryCall<linalg::MatmulOp>,
               library_calls::Float8GemmToLibraryCall<linalg::BatchMatmulOp>>(
      patterns.getContext(), backend);
}

} // namespace amp
} // namespace mlir
