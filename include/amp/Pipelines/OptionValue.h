//===- OptionValue.h - an option set by name, with a typed value -*- C++
//-*-===//
//
// Part of amp-mlir. What the typed setters of the pipelines' options take
// (the C API's ampRunnerOptionsSetAmp* and ampRunnerOptionsSetLowering*,
// and Python's keywords through them): an option's name and a value of its
// kind, checked against the option's declared type where it enters.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_PIPELINES_OPTIONVALUE_H
#define AMP_PIPELINES_OPTIONVALUE_H

#include "mlir/Support/LLVM.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <cstdint>
#include <limits>
#include <string>
#include <variant>
#include <vector>

namespace mlir {
namespace amp {

/// The kind of value an option takes from a typed setter.
enum class OptionKind { Bool, Integer, Float, String, StringList };

/// A typed value of an option. A String option of an enumerated or parsed
/// type takes its spelling ("greedy", "sm_80").
using OptionValue =
    std::variant<bool, int64_t, double, std::string, std::vector<std::string>>;

/// An option: its name in the pipelines' syntax and the kind it takes.
struct OptionInfo {
  llvm::StringLiteral name;
  OptionKind kind;
};

/// "bool", "integer", "float", "string" or "strings": how the C API lists
/// a kind (ampRunnerGetAmpOptions, ampRunnerGetLoweringOptions).
llvm::StringRef getOptionKindName(OptionKind kind);

/// "name=kind,..." of `infos`, in their order.
std::string describeOptionInfos(llvm::ArrayRef<OptionInfo> infos);

/// The message for a `value` of another kind than `expected`: "explain
/// takes a bool, not a string".
std::string getKindMismatchMessage(llvm::StringRef name, OptionKind expected,
                                   const OptionValue &value);

/// The message for an unknown option `name` of `what` ("the GPU lowering"):
/// "unknown option 'x' of the GPU lowering; it has chip, ...".
std::string getUnknownOptionMessage(llvm::StringRef name, llvm::StringRef what,
                                    llvm::ArrayRef<OptionInfo> infos);

/// Stores `value` in the integer `field` when T holds it; else failure with
/// "name must be in [min, max], got value".
template <typename T>
LogicalResult setIntegerOption(llvm::StringRef name, int64_t value, T &field,
                               std::string &error) {
  static_assert(std::is_integral_v<T>, "an integer option");
  if (value < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
      (value > 0 && static_cast<uint64_t>(value) >
                        static_cast<uint64_t>(std::numeric_limits<T>::max()))) {
    error = (name + " must be in [" +
             llvm::Twine(static_cast<int64_t>(std::numeric_limits<T>::min())) +
             ", " + llvm::Twine(std::numeric_limits<T>::max()) + "], got " +
             llvm::Twine(value))
                .str();
    return failure();
  }
  field = static_cast<T>(value);
  return success();
}

/// Stores `value` in `field`, an option that takes values of kind `Kind`:
/// a bool, an integer (within T's range), a float (an integer too), a list
/// of strings, or a string, which `parseString(text)` reads into `field`
/// as T's form. Failure, with the message in `error`, for a value of
/// another kind.
template <OptionKind Kind, typename T, typename ParseString>
LogicalResult assignOptionValue(llvm::StringRef name, T &field,
                                const OptionValue &value, std::string &error,
                                ParseString parseString) {
  if constexpr (Kind == OptionKind::Bool) {
    if (const bool *flag = std::get_if<bool>(&value)) {
      field = *flag;
      return success();
    }
  } else if constexpr (Kind == OptionKind::Integer) {
    if (const int64_t *number = std::get_if<int64_t>(&value))
      return setIntegerOption(name, *number, field, error);
  } else if constexpr (Kind == OptionKind::Float) {
    if (const double *number = std::get_if<double>(&value)) {
      field = *number;
      return success();
    }
    if (const int64_t *number = std::get_if<int64_t>(&value)) {
      field = static_cast<T>(*number);
      return success();
    }
  } else if constexpr (Kind == OptionKind::String) {
    if (const std::string *text = std::get_if<std::string>(&value))
      return parseString(*text);
  } else {
    if (const auto *list = std::get_if<std::vector<std::string>>(&value)) {
      field.assign(list->begin(), list->end());
      return success();
    }
  }
  error = getKindMismatchMessage(name, Kind, value);
  return failure();
}

} // namespace amp
} // namespace mlir

#endif // AMP_PIPELINES_OPTIONVALUE_H
