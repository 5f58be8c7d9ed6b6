//===- RoundOnce.cpp - the amp-round-once pass ----------------------------===//
//
// Part of amp-mlir. The low type is a storage format: inside one loop nest
// (a linalg.generic body, which becomes one loop nest on the CPU and one
// kernel on the GPU), f16/bf16 arithmetic is computed in f32 and rounded
// only where a value is yielded, that is, written to memory.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPROUNDONCEPASS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

FailureOr<RoundingMode> mlir::amp::resolveRoundingMode(Operation *op,
                                                       StringRef option) {
  if (!option.empty()) {
    FailureOr<RoundingMode> mode = parseRoundingMode(option);
    if (failed(mode))
      return op->emitError()
             << "rounding must be once or per-op, got '" << option << "'";
    return mode;
  }
  // The mode the precision policies recorded on the module; once when none.
  for (Operation *parent = op; parent; parent = parent->getParentOp())
    if (auto attr =
            parent->getAttrOfType<StringAttr>(AmpDialect::kRoundingAttrName))
      if (FailureOr<RoundingMode> mode = parseRoundingMode(attr.getValue());
          succeeded(mode))
        return mode;
  return RoundingMode::Once;
}

/// The low float type (f16 or bf16) that `op` computes in, or null when it
/// is not an arith/math computation on exactly one low type. Conversions
/// between float types, bitcasts and constants are not computations.
static FloatType getLowComputeType(Operation *op) {
  Dialect *dialect = op->getDialect();
  if (!dialect || op->getNumRegions() != 0 ||
      !isa<arith::ArithDialect, math::MathDialect>(dialect))
    return {};
  if (isa<arith::ExtFOp, arith::TruncFOp, arith::BitcastOp, arith::ConstantOp,
          arith::ScalingExtFOp, arith::ScalingTruncFOp>(op))
    return {};
  FloatType low;
  bool otherFloat = false;
  auto visit = [&](Type type) {
    auto fp = dyn_cast<FloatType>(type);
    if (!fp)
      return;
    if (fp.isF16() || fp.isBF16()) {
      if (low && low != fp)
        otherFloat = true;
      low = fp;
    } else {
      otherFloat = true;
    }
  };
  for (Type type : op->getOperandTypes())
    visit(type);
  for (Type type : op->getResultTypes())
    visit(type);
  // A conversion from a low type to an integer or from one low type to the
  // other is left as it is, and so is an op that mixes a low type with f32.
  if (otherFloat)
    return {};
  return low;
}

Operation *mlir::amp::getContractionProducer(Value value) {
  // Through the reshapes that put the result in its readers' shape.
  while (Operation *reshape = value.getDefiningOp()) {
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(reshape))
      break;
    value = reshape->getOperand(0);
  }
  auto producer = value.getDefiningOp<linalg::LinalgOp>();
  if (producer && (linalg::isaContractionOpInterface(producer) ||
                   linalg::isaConvolutionOpInterface(producer)))
    return producer;
  return nullptr;
}

bool mlir::amp::isContractionResult(Value value) {
  return getContractionProducer(value) != nullptr;
}

/// True when `trunc` narrows the f32 result of a contraction that a library
/// call computes (cuBLAS/cuDNN write the low type themselves): the rounding
/// happens in the library and stays.
static bool narrowsLibraryContraction(arith::TruncFOp trunc) {
  auto arg = dyn_cast<BlockArgument>(trunc.getIn());
  if (!arg)
    return false;
  auto generic = dyn_cast<linalg::GenericOp>(arg.getOwner()->getParentOp());
  return generic && arg.getArgNumber() < generic.getNumDpsInputs() &&
         isContractionResult(
             generic.getDpsInputOperand(arg.getArgNumber())->get());
}

