//===- GemmCalls.cpp - GEMMs as library calls -----------------------------===//
//
// Part of amp-mlir. The GEMM family of amp-linalg-to-library-calls:
// linalg.matmul and linalg.batch_matmul (any of the transposed-operand
// maps C(m, n) += A(m, k | k, m) * B(k, n | n, k)) of f16, bf16 or f32
// operands into an f32 or same-typed result become the backend's GEMM call
// (ampGpuGemm: cuBLAS; ampCpuLibraryGemm: CBLAS). A zero fill of the output
// right before is beta = 0; an f32 accumulator that is only narrowed is
// written in the 16-bit type (Epilogues.cpp); a bias epilogue (and a ReLU)
// of an f32 accumulator is the GPU's GEMM with epilogue
// (ampGpuGemmEpilogue: cuBLASLt), and the column sum of a weight
// gradient's dY operand (the bias gradient: B of X^T dY, A of dY^T X) the
// GPU's GEMM with the bias gradient (ampGpuGemmBiasGrad: cuBLASLt's BGRADA
// or BGRADB). Sizes, leading dimensions
// and batch strides may be dynamic: the call reads them from the
// descriptors. The matching and the arguments are shared with the scaled
// GEMM (ScaledGemmCalls.cpp).
//
//===----------------------------------------------------------------------===//

#include "LibraryCallLowering.h"

#include "amp/runtime/AmpRuntime.h"

