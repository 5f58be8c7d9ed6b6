//===- AmpOps.cpp - amp dialect operations --------------------------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/IR/AmpInterfaces.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"

#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::amp;

//===----------------------------------------------------------------------===//
// Fp16GuardOp
//===----------------------------------------------------------------------===//

void Fp16GuardOp::build(OpBuilder &builder, OperationState &state,
                        TypeRange resultTypes) {
  state.addTypes(resultTypes);
  Region *body = state.addRegion();
  body->push_back(new Block());
}

// amp.fp16_guard (`->` type-list)? region attr-dict
ParseResult Fp16GuardOp::parse(OpAsmParser &parser, OperationState &result) {
  if (parser.parseOptionalArrowTypeList(result.types))
    return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, /*arguments=*/{}))
    return failure();
  return parser.parseOptionalAttrDict(result.attributes);
}

void Fp16GuardOp::print(OpAsmPrinter &p) {
  p.printOptionalArrowTypeList(getResultTypes());
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/true);
  p.printOptionalAttrDict((*this)->getAttrs());
}

YieldOp Fp16GuardOp::getYield() {
  return cast<YieldOp>(getBodyBlock().getTerminator());
}

// The yielded values are checked against the results by amp.yield's verifier,
// which runs before the region-branch interface's generic check and reports
// at the yield. Here only the terminator itself is checked.
LogicalResult Fp16GuardOp::verifyRegions() {
  Block &block = getBodyBlock();
  Operation *terminator = block.empty() ? nullptr : &block.back();
  if (isa_and_nonnull<YieldOp>(terminator))
    return success();
  InFlightDiagnostic diag =
      emitOpError("expects its body to end with 'amp.yield'");
  if (terminator)
    diag.attachNote(terminator->getLoc())
        << "the body ends with '" << terminator->getName() << "'";
  return diag;
}

void Fp16GuardOp::getSuccessorRegions(
    RegionBranchPoint point, SmallVectorImpl<RegionSuccessor> &regions) {
  // Control enters the body once and then leaves to the parent's results.
  if (point.isParent()) {
    regions.push_back(RegionSuccessor(&getBody()));
    return;
  }
  regions.push_back(RegionSuccessor(getOperation(), getResults()));
}

namespace {
/// A guard whose body holds nothing but its terminator guards nothing:
/// replace it by the values it yields.
struct EraseEmptyGuard : public OpRewritePattern<Fp16GuardOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Fp16GuardOp op,
                                PatternRewriter &rewriter) const override {
    Block &block = op.getBodyBlock();
    if (&block.front() != &block.back())
      return rewriter.notifyMatchFailure(op, "the guard's body is not empty");
    rewriter.replaceOp(op, op.getYield().getOperands());
    return success();
  }
};
} // namespace

void Fp16GuardOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<EraseEmptyGuard>(context);
}

//===----------------------------------------------------------------------===//
// YieldOp
//===----------------------------------------------------------------------===//

