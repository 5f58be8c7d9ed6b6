//===- ConstantUtils.h - float constants under AMP --------------*- C++ -*-===//
//
// Part of amp-mlir. Private to lib/Dialect/Amp/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_DIALECT_AMP_TRANSFORMS_CONSTANTUTILS_H
#define AMP_LIB_DIALECT_AMP_TRANSFORMS_CONSTANTUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <optional>
#include <string>

namespace mlir {
namespace amp {

/// The float constant behind `value` (arith.constant or tosa.const: a
/// FloatAttr, a DenseFPElementsAttr, or an f32 DenseResourceElementsAttr
/// whose blob is present), or null.
Attribute getFloatConstant(Value value);

/// Converts every value of a float constant to `type` (round to nearest
/// even). Sets `*overflow` if a finite value becomes infinite. A
/// dense_resource constant becomes a new blob of `type` named after its own
/// (`<name>_f16`, made unique), read and written element by element, with no
/// DenseElementsAttr in between; when `overflow` is given and the constant
/// overflows, that blob is not built and null is returned. With `saturate`,
/// a finite value that would overflow becomes the largest finite value of
/// `type` with its sign instead (and `*overflow` is not set).
Attribute convertFloatConstant(Attribute attr, FloatType type,
                               bool *overflow = nullptr, bool saturate = false);

/// True if converting the constant behind `value` to `type` would overflow.
bool floatConstantOverflows(Value value, FloatType type);

/// Creates the constant `attr` of type `type` after `value`'s definition,
/// with the same kind of op (tosa.const for tosa.const, else arith.constant).
Value materializeFloatConstantLike(OpBuilder &builder, Value value,
                                   Attribute attr, Type type);

/// How the values of a constant that overflow the low type are converted
/// when its meaning survives (see getOverflowingConstantUse).
enum class OverflowConversion {
  /// Not converted: the constant's users stay f32.
  None,
  /// To the infinity of their sign (the value only bounds a max or a min).
  Infinity,
  /// To the largest finite value of their sign (a mask or fill value).
  Saturate,
};

/// True for a constant that dtype=fp8 keeps in f32 for a contraction to
/// quantize (AmpDialect::kFloat8SourceAttrName): its casts do not fold.
bool isFloat8Source(Value value);

/// Re-creates `value` as `target` (its type with another float element
/// type), right after it, when that costs nothing at run time: a float
/// constant (converted, round to nearest even) or a tensor.empty. Returns
/// null for other values, for a constant marked as an FP8 source and for a
/// constant that would overflow, unless `overflow` says how to convert its
/// overflowing values.
Value recreateInType(OpBuilder &builder, Value value, Type target,
                     OverflowConversion overflow = OverflowConversion::None);

/// Whether the float constant behind `value`, which overflows `type`, means
/// the same in `type` with its overflowing values as infinities: every
/// value that overflows does so towards -inf and every use is the identity
/// of a max (or all towards +inf, of a min). Such uses are
///  * the init of a linalg reduction or pooling whose combiner is
///    arith.maximumf/maxnumf (minimumf/minnumf), directly or through a
///    linalg.fill into a tensor.empty;
///  * the padding value of a tensor.pad or tosa.pad whose result only feeds
///    such max (min) reductions or poolings, or tosa.max_pool2d and
///    tosa.reduce_max (tosa.reduce_min).
/// Returns a description ("the identity of max reductions (the init of
/// 'linalg.pooling_nchw_max'), converted to -inf"), or nullopt for a
/// constant whose value matters (or that does not overflow).
std::optional<std::string> getReductionIdentityUse(Value value, FloatType type);

/// A use of an overflowing constant whose meaning survives the conversion to
/// the low type, and how to convert it.
struct OverflowingConstantUse {
  OverflowConversion conversion;
  /// What the constant is, for a remark: "the identity of max reductions
  /// (...), converted to -inf".
  std::string description;
};

/// Whether the float constant behind `value`, which overflows `type`, means
/// the same in `type` with its overflowing values converted:
///  * to infinities: a reduction identity (getReductionIdentityUse), or the
///    most negative (positive) f32, -FLT_MAX, that only a max (min) or an
///    exp reads, in the body of the elementwise op it is an input of (or
///    through a select whose result only they read): max(-inf, x) and
///    exp(-inf) are max(-FLT_MAX, x) and exp(-FLT_MAX) once rounded;
///  * saturated to the largest finite value: -FLT_MAX or FLT_MAX (what
///    `torch.finfo(torch.float32).min` / `.max` write) as the value of a
///    select (`torch.where`, `masked_fill`, a causal mask), directly or
///    through a fill, or added to scores that a softmax reads (directly, or
///    multiplied by a 0/1 mask first: `(1 - m) * finfo.min`). Their value
///    means "as far as the type goes": Hugging Face models write
///    `finfo(dtype).min` of the type they run in, -65504 in f16.
/// Other values that overflow (-1e9) matter and are not converted. The uses
/// also count when the constant is captured by the body of a linalg op
/// (read there, not passed as an operand); such a body computes in f32, so
/// only mask values need a change there (saturatedValue).
std::optional<OverflowingConstantUse> getOverflowingConstantUse(Value value,
                                                                FloatType type);

/// The largest finite value of `type`, negative or not, as a constant of
/// `value`'s type (f32) right after `value`: the saturated mask value a
/// body that captures `value` reads instead of it.
Value saturatedValue(OpBuilder &builder, Value value, FloatType type);

} // namespace amp
} // namespace mlir

#endif // AMP_LIB_DIALECT_AMP_TRANSFORMS_CONSTANTUTILS_H