#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace amp {
namespace library_calls {

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
/// FP8 operands in a form the backend's scaled GEMM takes.
static FailureOr<ContractionTypes> getGemmTypes(const GemmOperands &gemm,
                                                const LibraryBackend &backend,
                                                bool float8Narrow,
                                                std::string &why) {
  FailureOr<ContractionTypes> types =
      getContractionTypes(gemm.ai, gemm.bi, gemm.ci, why, float8Narrow);
  if (failed(types))
    return failure();
  int32_t aType = types->lhs, bType = types->rhs, cType = types->result;
  if (types->float8) {
    unsigned o = gemm.o();
    int64_t kSize = gemm.ai.type.getShape()[o + (gemm.transA ? 0 : 1)];
    int64_t nSize = gemm.ci.type.getShape()[o + 1];
    std::string refusal = backend.getScaledGemmRefusal(
        gemm.ai.type.getElementType(), gemm.bi.type.getElementType(),
        gemm.transA, gemm.transB, kSize, nSize);
    if (!refusal.empty()) {
      why = std::move(refusal);
      return failure();
    }
  } else if (aType < 0 || aType != bType || cType < 0 ||
             (cType != kF32Code && cType != aType)) {
    why = "element types must be f16, bf16 or f32 operands of one type and "
          "an f32 or same-typed result";
    return failure();
  }
  return types;
}

FailureOr<GemmOperands> matchGemmCall(linalg::LinalgOp op,
                                      PatternRewriter &rewriter,
                                      const LibraryBackend &backend,
                                      LibraryCall call) {
  if (hasFloat8Operand(op) != (call == LibraryCall::ScaledGemm))
    return failure(); // The other family's.
  if (!op.hasPureBufferSemantics())
    return rewriter.notifyMatchFailure(op, kOnTensors);
  std::string why;
  GemmOperands gemm;
  gemm.batched = isa<linalg::BatchMatmulOp>(op);
  if (failed(
          getGemmTransposes(op, gemm.batched, gemm.transA, gemm.transB, why)))
    return rewriter.notifyMatchFailure(op, why);
  gemm.a = op.getDpsInputs()[0];
  gemm.b = op.getDpsInputs()[1];
  gemm.c = op.getDpsInits()[0];
  return completeGemmCall(op, gemm, rewriter, backend, call);
}

FailureOr<GemmOperands> completeGemmCall(Operation *op, GemmOperands gemm,
                                         PatternRewriter &rewriter,
                                         const LibraryBackend &backend,
                                         LibraryCall call, bool float8Narrow) {
  std::string why;
  auto declined = [&] { return rewriter.notifyMatchFailure(op, why); };
  FailureOr<RuntimeFunction> function = getCallFunction(backend, call, why);
  if (failed(function))
    return declined();
  gemm.function = *function;
  // Dynamic sizes (a dynamic batch from a frontend) and strides are read
  // from the descriptors at the call.
  FailureOr<BufferInfo> ai = getBufferInfo(gemm.a, why, /*dynamic=*/true),
                        bi = getBufferInfo(gemm.b, why, /*dynamic=*/true),
                        ci = getBufferInfo(gemm.c, why, /*dynamic=*/true);
  if (failed(ai) || failed(bi) || failed(ci))
    return declined();
  gemm.ai = *ai;
  gemm.bi = *bi;
  gemm.ci = *ci;
  FailureOr<ContractionTypes> types =
      getGemmTypes(gemm, backend, float8Narrow, why);
  if (failed(types))
    return declined();
  gemm.types = *types;
  return gemm;
}

bool isGemmOutput(Value buffer, ArrayRef<int64_t> shape) {
  std::string ignored;
  FailureOr<BufferInfo> info = getBufferInfo(buffer, ignored, /*dynamic=*/true);
  return succeeded(info) && info->type.getShape() == shape;
}

GemmOutput getGemmOutput(RewriterBase &rewriter, Operation *op,
                         const GemmOperands &gemm, Operation *init, Type low) {
  GemmOutput output{gemm.c, gemm.ci, gemm.types.result, {}};
  ArrayRef<int64_t> shape = gemm.ci.type.getShape();
  Value narrow =
      narrowOutput(rewriter, op, gemm.c, init, low,
                   [&](Value buffer) { return isGemmOutput(buffer, shape); });
  if (!narrow)
    return output;
  output.accumulator = gemm.c.getDefiningOp<memref::AllocOp>();
  output.c = narrow;
  std::string ignored;
  output.ci = *getBufferInfo(narrow, ignored, /*dynamic=*/true);
  output.type = getDTypeCode(output.ci.type.getElementType());
  return output;
}

SmallVector<Value> buildGemmArguments(OpBuilder &b, Location loc,
                                      const GemmOperands &gemm, Value c,
                                      const BufferInfo &ci, int32_t cType,
                                      float beta) {
  unsigned o = gemm.o();
  auto ld = [&](Value buffer, const BufferInfo &info) {
    return getStride(b, loc, buffer, info, o);
  };
  auto batchStride = [&](Value buffer, const BufferInfo &info) {
    return gemm.batched ? getStride(b, loc, buffer, info, 0)
                        : createI64(b, loc, 0);
  };
  Value batch = gemm.batched ? getSize(b, loc, c, 0) : createI64(b, loc, 1);
  Value m = getSize(b, loc, c, o), n = getSize(b, loc, c, o + 1);
  Value k = getSize(b, loc, gemm.a, o + (gemm.transA ? 0 : 1));
  return {createI32(b, loc, gemm.transA),
          createI32(b, loc, gemm.transB),
          batch,
          m,
          n,
          k,
          createBufferPointer(b, loc, gemm.a),
          createI32(b, loc, gemm.types.lhs),
          ld(gemm.a, gemm.ai),
          batchStride(gemm.a, gemm.ai),
          createBufferPointer(b, loc, gemm.b),
          createI32(b, loc, gemm.types.rhs),
          ld(gemm.b, gemm.bi),
          batchStride(gemm.b, gemm.bi),
          createBufferPointer(b, loc, c),
          createI32(b, loc, cType),
          ld(c, ci),
          batchStride(c, ci),
          createF32(b, loc, beta)};
}

/// `bias` (rank 1, f32) rounded to `type` in a new buffer, by a generic
/// built at the rewriter's insertion point (a kernel of its own).
static Value narrowBias(PatternRewriter &rewriter, Location loc, Value bias,
                        Type type) {
  auto biasType = cast<MemRefType>(bias.getType());
  SmallVector<Value> sizes;
  if (biasType.isDynamicDim(0))
    sizes.push_back(memref::DimOp::create(rewriter, loc, bias, 0));
  Value narrow = memref::AllocOp::create(
      rewriter, loc, MemRefType::get(biasType.getShape(), type), sizes);
  AffineMap identity = rewriter.getMultiDimIdentityMap(1);
  linalg::GenericOp::create(
      rewriter, loc, ValueRange{bias}, ValueRange{narrow},
      ArrayRef<AffineMap>{identity, identity},
      ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
      [&](OpBuilder &b, Location nested, ValueRange args) {
        Value rounded = arith::TruncFOp::create(b, nested, type, args[0]);
        linalg::YieldOp::create(b, nested, rounded);
      });
  return narrow;
}

/// The type code of `out` as the output of a GEMM-with-epilogue call for
/// `gemm`: f32, or the operands' type (as the GEMM's); none where it is
/// another, or where `out` is a view of a buffer the call reads while it
/// writes `out` (A, B, `input`), which the GEMM had read whole before the
/// epilogue wrote it.
static std::optional<int32_t>
getEpilogueOutputType(const GemmOperands &gemm, Value out, Value input = {}) {
  int32_t cType =
      getDTypeCode(cast<MemRefType>(out.getType()).getElementType());
  if (cType != kF32Code && cType != gemm.types.lhs)
    return std::nullopt;
  Value root = memref::skipViewLikeOps(cast<MemrefValue>(out));
  for (Value operand : {gemm.a, gemm.b, input})
    if (operand && memref::skipViewLikeOps(cast<MemrefValue>(operand)) == root)
      return std::nullopt;
  return cType;
}

/// Erases the zero fill of `gemm`'s f32 accumulator and its deallocs, once a
/// call writes the epilogue's output instead; returns the accumulator's
/// alloc, which the call replaces with the GEMM.
static memref::AllocOp dropAccumulator(PatternRewriter &rewriter,
                                       const GemmOperands &gemm,
                                       linalg::FillOp fill) {
  auto accumulator = gemm.c.getDefiningOp<memref::AllocOp>();
  for (Operation *user : llvm::make_early_inc_range(accumulator->getUsers()))
    if (isa<memref::DeallocOp>(user))
      rewriter.eraseOp(user);
  rewriter.eraseOp(fill);
  return accumulator;
}

/// Whether a call's aux operand (cuBLASLt's: C's layout) can be `buffer`:
/// identity layout, a static leading dimension that is a multiple of 8.
static bool isAuxLayout(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  int64_t ld = type.getShape().back();
  return type.getLayout().isIdentity() && !ShapedType::isDynamic(ld) &&
         ld % 8 == 0;
}

/// Whether `op` may move to just before `last`, a later op of its block:
/// nothing between writes or frees `buffers` (its operands) or a view of
/// them.
static bool canSinkBefore(Operation *op, Operation *last,
                          ArrayRef<Value> buffers) {
  if (last->getBlock() != op->getBlock() || !op->isBeforeInBlock(last))
    return false;
  for (Value buffer : buffers) {
    if (last->getPrevNode() != op &&
        isWrittenBetween(op, last->getPrevNode(), buffer))
      return false;
    Value root = memref::skipViewLikeOps(cast<MemrefValue>(buffer));
    for (Operation *between = op->getNextNode(); between != last;
         between = between->getNextNode())
      if (auto dealloc = dyn_cast<memref::DeallocOp>(between);
          dealloc && memref::skipViewLikeOps(
                         cast<MemrefValue>(dealloc.getMemref())) == root)
        return false;
  }
  return true;
}

/// If the bias epilogue `epilogue` (no activation; its output now written
/// by a call at `op`, through the collapse of `viewGroups` where its
/// accumulator was read expanded) is followed by a GELU of its output
/// (matchGeluFollower) whose output the call can write in the GELU's
/// place, the buffer the call writes the GELU into (the GELU's output,
/// collapsed likewise); the GELU is erased. Null, nothing changed, if not,
/// or where cuBLASLt's aux output would not take the layout (a leading
/// dimension that is not a static multiple of 8).
static Value takeGeluFollower(PatternRewriter &rewriter, Operation *op,
                              const BiasEpilogue &epilogue,
                              ArrayRef<ReassociationIndices> viewGroups,
                              ArrayRef<int64_t> shape) {
  if (epilogue.kind != GemmEpilogueKind::Bias || epilogue.residual ||
      (epilogue.view && viewGroups.empty()))
    return {};
  if (!isAuxLayout(epilogue.out))
    return {};
  linalg::GenericOp gelu = matchGeluFollower(op, epilogue.out);
  if (!gelu)
    return {};
  Value geluOut = gelu.getDpsInits()[0];
  Value c = takeOutput(
      rewriter, op, gelu, geluOut, /*view=*/nullptr, [&](Value buffer) {
        return viewGroups.empty()
                   ? isGemmOutput(buffer, shape)
                   : memref::CollapseShapeOp::isGuaranteedCollapsible(
                         cast<MemRefType>(buffer.getType()), viewGroups);
      });
  if (!c || viewGroups.empty())
    return c;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  return memref::CollapseShapeOp::create(rewriter, op->getLoc(), c, viewGroups);
}

// The epilogue codes the calls pass are the runtime's AmpGemmEpilogue.
static_assert(static_cast<int>(GemmEpilogueKind::Bias) ==
                      AMP_GEMM_EPILOGUE_BIAS &&
                  static_cast<int>(GemmEpilogueKind::ReluBias) ==
                      AMP_GEMM_EPILOGUE_RELU_BIAS &&
                  static_cast<int>(GemmEpilogueKind::GeluBias) ==
                      AMP_GEMM_EPILOGUE_GELU_BIAS &&
                  static_cast<int>(GemmEpilogueKind::GeluAuxBias) ==
                      AMP_GEMM_EPILOGUE_GELU_AUX_BIAS &&
                  static_cast<int>(GemmEpilogueKind::GeluGrad) ==
                      AMP_GEMM_EPILOGUE_DGELU &&
                  static_cast<int>(GemmEpilogueKind::ReluAuxBias) ==
                      AMP_GEMM_EPILOGUE_RELU_AUX_BIAS &&
                  static_cast<int>(GemmEpilogueKind::ReluGrad) ==
                      AMP_GEMM_EPILOGUE_DRELU,
              "GemmEpilogueKind is AmpGemmEpilogue");

namespace {
/// A GEMM of a training step's backward whose epilogue is the gradient of
/// a ReLU (matchReluGradEpilogue), which a DRELU call can compute from the
/// forward's ReLU mask: the GEMM, its operands, its accumulator's fill, the
/// epilogue and the type of its output.
struct ReluGradGemm {
  linalg::LinalgOp op;
  GemmOperands gemm;
  linalg::FillOp fill;
  ActivationGradEpilogue epilogue;
  int32_t cType;
};
} // namespace

/// The matmul or batch matmul that accumulates into `acc`, or null.
static linalg::LinalgOp getAccumulatingGemm(Value acc) {
  for (Operation *user : acc.getUsers())
    if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(user) &&
        cast<linalg::LinalgOp>(user).getDpsInits()[0] == acc)
      return cast<linalg::LinalgOp>(user);
  return {};
}

