//===- ChannelsLast.cpp - the amp-channels-last pass ----------------------===//
//
// Part of amp-mlir. 2-D convolutions, their gradients and pooling in NHWC
// (filters KRSC, cuDNN's), and the transposes this needs moved through the
// work between them until they cancel (Passes.td says how).
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/OptimizerRules.h"
#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPCHANNELSLASTPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

/// NCHW to NHWC, and back (linalg.transpose's permutations: result
/// dimension i is input dimension permutation[i]).
static constexpr int64_t kToLast[] = {0, 2, 3, 1};
static constexpr int64_t kToFirst[] = {0, 3, 1, 2};

/// `map` (an operand's NCHW indices) with its results in NHWC order.
static AffineMap toLastMap(AffineMap map) {
  return AffineMap::get(map.getNumDims(), map.getNumSymbols(),
                        applyPermutation(map.getResults(), kToLast),
                        map.getContext());
}

/// `value`, a 4-D tensor, transposed by `permutation`.
static Value transpose(OpBuilder &b, Location loc, Value value,
                       ArrayRef<int64_t> permutation) {
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, value);
  SmallVector<OpFoldResult> permuted;
  for (int64_t dim : permutation)
    permuted.push_back(sizes[dim]);
  Value empty = tensor::EmptyOp::create(b, loc, permuted,
                                        getElementTypeOrSelf(value.getType()));
  return linalg::TransposeOp::create(b, loc, value, empty, permutation)
      ->getResult(0);
}

/// The input of `value`'s linalg.transpose by `permutation` (on tensors);
/// null if it is not one.
static Value getTransposeSource(Value value, ArrayRef<int64_t> permutation) {
  auto op = value.getDefiningOp<linalg::TransposeOp>();
  if (!op || !op.hasPureTensorSemantics() || op.getPermutation() != permutation)
    return {};
  return op.getInput();
}

/// Marks a generic whose results this pass put in NHWC (while it runs):
/// its elementwise results are not NCHW any more.
static constexpr StringLiteral kWritesChannelsLast = "amp.channels_last";

/// True if `op`'s init `init` is written at the loops' own indices: a 4-D
/// elementwise result over exactly four loops, in NCHW (not yet moved).
static bool isElementwiseResult(linalg::GenericOp op, OpOperand &init) {
  return !op->hasAttr(kWritesChannelsLast) && op.getNumLoops() == 4 &&
         op.getMatchingIndexingMap(&init).isIdentity() &&
         cast<ShapedType>(init.get().getType()).getRank() == 4;
}

/// True if `user` is the only op that reads `value` but for tensor.dim
/// (which the transposes here make of dynamic sizes).
static bool isOnlyReader(Value value, Operation *user) {
  return llvm::all_of(value.getUsers(), [&](Operation *other) {
    return other == user || isa<tensor::DimOp>(other);
  });
}

/// Rebuilds the generic `op` reading `sources[i]` (where set: the NHWC
/// tensor that input i is the NCHW transpose of) and writing its inits
/// marked in `last` in NHWC; the maps read each such operand's NCHW indices
/// in NHWC order. A generic with an NHWC result then runs its loops in the
/// order n, h, w, c, so that its stores are contiguous. The NHWC results
/// are transposed back for the users, where the patterns meet them.
static void rewriteGeneric(PatternRewriter &rewriter, linalg::GenericOp op,
                           ArrayRef<Value> sources, ArrayRef<bool> last) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<Value> inputs, inits;
  SmallVector<Type> resultTypes;
  unsigned numInputs = op.getNumDpsInputs();
  for (auto [i, input] : llvm::enumerate(op.getDpsInputs())) {
    inputs.push_back(sources[i] ? sources[i] : input);
    if (sources[i])
      maps[i] = toLastMap(maps[i]);
  }
  for (auto [j, init] : llvm::enumerate(op.getDpsInits())) {
    Value value = init;
    if (last[j]) {
      value = transpose(rewriter, loc, init, kToLast);
      maps[numInputs + j] = toLastMap(maps[numInputs + j]);
    }
    inits.push_back(value);
    resultTypes.push_back(value.getType());
  }
  auto generic =
      linalg::GenericOp::create(rewriter, loc, resultTypes, inputs, inits, maps,
                                op.getIteratorTypesArray());
  generic->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  rewriter.inlineRegionBefore(op.getRegion(), generic.getRegion(),
                              generic.getRegion().end());
  if (llvm::is_contained(last, true)) {
    generic->setAttr(kWritesChannelsLast, rewriter.getUnitAttr());
    (void)linalg::interchangeGenericOp(rewriter, generic, {0, 2, 3, 1});
  }
  SmallVector<Value> results;
  for (auto [j, result] : llvm::enumerate(generic->getResults()))
    results.push_back(last[j] ? transpose(rewriter, loc, result, kToFirst)
                              : Value(result));
  rewriter.replaceOp(op, results);
}

