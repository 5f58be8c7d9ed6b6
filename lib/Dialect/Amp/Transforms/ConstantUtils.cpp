//===- ConstantUtils.cpp - float constants under AMP ----------------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "ConstantUtils.h"

#include "amp/Dialect/Amp/IR/AmpInterfaces.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/Endian.h"

#include <cmath>

using namespace mlir;
using namespace mlir::amp;

/// The values of an f32 dense_resource constant, or nullopt when its blob is
/// missing (an elided resource).
static std::optional<ArrayRef<float>> getResourceValues(Attribute attr) {
  auto resource = dyn_cast_or_null<DenseF32ResourceElementsAttr>(attr);
  if (!resource)
    return std::nullopt;
  return resource.tryGetAsArrayRef();
}

Attribute mlir::amp::getFloatConstant(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return {};
  Attribute attr;
  if (auto constant = dyn_cast<arith::ConstantOp>(def))
    attr = constant.getValue();
  else if (auto constant = dyn_cast<tosa::ConstOp>(def))
    attr = constant.getValues();
  if (isa_and_nonnull<FloatAttr, DenseFPElementsAttr>(attr) ||
      getResourceValues(attr))
    return attr;
  return {};
}

/// True if finite `value` rounds to an infinity in `semantics`.
static bool overflowsIn(APFloat value, const llvm::fltSemantics &semantics) {
  if (!value.isFinite())
    return false;
  bool losesInfo;
  value.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
  return value.isInfinity();
}

namespace {
/// The smallest and the largest finite value of a float constant. Rounding
/// is monotonic, so a constant overflows towards -inf exactly when its
/// smallest value does, and towards +inf when its largest does.
struct FiniteRange {
  std::optional<APFloat> lowest, highest;

  void add(const APFloat &value) {
    if (!value.isFinite())
      return;
    if (!lowest || value.compare(*lowest) == APFloat::cmpLessThan)
      lowest = value;
    if (!highest || value.compare(*highest) == APFloat::cmpGreaterThan)
      highest = value;
  }

  bool overflowsDown(const llvm::fltSemantics &semantics) const {
    return lowest && lowest->isNegative() && overflowsIn(*lowest, semantics);
  }
  bool overflowsUp(const llvm::fltSemantics &semantics) const {
    return highest && !highest->isNegative() &&
           overflowsIn(*highest, semantics);
  }
};
} // namespace

/// The finite range of a constant getFloatConstant returned.
static FiniteRange getFiniteRange(Attribute attr) {
  FiniteRange range;
  if (auto scalar = dyn_cast<FloatAttr>(attr)) {
    range.add(scalar.getValue());
  } else if (std::optional<ArrayRef<float>> values = getResourceValues(attr)) {
    // Plain floats: weights are large.
    float lowest = INFINITY, highest = -INFINITY;
    for (float value : *values) {
      if (!std::isfinite(value))
        continue;
      lowest = std::min(lowest, value);
      highest = std::max(highest, value);
    }
    if (lowest <= highest) {
      range.add(APFloat(lowest));
      range.add(APFloat(highest));
    }
  } else {
    auto dense = cast<DenseFPElementsAttr>(attr);
    if (dense.isSplat())
      range.add(dense.getSplatValue<APFloat>());
    else
      for (const APFloat &value : dense.getValues<APFloat>())
        range.add(value);
  }
  return range;
}

/// An f32 dense_resource constant converted to `type`, as a new blob named
/// after the original.
static Attribute convertResource(DenseF32ResourceElementsAttr attr,
                                 ArrayRef<float> values, FloatType type) {
  const llvm::fltSemantics &semantics = type.getFloatSemantics();
  size_t bytes = llvm::divideCeil(type.getWidth(), 8);
  AsmResourceBlob blob =
      HeapAsmResourceBlob::allocate(values.size() * bytes, bytes);
  auto *out = reinterpret_cast<uint8_t *>(blob.getMutableData().data());
  for (float value : values) {
    APFloat converted(value);
    bool losesInfo;
    converted.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
    // Host byte order, as the parser and the JIT read blobs.
    llvm::StoreIntToMemory(converted.bitcastToAPInt(), out, bytes);
    out += bytes;
  }
  std::string typeName;
  llvm::raw_string_ostream os(typeName);
  type.print(os);
  // The blob manager makes the name unique.
  std::string name = (attr.getRawHandle().getKey() + "_" + typeName).str();
  return DenseResourceElementsAttr::get(attr.getType().clone(type), name,
                                        std::move(blob));
}

