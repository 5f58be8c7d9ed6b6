//===- ConvCalls.cpp - 2-D convolutions as library calls ------------------===//
//
// Part of amp-mlir. The convolution family of amp-linalg-to-library-calls:
// a 2-D convolution (grouped and depthwise ones included) in one of the
// calls' layouts (NCHW/FCHW, NHWC/HWCF, NHWC/FHWC) becomes its
// convolution call
// (ampGpuConv2d: cuDNN; ampCpuLibraryConv2d: im2col and CBLAS). A
// zero-padded input (tensor.pad, bufferized) is read in place with the
// call's padding; a zero fill of the output is beta = 0; an f32 output
// that is only narrowed is written in the 16-bit type (Epilogues.cpp).
// Every other convolution (1-D, 3-D, another layout or filter order)
// keeps a remark that says why. The gradients of a 2-D convolution
// (amp.conv2d_backward_data and amp.conv2d_backward_filter, from
// amp-raise-convolution-gradients) become the backend's backward calls
// (ampGpuConv2dBackwardData/Filter: cuDNN's) with the forward
// convolution's geometry.
//
//===----------------------------------------------------------------------===//

#include "LibraryCallLowering.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/runtime/AmpRuntime.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <array>

namespace mlir {
namespace amp {
namespace library_calls {

namespace {
/// A convolution input that is a copy of another buffer with zeros around
/// it, as tensor.pad bufferizes: a buffer filled with zeros and the source
/// copied into a subview of it.
struct PaddedInput {
  Value source;
  int64_t padTop = 0, padLeft = 0;
  /// The copy, the subview, the fill and the buffer: erased in this order
  /// once the call reads the source.
  SmallVector<Operation *, 4> ops;
};
} // namespace

/// The source and the padding of the convolution input `input` of `conv`
/// when the padding is zeros, in the spatial dimensions `hDim` and `wDim`
/// only, and the same on both sides of each (the calls' padTop/padLeft:
/// cuDNN's padding is symmetric), so that the call can read the source in
/// place; none otherwise. The source must not change between the copy and
/// the convolution: the ops between them only read it, and no view of it
/// is taken before the convolution.
static std::optional<PaddedInput> matchPaddedInput(Operation *conv, Value input,
                                                   int hDim, int wDim) {
  auto alloc = input.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != conv->getBlock())
    return std::nullopt;
  Operation *fill = nullptr;
  memref::SubViewOp subview;
  memref::CopyOp copy;
  for (Operation *user : alloc->getUsers()) {
    if (user == conv)
      continue;
    if (!fill && isZeroFillOf(user, input)) {
      fill = user;
      continue;
    }
    auto view = dyn_cast<memref::SubViewOp>(user);
    if (subview || !view || !view->hasOneUse())
      return std::nullopt;
    subview = view;
    copy = dyn_cast<memref::CopyOp>(*view->getUsers().begin());
    if (!copy || copy.getTarget() != view.getResult())
      return std::nullopt;
  }
  if (!fill || !subview || fill->getBlock() != conv->getBlock() ||
      copy->getBlock() != conv->getBlock() || !fill->isBeforeInBlock(copy) ||
      !copy->isBeforeInBlock(conv))
    return std::nullopt;

  // Zeros on both sides of H and W, nothing elsewhere. A dynamic size (the
  // batch of a frontend's import) is a whole dimension: the subview takes
  // the buffer's own size there, from offset 0.
  MemRefType paddedType = alloc.getType();
  ArrayRef<int64_t> padded = paddedType.getShape();
  ArrayRef<int64_t> offsets = subview.getStaticOffsets();
  ArrayRef<int64_t> sizes = subview.getStaticSizes();
  if (llvm::any_of(subview.getStaticStrides(),
                   [](int64_t stride) { return stride != 1; }) ||
      llvm::any_of(offsets, ShapedType::isDynamic))
    return std::nullopt;
  SmallVector<OpFoldResult> subviewSizes = subview.getMixedSizes();
  for (int64_t i = 0, e = padded.size(); i < e; ++i) {
    bool spatial = i == hDim || i == wDim;
    if (ShapedType::isDynamic(padded[i])) {
      if (spatial || offsets[i] != 0 ||
          dyn_cast<Value>(subviewSizes[i]) !=
              alloc.getDynamicSizes()[paddedType.getDynamicDimIndex(i)])
        return std::nullopt;
      continue;
    }
    if ((!spatial && offsets[i] != 0) || ShapedType::isDynamic(sizes[i]) ||
        sizes[i] + 2 * offsets[i] != padded[i])
      return std::nullopt;
  }