namespace {
/// A 2-D convolution or pooling in NCHW as its NHWC form (`To`), its input,
/// filter (`transposeFilter`: FCHW to FHWC; pooling's window is only a
/// shape) and destination transposed, its result transposed back.
template <typename From, typename To, bool transposeFilter>
struct NamedToChannelsLast : public OpRewritePattern<From> {
  using OpRewritePattern<From>::OpRewritePattern;

  LogicalResult matchAndRewrite(From op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    Location loc = op.getLoc();
    Value input = transpose(rewriter, loc, op.getDpsInputs()[0], kToLast);
    Value filter = op.getDpsInputs()[1];
    if (transposeFilter)
      filter = transpose(rewriter, loc, filter, kToLast);
    Value init = transpose(rewriter, loc, op.getDpsInits()[0], kToLast);
    SmallVector<NamedAttribute> attributes;
    for (StringRef name : {"strides", "dilations"})
      if (Attribute attribute = op->getAttr(name))
        attributes.emplace_back(rewriter.getStringAttr(name), attribute);
    auto named =
        To::create(rewriter, loc, TypeRange{init.getType()},
                   ValueRange{input, filter}, ValueRange{init}, attributes);
    rewriter.replaceOp(op,
                       transpose(rewriter, loc, named->getResult(0), kToFirst));
    return success();
  }
};

/// A convolution gradient (amp.conv2d_backward_data or _filter) on NCHW
/// tensors as the same op with `channels_last`.
template <typename OpTy>
struct GradientToChannelsLast : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (op.getChannelsLast() || op->getNumResults() != 1)
      return failure();
    Location loc = op.getLoc();
    Value lhs = transpose(rewriter, loc, op.getLhs(), kToLast);
    Value rhs = transpose(rewriter, loc, op.getRhs(), kToLast);
    Value init = transpose(rewriter, loc, op.getInit(), kToLast);
    auto gradient =
        OpTy::create(rewriter, loc, TypeRange{init.getType()}, lhs, rhs, init,
                     op.getStridesAttr(), op.getPaddingAttr(),
                     op.getDilationsAttr(), rewriter.getUnitAttr());
    rewriter.replaceOp(
        op, transpose(rewriter, loc, gradient->getResult(0), kToFirst));
    return success();
  }
};

/// A generic that reads an NCHW transpose of an NHWC tensor reads the
/// NHWC tensor through its map; its 4-D elementwise results are written in
/// NHWC (rewriteGeneric) where it reads at least as many whole 4-D tensors
/// in NHWC as in NCHW, its destinations included where the body reads them
/// (an optimizer's update of a filter from its gradient in KRSC reads the
/// filter and its momentum in FCHW, and writes FCHW, the function's
/// results).
struct GenericReadsChannelsLast : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    SmallVector<Value> sources;
    int64_t last = 0, first = 0;
    for (OpOperand *input : op.getDpsInputOperands()) {
      sources.push_back(getTransposeSource(input->get(), kToFirst));
      auto type = dyn_cast<ShapedType>(input->get().getType());
      if (sources.back())
        ++last;
      else if (type && type.getRank() == 4 &&
               op.getMatchingIndexingMap(input).isPermutation())
        ++first;
    }
    if (last == 0)
      return failure();
    // A destination the body reads (an accumulator, a momentum updated in
    // place) is read in NCHW too.
    for (OpOperand &init : op.getDpsInitsMutable())
      if (op.payloadUsesValueFromOperand(&init) &&
          cast<ShapedType>(init.get().getType()).getRank() == 4 &&
          op.getMatchingIndexingMap(&init).isPermutation())
        ++first;
    SmallVector<bool> toLast;
    for (OpOperand &init : op.getDpsInitsMutable())
      toLast.push_back(last >= first && isElementwiseResult(op, init));
    rewriteGeneric(rewriter, op, sources, toLast);
    return success();
  }
};

