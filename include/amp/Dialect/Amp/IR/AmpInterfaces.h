//===- AmpInterfaces.h - amp op interfaces ----------------------*- C++ -*-===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_AMPINTERFACES_H
#define AMP_DIALECT_AMP_IR_AMPINTERFACES_H

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace amp {

/// Provides operands in the type an operation needs while it is converted to
/// another precision. Implementations share one conversion per (value,
/// element type) and may fold conversions of constants at compile time.
class ValueCaster {
public:
  virtual ~ValueCaster();
  /// Returns `value` with its float element type replaced by `elementType`
  /// (same shape). Values that are not floating-point are returned as they
  /// are.
  virtual Value cast(Value value, Type elementType) = 0;
  /// Returns `type` with its float element type replaced by `elementType`,
  /// as withFloatElementType does. Implementations may remember answers:
  /// building a tensor type takes the context's type uniquer each time.
  virtual Type convertType(Type type, Type elementType);
};

/// Returns `type` (a float scalar, vector or tensor type) with its element
/// type replaced by `elementType`; other types are returned unchanged.
Type withFloatElementType(Type type, Type elementType);

/// True if `type` is a float scalar or a shaped type of floats.
bool isFloatLike(Type type);

/// The float element type of a float scalar or shaped type of floats, or
/// null. Builtin types are answered without an interface lookup.
FloatType getFloatElementType(Type type);

/// True if converting float(-like) `from` to `to` never rounds or overflows:
/// every value of the source element type is representable in the result's.
bool isExactConversion(Type from, Type to);

/// Converts the float scalar, vector or tensor `value` to `type` (same shape)
/// with arith.extf / arith.truncf, through f32 when neither element type
/// contains the other (f16 <-> bf16). Returns `value` if the types match.
Value convertFloat(OpBuilder &builder, Location loc, Value value, Type type);

/// The operands of `op` as it computes in `computeType`, obtained from
/// `caster`: float operands that must stay f32 in f32, those
/// `isAccumulator` selects in the op's accumulator type (when it has one),
/// the others in `computeType`; non-float operands unchanged.
SmallVector<Value>
castOperandsToPrecision(Operation *op, FloatType computeType,
                        ValueCaster &caster,
                        function_ref<bool(OpOperand &)> isAccumulator = {});

namespace detail {
/// The default `convertToPrecision`: in place, float operands to
/// `computeType` (or f32 when `operandMustStayF32`), float results to the
/// accumulator type if there is one, else to `computeType`.
LogicalResult convertElementTypesInPlace(Operation *op, RewriterBase &rewriter,
                                         FloatType computeType,
                                         ValueCaster &caster);
} // namespace detail
} // namespace amp
} // namespace mlir

#include "amp/Dialect/Amp/IR/AmpInterfaces.h.inc"

#endif // AMP_DIALECT_AMP_IR_AMPINTERFACES_H
