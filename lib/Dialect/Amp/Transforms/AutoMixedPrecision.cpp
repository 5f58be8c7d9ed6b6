//===- AutoMixedPrecision.cpp - the amp-auto-mixed-precision pass ---------===//
//
// Part of amp-mlir. Decides, op by op, between f32 and the low type, and
// rewrites the module with one conversion per (value, type).
//
//===----------------------------------------------------------------------===//

#include "ConstantUtils.h"
#include "DemoteF64.h"
#include "Ranges.h"
#include "ReportUtils.h"
#include "TrainingSteps.h"
#include "amp/Analysis/CastPlacement.h"
#include "amp/Dialect/Amp/IR/AmpInterfaces.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/Dialect/Amp/Transforms/Policy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Format.h"

#include <functional>

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPAUTOMIXEDPRECISIONPASS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

static constexpr StringLiteral kAppliedAttrName = AmpDialect::kAppliedAttrName;

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

/// A linalg.fill of a float constant into a tensor.empty: as cheap to
/// re-create in another type as the empty tensor itself.
static bool isFreeFill(linalg::FillOp fill) {
  return fill.hasPureTensorSemantics() && fill.getInputs().size() == 1 &&
         getFloatConstant(fill.getInputs()[0]) &&
         isa_and_nonnull<tensor::EmptyOp>(fill.getOutputs()[0].getDefiningOp());
}

/// The constant behind `value`: itself, or the constant a free fill fills
/// with (a tensor filled with a constant is that constant, re-created on
/// demand).
static Value getConstantSource(Value value) {
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(value.getDefiningOp()))
    if (isFreeFill(fill))
      return fill.getInputs()[0];
  return value;
}

//===----------------------------------------------------------------------===//
// The caster: one conversion per (value, element type)
//===----------------------------------------------------------------------===//

namespace {
class SharedCaster : public ValueCaster {
public:
  /// `overflowConversion` says how a constant that overflows is converted
  /// (a reduction identity with infinities, a mask value saturated), if at
  /// all.
  SharedCaster(MLIRContext *context,
               std::function<OverflowConversion(Value)> overflowConversion)
      : builder(context), overflowConversion(std::move(overflowConversion)) {}

  Value cast(Value value, Type elementType) override {
    Type type = value.getType();
    FloatType element = getFloatElementType(type);
    if (!element || element == elementType)
      return value;
    auto key = std::make_pair(value, elementType);
    auto it = cache.find(key);
    if (it != cache.end())
      return it->second;
    Value result = materialize(value, convertType(type, elementType),
                               llvm::cast<FloatType>(elementType));
    cache[key] = result;
    return result;
  }

  Type convertType(Type type, Type elementType) override {
    Type &converted = types[{type, elementType}];
    if (!converted)
      converted = withFloatElementType(type, elementType);
    return converted;
  }

  /// Ops this caster created, in creation order.
  ArrayRef<Operation *> getCreatedOps() const { return created; }

private:
  Value materialize(Value value, Type target, FloatType elementType) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointAfterValue(value);
    Location loc = value.getLoc();
    Operation *def = value.getDefiningOp();

    // Constants (converted at compile time) and empty tensors.
    Value recreated = recreateInType(builder, value, target);
    if (!recreated && getFloatConstant(value)) {
      OverflowConversion conversion = overflowConversion(value);
      if (conversion != OverflowConversion::None)
        recreated = recreateInType(builder, value, target, conversion);
    }
    if (recreated) {
      created.push_back(recreated.getDefiningOp());
      return recreated;
    }
    // A tensor filled with a constant: fill one of the new type.
    if (auto fill = dyn_cast_or_null<linalg::FillOp>(def)) {
      if (isFreeFill(fill)) {
        Value init = cast(fill.getOutputs()[0], elementType);
        Value scalar = cast(fill.getInputs()[0], elementType);
        auto op = linalg::FillOp::create(builder, loc, scalar, init);
        created.push_back(op);
        return op.getResult(0);
      }
    }
    // A value that is an exact widening of a value of the wanted type (an
    // amp.cast, or the user's arith.extf / tosa.cast): use the source, which
    // is the same number.
    if (isa_and_nonnull<CastOp, arith::ExtFOp, tosa::CastOp>(def)) {
      Value source = def->getOperand(0);
      if (source.getType() == target &&
          isExactConversion(source.getType(), value.getType()))
        return source;
    }
    auto op = CastOp::create(builder, loc, target, value);
    created.push_back(op);
    return op.getResult();
  }

  OpBuilder builder;
  std::function<OverflowConversion(Value)> overflowConversion;
  llvm::DenseMap<std::pair<Value, Type>, Value> cache;
  llvm::DenseMap<std::pair<Type, Type>, Type> types;
  SmallVector<Operation *> created;
};

/// Records the values that replace the op being converted.
struct ReplacementTracker : public RewriterBase::Listener {
  void notifyOperationReplaced(Operation *op, ValueRange values) override {
    if (op == current)
      replacement.assign(values.begin(), values.end());
  }
  Operation *current = nullptr;
  SmallVector<Value> replacement;
};

struct Decision {
  /// The precision the op computes in; nullopt: not decided (left alone).
  std::optional<Precision> precision;
  std::string reason;
  /// A gray op whose precision the optimal placement chooses.
  bool free = false;
};

/// The decision and rewrite of one module (the pass's work, callable
/// without a pass manager).
class AutoMixedPrecision {
public:
  AutoMixedPrecision(MLIRContext *context, const AmpOptions &options)
      : context(context), options(options) {}

  /// Rewrites `module`; `changed` says whether anything changed.
  LogicalResult run(ModuleOp module, bool &changed);

  /// Where run() records its decisions (if set).
  AmpDecisionLog *log = nullptr;

private:
  /// The ops of `module` in program order (the bodies of ops with a model,
  /// linalg regions, belong to their op), with their operand types as
  /// written.
  using OperandTypes = llvm::DenseMap<Operation *, SmallVector<Type>>;
  /// What rewriting the ops shares: the casts, the rewriter, the producers
  /// that rewrites may leave dead.
  struct RewriteState {
    SharedCaster &caster;
    ReplacementTracker &tracker;
    IRRewriter &rewriter;
    SmallVector<Operation *> deadCandidates;
  };