unsigned mlir::amp::roundOnceInBody(RewriterBase &rewriter, Block &body,
                                    bool keepLibraryNarrowing) {
  unsigned removed = 0;
  Type f32 = rewriter.getF32Type();
  // 1. Low arithmetic computes in f32: its operands are widened, and its
  //    results narrowed for the users it has now. This alone rounds after
  //    every op, as before (f16/bf16 add, mul, div, sqrt are correctly
  //    rounded from f32, and math functions were computed in f32 anyway).
  for (Operation &op : llvm::make_early_inc_range(body)) {
    FloatType low = getLowComputeType(&op);
    if (!low)
      continue;
    rewriter.setInsertionPoint(&op);
    SmallVector<Value> operands;
    for (Value operand : op.getOperands())
      operands.push_back(
          operand.getType() == low
              ? arith::ExtFOp::create(rewriter, op.getLoc(), f32, operand)
                    .getResult()
              : operand);
    SmallVector<Type> types;
    for (Type type : op.getResultTypes())
      types.push_back(type == low ? f32 : type);
    OperationState state(op.getLoc(), op.getName(), operands, types,
                         op.getAttrs());
    Operation *wide = rewriter.create(state);
    SmallVector<Value> results;
    for (auto [old, value] : llvm::zip(op.getResults(), wide->getResults()))
      results.push_back(
          old.getType() == low
              ? arith::TruncFOp::create(rewriter, op.getLoc(), low, value)
                    .getResult()
              : value);
    rewriter.replaceOp(&op, results);
  }
  // 2. A value narrowed and widened again within the body is not stored:
  //    the widening reads the unrounded value. Only f16/bf16, the storage
  //    types: a narrowing to FP8 is a quantization (amp.quantize), whose
  //    rounding is the point.
  for (Operation &op : llvm::make_early_inc_range(body)) {
    auto ext = dyn_cast<arith::ExtFOp>(&op);
    if (!ext)
      continue;
    auto trunc = ext.getIn().getDefiningOp<arith::TruncFOp>();
    if (!trunc || trunc.getIn().getType() != ext.getType() ||
        !isa<Float16Type, BFloat16Type>(trunc.getType()) ||
        trunc.getRoundingmodeAttr() ||
        (keepLibraryNarrowing && narrowsLibraryContraction(trunc)))
      continue;
    rewriter.replaceOp(ext, trunc.getIn());
    ++removed;
  }
  // What is left unused: the narrowings of values now read wide, and the
  // widenings step 1 made of values that were wide already.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (isa<arith::ExtFOp, arith::TruncFOp>(op) && op.use_empty())
      rewriter.eraseOp(&op);
  return removed;
}

namespace {
struct AmpRoundOncePass
    : public amp::impl::AmpRoundOncePassBase<AmpRoundOncePass> {
  using Base::Base;
  AmpRoundOncePass(RoundingMode mode, bool keepLibraryNarrowing)
      : typedMode(mode) {
    this->keepLibraryNarrowing = keepLibraryNarrowing;
    // Only for printing the pass (a reproducer, a dumped pipeline) as it
    // runs: the typed mode is what it reads.
    rounding = stringifyOptionValue(mode).str();
  }

  void runOnOperation() override {
    FailureOr<RoundingMode> mode =
        typedMode ? FailureOr<RoundingMode>(*typedMode)
                  : resolveRoundingMode(getOperation(), rounding);
    if (failed(mode))
      return signalPassFailure();
    if (*mode == RoundingMode::PerOp)
      return markAllAnalysesPreserved();
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](linalg::GenericOp generic) {
      roundOnceInBody(rewriter, *generic.getBlock(), keepLibraryNarrowing);
    });
  }

  /// Set by the typed constructor: wins over `rounding`.
  std::optional<RoundingMode> typedMode;
};
} // namespace

std::unique_ptr<Pass>
mlir::amp::createAmpRoundOncePass(RoundingMode rounding,
                                  bool keepLibraryNarrowing) {
  return std::make_unique<AmpRoundOncePass>(rounding, keepLibraryNarrowing);
}