  // The source, unchanged from the copy to the convolution.
  Value source = copy.getSource();
  auto sourceType = dyn_cast<MemRefType>(source.getType());
  if (!sourceType || sourceType.getShape() != sizes ||
      sourceType.getElementType() != alloc.getType().getElementType())
    return std::nullopt;
  Operation *producer = source.getDefiningOp();
  if (producer && !isa<memref::AllocOp>(producer))
    return std::nullopt;
  for (Operation *user : source.getUsers()) {
    if (user == copy)
      continue;
    Operation *inBlock = conv->getBlock()->findAncestorOpInBlock(*user);
    if (!inBlock)
      return std::nullopt;
    if (conv->isBeforeInBlock(inBlock))
      continue;
    // A view could be written through later; between the copy and the
    // convolution, only reads.
    if (isa<ViewLikeOpInterface>(user))
      return std::nullopt;
    if (inBlock->isBeforeInBlock(copy))
      continue;
    auto interface = dyn_cast<MemoryEffectOpInterface>(user);
    if (!interface)
      return std::nullopt;
    SmallVector<MemoryEffects::EffectInstance> effects;
    interface.getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects)
      if (!isa<MemoryEffects::Read>(effect.getEffect()) &&
          (!effect.getValue() || effect.getValue() == source))
        return std::nullopt;
  }
  PaddedInput result;
  result.source = source;
  result.padTop = offsets[hDim];
  result.padLeft = offsets[wDim];
  result.ops = {copy, subview, fill, alloc};
  return result;
}

/// On the CPU, the batch (dimension 0 of the input and the output) may be
/// dynamic, read at the call: the other sizes, the strides and the offset
/// must be static.
static FailureOr<BufferInfo> getConvBufferInfo(Value value, bool dynamicBatch,
                                               std::string &why) {
  FailureOr<BufferInfo> info = getBufferInfo(value, why, dynamicBatch);
  if (failed(info) || !dynamicBatch)
    return info;
  if (llvm::any_of(info->type.getShape().drop_front(), ShapedType::isDynamic) ||
      ShapedType::isDynamic(info->offset) ||
      llvm::any_of(info->strides, ShapedType::isDynamic)) {
    why = "only the batch of a convolution may be dynamic";
    return failure();
  }
  return info;
}

namespace {
/// How a linalg convolution is the call's convolution on the same bytes:
/// the call's layout, the input's spatial dimensions, and how its
/// operands' shapes become the layout's 4-D ones. A grouped form splits
/// the channels (and its filter the filters) into (groups, per group): the
/// two dimensions from `*Merge` on are one; a depthwise filter has no
/// per-group channel dimension: a 1 is inserted at `filterUnit`. -1: none.
struct ConvForm {
  ConvLayout layout;
  int hDim, wDim;
  int inputMerge = -1, filterMerge = -1, filterUnit = -1, outputMerge = -1;
};
} // namespace

/// `shape` with dimensions `merge` and `merge + 1` as one, then a 1
/// inserted at `unit` (either -1: not done).
static SmallVector<int64_t, 5> reshapeConvOperand(ArrayRef<int64_t> shape,
                                                  int merge, int unit = -1) {
  SmallVector<int64_t, 5> result(shape);
  if (merge >= 0) {
    result[merge] *= result[merge + 1];
    result.erase(result.begin() + merge + 1);
  }
  if (unit >= 0)
    result.insert(result.begin() + unit, 1);
  return result;
}

/// The call's sizes of `form` from its operands' shapes: c, h, w, f, kh,
/// kw, oh, ow and the groups (c over the filter's channels per group).
static std::array<int64_t, 9> getConvSizes(const ConvForm &form,
                                           ArrayRef<int64_t> xShape,
                                           ArrayRef<int64_t> wShape,
                                           ArrayRef<int64_t> yShape) {
  SmallVector<int64_t, 5> x = reshapeConvOperand(xShape, form.inputMerge),
                          w = reshapeConvOperand(wShape, form.filterMerge,
                                                 form.filterUnit),
                          y = reshapeConvOperand(yShape, form.outputMerge);
  std::array<int64_t, 9> sizes;
  int64_t perGroup = 0;
  switch (form.layout) {
  case ConvLayout::NchwFchw:
    sizes = {x[1], x[2], x[3], w[0], w[2], w[3], y[2], y[3], 0};
    perGroup = w[1];
    break;
  case ConvLayout::NhwcHwcf:
    sizes = {x[3], x[1], x[2], w[3], w[0], w[1], y[1], y[2], 0};
    perGroup = w[2];
    break;
  case ConvLayout::NhwcFhwc:
    sizes = {x[3], x[1], x[2], w[0], w[1], w[2], y[1], y[2], 0};
    perGroup = w[3];
    break;
  }
  sizes[8] = sizes[0] / perGroup;
  return sizes;
}

/// The form of the convolution `op`, or failure with `why`.
static FailureOr<ConvForm> getConvForm(linalg::LinalgOp op, std::string &why) {
  using Layout = ConvLayout;
  if (isa<linalg::Conv2DNchwFchwOp>(op))
    return ConvForm{Layout::NchwFchw, 2, 3};
  if (isa<linalg::Conv2DNhwcHwcfOp>(op))
    return ConvForm{Layout::NhwcHwcf, 1, 2};
  if (isa<linalg::Conv2DNhwcFhwcOp>(op))
    return ConvForm{Layout::NhwcFhwc, 1, 2};
  // x: n, g, c/g, h, w; filter: g, f/g, c/g, kh, kw; y: n, g, f/g, oh, ow.
  if (isa<linalg::Conv2DNgchwGfchwOp>(op))
    return ConvForm{Layout::NchwFchw, 3, 4, 1, 0, -1, 1};
  // x: n, h, w, g, c/g; filter: g, f/g, kh, kw, c/g; y: n, oh, ow, g, f/g.
  if (isa<linalg::Conv2DNhwgcGfhwcOp>(op))
    return ConvForm{Layout::NhwcFhwc, 1, 2, 3, 0, -1, 3};
  // Filter c, kh, kw.
  if (isa<linalg::DepthwiseConv2DNchwChwOp>(op))
    return ConvForm{Layout::NchwFchw, 2, 3, -1, -1, 1, -1};
  // Filter kh, kw, c.
  if (isa<linalg::DepthwiseConv2DNhwcHwcOp>(op))
    return ConvForm{Layout::NhwcHwcf, 1, 2, -1, -1, 2, -1};
  // Filter kh, kw, c, m; y: n, oh, ow, c, m (f = c * m).
  if (isa<linalg::DepthwiseConv2DNhwcHwcmOp>(op))
    return ConvForm{Layout::NhwcHwcf, 1, 2, -1, 2, 2, 3};
  why = ("the convolution calls compute the 2-D convolutions "
         "conv_2d_nchw_fchw, conv_2d_nhwc_hwcf, conv_2d_nhwc_fhwc, their "
         "grouped forms conv_2d_ngchw_gfchw and conv_2d_nhwgc_gfhwc, and "
         "depthwise_conv_2d_nchw_chw, depthwise_conv_2d_nhwc_hwc and "
         "depthwise_conv_2d_nhwc_hwcm; not " +
         op->getName().getStringRef() +
         " (1-D, 3-D, quantized, or another filter order)")
            .str();
  return failure();
}

/// Rewrites the convolution `op`, whose zero fill is `fill`, and its
/// epilogue (matchConvEpilogue) as one convolution-with-epilogue call at
/// `op` (`function`; `getLeadingArgs(out)`: the arguments up to the
/// filter's type): the epilogue's a and b computed before it by a generic
/// over the channels (buildConvEpilogueTerms), the call writing the
/// epilogue's output; the epilogue, its ReLU follower, the convolution's
/// output and the `replaced` ops go.
template <typename LeadingArgs>
static void lowerConvWithEpilogue(RewriterBase &rewriter, linalg::LinalgOp op,
                                  const ConvEpilogue &epilogue,
                                  RuntimeFunction function, linalg::FillOp fill,
                                  LeadingArgs getLeadingArgs,
                                  ArrayRef<Operation *> replaced) {
  Location loc = op.getLoc();
  // The operands' reshapes and the output's sizes, then the output buffer,
  // before the call.
  for (Operation *view : epilogue.views)
    rewriter.moveOpBefore(view, op);
  if (auto alloc = epilogue.out.getDefiningOp<memref::AllocOp>();
      alloc && op->isBeforeInBlock(alloc))
    rewriter.moveOpBefore(alloc, op);
  auto [scale, bias] = buildConvEpilogueTerms(rewriter, op, epilogue);
  rewriter.setInsertionPoint(op);
  Type outElement = cast<MemRefType>(epilogue.out.getType()).getElementType();
  SmallVector<Value> args = getLeadingArgs(epilogue.out);
  Value null = LLVM::ZeroOp::create(
      rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext()));
  args.append({createBufferPointer(rewriter, loc, epilogue.out),
               createI32(rewriter, loc, getDTypeCode(outElement)),
               createI32(rewriter, loc,
                         epilogue.relu ? AMP_CONV_EPILOGUE_SCALE_BIAS_RELU
                                       : AMP_CONV_EPILOGUE_SCALE_BIAS),
               scale ? createBufferPointer(rewriter, loc, scale) : null,
               bias ? createBufferPointer(rewriter, loc, bias) : null,
               epilogue.residual
                   ? createBufferPointer(rewriter, loc, epilogue.residual)
                   : null});
  // What the call makes unneeded: the epilogue (and its follower, with the
  // epilogue's own output), the convolution's output and its fill.
  SmallVector<Operation *> unneeded(replaced.begin(), replaced.end());
  Value y = op.getDpsInits()[0];
  linalg::GenericOp generic = epilogue.generic, follower = epilogue.follower;
  Value middle = follower ? generic.getDpsInits()[0] : Value();
  if (follower)
    rewriter.eraseOp(follower);
  rewriter.eraseOp(generic);
  rewriter.eraseOp(fill);
  for (Value buffer : {y, middle}) {
    if (!buffer)
      continue;
    for (Operation *user : llvm::make_early_inc_range(buffer.getUsers()))
      if (isa<memref::DeallocOp>(user))
        rewriter.eraseOp(user);
    if (buffer != y)
      unneeded.push_back(buffer.getDefiningOp());
  }
  unneeded.insert(unneeded.begin(), y.getDefiningOp());
  replaceWithCall(rewriter, op, function, args, unneeded);
}

