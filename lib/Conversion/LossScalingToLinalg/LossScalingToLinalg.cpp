//===- LossScalingToLinalg.cpp - the amp-loss-scaling-to-linalg pass ------===//
//
// Part of amp-mlir. The loss-scaling ops as tensor code. The state machine
// follows runtime/lib/LossScalerState.h (updateLossScalerState) operation for
// operation, so compiled steps and the runtime's scaler agree bit for bit.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/LossScalingToLinalg/LossScalingToLinalg.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/OptimizerRules.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cfloat>

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPLOSSSCALINGTOLINALGPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {

Value f32Const(OpBuilder &b, Location loc, float value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}

Value i32Const(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value));
}

/// `value` converted to `type` (extf/truncf), or itself.
Value convertFloat(OpBuilder &b, Location loc, Value value, FloatType type) {
  auto from = cast<FloatType>(value.getType());
  if (from == type)
    return value;
  if (from.getWidth() < type.getWidth())
    return arith::ExtFOp::create(b, loc, type, value);
  return arith::TruncFOp::create(b, loc, type, value);
}

/// 1/scale computed in f64 and rounded once to f32 (PyTorch, Megatron).
Value buildInverse(OpBuilder &b, Location loc, Value scale) {
  Value wide = arith::ExtFOp::create(b, loc, b.getF64Type(), scale);
  Value one = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(1.0));
  Value inverse = arith::DivFOp::create(b, loc, one, wide);
  return arith::TruncFOp::create(b, loc, b.getF32Type(), inverse);
}

/// True if `x` (f32) is Inf or NaN: |x| >= Inf, or unordered.
Value buildNonFinite(OpBuilder &b, Location loc, Value x) {
  Value magnitude = math::AbsFOp::create(b, loc, x);
  auto type = cast<FloatType>(x.getType());
  Value inf = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(type, APFloat::getInf(type.getFloatSemantics())));
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UGE, magnitude,
                               inf);
}

/// True if the inverse scale `inv` is invalid: not finite and > 0 (NaN, Inf,
/// <= 0), the rule of the runtime's unscale entry points.
Value buildInvalidInverse(OpBuilder &b, Location loc, Value inv) {
  auto type = cast<FloatType>(inv.getType());
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 0.0));
  Value inf = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(type, APFloat::getInf(type.getFloatSemantics())));
  Value notPositive =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ULE, inv, zero);
  Value infinite =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, inv, inf);
  return arith::OrIOp::create(b, loc, notPositive, infinite);
}

/// An empty tensor shaped like `like` with element type `element`.
Value buildEmptyLike(OpBuilder &b, Location loc, Value like, Type element) {
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, like);
  return tensor::EmptyOp::create(b, loc, sizes, element);
}

//===----------------------------------------------------------------------===//
// amp.scale_loss
//===----------------------------------------------------------------------===//

struct LowerScaleLoss : public OpRewritePattern<ScaleLossOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScaleLossOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value loss = op.getLoss();
    Value scale = op.getScale();
    FloatType f32 = rewriter.getF32Type();
    if (!isa<TensorType>(loss.getType())) {
      Value wide = convertFloat(rewriter, loc, loss, f32);
      rewriter.replaceOpWithNewOp<arith::MulFOp>(op, wide, scale);
      return success();
    }
    auto type = dyn_cast<RankedTensorType>(loss.getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "unranked loss");
    bool tensorScale = isa<TensorType>(scale.getType());
    unsigned rank = type.getRank();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<Value> inputs{loss};
    SmallVector<AffineMap> maps{rewriter.getMultiDimIdentityMap(rank)};
    if (tensorScale) {
      inputs.push_back(scale);
      maps.push_back(AffineMap::get(rank, 0, ctx));
    }
    maps.push_back(rewriter.getMultiDimIdentityMap(rank));
    Value init = buildEmptyLike(rewriter, loc, loss, f32);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{op.getType()}, inputs, ValueRange{init}, maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Value wide = convertFloat(b, l, args[0], f32);
          Value factor = tensorScale ? args[1] : scale;
          Value product = arith::MulFOp::create(b, l, wide, factor);
          linalg::YieldOp::create(b, l, product);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// amp.check_finite_and_unscale