/// The backward GEMMs that read only the sign of `s`, the bias epilogue
/// output of the forward GEMM `op` (a C of `shape`, written by `writer`)
/// whose ReLU `relu` follows: every other reader of `s` is the ReLU-gradient
/// epilogue of a GEMM after `op`, of a C of the same shape and no view,
/// that a DRELU call can compute where that epilogue was. None if `s` has
/// another reader after `op` (then it stays written) or is not an
/// allocation of the block.
static std::optional<SmallVector<ReluGradGemm, 1>>
matchReluGradGemms(PatternRewriter &rewriter, Operation *op, Value s,
                   Operation *writer, linalg::GenericOp relu,
                   ArrayRef<int64_t> shape, const LibraryBackend &backend) {
  auto alloc = s.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != op->getBlock())
    return std::nullopt;
  SmallVector<ReluGradGemm, 1> gemms;
  for (Operation *user : s.getUsers()) {
    // Uses before `op` are of the buffer's earlier contents (bufferization
    // reuses buffers).
    if (user == writer || user == relu.getOperation() ||
        isa<memref::DeallocOp>(user) ||
        (user->getBlock() == op->getBlock() && user->isBeforeInBlock(op)))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic || generic->getBlock() != op->getBlock() ||
        !op->isBeforeInBlock(generic) || generic.getNumDpsInputs() != 2)
      return std::nullopt;
    Value acc = generic.getDpsInputs()[generic.getDpsInputs()[0] == s ? 1 : 0];
    linalg::LinalgOp backward = getAccumulatingGemm(acc);
    if (!backward || backward->getBlock() != op->getBlock() ||
        !op->isBeforeInBlock(backward))
      return std::nullopt;
    FailureOr<GemmOperands> gemm =
        matchGemmCall(backward, rewriter, backend, LibraryCall::Gemm);
    if (failed(gemm) || gemm->types.result != kF32Code)
      return std::nullopt;
    linalg::FillOp fill = findZeroFill(backward, gemm->c);
    std::optional<ActivationGradEpilogue> epilogue =
        fill ? matchReluGradEpilogue(backward, gemm->c, fill) : std::nullopt;
    if (!epilogue || epilogue->generic != generic || epilogue->input != s ||
        epilogue->view || gemm->ci.type.getShape() != shape ||
        !isGemmOutput(epilogue->out, shape))
      return std::nullopt;
    std::optional<int32_t> cType =
        getEpilogueOutputType(*gemm, epilogue->out, s);
    if (!cType || !canSinkBefore(backward, generic, {gemm->a, gemm->b}))
      return std::nullopt;
    gemms.push_back({backward, *gemm, fill, *epilogue, *cType});
  }
  if (gemms.empty())
    return std::nullopt;
  return gemms;
}

