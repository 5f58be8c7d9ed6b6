//===- Passes.h - amp transformation passes ---------------------*- C++ -*-===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_PASSES_H
#define AMP_DIALECT_AMP_TRANSFORMS_PASSES_H

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
class RewriterBase;

namespace amp {
class Fp16GuardOp;

#define GEN_PASS_DECL
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"

/// Replaces `op` by the operations of its body and its results by the values
/// its `amp.yield` yields.
void inlineFp16Guard(RewriterBase &rewriter, Fp16GuardOp op);

/// Folds the `amp.cast` ops under `root` (identities, exact round trips) in
/// program order and erases the casts left unused.
void foldAmpCasts(RewriterBase &rewriter, Operation *root);

/// Patterns that inline every `amp.fp16_guard` into its parent block.
void populateAmpInlineGuardsPatterns(RewritePatternSet &patterns);

class CastOp;
/// Replaces `op` by arith.extf/arith.truncf, or by tosa.cast in TOSA graphs.
void materializeCast(RewriterBase &rewriter, CastOp op);

/// Cast elision, sharing, motion and fusion (see --amp-cast-elision).
/// `allowExcessPrecision` also folds lossy AMP round trips.
void populateAmpCastElisionPatterns(RewritePatternSet &patterns,
                                    bool allowExcessPrecision = false);

/// Gives every (value, type) one amp.cast, placed right after the value, and
/// moves casts of loop-invariant values out of loops. Returns the number of
/// casts removed.
unsigned shareAmpCasts(RewriterBase &rewriter, Operation *root);

/// Patterns that rewrite every `amp.cast` into upstream ops.
void populateAmpMaterializeCastsPatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"

} // namespace amp
} // namespace mlir

#endif // AMP_DIALECT_AMP_TRANSFORMS_PASSES_H
