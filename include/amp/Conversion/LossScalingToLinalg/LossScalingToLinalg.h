//===- LossScalingToLinalg.h - amp loss scaling to linalg -------*- C++ -*-===//
//
// Part of amp-mlir. amp-loss-scaling-to-linalg: amp.scale_loss,
// amp.check_finite_and_unscale and amp.update_loss_scaling as linalg, arith and
// tensor code (the unscale as amp.unscale_gradients, which the pass makes
// loops once bufferized, unless a library call took it).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_LOSSSCALINGTOLINALG_LOSSSCALINGTOLINALG_H
#define AMP_CONVERSION_LOSSSCALINGTOLINALG_LOSSSCALINGTOLINALG_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;

namespace amp {

#define GEN_PASS_DECL_AMPLOSSSCALINGTOLINALGPASS
#include "amp/Conversion/Passes.h.inc"

/// Patterns lowering amp.scale_loss, amp.check_finite_and_unscale (to
/// amp.unscale_gradients) and amp.update_loss_scaling to
/// linalg/arith/tensor, and amp.unscale_gradients on buffers to linalg
/// (amp-loss-scaling-to-linalg).
void populateAmpLossScalingToLinalgPatterns(RewritePatternSet &patterns);

} // namespace amp
} // namespace mlir

#endif // AMP_CONVERSION_LOSSSCALINGTOLINALG_LOSSSCALINGTOLINALG_H
