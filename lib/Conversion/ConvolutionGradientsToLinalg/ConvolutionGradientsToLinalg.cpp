//===- ConvolutionGradientsToLinalg.cpp - conv gradients as loops ---------===//
//
// Part of amp-mlir. amp.conv2d_backward_data and amp.conv2d_backward_filter
// as one linalg.generic each, on tensors or buffers: the destination's four
// dimensions parallel, the three summed over reductions. The operand read
// at a shifted position (the input for the filter gradient, the output
// gradient for the input gradient) is read in the body, and counts 0 where
// the position falls outside it.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/ConvolutionGradientsToLinalg/ConvolutionGradientsToLinalg.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPCONVOLUTIONGRADIENTSTOLINALGPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

/// `value` (a float) in `type`: widened, narrowed, or through f32 between
/// f16 and bf16.
static Value widenOrNarrow(OpBuilder &b, Location loc, Value value, Type type) {
  Type from = value.getType();
  if (from == type)
    return value;
  unsigned fromWidth = from.getIntOrFloatBitWidth(),
           toWidth = type.getIntOrFloatBitWidth();
  if (fromWidth == toWidth) {
    value = arith::ExtFOp::create(b, loc, b.getF32Type(), value);
    return widenOrNarrow(b, loc, value, type);
  }
  if (toWidth > fromWidth)
    return arith::ExtFOp::create(b, loc, type, value);
  return arith::TruncFOp::create(b, loc, type, value);
}

/// The size of dimension `dim` of `shaped` (a tensor or a buffer) as an
/// index, built before the generic.
static Value getDimSize(OpBuilder &b, Location loc, Value shaped, int64_t dim) {
  int64_t size = cast<ShapedType>(shaped.getType()).getDimSize(dim);
  if (!ShapedType::isDynamic(size))
    return arith::ConstantIndexOp::create(b, loc, size);
  if (isa<TensorType>(shaped.getType()))
    return tensor::DimOp::create(b, loc, shaped, dim);
  return memref::DimOp::create(b, loc, shaped, dim);
}

/// The element of `shaped` at `indices`, read in a generic's body.
static Value loadElement(OpBuilder &b, Location loc, Value shaped,
                         ValueRange indices) {
  if (isa<TensorType>(shaped.getType()))
    return tensor::ExtractOp::create(b, loc, shaped, indices);
  return memref::LoadOp::create(b, loc, shaped, indices);
}

/// The accumulation of a generic's body: `acc + (valid ? a * b : 0)`, the
/// product in the destination's type.
static Value accumulate(OpBuilder &b, Location loc, Value valid, Value lhs,
                        Value rhs, Value acc) {
  Type type = acc.getType();
  Value product =
      arith::MulFOp::create(b, loc, widenOrNarrow(b, loc, lhs, type),
                            widenOrNarrow(b, loc, rhs, type));
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
  Value taken = arith::SelectOp::create(b, loc, valid, product, zero);
  return arith::AddFOp::create(b, loc, acc, taken);
}

/// The generic of `op` (either gradient): `read` is the operand read
/// through `readMap`; `body` builds, from the loop indices, the element it
/// reads and the element of the other operand, and whether it counts.
static void replaceWithGeneric(RewriterBase &rewriter, Operation *op,
                               Value read, AffineMap readMap, Value init,
                               llvm::function_ref<std::pair<Value, Value>(
                                   OpBuilder &, Location, ArrayRef<Value>)>
                                   body) {
  MLIRContext *context = op->getContext();
  Location loc = op->getLoc();
  AffineMap initMap =
      AffineMap::getMultiDimIdentityMap(7, context).getSubMap({0, 1, 2, 3});
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  iterators.append(3, utils::IteratorType::reduction);
  SmallVector<Type, 1> results;
  if (isa<TensorType>(init.getType()))
    results.push_back(init.getType());
  auto generic = linalg::GenericOp::create(
      rewriter, loc, results, ValueRange{read}, ValueRange{init},
      ArrayRef<AffineMap>{readMap, initMap}, iterators,
      [&](OpBuilder &b, Location nested, ValueRange args) {
        SmallVector<Value, 7> indices;
        for (unsigned i = 0; i < 7; ++i)
          indices.push_back(linalg::IndexOp::create(b, nested, i));
        auto [valid, other] = body(b, nested, indices);
        linalg::YieldOp::create(
            b, nested, accumulate(b, nested, valid, args[0], other, args[1]));
      });
  rewriter.replaceOp(op, generic->getResults());
}