/// Rewrites the backward GEMM of `grad` as a DRELU call that reads `mask`
/// and writes its epilogue's output where that epilogue was (checked by
/// matchReluGradGemms, so it cannot fail).
static void rewriteReluGradGemm(PatternRewriter &rewriter,
                                const ReluGradGemm &grad, Value mask,
                                const RuntimeFunction &function) {
  linalg::LinalgOp op = grad.op;
  ArrayRef<int64_t> shape = grad.gemm.ci.type.getShape();
  rewriter.moveOpBefore(op, grad.epilogue.generic);
  Value out = takeOutput(
      rewriter, op, grad.epilogue.generic, grad.epilogue.out, /*view=*/nullptr,
      [&](Value buffer) { return isGemmOutput(buffer, shape); });
  assert(out && "matchReluGradGemms checked the output");
  memref::AllocOp accumulator = dropAccumulator(rewriter, grad.gemm, grad.fill);
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  std::string ignored;
  SmallVector<Value> args = buildGemmArguments(
      rewriter, loc, grad.gemm, out,
      *getBufferInfo(out, ignored, /*dynamic=*/true), grad.cType,
      /*beta=*/0.0f);
  args.push_back(createI32(rewriter, loc,
                           static_cast<int32_t>(GemmEpilogueKind::ReluGrad)));
  Value null = LLVM::ZeroOp::create(
      rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext()));
  args.append({null, null, createBufferPointer(rewriter, loc, mask)});
  replaceWithCall(rewriter, op, function, args, {accumulator});
}

