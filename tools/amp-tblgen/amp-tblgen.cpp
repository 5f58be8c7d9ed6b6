//===- amp-tblgen.cpp - amp-mlir's TableGen backends ----------------------===//
//
// Part of amp-mlir. mlir-tblgen with amp-mlir's own generators, as IREE's
// iree-tblgen and CIRCT's circt-tblgen add theirs:
//
//   -gen-amp-option-table: the options of the pass named by
//   -option-table-pass, one AMP_PASS_OPTION(field, "argument") row each in
//   declaration order, so that C++ reaches a pass's options by name with
//   their types (the fields of the pass's generated options struct) from the
//   one declaration in TableGen.
//
//===----------------------------------------------------------------------===//

#include "mlir/TableGen/GenInfo.h"
#include "mlir/TableGen/Pass.h"
#include "mlir/Tools/mlir-tblgen/MlirTblgenMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Record.h"
#include "llvm/TableGen/TableGenBackend.h"

using namespace mlir;

static llvm::cl::OptionCategory
    optionTableCategory("Options for -gen-amp-option-table");
static llvm::cl::opt<std::string>
    optionTablePass("option-table-pass",
                    llvm::cl::desc("The def of the pass whose options the "
                                   "table lists (e.g. AmpO2Pass)"),
                    llvm::cl::cat(optionTableCategory));

/// Writes one AMP_PASS_OPTION(field, "argument") row per option of the pass
/// `optionTablePass`.
static bool emitOptionTable(const llvm::RecordKeeper &records,
                            llvm::raw_ostream &os) {
  const llvm::Record *def = records.getDef(optionTablePass);
  if (!def || !def->isSubClassOf("PassBase"))
    llvm::PrintFatalError("-option-table-pass: no pass named '" +
                          optionTablePass + "'");
  tblgen::Pass pass(def);
  llvm::emitSourceFileHeader(
      ("The options of " + pass.getArgument() + " (" + def->getName() + ")")
          .str(),
      os, records);
  os << "#ifndef AMP_PASS_OPTION\n"
     << "#error \"define AMP_PASS_OPTION(field, argument) first\"\n"
     << "#endif\n";
  for (const tblgen::PassOption &option : pass.getOptions())
    os << llvm::formatv("AMP_PASS_OPTION({0}, \"{1}\")\n",
                        option.getCppVariableName(), option.getArgument());
  os << "#undef AMP_PASS_OPTION\n";
  return false;
}

static GenRegistration genOptionTable("gen-amp-option-table",
                                      "Generate the table of a pass's options",
                                      emitOptionTable);

int main(int argc, char **argv) { return MlirTblgenMain(argc, argv); }
