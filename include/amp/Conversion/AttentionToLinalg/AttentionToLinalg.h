//===- AttentionToLinalg.h - amp.attention as linalg ------------*- C++ -*-===//
//
// Part of amp-mlir. The amp-attention-to-linalg pass and its patterns.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_ATTENTIONTOLINALG_ATTENTIONTOLINALG_H
#define AMP_CONVERSION_ATTENTIONTOLINALG_ATTENTIONTOLINALG_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;

namespace amp {

#define GEN_PASS_DECL_AMPATTENTIONTOLINALGPASS
#include "amp/Conversion/Passes.h.inc"

void populateAmpAttentionToLinalgPatterns(RewritePatternSet &patterns);

} // namespace amp
} // namespace mlir

#endif // AMP_CONVERSION_ATTENTIONTOLINALG_ATTENTIONTOLINALG_H