/// A training step's ReLU after the bias epilogue `epilogue` of the GEMM
/// `op` (its output `s` now written by a call at `op`, a C of `shape`),
/// whose backward reads only the sign of `s` (matchReluGradGemms): the
/// buffers a RELU_AUX_BIAS call at `op` writes, the ReLU's output as C and
/// a new ReLU mask as aux, with the ReLU erased and `grads` set; nulls,
/// nothing changed, if not.
static std::pair<Value, Value>
takeReluTraining(PatternRewriter &rewriter, Operation *op,
                 const BiasEpilogue &epilogue, Value s, ArrayRef<int64_t> shape,
                 const LibraryBackend &backend,
                 SmallVectorImpl<ReluGradGemm> &grads) {
  if (epilogue.kind != GemmEpilogueKind::Bias || epilogue.residual ||
      epilogue.view || ShapedType::isDynamicShape(shape))
    return {};
  linalg::GenericOp relu = matchReluFollower(op, s);
  if (!relu)
    return {};
  std::optional<SmallVector<ReluGradGemm, 1>> found = matchReluGradGemms(
      rewriter, op, s, epilogue.generic, relu, shape, backend);
  if (!found)
    return {};
  Value h =
      takeOutput(rewriter, op, relu, relu.getDpsInits()[0], /*view=*/nullptr,
                 [&](Value buffer) { return isGemmOutput(buffer, shape); });
  if (!h)
    return {};
  grads.assign(found->begin(), found->end());
  // The mask: the runtime's size for batch x m rows of n.
  int64_t rows = 1;
  for (int64_t size : shape.drop_back())
    rows *= size;
  int64_t bytes = ampGemmReluMaskBytes(1, rows, shape.back());
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Value mask = memref::AllocOp::create(
      rewriter, op->getLoc(),
      MemRefType::get({bytes}, rewriter.getIntegerType(8)),
      rewriter.getI64IntegerAttr(64));
  return {h, mask};
}