namespace {
/// init[f, c, r, s] += x[n, c, oy * s - p + r * d, ...] * dy[n, f, oy, ox],
/// loops (f, c, r, s, n, oy, ox); dy through the map, x in the body.
struct LowerBackwardFilter : public OpRewritePattern<Conv2DBackwardFilterOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(Conv2DBackwardFilterOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getLhs();
    Value height = getDimSize(rewriter, loc, x, 2);
    Value width = getDimSize(rewriter, loc, x, 3);
    ArrayRef<int64_t> strides = op.getStrides(), padding = op.getPadding(),
                      dilations = op.getDilations();
    MLIRContext *context = op.getContext();
    auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
    AffineMap dyMap = AffineMap::get(7, 0, {d(4), d(0), d(5), d(6)}, context);
    replaceWithGeneric(
        rewriter, op, op.getRhs(), dyMap, op.getInit(),
        [&](OpBuilder &b, Location nested, ArrayRef<Value> loops) {
          Value zero = arith::ConstantIndexOp::create(b, nested, 0);
          Value valid;
          SmallVector<Value, 2> at;
          for (int i = 0; i < 2; ++i) {
            // oy * stride + r * dilation - padding.
            Value scaled = arith::MulIOp::create(
                b, nested, loops[5 + i],
                arith::ConstantIndexOp::create(b, nested, strides[i]));
            Value tap = arith::MulIOp::create(
                b, nested, loops[2 + i],
                arith::ConstantIndexOp::create(b, nested, dilations[i]));
            Value position = arith::SubIOp::create(
                b, nested, arith::AddIOp::create(b, nested, scaled, tap),
                arith::ConstantIndexOp::create(b, nested, padding[i]));
            Value inside = arith::AndIOp::create(
                b, nested,
                arith::CmpIOp::create(b, nested, arith::CmpIPredicate::sge,
                                      position, zero),
                arith::CmpIOp::create(b, nested, arith::CmpIPredicate::slt,
                                      position, i ? width : height));
            valid = valid ? arith::AndIOp::create(b, nested, valid, inside)
                          : inside;
            at.push_back(position);
          }
          // Read in bounds (element 0) where the position is outside.
          SmallVector<Value, 4> indices = {loops[4], loops[1]};
          for (Value position : at)
            indices.push_back(
                arith::SelectOp::create(b, nested, valid, position, zero));
          return std::make_pair(valid, loadElement(b, nested, x, indices));
        });
    return success();
  }
};

/// init[n, c, y, x] += dy[n, f, oy, ox] * w[f, c, r, s] where
/// oy * stride == y + padding - r * dilation (and likewise for x), loops
/// (n, c, y, x, f, r, s); w through the map, dy in the body.
struct LowerBackwardData : public OpRewritePattern<Conv2DBackwardDataOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(Conv2DBackwardDataOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value dy = op.getLhs();
    Value height = getDimSize(rewriter, loc, dy, 2);
    Value width = getDimSize(rewriter, loc, dy, 3);
    ArrayRef<int64_t> strides = op.getStrides(), padding = op.getPadding(),
                      dilations = op.getDilations();
    MLIRContext *context = op.getContext();
    auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
    AffineMap wMap = AffineMap::get(7, 0, {d(4), d(1), d(5), d(6)}, context);
    replaceWithGeneric(
        rewriter, op, op.getRhs(), wMap, op.getInit(),
        [&](OpBuilder &b, Location nested, ArrayRef<Value> loops) {
          Value zero = arith::ConstantIndexOp::create(b, nested, 0);
          Value valid;
          SmallVector<Value, 2> at;
          for (int i = 0; i < 2; ++i) {
            // y + padding - r * dilation, a multiple of the stride.
            Value tap = arith::MulIOp::create(
                b, nested, loops[5 + i],
                arith::ConstantIndexOp::create(b, nested, dilations[i]));
            Value shifted = arith::SubIOp::create(
                b, nested,
                arith::AddIOp::create(
                    b, nested, loops[2 + i],
                    arith::ConstantIndexOp::create(b, nested, padding[i])),
                tap);
            Value stride =
                arith::ConstantIndexOp::create(b, nested, strides[i]);
            Value position = arith::DivSIOp::create(b, nested, shifted, stride);
            Value exact = arith::CmpIOp::create(
                b, nested, arith::CmpIPredicate::eq,
                arith::RemSIOp::create(b, nested, shifted, stride), zero);
            Value inside = arith::AndIOp::create(
                b, nested,
                arith::AndIOp::create(
                    b, nested, exact,
                    arith::CmpIOp::create(b, nested, arith::CmpIPredicate::sge,
                                          shifted, zero)),
                arith::CmpIOp::create(b, nested, arith::CmpIPredicate::slt,
                                      position, i ? width : height));
            valid = valid ? arith::AndIOp::create(b, nested, valid, inside)
                          : inside;
            at.push_back(position);
          }
          SmallVector<Value, 4> indices = {loops[0], loops[4]};
          for (Value position : at)
            indices.push_back(
                arith::SelectOp::create(b, nested, valid, position, zero));
          return std::make_pair(valid, loadElement(b, nested, dy, indices));
        });
    return success();
  }
};

struct AmpConvolutionGradientsToLinalgPass
    : public amp::impl::AmpConvolutionGradientsToLinalgPassBase<
          AmpConvolutionGradientsToLinalgPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateAmpConvolutionGradientsToLinalgPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void mlir::amp::populateAmpConvolutionGradientsToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<LowerBackwardFilter, LowerBackwardData>(patterns.getContext());
}
