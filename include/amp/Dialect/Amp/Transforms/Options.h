//===- Options.h - enumerated options of the AMP passes ---------*- C++ -*-===//
//
// Part of amp-mlir. The types of the pass and pipeline options that take one
// of a few words; the option parser rejects any other word.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_OPTIONS_H
#define AMP_DIALECT_AMP_TRANSFORMS_OPTIONS_H

namespace mlir {
namespace amp {

/// `f64=`: what the precision pass does with f64 computations between f32
/// values (torch-mlir's f64 statistics of a norm over f32 data).
enum class F64Computations {
  /// Computed in f32, then decided like the other f32 ops (the default).
  Demote,
  /// Left in f64, as written.
  Keep,
};

} // namespace amp
} // namespace mlir

/// The `llvm::cl::values` of an F64Computations option.
#define AMP_F64_COMPUTATIONS_VALUES                                            \
  ::llvm::cl::values(                                                          \
      clEnumValN(::mlir::amp::F64Computations::Demote, "demote",               \
                 "compute them in f32, from the low input where it is low"),   \
      clEnumValN(::mlir::amp::F64Computations::Keep, "keep",                   \
                 "leave them in f64"))

#endif // AMP_DIALECT_AMP_TRANSFORMS_OPTIONS_H