  LogicalResult buildPolicy(ModuleOp module);
  /// What the decisions depend on module-wide: f64 demotion, FP8 sources,
  /// guards, training steps' optimizers, loss scaling.
  void prepareModule(ModuleOp module);
  SmallVector<Operation *> collectOps(ModuleOp module,
                                      OperandTypes &originalTypes);
  /// Carries out `decision` for `op`: converts it to the low type (or says
  /// why it cannot), else gives it back its operands' types as written.
  void applyDecision(Operation *op, const Decision &decision,
                     ArrayRef<Type> originalTypes, RewriteState &state);
  /// Erases the casts no one uses, and the pure producers that only fed
  /// converted ops.
  void eraseDeadOps(RewriteState &state);
  /// The report's view of the policy and the guards, the calibrated ranges
  /// dropped, and the attributes that say the level was applied.
  void finishModule(ModuleOp module);
  Decision decide(Operation *op, AmpPrecisionOpInterface iface,
                  ArrayRef<Type> operandTypes, bool deferGray);
  /// A gray op placed greedily or as autocast places it: from the
  /// precisions of its operands (low, f32, parameter tensors).
  Decision decideGray(Operation *op, AmpPrecisionOpInterface iface,
                      FloatType lowType);
  void placeGrayOps(
      ArrayRef<Operation *> ops,
      llvm::DenseMap<Operation *, Decision> &decisions,
      const llvm::DenseMap<Operation *, SmallVector<Type>> &originalTypes);
  bool isLowProduced(Value value, Type lowType);
  /// The pin on `op` or on its nearest pinned ancestor, with the op that
  /// carries it.
  using EnclosingPin = std::pair<Precision, Operation *>;
  std::optional<EnclosingPin> getEnclosingPin(Operation *op);
  /// True if `value` is a float constant (or a fill of one) that overflows
  /// `type` and whose meaning does not survive the conversion; remembered
  /// per value, as constants are shared by many users.
  bool overflows(Value value, FloatType type);
  /// How the float constant `constant`, which overflows the low type, is
  /// converted (getOverflowingConstantUse): with infinities (a max/min
  /// identity), saturated (a mask value), or not at all. A remark on the
  /// constant says why it pins nothing (once): always for a saturated mask
  /// value, whose value changes, with `explain` for infinities, which mean
  /// the same.
  OverflowConversion getOverflowConversion(Value constant);
  /// In the body of `op`, just converted to the low type (its body still
  /// computes in f32), reads of a mask value it captures read the low
  /// type's largest finite value instead: the value it is stored as.
  void saturateCapturedMasks(Operation *op, FloatType lowType,
                             RewriterBase &rewriter);
  /// With calibrated ranges (amp.absmax): the precision of an op that reads
  /// or computes a tensor beyond the low type's largest finite value /
  /// calibration-margin (calibration-fallback, else f32), with a remark on
  /// the op (once); nullopt when its tensors fit or were not calibrated.
  std::optional<Decision> decideFromRanges(Operation *op,
                                           AmpPrecisionOpInterface iface);
  llvm::DenseSet<Operation *> rangeRemarks;
  /// True if `value` is the scaled loss seed (an amp.scale_loss result) or
  /// scalar (0-d) arithmetic on it.
  bool isLossScaleScalar(Value value);
  /// True if `value` is an integer converted to a float scalar (a count: a
  /// batch norm's number of elements per channel with a dynamic batch) or
  /// scalar arithmetic on one.
  bool isCountScalar(Value value);
  MLIRContext &getContext() { return *context; }
  /// Records the uses, inside the regions of `op`, of float values defined
  /// outside it (a table a linalg body reads with tensor.extract).
  void recordCapturedUses(Operation *op);
  /// Gives the uses recorded for `op` their values back in the types they
  /// were written with, where a producer's rewrite changed them and the
  /// op's own rewrite did not replace them.
  void restoreCapturedUses(Operation *op, ValueCaster &caster,
                           RewriterBase &rewriter);

  MLIRContext *context;
  AmpOptions options;

  AmpPolicy policy;
  bool useGuard = false;
  /// Results of ops converted to low precision: the natural precision of a
  /// white op's f32 accumulator result is low for the gray ops that follow.
  llvm::DenseSet<Value> lowResults;
  /// Overflowing constants already warned about (once each).
  llvm::DenseSet<Operation *> warnedConstants;
  /// Answers of getEnclosingPin and overflows (the low type is fixed for a
  /// run).
  llvm::DenseMap<Operation *, std::optional<EnclosingPin>> enclosingPins;
  llvm::DenseMap<Value, bool> overflowing;
  llvm::DenseMap<Value, OverflowConversion> conversions;
  /// The saturated copies of captured mask values, per constant.
  llvm::DenseMap<Value, Value> saturated;
  llvm::DenseMap<Value, bool> lossScaleScalars, countScalars;
  /// Ops of training steps outside the loss and gradient computation (the
  /// optimizer update and its bookkeeping): they stay f32.
  llvm::DenseSet<Operation *> optimizerOps;
  /// Values computed from constants alone (a batch norm's rsqrt(var + eps)
  /// over its frozen statistics): under autocast placement they do not
  /// promote the ops that read them, as constants do not.
  llvm::DenseSet<Value> constantDerived;
  /// Records the results of `op` in constantDerived when it is free of
  /// memory effects and reads nothing but constant-derived values.
  void recordConstantDerived(Operation *op);
  bool isConstantDerived(Value value);
  /// The number of dimensions of size other than 1 of the parameters
  /// (non-splat float constants) that the constant-derived `value` is
  /// computed from: 0 for scalars, splats, empty tensors and fills, 1 for a
  /// per-channel vector (a norm's scale or statistics, a bias), 2 or more
  /// for a tensor such as a position embedding.
  unsigned getParameterRank(Value value);
  llvm::DenseMap<Value, unsigned> parameterRanks;
  /// Under autocast's promotion, whether the constant-derived operand
  /// `value` of `op` is a tensor of its own in the model, which PyTorch
  /// promotes the op for, rather than a parameter it folds into one op
  /// with its input.
  bool isParameterTensor(Operation *op, Value value);
  /// Per op with regions: uses of values captured from above, with the
  /// value and type each had as written.
  struct CapturedUse {
    OpOperand *use;
    Value value;
    Type type;
  };
  llvm::DenseMap<Operation *, SmallVector<CapturedUse>> capturedUses;
};

} // namespace

//===----------------------------------------------------------------------===//
// Policy
//===----------------------------------------------------------------------===//

/// The policy of `options`: its lists, then the policy file's (which
/// replaces the dtype and the guard mode unless the options set them).
static LogicalResult
buildAmpPolicy(const AmpOptions &options, MLIRContext *context,
               AmpPolicy &policy,
               function_ref<InFlightDiagnostic()> emitError) {
  policy = AmpPolicy();
  policy.level = options.level;
  if (options.dtype)
    policy.dtype = *options.dtype;
  if (options.useFp16Guard != GuardMode::Auto)
    policy.useFp16Guard = options.useFp16Guard == GuardMode::On;
  for (const std::string &name : options.customWhiteList)
    policy.whiteList.insert(name);
  for (const std::string &name : options.customBlackList)
    policy.blackList.insert(name);
  if (!options.policyFile.empty() &&
      failed(loadPolicyFile(
          options.policyFile, policy,
          /*keepDtype=*/options.dtype.has_value(),
          /*keepGuard=*/options.useFp16Guard != GuardMode::Auto, emitError)))
    return failure();
  return verifyPolicy(policy, context, emitError);
}