//===----------------------------------------------------------------------===//

/// The unscale of `gradients` by `inverse` (an f32, or a 0-d f32 buffer)
/// into `outputs`, ORing into `flag` (a 0-d i1 buffer) whether a value
/// written is Inf or NaN or the inverse is not finite and positive: one
/// linalg.generic per gradient, the flag threaded through them.
void buildUnscaleGenerics(OpBuilder &b, Location loc, ValueRange gradients,
                          Value inverse, ValueRange outputs, Value flag) {
  MLIRContext *ctx = b.getContext();
  FloatType f32 = b.getF32Type();
  bool bufferInverse = isa<ShapedType>(inverse.getType());
  for (auto [gradient, output] : llvm::zip_equal(gradients, outputs)) {
    auto type = cast<ShapedType>(gradient.getType());
    auto element = cast<FloatType>(type.getElementType());
    FloatType compute = element.getWidth() > 32 ? element : f32;
    unsigned rank = type.getRank();
    AffineMap identity = b.getMultiDimIdentityMap(rank);
    AffineMap scalar = AffineMap::get(rank, 0, ctx);
    SmallVector<Value> inputs{gradient};
    SmallVector<AffineMap> maps{identity};
    if (bufferInverse) {
      inputs.push_back(inverse);
      maps.push_back(scalar);
    }
    maps.push_back(identity);
    maps.push_back(scalar);
    // Every loop carries the flag, so every loop is a reduction.
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::reduction);
    linalg::GenericOp::create(
        b, loc, TypeRange{}, inputs, ValueRange{output, flag}, maps, iterators,
        [&](OpBuilder &nb, Location l, ValueRange args) {
          Value x = convertFloat(nb, l, args[0], compute);
          Value factor =
              convertFloat(nb, l, bufferInverse ? args[1] : inverse, compute);
          Value product = arith::MulFOp::create(nb, l, x, factor);
          Value result = convertFloat(nb, l, product, element);
          // Whether the value written is Inf or NaN, read back from its
          // type (so an f16 overflow counts). No pass rounds once after
          // bufferization, so the rounding stays.
          Value bad =
              buildNonFinite(nb, l, convertFloat(nb, l, result, compute));
          Value badInverse = buildInvalidInverse(nb, l, factor);
          Value any = arith::OrIOp::create(
              nb, l, args.back(), arith::OrIOp::create(nb, l, bad, badInverse));
          linalg::YieldOp::create(nb, l, ValueRange{result, any});
        });
  }
}

struct LowerCheckFiniteAndUnscale
    : public OpRewritePattern<CheckFiniteAndUnscaleOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CheckFiniteAndUnscaleOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value scale = op.getScale();
    bool tensorState = isa<TensorType>(scale.getType());
    FloatType f32 = rewriter.getF32Type();

    // The reciprocal, once per step.
    Value inverse;
    if (tensorState)
      inverse = buildScalarGeneric(
          rewriter, loc, scale, TypeRange{f32},
          [](OpBuilder &b, Location l, ValueRange args) {
            return SmallVector<Value>{buildInverse(b, l, args[0])};
          })[0];
    else
      inverse = buildInverse(rewriter, loc, scale);

    // found_inf starts false; each gradient's values written, and the
    // validity of the inverse scale (NaN, Inf, <= 0, as the runtime's
    // unscale entry points check it), are ORed into it.
    Value falseValue =
        arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(false));
    Value flag = linalg::FillOp::create(rewriter, loc, falseValue,
                                        ValueRange{tensor::EmptyOp::create(
                                            rewriter, loc, ArrayRef<int64_t>{},
                                            rewriter.getI1Type())})
                     .getResult(0);
    SmallVector<Value> outputs;
    for (Value gradient : op.getGradients())
      outputs.push_back(buildEmptyLike(
          rewriter, loc, gradient,
          cast<ShapedType>(gradient.getType()).getElementType()));

    // One op for all gradients, which stays one through bufferization:
    // one call of the runtime's multi-tensor unscale on the GPU, loops
    // where no call is made (amp.unscale_gradients on buffers, below).
    SmallVector<Value> inits(outputs);
    inits.push_back(flag);
    SmallVector<Value> results =
        UnscaleGradientsOp::create(rewriter, loc, TypeRange(ValueRange(inits)),
                                   op.getGradients(), inverse, inits)
            .getResults();
    if (!tensorState)
      results.back() = tensor::ExtractOp::create(rewriter, loc, results.back(),
                                                 ValueRange{});
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// amp.unscale_gradients on buffers (where no library call took it): a
/// generic per gradient, the flag threaded through them, each reading its
/// gradient once and writing the unscaled values.
struct LowerUnscaleGradients : public OpRewritePattern<UnscaleGradientsOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(UnscaleGradientsOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureBufferSemantics())
      return rewriter.notifyMatchFailure(op, "on tensors");
    buildUnscaleGenerics(rewriter, op.getLoc(), op.getGradients(),
                         op.getInverse(), op.getOutputs(), op.getFlag());
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// amp.update_loss_scaling
//===----------------------------------------------------------------------===//

