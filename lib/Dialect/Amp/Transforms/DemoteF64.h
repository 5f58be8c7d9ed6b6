//===- DemoteF64.h - f64 computations between f32 values -------*- C++ -*-===//
//
// Part of amp-mlir. Private to lib/Dialect/Amp/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_DIALECT_AMP_TRANSFORMS_DEMOTEF64_H
#define AMP_LIB_DIALECT_AMP_TRANSFORMS_DEMOTEF64_H

namespace mlir {
class ModuleOp;
namespace amp {

/// Demotes to f32 the f64 computations of `module` that start from values
/// of at most 32 bits (arith.extf, integers, constants) and whose results
/// only leave as f32 or narrower (arith.truncf) or as comparisons: the f64
/// statistics torch-mlir computes for a norm over f32 data. A computation
/// is a set of ops connected by f64 values; it is demoted whole, or left
/// as it is when one of its ops is not plain arithmetic on tensors or
/// scalars (a call, a loop, a return, an f64 argument, a constant that does
/// not fit f32), with a remark when it reads f32 data. With `explain`, each
/// demoted computation gets a remark. Returns the number demoted.
unsigned demoteF64Computations(ModuleOp module, bool explain);

} // namespace amp
} // namespace mlir

#endif // AMP_LIB_DIALECT_AMP_TRANSFORMS_DEMOTEF64_H