LogicalResult
mlir::amp::checkAmpPolicy(const AmpOptions &options, MLIRContext *context,
                          function_ref<InFlightDiagnostic()> emitError) {
  AmpPolicy policy;
  return buildAmpPolicy(options, context, policy, emitError);
}

LogicalResult AutoMixedPrecision::buildPolicy(ModuleOp module) {
  // Not Operation::emitError: an options error needs no dump of the module.
  auto emit = [&] { return mlir::emitError(module.getLoc(), "amp: "); };
  return buildAmpPolicy(options, &getContext(), policy, emit);
}

//===----------------------------------------------------------------------===//
// Optimal placement of gray ops
//===----------------------------------------------------------------------===//

static bool isFree(Value value);

/// Number of elements of `type` (1 for scalars and unknown sizes).
static int64_t getStaticNumElements(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return 1;
  return shaped.getNumElements();
}

void AutoMixedPrecision::placeGrayOps(
    ArrayRef<Operation *> ops, llvm::DenseMap<Operation *, Decision> &decisions,
    const llvm::DenseMap<Operation *, SmallVector<Type>> &originalTypes) {
  using Endpoint = CastPlacementProblem::Endpoint;
  FloatType lowType = getFloatType(&getContext(), policy.dtype);
  CastPlacementProblem problem;
  llvm::DenseMap<Operation *, unsigned> nodes;
  bool anyFree = false;
  // Free ops are the cut's nodes; decided ops are fixed endpoints of their
  // precision (a third type, such as a bf16 pin in an f16 module, is an
  // "other" endpoint).
  llvm::DenseMap<Operation *, Precision> fixed;
  for (Operation *op : ops) {
    auto it = decisions.find(op);
    if (it == decisions.end())
      continue;
    if (it->second.free) {
      nodes[op] = problem.addOp();
      anyFree = true;
    } else if (it->second.precision) {
      fixed[op] = *it->second.precision;
    }
  }
  if (!anyFree)
    return;
  auto endpointOf = [&](Precision precision) {
    if (precision == Precision::f32)
      return Endpoint::high();
    if (precision == policy.dtype)
      return Endpoint::low();
    return Endpoint::other(static_cast<unsigned>(precision));
  };

  // Bytes one conversion of a value reads and writes.
  unsigned bits = 32 + lowType.getWidth();
  auto weightOf = [&](Type type) {
    return getStaticNumElements(type) * int64_t(bits) / 8;
  };
  auto fixedEndpoint = [&](Type type) -> std::optional<Endpoint> {
    std::optional<Precision> precision =
        getPrecision(getElementTypeOrSelf(type));
    if (!precision)
      return std::nullopt;
    return endpointOf(*precision);
  };
  llvm::DenseSet<Value> seen;
  auto addValue = [&](Value value) {
    if (!seen.insert(value).second || !isFloatLike(value.getType()) ||
        isFree(value))
      return;
    int64_t weight = weightOf(value.getType());
    std::optional<unsigned> id;
    Operation *def = value.getDefiningOp();
    auto node = def ? nodes.find(def) : nodes.end();
    auto decided = def ? fixed.find(def) : fixed.end();
    if (node != nodes.end()) {
      id = problem.addValue(weight, Endpoint::follows(node->second));
    } else if (decided != fixed.end()) {
      auto iface = cast<AmpPrecisionOpInterface>(def);
      bool accumulates = bool(iface.getAccumulatorType(lowType));
      if (accumulates && decided->second != Precision::f32)
        id = problem.addValue(weight); // the epilogue writes either type
      else if (accumulates)
        id = problem.addValue(weight, Endpoint::high());
      else
        id = problem.addValue(weight, endpointOf(decided->second));
    } else if (std::optional<Endpoint> fixedType =
                   fixedEndpoint(value.getType())) {
      id = problem.addValue(weight, *fixedType);
    } else {
      return;
    }
    for (OpOperand &use : value.getUses()) {
      Operation *owner = use.getOwner();
      unsigned index = use.getOperandNumber();
      auto user = nodes.find(owner);
      auto decidedUser = fixed.find(owner);
      if (user != nodes.end() || decidedUser != fixed.end()) {
        auto iface = cast<AmpPrecisionOpInterface>(owner);
        auto dps = dyn_cast<DestinationStyleOpInterface>(owner);
        bool accumulatorInit =
            dps && dps.isDpsInit(&use) && iface.getAccumulatorType(lowType);
        if (iface.operandMustStayF32(index) || accumulatorInit)
          problem.addUse(*id, Endpoint::high());
        else if (user != nodes.end())
          problem.addUse(*id, Endpoint::follows(user->second));
        else
          problem.addUse(*id, endpointOf(decidedUser->second));
        continue;
      }
      // Ops that are not decided get their operands back in the types they
      // were written with.
      Type type = value.getType();
      auto types = originalTypes.find(owner);
      if (types != originalTypes.end() && index < types->second.size())
        type = types->second[index];
      if (std::optional<Endpoint> fixed = fixedEndpoint(type))
        problem.addUse(*id, *fixed);
    }
  };
  for (Operation *op : ops) {
    if (!nodes.count(op) && !fixed.count(op))
      continue;
    for (Value operand : op->getOperands())
      addValue(operand);
    for (Value result : op->getResults())
      addValue(result);
  }
  // A free op in f32 reads and writes its data tensors at 4 bytes an
  // element instead of the low type's: what the lowering moves is the cost,
  // not the number of conversions.
  int64_t savedBits = 32 - int64_t(lowType.getWidth());
  for (auto &[op, node] : nodes) {
    auto iface = cast<AmpPrecisionOpInterface>(op);
    auto dps = dyn_cast<DestinationStyleOpInterface>(op);
    int64_t elements = 0;
    for (OpOperand &use : op->getOpOperands()) {
      Value value = use.get();
      if (!isFloatLike(value.getType()) || isFree(value) ||
          iface.operandMustStayF32(use.getOperandNumber()) ||
          (dps && dps.isDpsInit(&use)))
        continue;
      elements += getStaticNumElements(value.getType());
    }
    for (Value result : op->getResults())
      if (isFloatLike(result.getType()))
        elements += getStaticNumElements(result.getType());
    if (elements)
      problem.addHighCost(node, elements * savedBits / 8);
  }

  SmallVector<bool> labels = problem.solve();
  for (auto &[op, node] : nodes) {
    Decision &decision = decisions[op];
    if (!decision.free)
      continue;
    decision.free = false;
    decision.precision = labels[node] ? policy.dtype : Precision::f32;
    decision.reason = "placed by min-cut: fewest bytes moved";
  }
}

//===----------------------------------------------------------------------===//
// Values captured by regions
//===----------------------------------------------------------------------===//

void AutoMixedPrecision::recordCapturedUses(Operation *op) {
  op->walk([&](Operation *inner) {
    if (inner == op)
      return;
    for (OpOperand &use : inner->getOpOperands()) {
      Value value = use.get();
      if (!isFloatLike(value.getType()) ||
          op->isAncestor(value.getParentRegion()->getParentOp()))
        continue;
      capturedUses[op].push_back({&use, value, value.getType()});
    }
  });
}