LogicalResult YieldOp::verify() {
  auto guard = cast<Fp16GuardOp>((*this)->getParentOp());
  if (getNumOperands() != guard.getNumResults()) {
    InFlightDiagnostic diag = emitOpError()
                              << "yields " << getNumOperands()
                              << " values but its 'amp.fp16_guard' has "
                              << guard.getNumResults() << " results";
    diag.attachNote(guard.getLoc()) << "guard here";
    return diag;
  }
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip(getOperandTypes(), guard.getResultTypes()))) {
    auto [yieldedType, resultType] = pair;
    if (yieldedType != resultType) {
      InFlightDiagnostic diag = emitOpError()
                                << "operand #" << index << " has type "
                                << yieldedType << " but the guard's result #"
                                << index << " has type " << resultType;
      diag.attachNote(guard.getLoc()) << "guard here";
      return diag;
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

/// Checks that `in` and `out` are the same kind of container (scalar, vector,
/// tensor) with the same shape and encoding. Reports through `emitError` when
/// it is given.
static LogicalResult
verifyCastShapes(Type in, Type out,
                 function_ref<InFlightDiagnostic()> emitError) {
  auto fail = [&](StringRef what) {
    if (emitError)
      return emitError() << "expects source and result of the same " << what
                         << ", got " << in << " and " << out;
    return InFlightDiagnostic();
  };
  bool inVector = isa<VectorType>(in), outVector = isa<VectorType>(out);
  bool inTensor = isa<TensorType>(in), outTensor = isa<TensorType>(out);
  if (inVector != outVector || inTensor != outTensor)
    return fail("kind (scalar, vector or tensor)");
  auto inShaped = dyn_cast<ShapedType>(in);
  if (!inShaped)
    return success();
  auto outShaped = cast<ShapedType>(out);
  if (inShaped.hasRank() != outShaped.hasRank() ||
      (inShaped.hasRank() && inShaped.getShape() != outShaped.getShape()))
    return fail("shape");
  if (inVector && cast<VectorType>(in).getScalableDims() !=
                      cast<VectorType>(out).getScalableDims())
    return fail("shape");
  auto inRanked = dyn_cast<RankedTensorType>(in);
  auto outRanked = dyn_cast<RankedTensorType>(out);
  if (inRanked && outRanked &&
      inRanked.getEncoding() != outRanked.getEncoding())
    return fail("encoding");
  return success();
}

LogicalResult CastOp::verify() {
  return verifyCastShapes(getInput().getType(), getType(),
                          [&] { return emitOpError(); });
}

bool CastOp::areCastCompatible(TypeRange inputs, TypeRange outputs) {
  if (inputs.size() != 1 || outputs.size() != 1)
    return false;
  if (!isa<FloatType>(getElementTypeOrSelf(inputs.front())) ||
      !isa<FloatType>(getElementTypeOrSelf(outputs.front())))
    return false;
  return succeeded(verifyCastShapes(inputs.front(), outputs.front(), nullptr));
}

bool CastOp::isExact() {
  return isExactConversion(getInput().getType(), getType());
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  // cast(x : T to T) -> x
  if (getInput().getType() == getType())
    return getInput();
  // cast(cast(x : A to B) : B to C) -> cast(x : A to C) when A -> B is exact:
  // the first cast never rounds, so only the second one does.
  if (auto inner = getInput().getDefiningOp<CastOp>()) {
    if (!inner.isExact())
      return {};
    Value source = inner.getInput();
    if (source.getType() == getType())
      return source;
    getInputMutable().assign(source);
    return getResult();
  }
  return {};
}

//===----------------------------------------------------------------------===//
// ScaleLossOp
//===----------------------------------------------------------------------===//

LogicalResult ScaleLossOp::verify() {
  Type lossType = getLoss().getType();
  Type resultType = getType();
  auto lossTensor = dyn_cast<TensorType>(lossType);
  auto resultTensor = dyn_cast<TensorType>(resultType);
  if (static_cast<bool>(lossTensor) != static_cast<bool>(resultTensor) ||
      (lossTensor && (lossTensor.hasRank() != resultTensor.hasRank() ||
                      (lossTensor.hasRank() &&
                       lossTensor.getShape() != resultTensor.getShape()))))
    return emitOpError() << "expects the result to have the shape of the loss "
                         << lossType << ", got " << resultType;
  if (!getElementTypeOrSelf(resultType).isF32())
    return emitOpError() << "expects an f32 result (the scaled loss is "
                            "computed in fp32), got "
                         << resultType;
  if (isa<TensorType>(getScale().getType()) && !isa<TensorType>(lossType))
    return emitOpError() << "expects a tensor loss with a tensor<f32> scale "
                            "(a 0-d tensor<f32> loss for a scalar), got "
                         << lossType;
  return success();
}

//===----------------------------------------------------------------------===//
// CheckFiniteAndUnscaleOp
//===----------------------------------------------------------------------===//

/// `i1`, or `tensor<i1>` when the scaler state is held in 0-d tensors.
static Type getFlagType(MLIRContext *context, Type scaleType) {
  Type i1 = IntegerType::get(context, 1);
  if (isa<TensorType>(scaleType))
    return RankedTensorType::get({}, i1);
  return i1;
}

LogicalResult CheckFiniteAndUnscaleOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  for (Value gradient : adaptor.getGradients())
    inferredReturnTypes.push_back(gradient.getType());
  inferredReturnTypes.push_back(
      getFlagType(context, adaptor.getScale().getType()));
  return success();
}

LogicalResult CheckFiniteAndUnscaleOp::verify() {
  if (getGradients().empty())
    return emitOpError("expects at least one gradient");
  return success();
}

//===----------------------------------------------------------------------===//
// UnscaleGradientsOp
//===----------------------------------------------------------------------===//

LogicalResult UnscaleGradientsOp::verify() {
  OperandRange gradients = getGradients();
  if (gradients.empty())
    return emitOpError("expects at least one gradient");
  if (getInits().size() != gradients.size() + 1)
    return emitOpError() << "expects one destination per gradient and then "
                            "the flag: "
                         << gradients.size() + 1 << " inits, got "
                         << getInits().size();
  bool onTensors = isa<TensorType>(getFlag().getType());
  for (Value value : getOperands())
    if (isa<ShapedType>(value.getType()) &&
        isa<TensorType>(value.getType()) != onTensors)
      return emitOpError("expects every operand to be a tensor, or every "
                         "operand a buffer (the inverse scale may be an f32)");
  auto inverse = dyn_cast<ShapedType>(getInverse().getType());
  if (inverse && (inverse.getRank() != 0 || !inverse.getElementType().isF32()))
    return emitOpError() << "expects the inverse scale to be an f32 or a 0-d "
                            "f32, got "
                         << inverse;
  auto flag = cast<ShapedType>(getFlag().getType());
  if (flag.getRank() != 0 || !flag.getElementType().isInteger(1))
    return emitOpError() << "expects the flag (the last init) to be a 0-d "
                            "i1, got "
                         << flag;
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip_equal(gradients, getOutputs()))) {
    auto [gradient, output] = pair;
    auto in = cast<ShapedType>(gradient.getType());
    auto out = cast<ShapedType>(output.getType());
    if (!isa<FloatType>(in.getElementType()))
      return emitOpError() << "expects float gradients, got " << in
                           << " for gradient #" << index;
    if (in.getElementType() != out.getElementType() ||
        failed(verifyCompatibleShape(in, out)))
      return emitOpError() << "expects the destination of gradient #" << index
                           << " to have its element type and shape, "
                           << "got " << out << " for " << in;
  }
  return success();
}

void UnscaleGradientsOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // On buffers: reads the gradients, the inverse and the flag; writes the
  // destinations and the flag. On tensors: none.
  for (OpOperand &operand : getOperation()->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    bool isOutput = isDpsInit(&operand) && operand.get() != getFlag();
    if (!isOutput)
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           /*stage=*/0, /*effectOnFullRegion=*/true,
                           SideEffects::DefaultResource::get());
    if (isDpsInit(&operand))
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           /*stage=*/0, /*effectOnFullRegion=*/true,
                           SideEffects::DefaultResource::get());
  }
}

/// The effects of a destination-style op on buffers whose destinations are
/// written without being read: every other buffer operand is read.
static void addWriteOnlyDestinationEffects(
    DestinationStyleOpInterface op,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    effects.emplace_back(
        op.isDpsInit(&operand)
            ? static_cast<MemoryEffects::Effect *>(MemoryEffects::Write::get())
            : MemoryEffects::Read::get(),
        &operand, /*stage=*/0, /*effectOnFullRegion=*/true,
        SideEffects::DefaultResource::get());
  }
}

//===----------------------------------------------------------------------===//
// OptimizerUpdateOp
//===----------------------------------------------------------------------===//

unsigned OptimizerUpdateOp::getNumStates(OptimizerKind kind) {
  switch (kind) {
  case OptimizerKind::sgd:
    return 0;
  case OptimizerKind::momentum:
    return 1;
  case OptimizerKind::adam:
  case OptimizerKind::adamw:
    return 2;
  }
  llvm_unreachable("optimizer kind");
}

LogicalResult OptimizerUpdateOp::verify() {
  OperandRange gradients = getGradients();
  if (gradients.empty())
    return emitOpError("expects at least one gradient");
  unsigned states = getNumStates(getKind());
  size_t expected = gradients.size() * (1 + states);
  if (getCurrent().size() != expected || getInits().size() != expected)
    return emitOpError() << "expects the " << gradients.size()
                         << " parameters and then " << states
                         << " state tensor(s) per parameter for '"
                         << stringifyOptimizerKind(getKind())
                         << "', and a destination for each: " << expected
                         << " params and " << expected << " inits, got "
                         << getCurrent().size() << " and " << getInits().size();
  bool onTensors = isa<TensorType>(getStep().getType());
  for (Value value : getOperands())
    if (isa<TensorType>(value.getType()) != onTensors)
      return emitOpError("expects every operand to be a tensor, or every "
                         "operand a buffer");
  auto isScalarOf = [](Value value, unsigned width) {
    auto type = cast<ShapedType>(value.getType());
    return type.getRank() == 0 && type.getElementType().isInteger(width);
  };
  if (!isScalarOf(getStep(), 32))
    return emitOpError() << "expects the step count to be a 0-d i32, got "
                         << getStep().getType();
  if (!isScalarOf(getSkip(), 1))
    return emitOpError() << "expects the skip flag to be a 0-d i1, got "
                         << getSkip().getType();
  for (auto [index, gradient] : llvm::enumerate(gradients)) {
    auto grad = cast<ShapedType>(gradient.getType());
    Type element = grad.getElementType();
    if (!element.isF32() && !element.isF16() && !element.isBF16())
      return emitOpError() << "expects f32, f16 or bf16 gradients, got " << grad
                           << " for gradient #" << index;
    for (unsigned s = 0; s <= states; ++s) {
      size_t k = s * gradients.size() + index;
      auto type = cast<ShapedType>(getCurrent()[k].getType());
      if (!type.getElementType().isF32() ||
          failed(verifyCompatibleShape(grad, type)))
        return emitOpError()
               << "expects the " << (s == 0 ? "parameter" : "state")
               << " of gradient #" << index
               << " to be f32 of the gradient's shape, got " << type << " for "
               << grad;
      if (getInits()[k].getType() != type)
        return emitOpError() << "expects destination #" << k
                             << " to have the type of its value, " << type
                             << ", got " << getInits()[k].getType();
    }
  }
  // PyTorch's ranges.
  auto inRange = [&](StringRef name, double value, double lo, bool loOpen,
                     double hi, bool hiOpen) -> LogicalResult {
    bool ok = std::isfinite(value) && (loOpen ? value > lo : value >= lo) &&
              (hiOpen ? value < hi : value <= hi);
    if (ok)
      return success();
    auto g = [](double v) {
      std::string text;
      llvm::raw_string_ostream(text) << llvm::format("%g", v);
      return text;
    };
    return emitOpError() << "expects " << name << " in " << (loOpen ? "(" : "[")
                         << g(lo) << ", " << g(hi) << (hiOpen ? ")" : "]")
                         << ", got " << g(value);
  };
  double inf = std::numeric_limits<double>::infinity();
  if (failed(inRange("lr", getLr().convertToDouble(), 0.0, true, inf, true)) ||
      failed(inRange("weight_decay", getWeightDecay().convertToDouble(), 0.0,
                     false, inf, true)) ||
      failed(inRange("momentum", getMomentum().convertToDouble(), 0.0, false,
                     1.0, false)) ||
      failed(inRange("dampening", getDampening().convertToDouble(), 0.0, false,
                     1.0, false)) ||
      failed(inRange("beta1", getBeta1().convertToDouble(), 0.0, false, 1.0,
                     true)) ||
      failed(inRange("beta2", getBeta2().convertToDouble(), 0.0, false, 1.0,
                     true)) ||
      failed(inRange("eps", getEps().convertToDouble(), 0.0, true, inf, true)))
    return failure();
  if (getNesterov() && (getKind() != OptimizerKind::momentum ||
                        getMomentum().convertToDouble() <= 0.0 ||
                        getDampening().convertToDouble() != 0.0))
    return emitOpError("expects nesterov only with kind 'momentum', a "
                       "momentum > 0 and zero dampening (as in PyTorch)");
  return success();
}

void OptimizerUpdateOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // On buffers: reads every operand but the destinations, writes the
  // destinations. On tensors: none.
  addWriteOnlyDestinationEffects(*this, effects);
}

//===----------------------------------------------------------------------===//
// UpdateLossScalingOp
//===----------------------------------------------------------------------===//

LogicalResult UpdateLossScalingOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  inferredReturnTypes.push_back(adaptor.getScale().getType());
  for (int i = 0; i < 3; ++i)
    inferredReturnTypes.push_back(adaptor.getGoodSteps().getType());
  return success();
}

LogicalResult UpdateLossScalingOp::verify() {
  bool tensorScale = isa<TensorType>(getScale().getType());
  if (isa<TensorType>(getFoundInf().getType()) != tensorScale ||
      isa<TensorType>(getGoodSteps().getType()) != tensorScale)
    return emitOpError() << "expects the scaler state to be all scalars or "
                            "all 0-d tensors, got found_inf "
                         << getFoundInf().getType() << ", scale "
                         << getScale().getType() << ", counters "
                         << getGoodSteps().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// AllReduceOp
//===----------------------------------------------------------------------===//

/// The element types and kinds of the collectives (amp.all_reduce and its
/// buffer form): `what` names the operand ("a tensor", "a buffer").
static LogicalResult verifyCollective(Operation *op, ShapedType type,
                                      ReduceKind kind, StringRef what) {
  Type element = type.getElementType();
  bool isFloat = element.isF32() || element.isF16() || element.isBF16();
  bool isI32 = element.isSignlessInteger(32);
  bool isI1 = element.isSignlessInteger(1);
  if (!isFloat && !isI32 && !isI1)
    return op->emitOpError() << "expects " << what
                             << " of f32, f16, bf16, i32 or i1 elements, got "
                             << type;
  if (isI1 && (kind == ReduceKind::sum || kind == ReduceKind::mean))
    return op->emitOpError() << "cannot '" << stringifyReduceKind(kind)
                             << "' i1 values: use 'max' for a logical or, "
                                "'min' for a logical and";
  if (isI32 && kind == ReduceKind::mean)
    return op->emitOpError()
           << "cannot 'mean' i32 values (an integer division): use 'sum' and "
              "divide";
  return success();
}

LogicalResult AllReduceOp::verify() {
  return verifyCollective(*this, getInput().getType(), getKind(), "a tensor");
}

//===----------------------------------------------------------------------===//
// AllReduceInPlaceOp
//===----------------------------------------------------------------------===//

LogicalResult AllReduceInPlaceOp::verify() {
  MemRefType type = getBuffer().getType();
  if (failed(verifyCollective(*this, type, getKind(), "a buffer")))
    return failure();
  // The runtime reduces `count` contiguous elements from the aligned pointer.
  if (!type.getLayout().isIdentity())
    return emitOpError() << "expects a buffer of the identity layout (the "
                            "runtime reduces its elements as one contiguous "
                            "array), got "
                         << type;
  return success();
}

//===----------------------------------------------------------------------===//
// FP8 scaling
//===----------------------------------------------------------------------===//

/// The f32 value of a constant scale (an f32 attribute, or a 0-d tensor
/// of one); nullopt when `attr` is not a constant.
static std::optional<float> getConstantScale(Attribute attr) {
  if (auto value = dyn_cast_or_null<FloatAttr>(attr))
    return value.getValue().convertToFloat();
  if (auto dense = dyn_cast_or_null<DenseFPElementsAttr>(attr))
    if (dense.getNumElements() == 1)
      return (*dense.value_begin<APFloat>()).convertToFloat();
  return std::nullopt;
}

/// The attribute of an f32 result `type` (f32 or tensor<f32>) holding `v`.
static Attribute getScalarResult(Type type, float v) {
  auto f32 = Float32Type::get(type.getContext());
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return DenseElementsAttr::get(tensor, APFloat(v));
  return FloatAttr::get(f32, v);
}

static LogicalResult verifySameShape(Operation *op, Type input, Type result) {
  if (cast<ShapedType>(input).getShape() != cast<ShapedType>(result).getShape())
    return op->emitOpError() << "expects the result to have the shape of the "
                                "input "
                             << input << ", got " << result;
  return success();
}

OpFoldResult AmaxOp::fold(FoldAdaptor adaptor) {
  auto input = dyn_cast_or_null<DenseFPElementsAttr>(adaptor.getInput());
  if (!input)
    return {};
  float amax = 0.0f;
  for (APFloat value : input.getValues<APFloat>()) {
    bool losesInfo;
    value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
    float magnitude = std::fabs(value.convertToFloat());
    if (std::isnan(magnitude)) {
      amax = magnitude;
      break;
    }
    amax = std::max(amax, magnitude);
  }
  return getScalarResult(getType(), amax);
}

float QuantizeOp::getLargestFinite(FloatType type) {
  APFloat largest = APFloat::getLargest(type.getFloatSemantics());
  bool losesInfo;
  largest.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
  return largest.convertToFloat();
}

/// x * scale in f32, clamped to [-max, max] (NaN stays NaN), rounded to
/// nearest even in `semantics`: amp.quantize's meaning.
static APFloat quantizeValue(APFloat x, float scale, float max,
                             const llvm::fltSemantics &semantics) {
  bool losesInfo;
  x.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &losesInfo);
  float v = x.convertToFloat() * scale;
  if (!std::isnan(v))
    v = std::min(std::max(v, -max), max);
  APFloat result(v);
  result.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
  return result;
}

