//===- Modules.cpp - levels, modules, signatures --------------------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "RunnerImpl.h"
#include "amp/Runner/Npy.h"
#include "amp/Runner/Runner.h"
#include "amp/runtime/AmpRuntime.h"

#include "GpuRuntime.h"

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/InitAll.h"
#include "amp/Pipelines/AmpPipelines.h"
#include "amp/Pipelines/LoweringPipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <random>

using namespace mlir;
using namespace mlir::amp::runner;
using namespace mlir::amp::runner::detail;
using llvm::Expected;

std::string amp::runner::getVariantLabel(AmpLevel level, StringRef dtype) {
  switch (level) {
  case AmpLevel::O0:
    return "O0";
  case AmpLevel::O1:
    return ("O1 " + dtype).str();
  case AmpLevel::O2:
    return ("O2 " + dtype).str();
  }
  return "";
}

//===----------------------------------------------------------------------===//
// Modules and signatures
//===----------------------------------------------------------------------===//

void amp::runner::registerRunnerDialects(DialectRegistry &registry) {
  amp::registerAllDialects(registry);
}

Expected<OwningOpRef<ModuleOp>> amp::runner::loadModule(StringRef path,
                                                        MLIRContext &context) {
  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &message);
  if (!file)
    return makeError(message);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, os);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return makeError("cannot parse '" + path + "'\n" +
                     StringRef(diagnostics).rtrim());
  return std::move(module);
}

SmallVector<StringRef> amp::runner::getFunctionNames(ModuleOp module) {
  SmallVector<StringRef> names;
  for (auto function : module.getOps<func::FuncOp>())
    names.push_back(function.getSymName());
  return names;
}

static const char kSupportedTypes[] =
    "amp-run needs ranked tensors with f32, f16, bf16, f64, i32, i64 or i1 "
    "elements";

static std::string typeToString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

Expected<Signature> amp::runner::getEntrySignature(ModuleOp module,
                                                   StringRef entry,
                                                   StringRef moduleName) {
  SmallVector<StringRef> names = getFunctionNames(module);
  if (entry.empty()) {
    if (names.size() != 1)
      return makeError("--entry is needed: " + moduleName +
                       (names.empty() ? llvm::Twine(" has no function")
                                      : " has several functions (" +
                                            llvm::join(names, ", ") + ")"));
    entry = names.front();
  }
  auto function = module.lookupSymbol<func::FuncOp>(entry);
  if (!function) {
    std::string available =
        names.empty() ? std::string("none") : llvm::join(names, ", ");
    return makeError("no function '@" + entry + "' in " + moduleName +
                     " (functions: " + available + ")");
  }
  if (function.isDeclaration())
    return makeError("'@" + entry + "' in " + moduleName +
                     " is a declaration, without a body to run");

  Signature signature;
  signature.name = entry.str();
  FunctionType type = function.getFunctionType();
  for (auto [index, argumentType] : llvm::enumerate(type.getInputs())) {
    std::optional<TensorSpec> tensor = getTensorSpec(argumentType);
    if (!tensor)
      return makeError("argument #" + llvm::Twine(index) + " of '@" + entry +
                       "' has type '" + typeToString(argumentType) +
                       "': " + kSupportedTypes);
    signature.arguments.push_back(*tensor);
  }
  for (auto [index, resultType] : llvm::enumerate(type.getResults())) {
    std::optional<TensorSpec> tensor = getTensorSpec(resultType);
    if (!tensor)
      return makeError("result #" + llvm::Twine(index) + " of '@" + entry +
                       "' has type '" + typeToString(resultType) +
                       "': " + kSupportedTypes);
    signature.results.push_back(*tensor);
  }
  return signature;
}
