//===- RaiseConvolutionGradients.cpp - amp-raise-convolution-gradients ----===//
//
// Part of amp-mlir. The gradients of a 2-D convolution, which a training
// step from PyTorch writes as forward convolutions (the input gradient of a
// zero-inserted output gradient by the flipped filter; the filter gradient
// of the input by the output gradient, batch and channels swapped), become
// amp.conv2d_backward_data and amp.conv2d_backward_filter, for cuDNN's
// backward calls. Casts between the ops are moved onto the new op's
// operands or result.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPRAISECONVOLUTIONGRADIENTSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {
/// A value read through at most one cast: the value before it, and the cast
/// (arith.extf or arith.truncf on a ranked tensor; null if none).
struct Peeled {
  Value value;
  Operation *cast = nullptr;
};

/// The forward convolution's strides, padding and dilations (height, width).
struct ForwardConvolution {
  SmallVector<int64_t, 2> strides, padding, dilations;
};
} // namespace

static Peeled peelCast(Value value) {
  Operation *op = value.getDefiningOp();
  if (op && isa<arith::ExtFOp, arith::TruncFOp>(op) &&
      isa<RankedTensorType>(value.getType()))
    return {op->getOperand(0), op};
  return {value, nullptr};
}

/// `cast` (as peelCast returned it) applied to `value`, a tensor of another
/// shape; `value` itself if there is no cast.
static Value reapplyCast(OpBuilder &builder, Operation *castOp, Value value) {
  if (!castOp)
    return value;
  auto type = cast<RankedTensorType>(value.getType())
                  .clone(getElementTypeOrSelf(castOp->getResult(0).getType()));
  OperationState state(castOp->getLoc(), castOp->getName(), ValueRange{value},
                       TypeRange{type}, castOp->getAttrs());
  return builder.create(state)->getResult(0);
}

/// The source of a linalg.transpose of the batch and channel dimensions of
/// a 4-D tensor; null otherwise.
static Value getChannelTransposeSource(Value value) {
  auto transpose = value.getDefiningOp<linalg::TransposeOp>();
  if (!transpose || !transpose.hasPureTensorSemantics() ||
      transpose.getPermutation() != ArrayRef<int64_t>{1, 0, 2, 3})
    return {};
  return transpose.getInput();
}

/// The source of a tensor.pad with zeros of the two spatial dimensions only,
/// and its padding (low; `symmetric`: high must equal it); `value` itself
/// with no padding if it is not a pad.
static std::optional<std::pair<Value, SmallVector<int64_t, 2>>>
peelZeroPad(Value value, bool symmetric) {
  auto pad = value.getDefiningOp<tensor::PadOp>();
  if (!pad)
    return std::make_pair(value, SmallVector<int64_t, 2>{0, 0});
  Value padding = pad.getConstantPaddingValue();
  if (!padding || !matchPattern(padding, m_AnyZeroFloat()) ||
      pad.getSourceType().getRank() != 4 ||
      ShapedType::isDynamic(pad.getSourceType().getDimSize(2)) ||
      ShapedType::isDynamic(pad.getSourceType().getDimSize(3)))
    return std::nullopt;
  ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
  if (low.size() != 4 || low[0] != 0 || low[1] != 0 || high[0] != 0 ||
      high[1] != 0 || ShapedType::isDynamic(low[2]) ||
      ShapedType::isDynamic(low[3]) || ShapedType::isDynamic(high[2]) ||
      ShapedType::isDynamic(high[3]) ||
      (symmetric && (low[2] != high[2] || low[3] != high[3])))
    return std::nullopt;
  return std::make_pair(pad.getSource(),
                        SmallVector<int64_t, 2>{low[2], low[3]});
}

/// Whether the 4-D `type` is static but for its first dimension (the batch
/// of an image, or of the transposed image the filter gradient reads): the
/// gradients take a dynamic batch, as the forward convolution's call does.
static bool hasStaticChannelsAndImage(ShapedType type) {
  return type.getRank() == 4 &&
         llvm::none_of(type.getShape().drop_front(), ShapedType::isDynamic);
}

/// Whether two batch sizes can be the same: equal, or either dynamic (the
/// convolution that reads both then requires them equal when it runs).
static bool sameBatch(int64_t a, int64_t b) {
  return a == b || ShapedType::isDynamic(a) || ShapedType::isDynamic(b);
}

static SmallVector<int64_t, 2> getValues(DenseIntElementsAttr attr) {
  SmallVector<int64_t, 2> values;
  for (const APInt &value : attr.getValues<APInt>())
    values.push_back(value.getSExtValue());
  return values;
}