LogicalResult QuantizeOp::verify() {
  return verifySameShape(*this, getInput().getType(), getType());
}

OpFoldResult QuantizeOp::fold(FoldAdaptor adaptor) {
  auto input = dyn_cast_or_null<DenseFPElementsAttr>(adaptor.getInput());
  std::optional<float> scale = getConstantScale(adaptor.getScale());
  if (!input || !scale)
    return {};
  auto type = cast<RankedTensorType>(getType());
  auto element = cast<FloatType>(type.getElementType());
  const llvm::fltSemantics &semantics = element.getFloatSemantics();
  float max = getLargestFinite(element);
  if (input.isSplat())
    return DenseElementsAttr::get(
        type,
        quantizeValue(input.getSplatValue<APFloat>(), *scale, max, semantics));
  SmallVector<APFloat> values;
  values.reserve(input.getNumElements());
  for (APFloat value : input.getValues<APFloat>())
    values.push_back(quantizeValue(value, *scale, max, semantics));
  return DenseElementsAttr::get(type, values);
}

LogicalResult DequantizeOp::verify() {
  return verifySameShape(*this, getInput().getType(), getType());
}

//===----------------------------------------------------------------------===//
// ScaledMatmulOp
//===----------------------------------------------------------------------===//

LogicalResult ScaledMatmulOp::verify() {
  bool onTensors = isa<TensorType>(getInit().getType());
  for (Value value : getOperands())
    if (isa<TensorType>(value.getType()) != onTensors)
      return emitOpError("expects every operand to be a tensor, or every "
                         "operand a buffer");
  if (onTensors != (getNumResults() == 1) ||
      (onTensors && getResult().front().getType() != getInit().getType()))
    return emitOpError("expects one result of the destination's type on "
                       "tensors, and none on buffers");
  auto lhs = cast<ShapedType>(getLhs().getType());
  auto rhs = cast<ShapedType>(getRhs().getType());
  auto init = cast<ShapedType>(getInit().getType());
  auto scale = cast<ShapedType>(getScale().getType());
  for (ShapedType operand : {lhs, rhs})
    if (!isa<Float8E4M3FNType, Float8E5M2Type>(operand.getElementType()))
      return emitOpError() << "expects f8E4M3FN or f8E5M2 operands, got "
                           << operand;
  if (!isa<Float32Type, BFloat16Type, Float16Type>(init.getElementType()))
    return emitOpError() << "expects an f32, bf16 or f16 destination, got "
                         << init;
  if (scale.getRank() != 0 || !scale.getElementType().isF32())
    return emitOpError() << "expects the scale to be a 0-d f32, got " << scale;
  int64_t rank = init.getRank();
  if ((rank != 2 && rank != 3) || lhs.getRank() != rank ||
      rhs.getRank() != rank)
    return emitOpError("expects operands and destination of rank 2 (m x k, "
                       "n x k, m x n) or all of rank 3 (with a batch first)");
  // The sizes that must agree: (operand, dim) pairs of m, n, k and batch.
  unsigned o = rank - 2;
  auto agree = [](int64_t a, int64_t b) {
    return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
  };
  if ((rank == 3 && (!agree(lhs.getDimSize(0), init.getDimSize(0)) ||
                     !agree(rhs.getDimSize(0), init.getDimSize(0)))) ||
      !agree(lhs.getDimSize(o), init.getDimSize(o)) ||
      !agree(rhs.getDimSize(o), init.getDimSize(o + 1)) ||
      !agree(lhs.getDimSize(o + 1), rhs.getDimSize(o + 1)))
    return emitOpError() << "expects lhs [b x] m x k, rhs [b x] n x k and "
                            "destination [b x] m x n, got "
                         << lhs << ", " << rhs << " and " << init;
  return success();
}

