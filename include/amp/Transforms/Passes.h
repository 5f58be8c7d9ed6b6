//===- Passes.h - amp lowering transforms -----------------------*- C++ -*-===//
//
// Part of amp-mlir. The passes of the lowering pipelines that are not
// conversions (Passes.td); the conversions are in amp/Conversion/Passes.h.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TRANSFORMS_PASSES_H
#define AMP_TRANSFORMS_PASSES_H

#include "amp/Dialect/Amp/Transforms/Options.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;

namespace amp {

#define GEN_PASS_DECL
#include "amp/Transforms/Passes.h.inc"

/// amp-fuse-elementwise with `rounding` given typed, by a driver that parsed
/// it where it entered (the runner): the pass then reads no text and no
/// amp.rounding attribute. `libraryEpilogues` is its library-epilogues.
std::unique_ptr<Pass> createAmpFuseElementwisePass(RoundingMode rounding,
                                                   bool libraryEpilogues);

/// Patterns that decompose ops with linalg::AggregatedOpInterface.
void populateAmpDecomposeAggregatesPatterns(RewritePatternSet &patterns);

/// Patterns that rewrite arith.extf / arith.truncf from and to f8E4M3FN and
/// f8E5M2 as integer bit operations (amp-expand-float8).
void populateAmpExpandFloat8Patterns(RewritePatternSet &patterns);

/// math.erf and math.tanh on f32 as polynomial approximations
/// (amp-approximate-math).
void populateAmpApproximateMathPatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "amp/Transforms/Passes.h.inc"

} // namespace amp
} // namespace mlir

#endif // AMP_TRANSFORMS_PASSES_H
