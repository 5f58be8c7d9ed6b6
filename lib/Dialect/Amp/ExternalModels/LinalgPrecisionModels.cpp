//===- LinalgPrecisionModels.cpp - AMP models of linalg ops ---------------===//
//
// Part of amp-mlir. One model for every structured op, classified from what
// the op computes rather than from its name:
//
//  * contractions and convolutions (matmul, batch_matmul, matvec, conv_*,
//    and linalg.generic ops that are contractions, or convolutions whose
//    body multiplies): white;
//  * ops whose body uses a black op (exp, log, ...) or that reduce with a
//    sum or product (reduce, mean, cross-entropy-like generics): black;
//  * batch-/layer-norm-like generics (elementwise, with per-channel operands
//    broadcast into the activation, and a square root): gray, with the
//    per-channel operands kept in fp32;
//  * the rest (elementwise, fill, transpose, broadcast, copy, pooling, named
//    or a generic with a convolution's maps and no product): gray.
//
// Reductions that add or multiply accumulate in fp32: their init operands
// and results stay fp32 while the inputs go low. Named ops are rebuilt with
// their region builder (so `linalg.matmul` with f16 inputs and an f32 init
// extends on read); linalg.generic/map/reduce bodies get conversions at the
// boundary (extend on read, truncate on write), so they compute as before
// while storing in low precision. Both are changed in place.
//
//===----------------------------------------------------------------------===//

#include "CommonModels.h"
#include "amp/Dialect/Amp/ExternalModels/PrecisionModels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

using namespace mlir;
using namespace mlir::amp;

/// True if the body adds, subtracts, multiplies or divides floats.
static bool bodyAccumulates(linalg::LinalgOp op) {
  if (op->getNumRegions() == 0 || op->getRegion(0).empty())
    return false;
  for (Operation &inner : op->getRegion(0).front())
    if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp>(inner))
      return true;
  return false;
}

/// True if the body multiplies floats: a convolution's window product. A
/// generic with a convolution's indexing maps whose body only takes the
/// maximum (minimum, sum) of its window is a pooling.
static bool bodyMultiplies(linalg::LinalgOp op) {
  if (op->getNumRegions() == 0 || op->getRegion(0).empty())
    return false;
  return llvm::any_of(op->getRegion(0).front(), [](Operation &inner) {
    return isa<arith::MulFOp>(inner);
  });
}

static bool hasFloatOperand(Operation *op) {
  return llvm::any_of(op->getOperandTypes(),
                      [](Type t) { return isFloatLike(t); });
}

/// An elementwise op with lower-rank (broadcast) float inputs and a square
/// root in its body: batch norm or layer norm applied to an activation.
static bool isNormLike(linalg::LinalgOp op) {
  // The body first: it is cheap, indexing maps and iterators are not.
  if (op->getNumRegions() == 0 || op->getRegion(0).empty())
    return false;
  bool hasSqrt = false;
  for (Operation &inner : op->getRegion(0).front())
    hasSqrt |= isa<math::SqrtOp, math::RsqrtOp>(inner);
  if (!hasSqrt || op.getNumReductionLoops() != 0)
    return false;
  unsigned rank = op.getNumLoops();
  return llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *operand) {
    return isFloatLike(operand->get().getType()) &&
           op.getMatchingIndexingMap(operand).getNumResults() < rank;
  });
}

