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
/// overflows, that blob is not built and null is returned.
Attribute convertFloatConstant(Attribute attr, FloatType type,
                               bool *overflow = nullptr);

/// True if converting the constant behind `value` to `type` would overflow.
bool floatConstantOverflows(Value value, FloatType type);

/// Creates the constant `attr` of type `type` after `value`'s definition,
/// with the same kind of op (tosa.const for tosa.const, else arith.constant).
Value materializeFloatConstantLike(OpBuilder &builder, Value value,
                                   Attribute attr, Type type);

/// Re-creates `value` as `target` (its type with another float element
/// type), right after it, when that costs nothing at run time: a float
/// constant (converted, round to nearest even) or a tensor.empty. Returns
/// null for other values and for a constant that would overflow, unless
/// `overflowToInfinity` (a reduction identity, see
/// getReductionIdentityUse): its overflowing values then become infinities.
Value recreateInType(OpBuilder &builder, Value value, Type target,
                     bool overflowToInfinity = false);

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

} // namespace amp
} // namespace mlir

#endif // AMP_LIB_DIALECT_AMP_TRANSFORMS_CONSTANTUTILS_H