void AutoMixedPrecision::restoreCapturedUses(Operation *op, ValueCaster &caster,
                                             RewriterBase &rewriter) {
  auto it = capturedUses.find(op);
  if (it == capturedUses.end())
    return;
  for (CapturedUse &captured : it->second) {
    OpOperand &use = *captured.use;
    Value value = use.get();
    if (value != captured.value || value.getType() == captured.type)
      continue;
    Operation *owner = use.getOwner();
    Type wanted = getElementTypeOrSelf(captured.type);
    // An element read from a retyped tensor: read it in the new type and
    // widen the element, not the whole tensor.
    auto extract = dyn_cast<tensor::ExtractOp>(owner);
    if (extract && use.getOperandNumber() == 0 && extract.getType() == wanted) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointAfter(extract);
      Type element = getElementTypeOrSelf(value.getType());
      rewriter.modifyOpInPlace(extract,
                               [&] { extract.getResult().setType(element); });
      Value widened =
          convertFloat(rewriter, extract.getLoc(), extract.getResult(), wanted);
      rewriter.replaceAllUsesExcept(extract.getResult(), widened,
                                    widened.getDefiningOp());
      continue;
    }
    Value restored = caster.cast(value, wanted);
    rewriter.modifyOpInPlace(owner, [&] { use.set(restored); });
  }
  capturedUses.erase(it);
}

//===----------------------------------------------------------------------===//
// Decisions
//===----------------------------------------------------------------------===//

/// True if every float operand (as written, before the pass changed any
/// producer) and result of `op` is f32: the ops AMP decides. Ops already in
/// another precision are the user's choice.
static bool computesInF32(Operation *op, ArrayRef<Type> operandTypes) {
  bool any = false;
  for (Type type :
       llvm::concat<const Type>(operandTypes, op->getResultTypes())) {
    FloatType element = getFloatElementType(type);
    if (!element)
      continue;
    // Unranked tensors cannot be converted (arith.extf/truncf need ranks).
    if (!element.isF32() || isa<UnrankedTensorType>(type))
      return false;
    any = true;
  }
  return any;
}

/// Values the caster re-creates in any type at no cost.
static bool isFree(Value value) {
  if (getFloatConstant(value))
    return true;
  Operation *def = value.getDefiningOp();
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(def))
    return isFreeFill(fill);
  return isa_and_nonnull<tensor::EmptyOp>(def);
}

bool AutoMixedPrecision::isConstantDerived(Value value) {
  return isFree(value) || constantDerived.contains(value);
}

