//===- AttentionToLinalg.cpp - the amp-attention-to-linalg pass -----------===//
//
// Part of amp-mlir. amp.attention as eight linalg generics over f32
// temporaries (Passes.td says which), on tensors or on buffers: what runs
// where no fused-attention call takes the op.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/AttentionToLinalg/AttentionToLinalg.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPATTENTIONTOLINALGPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {
/// The logical loop dimensions of the generics: batch, head, query, key,
/// head dimension.
enum Loop : unsigned { B, H, I, J, D };

/// Builds the generics of one amp.attention at the rewriter's insertion
/// point, on tensors or on buffers.
class AttentionBuilder {
public:
  AttentionBuilder(PatternRewriter &rewriter, AttentionOp op)
      : rewriter(rewriter), op(op), loc(op.getLoc()),
        onTensors(op.hasPureTensorSemantics()), f32(rewriter.getF32Type()) {
    // Sizes: batch, heads, sequence, head dimension (of query), keys.
    std::array<unsigned, 4> order = op.getDimensionOrder();
    for (int i = 0; i < 4; ++i)
      sizes[i] = getDim(op.getQuery(), order[i]);
    sizes[4] = getDim(op.getKey(), order[2]);
  }

  /// The values of the destinations (tensors), or none (buffers).
  SmallVector<Value> build() {
    // Scores S[b, h, i, j] = sum_d q * k, then scaled, biased and masked.
    Value scores = zeroFilled({B, H, I, J}, 0.0);
    scores = generic(
        {op.getQuery(), op.getKey()}, {scores},
        {operandMap(I, D, 5), operandMap(J, D, 5), map({B, H, I, J}, 5)}, 5,
        /*reductions=*/{D}, [&](OpBuilder &b, Location loc, ValueRange args) {
          Value product = arith::MulFOp::create(b, loc, widen(b, loc, args[0]),
                                                widen(b, loc, args[1]));
          return arith::AddFOp::create(b, loc, args[2], product).getResult();
        });
    scores = scaleAndMask(scores);
    // The rows' maximum, then exp(S - max) and the rows' sums.
    Value largest = zeroFilled({B, H, I}, -INFINITY);
    largest =
        generic({scores}, {largest}, {map({B, H, I, J}, 4), map({B, H, I}, 4)},
                4, {J}, [&](OpBuilder &b, Location loc, ValueRange args) {
                  return arith::MaximumFOp::create(b, loc, args[0], args[1])
                      .getResult();
                });
    scores =
        generic({scores, largest}, {empty({B, H, I, J})},
                {map({B, H, I, J}, 4), map({B, H, I}, 4), map({B, H, I, J}, 4)},
                4, {}, [&](OpBuilder &b, Location loc, ValueRange args) {
                  Value shifted =
                      arith::SubFOp::create(b, loc, args[0], args[1]);
                  return math::ExpOp::create(b, loc, shifted).getResult();
                });
    Value sums = zeroFilled({B, H, I}, 0.0);
    sums = generic(
        {scores}, {sums}, {map({B, H, I, J}, 4), map({B, H, I}, 4)}, 4, {J},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return arith::AddFOp::create(b, loc, args[0], args[1]).getResult();
        });
    // The weighted sum of the values, in f32, divided and rounded once.
    Value weighted = zeroFilled({B, H, I, D}, 0.0);
    weighted = generic(
        {scores, op.getValue()}, {weighted},
        {map({B, H, I, J}, 5), operandMap(J, D, 5), map({B, H, I, D}, 5)}, 5,
        {J}, [&](OpBuilder &b, Location loc, ValueRange args) {
          Value product =
              arith::MulFOp::create(b, loc, args[0], widen(b, loc, args[1]));
          return arith::AddFOp::create(b, loc, args[2], product).getResult();
        });
    SmallVector<Value> results;
    Type element = getElementTypeOrSelf(op.getOut().getType());
    results.push_back(generic(
        {weighted, sums}, {op.getOut()},
        // Over (b, h, i, d): the head dimension is loop 3 here.
        {map({B, H, I, 3}, 4), map({B, H, I}, 4), operandMap(I, 3, 4)}, 4, {},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value quotient = arith::DivFOp::create(b, loc, args[0], args[1]);
          return element == f32
                     ? quotient
                     : arith::TruncFOp::create(b, loc, element, quotient)
                           .getResult();
        }));
    if (Value stats = op.getStats())
      results.push_back(generic(
          {largest, sums}, {stats},
          {map({B, H, I}, 3), map({B, H, I}, 3), map({B, H, I}, 3)}, 3, {},
          [&](OpBuilder &b, Location loc, ValueRange args) {
            Value log = math::LogOp::create(b, loc, args[1]);
            return arith::AddFOp::create(b, loc, args[0], log).getResult();
          }));
    if (!onTensors)
      results.clear();
    return results;
  }