/// The unscale of gradients is elementwise per gradient: an NCHW transpose
/// of an NHWC gradient (a filter's, from its backward call) is unscaled in
/// NHWC and transposed after.
struct UnscaleChannelsLast : public OpRewritePattern<UnscaleGradientsOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(UnscaleGradientsOp op,
                                PatternRewriter &rewriter) const override {
    if (op->getNumResults() == 0)
      return failure();
    Location loc = op.getLoc();
    SmallVector<Value> gradients, inits(op.getInits());
    SmallVector<bool> moved;
    for (auto [i, gradient] : llvm::enumerate(op.getGradients())) {
      Value source = getTransposeSource(gradient, kToFirst);
      moved.push_back(bool(source));
      gradients.push_back(source ? source : gradient);
      if (source)
        inits[i] = transpose(rewriter, loc, inits[i], kToLast);
    }
    if (!llvm::is_contained(moved, true))
      return failure();
    SmallVector<Type> types;
    for (Value init : inits)
      types.push_back(init.getType());
    auto unscale = UnscaleGradientsOp::create(rewriter, loc, types, gradients,
                                              op.getInverse(), inits);
    SmallVector<Value> results;
    for (auto [i, result] : llvm::enumerate(unscale->getResults()))
      results.push_back(i < moved.size() && moved[i]
                            ? transpose(rewriter, loc, result, kToFirst)
                            : Value(result));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// The optimizer's update of a parameter whose gradient is an NCHW
/// transpose of an NHWC one (a filter's, from its backward call): the
/// parameter and its state stay in the step's NCHW layout, so its update
/// leaves the multi-tensor op as its own generic, whose map then reads the
/// NHWC gradient (GenericReadsChannelsLast). The other parameters stay in
/// the op.
struct OptimizerUpdateChannelsLast
    : public OpRewritePattern<OptimizerUpdateOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(OptimizerUpdateOp op,
                                PatternRewriter &rewriter) const override {
    if (op.hasPureBufferSemantics())
      return failure();
    unsigned numParams = op.getGradients().size();
    unsigned numStates = OptimizerUpdateOp::getNumStates(op.getKind());
    SmallVector<unsigned> kept;
    SmallVector<Value> results(op->getNumResults());
    for (unsigned i = 0; i < numParams; ++i) {
      if (!getTransposeSource(op.getGradients()[i], kToFirst)) {
        kept.push_back(i);
        continue;
      }
      linalg::GenericOp generic = buildOptimizerUpdateGeneric(rewriter, op, i);
      for (unsigned s = 0; s <= numStates; ++s)
        results[s * numParams + i] = generic.getResult(s);
    }
    if (kept.size() == numParams)
      return failure();
    if (!kept.empty()) {
      SmallVector<Value> gradients, current, inits;
      for (unsigned i : kept)
        gradients.push_back(op.getGradients()[i]);
      for (unsigned s = 0; s <= numStates; ++s)
        for (unsigned i : kept) {
          current.push_back(op.getCurrent()[s * numParams + i]);
          inits.push_back(op.getInits()[s * numParams + i]);
        }
      auto rest = OptimizerUpdateOp::create(
          rewriter, op.getLoc(), TypeRange(ValueRange(inits)), op.getKindAttr(),
          gradients, op.getStep(), op.getSkip(), current, inits, op.getLrAttr(),
          op.getWeightDecayAttr(), op.getMomentumAttr(), op.getDampeningAttr(),
          op.getNesterovAttr(), op.getBeta1Attr(), op.getBeta2Attr(),
          op.getEpsAttr());
      for (unsigned s = 0; s <= numStates; ++s)
        for (auto [k, i] : llvm::enumerate(kept))
          results[s * numParams + i] = rest.getResult(s * kept.size() + k);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// A generic's elementwise result that is only read through NHWC
/// transposes: the generic writes it in NHWC.
struct GenericWritesChannelsLast
    : public OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  static bool isToLast(Operation *op) {
    auto transpose = dyn_cast<linalg::TransposeOp>(op);
    return transpose && transpose.hasPureTensorSemantics() &&
           transpose.getPermutation() == ArrayRef<int64_t>(kToLast);
  }

  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (!isToLast(op))
      return failure();
    auto result = dyn_cast<OpResult>(op.getInput());
    auto generic =
        result ? dyn_cast<linalg::GenericOp>(result.getOwner()) : nullptr;
    if (!generic || !generic.hasPureTensorSemantics() ||
        !isElementwiseResult(
            generic, *generic.getDpsInitOperand(result.getResultNumber())) ||
        !llvm::all_of(result.getUsers(), [](Operation *user) {
          return isToLast(user) || isa<tensor::DimOp>(user);
        }))
      return failure();
    SmallVector<Value> sources(generic.getNumDpsInputs());
    SmallVector<bool> last(generic.getNumDpsInits(), false);
    last[result.getResultNumber()] = true;
    // The transposes now read the NCHW transpose of the NHWC result: they
    // compose away.
    rewriteGeneric(rewriter, generic, sources, last);
    return success();
  }
};

/// tensor.pad with a constant of `padded` (a 4-D tensor) in NHWC: its
/// padding permuted.
static Value padLast(OpBuilder &b, tensor::PadOp pad, Value padded) {
  return tensor::PadOp::create(b, pad.getLoc(), Type(), padded,
                               applyPermutation(pad.getMixedLowPad(), kToLast),
                               applyPermutation(pad.getMixedHighPad(), kToLast),
                               pad.getConstantPaddingValue(), pad.getNofold());
}

/// An NHWC transpose of a pad (read only by it) is the pad of the
/// transpose; a pad of an NCHW transpose is the transpose of the pad.
struct PadToChannelsLast : public OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() ||
        op.getPermutation() != ArrayRef<int64_t>(kToLast))
      return failure();
    auto pad = op.getInput().getDefiningOp<tensor::PadOp>();
    if (!pad || !isOnlyReader(pad.getResult(), op) ||
        !pad.getConstantPaddingValue() || pad.getSourceType().getRank() != 4)
      return failure();
    Value padded =
        padLast(rewriter, pad,
                transpose(rewriter, op.getLoc(), pad.getSource(), kToLast));
    // The sizes of the NCHW pad, read from the NHWC one: the pad goes.
    for (Operation *user : llvm::make_early_inc_range(pad->getUsers())) {
      auto dim = dyn_cast<tensor::DimOp>(user);
      std::optional<int64_t> index =
          dim ? dim.getConstantIndex() : std::nullopt;
      if (!index)
        continue;
      rewriter.setInsertionPoint(dim);
      rewriter.replaceOpWithNewOp<tensor::DimOp>(dim, padded, kToFirst[*index]);
    }
    rewriter.replaceOp(op, padded);
    return success();
  }
};

