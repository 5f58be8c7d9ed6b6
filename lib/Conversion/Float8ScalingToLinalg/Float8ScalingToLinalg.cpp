//===- Float8ScalingToLinalg.cpp - the amp-float8-scaling-to-linalg pass --===//
//
// Part of amp-mlir. The FP8 scaling ops as tensor code: one elementwise
// generic for amp.quantize and amp.dequantize, one full reduction for
// amp.amax; amp.scaled_matmul, on buffers (or on tensors, with
// scaled-matmuls), as a matmul into an f32 accumulator and a generic that
// scales and rounds. The conversions to and from f8 are arith.truncf/extf,
// which the CPU pipeline expands to integer code (amp-expand-float8).
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Float8ScalingToLinalg/Float8ScalingToLinalg.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPFLOAT8SCALINGTOLINALGPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {

Value widenToF32(OpBuilder &b, Location loc, Value value) {
  if (value.getType().isF32())
    return value;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), value);
}

/// An elementwise generic over `input` writing `element`, with the scale
/// an argument of its body: a captured f32, or a 0-d tensor<f32> read as
/// an input of the generic (on the GPU it stays in device memory).
Value buildScaledElementwise(
    OpBuilder &b, Location loc, Value input, Value scale, Type element,
    function_ref<Value(OpBuilder &, Location, Value, Value)> build) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  SmallVector<Value> inputs{input};
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  SmallVector<AffineMap> maps{identity};
  bool scaleTensor = isa<RankedTensorType>(scale.getType());
  if (scaleTensor) {
    inputs.push_back(scale);
    maps.push_back(AffineMap::get(rank, 0, b.getContext()));
  }
  maps.push_back(identity);
  Value init = tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, input), element);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value s = scaleTensor ? args[1] : scale;
        linalg::YieldOp::create(nested, nestedLoc,
                                build(nested, nestedLoc, args[0], s));
      });
  return generic.getResult(0);
}