SmallVector<AffineMap, 3> ScaledMatmulOp::getIndexingMaps(MLIRContext *context,
                                                          bool batched) {
  unsigned o = batched ? 1 : 0;
  auto dims = [&](std::initializer_list<unsigned> positions) {
    SmallVector<AffineExpr> results;
    if (batched)
      results.push_back(getAffineDimExpr(0, context));
    for (unsigned p : positions)
      results.push_back(getAffineDimExpr(p + o, context));
    return AffineMap::get(3 + o, 0, results, context);
  };
  return {dims({0, 2}), dims({1, 2}), dims({0, 1})};
}

// A contraction (white) that accumulates in f32, already in FP8: a level
// leaves it as it is (convertToPrecision fails, which it reports).
Category ScaledMatmulOp::getAmpCategory() { return Category::White; }

bool ScaledMatmulOp::operandMustStayF32(unsigned operandIndex) {
  return operandIndex == getScaleMutable().getOperandNumber();
}

FloatType ScaledMatmulOp::getAccumulatorType(FloatType) {
  return Float32Type::get(getContext());
}

LogicalResult ScaledMatmulOp::convertToPrecision(RewriterBase &, FloatType,
                                                 ValueCaster &) {
  return failure();
}

void ScaledMatmulOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // On buffers: reads the operands and the scale, writes the destination
  // (without reading it). On tensors: none.
  addWriteOnlyDestinationEffects(*this, effects);
}

//===----------------------------------------------------------------------===//
// Conv2DBackwardDataOp / Conv2DBackwardFilterOp
//===----------------------------------------------------------------------===//

SmallVector<int64_t, 4>
mlir::amp::getConvolutionGradientSizes(ArrayRef<int64_t> shape,
                                       bool channelsLast) {
  static constexpr int64_t kToFirst[] = {0, 3, 1, 2};
  return channelsLast
             ? SmallVector<int64_t, 4>(applyPermutation(shape, kToFirst))
             : SmallVector<int64_t, 4>(shape);
}

/// The checks both convolution gradients share: operands all tensors or all
/// buffers, one result of the destination's type on tensors, float element
/// types, the attributes, and the sizes of the forward convolution whose
/// input is `xType` (n x c x h x w), filter `wType` (f x c x kh x kw) and
/// output `yType` (n x f x oh x ow), each one of the op's operands; with
/// `channelsLast`, each stored as n x h x w x c (f x kh x kw x c, n x oh x
/// ow x f).
static LogicalResult
verifyConvolutionGradient(Operation *op, Value init, ShapedType xType,
                          ShapedType wType, ShapedType yType,
                          ArrayRef<int64_t> strides, ArrayRef<int64_t> padding,
                          ArrayRef<int64_t> dilations, bool channelsLast) {
  bool onTensors = isa<TensorType>(init.getType());
  for (Value value : op->getOperands())
    if (isa<TensorType>(value.getType()) != onTensors)
      return op->emitOpError("expects every operand to be a tensor, or every "
                             "operand a buffer");
  if (onTensors != (op->getNumResults() == 1) ||
      (onTensors && op->getResult(0).getType() != init.getType()))
    return op->emitOpError("expects one result of the destination's type on "
                           "tensors, and none on buffers");
  for (ShapedType type : {xType, wType, yType})
    if (type.getRank() != 4 || !isa<FloatType>(type.getElementType()))
      return op->emitOpError()
             << "expects operands and destination of rank 4 with float "
                "elements, got "
             << type;
  auto sizes = [&](ShapedType type) {
    return getConvolutionGradientSizes(type.getShape(), channelsLast);
  };
  SmallVector<int64_t, 4> x = sizes(xType), w = sizes(wType), y = sizes(yType);
  if (strides.size() != 2 || padding.size() != 2 || dilations.size() != 2)
    return op->emitOpError("expects two strides, two paddings and two "
                           "dilations (height, width)");
  for (int i = 0; i < 2; ++i)
    if (strides[i] < 1 || dilations[i] < 1 || padding[i] < 0)
      return op->emitOpError("expects strides and dilations >= 1 and "
                             "paddings >= 0");
  auto agree = [](int64_t a, int64_t b) {
    return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
  };
  if (!agree(x[0], y[0]) || !agree(x[1], w[1]) || !agree(w[0], y[1]))
    return op->emitOpError()
           << (channelsLast
                   ? "expects (channels_last) the input n x h x w x c, the "
                     "filter f x kh x kw x c and the output gradient n x oh "
                     "x ow x f, got "
                   : "expects the input n x c x h x w, the filter f x c x kh "
                     "x kw and the output gradient n x f x oh x ow, got ")
           << xType << ", " << wType << " and " << yType;
  for (int i = 0; i < 2; ++i) {
    int64_t in = x[2 + i], kernel = w[2 + i], out = y[2 + i];
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(kernel) ||
        ShapedType::isDynamic(out))
      continue;
    int64_t span = in + 2 * padding[i] - dilations[i] * (kernel - 1) - 1;
    if (span < 0 || out != span / strides[i] + 1)
      return op->emitOpError()
             << "expects the output gradient's " << (i ? "width" : "height")
             << " to be the forward convolution's, "
             << (span < 0 ? 0 : span / strides[i] + 1) << ", got " << out;
  }
  return success();
}