/// Whether a forward convolution with these parameters, input `in` and
/// filter `kernel` (spatial sizes) has outputs of spatial sizes `out`, with
/// every shape static: the sizes the gradient ops verify and cuDNN takes.
static bool isForwardGeometry(const ForwardConvolution &conv,
                              ArrayRef<int64_t> in, ArrayRef<int64_t> kernel,
                              ArrayRef<int64_t> out) {
  for (int i = 0; i < 2; ++i) {
    if (ShapedType::isDynamic(in[i]) || ShapedType::isDynamic(kernel[i]) ||
        ShapedType::isDynamic(out[i]) || conv.padding[i] < 0)
      return false;
    int64_t span =
        in[i] + 2 * conv.padding[i] - conv.dilations[i] * (kernel[i] - 1) - 1;
    if (span < 0 || out[i] != span / conv.strides[i] + 1)
      return false;
  }
  return true;
}

/// The filter `w` (f x c x kh x kw) that `value` is flipped in its spatial
/// dimensions with its channels swapped (c x f x kh x kw), as torch-mlir's
/// transposed convolution writes it: a linalg.generic of no inputs whose
/// body yields `tensor.extract %w[i1, i0, kh - 1 - i2, kw - 1 - i3]`, or
/// that element converted (arith.truncf/extf: a level's cast of the flip).
/// Null otherwise.
static Value getFlippedFilter(Value value) {
  auto generic = value.getDefiningOp<linalg::GenericOp>();
  if (!generic || !generic.hasPureTensorSemantics() ||
      generic.getNumDpsInputs() != 0 || generic.getNumDpsInits() != 1 ||
      generic.getNumLoops() != 4 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      !generic.getIndexingMapsArray()[0].isIdentity())
    return {};
  Block &body = generic.getRegion().front();
  Value element = body.getTerminator()->getOperand(0);
  if (auto ext = element.getDefiningOp<arith::ExtFOp>())
    element = ext.getIn();
  else if (auto trunc = element.getDefiningOp<arith::TruncFOp>())
    element = trunc.getIn();
  auto extract = element.getDefiningOp<tensor::ExtractOp>();
  if (!extract || extract->getBlock() != &body ||
      extract.getTensor().getParentBlock() == &body)
    return {};
  auto filterType = cast<RankedTensorType>(extract.getTensor().getType());
  auto flippedType = cast<RankedTensorType>(value.getType());
  if (filterType.getRank() != 4 || !filterType.hasStaticShape() ||
      filterType.getDimSize(0) != flippedType.getDimSize(1) ||
      filterType.getDimSize(1) != flippedType.getDimSize(0) ||
      filterType.getDimSize(2) != flippedType.getDimSize(2) ||
      filterType.getDimSize(3) != flippedType.getDimSize(3))
    return {};
  auto isIndex = [](Value index, int64_t dim) {
    auto op = index.getDefiningOp<linalg::IndexOp>();
    return op && static_cast<int64_t>(op.getDim()) == dim;
  };
  auto isFlipped = [&](Value index, int64_t dim) {
    // A kernel of one row or column: the index, folded, is 0.
    APInt constant;
    if (filterType.getDimSize(dim) == 1)
      return matchPattern(index, m_ConstantInt(&constant)) && constant.isZero();
    auto sub = index.getDefiningOp<arith::SubIOp>();
    return sub && isIndex(sub.getRhs(), dim) &&
           matchPattern(sub.getLhs(), m_ConstantInt(&constant)) &&
           constant.getSExtValue() == filterType.getDimSize(dim) - 1;
  };
  OperandRange indices = extract.getIndices();
  if (!isIndex(indices[0], 1) || !isIndex(indices[1], 0) ||
      !isFlipped(indices[2], 2) || !isFlipped(indices[3], 3))
    return {};
  // Nothing else in the body (its result is that element).
  for (Operation &op : body)
    if (!isa<linalg::IndexOp, arith::SubIOp, arith::ConstantOp,
             tensor::ExtractOp, arith::ExtFOp, arith::TruncFOp,
             linalg::YieldOp>(op))
      return {};
  return extract.getTensor();
}