void AutoMixedPrecision::recordConstantDerived(Operation *op) {
  if (op->getNumResults() == 0 || !isMemoryEffectFree(op) ||
      !llvm::all_of(op->getOperands(),
                    [&](Value v) { return isConstantDerived(v); }))
    return;
  // What a body captures from above is read too.
  bool capturesRuntime = false;
  for (Region &region : op->getRegions())
    region.walk([&](Operation *inner) {
      for (Value value : inner->getOperands())
        if (!op->isAncestor(value.getParentRegion()->getParentOp()) &&
            !isConstantDerived(value)) {
          capturesRuntime = true;
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
  if (!capturesRuntime)
    constantDerived.insert_range(op->getResults());
}

unsigned AutoMixedPrecision::getParameterRank(Value value) {
  auto known = parameterRanks.find(value);
  if (known != parameterRanks.end())
    return known->second;
  unsigned rank = 0;
  if (Attribute attr = getFloatConstant(value)) {
    auto dense = dyn_cast<DenseElementsAttr>(attr);
    auto shaped = dyn_cast<ShapedType>(value.getType());
    if (shaped && !(dense && dense.isSplat()))
      rank = llvm::count_if(shaped.getShape(),
                            [](int64_t size) { return size != 1; });
  } else if (Operation *def = value.getDefiningOp();
             def && constantDerived.contains(value)) {
    for (Value operand : def->getOperands())
      rank = std::max(rank, getParameterRank(operand));
  }
  parameterRanks[value] = rank;
  return rank;
}

// PyTorch folds a batch norm's statistics, a norm's scale and shift and a
// bias into one op with its input (batch_norm, layer_norm, linear), which
// returns its input's type; torch-mlir spells them out as elementwise ops
// on per-channel vectors. A parameter that the model adds or concatenates
// as a tensor of its own (a ViT's position embedding and class token) is
// an f32 operand of that op in PyTorch, and promotes it: the stream of a
// ViT is f32 from its embedding on under autocast.
bool AutoMixedPrecision::isParameterTensor(Operation *op, Value value) {
  unsigned rank = getParameterRank(value);
  if (rank == 0)
    return false;
  // A piece of a tensor being assembled (a class token and the patches).
  if (isa<tensor::ConcatOp, tensor::InsertSliceOp, tosa::ConcatOp>(op))
    return true;
  return rank >= 2;
}

/// True if `value` comes from low precision: its type is the low type, or it
/// is the f32 result of an op converted to low precision (a white op's
/// accumulator), or a guard result that forwards such a value (guards are
/// inlined later, and the round trip across their boundary folds).
bool AutoMixedPrecision::isLowProduced(Value value, Type lowType) {
  while (auto result = dyn_cast<OpResult>(value)) {
    auto guard = dyn_cast<Fp16GuardOp>(result.getOwner());
    if (!guard)
      break;
    value = guard.getYield().getOperand(result.getResultNumber());
    // The yield may have been given an f32 copy of a low value.
    if (auto cast = value.getDefiningOp<CastOp>())
      if (cast.isExact())
        value = cast.getInput();
  }
  return getElementTypeOrSelf(value.getType()) == lowType ||
         lowResults.contains(value);
}

std::optional<AutoMixedPrecision::EnclosingPin>
AutoMixedPrecision::getEnclosingPin(Operation *op) {
  if (!op)
    return std::nullopt;
  auto it = enclosingPins.find(op);
  if (it != enclosingPins.end())
    return it->second;
  std::optional<EnclosingPin> pin;
  if (std::optional<Precision> own = getPinnedPrecision(op))
    pin = EnclosingPin(*own, op);
  else
    pin = getEnclosingPin(op->getParentOp());
  enclosingPins[op] = pin;
  return pin;
}

bool AutoMixedPrecision::overflows(Value value, FloatType type) {
  auto [it, inserted] = overflowing.try_emplace(value, false);
  if (inserted) {
    Value constant = getConstantSource(value);
    it->second = floatConstantOverflows(constant, type) &&
                 getOverflowConversion(constant) == OverflowConversion::None;
  }
  return it->second;
}

OverflowConversion AutoMixedPrecision::getOverflowConversion(Value constant) {
  auto [it, inserted] =
      conversions.try_emplace(constant, OverflowConversion::None);
  if (!inserted)
    return it->second;
  FloatType lowType = getFloatType(&getContext(), policy.dtype);
  std::optional<OverflowingConstantUse> use =
      getOverflowingConstantUse(constant, lowType);
  if (!use)
    return OverflowConversion::None;
  it->second = use->conversion;
  if (use->conversion == OverflowConversion::Saturate || options.explain)
    constant.getDefiningOp()->emitRemark()
        << "amp: constant overflows " << stringifyPrecision(policy.dtype)
        << " but does not pin its users: it is "
        << (use->conversion == OverflowConversion::Infinity ? "only " : "")
        << use->description;
  return use->conversion;
}

void AutoMixedPrecision::saturateCapturedMasks(Operation *op, FloatType lowType,
                                               RewriterBase &rewriter) {
  if (op->getNumRegions() == 0)
    return;
  op->walk([&](Operation *inner) {
    if (inner == op)
      return;
    for (OpOperand &use : inner->getOpOperands()) {
      Value value = use.get();
      if (!isa<FloatType>(value.getType()) || !getFloatConstant(value) ||
          !floatConstantOverflows(value, lowType) ||
          getOverflowConversion(value) != OverflowConversion::Saturate)
        continue;
      Value &copy = saturated[value];
      if (!copy)
        copy = saturatedValue(rewriter, value, lowType);
      if (copy)
        rewriter.modifyOpInPlace(inner, [&] { use.set(copy); });
    }
  });
}

/// A 0-d tensor, or a scalar.
static bool isZeroDimensional(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return !shaped || (shaped.hasRank() && shaped.getRank() == 0);
}

/// True if `value` is a scalar (0-d) result of an op `isSource` accepts, or
/// scalar arithmetic on one; memoized in `memo`.
static bool isScalarDerivedFrom(Value value,
                                function_ref<bool(Operation *)> isSource,
                                llvm::DenseMap<Value, bool> &memo) {
  auto it = memo.find(value);
  if (it != memo.end())
    return it->second;
  Operation *def = value.getDefiningOp();
  bool result = false;
  if (def && isSource(def)) {
    result = isZeroDimensional(value.getType());
  } else if (def && isZeroDimensional(value.getType())) {
    memo[value] = false; // Cycles (none in SSA) end here.
    result = llvm::any_of(def->getOperands(), [&](Value operand) {
      return isZeroDimensional(operand.getType()) &&
             isScalarDerivedFrom(operand, isSource, memo);
    });
  }
  memo[value] = result;
  return result;
}

bool AutoMixedPrecision::isLossScaleScalar(Value value) {
  return isScalarDerivedFrom(
      value, [](Operation *op) { return isa<ScaleLossOp>(op); },
      lossScaleScalars);
}

bool AutoMixedPrecision::isCountScalar(Value value) {
  return isScalarDerivedFrom(
      value,
      [](Operation *op) { return isa<arith::SIToFPOp, arith::UIToFPOp>(op); },
      countScalars);
}

/// The largest finite value of `precision`.
static double getLargestFinite(MLIRContext *context, Precision precision) {
  return APFloat::getLargest(
             getFloatType(context, precision).getFloatSemantics())
      .convertToDouble();
}

std::optional<Decision>
AutoMixedPrecision::decideFromRanges(Operation *op,
                                     AmpPrecisionOpInterface iface) {
  // The largest calibrated magnitude among the op's tensors, and which.
  double largest = -1;
  std::string which;
  auto consider = [&](Value value, const Twine &what) {
    std::optional<double> max = getCalibratedAbsMax(value);
    if (max && *max > largest) {
      largest = *max;
      which = what.str();
    }
  };
  for (OpOperand &operand : op->getOpOperands())
    if (!iface.operandMustStayF32(operand.getOperandNumber()))
      consider(operand.get(), "operand #" + Twine(operand.getOperandNumber()));
  for (OpResult result : op->getResults())
    consider(result, "result #" + Twine(result.getResultNumber()));
  if (largest < 0)
    return std::nullopt;
  double margin = options.calibrationMargin;
  auto fits = [&](Precision precision) {
    return largest <= getLargestFinite(context, precision) / margin;
  };
  Precision low = policy.dtype;
  if (fits(low))
    return std::nullopt;
  Precision fallback = Precision::f32;
  if (options.calibrationFallback == CalibrationFallback::BF16 &&
      low != Precision::bf16 && fits(Precision::bf16) &&
      iface.supportsPrecision(getFloatType(context, Precision::bf16)))
    fallback = Precision::bf16;
  std::string reason;
  llvm::raw_string_ostream os(reason);
  os << "calibration: its " << which << " reaches "
     << llvm::format("%.3g", largest) << ", beyond " << stringifyPrecision(low)
     << "'s largest finite value "
     << llvm::format("%.6g", getLargestFinite(context, low)) << " / margin "
     << llvm::format("%g", margin);
  // With explain, the decision's own remark says it.
  if (!options.explain && rangeRemarks.insert(op).second)
    op->emitRemark() << "amp: kept in " << stringifyPrecision(fallback)
                     << " by " << reason;
  return Decision{fallback, reason};
}

Decision AutoMixedPrecision::decide(Operation *op,
                                    AmpPrecisionOpInterface iface,
                                    ArrayRef<Type> operandTypes,
                                    bool deferGray) {
  Precision low = policy.dtype;
  StringRef lowName = stringifyPrecision(low);
  StringRef name = op->getName().getStringRef();

  Category category = iface.getAmpCategory();
  auto overridden = policy.categories.find(name);
  if (overridden != policy.categories.end())
    category = overridden->second;
  if (category == Category::Unsupported || !computesInF32(op, operandTypes))
    return {};
  if (std::optional<Precision> pin = getPinnedPrecision(op))
    return {*pin, "pinned by amp.precision"};
  // A pin on an enclosing op (a function, a loop) covers what it contains.
  if (std::optional<EnclosingPin> pin = getEnclosingPin(op->getParentOp()))
    return {pin->first, ("pinned by amp.precision on the enclosing '" +
                         pin->second->getName().getStringRef() + "'")
                            .str()};
  // Unless pinned, a producer the caster re-creates in any type (a fill of a
  // constant into an empty tensor) is not decided: each user gets it in the
  // type it needs.
  if (op->getNumResults() != 0 &&
      llvm::all_of(op->getResults(), [](Value v) { return isFree(v); }))
    return {std::nullopt, "not decided: a constant fill, re-created in the "
                          "type each user needs"};
  if (optimizerOps.contains(op))
    return {Precision::f32, "optimizer update of a training step: it does "
                            "not compute the loss or the gradients"};
  // Scalar arithmetic stays in f32 and costs no bytes where the low type
  // may not hold it: on the scaled backward seed (65536 by default: the
  // seed divided by the batch size, ...), and on a count (a batch norm's
  // N*H*W with a dynamic batch: 65536 and beyond at ResNet sizes, inexact
  // in f16 from 2048). The tensors computed from them are decided as usual.
  bool scalar = op->getNumResults() != 0 &&
                llvm::all_of(op->getResultTypes(), isZeroDimensional) &&
                llvm::all_of(op->getOperandTypes(), isZeroDimensional);
  auto onScalar = [&](bool (AutoMixedPrecision::*is)(Value)) {
    return scalar && llvm::any_of(op->getOperands(),
                                  [&](Value v) { return (this->*is)(v); });
  };
  if (onScalar(&AutoMixedPrecision::isLossScaleScalar))
    return {Precision::f32, "scalar arithmetic on the scaled loss seed "
                            "(the loss scale may not fit the low type)"};
  if (onScalar(&AutoMixedPrecision::isCountScalar))
    return {Precision::f32, "scalar arithmetic on a count (an integer "
                            "converted to a float may not fit the low type)"};
  if (std::optional<Decision> ranged = decideFromRanges(op, iface))
    return *ranged;
  if (!policy.blackList.empty() && policy.blackList.contains(name))
    return {Precision::f32, "custom black list"};
  if (useGuard && !op->getParentOfType<Fp16GuardOp>())
    return {Precision::f32, "outside amp.fp16_guard"};
  FloatType lowType = getFloatType(&getContext(), low);
  if (!iface.supportsPrecision(lowType))
    return {Precision::f32, ("does not support " + lowName).str()};
  auto overflowing = [&](Value value, const Twine &what) -> Decision {
    Operation *constant = getConstantSource(value).getDefiningOp();
    if (warnedConstants.insert(constant).second)
      constant->emitWarning()
          << "amp: constant does not fit in " << lowName
          << " (it would overflow to infinity); its users stay in f32";
    return {Precision::f32,
            (what + " is a constant that overflows " + lowName).str()};
  };
  for (OpOperand &operand : op->getOpOperands())
    if (!iface.operandMustStayF32(operand.getOperandNumber()) &&
        overflows(operand.get(), lowType))
      return overflowing(operand.get(),
                         "operand #" + Twine(operand.getOperandNumber()));
  // A tensor.pad's padding value comes from above, not as an operand.
  if (auto pad = dyn_cast<tensor::PadOp>(op))
    if (Value padValue = pad.getConstantPaddingValue())
      if (overflows(padValue, lowType))
        return overflowing(padValue, "its padding value");
  if (!policy.whiteList.empty() && policy.whiteList.contains(name))
    return {low, "custom white list"};
  // placement=autocast at O2: gray ops promote their operands instead of
  // going low, so what is computed from f32 inputs or tables without a
  // contraction in between (a transformer's residual stream, the sum of its
  // embeddings) stays f32, and everything else is stored low.
  if (policy.level == AmpLevel::O2 &&
      (options.placement != Placement::Autocast ||
       category != Category::Gray))
    return {low, "O2"};

  switch (category) {
  case Category::White:
    return {low, "white list"};
  case Category::Black:
    if (overridden != policy.categories.end())
      return {Precision::f32, "black list (policy file)"};
    return {Precision::f32, "black list"};
  case Category::Unsupported:
    return {};
  case Category::Gray:
    break;
  }
  if (deferGray) {
    Decision decision;
    decision.free = true;
    return decision;
  }
  return decideGray(op, iface, lowType);
}

Decision AutoMixedPrecision::decideGray(Operation *op,
                                        AmpPrecisionOpInterface iface,
                                        FloatType lowType) {
  Precision low = policy.dtype;
  StringRef lowName = stringifyPrecision(low);
  // Follow the operands, counting constants and empty tensors as free.
  bool promotes = options.placement == Placement::Autocast ||
                  options.placement == Placement::Auto;
  unsigned numLow = 0, numHigh = 0, numParameters = 0;
  for (OpOperand &operand : op->getOpOperands()) {
    Value value = operand.get();
    if (!isFloatLike(value.getType()) ||
        iface.operandMustStayF32(operand.getOperandNumber()))
      continue;
    // Constants and what is computed from them alone (a batch norm's folded
    // statistics) are free: converted where the op needs them. Under
    // autocast's promotion, a parameter tensor promotes the op as an f32
    // tensor does.
    if (isFree(value) || (promotes && constantDerived.contains(value))) {
      if (promotes && isParameterTensor(op, value))
        ++numParameters;
      continue;
    }
    if (isLowProduced(value, lowType))
      ++numLow;
    else
      ++numHigh;
  }
  std::string reason = ("follows its operands (" + Twine(numLow) + " in " +
                        lowName + ", " + Twine(numHigh) + " in f32)")
                           .str();
  // placement=autocast: PyTorch's type promotion. An op on low and f32
  // tensors computes in f32, and one that reads no float tensor (a gather
  // from an f32 table, a conversion from integers) in the type of what it
  // reads: f32.
  if (promotes && numParameters > 0 && numLow + numHigh > 0)
    return {Precision::f32,
            ("promotes its operands (" + Twine(numLow) + " in " + lowName +
             ", " + Twine(numHigh + numParameters) + " in f32, " +
             Twine(numParameters) + " of them a parameter tensor: the widest)")
                .str()};
  if (promotes) {
    if (numLow > 0 && numHigh == 0)
      return {low, ("promotes its operands (" + Twine(numLow) + " in " +
                    lowName + ")")
                       .str()};
    return {Precision::f32,
            numLow + numHigh == 0
                ? std::string(
                      op->getNumResults() != 0 &&
                              constantDerived.contains(op->getResult(0))
                          ? "computes from constants only: f32, converted "
                            "where a low op reads it"
                          : "promotes its operands (no float tensor: the "
                            "type of what it reads, f32)")
                : ("promotes its operands (" + Twine(numLow) + " in " +
                   lowName + ", " + Twine(numHigh) + " in f32: the widest)")
                      .str()};
  }
  if (numLow > 0 && numLow >= numHigh)
    return {low, reason};
  return {Precision::f32, reason};
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// Loss scaling off (bf16 by default: its exponent range is fp32's, so
/// gradients do not underflow): every loss-scaling op gets scale 1 and the
/// scaler is static, so the state stays (1, 0, 0, hysteresis). The finite
/// check remains, and steps with an Inf or NaN gradient are still skipped.
static void disableLossScaling(ModuleOp module) {
  OpBuilder b(module.getContext());
  // One constant 1 per function and type, at the function's entry.
  llvm::DenseMap<std::pair<Operation *, Type>, Value> ones;
  auto one = [&](Operation *op, Value scale) -> Value {
    Operation *scope = op->getParentOfType<FunctionOpInterface>();
    Value &value = ones[{scope, scale.getType()}];
    if (value)
      return value;
    if (scope && !cast<FunctionOpInterface>(scope).getFunctionBody().empty())
      b.setInsertionPointToStart(
          &cast<FunctionOpInterface>(scope).getFunctionBody().front());
    else
      b.setInsertionPoint(op);
    Attribute attr = b.getF32FloatAttr(1.0f);
    if (auto type = dyn_cast<RankedTensorType>(scale.getType()))
      attr = DenseElementsAttr::get(type, attr);
    value = arith::ConstantOp::create(b, op->getLoc(), cast<TypedAttr>(attr));
    return value;
  };
  module.walk([&](Operation *op) {
    if (auto scale = dyn_cast<ScaleLossOp>(op))
      scale.getScaleMutable().assign(one(op, scale.getScale()));
    else if (auto unscale = dyn_cast<CheckFiniteAndUnscaleOp>(op))
      unscale.getScaleMutable().assign(one(op, unscale.getScale()));
    else if (auto update = dyn_cast<UpdateLossScalingOp>(op)) {
      update.getScaleMutable().assign(one(op, update.getScale()));
      update.setConfigAttr(
          LossScalingAttr::getPreset(op->getContext(), "bf16"));
    }
  });
}

/// arg-precision=low: a float tensor argument of a public function that
/// every user converts to `lowType` takes that type, and the conversion
/// goes, as Apex O2 casts the model once. Functions that the module calls
/// keep their signatures (their callers pass f32), and so do declarations.
static void narrowArguments(ModuleOp module, FloatType lowType) {
  for (auto func : module.getOps<FunctionOpInterface>()) {
    if (!cast<SymbolOpInterface>(func.getOperation()).isPublic() ||
        func.isExternal() || !isa<FunctionType>(func.getFunctionType()) ||
        !SymbolTable::symbolKnownUseEmpty(func, module))
      continue;
    SmallVector<Type> inputs(func.getArgumentTypes());
    bool narrowed = false;
    for (BlockArgument arg : func.getArguments()) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type || !type.getElementType().isF32() || arg.use_empty())
        continue;
      Type low = type.clone(lowType);
      if (!llvm::all_of(arg.getUsers(), [&](Operation *user) {
            auto cast = dyn_cast<CastOp>(user);
            return cast && cast.getType() == low;
          }))
        continue;
      for (Operation *user : llvm::make_early_inc_range(arg.getUsers())) {
        user->getResult(0).replaceAllUsesWith(arg);
        user->erase();
      }
      arg.setType(low);
      inputs[arg.getArgNumber()] = low;
      narrowed = true;
    }
    if (narrowed)
      func.setType(FunctionType::get(module.getContext(), inputs,
                                     func.getResultTypes()));
  }
}

void AutoMixedPrecision::prepareModule(ModuleOp module) {
  // torch-mlir's f64 norm statistics over f32 data compute in f32, and are
  // then decided like every other op.
  if (options.f64 == F64Computations::Demote)
    demoteF64Computations(module, options.explain);
  // dtype=fp8 quantizes the weights of its contractions from their f32
  // values.
  if (options.fp8)
    markAmpFloat8Sources(module, *options.fp8);
  // One walk for what the decisions depend on module-wide: whether there
  // are guards, and the training steps.
  bool hasGuard = false;
  SmallVector<CheckFiniteAndUnscaleOp> unscales;
  module.walk([&](Operation *op) {
    if (isa<Fp16GuardOp>(op))
      hasGuard = true;
    else if (auto unscale = dyn_cast<CheckFiniteAndUnscaleOp>(op))
      unscales.push_back(unscale);
  });
  useGuard = policy.useFp16Guard.value_or(hasGuard);
  optimizerOps = findOptimizerOps(unscales);
  if (options.lossScaling == LossScalingMode::Off ||
      (options.lossScaling == LossScalingMode::Auto &&
       policy.dtype == Precision::bf16))
    disableLossScaling(module);
}

SmallVector<Operation *>
AutoMixedPrecision::collectOps(ModuleOp module, OperandTypes &originalTypes) {
  // Operand types are recorded before anything changes: ops that are not
  // converted get their operands back in these types.
  SmallVector<Operation *> ops;
  constantDerived.clear();
  parameterRanks.clear();
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == module)
      return WalkResult::advance();
    recordConstantDerived(op);
    ops.push_back(op);
    originalTypes[op] = llvm::to_vector(op->getOperandTypes());
    if (isa<AmpPrecisionOpInterface>(op) && op->getNumRegions() != 0) {
      recordCapturedUses(op);
      return WalkResult::skip();
    }
    return WalkResult::advance();
  });
  return ops;
}

