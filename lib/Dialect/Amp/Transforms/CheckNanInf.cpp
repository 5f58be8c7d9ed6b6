//===- CheckNanInf.cpp - the amp-check-nan-inf pass -----------------------===//
//
// Part of amp-mlir. Finds the first op whose result holds an Inf or a NaN,
// as Paddle's FLAGS_check_nan_inf does for eager execution: each checked
// result is reduced to "any element not finite" (x - x is 0 exactly for
// finite x), and the first such op, in execution order, leaves its number
// in a global that the runner reads after the call.
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

void AmpCheckNanInfPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *context = &getContext();
  if (module.lookupSymbol(kNanInfSiteGlobalName)) {
    module.emitError("amp-check-nan-inf: the module already has a symbol "
                     "named '")
        << kNanInfSiteGlobalName << "' (was the pass run twice?)";
    return signalPassFailure();
  }
  // The checked results, in program order.
  SmallVector<std::pair<Operation *, Value>> checks;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op != module.getOperation() && !isa<FunctionOpInterface>(op) &&
        isInsidePrecisionOp(op))
      return WalkResult::skip();
    if (!isChecked(op, all))
      return WalkResult::advance();
    for (Value result : op->getResults()) {
      Type type = result.getType();
      if (isa<FloatType>(type) ||
          (isa<RankedTensorType>(type) && getFloatElementType(type)))
        checks.push_back({op, result});
    }
    return WalkResult::advance();
  });

  OpBuilder b(context);
  b.setInsertionPointToStart(module.getBody());
  auto globalType = MemRefType::get({}, b.getI32Type());
  auto global = memref::GlobalOp::create(
      b, module.getLoc(), kNanInfSiteGlobalName,
      /*sym_visibility=*/nullptr, globalType,
      DenseElementsAttr::get(RankedTensorType::get({}, b.getI32Type()),
                             b.getI32IntegerAttr(-1).getValue()),
      /*constant=*/false, /*alignment=*/nullptr);
  (void)global;

  SmallVector<Attribute> sites;
  llvm::DenseMap<Operation *, int32_t> siteOf;
  for (auto [op, result] : checks) {
    auto [it, inserted] = siteOf.try_emplace(op, int32_t(sites.size()));
    if (inserted)
      sites.push_back(b.getStringAttr(describeSite(op)));
    Location loc = op->getLoc();
    b.setInsertionPointAfter(op);
    Value bad = buildAnyNonFinite(b, loc, result);
    auto ifOp = scf::IfOp::create(b, loc, bad, /*withElseRegion=*/false);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Value memref =
        memref::GetGlobalOp::create(b, loc, globalType, kNanInfSiteGlobalName);
    Value current = memref::LoadOp::create(b, loc, memref, ValueRange{});
    Value unset = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::slt, current,
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)));
    auto first = scf::IfOp::create(b, loc, unset, /*withElseRegion=*/false);
    b.setInsertionPointToStart(&first.getThenRegion().front());
    Value site =
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(it->second));
    memref::StoreOp::create(b, loc, site, memref, ValueRange{});
  }
  module->setAttr(AmpDialect::kNanInfSitesAttrName, b.getArrayAttr(sites));
}