static Category classify(linalg::LinalgOp op) {
  if (!hasFloatOperand(op))
    return Category::Unsupported;
  StringRef name = op->getName().getStringRef();
  if (name.starts_with("linalg.pooling_"))
    return Category::Gray;
  // No shaped input (linalg.fill of a scalar): nothing to contract.
  if (llvm::none_of(op.getDpsInputs(),
                    [](Value v) { return isa<ShapedType>(v.getType()); }))
    return Category::Gray;
  // Named contractions and convolutions say so; inferring it from indexing
  // maps is costly, and needs a reduction loop to succeed.
  if (isa<linalg::ContractionOpInterface, linalg::ConvolutionOpInterface>(
          op.getOperation()))
    return Category::White;
  unsigned numReductionLoops = op.getNumReductionLoops();
  if (numReductionLoops != 0 && linalg::isaContractionOpInterface(op))
    return Category::White;
  // A generic with a convolution's indexing maps is a convolution when it
  // multiplies, else a pooling, gray as the named pooling_* ops are
  // whatever their rank (torch-mlir writes a 3-D max pool as a generic;
  // PyTorch's autocast lists no pooling: it runs in its input's type).
  if (numReductionLoops != 0 && linalg::isaConvolutionOpInterface(op))
    return bodyMultiplies(op) ? Category::White : Category::Gray;
  if (isNormLike(op))
    return Category::Gray;
  if (op->getNumRegions() != 0 && !op->getRegion(0).empty()) {
    for (Operation &inner : op->getRegion(0).front()) {
      auto iface = dyn_cast<AmpPrecisionOpInterface>(&inner);
      if (iface && iface.getAmpCategory() == Category::Black)
        return Category::Black;
    }
  }
  if (numReductionLoops != 0 && bodyAccumulates(op))
    return Category::Black;
  return Category::Gray;
}

namespace {
template <typename OpTy>
struct StructuredOpModel
    : public AmpPrecisionOpInterface::ExternalModel<StructuredOpModel<OpTy>,
                                                    OpTy> {
  Category getAmpCategory(Operation *op) const {
    return classify(cast<linalg::LinalgOp>(op));
  }

  /// An op whose body yields one of its input elements unchanged, with no
  /// reduction: transpose, broadcast, copy, and generics doing the same.
  bool isDataMovement(Operation *op) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    if (linalgOp.getNumReductionLoops() != 0 || op->getNumRegions() == 0 ||
        op->getRegion(0).empty() || linalgOp.getNumDpsInputs() != 1)
      return false;
    Block &body = op->getRegion(0).front();
    Operation *terminator = body.getTerminator();
    return body.getOperations().size() == 1 &&
           terminator->getNumOperands() == 1 &&
           terminator->getOperand(0) == body.getArgument(0);
  }

