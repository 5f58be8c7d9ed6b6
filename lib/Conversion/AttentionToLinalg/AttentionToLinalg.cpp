//===- AttentionToLinalg.cpp - the amp-attention-to-linalg pass -----------===//
//
// Part of amp-mlir. amp.attention as eight linalg generics over f32
// temporaries, amp.attention_backward as twelve (Passes.td says which), on
// tensors or on buffers: what runs where no fused-attention call takes the
// op.
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

/// Builds the generics of one amp.attention or amp.attention_backward at
/// the rewriter's insertion point, on tensors or on buffers.
template <typename OpTy> class AttentionBuilder {
public:
  AttentionBuilder(PatternRewriter &rewriter, OpTy op)
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
    Value scores = buildScores();
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
    Value weighted = contract(scores, map({B, H, I, J}, 5), op.getValue(),
                              operandMap(J, D, 5), {B, H, I, D}, J);
    SmallVector<Value> results;
    Type element = getElementTypeOrSelf(op.getOut().getType());
    results.push_back(generic(
        {weighted, sums}, {op.getOut()},
        // Over (b, h, i, d): the head dimension is loop 3 here.
        {map({B, H, I, 3}, 4), map({B, H, I}, 4), operandMap(I, 3, 4)}, 4, {},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value quotient = arith::DivFOp::create(b, loc, args[0], args[1]);
          return narrow(b, loc, element, quotient);
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

  /// The gradients (tensors), or none (buffers): P recomputed from the
  /// scores and the forward's stats; dV = P^T dO; dP = dO V^T; D = rowsum(dO
  /// * out); dS = scale * P * (dP - D); dQ = dS K; dK = dS^T Q; each summed
  /// in f32 and rounded once.
  SmallVector<Value> buildBackward() {
    Value scores = buildScores();
    Value probabilities =
        generic({scores, op.getStats()}, {empty({B, H, I, J})},
                {map({B, H, I, J}, 4), map({B, H, I}, 4), map({B, H, I, J}, 4)},
                4, {}, [&](OpBuilder &b, Location loc, ValueRange args) {
                  Value shifted =
                      arith::SubFOp::create(b, loc, args[0], args[1]);
                  return math::ExpOp::create(b, loc, shifted).getResult();
                });
    Value gradValue =
        contract(probabilities, map({B, H, I, J}, 5), op.getGradOut(),
                 operandMap(I, D, 5), {B, H, J, D}, I);
    Value gradP = contract(op.getGradOut(), operandMap(I, D, 5), op.getValue(),
                           operandMap(J, D, 5), {B, H, I, J}, D);
    // D[b, h, i] = sum_d dO * out (over (b, h, i, d)).
    Value rows = zeroFilled({B, H, I}, 0.0);
    rows =
        generic({op.getGradOut(), op.getOut()}, {rows},
                {operandMap(I, 3, 4), operandMap(I, 3, 4), map({B, H, I}, 4)},
                4, {3}, [&](OpBuilder &b, Location loc, ValueRange args) {
                  return multiplyAdd(b, loc, args[0], args[1], args[2]);
                });
    float scale = op.getScale().convertToFloat();
    Value gradS = generic(
        {probabilities, gradP, rows}, {empty({B, H, I, J})},
        {map({B, H, I, J}, 4), map({B, H, I, J}, 4), map({B, H, I}, 4),
         map({B, H, I, J}, 4)},
        4, {}, [&](OpBuilder &b, Location loc, ValueRange args) {
          Value difference = arith::SubFOp::create(b, loc, args[1], args[2]);
          Value product = arith::MulFOp::create(b, loc, args[0], difference);
          return arith::MulFOp::create(b, loc, product,
                                       arith::ConstantOp::create(
                                           b, loc, b.getF32FloatAttr(scale)))
              .getResult();
        });
    Value gradQuery = contract(gradS, map({B, H, I, J}, 5), op.getKey(),
                               operandMap(J, D, 5), {B, H, I, D}, J);
    Value gradKey = contract(gradS, map({B, H, I, J}, 5), op.getQuery(),
                             operandMap(I, D, 5), {B, H, J, D}, I);
    SmallVector<Value> sums = {gradQuery, gradKey, gradValue}, results;
    for (auto [sum, destination] : llvm::zip_equal(sums, op.getInits()))
      results.push_back(round(sum, destination));
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

  /// Scores S[b, h, i, j] = sum_d q * k, then scaled, biased and masked.
  Value buildScores() {
    Value scores = contract(op.getQuery(), operandMap(I, D, 5), op.getKey(),
                            operandMap(J, D, 5), {B, H, I, J}, D);
    return scaleAndMask(scores);
  }

  /// The f32 sum over loop `reduced` of a * b (over the five loops, `a`
  /// and `b` read through their maps), into a temporary over `loops`.
  Value contract(Value a, AffineMap aMap, Value b, AffineMap bMap,
                 ArrayRef<unsigned> loops, unsigned reduced) {
    return generic({a, b}, {zeroFilled(loops, 0.0)},
                   {aMap, bMap, map(loops, 5)}, 5, {reduced},
                   [&](OpBuilder &b, Location loc, ValueRange args) {
                     return multiplyAdd(b, loc, args[0], args[1], args[2]);
                   });
  }

  /// sum + a * b, `a` and `b` widened to f32.
  Value multiplyAdd(OpBuilder &b, Location loc, Value x, Value y, Value sum) {
    Value product =
        arith::MulFOp::create(b, loc, widen(b, loc, x), widen(b, loc, y));
    return arith::AddFOp::create(b, loc, sum, product).getResult();
  }

  /// `value` (f32) rounded to `element`.
  Value narrow(OpBuilder &b, Location loc, Type element, Value value) {
    return element == f32
               ? value
               : arith::TruncFOp::create(b, loc, element, value).getResult();
  }

  /// The f32 temporary `sum` over (b, h, s, d) rounded into `destination`
  /// (stored in the op's layout).
  Value round(Value sum, Value destination) {
    Type element = getElementTypeOrSelf(destination.getType());
    return generic({sum}, {destination},
                   {map({B, H, I, 3}, 4), operandMap(I, 3, 4)}, 4, {},
                   [&](OpBuilder &b, Location loc, ValueRange args) {
                     return narrow(b, loc, element, args[0]);
                   });
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
  OpTy op;
  Location loc;
  bool onTensors;
  Type f32;
  /// Batch, heads, queries, head dimension, keys.
  OpFoldResult sizes[5];
};

template <typename OpTy> struct LowerAttention : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    AttentionBuilder<OpTy> builder(rewriter, op);
    SmallVector<Value> results;
    if constexpr (std::is_same_v<OpTy, AttentionOp>)
      results = builder.build();
    else
      results = builder.buildBackward();
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
  patterns
      .add<LowerAttention<AttentionOp>, LowerAttention<AttentionBackwardOp>>(
          patterns.getContext());
}