/// The 2-D convolution `op`, of `form`, as the backend's call; failure
/// with `why` if the call cannot compute it.
static LogicalResult lowerConv(RewriterBase &rewriter, linalg::LinalgOp op,
                               const ConvForm &form,
                               const LibraryBackend &backend, bool epilogues,
                               std::string &why) {
  FailureOr<RuntimeFunction> function =
      getCallFunction(backend, LibraryCall::Conv, why);
  if (failed(function))
    return failure();
  ConvLayout layout = form.layout;
  bool dynamicBatch = backend.takesDynamicConvBatch();
  Value x = op.getDpsInputs()[0], w = op.getDpsInputs()[1],
        y = op.getDpsInits()[0];
  // A zero-padded input: the call reads the unpadded source in place.
  std::optional<PaddedInput> padded =
      matchPaddedInput(op, x, form.hDim, form.wDim);
  if (padded)
    x = padded->source;
  FailureOr<BufferInfo> xi = getConvBufferInfo(x, dynamicBatch, why),
                        wi = getConvBufferInfo(w, /*dynamicBatch=*/false, why),
                        yi = getConvBufferInfo(y, dynamicBatch, why);
  if (failed(xi) || failed(wi) || failed(yi))
    return failure();
  if (!isContiguous(*xi) || !isContiguous(*wi) || !isContiguous(*yi)) {
    why = "convolution operands must be contiguous";
    return failure();
  }
  FailureOr<ContractionTypes> types = getContractionTypes(*xi, *wi, *yi, why);
  if (failed(types))
    return failure();
  int32_t xType = types->lhs, wType = types->rhs, yType = types->result;
  bool float8 = types->float8;
  if (float8) {
    // FP8 operands (amp-float8-contractions), where the library has an FP8
    // convolution.
    StringRef refusal = backend.getFloat8ConvRefusal();
    if (!refusal.empty()) {
      why = refusal.str();
      return failure();
    }
  } else if (xType < 0 || xType != wType || yType < 0 ||
             (yType != kF32Code && yType != xType)) {
    why = "element types must be f16, bf16 or f32 operands of one type and "
          "an f32 or same-typed result";
    return failure();
  }
  auto strides = op->getAttrOfType<DenseIntElementsAttr>("strides");
  auto dilations = op->getAttrOfType<DenseIntElementsAttr>("dilations");
  auto get = [](DenseIntElementsAttr attr, int i) -> int64_t {
    return attr ? attr.getValues<int64_t>()[i] : 1;
  };
  ArrayRef<int64_t> ys = yi->type.getShape();
  // c, h, w, f, kh, kw, oh, ow, groups.
  std::array<int64_t, 9> sizes =
      getConvSizes(form, xi->type.getShape(), wi->type.getShape(), ys);
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  float beta = 1.0f;
  linalg::FillOp fill = findZeroFill(op, y);
  // The arguments every convolution call starts with, up to the filter's
  // type (the batch read from `out`, the buffer the call writes).
  auto getLeadingArgs = [&](Value out) {
    SmallVector<Value> args = {
        createI32(rewriter, loc, static_cast<int32_t>(layout)),
        getSize(rewriter, loc, out, 0)};
    for (int64_t size : ArrayRef<int64_t>(sizes).take_front(8))
      args.push_back(createI64(rewriter, loc, size));
    args.append({createI64(rewriter, loc, padded ? padded->padTop : 0),
                 createI64(rewriter, loc, padded ? padded->padLeft : 0),
                 createI64(rewriter, loc, get(strides, 0)),
                 createI64(rewriter, loc, get(strides, 1)),
                 createI64(rewriter, loc, get(dilations, 0)),
                 createI64(rewriter, loc, get(dilations, 1)),
                 createI64(rewriter, loc, sizes[8]),
                 createBufferPointer(rewriter, loc, x),
                 createI32(rewriter, loc, xType),
                 createBufferPointer(rewriter, loc, w),
                 createI32(rewriter, loc, wType)});
    return args;
  };
  SmallVector<Operation *> replaced;
  if (padded)
    replaced.append(padded->ops.begin(), padded->ops.end());
  // The epilogue in the call (cuDNN's graph API): NHWC/FHWC, ungrouped.
  if (epilogues && !float8 && layout == ConvLayout::NhwcFhwc && sizes[8] == 1) {
    std::optional<RuntimeFunction> function =
        backend.getFunction(LibraryCall::ConvEpilogue);
    std::optional<ConvEpilogue> epilogue =
        function ? matchConvEpilogue(op, y, fill, xi->type.getElementType())
                 : std::nullopt;
    if (epilogue) {
      lowerConvWithEpilogue(rewriter, op, *epilogue, *function, fill,
                            getLeadingArgs, replaced);
      return success();
    }
  }
  memref::AllocOp accumulator;
  // An FP8 convolution writes f32: the result is not narrowed into FP8.
  if (Value narrow =
          float8 ? Value()
                 : narrowOutput(rewriter, op, y, fill,
                                xi->type.getElementType(), [&](Value buffer) {
                                  std::string ignored;
                                  FailureOr<BufferInfo> info =
                                      getConvBufferInfo(buffer, dynamicBatch,
                                                        ignored);
                                  return succeeded(info) &&
                                         isContiguous(*info) &&
                                         info->type.getShape() == ys;
                                })) {
    accumulator = y.getDefiningOp<memref::AllocOp>();
    y = narrow;
    yType = xType;
  }
  if (fill) {
    rewriter.eraseOp(fill);
    beta = 0.0f;
  }
  // The batch, read once the buffer the call writes is known (as for the
  // GEMM: a memref.dim of the f32 accumulator would keep it).
  SmallVector<Value> args = getLeadingArgs(y);
  args.append({createBufferPointer(rewriter, loc, y),
               createI32(rewriter, loc, yType),
               createF32(rewriter, loc, beta)});
  replaced.insert(replaced.begin(), accumulator);
  replaceWithCall(rewriter, op, *function, args, replaced);
  return success();
}

