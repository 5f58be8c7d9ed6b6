//===- LowPrecisionBytes.cpp - low-precision bytes against an ideal -------===//
//
// Part of amp-mlir. AMP is worth the bytes it moves in low precision, not the
// casts it saves. This measures, for a rewritten module, the float tensor
// bytes that compute ops read and write in the low type, against the bytes an
// ideal graph of the same level would move in the low type:
//
//  * O2 (Apex O2): every tensor low, except accumulators and reduction
//    results, operands a model keeps in f32 (norm statistics and
//    parameters), values returned from a function, ops pinned to f32, ops
//    that cannot compute in the low type, ops the user's policy keeps in
//    f32 (custom black list, outside guards), and a training step's
//    optimizer update (fp32 masters);
//  * O1 (PyTorch autocast): white ops low, black ops f32, and other ops low
//    exactly when all their data operands are low in the ideal (autocast
//    promotes to the widest input type), with the same exceptions; the
//    custom white list and a policy file's categories apply.
//
// The ideal follows the level's op table and the user's policy only, never
// the decision pass: what the pass keeps in f32 on its own (an overflowing
// constant's users, say) counts as missed.
//
// A contraction's or a reduction's f32 result whose users all narrow it to
// the low type counts as written in the low type: the lowering's epilogue
// writes it so.
//
//===----------------------------------------------------------------------===//

#include "ReportUtils.h"
#include "TrainingSteps.h"
#include "amp/Dialect/Amp/IR/AmpInterfaces.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Policy.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::amp;

/// Values that carry no data of their own: empty tensors and fills of a
/// scalar (both re-created in any type at no cost).
static bool isShapeOnly(Value value) {
  Operation *def = value.getDefiningOp();
  if (isa_and_nonnull<tensor::EmptyOp>(def))
    return true;
  auto fill = dyn_cast_or_null<linalg::FillOp>(def);
  return fill && !isa<ShapedType>(fill.getInputs()[0].getType());
}

namespace {
class Measure {
public:
  Measure(FloatType lowType, bool isO1, const AmpPolicy *policy,
          const llvm::DenseSet<Operation *> *unguarded,
          const llvm::DenseSet<Operation *> *float8Ops)
      : lowType(lowType), isO1(isO1), policy(policy), unguarded(unguarded),
        float8Ops(float8Ops) {}

  LowPrecisionBytes run(Operation *module) {
    SmallVector<CheckFiniteAndUnscaleOp> unscales;
    module->walk([&](CheckFiniteAndUnscaleOp op) { unscales.push_back(op); });
    optimizerOps = findOptimizerOps(unscales);
    module->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == module)
        return WalkResult::advance();
      Value input;
      Type output;
      if (isConversion(op, input, output)) {
        // A conversion changes no precision of the ideal graph.
        idealLow[op->getResult(0)] = idealLow.lookup(input);
        return WalkResult::advance();
      }
      auto iface = dyn_cast<AmpPrecisionOpInterface>(op);
      if (!iface)
        return WalkResult::advance();
      if (isRecipe(op))
        return WalkResult::skip();
      if (!getFloatOpPrecision(op).empty())
        visit(op, iface);
      // A model's regions (linalg bodies) belong to it.
      return op->getNumRegions() ? WalkResult::skip() : WalkResult::advance();
    });
    for (auto [value, low] : contractionResults)
      count(value, anyIdealLowUser(value), low);
    return result;
  }

