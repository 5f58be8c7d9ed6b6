//===- amp-opt.cpp - amp-mlir optimizer driver ----------------------------===//
//
// Part of amp-mlir. `mlir-opt` with the amp dialect, passes and pipelines:
//   amp-opt --amp-o2 --lower-to-gpu model.mlir
//
//===----------------------------------------------------------------------===//

#include "amp/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"

/// The printer verifies the module again before printing it. When the parser
/// and the pass manager (after every pass that changed something) have
/// verified it, that second verification is redundant; it costs as much as a
/// pass's, so skip it, unless the user chose otherwise.
static void skipRedundantVerificationBeforePrinting() {
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (!config.shouldVerifyPasses() || !config.shouldVerifyOnParsing())
    return;
  auto &options = llvm::cl::getRegisteredOptions();
  auto it = options.find("mlir-print-assume-verified");
  if (it == options.end() || it->second->getNumOccurrences())
    return;
  // As if given on the command line (no assumption about the option's type).
  (void)it->second->addOccurrence(0, it->first, "true");
}

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::amp::registerAllDialects(registry);
  mlir::amp::registerAllPasses();
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "amp-mlir optimizer driver\n", registry);
  skipRedundantVerificationBeforePrinting();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));
}
