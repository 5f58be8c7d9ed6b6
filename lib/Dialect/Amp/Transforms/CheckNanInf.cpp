//===- CheckNanInf.cpp - the amp-check-nan-inf pass -----------------------===//
//
// Part of amp-mlir. Finds the first op that makes an Inf or a NaN, as
// Paddle's FLAGS_check_nan_inf does for eager execution, but naming the op
// where a non-finite value starts rather than every op it flows through:
//  - a checked op (low precision, or a narrowing conversion) is an origin
//    when its result holds an Inf or a NaN and none of the operands it
//    reads does: an f16 product that overflowed names itself, and what
//    computes on its Inf afterwards does not;
//  - an op that uses an Inf or a NaN as a constant (the -inf padding of a
//    max pool, the -inf a fill writes as a max reduction's init) makes
//    its identity, not an overflow: it is not checked, and what reads its
//    result is not blamed for the -inf it was given;
//  - a non-finite value that reaches a checked op from outside the checks
//    (the function's argument, or an op that is not checked, such as an
//    f32 op without all=true) is reported as such, with where it came
//    from.
// Each test is a reduction to "any element not finite" (x - x is 0 exactly
// for finite x). The first event in execution order leaves its number in a
// global that the runner reads after the call; the module's
// amp.nan_inf_sites attribute says what each number means.
//
//===----------------------------------------------------------------------===//

#include "ReportUtils.h"
#include "amp/Dialect/Amp/IR/AmpInterfaces.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPCHECKNANINFPASS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

/// "'math.exp' at model.mlir:12:3".
static std::string describeSite(Operation *op) {
  std::string site = "'" + op->getName().getStringRef().str() + "'";
  // A generic says what its body computes: "'linalg.generic' (arith.subf,
  // arith.mulf)", the elementwise ops of an imported batch norm (not the
  // conversions AMP puts at the body's boundary).
  if (isa<linalg::GenericOp>(op)) {
    SmallVector<StringRef> computes;
    for (Operation &inner : op->getRegion(0).front().without_terminator())
      if (!isa<arith::ConstantOp, arith::ExtFOp, arith::TruncFOp>(inner) &&
          !llvm::is_contained(computes, inner.getName().getStringRef()))
        computes.push_back(inner.getName().getStringRef());
    if (!computes.empty())
      site += " (" + llvm::join(computes, ", ") + ")";
  }
  std::string location = formatLocation(op->getLoc());
  if (!location.empty() && location != "unknown")
    site += " at " + location;
  return site;
}

/// An i1 that is true if any element of `value` (a float scalar or ranked
/// tensor) is not finite, built after its definition.
static Value buildAnyNonFinite(OpBuilder &b, Location loc, Value value) {
  auto notFinite = [&](OpBuilder &nested, Location l, Value x) -> Value {
    Value difference = arith::SubFOp::create(nested, l, x, x);
    Value zero = arith::ConstantOp::create(
        nested, l, nested.getFloatAttr(x.getType(), 0.0));
    return arith::CmpFOp::create(nested, l, arith::CmpFPredicate::UNE,
                                 difference, zero);
  };
  auto tensorType = dyn_cast<RankedTensorType>(value.getType());
  if (!tensorType)
    return notFinite(b, loc, value);
  Type i1 = b.getI1Type();
  Value falseValue = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
  Value empty = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, i1);
  Value init = linalg::FillOp::create(b, loc, falseValue, empty).getResult(0);
  unsigned rank = tensorType.getRank();
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(rank, b.getContext()),
      AffineMap::get(rank, 0, {}, b.getContext())};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  auto any = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{value}, ValueRange{init},
      maps, iterators, [&](OpBuilder &nested, Location l, ValueRange args) {
        Value bad = notFinite(nested, l, args[0]);
        Value result = arith::OrIOp::create(nested, l, args[1], bad);
        linalg::YieldOp::create(nested, l, result);
      });
  return tensor::ExtractOp::create(b, loc, any.getResult(0), ValueRange{});
}

