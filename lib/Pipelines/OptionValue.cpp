//===- OptionValue.cpp - an option set by name, with a typed value --------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Pipelines/OptionValue.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::amp;

StringRef mlir::amp::getOptionKindName(OptionKind kind) {
  switch (kind) {
  case OptionKind::Bool:
    return "bool";
  case OptionKind::Integer:
    return "integer";
  case OptionKind::Float:
    return "float";
  case OptionKind::String:
    return "string";
  case OptionKind::StringList:
    return "strings";
  }
  llvm_unreachable("unknown option kind");
}

std::string mlir::amp::describeOptionInfos(ArrayRef<OptionInfo> infos) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(
      infos, os,
      [&](const OptionInfo &info) {
        os << info.name << "=" << getOptionKindName(info.kind);
      },
      ",");
  return text;
}

/// "a bool", "an integer", ...
static std::string withArticle(OptionKind kind) {
  StringRef name = getOptionKindName(kind);
  if (kind == OptionKind::StringList)
    return "a list of strings";
  return (kind == OptionKind::Integer ? "an " : "a ") + name.str();
}

std::string mlir::amp::getKindMismatchMessage(StringRef name,
                                              OptionKind expected,
                                              const OptionValue &value) {
  static constexpr OptionKind kinds[] = {OptionKind::Bool, OptionKind::Integer,
                                         OptionKind::Float, OptionKind::String,
                                         OptionKind::StringList};
  return (name + " takes " + withArticle(expected) + ", not " +
          withArticle(kinds[value.index()]))
      .str();
}

std::string mlir::amp::getUnknownOptionMessage(StringRef name, StringRef what,
                                               ArrayRef<OptionInfo> infos) {
  std::string message =
      ("unknown option '" + name + "' of " + what + "; it has ").str();
  llvm::raw_string_ostream os(message);
  llvm::interleaveComma(infos, os,
                        [&](const OptionInfo &info) { os << info.name; });
  return message;
}
