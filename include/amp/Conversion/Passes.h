//===- Passes.h - amp lowering passes ---------------------------*- C++ -*-===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_PASSES_H
#define AMP_CONVERSION_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;

namespace amp {

#define GEN_PASS_DECL
#include "amp/Conversion/Passes.h.inc"

/// Patterns that decompose ops with linalg::AggregatedOpInterface.
void populateAmpDecomposeAggregatesPatterns(RewritePatternSet &patterns);

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

#define GEN_PASS_REGISTRATION
#include "amp/Conversion/Passes.h.inc"

} // namespace amp
} // namespace mlir

#endif // AMP_CONVERSION_PASSES_H
