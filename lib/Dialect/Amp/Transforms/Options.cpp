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
  return ("unknown dtype '" + text + "' (expected f16, bf16 or fp8, or " +
          aliases + ", float8)")
      .str();
}

std::string mlir::amp::checkFloat8Options(const Float8Options &options,
                                          StringRef prefix) {
  if (options.margin < 0 || options.margin > 30)
    return (prefix + "margin must be in [0, 30], got " + Twine(options.margin))
        .str();
  if (options.minSize < 0)
    return (prefix + "min-size must be at least 0, got " +
            Twine(options.minSize))
        .str();
  if (options.amaxHistoryLen < 1 || options.amaxHistoryLen > 65536)
    return (prefix + "amax-history-len must be in [1, 65536], got " +
            Twine(options.amaxHistoryLen))
        .str();
  // The history's settings mean nothing to current scaling.
  Float8Options defaults;
  if (options.scaling == Float8Scaling::Current) {
    if (options.amaxHistoryLen != defaults.amaxHistoryLen)
      return (prefix + "amax-history-len applies to " + prefix +
              "scaling=delayed, not current")
          .str();
    if (options.amaxCompute != defaults.amaxCompute)
      return (prefix + "amax-compute applies to " + prefix +
              "scaling=delayed, not current")
          .str();
  }
  return "";
}
