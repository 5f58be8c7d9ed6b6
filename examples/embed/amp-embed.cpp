//===- amp-embed.cpp - amp-mlir embedded in a downstream MLIR tool --------===//
//
// Part of amp-mlir. A starting point for compilers that embed amp-mlir: it
// finds the installed package (see CMakeLists.txt), registers the amp dialect
// and what it needs, and runs the O2 pipeline built in C++ with options:
//
//   amp-embed model.mlir --dtype bf16 --black-list tosa.add,tosa.exp
//
// The rewritten module goes to stdout, the precision report (what ran in f32
// and what in f16/bf16) to stderr or --report-file.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/ExternalModels/PrecisionModels.h"
#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Pipelines/AmpPipelines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

static llvm::cl::opt<std::string> inputFilename(llvm::cl::Positional,
                                                llvm::cl::desc("<input.mlir>"),
                                                llvm::cl::Required);
static llvm::cl::opt<std::string>
    dtype("dtype", llvm::cl::desc("Low-precision type: f16 or bf16"),
          llvm::cl::init("f16"));
static llvm::cl::list<std::string>
    blackList("black-list", llvm::cl::CommaSeparated,
              llvm::cl::desc("Comma-separated op names kept in f32"));
static llvm::cl::opt<std::string> reportFile(
    "report-file",
    llvm::cl::desc("Where the precision report goes: a path, or '-' for "
                   "stdout (default: stderr)"),
    llvm::cl::init(""));

/// What AMP needs in the context. A compiler adds these to its own registry:
///  - the amp dialect, for inputs that use it (amp.fp16_guard, pins);
///  - the upstream dialects of its input (here TOSA, or linalg on tensors,
///    with scf loops);
///  - the precision models: how each upstream op behaves under AMP (matmul
///    white, exp black, ...). Without them the pipeline silently converts
///    nothing ("0/0 float ops" in the report).
/// mlir::amp::registerAllDialects (AmpMLIR::AmpInitAll) registers all of this
/// and every other upstream dialect, as amp-opt does. Passes need no
/// registration to be built in C++; call amp::registerAmpPasses() and
/// amp::registerAmpPipelines() only to parse textual pipelines.
static void registerAmpDialects(DialectRegistry &registry) {
  registry.insert<amp::AmpDialect, arith::ArithDialect, func::FuncDialect,
                  linalg::LinalgDialect, math::MathDialect, scf::SCFDialect,
                  tensor::TensorDialect, tosa::TosaDialect>();
  amp::registerAllPrecisionModels(registry);
}

/// Runs the equivalent of
///   --amp-o2="dtype=<dtype> custom-black-list=<list> report=text ..."
/// built in C++ from the typed options: no pipeline string to parse. Errors are
/// reported through the context's diagnostic handler.
static LogicalResult runAmpO2(ModuleOp module) {
  amp::AmpOptions options;
  options.level = amp::AmpLevel::O2;
  options.dtype = amp::parseLowPrecision(dtype);
  options.customBlackList.assign(blackList.begin(), blackList.end());
  options.report = amp::ReportFormat::Text;
  options.reportFile = reportFile;

  PassManager pm(module->getContext());
  amp::buildAmpPipeline(pm, options);
  return pm.run(module);
}

static int error(const llvm::Twine &message) {
  llvm::errs() << "amp-embed: " << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::cl::ParseCommandLineOptions(argc, argv,
                                    "amp-mlir embedded: AMP O2 on a module\n");
  // Options are only checked when the pipeline runs; check the dtype first
  // to fail before reading the input.
  if (!amp::parseLowPrecision(dtype))
    return error("unknown --dtype '" + dtype + "' (expected f16 or bf16)");

  DialectRegistry registry;
  registerAmpDialects(registry);
  MLIRContext context(registry);

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &errorMessage);
  if (!input)
    return error(errorMessage);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  // Parser and pass errors print as `file:line:col: error: ...`.
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return error("cannot parse '" + inputFilename + "'");
  if (failed(runAmpO2(*module)))
    return error("the AMP O2 pipeline failed");

  module->print(llvm::outs());
  llvm::outs() << "\n";
  // The pipeline records what it applied on the module, e.g. "O2:bf16".
  if (auto applied = (*module)->getAttrOfType<StringAttr>(
          amp::AmpDialect::kAppliedAttrName))
    llvm::errs() << "amp-embed: applied " << applied.getValue() << "\n";
  return 0;
}
