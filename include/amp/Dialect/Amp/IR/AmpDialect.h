//===- AmpDialect.h - amp dialect -------------------------------*- C++ -*-===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_AMPDIALECT_H
#define AMP_DIALECT_AMP_IR_AMPDIALECT_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/Operation.h"

#include <optional>

#include "amp/Dialect/Amp/IR/AmpDialect.h.inc"
#include "amp/Dialect/Amp/IR/AmpEnums.h.inc"

namespace mlir {
namespace amp {

/// The precision pinned on `op` by an `amp.precision` attribute, if any.
std::optional<Precision> getPinnedPrecision(Operation *op);

/// Pins the precision of `op` (sets its `amp.precision` attribute).
void setPinnedPrecision(Operation *op, Precision precision);

/// The element type of a precision: f32, f16 or bf16.
FloatType getFloatType(MLIRContext *context, Precision precision);

/// The precision of an element type, if it is f32, f16 or bf16.
std::optional<Precision> getPrecision(Type elementType);

} // namespace amp
} // namespace mlir

#endif // AMP_DIALECT_AMP_IR_AMPDIALECT_H