void AutoMixedPrecision::applyDecision(Operation *op, const Decision &decision,
                                       ArrayRef<Type> originalTypes,
                                       RewriteState &state) {
  auto iface = dyn_cast<AmpPrecisionOpInterface>(op);
  IRRewriter &rewriter = state.rewriter;
  if (decision.precision && *decision.precision != Precision::f32) {
    FloatType type = getFloatType(&getContext(), *decision.precision);
    if (options.explain) {
      InFlightDiagnostic remark = op->emitRemark();
      remark << "amp: " << stringifyPrecision(*decision.precision) << " ("
             << decision.reason << ")";
      // Printed, not streamed: a diagnostic would quote the type.
      if (FloatType accumulator = iface.getAccumulatorType(type)) {
        std::string name;
        llvm::raw_string_ostream os(name);
        accumulator.print(os);
        remark << ", accumulates in " << name;
      }
    }
    rewriter.setInsertionPoint(op);
    // Producers of its operands, and of values its regions use from above
    // (a tensor.pad's padding value).
    SmallVector<Operation *> producers;
    op->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (Operation *def = operand.getDefiningOp())
          if (!op->isAncestor(def))
            producers.push_back(def);
    });
    ReplacementTracker &tracker = state.tracker;
    tracker.current = op;
    tracker.replacement.clear();
    LogicalResult converted =
        iface.convertToPrecision(rewriter, type, state.caster);
    bool replaced = !tracker.replacement.empty();
    tracker.current = nullptr;
    if (succeeded(converted)) {
      restoreCapturedUses(op, state.caster, rewriter);
      saturateCapturedMasks(op, type, rewriter);
      if (replaced)
        lowResults.insert(tracker.replacement.begin(),
                          tracker.replacement.end());
      else
        lowResults.insert(op->result_begin(), op->result_end());
      // Producers the converted op no longer uses may now be dead.
      state.deadCandidates.append(producers.begin(), producers.end());
      return;
    }
    // Left unchanged: say why.
    if (log)
      log->entries.back() = {op->getName().getStringRef().str(),
                             formatLocation(op->getLoc()), "f32",
                             "cannot be rewritten to " +
                                 stringifyPrecision(*decision.precision).str() +
                                 " (unsupported form)"};
    op->emitRemark() << "amp: kept in f32: '" << op->getName()
                     << "' cannot be rewritten to "
                     << stringifyPrecision(*decision.precision)
                     << " (unsupported form, e.g. buffer semantics)";
  } else if (decision.precision && options.explain) {
    op->emitRemark() << "amp: f32 (" << decision.reason << ")";
  } else if (options.explain && !decision.reason.empty()) {
    op->emitRemark() << "amp: " << decision.reason;
  }
  restoreCapturedUses(op, state.caster, rewriter);
  // Kept: operands back to the types the op was written with.
  for (auto [index, type] : llvm::enumerate(originalTypes)) {
    Value value = op->getOperand(index);
    if (value.getType() == type)
      continue;
    Value restored = state.caster.cast(value, getElementTypeOrSelf(type));
    rewriter.modifyOpInPlace(op, [&] { op->setOperand(index, restored); });
  }
}