/// Rewrites `op`, the GEMM `gemm` into an f32 accumulator set whole by
/// `fill`, as one call of the backend's GEMM with epilogue (cuBLASLt's
/// BIAS, RELU_BIAS or GELU_BIAS) that writes the output of its bias epilogue
/// (matchBiasEpilogue) in the epilogue's place, reading the residual as
/// its C (beta = 1); fails, changing nothing, where the backend has no
/// such call or nothing matches.
static LogicalResult fuseBiasEpilogue(PatternRewriter &rewriter,
                                      linalg::LinalgOp op,
                                      const GemmOperands &gemm,
                                      linalg::FillOp fill,
                                      const LibraryBackend &backend) {
  std::optional<RuntimeFunction> function =
      backend.getFunction(LibraryCall::GemmEpilogue);
  if (!function || gemm.types.result != kF32Code)
    return failure();
  std::optional<BiasEpilogue> epilogue = matchBiasEpilogue(op, gemm.c, fill);
  if (!epilogue)
    return failure();
  std::optional<int32_t> cType = getEpilogueOutputType(gemm, epilogue->out);
  std::string ignored;
  if (!cType ||
      failed(getBufferInfo(epilogue->bias, ignored, /*dynamic=*/true)))
    return failure();
  // A residual other than the output is read as the call writes the
  // output: through the inverse of the accumulator's view (an expand_shape
  // of it, which the residual's collapse undoes).
  Value residual = epilogue->residual;
  bool separate = residual && residual != epilogue->out;
  SmallVector<ReassociationIndices> reassociation;
  if (separate && epilogue->view) {
    auto expand = dyn_cast<memref::ExpandShapeOp>(epilogue->view);
    if (!expand)
      return failure();
    reassociation = expand.getReassociationIndices();
    if (!memref::CollapseShapeOp::isGuaranteedCollapsible(
            cast<MemRefType>(residual.getType()), reassociation))
      return failure();
  }
  ArrayRef<int64_t> shape = gemm.ci.type.getShape();
  SmallVector<ReassociationIndices> viewGroups;
  if (auto expand = dyn_cast_or_null<memref::ExpandShapeOp>(epilogue->view))
    viewGroups = expand.getReassociationIndices();
  Value out =
      takeOutput(rewriter, op, epilogue->generic, epilogue->out, epilogue->view,
                 [&](Value buffer) { return isGemmOutput(buffer, shape); });
  if (!out)
    return failure();
  // A GELU of the output after it (a training step's forward, which keeps
  // the GELU's input for the backward): the call writes the GELU as C and
  // the sum as its aux output (GELU_AUX_BIAS).
  Value aux = takeGeluFollower(rewriter, op, *epilogue, viewGroups, shape);
  if (aux)
    std::swap(out, aux);
  // A ReLU of the output after it, whose backward needs only its sign: the
  // call writes the ReLU as C and the ReLU mask as its aux output
  // (RELU_AUX_BIAS), which the backward's GEMMs read (DRELU); the output
  // itself is no longer written.
  GemmEpilogueKind kind = aux ? GemmEpilogueKind::GeluAuxBias : epilogue->kind;
  SmallVector<ReluGradGemm, 1> grads;
  Value s = out;
  if (!aux) {
    std::tie(out, aux) =
        takeReluTraining(rewriter, op, *epilogue, s, shape, backend, grads);
    if (aux)
      kind = GemmEpilogueKind::ReluAuxBias;
    else
      out = s;
  }
  memref::AllocOp accumulator = dropAccumulator(rewriter, gemm, fill);
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Type outElement = cast<MemRefType>(out.getType()).getElementType();
  Value bias = epilogue->bias;
  if (cast<MemRefType>(bias.getType()).getElementType() != outElement)
    bias = narrowBias(rewriter, loc, bias, outElement);
  SmallVector<Value> args = buildGemmArguments(
      rewriter, loc, gemm, out, *getBufferInfo(out, ignored, /*dynamic=*/true),
      *cType, /*beta=*/residual ? 1.0f : 0.0f);
  args.push_back(createI32(rewriter, loc, static_cast<int32_t>(kind)));
  args.push_back(createBufferPointer(rewriter, loc, bias));
  auto null = [&] {
    return LLVM::ZeroOp::create(
        rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext()));
  };
  if (separate) {
    if (!reassociation.empty())
      residual = memref::CollapseShapeOp::create(rewriter, loc, residual,
                                                 reassociation);
    args.push_back(createBufferPointer(rewriter, loc, residual));
  } else {
    args.push_back(null());
  }
  args.push_back(aux ? createBufferPointer(rewriter, loc, aux) : null());
  replaceWithCall(rewriter, op, *function, args, {accumulator});
  for (const ReluGradGemm &grad : grads)
    rewriteReluGradGemm(rewriter, grad, aux, *function);
  // Nothing reads the ReLU's input any more: its buffer goes.
  if (!grads.empty() && llvm::all_of(s.getUsers(), [](Operation *user) {
        return isa<memref::DeallocOp>(user);
      })) {
    for (Operation *user : llvm::make_early_inc_range(s.getUsers()))
      rewriter.eraseOp(user);
    rewriter.eraseOp(s.getDefiningOp());
  }
  return success();
}

