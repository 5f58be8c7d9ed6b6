//===- Policy.h - AMP precision policies ------------------------*- C++ -*-===//
//
// Part of amp-mlir. What an AMP level decides with: the level, the low
// precision type, the custom lists and category overrides (from options or
// from a JSON policy file), and whether fp16_guard regions restrict it.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_POLICY_H
#define AMP_DIALECT_AMP_TRANSFORMS_POLICY_H

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/Transforms/Options.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <string>

namespace mlir {
namespace amp {

struct AmpPolicy {
  AmpLevel level = AmpLevel::O1;
  /// The low-precision type: f16 or bf16.
  Precision dtype = Precision::f16;
  /// Op names (`linalg.softmax`) forced low / kept fp32. The black list wins
  /// over everything but an `amp.precision` pin.
  llvm::StringSet<> whiteList;
  llvm::StringSet<> blackList;
  /// Category overrides by op name (policy files only).
  llvm::StringMap<Category> categories;
  /// Unset: true exactly when the module contains an amp.fp16_guard.
  std::optional<bool> useFp16Guard;
};

/// Reads the JSON policy file at `path` into `policy`:
///
///   { "dtype": "bf16",
///     "custom_white_list": ["linalg.softmax"],
///     "custom_black_list": ["math.exp"],
///     "categories": {"tosa.reduce_sum": "gray"},
///     "use_fp16_guard": false }
///
/// Every key is optional; lists add to the policy's, scalars replace its
/// values unless `keepDtype` / `keepGuard` say the caller set them.
LogicalResult loadPolicyFile(llvm::StringRef path, AmpPolicy &policy,
                             bool keepDtype, bool keepGuard,
                             function_ref<InFlightDiagnostic()> emitError);

/// Checks that every op name is registered and that no op is in both lists.
LogicalResult verifyPolicy(const AmpPolicy &policy, MLIRContext *context,
                           function_ref<InFlightDiagnostic()> emitError);

} // namespace amp
} // namespace mlir

#endif // AMP_DIALECT_AMP_TRANSFORMS_POLICY_H