/// On buffers: reads the two operands and reads and writes the destination
/// (it accumulates). On tensors: none.
static void getConvolutionGradientEffects(
    Operation *op,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    effects.emplace_back(MemoryEffects::Read::get(), &operand, /*stage=*/0,
                         /*effectOnFullRegion=*/true,
                         SideEffects::DefaultResource::get());
    if (operand.getOperandNumber() == op->getNumOperands() - 1)
      effects.emplace_back(MemoryEffects::Write::get(), &operand, /*stage=*/0,
                           /*effectOnFullRegion=*/true,
                           SideEffects::DefaultResource::get());
  }
}

LogicalResult Conv2DBackwardDataOp::verify() {
  return verifyConvolutionGradient(
      *this, getInit(), cast<ShapedType>(getInit().getType()),
      cast<ShapedType>(getRhs().getType()),
      cast<ShapedType>(getLhs().getType()), getStrides(), getPadding(),
      getDilations(), getChannelsLast());
}

void Conv2DBackwardDataOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getConvolutionGradientEffects(*this, effects);
}

LogicalResult Conv2DBackwardFilterOp::verify() {
  return verifyConvolutionGradient(
      *this, getInit(), cast<ShapedType>(getLhs().getType()),
      cast<ShapedType>(getInit().getType()),
      cast<ShapedType>(getRhs().getType()), getStrides(), getPadding(),
      getDilations(), getChannelsLast());
}

void Conv2DBackwardFilterOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getConvolutionGradientEffects(*this, effects);
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

