//===- NoaliasAllocations.cpp - amp-noalias-allocations -------------------===//
//
// Part of amp-mlir. finalize-memref-to-llvm's generic allocation functions,
// which libamp_runtime defines (runtime/lib/HostAllocator.cpp), get a
// noalias result, as LLVM gives malloc's: without it LLVM cannot tell the
// buffers of a function apart and leaves their loops scalar.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPNOALIASALLOCATIONSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {

struct AmpNoaliasAllocationsPass
    : amp::impl::AmpNoaliasAllocationsPassBase<AmpNoaliasAllocationsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (StringRef name :
         {"_mlir_memref_to_llvm_alloc", "_mlir_memref_to_llvm_aligned_alloc"}) {
      auto function = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
      if (!function || !function.isExternal() ||
          !isa<LLVM::LLVMPointerType>(
              function.getFunctionType().getReturnType()))
        continue;
      function.setResultAttr(0, LLVM::LLVMDialect::getNoAliasAttrName(),
                             UnitAttr::get(&getContext()));
    }
  }
};

} // namespace