struct PadOfChannelsFirst : public OpRewritePattern<tensor::PadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::PadOp op,
                                PatternRewriter &rewriter) const override {
    Value source = getTransposeSource(op.getSource(), kToFirst);
    if (!source || !op.getConstantPaddingValue())
      return failure();
    rewriter.replaceOp(op, transpose(rewriter, op.getLoc(),
                                     padLast(rewriter, op, source), kToFirst));
    return success();
  }
};

/// Two transposes in a row are one (none if they cancel).
struct ComposeTransposes : public OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto first = op.getInput().getDefiningOp<linalg::TransposeOp>();
    if (!op.hasPureTensorSemantics() || !first ||
        !first.hasPureTensorSemantics())
      return failure();
    ArrayRef<int64_t> inner = first.getPermutation(),
                      outer = op.getPermutation();
    SmallVector<int64_t> composed;
    for (int64_t dim : outer)
      composed.push_back(inner[dim]);
    if (llvm::equal(composed, llvm::seq<int64_t>(0, composed.size()))) {
      rewriter.replaceOp(op, first.getInput());
      return success();
    }
    rewriter.replaceOp(
        op, transpose(rewriter, op.getLoc(), first.getInput(), composed));
    return success();
  }
};

/// A transpose of tensor.empty is an empty tensor of the transposed shape;
/// of a linalg.fill, the fill of the transposed destination.
struct TransposeOfEmptyOrFill : public OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    Location loc = op.getLoc();
    Value input = op.getInput();
    if (auto empty = input.getDefiningOp<tensor::EmptyOp>()) {
      SmallVector<OpFoldResult> sizes = empty.getMixedSizes(), permuted;
      for (int64_t dim : op.getPermutation())
        permuted.push_back(sizes[dim]);
      rewriter.replaceOpWithNewOp<tensor::EmptyOp>(
          op, permuted, empty.getType().getElementType());
      return success();
    }
    auto fill = input.getDefiningOp<linalg::FillOp>();
    if (!fill || !fill.hasPureTensorSemantics())
      return failure();
    Value init =
        transpose(rewriter, loc, fill.getDpsInits()[0], op.getPermutation());
    rewriter.replaceOp(
        op, linalg::FillOp::create(rewriter, loc, fill.getDpsInputs()[0], init)
                ->getResult(0));
    return success();
  }
};