/// One step of the state machine on scalars: (found_inf, scale, good, bad,
/// hysteresis) -> (scale, good, bad, hysteresis). Mirrors
/// updateLossScalerState in runtime/lib/LossScalerState.h.
SmallVector<Value> buildStateMachine(OpBuilder &b, Location loc,
                                     LossScalingAttr config, Value found,
                                     Value scale, Value good, Value bad,
                                     Value hysteresis) {
  if (!config.getDynamic())
    return {scale, good, bad, hysteresis};
  using arith::CmpFPredicate;
  using arith::CmpIPredicate;
  auto select = [&](Value c, Value t, Value f) -> Value {
    return arith::SelectOp::create(b, loc, c, t, f);
  };
  Value zero = i32Const(b, loc, 0);
  Value one = i32Const(b, loc, 1);
  Value refill = i32Const(b, loc, config.getHysteresis());

  // Overflow: absorbed while more than one unit of hysteresis is left.
  Value absorbed =
      arith::CmpIOp::create(b, loc, CmpIPredicate::sgt, hysteresis, one);
  Value hysteresisLeft = arith::SubIOp::create(b, loc, hysteresis, one);
  Value badCount = arith::AddIOp::create(b, loc, bad, one);
  Value backOff =
      arith::CmpIOp::create(b, loc, CmpIPredicate::sge, badCount,
                            i32Const(b, loc, config.getBackoffInterval()));
  Value next = arith::MulFOp::create(
      b, loc, scale,
      f32Const(b, loc, static_cast<float>(config.getBackoffFactorValue())));
  if (std::optional<double> min = config.getMinScaleValue()) {
    Value floor = f32Const(b, loc, static_cast<float>(*min));
    next =
        select(arith::CmpFOp::create(b, loc, CmpFPredicate::OLT, next, floor),
               floor, next);
  }
  // Never below the smallest normal f32: 1/scale stays finite.
  Value smallest = f32Const(b, loc, FLT_MIN);
  Value keep =
      select(arith::CmpFOp::create(b, loc, CmpFPredicate::OLT, scale, smallest),
             smallest, scale);
  next =
      select(arith::CmpFOp::create(b, loc, CmpFPredicate::OLT, next, smallest),
             keep, next);
  Value overflowScale = select(absorbed, scale, select(backOff, next, scale));
  Value overflowBad = select(absorbed, bad, select(backOff, zero, badCount));
  Value overflowHysteresis = select(absorbed, hysteresisLeft, zero);

  // Clean step: grow after growth_interval of them, capped, never to Inf.
  Value goodCount = arith::AddIOp::create(b, loc, good, one);
  Value grow =
      arith::CmpIOp::create(b, loc, CmpIPredicate::sge, goodCount,
                            i32Const(b, loc, config.getGrowthInterval()));
  Value grown = arith::MulFOp::create(
      b, loc, scale,
      f32Const(b, loc, static_cast<float>(config.getGrowthFactorValue())));
  if (std::optional<double> max = config.getMaxScaleValue()) {
    Value cap = f32Const(b, loc, static_cast<float>(*max));
    grown =
        select(arith::CmpFOp::create(b, loc, CmpFPredicate::OGT, grown, cap),
               cap, grown);
  }
  Value difference = arith::SubFOp::create(b, loc, grown, grown);
  Value finite = arith::CmpFOp::create(b, loc, CmpFPredicate::OEQ, difference,
                                       f32Const(b, loc, 0.0f));
  Value cleanScale = select(grow, select(finite, grown, scale), scale);
  Value cleanGood = select(grow, zero, goodCount);
  Value cleanHysteresis = select(
      grow, refill, config.getConsecutiveHysteresis() ? refill : hysteresis);

  return {select(found, overflowScale, cleanScale),
          select(found, zero, cleanGood), select(found, overflowBad, zero),
          select(found, overflowHysteresis, cleanHysteresis)};
}

