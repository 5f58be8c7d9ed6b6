//===- AmpDialect.cpp - amp dialect ---------------------------------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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

/// The constants the folds of amp.amax and amp.quantize produce (an f32,
/// or a dense tensor of f32 or FP8), as arith.constant.
Operation *AmpDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto typed = dyn_cast<TypedAttr>(value);
  if (!typed || typed.getType() != type ||
      !arith::ConstantOp::isBuildableWith(typed, type))
    return nullptr;
  return arith::ConstantOp::create(builder, loc, type, typed);
}

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
  if (attr.getName() == kRoundingAttrName) {
    auto str = dyn_cast<StringAttr>(attr.getValue());
    if (!str || (str.getValue() != "once" && str.getValue() != "per-op"))
      return op->emitError()
             << "'" << kRoundingAttrName
             << "' must be \"once\" or \"per-op\", got " << attr.getValue();
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
  if (attr.getName() == kOptimizerAttrName) {
    // The settings are checked by amp-training, which reads them.
    if (!isa<DictionaryAttr>(attr.getValue()) || !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << kOptimizerAttrName
                             << "' must be a dictionary on a function";
    return success();
  }
  if (attr.getName() == kLossScalingAttrName) {
    if (!isa<LossScalingAttr>(attr.getValue()) || !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << kLossScalingAttrName
                             << "' must be a #amp.loss_scaling on a function";
    return success();
  }
  if (attr.getName() == kFloat8SourceAttrName) {
    Type element = op->getNumResults() == 1
                       ? getElementTypeOrSelf(op->getResult(0).getType())
                       : Type();
    if (!isa<UnitAttr>(attr.getValue()) ||
        !op->hasTrait<OpTrait::ConstantLike>() || !element || !element.isF32())
      return op->emitError() << "'" << kFloat8SourceAttrName
                             << "' must be a unit attribute on an f32 constant";
    return success();
  }
  if (attr.getName() == kAbsMaxAttrName) {
    auto maxima = dyn_cast<DenseF32ArrayAttr>(attr.getValue());
    if (!maxima || maxima.size() != static_cast<int64_t>(op->getNumResults()))
      return op->emitError()
             << "'" << kAbsMaxAttrName
             << "' must be an array<f32> with one entry per result ("
             << op->getNumResults() << "), got " << attr.getValue();
    return success();
  }
  if (attr.getName() == kUnevenBlocksAttrName) {
    auto bodies = dyn_cast<IntegerAttr>(attr.getValue());
    if (!bodies || !bodies.getType().isInteger(32) || bodies.getInt() < 2 ||
        op->getName().getStringRef() != "gpu.module")
      return op->emitError()
             << "'" << kUnevenBlocksAttrName
             << "' must be an i32 of at least 2 (the kernel's bodies) on a "
                "gpu.module";
    return success();
  }
  return op->emitError() << "unknown amp dialect attribute '"
                         << attr.getName().getValue() << "' (known: '"
                         << kPrecisionAttrName << "', '" << kAppliedAttrName
                         << "', '" << kStreamOrderedAttrName << "', '"
                         << kNanInfSitesAttrName << "', '" << kOptimizerAttrName
                         << "', '" << kLossScalingAttrName << "', '"
                         << kFloat8SourceAttrName << "', '" << kAbsMaxAttrName
                         << "', '" << kUnevenBlocksAttrName << "')";
}

namespace {
/// The argument and result attributes of the training-step convention
/// (amp-training): a unit flag or a string naming the value.
enum class ConventionValue { Unit, String };
struct ConventionAttr {
  llvm::StringLiteral name;
  ConventionValue value;
  bool onArgument, onResult;
};
constexpr ConventionAttr kConventionAttrs[] = {
    {AmpDialect::kParamAttrName, ConventionValue::String, true, true},
    {AmpDialect::kBufferAttrName, ConventionValue::String, true, true},
    {AmpDialect::kBatchAttrName, ConventionValue::Unit, true, false},
    {AmpDialect::kLossSeedAttrName, ConventionValue::Unit, true, false},
    {AmpDialect::kLossAttrName, ConventionValue::Unit, false, true},
    {AmpDialect::kGradAttrName, ConventionValue::String, false, true},
    {AmpDialect::kOptimizerStateAttrName, ConventionValue::String, true, true},
    {AmpDialect::kScalerAttrName, ConventionValue::String, true, true},
    {AmpDialect::kFoundInfAttrName, ConventionValue::Unit, false, true},
    {AmpDialect::kFloat8StateAttrName, ConventionValue::String, true, true},
};

LogicalResult verifyConventionAttr(Operation *op, NamedAttribute attr,
                                   bool onArgument, StringRef known) {
  StringRef where = onArgument ? "argument" : "result";
  for (const ConventionAttr &c : kConventionAttrs) {
    if (attr.getName() != c.name)
      continue;
    if (onArgument ? !c.onArgument : !c.onResult)
      break;
    if (c.value == ConventionValue::Unit && !isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << c.name << "' must be a unit attribute";
    if (c.value == ConventionValue::String && !isa<StringAttr>(attr.getValue()))
      return op->emitError()
             << "'" << c.name << "' must be a string, got " << attr.getValue();
    return success();
  }
  return op->emitError() << "unknown amp dialect " << where << " attribute '"
                         << attr.getName().getValue() << "' (known: " << known
                         << ")";
}

std::string conventionNames(bool onArgument) {
  std::string names;
  if (onArgument)
    names = "'amp.master', 'amp.absmax'";
  for (const ConventionAttr &c : kConventionAttrs) {
    if (onArgument ? !c.onArgument : !c.onResult)
      continue;
    if (!names.empty())
      names += ", ";
    names += ("'" + c.name + "'").str();
  }
  return names;
}
} // namespace

LogicalResult AmpDialect::verifyRegionResultAttribute(Operation *op,
                                                      unsigned regionIndex,
                                                      unsigned resultIndex,
                                                      NamedAttribute attr) {
  return verifyConventionAttr(op, attr, /*onArgument=*/false,
                              conventionNames(false));
}

LogicalResult AmpDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attr) {
  if (attr.getName() == kAbsMaxAttrName) {
    if (!isa<FloatAttr>(attr.getValue()))
      return op->emitError()
             << "'" << kAbsMaxAttrName
             << "' on an argument must be a float, got " << attr.getValue();
    return success();
  }
  if (attr.getName() != kMasterAttrName)
    return verifyConventionAttr(op, attr, /*onArgument=*/true,
                                conventionNames(true));
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