/// A size of a transpose is its input's size; an element of a transpose
/// (read in a generic's body: max pooling's window) is its input's element
/// at the permuted indices.
struct DimOfTranspose : public OpRewritePattern<tensor::DimOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::DimOp op,
                                PatternRewriter &rewriter) const override {
    auto transpose = op.getSource().getDefiningOp<linalg::TransposeOp>();
    std::optional<int64_t> index = op.getConstantIndex();
    if (!transpose || !transpose.hasPureTensorSemantics() || !index)
      return failure();
    rewriter.replaceOpWithNewOp<tensor::DimOp>(
        op, transpose.getInput(), transpose.getPermutation()[*index]);
    return success();
  }
};

struct ExtractOfTranspose : public OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractOp op,
                                PatternRewriter &rewriter) const override {
    auto transpose = op.getTensor().getDefiningOp<linalg::TransposeOp>();
    if (!transpose || !transpose.hasPureTensorSemantics())
      return failure();
    // Result index k is input index permutation[k].
    ArrayRef<int64_t> permutation = transpose.getPermutation();
    SmallVector<Value> indices(op.getIndices().size());
    for (auto [k, index] : llvm::enumerate(op.getIndices()))
      indices[permutation[k]] = index;
    rewriter.replaceOpWithNewOp<tensor::ExtractOp>(op, transpose.getInput(),
                                                   indices);
    return success();
  }
};

/// A concatenation of 4-D tensors one of which is an NCHW transpose of an
/// NHWC tensor (max pooling's gradient) concatenates in NHWC: the others
/// transposed to NHWC (which moves on to their producers), the dimension
/// where it now is, the result transposed back.
struct ConcatToChannelsLast : public OpRewritePattern<tensor::ConcatOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ConcatOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getResultType().getRank() != 4 ||
        llvm::none_of(op.getInputs(), [](Value input) {
          return bool(getTransposeSource(input, kToFirst));
        }))
      return failure();
    Location loc = op.getLoc();
    SmallVector<Value> inputs;
    for (Value input : op.getInputs()) {
      Value source = getTransposeSource(input, kToFirst);
      inputs.push_back(source ? source
                              : transpose(rewriter, loc, input, kToLast));
    }
    // NCHW dimension d is NHWC dimension kToFirst[d].
    auto concat =
        tensor::ConcatOp::create(rewriter, loc, kToFirst[op.getDim()], inputs);
    rewriter.replaceOp(op, transpose(rewriter, loc, concat, kToFirst));
    return success();
  }
};