struct LowerUpdateLossScaling : public OpRewritePattern<UpdateLossScalingOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(UpdateLossScalingOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    LossScalingAttr config = op.getConfig();
    if (!isa<TensorType>(op.getScale().getType())) {
      rewriter.replaceOp(
          op, buildStateMachine(rewriter, loc, config, op.getFoundInf(),
                                op.getScale(), op.getGoodSteps(),
                                op.getBadSteps(), op.getHysteresis()));
      return success();
    }
    Type i32 = rewriter.getI32Type();
    SmallVector<Value> results = buildScalarGeneric(
        rewriter, loc,
        ValueRange{op.getFoundInf(), op.getScale(), op.getGoodSteps(),
                   op.getBadSteps(), op.getHysteresis()},
        TypeRange{rewriter.getF32Type(), i32, i32, i32},
        [&](OpBuilder &b, Location l, ValueRange args) {
          return buildStateMachine(b, l, config, args[0], args[1], args[2],
                                   args[3], args[4]);
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// amp.optimizer_update
//===----------------------------------------------------------------------===//

/// amp.optimizer_update (where no library call took it): a generic per
/// parameter, in f32, reading the gradient, the step and the flag and
/// updating the parameter and its state in place; on an overflow every
/// value is selected back.
struct LowerOptimizerUpdate : public OpRewritePattern<OptimizerUpdateOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(OptimizerUpdateOp op,
                                PatternRewriter &rewriter) const override {
    size_t numParams = op.getGradients().size();
    SmallVector<Value> results(op.getInits().size());
    for (unsigned index = 0; index < numParams; ++index) {
      linalg::GenericOp generic =
          buildOptimizerUpdateGeneric(rewriter, op, index);
      for (auto [s, result] : llvm::enumerate(generic.getResults()))
        results[s * numParams + index] = result;
    }
    if (op.hasPureBufferSemantics())
      rewriter.eraseOp(op);
    else
      rewriter.replaceOp(op, results);
    return success();
  }
};

struct AmpLossScalingToLinalgPass
    : public amp::impl::AmpLossScalingToLinalgPassBase<
          AmpLossScalingToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<ScaleLossOp, CheckFiniteAndUnscaleOp, UpdateLossScalingOp>(op))
        ops.push_back(op);
      auto unscale = dyn_cast<UnscaleGradientsOp>(op);
      if (unscale && unscale.hasPureBufferSemantics())
        ops.push_back(op);
      // The optimizer's update stays one op through bufferization (one
      // library call on the GPU); loops on buffers.
      auto update = dyn_cast<OptimizerUpdateOp>(op);
      if (update && update.hasPureBufferSemantics())
        ops.push_back(op);
    });
    if (ops.empty())
      return markAllAnalysesPreserved();
    RewritePatternSet patterns(&getContext());
    populateAmpLossScalingToLinalgPatterns(patterns);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    (void)applyOpPatternsGreedily(ops, std::move(patterns), config);
    getOperation()->walk([&](Operation *op) {
      if (isa<ScaleLossOp, CheckFiniteAndUnscaleOp, UpdateLossScalingOp>(op))
        op->emitRemark() << "amp: '" << op->getName()
                         << "' left as is: an unranked loss cannot be "
                            "lowered to linalg";
    });
  }
};
} // namespace

void mlir::amp::populateAmpLossScalingToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns
      .add<LowerScaleLoss, LowerCheckFiniteAndUnscale, LowerUnscaleGradients,
           LowerUpdateLossScaling, LowerOptimizerUpdate>(patterns.getContext());
}
