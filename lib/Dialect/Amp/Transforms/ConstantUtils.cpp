//===- ConstantUtils.cpp - float constants under AMP ----------------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "ConstantUtils.h"

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/IR/AmpInterfaces.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/SmallString.h"
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
                                 ArrayRef<float> values, FloatType type,
                                 bool saturate) {
  const llvm::fltSemantics &semantics = type.getFloatSemantics();
  size_t bytes = llvm::divideCeil(type.getWidth(), 8);
  AsmResourceBlob blob =
      HeapAsmResourceBlob::allocate(values.size() * bytes, bytes);
  auto *out = reinterpret_cast<uint8_t *>(blob.getMutableData().data());
  for (float value : values) {
    APFloat converted(value);
    bool losesInfo;
    converted.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
    if (saturate && converted.isInfinity() && std::isfinite(value))
      converted = APFloat::getLargest(semantics, converted.isNegative());
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
                                          bool *overflow, bool saturate) {
  if (std::optional<ArrayRef<float>> values = getResourceValues(attr)) {
    // Checked first: a blob that overflows would be built for nothing.
    if (overflow && !saturate) {
      FiniteRange range = getFiniteRange(attr);
      const llvm::fltSemantics &semantics = type.getFloatSemantics();
      if (range.overflowsDown(semantics) || range.overflowsUp(semantics)) {
        *overflow = true;
        return {};
      }
    }
    return convertResource(cast<DenseF32ResourceElementsAttr>(attr), *values,
                           type, saturate);
  }
  auto convert = [&](APFloat value) {
    bool losesInfo;
    bool wasFinite = value.isFinite();
    value.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
    if (wasFinite && value.isInfinity()) {
      if (saturate)
        value =
            APFloat::getLargest(type.getFloatSemantics(), value.isNegative());
      else if (overflow)
        *overflow = true;
    }
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

bool mlir::amp::isFloat8Source(Value value) {
  Operation *def = value.getDefiningOp();
  return def && def->hasAttr(AmpDialect::kFloat8SourceAttrName);
}

Value mlir::amp::recreateInType(OpBuilder &builder, Value value, Type target,
                                OverflowConversion conversion) {
  if (Attribute attr = getFloatConstant(value)) {
    if (isFloat8Source(value))
      return {};
    bool overflow = false;
    Attribute converted = convertFloatConstant(
        attr, getFloatElementType(target),
        conversion == OverflowConversion::None ? &overflow : nullptr,
        conversion == OverflowConversion::Saturate);
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

//===----------------------------------------------------------------------===//
// Mask values and reads by a max or an exp
//===----------------------------------------------------------------------===//

/// True if every value of `attr` that overflows `semantics` is the largest
/// finite value of its own type (FLT_MAX, what torch.finfo(float32).max and
/// .min write), negative or not.
static bool onlyExtremesOverflow(Attribute attr,
                                 const llvm::fltSemantics &semantics) {
  auto check = [&](const APFloat &value) {
    return !overflowsIn(value, semantics) ||
           value.bitwiseIsEqual(
               APFloat::getLargest(value.getSemantics(), value.isNegative()));
  };
  if (auto scalar = dyn_cast<FloatAttr>(attr))
    return check(scalar.getValue());
  if (std::optional<ArrayRef<float>> values = getResourceValues(attr))
    return llvm::all_of(*values,
                        [&](float value) { return check(APFloat(value)); });
  auto dense = cast<DenseFPElementsAttr>(attr);
  if (dense.isSplat())
    return check(dense.getSplatValue<APFloat>());
  return llvm::all_of(dense.getValues<APFloat>(), check);
}

namespace {
/// What the uses of an overflowing constant need, from the least to the
/// most: nothing of its value but its order (Infinity), or its value as a
/// mask (Saturate). None: its value matters.
enum class Need { None, Infinity, Saturate };
} // namespace

/// The combination of what two uses need.
static Need combine(Need a, Need b) {
  if (a == Need::None || b == Need::None)
    return Need::None;
  return a == Need::Saturate || b == Need::Saturate ? Need::Saturate
                                                    : Need::Infinity;
}

/// The op an operand of `op` leads to through data movement that keeps
/// elements as they are (reshapes, broadcasts): the uses of `value`, seen
/// through such ops.
static void collectUsesThroughReshapes(Value value,
                                       SmallVectorImpl<OpOperand *> &uses) {
  for (OpOperand &use : value.getUses()) {
    Operation *owner = use.getOwner();
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, linalg::BroadcastOp,
            tosa::ReshapeOp>(owner) &&
        use.getOperandNumber() == 0)
      collectUsesThroughReshapes(owner->getResult(0), uses);
    else
      uses.push_back(&use);
  }
}

/// The reads of `scalar` in a body, seen through float conversions: a body
/// converted to the low type extends its arguments on read and truncates
/// what it yields (AMP's rewrite), and may be looked at before or after.
static SmallVector<OpOperand *> getReads(Value scalar) {
  SmallVector<OpOperand *> reads;
  SmallVector<Value> worklist = {scalar};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      if (isa<arith::ExtFOp, arith::TruncFOp>(use.getOwner()))
        worklist.push_back(use.getOwner()->getResult(0));
      else
        reads.push_back(&use);
    }
  }
  return reads;
}

/// The ops that read `scalar` (getReads).
static SmallVector<Operation *> getReaders(Value scalar) {
  return llvm::map_to_vector(getReads(scalar),
                             [](OpOperand *read) { return read->getOwner(); });
}

/// The results of `op` that `scalar`, a value of its body, is yielded as, if
/// the yield is its only reader.
static SmallVector<Value> getYieldedAs(Value scalar, linalg::LinalgOp op) {
  SmallVector<Value> results;
  for (OpOperand *use : getReads(scalar)) {
    if (!isa<linalg::YieldOp>(use->getOwner()) ||
        use->getOwner()->getParentOp() != op.getOperation())
      return {};
    results.push_back(op->getResult(use->getOperandNumber()));
  }
  return results;
}

/// An elementwise linalg op on tensors (no reduction loop) with a body.
static bool isElementwise(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() && op.getNumReductionLoops() == 0 &&
         op->getNumRegions() == 1 && !op->getRegion(0).empty();
}

/// True if `tensor` is only read by exponentials: tosa.exp, or elementwise
/// linalg ops whose body only takes its exp.
static bool onlyExpReads(Value tensor) {
  SmallVector<OpOperand *> uses;
  collectUsesThroughReshapes(tensor, uses);
  return !uses.empty() && llvm::all_of(uses, [](OpOperand *use) {
    Operation *owner = use->getOwner();
    if (isa<tosa::ExpOp>(owner))
      return true;
    auto op = dyn_cast<linalg::LinalgOp>(owner);
    if (!op || !isElementwise(op) || !op.isDpsInput(use))
      return false;
    BlockArgument arg = op.getMatchingBlockArgument(use);
    return llvm::all_of(getReaders(arg),
                        [](Operation *user) { return isa<math::ExpOp>(user); });
  });
}

/// True if `scalar` is only compared (getReads).
static bool onlyCompared(Value scalar) {
  return llvm::all_of(getReaders(scalar),
                      [](Operation *user) { return isa<arith::CmpFOp>(user); });
}

/// True if `tensor` is only read by a softmax over it: linalg.softmax, or
/// its decomposition, a max reduction (torch-mlir's also computes an argmax
/// with a comparison) and `x - max` whose result only an exp reads
/// (tosa.reduce_max, tosa.sub and tosa.exp in TOSA). Comparisons may read
/// it too (scaled_dot_product_attention's decomposition tests for rows that
/// are -inf throughout).
static bool feedsSoftmax(Value tensor) {
  SmallVector<OpOperand *> uses;
  collectUsesThroughReshapes(tensor, uses);
  bool max = false;
  for (OpOperand *use : uses) {
    Operation *owner = use->getOwner();
    if ((isa<linalg::SoftmaxOp>(owner) && use->getOperandNumber() == 0) ||
        isa<tosa::ReduceMaxOp>(owner)) {
      max = true;
      continue;
    }
    if (isa<tosa::SubOp>(owner) && use->getOperandNumber() == 0 &&
        onlyExpReads(owner->getResult(0)))
      continue;
    auto op = dyn_cast<linalg::LinalgOp>(owner);
    if (!op || !op.hasPureTensorSemantics() || !op.isDpsInput(use) ||
        op->getNumRegions() != 1 || op->getRegion(0).empty())
      return false;
    BlockArgument arg = op.getMatchingBlockArgument(use);
    if (op.getNumReductionLoops() != 0) {
      // A max reduction reads it by maxima and comparisons only.
      bool maximum = false;
      for (Operation *user : getReaders(arg)) {
        if (getExtremum(user) == Extremum::Max)
          maximum = true;
        else if (!isa<arith::CmpFOp>(user))
          return false;
      }
      if (!maximum)
        return false;
      max = true;
      continue;
    }
    if (onlyCompared(arg))
      continue;
    // x - max, then its exp: in this body or in the op that reads the
    // difference.
    for (OpOperand *read : getReads(arg)) {
      auto sub = dyn_cast<arith::SubFOp>(read->getOwner());
      if (!sub || read->getOperandNumber() != 0)
        return false;
      bool expHere = llvm::all_of(getReaders(sub), [](Operation *user) {
        return isa<math::ExpOp>(user);
      });
      if (expHere && !sub->use_empty())
        continue;
      SmallVector<Value> results = getYieldedAs(sub.getResult(), op);
      if (results.empty() || !llvm::all_of(results, onlyExpReads))
        return false;
    }
  }
  return max;
}

/// True if `tensor` is a mask added to scores that a softmax reads: every
/// reader adds it (elementwise) and the sum feeds a softmax.
static bool isAddedBeforeSoftmax(Value tensor) {
  SmallVector<OpOperand *> uses;
  collectUsesThroughReshapes(tensor, uses);
  return !uses.empty() && llvm::all_of(uses, [](OpOperand *use) {
    Operation *owner = use->getOwner();
    if (isa<tosa::AddOp>(owner))
      return feedsSoftmax(owner->getResult(0));
    auto op = dyn_cast<linalg::LinalgOp>(owner);
    if (!op || !isElementwise(op) || !op.isDpsInput(use))
      return false;
    BlockArgument arg = op.getMatchingBlockArgument(use);
    SmallVector<Operation *> readers = getReaders(arg);
    return !readers.empty() && llvm::all_of(readers, [&](Operation *u) {
      if (!isa<arith::AddFOp>(u))
        return false;
      SmallVector<Value> results = getYieldedAs(u->getResult(0), op);
      return !results.empty() && llvm::all_of(results, feedsSoftmax);
    });
  });
}

namespace {
/// Where the uses that decided a constant's conversion are, for the remark:
/// the first read that only needs the order, and the first mask use.
struct Where {
  std::string order, mask;

  void add(Need need, StringRef role, Operation *op) {
    std::string &slot = need == Need::Saturate ? mask : order;
    if (slot.empty())
      slot = (role + " in '" + op->getName().getStringRef() + "'").str();
  }
};
} // namespace

/// What a read of the constant's scalar value in the body of the
/// elementwise op `op` needs; `kind`: the extremum its overflow is the
/// identity of (nullopt when it overflows both ways).
static Need getScalarNeed(OpOperand &read, linalg::LinalgOp op,
                          std::optional<Extremum> kind, Where &where) {
  Operation *reader = read.getOwner();
  if ((kind && getExtremum(reader) == kind) || isa<math::ExpOp>(reader)) {
    where.add(Need::Infinity, "read by a max or an exp", op);
    return Need::Infinity;
  }
  if (auto select = dyn_cast<arith::SelectOp>(reader)) {
    if (read.getOperandNumber() == 0 || select->use_empty())
      return Need::None;
    // The value of a select (a masked fill). If only maxima or exps read
    // the selected value, the order is all that matters.
    Where inner;
    bool onlyOrder = llvm::all_of(getReads(select), [&](OpOperand *use) {
      return getScalarNeed(*use, op, kind, inner) == Need::Infinity;
    });
    if (onlyOrder) {
      where.add(Need::Infinity, "read by a max or an exp", op);
      return Need::Infinity;
    }
    where.add(Need::Saturate, "the value of a select", op);
    return Need::Saturate;
  }
  if (isa<arith::AddFOp, arith::MulFOp>(reader)) {
    SmallVector<Value> results = getYieldedAs(reader->getResult(0), op);
    bool added = isa<arith::AddFOp>(reader);
    if (results.empty() ||
        !llvm::all_of(results, added ? feedsSoftmax : isAddedBeforeSoftmax))
      return Need::None;
    where.add(Need::Saturate,
              added ? "a mask added before a softmax"
                    : "a mask multiplied in, then added before a softmax",
              op);
    return Need::Saturate;
  }
  return Need::None;
}

/// What `use` of the overflowing constant needs.
static Need getUseNeed(OpOperand &use, std::optional<Extremum> kind,
                       Where &where) {
  Operation *owner = use.getOwner();
  std::string identity;
  if (kind && isIdentityUse(use, *kind, identity)) {
    if (where.order.empty())
      where.order = identity;
    return Need::Infinity;
  }
  // A fill into an empty tensor: what the uses of the filled tensor need.
  if (auto fill = dyn_cast<linalg::FillOp>(owner)) {
    if (!fill.hasPureTensorSemantics() || !fill.isDpsInput(&use) ||
        !fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>() ||
        fill->getResult(0).use_empty())
      return Need::None;
    Need need = Need::Infinity;
    for (OpOperand &filled : fill->getResult(0).getUses())
      need = combine(need, getUseNeed(filled, kind, where));
    return need;
  }
  if (isa<tosa::SelectOp>(owner)) {
    if (use.getOperandNumber() == 0)
      return Need::None;
    where.add(Need::Saturate, "the value of a select", owner);
    return Need::Saturate;
  }
  if (isa<tosa::AddOp, tosa::MulOp>(owner)) {
    bool added = isa<tosa::AddOp>(owner);
    if (!(added ? feedsSoftmax : isAddedBeforeSoftmax)(owner->getResult(0)))
      return Need::None;
    where.add(Need::Saturate,
              added ? "a mask added before a softmax"
                    : "a mask multiplied in, then added before a softmax",
              owner);
    return Need::Saturate;
  }
  if ((kind == Extremum::Max && isa<tosa::MaximumOp>(owner)) ||
      (kind == Extremum::Min && isa<tosa::MinimumOp>(owner)) ||
      isa<tosa::ExpOp>(owner)) {
    where.add(Need::Infinity, "read by a max or an exp", owner);
    return Need::Infinity;
  }
  // An input of an elementwise linalg op: what its body's reads need.
  if (auto op = dyn_cast<linalg::LinalgOp>(owner)) {
    if (!isElementwise(op) || !op.isDpsInput(&use))
      return Need::None;
    BlockArgument arg = op.getMatchingBlockArgument(&use);
    SmallVector<OpOperand *> reads = getReads(arg);
    if (reads.empty())
      return Need::None;
    Need need = Need::Infinity;
    for (OpOperand *read : reads)
      need = combine(need, getScalarNeed(*read, op, kind, where));
    return need;
  }
  // Read in the body of an elementwise linalg op (captured from above).
  auto op = owner->getParentOfType<linalg::LinalgOp>();
  if (op && isElementwise(op))
    return getScalarNeed(use, op, kind, where);
  return Need::None;
}

std::optional<OverflowingConstantUse>
mlir::amp::getOverflowingConstantUse(Value value, FloatType type) {
  if (std::optional<std::string> identity =
          getReductionIdentityUse(value, type))
    return OverflowingConstantUse{OverflowConversion::Infinity, *identity};
  Attribute attr = getFloatConstant(value);
  if (!attr)
    return std::nullopt;
  const llvm::fltSemantics &semantics = type.getFloatSemantics();
  FiniteRange range = getFiniteRange(attr);
  bool down = range.overflowsDown(semantics);
  bool up = range.overflowsUp(semantics);
  if ((!down && !up) || !onlyExtremesOverflow(attr, semantics))
    return std::nullopt;
  std::optional<Extremum> kind;
  if (down != up)
    kind = down ? Extremum::Max : Extremum::Min;
  Need need = Need::Infinity;
  Where where;
  for (OpOperand &use : value.getUses())
    need = combine(need, getUseNeed(use, kind, where));
  if (need == Need::None || value.use_empty())
    return std::nullopt;
  if (need == Need::Infinity)
    return OverflowingConstantUse{
        OverflowConversion::Infinity,
        (Twine(where.order) + ", converted to " +
         (down != up ? (down ? "-inf" : "+inf") : "infinities"))
            .str()};
  SmallString<16> largest;
  if (down != up)
    APFloat::getLargest(semantics, down)
        .toString(largest, /*FormatPrecision=*/5);
  else
    largest = "the largest finite value";
  return OverflowingConstantUse{
      OverflowConversion::Saturate,
      (Twine("a mask value (") + where.mask + "), saturated to " + largest)
          .str()};
}

Value mlir::amp::saturatedValue(OpBuilder &builder, Value value,
                                FloatType type) {
  auto scalar = dyn_cast_or_null<FloatAttr>(getFloatConstant(value));
  if (!scalar)
    return {};
  APFloat largest = APFloat::getLargest(type.getFloatSemantics(),
                                        scalar.getValue().isNegative());
  bool losesInfo;
  largest.convert(scalar.getValue().getSemantics(),
                  APFloat::rmNearestTiesToEven, &losesInfo);
  return materializeFloatConstantLike(builder, value,
                                      FloatAttr::get(scalar.getType(), largest),
                                      scalar.getType());
}