/// The geometry of a 2-D convolution gradient: the sizes of the forward
/// convolution's input x (n x c x h x w), filter (f x c x kh x kw) and
/// output (n x f x oh x ow), as the op's operands give them, but for the
/// batch n (the first operand's first dimension, read at the call), in
/// either layout.
struct ConvolutionGeometry {
  int64_t c, h, w, f, kh, kw, oh, ow;
};

/// A convolution gradient `op` (lhs, rhs, init: the buffers of a
/// Conv2DBackwardDataOp or Conv2DBackwardFilterOp) as the backend's `call`;
/// failure with `why` if the call cannot compute it. `geometry` reads the
/// sizes from the three buffers' shapes. The lhs's first dimension is the
/// batch, as is the rhs's (`rhsBatched`) or else the output's; where the
/// backend takes a dynamic batch, those dimensions may be dynamic.
static LogicalResult lowerConvolutionGradient(
    RewriterBase &rewriter, Operation *op, LibraryCall call,
    const LibraryBackend &backend, Value lhs, Value rhs, bool rhsBatched,
    Value out, ArrayRef<int64_t> strides, ArrayRef<int64_t> padding,
    ArrayRef<int64_t> dilations, bool channelsLast,
    llvm::function_ref<ConvolutionGeometry(ArrayRef<int64_t>, ArrayRef<int64_t>,
                                           ArrayRef<int64_t>)>
        geometry,
    std::string &why) {
  ConvLayout layout =
      channelsLast ? ConvLayout::NhwcFhwc : ConvLayout::NchwFchw;
  FailureOr<RuntimeFunction> function = getCallFunction(backend, call, why);
  if (failed(function))
    return failure();
  bool dynamicBatch = backend.takesDynamicConvBatch();
  bool outBatched = dynamicBatch && !rhsBatched;
  FailureOr<BufferInfo> li = getConvBufferInfo(lhs, dynamicBatch, why),
                        ri = getConvBufferInfo(rhs, dynamicBatch && rhsBatched,
                                               why),
                        oi = getConvBufferInfo(out, outBatched, why);
  if (failed(li) || failed(ri) || failed(oi))
    return failure();
  if (!isContiguous(*li) || !isContiguous(*ri) || !isContiguous(*oi)) {
    why = "convolution operands must be contiguous";
    return failure();
  }
  FailureOr<ContractionTypes> types = getContractionTypes(*li, *ri, *oi, why);
  if (failed(types))
    return failure();
  int32_t inType = types->lhs, outType = types->result;
  if (types->float8 || inType < 0 || inType != types->rhs || outType < 0 ||
      (outType != kF32Code && outType != inType)) {
    why = "element types must be f16, bf16 or f32 operands of one type and "
          "an f32 or same-typed result";
    return failure();
  }
  auto sizes = [&](MemRefType type) {
    return getConvolutionGradientSizes(type.getShape(), channelsLast);
  };
  ConvolutionGeometry g =
      geometry(sizes(li->type), sizes(ri->type), sizes(oi->type));
  Location loc = op->getLoc();
  rewriter.setInsertionPoint(op);
  float beta = 1.0f;
  linalg::FillOp fill = findZeroFill(op, out);
  memref::AllocOp accumulator;
  ArrayRef<int64_t> shape = oi->type.getShape();
  // An f32 gradient whose readers only narrow it is written in 16 bits.
  if (Value narrow = narrowOutput(rewriter, op, out, fill,
                                  li->type.getElementType(), [&](Value buffer) {
                                    std::string ignored;
                                    FailureOr<BufferInfo> info =
                                        getConvBufferInfo(buffer, outBatched,
                                                          ignored);
                                    return succeeded(info) &&
                                           isContiguous(*info) &&
                                           info->type.getShape() == shape;
                                  })) {
    accumulator = out.getDefiningOp<memref::AllocOp>();
    out = narrow;
    outType = inType;
  }
  if (fill) {
    rewriter.eraseOp(fill);
    beta = 0.0f;
  }
  SmallVector<Value> args = {
      createI32(rewriter, loc, static_cast<int32_t>(layout)),
      getSize(rewriter, loc, lhs, 0)};
  for (int64_t size :
       {g.c, g.h, g.w, g.f, g.kh, g.kw, g.oh, g.ow, padding[0], padding[1],
        strides[0], strides[1], dilations[0], dilations[1],
        /*groups=*/int64_t(1)})
    args.push_back(createI64(rewriter, loc, size));
  args.append({createBufferPointer(rewriter, loc, lhs),
               createI32(rewriter, loc, inType),
               createBufferPointer(rewriter, loc, rhs),
               createI32(rewriter, loc, inType),
               createBufferPointer(rewriter, loc, out),
               createI32(rewriter, loc, outType),
               createF32(rewriter, loc, beta)});
  replaceWithCall(rewriter, op, *function, args, {accumulator});
  return success();
}