namespace {
/// The filter gradient: transpose(cut(conv(pad(transpose(x)),
/// transpose(dy)))), with at most one cast on each operand's way and on the
/// result's, becomes amp.conv2d_backward_filter(x, dy).
struct RaiseFilterGradient : public OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp root,
                                PatternRewriter &rewriter) const override {
    if (!root.hasPureTensorSemantics() ||
        root.getPermutation() != ArrayRef<int64_t>{1, 0, 2, 3})
      return failure();
    // The result's way: a cast and a cut to the kernel's size (one slice
    // per dimension, as PyTorch's narrow), in either order, both optional.
    Peeled result = peelCast(root.getInput());
    Value value = result.value;
    while (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>()) {
      if (!slice.hasUnitStride() || !slice.hasZeroOffset() ||
          slice.getSourceType().getRank() != 4 ||
          slice.getType().getRank() != 4 ||
          slice.getSourceType().getDimSize(0) !=
              slice.getType().getDimSize(0) ||
          slice.getSourceType().getDimSize(1) !=
              slice.getType().getDimSize(1) ||
          !value.hasOneUse())
        return rewriter.notifyMatchFailure(root, "not a cut to the kernel");
      value = slice.getSource();
    }
    if (!result.cast) {
      result = peelCast(value);
      value = result.value;
    }
    auto conv = value.getDefiningOp<linalg::Conv2DNchwFchwOp>();
    if (!conv || !conv.hasPureTensorSemantics() || !value.hasOneUse() ||
        !isZeroFill(conv.getOutputs()[0]))
      return rewriter.notifyMatchFailure(root, "not a zero-filled convolution");
    // The operands: x (padded after the transpose, cast before or after
    // the pad: zeros convert to zeros) and dy.
    Peeled outer = peelCast(conv.getInputs()[0]);
    std::optional<std::pair<Value, SmallVector<int64_t, 2>>> padded =
        peelZeroPad(outer.value, /*symmetric=*/true);
    if (!padded)
      return rewriter.notifyMatchFailure(root, "not a symmetric zero pad");
    Peeled xPeeled = peelCast(padded->first);
    if (outer.cast && xPeeled.cast)
      return rewriter.notifyMatchFailure(root, "two casts of the input");
    if (outer.cast)
      xPeeled.cast = outer.cast;
    Peeled dyPeeled = peelCast(conv.getInputs()[1]);
    Value x = getChannelTransposeSource(xPeeled.value);
    Value dy = getChannelTransposeSource(dyPeeled.value);
    if (!x || !dy)
      return rewriter.notifyMatchFailure(root, "operands not transposed");
    // Its stride is the forward dilation, its dilation the forward stride.
    ForwardConvolution forward;
    forward.strides = getValues(conv.getDilations());
    forward.dilations = getValues(conv.getStrides());
    forward.padding = padded->second;
    auto xType = cast<RankedTensorType>(x.getType());
    auto dyType = cast<RankedTensorType>(dy.getType());
    auto dwType = cast<RankedTensorType>(root.getResult()[0].getType());
    if (!hasStaticChannelsAndImage(xType) ||
        !hasStaticChannelsAndImage(dyType) ||
        !sameBatch(xType.getDimSize(0), dyType.getDimSize(0)) ||
        !isForwardGeometry(forward, xType.getShape().drop_front(2),
                           dwType.getShape().drop_front(2),
                           dyType.getShape().drop_front(2)))
      return rewriter.notifyMatchFailure(root, "not a forward geometry");

    Location loc = root.getLoc();
    Type accumulator = conv.getResultTypes()[0];
    auto initType = dwType.clone(getElementTypeOrSelf(accumulator));
    Value zero = arith::ConstantOp::create(
        rewriter, loc, rewriter.getZeroAttr(initType.getElementType()));
    Value empty = tensor::EmptyOp::create(rewriter, loc, initType.getShape(),
                                          initType.getElementType());
    Value init =
        linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
    auto gradient = Conv2DBackwardFilterOp::create(
        rewriter, loc, TypeRange{initType},
        reapplyCast(rewriter, xPeeled.cast, x),
        reapplyCast(rewriter, dyPeeled.cast, dy), init,
        rewriter.getDenseI64ArrayAttr(forward.strides),
        rewriter.getDenseI64ArrayAttr(forward.padding),
        rewriter.getDenseI64ArrayAttr(forward.dilations));
    rewriter.replaceOp(
        root, reapplyCast(rewriter, result.cast, gradient.getResult().front()));
    return success();
  }
};