private:
  /// Whether `op` computes in the low type in the ideal graph.
  bool isIdealLow(Operation *op, AmpPrecisionOpInterface iface,
                  Category category) {
    for (Operation *scope = op; scope; scope = scope->getParentOp())
      if (std::optional<Precision> pin = getPinnedPrecision(scope))
        return getFloatType(op->getContext(), *pin) == lowType;
    if (optimizerOps.contains(op) || !iface.supportsPrecision(lowType))
      return false;
    // The user's policy, in the order of the decision rules.
    if (policy) {
      StringRef name = op->getName().getStringRef();
      if (policy->blackList.contains(name) ||
          (unguarded && unguarded->contains(op)))
        return false;
      if (policy->whiteList.contains(name))
        return true;
      auto overridden = policy->categories.find(name);
      if (overridden != policy->categories.end()) {
        // An op made unsupported is never decided, at either level.
        if (overridden->second == Category::Unsupported)
          return false;
        category = overridden->second;
      }
    }
    if (!isO1)
      return true;
    switch (category) {
    case Category::White:
      return true;
    case Category::Black:
    case Category::Unsupported:
      return false;
    case Category::Gray:
      break;
    }
    // Autocast: the widest data operand decides.
    bool anyData = false;
    for (OpOperand &use : op->getOpOperands()) {
      if (!isData(op, iface, use))
        continue;
      anyData = true;
      if (!idealLow.lookup(use.get()))
        return false;
    }
    return anyData;
  }

  /// Whether a user of `value` (through conversions) computes in the low
  /// type in the ideal graph.
  bool anyIdealLowUser(Value value) {
    for (Operation *user : value.getUsers()) {
      Value input;
      Type output;
      if (isConversion(user, input, output)
              ? anyIdealLowUser(user->getResult(0))
              : idealOps.lookup(user))
        return true;
    }
    return false;
  }

  /// Whether `use` carries data the op computes on in its own precision.
  bool isData(Operation *op, AmpPrecisionOpInterface iface, OpOperand &use) {
    Value value = use.get();
    if (!isFloatLike(value.getType()) || isShapeOnly(value) ||
        iface.operandMustStayF32(use.getOperandNumber()))
      return false;
    auto dps = dyn_cast<DestinationStyleOpInterface>(op);
    return !dps || !dps.isDpsInit(&use);
  }

  /// Elements of `type`, each dynamic dimension counted as 1 (per sample
  /// for a dynamic batch).
  static uint64_t getNumElements(RankedTensorType type) {
    uint64_t count = 1;
    for (int64_t size : type.getShape())
      count *= ShapedType::isDynamic(size) ? 1 : uint64_t(size);
    return count;
  }

  /// Adds the bytes of a tensor of `shape`'s size stored as `stored`.
  void addMoved(Type shape, Type stored) {
    auto type = dyn_cast<RankedTensorType>(shape);
    FloatType element = getFloatElementType(stored);
    if (type && element)
      result.moved += getNumElements(type) * element.getWidth() / 8;
  }

  void count(Value value, bool ideal, bool achieved) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !isa<FloatType>(type.getElementType()))
      return;
    if (!type.hasStaticShape())
      ++result.dynamicTensors;
    uint64_t bytes = getNumElements(type) * lowType.getWidth() / 8;
    if (ideal)
      result.ideal += bytes;
    if (achieved)
      result.low += bytes;
    if (ideal && achieved)
      result.reached += bytes;
  }

  void visit(Operation *op, AmpPrecisionOpInterface iface) {
    // Not decided: re-created in the type each user needs.
    if (op->getNumResults() != 0 && llvm::all_of(op->getResults(), isShapeOnly))
      return;
    Category category = iface.getAmpCategory();
    bool opLow = isIdealLow(op, iface, category);
    idealOps[op] = opLow;
    bool accumulates = bool(iface.getAccumulatorType(lowType));
    bool contraction = accumulates && category == Category::White;
    auto dps = dyn_cast<DestinationStyleOpInterface>(op);
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    for (OpOperand &use : op->getOpOperands()) {
      Value value = use.get();
      if (!isFloatLike(value.getType()) || isShapeOnly(value))
        continue;
      // An init the body never reads is only a shape.
      bool init = dps && dps.isDpsInit(&use);
      if (init && linalgOp && !linalgOp.payloadUsesValueFromOperand(&use))
        continue;
      addMoved(value.getType(), value.getType());
      // Operands a model keeps in f32 and accumulators are f32 for all.
      if (iface.operandMustStayF32(use.getOperandNumber()) ||
          (init && accumulates))
        continue;
      count(value, opLow, isStoredLow(value.getType()));
    }
    for (OpResult value : op->getResults()) {
      bool low = isStoredLow(value.getType());
      if (contraction || isReduction(op)) {
        // The epilogue narrows it (after an FP8 contraction's rescaling).
        low = low || isOnlyConvertedTo(value, lowType) ||
              (value.hasOneUse() && isRecipe(*value.getUsers().begin()) &&
               isOnlyConvertedTo(value.getUsers().begin()->getResult(0),
                                 lowType));
      }
      addMoved(value.getType(),
               low ? withFloatElementType(value.getType(), lowType)
                   : value.getType());
      if (!contraction && accumulates) {
        // A reduction's result: f32 by design, low for no one.
        continue;
      }
      idealLow[value] = opLow;
      if (isOnlyReturned(value))
        continue;
      if (contraction && opLow) {
        // Low in the ideal unless every user computes in f32 there (its
        // f32 accumulator is then what they read): known at the end.
        contractionResults.push_back({value, low});
        continue;
      }
      count(value, opLow, low);
    }
  }

  bool isRecipe(Operation *op) const {
    return float8Ops && float8Ops->contains(op);
  }

  /// The low type, or FP8 (dtype=fp8's contraction operands, narrower).
  bool isStoredLow(Type type) const {
    Type element = getElementTypeOrSelf(type);
    return element == lowType || isa<Float8E4M3FNType, Float8E5M2Type>(element);
  }

  FloatType lowType;
  bool isO1;
  /// The user's policy (null: the amp-report pass alone, which only sees
  /// pins) and the ops its guards leave out.
  const AmpPolicy *policy;
  const llvm::DenseSet<Operation *> *unguarded;
  const llvm::DenseSet<Operation *> *float8Ops;
  llvm::DenseSet<Operation *> optimizerOps;
  /// Values the ideal graph produces in the low type.
  llvm::DenseMap<Value, bool> idealLow;
  /// Whether an op computes in the low type in the ideal graph.
  llvm::DenseMap<Operation *, bool> idealOps;
  /// Contraction results and whether they are stored low.
  SmallVector<std::pair<Value, bool>> contractionResults;
  LowPrecisionBytes result;
};
} // namespace

LowPrecisionBytes mlir::amp::measureLowPrecisionBytes(
    Operation *module, FloatType lowType, bool isO1, const AmpPolicy *policy,
    const llvm::DenseSet<Operation *> *unguarded,
    const llvm::DenseSet<Operation *> *float8Ops) {
  return Measure(lowType, isO1, policy, unguarded, float8Ops).run(module);
}
