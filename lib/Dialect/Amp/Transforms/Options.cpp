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
  const char *historySetting =
      options.amaxHistoryLen != defaults.amaxHistoryLen ? "amax-history-len"
      : options.amaxCompute != defaults.amaxCompute     ? "amax-compute"
                                                        : nullptr;
  if (options.scaling == Float8Scaling::Current && historySetting)
    return (prefix + historySetting + " applies to " + prefix +
            "scaling=delayed, not current")
        .str();
  return "";
}