bool isConvolution(linalg::LinalgOp op) {
  StringRef name = op->getName().getStringRef();
  return name.starts_with("linalg.conv_") ||
         name.starts_with("linalg.depthwise_conv_");
}

namespace {
/// A convolution as the backend's convolution call, or a remark.
struct ConvToLibraryCall : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  ConvToLibraryCall(MLIRContext *context, const LibraryBackend &backend,
                    bool epilogues)
      : OpInterfaceRewritePattern(context), backend(backend),
        epilogues(epilogues) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!isConvolution(op))
      return failure();
    if (!op.hasPureBufferSemantics())
      return rewriter.notifyMatchFailure(op, kOnTensors);
    std::string why;
    FailureOr<ConvForm> form = getConvForm(op, why);
    if (succeeded(form) &&
        succeeded(lowerConv(rewriter, op, *form, backend, epilogues, why)))
      return success();
    return rewriter.notifyMatchFailure(op, why);
  }

  const LibraryBackend &backend;
  bool epilogues;
};

/// The input gradient of a 2-D convolution as the backend's backward-data
/// call, or a remark.
struct ConvBackwardDataToLibraryCall
    : public OpRewritePattern<Conv2DBackwardDataOp> {
  ConvBackwardDataToLibraryCall(MLIRContext *context,
                                const LibraryBackend &backend)
      : OpRewritePattern(context), backend(backend) {}

  LogicalResult matchAndRewrite(Conv2DBackwardDataOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumResults())
      return rewriter.notifyMatchFailure(op, kOnTensors);
    std::string why;
    // dy: n x f x oh x ow, the filter f x c x kh x kw, dx n x c x h x w.
    auto geometry = [](ArrayRef<int64_t> dy, ArrayRef<int64_t> w,
                       ArrayRef<int64_t> dx) {
      return ConvolutionGeometry{dx[1], dx[2], dx[3], w[0],
                                 w[2],  w[3],  dy[2], dy[3]};
    };
    if (failed(lowerConvolutionGradient(
            rewriter, op, LibraryCall::ConvBackwardData, backend, op.getLhs(),
            op.getRhs(), /*rhsBatched=*/false, op.getInit(), op.getStrides(),
            op.getPadding(), op.getDilations(), op.getChannelsLast(), geometry,
            why)))
      return rewriter.notifyMatchFailure(op, why);
    return success();
  }

  const LibraryBackend &backend;
};