struct LowerQuantize : public OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    auto element = cast<FloatType>(op.getType().getElementType());
    float largest = QuantizeOp::getLargestFinite(element);
    Location loc = op.getLoc();
    Value result = buildScaledElementwise(
        rewriter, loc, op.getInput(), op.getScale(), element,
        [&](OpBuilder &b, Location l, Value x, Value scale) -> Value {
          Value max =
              arith::ConstantOp::create(b, l, b.getF32FloatAttr(largest));
          Value min =
              arith::ConstantOp::create(b, l, b.getF32FloatAttr(-largest));
          Value v = arith::MulFOp::create(b, l, widenToF32(b, l, x), scale);
          // Saturate (NaN propagates through both).
          v = arith::MaximumFOp::create(b, l, v, min);
          v = arith::MinimumFOp::create(b, l, v, max);
          return arith::TruncFOp::create(b, l, element, v);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LowerDequantize : public OpRewritePattern<DequantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DequantizeOp op,
                                PatternRewriter &rewriter) const override {
    Type element = op.getType().getElementType();
    Value result = buildScaledElementwise(
        rewriter, op.getLoc(), op.getInput(), op.getScale(), element,
        [&](OpBuilder &b, Location l, Value q, Value scale) -> Value {
          Value v = arith::DivFOp::create(b, l, widenToF32(b, l, q), scale);
          if (element.isF32())
            return v;
          return arith::TruncFOp::create(b, l, element, v);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LowerAmax : public OpRewritePattern<AmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AmaxOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getInput().getType());
    int64_t rank = type.getRank();
    auto f32 = rewriter.getF32Type();
    auto scalarType = RankedTensorType::get({}, f32);
    Value zero =
        arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0));
    Value init =
        linalg::FillOp::create(rewriter, loc, ValueRange{zero},
                               ValueRange{tensor::EmptyOp::create(
                                   rewriter, loc, ArrayRef<int64_t>{}, f32)})
            .getResult(0);
    SmallVector<AffineMap> maps{rewriter.getMultiDimIdentityMap(rank),
                                AffineMap::get(rank, 0, op.getContext())};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::reduction);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{scalarType}, ValueRange{op.getInput()},
        ValueRange{init}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value magnitude =
              math::AbsFOp::create(b, l, widenToF32(b, l, args[0]));
          // maximumf: a NaN anywhere makes the result NaN.
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::MaximumFOp::create(b, l, args[1], magnitude)});
        });
    Value result = generic.getResult(0);
    if (!isa<RankedTensorType>(op.getType()))
      result = tensor::ExtractOp::create(rewriter, loc, result, ValueRange{});
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// amp.scaled_matmul as a (batch) matmul of its FP8 operands (B stored
/// n x k) into a zero-filled f32 accumulator, and a generic that multiplies
/// it by the scale and rounds it to the destination's type. On buffers an
/// f32 destination is its own accumulator (scaled in place); another is
/// written from a new f32 buffer, which the deallocation pipeline frees.
struct LowerScaledMatmul : public OpRewritePattern<ScaledMatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScaledMatmulOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value init = op.getInit();
    auto initType = cast<ShapedType>(init.getType());
    Type element = initType.getElementType();
    bool onTensors = op.hasPureTensorSemantics();
    Value acc = createAccumulator(rewriter, loc, init, onTensors);
    Value zero =
        arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0));
    auto fill = linalg::FillOp::create(rewriter, loc, ValueRange{zero},
                                       ValueRange{acc});
    if (onTensors)
      acc = fill.getResult(0);
    // C(m, n) += A(m, k) * B(n, k), after the batch.
    MLIRContext *context = op.getContext();
    int64_t rank = initType.getRank();
    bool batched = op.isBatched();
    ArrayAttr maps = rewriter.getAffineMapArrayAttr(
        ScaledMatmulOp::getIndexingMaps(context, batched));
    SmallVector<Type> accTypes;
    if (onTensors)
      accTypes.push_back(acc.getType());
    SmallVector<Value, 2> operands{op.getLhs(), op.getRhs()};
    Operation *matmul =
        batched ? linalg::BatchMatmulOp::create(rewriter, loc, accTypes,
                                                operands, ValueRange{acc})
                      .getOperation()
                : linalg::MatmulOp::create(rewriter, loc, accTypes, operands,
                                           ValueRange{acc})
                      .getOperation();
    matmul->setAttr("indexing_maps", maps);
    if (onTensors)
      acc = matmul->getResult(0);
    // destination = round(acc * scale); in place on an f32 buffer.
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    bool inPlace = acc == init;
    SmallVector<Value> inputs{op.getScale()};
    SmallVector<AffineMap> genericMaps{AffineMap::get(rank, 0, context)};
    if (!inPlace) {
      inputs.push_back(acc);
      genericMaps.push_back(identity);
    }
    genericMaps.push_back(identity);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, op->getResultTypes(), inputs, ValueRange{init},
        genericMaps, iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          // (scale, acc, out), or (scale, out) in place: acc is args[1].
          Value scaled = arith::MulFOp::create(b, l, args[1], args[0]);
          if (!element.isF32())
            scaled = arith::TruncFOp::create(b, l, element, scaled);
          linalg::YieldOp::create(b, l, scaled);
        });
    rewriter.replaceOp(op, generic->getResults());
    return success();
  }

  /// The f32 accumulator of a scaled matmul writing `init`: a new tensor,
  /// `init` itself (an f32 buffer), or a new f32 buffer of its sizes.
  static Value createAccumulator(OpBuilder &b, Location loc, Value init,
                                 bool onTensors) {
    auto type = cast<ShapedType>(init.getType());
    Type f32 = b.getF32Type();
    if (onTensors)
      return tensor::EmptyOp::create(b, loc,
                                     tensor::getMixedSizes(b, loc, init), f32);
    if (type.getElementType().isF32())
      return init;
    SmallVector<Value> sizes;
    for (int64_t i = 0, e = type.getRank(); i < e; ++i)
      if (type.isDynamicDim(i))
        sizes.push_back(memref::DimOp::create(b, loc, init, i));
    return memref::AllocOp::create(
        b, loc, MemRefType::get(type.getShape(), f32), sizes);
  }
};

struct AmpFloat8ScalingToLinalgPass
    : public amp::impl::AmpFloat8ScalingToLinalgPassBase<
          AmpFloat8ScalingToLinalgPass> {
  using AmpFloat8ScalingToLinalgPassBase::AmpFloat8ScalingToLinalgPassBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateAmpFloat8ScalingToLinalgPatterns(patterns);
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      auto scaled = dyn_cast<ScaledMatmulOp>(op);
      if (isa<AmaxOp, QuantizeOp, DequantizeOp>(op) ||
          (scaled && (scaledMatmuls || !scaled.hasPureTensorSemantics())))
        ops.push_back(op);
    });
    if (ops.empty())
      return markAllAnalysesPreserved();
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    if (failed(applyOpPatternsGreedily(ops, std::move(patterns), config)))
      return signalPassFailure();
  }
};
} // namespace

void mlir::amp::populateAmpFloat8ScalingToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<LowerAmax, LowerQuantize, LowerDequantize, LowerScaledMatmul>(
      patterns.getContext());
}