/// Rewrites `op`, the GEMM `gemm` into an f32 accumulator set whole by
/// `fill`, as one call of the backend's GEMM with epilogue that multiplies
/// the product by GELU's derivative (cuBLASLt's DGELU, reading the GELU's
/// input as its aux operand) and writes the output of that epilogue
/// (matchGeluGradEpilogue) in its place; fails, changing nothing, where
/// the backend has no such call or nothing matches.
static LogicalResult fuseGeluGradEpilogue(PatternRewriter &rewriter,
                                          linalg::LinalgOp op,
                                          const GemmOperands &gemm,
                                          linalg::FillOp fill,
                                          const LibraryBackend &backend) {
  std::optional<RuntimeFunction> function =
      backend.getFunction(LibraryCall::GemmEpilogue);
  if (!function || gemm.types.result != kF32Code)
    return failure();
  std::optional<ActivationGradEpilogue> epilogue =
      matchGeluGradEpilogue(op, gemm.c, fill);
  if (!epilogue || !isAuxLayout(epilogue->input) ||
      isa_and_nonnull<memref::CollapseShapeOp>(epilogue->view))
    return failure();
  std::optional<int32_t> cType =
      getEpilogueOutputType(gemm, epilogue->out, epilogue->input);
  if (!cType)
    return failure();
  // The call runs where the epilogue did (a training step's backward has
  // other work between the GEMM and it): A and B must be there then.
  if (!canSinkBefore(op, epilogue->generic, {gemm.a, gemm.b}))
    return failure();
  SmallVector<ReassociationIndices> viewGroups;
  if (auto expand = dyn_cast_or_null<memref::ExpandShapeOp>(epilogue->view))
    viewGroups = expand.getReassociationIndices();
  ArrayRef<int64_t> shape = gemm.ci.type.getShape();
  Operation *before = op->getPrevNode();
  rewriter.moveOpBefore(op, epilogue->generic);
  Value out =
      takeOutput(rewriter, op, epilogue->generic, epilogue->out, epilogue->view,
                 [&](Value buffer) { return isGemmOutput(buffer, shape); });
  if (!out) {
    if (before)
      rewriter.moveOpAfter(op, before);
    else
      rewriter.moveOpBefore(op, &op->getBlock()->front());
    return failure();
  }
  memref::AllocOp accumulator = dropAccumulator(rewriter, gemm, fill);
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value aux = epilogue->input;
  if (!viewGroups.empty())
    aux = memref::CollapseShapeOp::create(rewriter, loc, aux, viewGroups);
  std::string ignored;
  SmallVector<Value> args = buildGemmArguments(
      rewriter, loc, gemm, out, *getBufferInfo(out, ignored, /*dynamic=*/true),
      *cType, /*beta=*/0.0f);
  args.push_back(createI32(rewriter, loc,
                           static_cast<int32_t>(GemmEpilogueKind::GeluGrad)));
  Value null = LLVM::ZeroOp::create(
      rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext()));
  args.append({null, null, createBufferPointer(rewriter, loc, aux)});
  replaceWithCall(rewriter, op, *function, args, {accumulator});
  return success();
}

/// Whether `sum` is the column sum of `operand` (k rows) over k into its
/// one output (1 x columns or columns): a reduction over dimension 0 of
/// `operand`, read whole (identity map), whose body adds each element,
/// widened or not, to the accumulator.
static bool isColumnSum(linalg::GenericOp sum, Value operand) {
  if (sum.getNumDpsInputs() != 1 || sum.getDpsInputs()[0] != operand ||
      sum.getNumDpsInits() != 1 || sum.getNumLoops() != 2)
    return false;
  SmallVector<utils::IteratorType> iterators = sum.getIteratorTypesArray();
  if (iterators[0] != utils::IteratorType::reduction ||
      iterators[1] != utils::IteratorType::parallel)
    return false;
  MLIRContext *ctx = sum.getContext();
  AffineExpr d1 = getAffineDimExpr(1, ctx);
  AffineMap out = sum.getMatchingIndexingMap(sum.getDpsInitOperand(0));
  if (!sum.getMatchingIndexingMap(sum.getDpsInputOperand(0)).isIdentity() ||
      (out != AffineMap::get(2, 0, {d1}, ctx) &&
       out != AffineMap::get(2, 0, {getAffineConstantExpr(0, ctx), d1}, ctx)))
    return false;
  Block &body = sum.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  Value acc = body.getArgument(1);
  if (!add || add->getBlock() != &body ||
      (add.getLhs() != acc && add.getRhs() != acc))
    return false;
  Value element = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  size_t ops = 2; // the add and the yield
  if (auto ext = element.getDefiningOp<arith::ExtFOp>();
      ext && ext->getBlock() == &body) {
    element = ext.getIn();
    ops = 3;
  }
  return element == body.getArgument(0) && body.getOperations().size() == ops;
}

