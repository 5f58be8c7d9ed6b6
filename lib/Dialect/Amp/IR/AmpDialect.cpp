//===- AmpDialect.cpp - amp dialect ---------------------------------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"

#include "amp/Dialect/Amp/IR/AmpAttributes.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "mlir/IR/Builders.h"
#include "mlir/Transforms/InliningUtils.h"

using namespace mlir;
using namespace mlir::amp;

#include "amp/Dialect/Amp/IR/AmpDialect.cpp.inc"
#include "amp/Dialect/Amp/IR/AmpEnums.cpp.inc"

namespace {
/// Every amp op may be inlined: the region op has no arguments and is not
/// isolated, and the others are pure or carry their own state as operands.
struct AmpInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void AmpDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "amp/Dialect/Amp/IR/AmpOps.cpp.inc"
      >();
  registerAttributes();
  addInterfaces<AmpInlinerInterface>();
}

LogicalResult AmpDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  if (attr.getName() == kPrecisionAttrName) {
    auto str = dyn_cast<StringAttr>(attr.getValue());
    if (!str || !symbolizePrecision(str.getValue()))
      return op->emitError()
             << "'" << kPrecisionAttrName
             << "' must be one of \"f32\", \"f16\" or \"bf16\", got "
             << attr.getValue();
    return success();
  }
  if (attr.getName() == kAppliedAttrName) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitError() << "'" << kAppliedAttrName
                             << "' must be a string, got " << attr.getValue();
    return success();
  }
  if (attr.getName() == kStreamOrderedAttrName) {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << kStreamOrderedAttrName
                             << "' must be a unit attribute on a function";
    return success();
  }
  if (attr.getName() == kNanInfSitesAttrName) {
    auto sites = dyn_cast<ArrayAttr>(attr.getValue());
    if (!sites || !isa<ModuleOp>(op) ||
        !llvm::all_of(sites, [](Attribute a) { return isa<StringAttr>(a); }))
      return op->emitError() << "'" << kNanInfSitesAttrName
                             << "' must be an array of strings on a module";
    return success();
  }
  return op->emitError() << "unknown amp dialect attribute '"
                         << attr.getName().getValue() << "' (known: '"
                         << kPrecisionAttrName << "', '" << kAppliedAttrName
                         << "', '" << kStreamOrderedAttrName << "', '"
                         << kNanInfSitesAttrName << "')";
}

LogicalResult AmpDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attr) {
  if (attr.getName() != kMasterAttrName)
    return op->emitError() << "unknown amp dialect argument attribute '"
                           << attr.getName().getValue() << "' (known: '"
                           << kMasterAttrName << "')";
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitError() << "'" << kMasterAttrName
                           << "' must be a unit attribute";
  Region &region = op->getRegion(regionIndex);
  if (region.empty() || argIndex >= region.getNumArguments())
    return success();
  // An f32 tensor (a memref after bufferization; lowered pointer types are
  // not checked).
  Type type = region.getArgument(argIndex).getType();
  Type element = getElementTypeOrSelf(type);
  bool valueType = isa<ShapedType, FloatType, IntegerType, IndexType>(type);
  if (valueType && !element.isF32())
    return op->emitError() << "'" << kMasterAttrName << "' marks an fp32 "
                           << "master weight: argument #" << argIndex
                           << " must hold f32 elements, got " << type;
  return success();
}

//===----------------------------------------------------------------------===//
// Precision helpers
//===----------------------------------------------------------------------===//

std::optional<Precision> mlir::amp::getPinnedPrecision(Operation *op) {
  auto str = op->getAttrOfType<StringAttr>(AmpDialect::kPrecisionAttrName);
  if (!str)
    return std::nullopt;
  return symbolizePrecision(str.getValue());
}

void mlir::amp::setPinnedPrecision(Operation *op, Precision precision) {
  op->setAttr(AmpDialect::kPrecisionAttrName,
              StringAttr::get(op->getContext(), stringifyPrecision(precision)));
}

FloatType mlir::amp::getFloatType(MLIRContext *context, Precision precision) {
  switch (precision) {
  case Precision::f32:
    return Float32Type::get(context);
  case Precision::f16:
    return Float16Type::get(context);
  case Precision::bf16:
    return BFloat16Type::get(context);
  }
  llvm_unreachable("unknown precision");
}

std::optional<Precision> mlir::amp::getPrecision(Type elementType) {
  if (elementType.isF32())
    return Precision::f32;
  if (elementType.isF16())
    return Precision::f16;
  if (elementType.isBF16())
    return Precision::bf16;
  return std::nullopt;
}
