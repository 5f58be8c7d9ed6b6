//===- Float8ScalingToLinalg.h - amp FP8 scaling to linalg ------*- C++ -*-===//
//
// Part of amp-mlir. amp-float8-scaling-to-linalg: amp.amax, amp.quantize,
// amp.dequantize and amp.scaled_matmul as linalg, arith and tensor code.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_FLOAT8SCALINGTOLINALG_FLOAT8SCALINGTOLINALG_H
#define AMP_CONVERSION_FLOAT8SCALINGTOLINALG_FLOAT8SCALINGTOLINALG_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;

namespace amp {

#define GEN_PASS_DECL_AMPFLOAT8SCALINGTOLINALGPASS
#include "amp/Conversion/Passes.h.inc"

/// Patterns lowering amp.amax, amp.quantize, amp.dequantize and
/// amp.scaled_matmul (on tensors or buffers) to linalg/arith/tensor/memref
/// (amp-float8-scaling-to-linalg).
void populateAmpFloat8ScalingToLinalgPatterns(RewritePatternSet &patterns);

} // namespace amp
} // namespace mlir

#endif // AMP_CONVERSION_FLOAT8SCALINGTOLINALG_FLOAT8SCALINGTOLINALG_H