/// The bias gradient a GemmBiasGrad call writes beside the GEMM at `op`
/// (batch 1, output type `cType`): a column sum (isColumnSum) of the
/// operand stored with its k rows first (B not transposed: `operand`
/// AMP_GEMM_BIAS_GRAD_B, X^T dY; A transposed: AMP_GEMM_BIAS_GRAD_A,
/// torch.nn.Linear's dY^T X; B is tried first) after `op` in its block
/// into a dense buffer of the output's type, zero-filled between the two,
/// with only allocations and ops without memory effects besides that fill
/// in between; its buffer is usable at `op` (it dominates `op`, or is an
/// operand-less alloc in the block, moved before `op`).
struct BiasGradient {
  linalg::GenericOp sum;
  linalg::FillOp fill;
  Value out;
  AmpGemmBiasGradOperand operand;
};
static std::optional<BiasGradient>
matchColumnSumOf(Operation *op, Value summed, int32_t cType,
                 AmpGemmBiasGradOperand operand) {
  for (Operation *user : summed.getUsers()) {
    auto sum = dyn_cast<linalg::GenericOp>(user);
    if (!sum || sum->getBlock() != op->getBlock() ||
        !op->isBeforeInBlock(sum) || !isColumnSum(sum, summed))
      continue;
    Value out = sum.getDpsInits()[0];
    auto outType = cast<MemRefType>(out.getType());
    if (getDTypeCode(outType.getElementType()) != cType ||
        !outType.getLayout().isIdentity())
      continue;
    linalg::FillOp fill;
    bool clear = true;
    for (Operation *between = op->getNextNode(); clear && between != sum;
         between = between->getNextNode()) {
      if (!fill && isZeroFillOf(between, out))
        fill = cast<linalg::FillOp>(between);
      else
        clear = isa<memref::AllocOp>(between) || isMemoryEffectFree(between);
    }
    auto alloc = out.getDefiningOp<memref::AllocOp>();
    bool movable = alloc && alloc->getNumOperands() == 0 &&
                   alloc->getBlock() == op->getBlock();
    if (clear && fill &&
        (movable || DominanceInfo().properlyDominates(out, op)))
      return BiasGradient{sum, fill, out, operand};
  }
  return std::nullopt;
}
static std::optional<BiasGradient>
matchBiasGradient(Operation *op, const GemmOperands &gemm, int32_t cType) {
  if (gemm.batched)
    return std::nullopt;
  std::optional<BiasGradient> found;
  if (!gemm.transB)
    found = matchColumnSumOf(op, gemm.b, cType, AMP_GEMM_BIAS_GRAD_B);
  if (!found && gemm.transA)
    found = matchColumnSumOf(op, gemm.a, cType, AMP_GEMM_BIAS_GRAD_A);
  return found;
}

namespace {
/// A (batch) matmul of f16, bf16 or f32 operands as the backend's GEMM,
/// with its bias epilogue where the backend's GEMM can take it, or the bias
/// gradient of its A or B (a training step's weight gradient) where it can
/// write that.
template <typename OpTy>
struct GemmToLibraryCall : public OpRewritePattern<OpTy> {
  GemmToLibraryCall(MLIRContext *context, const LibraryBackend &backend)
      : OpRewritePattern<OpTy>(context), backend(backend) {}

  LogicalResult matchAndRewrite(OpTy matmul,
                                PatternRewriter &rewriter) const override {
    auto op = cast<linalg::LinalgOp>(matmul.getOperation());
    FailureOr<GemmOperands> gemm =
        matchGemmCall(op, rewriter, backend, LibraryCall::Gemm);
    if (failed(gemm))
      return failure();
    rewriter.setInsertionPoint(op);
    linalg::FillOp fill = findZeroFill(op, gemm->c);
    if (fill &&
        (succeeded(fuseBiasEpilogue(rewriter, op, *gemm, fill, backend)) ||
         succeeded(fuseGeluGradEpilogue(rewriter, op, *gemm, fill, backend))))
      return success();
    GemmOutput output = getGemmOutput(rewriter, op, *gemm, fill,
                                      gemm->ai.type.getElementType());
    float beta = fill ? 0.0f : 1.0f;
    if (fill)
      rewriter.eraseOp(fill);
    std::optional<RuntimeFunction> biasGradCall =
        backend.getFunction(LibraryCall::GemmBiasGrad);
    std::optional<BiasGradient> biasGrad;
    if (biasGradCall)
      biasGrad = matchBiasGradient(op, *gemm, output.type);
    if (biasGrad) {
      if (auto alloc = biasGrad->out.getDefiningOp<memref::AllocOp>();
          alloc && op->isBeforeInBlock(alloc))
        rewriter.moveOpBefore(alloc, op);
      rewriter.eraseOp(biasGrad->fill);
      rewriter.eraseOp(biasGrad->sum);
      rewriter.setInsertionPoint(op);
    }
    SmallVector<Value> args = buildGemmArguments(
        rewriter, op.getLoc(), *gemm, output.c, output.ci, output.type, beta);
    if (biasGrad) {
      args.push_back(createI32(rewriter, op.getLoc(), biasGrad->operand));
      args.push_back(createBufferPointer(rewriter, op.getLoc(), biasGrad->out));
    }
    replaceWithCall(rewriter, op, biasGrad ? *biasGradCall : gemm->function,
                    args, {output.accumulator});
    return success();
  }

  const LibraryBackend &backend;
};
} // namespace

} // namespace library_calls

void populateAmpGemmToLibraryCallsPatterns(RewritePatternSet &patterns,
                                           const LibraryBackend &backend) {
  patterns.add<library_calls::GemmToLibraryCall<linalg::MatmulOp>,
               library_calls::GemmToLibraryCall<linalg::BatchMatmulOp>>(
      patterns.getContext(), backend);
}

} // namespace amp
} // namespace mlir