namespace {
struct AmpCheckNanInfPass
    : public amp::impl::AmpCheckNanInfPassBase<AmpCheckNanInfPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

/// Whether `op`'s results are checked: low-precision ops and narrowing
/// conversions (every float op with `all`).
static bool isChecked(Operation *op, bool all) {
  Value input;
  Type output;
  if (isConversion(op, input, output)) {
    FloatType from = getFloatElementType(input.getType());
    FloatType to = getFloatElementType(output);
    return from && to && to.getWidth() < from.getWidth();
  }
  std::string precision = getFloatOpPrecision(op);
  if (precision.empty())
    return false;
  return all || (precision != "f32" && precision != "f64");
}

/// A float scalar or a ranked float tensor: what buildAnyNonFinite tests.
static bool isTestable(Type type) {
  return isa<FloatType>(type) ||
         (isa<RankedTensorType>(type) && getFloatElementType(type));
}

/// Whether a constant's value holds an Inf or a NaN.
static bool holdsNonFinite(Attribute value) {
  if (auto scalar = dyn_cast<FloatAttr>(value))
    return !scalar.getValue().isFinite();
  if (auto elements = dyn_cast<DenseFPElementsAttr>(value)) {
    if (elements.isSplat())
      return !elements.getSplatValue<APFloat>().isFinite();
    return llvm::any_of(elements.getValues<APFloat>(),
                        [](const APFloat &x) { return !x.isFinite(); });
  }
  return false;
}

static bool isNonFiniteConstant(Value value) {
  Attribute attr;
  return matchPattern(value, m_Constant(&attr)) && holdsNonFinite(attr);
}

/// An op that uses an Inf or a NaN as a constant, as an operand or in its
/// regions (tensor.pad's padding value, a fill's -inf, a max reduction
/// whose body starts from -inf): the Infs in its result are its identity.
static bool usesNonFiniteConstant(Operation *op) {
  if (llvm::any_of(op->getOperands(), isNonFiniteConstant))
    return true;
  WalkResult found = op->walk([&](Operation *inner) {
    if (inner == op)
      return WalkResult::advance();
    for (Value operand : inner->getOperands())
      if (isNonFiniteConstant(operand))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

/// The float operands whose values `op` reads: a structured op's inputs
/// and inits where its body reads them (not the tensor.empty a fill writes
/// into, nor a pooling's window, which only gives the window's shape);
/// every other op's float operands. Constants are
/// left out (they are finite where the op is checked at all).
static SmallVector<Value> getReadFloatOperands(Operation *op) {
  SmallVector<Value> read;
  auto consider = [&](Value value) {
    Attribute attr;
    if (isTestable(value.getType()) && !matchPattern(value, m_Constant(&attr)))
      read.push_back(value);
  };
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    for (OpOperand &operand : op->getOpOperands())
      if (!linalgOp.isDpsInput(&operand) && !linalgOp.isDpsInit(&operand))
        consider(operand.get());
      else if (linalgOp.payloadUsesValueFromOperand(&operand))
        consider(operand.get());
    return read;
  }
  for (Value operand : op->getOperands())
    consider(operand);
  return read;
}

/// Where a non-finite operand of a checked op came from, when that is
/// outside the checks: "argument #0 of @f", "'math.exp' at x.mlir:3:5, an
/// op that is not checked".
static std::string describeSource(Value value) {
  if (auto argument = dyn_cast<BlockArgument>(value)) {
    Operation *owner = argument.getOwner()->getParentOp();
    if (auto function = dyn_cast_or_null<FunctionOpInterface>(owner))
      return "argument #" + std::to_string(argument.getArgNumber()) + " of @" +
             function.getName().str();
    return "argument #" + std::to_string(argument.getArgNumber()) +
           " of the region of " + describeSite(owner);
  }
  return describeSite(value.getDefiningOp()) + ", an op that is not checked";
}

/// The op named when `op` produced the first Inf or NaN. A narrowing
/// conversion of another op's result (the f32 accumulator of a convolution
/// or matmul stored in f16) names that op: it is what overflowed the low
/// type.
static std::string describeProducer(Operation *op) {
  Value input;
  Type output;
  if (!isConversion(op, input, output) || !input.getDefiningOp())
    return describeSite(op);
  FloatType from = getFloatElementType(input.getType());
  FloatType to = getFloatElementType(output);
  std::string narrowing;
  llvm::raw_string_ostream os(narrowing);
  os << describeSite(input.getDefiningOp()) << ", whose " << from
     << " result does not fit " << to << " (" << describeSite(op) << ")";
  return narrowing;
}

namespace {
/// Builds the tests after each checked op and numbers what they report.
class Instrumenter {
public:
  Instrumenter(ModuleOp module, MemRefType globalType)
      : b(module.getContext()), globalType(globalType) {}

  /// Tests after `op`: an operand from outside the checks that holds an
  /// Inf or a NaN ("reached"), then a result that does while no operand
  /// does ("produced").
  void instrument(Operation *op, const llvm::DenseSet<Operation *> &checked) {
    Location loc = op->getLoc();
    // What is built here goes after the op; the tests themselves go where
    // their values are defined (test()).
    b.setInsertionPointAfter(op);
    Value anyInput;
    for (Value operand : getReadFloatOperands(op)) {
      Value bad = test(operand);
      anyInput = anyInput
                     ? arith::OrIOp::create(b, loc, anyInput, bad).getResult()
                     : bad;
      Operation *producer = operand.getDefiningOp();
      bool fromOutside = !producer || (!checked.contains(producer) &&
                                       !usesNonFiniteConstant(producer));
      if (fromOutside)
        record(loc, bad,
               "reached " + describeSite(op) + " from " +
                   describeSource(operand) +
                   " (check_nan_inf=all checks every float op)");
    }
    Value anyResult;
    for (Value result : op->getResults()) {
      if (!isTestable(result.getType()))
        continue;
      Value bad = test(result);
      anyResult = anyResult
                      ? arith::OrIOp::create(b, loc, anyResult, bad).getResult()
                      : bad;
    }
    if (!anyResult)
      return;
    Value produced = anyResult;
    if (anyInput) {
      Value trueValue = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
      Value finiteInputs = arith::XOrIOp::create(b, loc, anyInput, trueValue);
      produced = arith::AndIOp::create(b, loc, anyResult, finiteInputs);
    }
    record(loc, produced, "was produced by " + describeProducer(op));
  }

  ArrayAttr getSites() { return b.getArrayAttr(sites); }

private:
  /// Whether `value` holds an Inf or a NaN: one test per value, built
  /// where the value is defined (so that it dominates every reader).
  Value test(Value value) {
    auto [it, inserted] = tests.try_emplace(value, Value());
    if (!inserted)
      return it->second;
    OpBuilder::InsertionGuard guard(b);
    if (Operation *producer = value.getDefiningOp())
      b.setInsertionPointAfter(producer);
    else
      b.setInsertionPointToStart(cast<BlockArgument>(value).getOwner());
    Value bad = buildAnyNonFinite(b, value.getLoc(), value);
    tests[value] = bad;
    return bad;
  }

  /// if (condition && @amp_nan_inf_site < 0) @amp_nan_inf_site = <site>.
  void record(Location loc, Value condition, const std::string &what) {
    auto site = int32_t(sites.size());
    sites.push_back(b.getStringAttr(what));
    auto ifOp = scf::IfOp::create(b, loc, condition, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Value memref =
        memref::GetGlobalOp::create(b, loc, globalType, kNanInfSiteGlobalName);
    Value current = memref::LoadOp::create(b, loc, memref, ValueRange{});
    Value unset = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::slt, current,
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)));
    auto first = scf::IfOp::create(b, loc, unset, /*withElseRegion=*/false);
    b.setInsertionPointToStart(&first.getThenRegion().front());
    Value number = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(site));
    memref::StoreOp::create(b, loc, number, memref, ValueRange{});
  }

  OpBuilder b;
  MemRefType globalType;
  SmallVector<Attribute> sites;
  llvm::DenseMap<Value, Value> tests;
};
} // namespace

void AmpCheckNanInfPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *context = &getContext();
  if (module.lookupSymbol(kNanInfSiteGlobalName)) {
    module.emitError("amp-check-nan-inf: the module already has a symbol "
                     "named '")
        << kNanInfSiteGlobalName << "' (was the pass run twice?)";
    return signalPassFailure();
  }
  // The checked ops, in program order. An op that uses an Inf or a NaN as
  // a constant makes its identity, not an overflow: it is not checked.
  SmallVector<Operation *> checks;
  llvm::DenseSet<Operation *> checked;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op != module.getOperation() && !isa<FunctionOpInterface>(op) &&
        isInsidePrecisionOp(op))
      return WalkResult::skip();
    if (!isChecked(op, all) || usesNonFiniteConstant(op) ||
        llvm::none_of(op->getResultTypes(), isTestable))
      return WalkResult::advance();
    checks.push_back(op);
    checked.insert(op);
    return WalkResult::advance();
  });

  OpBuilder b(context);
  b.setInsertionPointToStart(module.getBody());
  auto globalType = MemRefType::get({}, b.getI32Type());
  memref::GlobalOp::create(
      b, module.getLoc(), kNanInfSiteGlobalName,
      /*sym_visibility=*/nullptr, globalType,
      DenseElementsAttr::get(RankedTensorType::get({}, b.getI32Type()),
                             b.getI32IntegerAttr(-1).getValue()),
      /*constant=*/false, /*alignment=*/nullptr);

  Instrumenter instrumenter(module, globalType);
  for (Operation *op : checks)
    instrumenter.instrument(op, checked);
  module->setAttr(AmpDialect::kNanInfSitesAttrName, instrumenter.getSites());
}