private:
  using Body = function_ref<Value(OpBuilder &, Location, ValueRange)>;

  OpFoldResult getDim(Value value, unsigned dim) {
    if (onTensors)
      return tensor::getMixedSize(rewriter, loc, value, dim);
    return memref::getMixedSize(rewriter, loc, value, dim);
  }

  /// A map of `count` loops to `loops`, in that order.
  AffineMap map(ArrayRef<unsigned> loops, unsigned count) {
    SmallVector<AffineExpr> results;
    for (unsigned loop : loops)
      results.push_back(rewriter.getAffineDimExpr(loop));
    return AffineMap::get(count, 0, results, rewriter.getContext());
  }

  /// The map of query, key, value or out (stored in the op's order) whose
  /// sequence dimension is loop `sequence` and head dimension loop `dim`.
  AffineMap operandMap(unsigned sequence, unsigned dim, unsigned count) {
    std::array<unsigned, 4> order = op.getDimensionOrder();
    unsigned logical[4] = {B, H, sequence, dim};
    SmallVector<AffineExpr> results(4);
    for (int i = 0; i < 4; ++i)
      results[order[i]] = rewriter.getAffineDimExpr(logical[i]);
    return AffineMap::get(count, 0, results, rewriter.getContext());
  }

  /// An f32 temporary over `loops` (sizes of the logical dimensions, keys
  /// for J), not initialised.
  Value empty(ArrayRef<unsigned> loops) {
    SmallVector<OpFoldResult> shape;
    for (unsigned loop : loops)
      shape.push_back(sizes[loop == J ? 4 : loop == D ? 3 : loop]);
    Value init;
    if (onTensors) {
      init = tensor::EmptyOp::create(rewriter, loc, shape, f32);
    } else {
      SmallVector<int64_t> staticSizes;
      SmallVector<Value> dynamicSizes;
      dispatchIndexOpFoldResults(shape, dynamicSizes, staticSizes);
      init = memref::AllocOp::create(
          rewriter, loc, MemRefType::get(staticSizes, f32), dynamicSizes);
    }
    return init;
  }

  /// An f32 temporary over `loops` filled with `value`.
  Value zeroFilled(ArrayRef<unsigned> loops, double value) {
    Value init = empty(loops);
    Value constant = arith::ConstantOp::create(
        rewriter, loc, rewriter.getF32FloatAttr(static_cast<float>(value)));
    auto fill = linalg::FillOp::create(rewriter, loc, constant, init);
    return onTensors ? fill.getResult(0) : init;
  }

  /// A generic over `count` loops (`reductions` among them) reading
  /// `inputs` and writing `outputs` (one) with `body`: its result on
  /// tensors, the output buffer on buffers.
  Value generic(ValueRange inputs, ValueRange outputs, ArrayRef<AffineMap> maps,
                unsigned count, ArrayRef<unsigned> reductions, Body body) {
    SmallVector<utils::IteratorType> iterators(count,
                                               utils::IteratorType::parallel);
    for (unsigned loop : reductions)
      iterators[loop] = utils::IteratorType::reduction;
    TypeRange results = onTensors ? TypeRange(outputs.getTypes()) : TypeRange();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, results, inputs, outputs, maps, iterators,
        [&](OpBuilder &b, Location nested, ValueRange args) {
          linalg::YieldOp::create(b, nested, body(b, nested, args));
        });
    return onTensors ? generic.getResult(0) : outputs.front();
  }

  Value widen(OpBuilder &b, Location loc, Value value) {
    return value.getType() == f32
               ? value
               : arith::ExtFOp::create(b, loc, f32, value).getResult();
  }

  /// scores * scale + bias, -inf past the diagonal when causal.
  Value scaleAndMask(Value scores) {
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    if (Value bias = op.getBias()) {
      auto type = cast<ShapedType>(bias.getType());
      SmallVector<AffineExpr> results;
      for (unsigned loop : {B, H, I, J}) {
        bool broadcast = loop < I && type.getDimSize(loop) == 1;
        results.push_back(broadcast ? rewriter.getAffineConstantExpr(0)
                                    : rewriter.getAffineDimExpr(loop));
      }
      inputs.push_back(bias);
      maps.push_back(AffineMap::get(4, 0, results, rewriter.getContext()));
    }
    inputs.insert(inputs.begin(), scores);
    maps.insert(maps.begin(), map({B, H, I, J}, 4));
    maps.push_back(map({B, H, I, J}, 4));
    float scale = op.getScale().convertToFloat();
    bool causal = op.getCausal();
    return generic(
        inputs, {empty({B, H, I, J})}, maps, 4, {},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value value = arith::MulFOp::create(
              b, loc, args[0],
              arith::ConstantOp::create(b, loc, b.getF32FloatAttr(scale)));
          if (args.size() == 3)
            value =
                arith::AddFOp::create(b, loc, value, widen(b, loc, args[1]));
          if (!causal)
            return value;
          Value past =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                    linalg::IndexOp::create(b, loc, J),
                                    linalg::IndexOp::create(b, loc, I));
          Value minusInf = arith::ConstantOp::create(
              b, loc,
              b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
          return arith::SelectOp::create(b, loc, past, minusInf, value)
              .getResult();
        });
  }

  PatternRewriter &rewriter;
  AttentionOp op;
  Location loc;
  bool onTensors;
  Type f32;
  /// Batch, heads, queries, head dimension, keys.
  OpFoldResult sizes[5];
};

struct LowerAttention : public OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<Value> results = AttentionBuilder(rewriter, op).build();
    if (op.hasPureTensorSemantics())
      rewriter.replaceOp(op, results);
    else
      rewriter.eraseOp(op);
    return success();
  }
};

struct AmpAttentionToLinalgPass
    : public amp::impl::AmpAttentionToLinalgPassBase<AmpAttentionToLinalgPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateAmpAttentionToLinalgPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void mlir::amp::populateAmpAttentionToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<LowerAttention>(patterns.getContext());
}