/// `value` (4-D) with `extra` zeros after its last dimension's elements.
static Value padChannels(OpBuilder &b, Location loc, Value value,
                         int64_t extra) {
  SmallVector<OpFoldResult> low(4, b.getIndexAttr(0)), high = low;
  high[3] = b.getIndexAttr(extra);
  Value zero = arith::ConstantOp::create(
      b, loc, b.getZeroAttr(getElementTypeOrSelf(value.getType())));
  return tensor::PadOp::create(b, loc, Type(), value, low, high, zero);
}

/// `value` (4-D) cut to its first `channels` elements of the last
/// dimension.
static Value cutChannels(OpBuilder &b, Location loc, Value value,
                         int64_t channels) {
  SmallVector<OpFoldResult> offsets(4, b.getIndexAttr(0)),
      sizes = tensor::getMixedSizes(b, loc, value),
      strides(4, b.getIndexAttr(1));
  sizes[3] = b.getIndexAttr(channels);
  Value cut =
      tensor::ExtractSliceOp::create(b, loc, value, offsets, sizes, strides);
  // Copied: the cut is a strided view, which the library calls that read a
  // gradient (the unscale) do not take.
  Value empty = tensor::EmptyOp::create(b, loc, sizes,
                                        getElementTypeOrSelf(value.getType()));
  return linalg::CopyOp::create(b, loc, cut, empty)->getResult(0);
}

/// The zeros to append to `channels` (static) for a multiple of
/// `multiple`; 0 if none are needed or the channels are dynamic.
static int64_t getChannelPadding(int64_t channels, int64_t multiple) {
  if (multiple <= 0 || ShapedType::isDynamic(channels) ||
      channels % multiple == 0)
    return 0;
  return llvm::alignTo(channels, multiple) - channels;
}

static bool isSixteenBit(Value value) {
  Type type = getElementTypeOrSelf(value.getType());
  return type.isF16() || type.isBF16();
}

static void remarkChannelPadding(Operation *op, int64_t channels,
                                 int64_t extra) {
  op->emitRemark() << "amp: input channels padded with zeros from " << channels
                   << " to " << channels + extra
                   << " (exact) for cuDNN's Tensor Core kernels";
}

/// A 16-bit NHWC convolution whose input channels are not a multiple of
/// `multiple`: its input and filter padded with zeros to one. Zeros meet
/// zeros only: the result is the same.
struct PadConvolutionChannels
    : public OpRewritePattern<linalg::Conv2DNhwcFhwcOp> {
  PadConvolutionChannels(MLIRContext *context, int64_t multiple)
      : OpRewritePattern(context), multiple(multiple) {}

  LogicalResult matchAndRewrite(linalg::Conv2DNhwcFhwcOp op,
                                PatternRewriter &rewriter) const override {
    Value input = op.getDpsInputs()[0], filter = op.getDpsInputs()[1];
    int64_t channels = cast<ShapedType>(input.getType()).getDimSize(3);
    int64_t extra = getChannelPadding(channels, multiple);
    if (!op.hasPureTensorSemantics() || extra == 0 || !isSixteenBit(input) ||
        !isSixteenBit(filter))
      return failure();
    Location loc = op.getLoc();
    Value paddedInput = padChannels(rewriter, loc, input, extra);
    Value paddedFilter = padChannels(rewriter, loc, filter, extra);
    rewriter.modifyOpInPlace(op, [&] {
      op->setOperand(0, paddedInput);
      op->setOperand(1, paddedFilter);
    });
    remarkChannelPadding(op, channels, extra);
    return success();
  }

  int64_t multiple;
};

