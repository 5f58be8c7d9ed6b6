//===- ConvolutionGradientsToLinalg.cpp - conv gradients as loops ---------===//
//
// Part of amp-mlir. amp.conv2d_backward_data and amp.conv2d_backward_filter
// as one linalg.generic each, on tensors or buffers: the destination's four
// dimensions parallel, the three summed over reductions. The operand read
// at a shifted position (the input for the filter gradient, the output
// gradient for the input gradient) is read in the body, and counts 0 where
// the position falls outside it. Operands with their channels last
// (`channels_last`) are read and written through the same loops, their
// dimensions permuted.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/ConvolutionGradientsToLinalg/ConvolutionGradientsToLinalg.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
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

/// Where the body reads the shifted operand along its spatial dimension `i`
/// (0: height, 1: width), from the loop indices: the position, and whether
/// it counts apart from being below the operand's size.
using PositionFn = llvm::function_ref<std::pair<Value, Value>(
    OpBuilder &, Location, ArrayRef<Value>, int)>;

/// `nchw` (four values in the order n, c, h, w) in the operands' storage
/// order: as given, or with the channels last.
template <typename T>
static SmallVector<T> inLayout(ArrayRef<T> nchw, bool channelsLast) {
  static constexpr int64_t kToLast[] = {0, 2, 3, 1};
  return channelsLast ? applyPermutation(nchw, kToLast) : SmallVector<T>(nchw);
}

/// Replaces the gradient `op` by its generic: loops (the destination's four
/// dimensions, parallel; three reductions), `read` through the map of the
/// loops `readDims`, `shifted` read in the body at (loops[leading[0]],
/// loops[leading[1]], `position`'s two positions) where both count, and
/// `init += read * shifted` there, in the destination's type. Dimensions
/// are named in the order n, c, h, w; `channelsLast` stores each operand
/// as n, h, w, c.
static void lowerGradient(RewriterBase &rewriter, Operation *op, Value read,
                          ArrayRef<unsigned> readDims, Value shifted,
                          ArrayRef<unsigned> leading, Value init,
                          bool channelsLast, PositionFn position) {
  MLIRContext *context = op->getContext();
  Location loc = op->getLoc();
  int64_t spatial = channelsLast ? 1 : 2;
  Value sizes[2] = {getDimSize(rewriter, loc, shifted, spatial),
                    getDimSize(rewriter, loc, shifted, spatial + 1)};
  SmallVector<AffineExpr, 4> readExprs, initExprs;
  for (unsigned dim : readDims)
    readExprs.push_back(getAffineDimExpr(dim, context));
  for (unsigned dim = 0; dim < 4; ++dim)
    initExprs.push_back(getAffineDimExpr(dim, context));
  AffineMap readMap = AffineMap::get(
      7, 0, inLayout<AffineExpr>(readExprs, channelsLast), context);
  AffineMap initMap = AffineMap::get(
      7, 0, inLayout<AffineExpr>(initExprs, channelsLast), context);
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  iterators.append(3, utils::IteratorType::reduction);
  SmallVector<Type, 1> results;
  if (isa<TensorType>(init.getType()))
    results.push_back(init.getType());
  auto generic = linalg::GenericOp::create(
      rewriter, loc, results, ValueRange{read}, ValueRange{init},
      ArrayRef<AffineMap>{readMap, initMap}, iterators,
      [&](OpBuilder &b, Location nested, ValueRange args) {
        SmallVector<Value, 7> loops;
        for (unsigned i = 0; i < 7; ++i)
          loops.push_back(linalg::IndexOp::create(b, nested, i));
        Value zero = arith::ConstantIndexOp::create(b, nested, 0);
        Value valid;
        Value at[2];
        for (int i = 0; i < 2; ++i) {
          auto [at_i, counts] = position(b, nested, loops, i);
          Value inside = arith::AndIOp::create(
              b, nested, counts,
              arith::CmpIOp::create(b, nested, arith::CmpIPredicate::slt, at_i,
                                    sizes[i]));
          valid =
              valid ? arith::AndIOp::create(b, nested, valid, inside) : inside;
          at[i] = at_i;
        }
        // Read in bounds (element 0) where the position is outside.
        SmallVector<Value, 4> indices = {loops[leading[0]], loops[leading[1]]};
        for (Value where : at)
          indices.push_back(
              arith::SelectOp::create(b, nested, valid, where, zero));
        Value element = loadElement(b, nested, shifted,
                                    inLayout<Value>(indices, channelsLast));
        Type type = args[1].getType();
        Value product = arith::MulFOp::create(
            b, nested, widenOrNarrow(b, nested, args[0], type),
            widenOrNarrow(b, nested, element, type));
        Value taken = arith::SelectOp::create(
            b, nested, valid, product,
            arith::ConstantOp::create(b, nested, b.getZeroAttr(type)));
        linalg::YieldOp::create(
            b, nested, Value(arith::AddFOp::create(b, nested, args[1], taken)));
      });
  rewriter.replaceOp(op, generic->getResults());
}

static Value createIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

namespace {
/// init[f, c, r, s] += x[n, c, oy * s - p + r * d, ...] * dy[n, f, oy, ox],
/// loops (f, c, r, s, n, oy, ox); dy through the map, x in the body where
/// the position is in x.
struct LowerBackwardFilter : public OpRewritePattern<Conv2DBackwardFilterOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(Conv2DBackwardFilterOp op,
                                PatternRewriter &rewriter) const override {
    ArrayRef<int64_t> strides = op.getStrides(), padding = op.getPadding(),
                      dilations = op.getDilations();
    lowerGradient(
        rewriter, op, op.getRhs(), {4, 0, 5, 6}, op.getLhs(), {4, 1},
        op.getInit(), op.getChannelsLast(),
        [&](OpBuilder &b, Location loc, ArrayRef<Value> loops, int i) {
          // oy * stride + r * dilation - padding, from 0.
          Value at = arith::SubIOp::create(
              b, loc,
              arith::AddIOp::create(
                  b, loc,
                  arith::MulIOp::create(b, loc, loops[5 + i],
                                        createIndex(b, loc, strides[i])),
                  arith::MulIOp::create(b, loc, loops[2 + i],
                                        createIndex(b, loc, dilations[i]))),
              createIndex(b, loc, padding[i]));
          Value counts = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::sge, at, createIndex(b, loc, 0));
          return std::make_pair(at, counts);
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
    ArrayRef<int64_t> strides = op.getStrides(), padding = op.getPadding(),
                      dilations = op.getDilations();
    lowerGradient(
        rewriter, op, op.getRhs(), {4, 1, 5, 6}, op.getLhs(), {0, 4},
        op.getInit(), op.getChannelsLast(),
        [&](OpBuilder &b, Location loc, ArrayRef<Value> loops, int i) {
          // y + padding - r * dilation, a multiple of the stride from 0.
          Value shifted = arith::SubIOp::create(
              b, loc,
              arith::AddIOp::create(b, loc, loops[2 + i],
                                    createIndex(b, loc, padding[i])),
              arith::MulIOp::create(b, loc, loops[5 + i],
                                    createIndex(b, loc, dilations[i])));
          Value stride = createIndex(b, loc, strides[i]);
          Value zero = createIndex(b, loc, 0);
          Value exact = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::eq,
              arith::RemSIOp::create(b, loc, shifted, stride), zero);
          Value counts = arith::AndIOp::create(
              b, loc, exact,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, shifted,
                                    zero));
          return std::make_pair(
              Value(arith::DivSIOp::create(b, loc, shifted, stride)), counts);
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