/// Whether two sizes may be equal (either dynamic, or both the same).
static bool sizesAgree(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// The checks of an attention's destinations (`expected` of them, named in
/// `what`): all operands tensors or all buffers, and on tensors one result
/// per destination, of its type.
static LogicalResult
verifyAttentionDestinations(Operation *op, ValueRange inits, size_t minInits,
                            size_t maxInits, StringRef what) {
  if (inits.size() < minInits || inits.size() > maxInits)
    return op->emitOpError("expects ") << what << ", got " << inits.size();
  bool onTensors = isa<TensorType>(op->getOperand(0).getType());
  for (Value value : op->getOperands())
    if (isa<TensorType>(value.getType()) != onTensors)
      return op->emitOpError("expects every operand to be a tensor, or every "
                             "operand a buffer");
  if (onTensors != (op->getNumResults() == inits.size()) ||
      (!onTensors && op->getNumResults() != 0) ||
      (onTensors && TypeRange(inits) != op->getResultTypes()))
    return op->emitOpError("expects one result of each destination's type on "
                           "tensors, and none on buffers");
  return success();
}

namespace {
/// An attention's (forward or backward) tensors, checked together: those
/// of the query's sizes (query first), those of the key's (key, value
/// first), with the names the diagnostics give them.
struct AttentionTensors {
  SmallVector<Value> likeQuery, likeKey;
  StringRef names, sizesNames;
  Value bias, stats;
  bool bshd;
  float scale;

  /// The tensors in the diagnostics' order: query, key, value, then the
  /// others of the query's sizes and those of the key's.
  SmallVector<Value> ordered() const {
    SmallVector<Value> all{likeQuery[0], likeKey[0], likeKey[1]};
    llvm::append_range(all, ArrayRef<Value>(likeQuery).drop_front());
    llvm::append_range(all, ArrayRef<Value>(likeKey).drop_front(2));
    return all;
  }
};
} // namespace

static LogicalResult verifyAttentionTensors(Operation *op,
                                            const AttentionTensors &t) {
  auto query = cast<ShapedType>(t.likeQuery.front().getType());
  Type element = query.getElementType();
  if (!element.isF32() && !element.isF16() && !element.isBF16())
    return op->emitOpError("expects f32, f16 or bf16 elements, got ")
           << element;
  for (Value v : t.ordered()) {
    auto type = cast<ShapedType>(v.getType());
    if (type.getRank() != 4 || type.getElementType() != element) {
      InFlightDiagnostic diag = op->emitOpError("expects ")
                                << t.names
                                << " of rank 4 with one element type, got ";
      llvm::interleaveComma(t.ordered(), diag,
                            [&](Value v) { diag << v.getType(); });
      return diag;
    }
  }
  // Sizes in (batch, heads, sequence, head dimension) order.
  std::array<unsigned, 4> order = t.bshd ? std::array<unsigned, 4>{0, 2, 1, 3}
                                         : std::array<unsigned, 4>{0, 1, 2, 3};
  auto sizes = [&](Value v) {
    auto type = cast<ShapedType>(v.getType());
    std::array<int64_t, 4> result;
    for (int i = 0; i < 4; ++i)
      result[i] = type.getDimSize(order[i]);
    return result;
  };
  std::array<int64_t, 4> q = sizes(t.likeQuery.front()),
                         k = sizes(t.likeKey.front());
  bool agree = true;
  for (Value v : t.likeQuery) {
    std::array<int64_t, 4> s = sizes(v);
    for (int i = 0; i < 4; ++i)
      agree &= sizesAgree(q[i], s[i]);
  }
  for (Value v : t.likeKey) {
    std::array<int64_t, 4> s = sizes(v);
    for (int i = 0; i < 4; ++i)
      agree &= sizesAgree(i == 2 ? k[i] : q[i], s[i]);
  }
  if (!agree) {
    InFlightDiagnostic diag =
        op->emitOpError() << "expects query "
                          << (t.bshd ? "B x Sq x H x D" : "B x H x Sq x D")
                          << ", key and value "
                          << (t.bshd ? "B x Skv x H x D" : "B x H x Skv x D")
                          << t.sizesNames << ", got ";
    llvm::interleaveComma(t.ordered(), diag,
                          [&](Value v) { diag << v.getType(); });
    return diag;
  }
  if (Value bias = t.bias) {
    auto type = cast<ShapedType>(bias.getType());
    if (type.getRank() != 4 || type.getElementType() != element ||
        (type.getDimSize(0) != 1 && !sizesAgree(type.getDimSize(0), q[0])) ||
        (type.getDimSize(1) != 1 && !sizesAgree(type.getDimSize(1), q[1])) ||
        !sizesAgree(type.getDimSize(2), q[2]) ||
        !sizesAgree(type.getDimSize(3), k[2]))
      return op->emitOpError("expects a bias of the query's element type, ")
             << "B|1 x H|1 x Sq x Skv, got " << type;
  }
  if (Value stats = t.stats) {
    auto type = cast<ShapedType>(stats.getType());
    if (type.getRank() != 3 || !type.getElementType().isF32() ||
        !sizesAgree(type.getDimSize(0), q[0]) ||
        !sizesAgree(type.getDimSize(1), q[1]) ||
        !sizesAgree(type.getDimSize(2), q[2]))
      return op->emitOpError("expects stats of f32, B x H x Sq, got ") << type;
  }
  if (!std::isfinite(t.scale))
    return op->emitOpError("expects a finite scale");
  return success();
}

LogicalResult AttentionOp::verify() {
  if (failed(verifyAttentionDestinations(*this, getInits(), 1, 2,
                                         "one or two destinations (out, "
                                         "stats)")))
    return failure();
  return verifyAttentionTensors(*this, {{getQuery(), getOut()},
                                        {getKey(), getValue()},
                                        "query, key, value and out",
                                        " and out of query's sizes",
                                        getBias(),
                                        getStats(),
                                        getBshd(),
                                        getScale().convertToFloat()});
}

LogicalResult AttentionBackwardOp::verify() {
  if (failed(verifyAttentionDestinations(*this, getInits(), 3, 3,
                                         "three destinations (grad_query, "
                                         "grad_key, grad_value)")))
    return failure();
  return verifyAttentionTensors(
      *this, {{getQuery(), getOut(), getGradOut(), getGradQuery()},
              {getKey(), getValue(), getGradKey(), getGradValue()},
              "query, key, value, out, grad_out and the gradients",
              ", out, grad_out and grad_query of query's sizes, grad_key and "
              "grad_value of key's",
              getBias(),
              getStats(),
              getBshd(),
              getScale().convertToFloat()});
}

/// On buffers: reads the inputs, writes the destinations (not read).
static void getAttentionEffects(
    Operation *op, DestinationStyleOpInterface dps,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    if (dps.isDpsInit(&operand))
      effects.emplace_back(MemoryEffects::Write::get(), &operand, /*stage=*/0,
                           /*effectOnFullRegion=*/true,
                           SideEffects::DefaultResource::get());
    else
      effects.emplace_back(MemoryEffects::Read::get(), &operand, /*stage=*/0,
                           /*effectOnFullRegion=*/true,
                           SideEffects::DefaultResource::get());
  }
}

void AttentionOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getAttentionEffects(*this, *this, effects);
}

void AttentionBackwardOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getAttentionEffects(*this, *this, effects);
}

#define GET_OP_CLASSES
#include "amp/Dialect/Amp/IR/AmpOps.cpp.inc"