void AutoMixedPrecision::eraseDeadOps(RewriteState &state) {
  // The caster never creates a cast of one of its own casts (it reuses
  // exact widenings), so there are no pairs to fold; reverse creation order
  // erases chains of dead conversions.
  for (Operation *op : llvm::reverse(state.caster.getCreatedOps()))
    if (op->use_empty())
      state.rewriter.eraseOp(op);
  // Pure producers that only fed converted ops (an f32 constant or empty
  // tensor replaced by its low-precision copy), and their own dead operands.
  llvm::SmallPtrSet<Operation *, 16> erased;
  SmallVector<Operation *> &candidates = state.deadCandidates;
  while (!candidates.empty()) {
    Operation *op = candidates.pop_back_val();
    if (erased.contains(op) || !isOpTriviallyDead(op))
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        candidates.push_back(def);
    erased.insert(op);
    state.rewriter.eraseOp(op);
  }
}

void AutoMixedPrecision::finishModule(ModuleOp module) {
  // What the report's ideal follows: the policy, and which ops the guards
  // leave out (before amp-inline-guards erases them). Not the decisions.
  if (log) {
    log->policy = policy;
    log->policy.useFp16Guard = useGuard;
    if (useGuard)
      module.walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (!isa<AmpPrecisionOpInterface>(op))
          return WalkResult::advance();
        if (!op->getParentOfType<Fp16GuardOp>())
          log->unguarded.insert(op);
        // A model's regions (linalg bodies) belong to it.
        return op->getNumRegions() ? WalkResult::skip() : WalkResult::advance();
      });
  }

  // The calibrated ranges have been read: they name results by position,
  // which later rewrites do not keep.
  module.walk([](Operation *op) {
    op->removeAttr(AmpDialect::kAbsMaxAttrName);
    if (auto function = dyn_cast<FunctionOpInterface>(op))
      for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
        function.removeArgAttr(i, AmpDialect::kAbsMaxAttrName);
  });
  module->setAttr(
      AmpDialect::kRoundingAttrName,
      StringAttr::get(&getContext(), stringifyOptionValue(options.rounding)));
  module->setAttr(
      kAppliedAttrName,
      StringAttr::get(&getContext(), stringifyOptionValue(options.level) + ":" +
                                         stringifyPrecision(policy.dtype)));
}

