//===- ConstantUtils.cpp - float constants under AMP ----------------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "ConstantUtils.h"

#include "amp/Dialect/Amp/IR/AmpInterfaces.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"

using namespace mlir;
using namespace mlir::amp;

Attribute mlir::amp::getFloatConstant(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return {};
  Attribute attr;
  if (auto constant = dyn_cast<arith::ConstantOp>(def))
    attr = constant.getValue();
  else if (auto constant = dyn_cast<tosa::ConstOp>(def))
    attr = constant.getValues();
  if (isa_and_nonnull<FloatAttr, DenseFPElementsAttr>(attr))
    return attr;
  return {};
}

Attribute mlir::amp::convertFloatConstant(Attribute attr, FloatType type,
                                          bool *overflow) {
  auto convert = [&](APFloat value) {
    bool losesInfo;
    bool wasFinite = value.isFinite();
    value.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
    if (overflow && wasFinite && value.isInfinity())
      *overflow = true;
    return value;
  };
  if (auto scalar = dyn_cast<FloatAttr>(attr))
    return FloatAttr::get(type, convert(scalar.getValue()));
  auto dense = cast<DenseFPElementsAttr>(attr);
  if (dense.isSplat())
    return DenseElementsAttr::get(dense.getType().clone(type),
                                  convert(dense.getSplatValue<APFloat>()));
  return dense.mapValues(type, [&](const APFloat &value) {
    return convert(value).bitcastToAPInt();
  });
}

/// True if finite `value` rounds to an infinity in `semantics`.
static bool overflowsIn(APFloat value, const llvm::fltSemantics &semantics) {
  if (!value.isFinite())
    return false;
  bool losesInfo;
  value.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
  return value.isInfinity();
}

bool mlir::amp::floatConstantOverflows(Value value, FloatType type) {
  Attribute attr = getFloatConstant(value);
  if (!attr)
    return false;
  // Element by element: converting the whole attribute would build (and
  // unique) a new one only to throw it away.
  const llvm::fltSemantics &semantics = type.getFloatSemantics();
  if (auto scalar = dyn_cast<FloatAttr>(attr))
    return overflowsIn(scalar.getValue(), semantics);
  auto dense = cast<DenseFPElementsAttr>(attr);
  if (dense.isSplat())
    return overflowsIn(dense.getSplatValue<APFloat>(), semantics);
  return llvm::any_of(dense.getValues<APFloat>(), [&](const APFloat &v) {
    return overflowsIn(v, semantics);
  });
}

Value mlir::amp::materializeFloatConstantLike(OpBuilder &builder, Value value,
                                              Attribute attr, Type type) {
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointAfterValue(value);
  Location loc = value.getLoc();
  if (isa_and_nonnull<tosa::ConstOp>(value.getDefiningOp()))
    return tosa::ConstOp::create(builder, loc, type, cast<ElementsAttr>(attr));
  return arith::ConstantOp::create(builder, loc, cast<TypedAttr>(attr));
}

Value mlir::amp::recreateInType(OpBuilder &builder, Value value, Type target) {
  if (Attribute attr = getFloatConstant(value)) {
    bool overflow = false;
    Attribute converted =
        convertFloatConstant(attr, getFloatElementType(target), &overflow);
    if (overflow)
      return {};
    return materializeFloatConstantLike(builder, value, converted, target);
  }
  if (auto empty = value.getDefiningOp<tensor::EmptyOp>()) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointAfter(empty);
    return tensor::EmptyOp::create(builder, empty.getLoc(), target,
                                   empty.getDynamicSizes());
  }
  return {};
}
