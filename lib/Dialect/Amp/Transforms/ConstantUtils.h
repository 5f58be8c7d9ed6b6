//===- ConstantUtils.h - float constants under AMP --------------*- C++ -*-===//
//
// Part of amp-mlir. Private to lib/Dialect/Amp/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_DIALECT_AMP_TRANSFORMS_CONSTANTUTILS_H
#define AMP_LIB_DIALECT_AMP_TRANSFORMS_CONSTANTUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mlir {
namespace amp {

/// The float constant behind `value` (arith.constant or tosa.const: a
/// FloatAttr or DenseFPElementsAttr), or null.
Attribute getFloatConstant(Value value);

/// Converts every value of a float constant to `type` (round to nearest
/// even). Sets `*overflow` if a finite value becomes infinite.
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
/// null for other values and for a constant that would overflow.
Value recreateInType(OpBuilder &builder, Value value, Type target);

} // namespace amp
} // namespace mlir

#endif // AMP_LIB_DIALECT_AMP_TRANSFORMS_CONSTANTUTILS_H