/// The gradients of such a convolution (channels_last): the operand with
/// the input channels (the filter for the input gradient, the input for
/// the filter gradient) and the destination padded, the result cut back.
template <typename OpTy>
struct PadGradientChannels : public OpRewritePattern<OpTy> {
  PadGradientChannels(MLIRContext *context, int64_t multiple)
      : OpRewritePattern<OpTy>(context), multiple(multiple) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    constexpr bool data = std::is_same_v<OpTy, Conv2DBackwardDataOp>;
    Value channelled = data ? op.getRhs() : op.getLhs();
    int64_t channels = cast<ShapedType>(op.getInit().getType()).getDimSize(3);
    int64_t extra = getChannelPadding(channels, multiple);
    if (!op.getChannelsLast() || op->getNumResults() != 1 || extra == 0 ||
        !isSixteenBit(op.getLhs()) || !isSixteenBit(op.getRhs()))
      return failure();
    Location loc = op.getLoc();
    Value padded = padChannels(rewriter, loc, channelled, extra);
    Value init = padChannels(rewriter, loc, op.getInit(), extra);
    auto gradient = OpTy::create(
        rewriter, loc, TypeRange{init.getType()}, data ? op.getLhs() : padded,
        data ? padded : op.getRhs(), init, op.getStridesAttr(),
        op.getPaddingAttr(), op.getDilationsAttr(), op.getChannelsLastAttr());
    remarkChannelPadding(gradient, channels, extra);
    rewriter.replaceOp(
        op, cutChannels(rewriter, loc, gradient->getResult(0), channels));
    return success();
  }

  int64_t multiple;
};

struct AmpChannelsLastPass
    : public amp::impl::AmpChannelsLastPassBase<AmpChannelsLastPass> {
  using AmpChannelsLastPassBase::AmpChannelsLastPassBase;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<NamedToChannelsLast<linalg::Conv2DNchwFchwOp,
                                     linalg::Conv2DNhwcFhwcOp, true>,
                 NamedToChannelsLast<linalg::PoolingNchwMaxOp,
                                     linalg::PoolingNhwcMaxOp, false>,
                 NamedToChannelsLast<linalg::PoolingNchwSumOp,
                                     linalg::PoolingNhwcSumOp, false>,
                 GradientToChannelsLast<Conv2DBackwardDataOp>,
                 GradientToChannelsLast<Conv2DBackwardFilterOp>,
                 GenericReadsChannelsLast, UnscaleChannelsLast,
                 OptimizerUpdateChannelsLast, GenericWritesChannelsLast,
                 PadToChannelsLast, PadOfChannelsFirst, ComposeTransposes,
                 TransposeOfEmptyOrFill, DimOfTranspose, ExtractOfTranspose,
                 ConcatToChannelsLast>(context);
    patterns
        .add<PadConvolutionChannels, PadGradientChannels<Conv2DBackwardDataOp>,
             PadGradientChannels<Conv2DBackwardFilterOp>>(context,
                                                          channelMultiple);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
    getOperation().walk(
        [](linalg::GenericOp op) { op->removeAttr(kWritesChannelsLast); });
    mergeTransposes();
  }

  /// Transposes of one value by one permutation in one block (the
  /// boundary's: an input read by a convolution and by its filter
  /// gradient) are one, the first.
  void mergeTransposes() {
    llvm::DenseMap<std::pair<Value, ArrayRef<int64_t>>, linalg::TransposeOp>
        first;
    SmallVector<linalg::TransposeOp> repeated;
    getOperation().walk([&](linalg::TransposeOp op) {
      if (!op.hasPureTensorSemantics())
        return;
      auto [it, inserted] =
          first.try_emplace({op.getInput(), op.getPermutation()}, op);
      if (!inserted && it->second->getBlock() == op->getBlock())
        repeated.push_back(op);
    });
    for (linalg::TransposeOp op : repeated) {
      op->getResult(0).replaceAllUsesWith(
          first.lookup({op.getInput(), op.getPermutation()})->getResult(0));
      op->erase();
    }
  }
};
} // namespace
