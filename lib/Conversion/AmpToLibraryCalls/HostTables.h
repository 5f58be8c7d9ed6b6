//===- HostTables.h - host arrays of a multi-tensor call --------*- C++ -*-===//
//
// Part of amp-mlir. What the multi-tensor calls of amp-to-library-calls
// (the unscale's, the optimizer's) share: the check that a buffer is one
// dense array, and the host arrays of their tables (llvm.alloca in the
// function's entry block, filled right before the call, which reads them
// before it returns).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_CONVERSION_AMPTOLIBRARYCALLS_HOSTTABLES_H
#define AMP_LIB_CONVERSION_AMPTOLIBRARYCALLS_HOSTTABLES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir {
class Operation;

namespace amp {

/// True for a buffer whose elements are one contiguous row-major array from
/// its first element (unit dimensions may have any stride).
bool isDenseBuffer(MemRefType type);

/// A table of host arrays of `count` entries each, allocated once per call
/// of the function that holds `user` (in its entry block, not per loop
/// iteration).
class HostTable {
public:
  HostTable(OpBuilder &builder, Operation *user, int64_t count);

  /// A new array of `count` elements of `element` (an LLVM pointer, i32,
  /// i64 type).
  Value addArray(Type element);
  /// array[index] = value, at the builder's insertion point.
  void store(Value array, Type element, int64_t index, Value value);

private:
  OpBuilder &builder;
  Operation *user;
  Value size;
  Value last; // The size, or the last array.
};

} // namespace amp
} // namespace mlir

#endif // AMP_LIB_CONVERSION_AMPTOLIBRARYCALLS_HOSTTABLES_H
