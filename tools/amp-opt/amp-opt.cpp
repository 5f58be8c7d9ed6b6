//===- amp-opt.cpp - amp-mlir optimizer driver ----------------------------===//
//
// Part of amp-mlir. `mlir-opt` with the amp dialect, passes and pipelines:
//   amp-opt --amp-o2 --lower-to-gpu model.mlir
//
//===----------------------------------------------------------------------===//

#include "amp/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::amp::registerAllDialects(registry);
  mlir::amp::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "amp-mlir optimizer driver\n", registry));
}
