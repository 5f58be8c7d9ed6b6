//===- Float8ToNVVM.h - saturated FP8 conversions to PTX cvt ----*- C++ -*-===//
//
// Part of amp-mlir. amp-float8-to-nvvm: the saturated f32 -> FP8 roundings
// of GPU kernels as PTX's cvt.rn.satfinite (sm_89 and later).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_FLOAT8TONVVM_FLOAT8TONVVM_H
#define AMP_CONVERSION_FLOAT8TONVVM_FLOAT8TONVVM_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;

namespace amp {

#define GEN_PASS_DECL_AMPFLOAT8TONVVMPASS
#include "amp/Conversion/Passes.h.inc"

/// The pattern of amp-float8-to-nvvm: an `arith.truncf` to f8E4M3FN or
/// f8E5M2 of an f32 value clamped to that type's finite range becomes
/// `nvvm.convert.f32x2.to.f8x2` (cvt.rn.satfinite) and a bitcast.
void populateAmpFloat8ToNVVMPatterns(RewritePatternSet &patterns);

} // namespace amp
} // namespace mlir

#endif // AMP_CONVERSION_FLOAT8TONVVM_FLOAT8TONVVM_H
