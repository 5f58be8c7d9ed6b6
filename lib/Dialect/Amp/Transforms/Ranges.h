//===- Ranges.h - calibrated ranges of tensors ------------------*- C++ -*-===//
//
// Part of amp-mlir. What amp-record-ranges measures and amp-apply-ranges
// reads back: the ranged values of a function, in one order that both
// passes (and so the calibration file between them) share, and the
// amp.absmax a value carries.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_DIALECT_AMP_TRANSFORMS_RANGES_H
#define AMP_LIB_DIALECT_AMP_TRANSFORMS_RANGES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlir {
namespace amp {

/// The ranged values of `function`, in order: its float ranked-tensor
/// arguments, then the float ranked-tensor results of the ops of its body
/// (not of ops nested in their regions), in program order. Results of
/// tensor.empty (contents undefined) are left out. Fails, with an error at
/// the function, unless it has exactly one block.
FailureOr<SmallVector<Value>> getRangedValues(func::FuncOp function,
                                              StringRef pass);

/// The function a calibration is about: the one named `name`, else the
/// module's only public function with a body. Fails with an error at the
/// module, naming `pass`.
FailureOr<func::FuncOp> getCalibratedFunction(ModuleOp module, StringRef name,
                                              StringRef pass);

/// The calibrated maximum magnitude of `value` (amp.absmax on its defining
/// op or its function argument), if it has one.
std::optional<double> getCalibratedAbsMax(Value value);

} // namespace amp
} // namespace mlir

#endif // AMP_LIB_DIALECT_AMP_TRANSFORMS_RANGES_H
