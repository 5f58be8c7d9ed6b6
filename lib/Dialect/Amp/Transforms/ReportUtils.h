//===- ReportUtils.h - how the report classifies ops ------------*- C++ -*-===//
//
// Part of amp-mlir. Private to lib/Dialect/Amp/Transforms: what amp-report
// counts (float ops and their precision, conversions and their bytes), shared
// with amp-precision-graph so that both agree.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_DIALECT_AMP_TRANSFORMS_REPORTUTILS_H
#define AMP_LIB_DIALECT_AMP_TRANSFORMS_REPORTUTILS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseSet.h"

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

/// Whether `op` is a conversion that narrows a contraction's f32 accumulator
/// or a reduction's f32 result, whose users all narrow it to that type: the
/// lowering writes it from the contraction's or reduction's loop nest or
/// kernel (its epilogue), so it moves no memory of its own.
bool isEpilogueNarrowing(Operation *op);

/// True if `op` is a reduction whose narrowing both lowerings write from the
/// loop nest or kernel that computes it, as a contraction's epilogue: a
/// linalg.generic or linalg.reduce with reduction loops and one init, or a
/// tosa.reduce_* (a generic after tosa-to-linalg).
bool isReduction(Operation *op);

/// Whether `value` has uses and every one is a conversion to element type
/// `elementType`.
bool isOnlyConvertedTo(Value value, Type elementType);

/// Whether every use of `value` is a function's return, directly or through
/// conversions: the value is at the function interface.
bool isOnlyReturned(Value value);

/// Whether `op` is nested in an op with an AMP model (a linalg body): it is
/// part of that op, and its conversions are fused.
bool isInsidePrecisionOp(Operation *op);

/// The float tensor bytes that compute ops read and write, counted at the
/// low type's width, against an ideal (see docs/policies.md, "Low-precision
/// bytes"). A dynamic dimension counts as 1 (per sample for a dynamic
/// batch); such tensors are also counted apart.
struct LowPrecisionBytes {
  /// Bytes of the counted tensors stored in the low type.
  uint64_t low = 0;
  /// Bytes of the counted tensors the ideal stores in the low type.
  uint64_t ideal = 0;
  /// Bytes of the counted tensors stored low that the ideal stores low.
  uint64_t reached = 0;
  /// Counted tensors of dynamic size (in the sums with each dynamic
  /// dimension as 1).
  unsigned dynamicTensors = 0;
  /// Bytes of every float tensor that compute ops read and write, in the
  /// types they are stored in (dynamic dimensions as 1; conversions not
  /// included).
  uint64_t moved = 0;
};

struct AmpPolicy;

/// Measures `module` against the ideal of O1 (`isO1`) or O2 with low type
/// `lowType`: the level's op table, pins, and, if given, the user's `policy`
/// (custom lists, a policy file's categories) and the ops outside its guards
/// (`unguarded`). What the decision pass chose plays no part.
/// The ops of the FP8 recipe (`float8Ops`) are not measured; a
/// contraction's result that its rescaling epilogue alone reads is stored
/// as that epilogue's result is.
LowPrecisionBytes measureLowPrecisionBytes(
    Operation *module, FloatType lowType, bool isO1,
    const AmpPolicy *policy = nullptr,
    const llvm::DenseSet<Operation *> *unguarded = nullptr,
    const llvm::DenseSet<Operation *> *float8Ops = nullptr);

/// What the report's first line (and the precision graph's title) counts.
struct ReportSummary {
  unsigned numFloatOps = 0, numLowOps = 0;
  /// Standalone conversions, those of dynamic size, and narrowings in
  /// contraction epilogues (not in numCasts).
  unsigned numCasts = 0, numDynamicCasts = 0, numEpilogues = 0;
  uint64_t bytesConverted = 0;
  /// FP8 quantizations (amp.quantize, also in numCasts and bytesConverted)
  /// and the bytes of the FP8 tensors they write (static sizes).
  unsigned numQuantizations = 0;
  uint64_t float8Bytes = 0;
  /// "f16", "bf16", "low precision" (several) or empty (none).
  std::string lowName;

  /// The FP8 recipe's ops, not counted as float ops (null: none known).
  const llvm::DenseSet<Operation *> *float8Ops = nullptr;

  /// Counts `op` (not nested in a counted op). Returns the bytes a counted
  /// conversion of static size moves, 0 for every other op.
  uint64_t count(Operation *op);
  /// "amp-o2: 14/17 float ops in f16, 8 casts, 1.6 KiB converted per call;
  /// 2 narrowings in epilogues; 2 FP8 quantizations writing 4.0 KiB".
  std::string format(StringRef title) const;
};

/// A location as users read it: "model.mlir:12:3" (MLIR's printing without
/// the loc(...) and quotes); "unknown" for an unknown location.
std::string formatLocation(Location loc);

/// "672 B", "1.5 KiB", "1.2 MiB".
std::string formatBytes(uint64_t bytes);

} // namespace amp
} // namespace mlir

#endif // AMP_LIB_DIALECT_AMP_TRANSFORMS_REPORTUTILS_H
