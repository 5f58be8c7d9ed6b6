//===- PrecisionModels.h - AmpPrecisionOpInterface models -------*- C++ -*-===//
//
// Part of amp-mlir. External models of AmpPrecisionOpInterface for upstream
// dialects: how their ops behave under AMP (category, fp32 operands,
// accumulation) and how they are rewritten to another precision.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_EXTERNALMODELS_PRECISIONMODELS_H
#define AMP_DIALECT_AMP_EXTERNALMODELS_PRECISIONMODELS_H

namespace mlir {
class DialectRegistry;

namespace amp {

/// arith: elementwise float ops are gray.
void registerArithPrecisionModels(DialectRegistry &registry);
/// math: exp/log/pow/rsqrt/... are black, the rest gray.
void registerMathPrecisionModels(DialectRegistry &registry);
/// linalg: every structured op, classified from its iterators and body;
/// linalg.softmax is black.
void registerLinalgPrecisionModels(DialectRegistry &registry);
/// tensor: data movement is gray.
void registerTensorPrecisionModels(DialectRegistry &registry);
/// tosa: matmul/conv white (f32 accumulation), exp/log/pow/reciprocal/rsqrt
/// and sum/product reductions black, the rest gray.
void registerTosaPrecisionModels(DialectRegistry &registry);
/// All of the above.
void registerAllPrecisionModels(DialectRegistry &registry);

} // namespace amp
} // namespace mlir

#endif // AMP_DIALECT_AMP_EXTERNALMODELS_PRECISIONMODELS_H