/// The input gradient: a convolution of stride 1 of dy with zeros inserted
/// and padded by the flipped filter (with at most one cast on its way)
/// becomes amp.conv2d_backward_data(dy, w).
struct RaiseDataGradient : public OpRewritePattern<linalg::Conv2DNchwFchwOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::Conv2DNchwFchwOp conv,
                                PatternRewriter &rewriter) const override {
    if (!conv.hasPureTensorSemantics() ||
        getValues(conv.getStrides()) != SmallVector<int64_t, 2>{1, 1})
      return failure();
    Peeled filter = peelCast(conv.getInputs()[1]);
    Value w = getFlippedFilter(filter.value);
    if (!w)
      return rewriter.notifyMatchFailure(conv, "not a flipped filter");
    Type wElement = getElementTypeOrSelf(w.getType()),
         flippedElement = getElementTypeOrSelf(filter.value.getType());
    if (wElement != flippedElement &&
        wElement.getIntOrFloatBitWidth() ==
            flippedElement.getIntOrFloatBitWidth())
      return rewriter.notifyMatchFailure(conv, "a flip between 16-bit types");
    // dy: inserted with the forward stride at (low) into zeros, or padded.
    Value input = conv.getInputs()[0], dy;
    SmallVector<int64_t, 2> strides = {1, 1}, low;
    if (auto insert = input.getDefiningOp<tensor::InsertSliceOp>()) {
      ArrayRef<int64_t> offsets = insert.getStaticOffsets(),
                        steps = insert.getStaticStrides();
      if (!isZeroFill(insert.getDest()) ||
          insert.getSourceType().getRank() != 4 ||
          llvm::any_of(offsets, ShapedType::isDynamic) ||
          llvm::any_of(steps, ShapedType::isDynamic) || offsets[0] != 0 ||
          offsets[1] != 0 || steps[0] != 1 || steps[1] != 1 ||
          insert.getSourceType().getShape() != insert.getStaticSizes())
        return rewriter.notifyMatchFailure(conv, "not a zero insertion");
      dy = insert.getSource();
      strides = {steps[2], steps[3]};
      low = {offsets[2], offsets[3]};
    } else {
      std::optional<std::pair<Value, SmallVector<int64_t, 2>>> padded =
          peelZeroPad(input, /*symmetric=*/false);
      if (!padded)
        return rewriter.notifyMatchFailure(conv, "not a zero pad");
      std::tie(dy, low) = *padded;
    }
    auto dyType = cast<RankedTensorType>(dy.getType());
    auto wType = cast<RankedTensorType>(w.getType());
    auto dxType = cast<RankedTensorType>(conv.getResultTypes()[0]);
    if (!hasStaticChannelsAndImage(dyType) ||
        !hasStaticChannelsAndImage(dxType) ||
        !sameBatch(dyType.getDimSize(0), dxType.getDimSize(0)) ||
        dyType.getDimSize(1) != wType.getDimSize(0))
      return rewriter.notifyMatchFailure(conv, "not the output gradient");
    // The padding of the forward convolution: the transposed one pads
    // dilation * (k - 1) - padding zeros before the first row.
    ForwardConvolution forward;
    forward.strides = strides;
    forward.dilations = getValues(conv.getDilations());
    for (int i = 0; i < 2; ++i)
      forward.padding.push_back(
          forward.dilations[i] * (wType.getDimSize(2 + i) - 1) - low[i]);
    if (!isForwardGeometry(forward, dxType.getShape().drop_front(2),
                           wType.getShape().drop_front(2),
                           dyType.getShape().drop_front(2)))
      return rewriter.notifyMatchFailure(conv, "not a forward geometry");

    // The flip's own conversion, then the cast after it, on the filter.
    if (wElement != flippedElement) {
      auto converted = wType.clone(flippedElement);
      w = flippedElement.getIntOrFloatBitWidth() <
                  wType.getElementType().getIntOrFloatBitWidth()
              ? arith::TruncFOp::create(rewriter, conv.getLoc(), converted, w)
                    .getResult()
              : arith::ExtFOp::create(rewriter, conv.getLoc(), converted, w)
                    .getResult();
    }
    rewriter.replaceOpWithNewOp<Conv2DBackwardDataOp>(
        conv, TypeRange{dxType}, dy, reapplyCast(rewriter, filter.cast, w),
        conv.getOutputs()[0], rewriter.getDenseI64ArrayAttr(forward.strides),
        rewriter.getDenseI64ArrayAttr(forward.padding),
        rewriter.getDenseI64ArrayAttr(forward.dilations));
    return success();
  }
};

struct AmpRaiseConvolutionGradientsPass
    : public amp::impl::AmpRaiseConvolutionGradientsPassBase<
          AmpRaiseConvolutionGradientsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RaiseFilterGradient, RaiseDataGradient>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
