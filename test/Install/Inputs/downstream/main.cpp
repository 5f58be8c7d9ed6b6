//===- main.cpp - a downstream user of the installed amp-mlir package -----===//
//
// Registers the amp dialect, parses a module that uses it, runs
// --amp-inline-guards through the C++ API and prints the result.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpAttributes.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

static const char *kModule = R"mlir(
func.func @f(%a: f32) -> f32 {
  %0 = amp.fp16_guard -> f32 {
    %1 = arith.mulf %a, %a : f32
    amp.yield %1 : f32
  }
  return %0 : f32
}
)mlir";

int main() {
  mlir::DialectRegistry registry;
  registry.insert<mlir::amp::AmpDialect, mlir::arith::ArithDialect,
                  mlir::func::FuncDialect>();
  mlir::MLIRContext context(registry);
  context.loadDialect<mlir::amp::AmpDialect>();

  auto preset = mlir::amp::LossScalingAttr::getPreset(&context, "deepspeed");
  llvm::outs() << "deepspeed hysteresis: " << preset.getHysteresis() << "\n";

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kModule, &context);
  if (!module)
    return 1;
  mlir::PassManager pm(&context);
  pm.addPass(mlir::amp::createAmpInlineGuardsPass());
  if (mlir::failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  return 0;
}