/// The filter gradient of a 2-D convolution as the backend's
/// backward-filter call, or a remark.
struct ConvBackwardFilterToLibraryCall
    : public OpRewritePattern<Conv2DBackwardFilterOp> {
  ConvBackwardFilterToLibraryCall(MLIRContext *context,
                                  const LibraryBackend &backend)
      : OpRewritePattern(context), backend(backend) {}

  LogicalResult matchAndRewrite(Conv2DBackwardFilterOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumResults())
      return rewriter.notifyMatchFailure(op, kOnTensors);
    std::string why;
    // x: n x c x h x w, dy n x f x oh x ow, dw f x c x kh x kw.
    auto geometry = [](ArrayRef<int64_t> x, ArrayRef<int64_t> dy,
                       ArrayRef<int64_t> dw) {
      return ConvolutionGeometry{x[1],  x[2],  x[3],  dw[0],
                                 dw[2], dw[3], dy[2], dy[3]};
    };
    if (failed(lowerConvolutionGradient(
            rewriter, op, LibraryCall::ConvBackwardFilter, backend, op.getLhs(),
            op.getRhs(), /*rhsBatched=*/true, op.getInit(), op.getStrides(),
            op.getPadding(), op.getDilations(), op.getChannelsLast(), geometry,
            why)))
      return rewriter.notifyMatchFailure(op, why);
    return success();
  }

  const LibraryBackend &backend;
};
} // namespace

} // namespace library_calls

void populateAmpConvToLibraryCallsPatterns(RewritePatternSet &patterns,
                                           const LibraryBackend &backend,
                                           bool epilogues) {
  patterns.add<library_calls::ConvToLibraryCall>(patterns.getContext(), backend,
                                                 epilogues);
  patterns.add<library_calls::ConvBackwardDataToLibraryCall,
               library_calls::ConvBackwardFilterToLibraryCall>(
      patterns.getContext(), backend);
}

} // namespace amp
} // namespace mlir
