//===- AmpInterfaces.cpp - amp op interfaces ------------------------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpInterfaces.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::amp;

ValueCaster::~ValueCaster() = default;

Type ValueCaster::convertType(Type type, Type elementType) {
  return withFloatElementType(type, elementType);
}

// FloatType and ShapedType are interfaces: a failed isa<> on them looks up
// the type's interface map and then the dialects' promised interfaces. The
// AMP passes ask these questions of every operand and result, so the common
// builtin types are answered first by their TypeID.

/// The element type of a builtin shaped type, or `type` itself.
static Type getElementTypeFast(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getElementType();
  if (isa<Float32Type, Float16Type, BFloat16Type, Float64Type, IntegerType,
          IndexType>(type))
    return type;
  return getElementTypeOrSelf(type);
}

static FloatType getFloatTypeFast(Type type) {
  if (isa<Float32Type, Float16Type, BFloat16Type, Float64Type>(type))
    return cast<FloatType>(type);
  if (isa<IntegerType, IndexType>(type))
    return {};
  return dyn_cast<FloatType>(type);
}

bool mlir::amp::isFloatLike(Type type) {
  return static_cast<bool>(getFloatTypeFast(getElementTypeFast(type)));
}

FloatType mlir::amp::getFloatElementType(Type type) {
  return getFloatTypeFast(getElementTypeFast(type));
}

bool mlir::amp::isExactConversion(Type from, Type to) {
  FloatType fromElement = getFloatTypeFast(getElementTypeFast(from));
  FloatType toElement = getFloatTypeFast(getElementTypeFast(to));
  return fromElement && toElement &&
         llvm::APFloatBase::isRepresentableBy(fromElement.getFloatSemantics(),
                                              toElement.getFloatSemantics());
}

Value mlir::amp::convertFloat(OpBuilder &builder, Location loc, Value value,
                              Type type) {
  if (value.getType() == type)
    return value;
  if (isExactConversion(value.getType(), type))
    return arith::ExtFOp::create(builder, loc, type, value);
  if (isExactConversion(type, value.getType()))
    return arith::TruncFOp::create(builder, loc, type, value);
  Type wide = withFloatElementType(type, builder.getF32Type());
  Value extended = arith::ExtFOp::create(builder, loc, wide, value);
  return arith::TruncFOp::create(builder, loc, type, extended);
}

Type mlir::amp::withFloatElementType(Type type, Type elementType) {
  if (!isFloatLike(type))
    return type;
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.clone(elementType);
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.clone(elementType);
  return elementType;
}

SmallVector<Value> mlir::amp::castOperandsToPrecision(
    Operation *op, FloatType computeType, ValueCaster &caster,
    function_ref<bool(OpOperand &)> isAccumulator) {
  auto iface = cast<AmpPrecisionOpInterface>(op);
  Type f32 = Float32Type::get(op->getContext());
  FloatType accumulator = iface.getAccumulatorType(computeType);
  SmallVector<Value> operands;
  for (OpOperand &operand : op->getOpOperands()) {
    Value value = operand.get();
    if (!isFloatLike(value.getType())) {
      operands.push_back(value);
      continue;
    }
    Type element = computeType;
    if (accumulator && isAccumulator && isAccumulator(operand))
      element = accumulator;
    else if (iface.operandMustStayF32(operand.getOperandNumber()))
      element = f32;
    operands.push_back(caster.cast(value, element));
  }
  return operands;
}

LogicalResult mlir::amp::detail::convertElementTypesInPlace(
    Operation *op, RewriterBase &rewriter, FloatType computeType,
    ValueCaster &caster) {
  auto iface = cast<AmpPrecisionOpInterface>(op);
  // Only ops whose types are not tied to regions or attributes qualify.
  if (op->getNumRegions() != 0)
    return failure();
  FloatType accumulator = iface.getAccumulatorType(computeType);
  SmallVector<Value> operands =
      castOperandsToPrecision(op, computeType, caster);
  Type resultElement = accumulator ? Type(accumulator) : Type(computeType);
  rewriter.modifyOpInPlace(op, [&] {
    op->setOperands(operands);
    for (OpResult result : op->getResults())
      result.setType(caster.convertType(result.getType(), resultElement));
  });
  return success();
}

#include "amp/Dialect/Amp/IR/AmpInterfaces.cpp.inc"
