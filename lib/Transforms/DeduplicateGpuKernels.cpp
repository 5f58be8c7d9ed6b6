//===- DeduplicateGpuKernels.cpp - amp-deduplicate-gpu-kernels ------------===//
//
// Part of amp-mlir. gpu-kernel-outlining gives every launch a gpu.module of
// its own; a model's repeated layers make most of them copies. Each copy
// costs a libdevice link, a PTX compilation, a ptxas process and a module
// load, so the copies go and their launches launch the first of them.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPDEDUPLICATEGPUKERNELSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {

struct AmpDeduplicateGpuKernelsPass
    : amp::impl::AmpDeduplicateGpuKernelsPassBase<
          AmpDeduplicateGpuKernelsPass> {
  void runOnOperation() override;
};

} // namespace

/// The kernel of a gpu.module in gpu-kernel-outlining's form (one kernel
/// gpu.func and nothing else), or null.
static gpu::GPUFuncOp getOnlyKernel(gpu::GPUModuleOp module) {
  Block &body = module.getBodyRegion().front();
  if (!llvm::hasSingleElement(body.without_terminator()))
    return nullptr;
  auto kernel = dyn_cast<gpu::GPUFuncOp>(body.front());
  return kernel && kernel.isKernel() ? kernel : nullptr;
}

/// The module as printed with both names replaced: equal for modules that
/// differ only in their names.
static std::string getKey(gpu::GPUModuleOp module, gpu::GPUFuncOp kernel) {
  MLIRContext *context = module.getContext();
  StringAttr moduleName = module.getNameAttr();
  StringAttr kernelName = kernel.getNameAttr();
  StringAttr placeholder = StringAttr::get(context, "amp.kernel");
  SymbolTable::setSymbolName(module, placeholder);
  SymbolTable::setSymbolName(kernel, placeholder);
  std::string key;
  llvm::raw_string_ostream os(key);
  module->print(os, OpPrintingFlags().useLocalScope());
  SymbolTable::setSymbolName(module, moduleName);
  SymbolTable::setSymbolName(kernel, kernelName);
  return key;
}

void AmpDeduplicateGpuKernelsPass::runOnOperation() {
  ModuleOp host = getOperation();
  // Key -> the first module of that form; erased module -> its replacement.
  llvm::StringMap<gpu::GPUModuleOp> first;
  llvm::DenseMap<StringAttr, SymbolRefAttr> replaced;
  SmallVector<gpu::GPUModuleOp> erased;
  for (auto module : host.getOps<gpu::GPUModuleOp>()) {
    gpu::GPUFuncOp kernel = getOnlyKernel(module);
    if (!kernel)
      continue;
    auto [it, inserted] = first.try_emplace(getKey(module, kernel), module);
    if (inserted)
      continue;
    gpu::GPUModuleOp kept = it->second;
    replaced[module.getNameAttr()] = SymbolRefAttr::get(
        kept.getNameAttr(),
        {FlatSymbolRefAttr::get(getOnlyKernel(kept).getNameAttr())});
    erased.push_back(module);
  }
  if (erased.empty())
    return markAllAnalysesPreserved();

  host.walk([&](gpu::LaunchFuncOp launch) {
    auto it = replaced.find(launch.getKernelModuleName());
    if (it != replaced.end())
      launch.setKernelAttr(it->second);
  });
  // A module that anything else still names stays.
  llvm::DenseSet<StringAttr> named;
  if (std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(&host.getBodyRegion()))
    for (const SymbolTable::SymbolUse &use : *uses)
      named.insert(use.getSymbolRef().getRootReference());
  for (gpu::GPUModuleOp module : erased)
    if (!named.contains(module.getNameAttr()))
      module.erase();
}
