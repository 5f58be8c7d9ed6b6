//===- ConvolutionGradientsToLinalg.h - conv gradients as loops -*- C++ -*-===//
//
// Part of amp-mlir. amp-convolution-gradients-to-linalg:
// amp.conv2d_backward_data and amp.conv2d_backward_filter as linalg
// generics (loops), where no library call takes them.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_CONVOLUTIONGRADIENTSTOLINALG_CONVOLUTIONGRADIENTSTOLINALG_H
#define AMP_CONVERSION_CONVOLUTIONGRADIENTSTOLINALG_CONVOLUTIONGRADIENTSTOLINALG_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;

namespace amp {

#define GEN_PASS_DECL_AMPCONVOLUTIONGRADIENTSTOLINALGPASS
#include "amp/Conversion/Passes.h.inc"

/// Patterns lowering amp.conv2d_backward_data and amp.conv2d_backward_filter
/// (on tensors or buffers) to one linalg.generic each
/// (amp-convolution-gradients-to-linalg).
void populateAmpConvolutionGradientsToLinalgPatterns(
    RewritePatternSet &patterns);

} // namespace amp
} // namespace mlir

#endif // AMP_CONVERSION_CONVOLUTIONGRADIENTSTOLINALG_CONVOLUTIONGRADIENTSTOLINALG_H
