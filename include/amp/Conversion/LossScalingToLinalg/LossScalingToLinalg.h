//===- LossScalingToLinalg.h - amp loss scaling to linalg -------*- C++ -*-===//
//
// Part of amp-mlir. amp-lower-loss-scaling: amp.scale_loss,
// amp.check_finite_and_unscale and amp.update_loss_scaling as linalg, arith and
// tensor code.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_LOSSSCALINGTOLINALG_LOSSSCALINGTOLINALG_H
#define AMP_CONVERSION_LOSSSCALINGTOLINALG_LOSSSCALINGTOLINALG_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;

namespace amp {

#define GEN_PASS_DECL_AMPLOWERLOSSSCALINGPASS
#include "amp/Conversion/Passes.h.inc"

/// The `library_call` of the linalg.generic that amp-lower-loss-scaling
/// emits per gradient of amp.check_finite_and_unscale (ins: the gradient
/// [, the 0-d inverse scale]; outs: the unscaled gradient, the 0-d i1 flag).
/// amp-linalg-to-library-calls turns those of one op into one
/// ampGpuCheckFiniteAndUnscaleBuffers call.
inline constexpr llvm::StringLiteral kCheckFiniteAndUnscaleLibraryCall =
    "amp_check_finite_and_unscale";

/// Patterns lowering amp.scale_loss, amp.check_finite_and_unscale and
/// amp.update_loss_scaling to linalg/arith/tensor (amp-lower-loss-scaling).
void populateAmpLowerLossScalingPatterns(RewritePatternSet &patterns);

} // namespace amp
} // namespace mlir

#endif // AMP_CONVERSION_LOSSSCALINGTOLINALG_LOSSSCALINGTOLINALG_H