LogicalResult AutoMixedPrecision::run(ModuleOp module, bool &changed) {
  changed = false;
  if (auto applied = module->getAttrOfType<StringAttr>(kAppliedAttrName)) {
    if (options.explain)
      module.emitRemark() << "amp: already applied (" << applied.getValue()
                          << "); nothing to do";
    return success();
  }
  // Validate everything before changing anything.
  if (failed(buildPolicy(module)))
    return failure();
  enclosingPins.clear();
  overflowing.clear();
  conversions.clear();
  saturated.clear();
  lossScaleScalars.clear();
  changed = true;
  prepareModule(module);
  OperandTypes originalTypes;
  SmallVector<Operation *> ops = collectOps(module, originalTypes);

  // Decisions that do not depend on how other ops were rewritten are made
  // up front; with optimal placement, the gray ops are then placed all at
  // once. Greedy placement decides gray ops in program order below.
  bool optimal = options.placement == Placement::Optimal;
  llvm::DenseMap<Operation *, Decision> decisions;
  if (optimal) {
    for (Operation *op : ops)
      if (auto iface = dyn_cast<AmpPrecisionOpInterface>(op))
        decisions[op] = decide(op, iface, originalTypes[op],
                               /*deferGray=*/true);
    placeGrayOps(ops, decisions, originalTypes);
  }

  SharedCaster caster(&getContext(), [&](Value constant) {
    return getOverflowConversion(constant);
  });
  ReplacementTracker tracker;
  IRRewriter rewriter(&getContext(), &tracker);
  RewriteState state{caster, tracker, rewriter, {}};
  lowResults.clear();
  warnedConstants.clear();
  for (Operation *op : ops) {
    Decision decision;
    if (optimal)
      decision = decisions.lookup(op);
    else if (auto iface = dyn_cast<AmpPrecisionOpInterface>(op))
      decision = decide(op, iface, originalTypes[op], /*deferGray=*/false);
    if (log && (decision.precision || !decision.reason.empty()))
      log->entries.push_back(
          {op->getName().getStringRef().str(), formatLocation(op->getLoc()),
           decision.precision ? stringifyPrecision(*decision.precision).str()
                              : std::string(),
           decision.reason});
    applyDecision(op, decision, originalTypes[op], state);
  }
  eraseDeadOps(state);

  if (options.argPrecision == ArgPrecision::Low)
    narrowArguments(module, getFloatType(&getContext(), policy.dtype));
  finishModule(module);
  return success();
}

LogicalResult mlir::amp::runAmpAutoMixedPrecision(ModuleOp module,
                                                  const AmpOptions &options,
                                                  bool *changed,
                                                  AmpDecisionLog *log) {
  bool modified = false;
  AutoMixedPrecision amp(module.getContext(), options);
  amp.log = log;
  LogicalResult result = amp.run(module, modified);
  if (changed)
    *changed = modified;
  return result;
}

namespace {
struct AmpAutoMixedPrecisionPass
    : public amp::impl::AmpAutoMixedPrecisionPassBase<
          AmpAutoMixedPrecisionPass> {
  using Base::Base;
  AMP_OPTIONS_BINDABLE

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The options are checked here, where errors have the module's
    // location, before anything changes.
    AmpOptions options;
    std::string error;
    std::optional<AmpLevel> parsedLevel = parsePassLevel(level);
    if (!parsedLevel) {
      mlir::emitError(module.getLoc(), "amp: ")
          << "unknown level '" << level << "' (expected O1 or O2)";
      return signalPassFailure();
    }
    options.level = *parsedLevel;
    if (failed(bindAmpDecisionOptions(*this, options, error))) {
      mlir::emitError(module.getLoc(), "amp: ") << error;
      return signalPassFailure();
    }
    bool changed = false;
    if (failed(runAmpAutoMixedPrecision(module, options, &changed)))
      return signalPassFailure();
    if (!changed)
      markAllAnalysesPreserved();
  }
};
} // namespace

std::unique_ptr<Pass>
mlir::amp::createAmpAutoMixedPrecisionPass(const AmpOptions &options) {
  AmpAutoMixedPrecisionPassOptions text;
  unbindAmpDecisionOptions(options, text);
  return createAmpAutoMixedPrecisionPass(std::move(text));
}
