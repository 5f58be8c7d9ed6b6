//===- ReadOnlyArguments.cpp - amp-read-only-arguments --------------------===//
//
// Part of amp-mlir. The tensor arguments of public functions get
// `bufferization.writable = false`, so that One-Shot Bufferize never writes
// into a caller's buffer: the runner passes its callers' memory as it is.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPREADONLYARGUMENTSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {

struct AmpReadOnlyArgumentsPass
    : amp::impl::AmpReadOnlyArgumentsPassBase<AmpReadOnlyArgumentsPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (!function.isPublic() || function.isExternal())
      return;
    auto readOnly = BoolAttr::get(&getContext(), false);
    for (BlockArgument argument : function.getArguments())
      if (isa<TensorType>(argument.getType()))
        function.setArgAttr(
            argument.getArgNumber(),
            bufferization::BufferizationDialect::kWritableAttrName, readOnly);
  }
};

} // namespace
