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

LogicalResult mlir::amp::bindAmpOptions(const AmpPipelineOptions &text,
                                        AmpOptions &options,
                                        std::string &error) {
  if (failed(bindAmpOutputOptions(text, options, error)) ||
      failed(bindAmpDecisionOptions(text, options, error)))
    return failure();
  bindAmpPipelineOptions(text, options);
  return success();
}

LogicalResult mlir::amp::parseAmpOptions(StringRef text, AmpLevel level,
                                         AmpOptions &options,
                                         std::string &error) {
  AmpPipelineOptions textual;
  llvm::raw_string_ostream os(error);
  if (failed(textual.parseFromString(text, os))) {
    if (error.empty())
      error = "invalid options '" + text.str() + "'";
    return failure();
  }
  options = AmpOptions();
  options.level = level;
  return bindAmpOptions(textual, options, error);
}
