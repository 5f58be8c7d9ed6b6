//===- ReportUtils.h - how the report classifies ops ------------*- C++ -*-===//
//
// Part of amp-mlir. Private to lib/Dialect/Amp/Transforms: what amp-report
// counts (float ops and their precision, conversions and their bytes), shared
// with amp-precision-graph so that both agree.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_DIALECT_AMP_TRANSFORMS_REPORTUTILS_H
#define AMP_LIB_DIALECT_AMP_TRANSFORMS_REPORTUTILS_H

#include "mlir/IR/Operation.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
namespace amp {

/// The precision an op computes in: the narrowest float type among its
/// operands and results ("f32", "f16", "bf16", or the type's name); empty
/// when it has no float operand or result.
std::string getOpPrecision(Operation *op);

/// The precision of a float op as the report counts it: an op with an AMP
/// model whose category is not Unsupported, with a float operand or result.
/// Empty for every other op.
std::string getFloatOpPrecision(Operation *op);

/// Whether `op` is a standalone conversion (`amp.cast`, `arith.extf`,
/// `arith.truncf`, float `tosa.cast`); sets its input and output type.
bool isConversion(Operation *op, Value &input, Type &output);

/// The bytes a conversion of `input` to `output` reads and writes per call:
/// elements x (source bytes + result bytes); std::nullopt for dynamic sizes.
std::optional<uint64_t> getBytesConverted(Value input, Type output);

/// Whether `op` is nested in an op with an AMP model (a linalg body): it is
/// part of that op, and its conversions are fused.
bool isInsidePrecisionOp(Operation *op);

/// "672 B", "1.5 KiB", "1.2 MiB".
std::string formatBytes(uint64_t bytes);

} // namespace amp
} // namespace mlir

#endif // AMP_LIB_DIALECT_AMP_TRANSFORMS_REPORTUTILS_H
