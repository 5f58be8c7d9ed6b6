//===- Ranges.cpp - calibrated ranges of tensors --------------------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "Ranges.h"

#include "amp/Dialect/Amp/IR/AmpDialect.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::amp;

static bool isRanged(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && isa<FloatType>(type.getElementType());
}

FailureOr<SmallVector<Value>> mlir::amp::getRangedValues(func::FuncOp function,
                                                         StringRef pass) {
  if (!function.getBody().hasOneBlock())
    return mlir::emitError(function.getLoc())
           << pass << ": '@" << function.getSymName() << "' has "
           << function.getBody().getBlocks().size()
           << " blocks; calibration supports functions of one block";
  SmallVector<Value> values;
  for (BlockArgument argument : function.getArguments())
    if (isRanged(argument))
      values.push_back(argument);
  for (Operation &op : function.getBody().front()) {
    if (isa<tensor::EmptyOp>(op))
      continue;
    for (Value result : op.getResults())
      if (isRanged(result))
        values.push_back(result);
  }
  return values;
}

FailureOr<func::FuncOp> mlir::amp::getCalibratedFunction(ModuleOp module,
                                                         StringRef name,
                                                         StringRef pass) {
  if (!name.empty()) {
    auto function = module.lookupSymbol<func::FuncOp>(name);
    if (!function || function.isExternal())
      return mlir::emitError(module.getLoc())
             << pass << ": no function with a body named '" << name << "'";
    return function;
  }
  func::FuncOp only;
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isExternal() || !function.isPublic())
      continue;
    if (only)
      return mlir::emitError(module.getLoc())
             << pass << ": the module has several public functions ('@"
             << only.getSymName() << "', '@" << function.getSymName()
             << "', ...): name one with function=";
    only = function;
  }
  if (!only)
    return mlir::emitError(module.getLoc())
           << pass << ": the module has no public function";
  return only;
}

std::optional<double> mlir::amp::getCalibratedAbsMax(Value value) {
  if (auto result = dyn_cast<OpResult>(value)) {
    auto maxima = result.getOwner()->getAttrOfType<DenseF32ArrayAttr>(
        AmpDialect::kAbsMaxAttrName);
    if (!maxima ||
        static_cast<int64_t>(result.getResultNumber()) >= maxima.size())
      return std::nullopt;
    float max = maxima[result.getResultNumber()];
    if (max < 0)
      return std::nullopt;
    return max;
  }
  auto argument = cast<BlockArgument>(value);
  auto function =
      dyn_cast_or_null<func::FuncOp>(argument.getOwner()->getParentOp());
  if (!function || argument.getOwner() != &function.getBody().front())
    return std::nullopt;
  auto max = function.getArgAttrOfType<FloatAttr>(argument.getArgNumber(),
                                                  AmpDialect::kAbsMaxAttrName);
  if (!max)
    return std::nullopt;
  return max.getValueAsDouble();
}