Attribute mlir::amp::convertFloatConstant(Attribute attr, FloatType type,
                                          bool *overflow) {
  if (std::optional<ArrayRef<float>> values = getResourceValues(attr)) {
    // Checked first: a blob that overflows would be built for nothing.
    if (overflow) {
      FiniteRange range = getFiniteRange(attr);
      const llvm::fltSemantics &semantics = type.getFloatSemantics();
      if (range.overflowsDown(semantics) || range.overflowsUp(semantics)) {
        *overflow = true;
        return {};
      }
    }
    return convertResource(cast<DenseF32ResourceElementsAttr>(attr), *values,
                           type);
  }
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

bool mlir::amp::floatConstantOverflows(Value value, FloatType type) {
  Attribute attr = getFloatConstant(value);
  if (!attr)
    return false;
  // From the range: converting the whole attribute would build (and unique)
  // a new one only to throw it away.
  FiniteRange range = getFiniteRange(attr);
  const llvm::fltSemantics &semantics = type.getFloatSemantics();
  return range.overflowsDown(semantics) || range.overflowsUp(semantics);
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

Value mlir::amp::recreateInType(OpBuilder &builder, Value value, Type target,
                                bool overflowToInfinity) {
  if (Attribute attr = getFloatConstant(value)) {
    bool overflow = false;
    Attribute converted =
        convertFloatConstant(attr, getFloatElementType(target),
                             overflowToInfinity ? nullptr : &overflow);
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

//===----------------------------------------------------------------------===//
// Reduction identities
//===----------------------------------------------------------------------===//

namespace {
enum class Extremum { Max, Min };
} // namespace

/// The extremum an arith combiner computes.
static std::optional<Extremum> getExtremum(Operation *op) {
  if (isa<arith::MaximumFOp, arith::MaxNumFOp>(op))
    return Extremum::Max;
  if (isa<arith::MinimumFOp, arith::MinNumFOp>(op))
    return Extremum::Min;
  return std::nullopt;
}

/// The extremum a linalg reduction or pooling computes: it has a reduction
/// loop, and each init's block argument is only read by the max (min) whose
/// result the body yields for it.
static std::optional<Extremum> getReductionExtremum(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumReductionLoops() == 0 ||
      op.getNumDpsInits() == 0)
    return std::nullopt;
  std::optional<Extremum> kind;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    BlockArgument arg = op.getMatchingBlockArgument(&init);
    Operation *combiner =
        op.getMatchingYieldValue(&init)->get().getDefiningOp();
    if (!combiner || !arg.hasOneUse() || *arg.getUsers().begin() != combiner)
      return std::nullopt;
    std::optional<Extremum> own = getExtremum(combiner);
    if (!own || (kind && *kind != *own))
      return std::nullopt;
    kind = own;
  }
  return kind;
}

static std::string describe(StringRef role, Operation *op) {
  return (role + " of '" + op->getName().getStringRef() + "'").str();
}

/// `use` initialises a `kind` reduction: it is the init of a linalg
/// reduction or pooling of that kind.
static bool isReductionInit(OpOperand &use, Extremum kind, std::string &where) {
  auto op = dyn_cast<linalg::LinalgOp>(use.getOwner());
  if (!op || !op.isDpsInit(&use) || getReductionExtremum(op) != kind)
    return false;
  if (where.empty())
    where = describe("the init", op);
  return true;
}

/// `use` is read by a `kind` reduction only through its combiner, so that a
/// padding value of the identity pads with the identity.
static bool isReductionInput(OpOperand &use, Extremum kind,
                             std::string &where) {
  Operation *owner = use.getOwner();
  if (auto op = dyn_cast<linalg::LinalgOp>(owner)) {
    if (!op.isDpsInput(&use) || getReductionExtremum(op) != kind)
      return false;
    BlockArgument arg = op.getMatchingBlockArgument(&use);
    if (!llvm::all_of(arg.getUsers(), [&](Operation *user) {
          return getExtremum(user) == kind;
        }))
      return false;
  } else if (use.getOperandNumber() != 0 ||
             !(kind == Extremum::Max
                   ? isa<tosa::MaxPool2dOp, tosa::ReduceMaxOp>(owner)
                   : isa<tosa::ReduceMinOp>(owner))) {
    return false;
  }
  if (where.empty())
    where = describe("the padding value of an input", owner);
  return true;
}

/// `use` of a constant that overflows towards the identity of `kind` means
/// the identity.
static bool isIdentityUse(OpOperand &use, Extremum kind, std::string &where) {
  Operation *owner = use.getOwner();
  // A fill into an empty tensor: each use of the filled tensor is an init.
  if (auto fill = dyn_cast<linalg::FillOp>(owner)) {
    if (!fill.hasPureTensorSemantics() || !fill.isDpsInput(&use) ||
        !fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
      return false;
    return llvm::all_of(fill->getResult(0).getUses(), [&](OpOperand &filled) {
      return isReductionInit(filled, kind, where);
    });
  }
  if (isa<linalg::LinalgOp>(owner))
    return isReductionInit(use, kind, where);
  // A padding value: the padded tensor is only reduced.
  Value padded;
  if (auto yield = dyn_cast<tensor::YieldOp>(owner)) {
    if (auto pad = dyn_cast<tensor::PadOp>(yield->getParentOp()))
      padded = pad.getResult();
  } else if (auto pad = dyn_cast<tosa::PadOp>(owner)) {
    if (&use == &pad.getPadConstMutable())
      padded = pad.getResult();
  }
  if (!padded || padded.use_empty())
    return false;
  return llvm::all_of(padded.getUses(), [&](OpOperand &reduced) {
    return isReductionInput(reduced, kind, where);
  });
}

std::optional<std::string> mlir::amp::getReductionIdentityUse(Value value,
                                                              FloatType type) {
  Attribute attr = getFloatConstant(value);
  if (!attr)
    return std::nullopt;
  FiniteRange range = getFiniteRange(attr);
  const llvm::fltSemantics &semantics = type.getFloatSemantics();
  bool down = range.overflowsDown(semantics);
  bool up = range.overflowsUp(semantics);
  if (down == up)
    return std::nullopt;
  Extremum kind = down ? Extremum::Max : Extremum::Min;
  std::string where;
  for (OpOperand &use : value.getUses())
    if (!isIdentityUse(use, kind, where))
      return std::nullopt;
  if (where.empty())
    return std::nullopt;
  return (Twine("the identity of ") + (down ? "max" : "min") + " reductions (" +
          where + "), converted to " + (down ? "-inf" : "+inf"))
      .str();
}