  bool operandMustStayF32(Operation *op, unsigned index) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    if (!isNormLike(linalgOp))
      return false;
    OpOperand &operand = op->getOpOperand(index);
    return linalgOp.isDpsInput(&operand) &&
           linalgOp.getMatchingIndexingMap(&operand).getNumResults() <
               linalgOp.getNumLoops();
  }

  FloatType getAccumulatorType(Operation *op, FloatType computeType) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    if (computeType.getWidth() >= 32 || !bodyAccumulates(linalgOp) ||
        linalgOp.getNumReductionLoops() == 0)
      return {};
    return Float32Type::get(op->getContext());
  }

  LogicalResult convertToPrecision(Operation *op, RewriterBase &rewriter,
                                   FloatType computeType,
                                   ValueCaster &caster) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    if (!linalgOp.hasPureTensorSemantics() || op->getNumRegions() != 1 ||
        op->getRegion(0).empty())
      return failure();
    // Inputs low (or f32 if they must stay), inits in the accumulator type
    // when there is one.
    SmallVector<Value> operands = castOperandsToPrecision(
        op, computeType, caster,
        [&](OpOperand &operand) { return linalgOp.isDpsInit(&operand); });
    SmallVector<Type> resultTypes;
    for (OpOperand &init : linalgOp.getDpsInitsMutable())
      resultTypes.push_back(operands[init.getOperandNumber()].getType());

    Block &oldBody = op->getRegion(0).front();
    Location loc = op->getLoc();
    auto *dialect = op->getContext()->getLoadedDialect<linalg::LinalgDialect>();
    StringRef name = op->getName().getStringRef();
    bool hasRegionBuilder =
        !isa<linalg::GenericOp, linalg::MapOp, linalg::ReduceOp>(op) &&
        dialect->getRegionBuilder(name);
    // Changed in place: re-creating the op would allocate it again, away
    // from its neighbours.
    rewriter.modifyOpInPlace(op, [&] {
      op->setOperands(operands);
      for (auto [result, type] : llvm::zip(op->getResults(), resultTypes))
        result.setType(type);
      OpBuilder::InsertionGuard guard(rewriter);
      if (hasRegionBuilder) {
        // Named op: its body regenerated for the new element types.
        for (Operation &inner :
             llvm::make_early_inc_range(llvm::reverse(oldBody))) {
          inner.dropAllUses();
          rewriter.eraseOp(&inner);
        }
        for (auto [arg, operand] : llvm::zip(oldBody.getArguments(), operands))
          arg.setType(getElementTypeOrSelf(operand.getType()));
        ImplicitLocOpBuilder b(loc, rewriter);
        b.setInsertionPointToStart(&oldBody);
        dialect->getRegionBuilder(name)(b, oldBody, op->getAttrs(),
                                        [&]() { return op->emitError(); });
        return;
      }
      // Explicit body: its arguments take the new element types and are
      // extended back to the old ones where they are read, and yielded values
      // are converted to the new init types, so it computes as before.
      rewriter.setInsertionPointToStart(&oldBody);
      for (BlockArgument arg : oldBody.getArguments()) {
        Type old = arg.getType();
        if (!isa<FloatType>(old))
          continue;
        Type type =
            getElementTypeOrSelf(operands[arg.getArgNumber()].getType());
        if (type == old)
          continue;
        arg.setType(type);
        if (arg.use_empty())
          continue;
        Value extended = convertFloat(rewriter, loc, arg, old);
        arg.replaceAllUsesExcept(extended, extended.getDefiningOp());
        // A read the body already narrows to the new type is the argument
        // itself (exact): rewriting a rewritten body changes nothing more.
        for (Operation *user :
             llvm::make_early_inc_range(extended.getUsers())) {
          if (!isa<arith::TruncFOp>(user) ||
              user->getResult(0).getType() != type)
            continue;
          Value narrowed = user->getResult(0);
          for (Operation *reader :
               llvm::make_early_inc_range(narrowed.getUsers()))
            if (isa<arith::ExtFOp>(reader) &&
                reader->getResult(0).getType() == old) {
              rewriter.replaceAllUsesWith(reader->getResult(0), extended);
              rewriter.eraseOp(reader);
            }
          rewriter.replaceAllUsesWith(narrowed, arg);
          rewriter.eraseOp(user);
        }
        if (extended.use_empty())
          rewriter.eraseOp(extended.getDefiningOp());
      }
      Operation *terminator = oldBody.getTerminator();
      rewriter.setInsertionPoint(terminator);
      for (auto [index, operand] :
           llvm::enumerate(terminator->getOpOperands())) {
        Value value = operand.get();
        Type want = getElementTypeOrSelf(resultTypes[index]);
        if (!isa<FloatType>(value.getType()) || value.getType() == want)
          continue;
        // An extended value narrowed back to its source type is the source.
        auto extended = value.getDefiningOp<arith::ExtFOp>();
        if (extended && extended.getIn().getType() == want) {
          operand.set(extended.getIn());
          if (extended->use_empty())
            rewriter.eraseOp(extended);
          continue;
        }
        operand.set(convertFloat(rewriter, loc, value, want));
      }
    });
    return success();
  }
};

template <typename... OpTys> void attachStructuredModels(MLIRContext *context) {
  (OpTys::template attachInterface<StructuredOpModel<OpTys>>(*context), ...);
}
} // namespace

void mlir::amp::registerLinalgPrecisionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, linalg::LinalgDialect *) {
    attachStructuredModels<
#define GET_OP_LIST
#include "mlir/Dialect/Linalg/IR/LinalgStructuredOps.cpp.inc"
        >(ctx);
    // linalg.softmax is not structured: a plain op on tensors.
    attachFixedCategory<Category::Black, linalg::SoftmaxOp>(ctx);
  });
}
