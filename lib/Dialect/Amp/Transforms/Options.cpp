//===- Options.cpp - the one options struct of AMP ------------------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Options.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::amp;

std::string mlir::amp::getUnknownDtypeMessage(StringRef text) {
  std::string aliases;
  for (const Spelling<Precision> &spelling : OptionSpellings<Precision>::values)
    if (stringifyOptionValue(spelling.value) != spelling.name)
      aliases += (aliases.empty() ? "" : ", ") + spelling.name.str();
  return ("unknown dtype '" + text + "' (expected " +
          describeOptionValues<Precision>() + ", or " + aliases + ")")
      .str();
}
