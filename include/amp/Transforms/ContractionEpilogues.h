//===- ContractionEpilogues.h - contractions and their narrowing *- C++ -*-===//
//
// Part of amp-mlir. After --amp-o2 a matmul or convolution keeps its f32
// accumulator explicit and a linalg.generic narrows it (arith.truncf to f16
// or bf16), possibly fused with elementwise ops (bias, activation): the
// contraction's epilogue. These helpers recognise the pair; the CPU pipeline
// fuses it into one tiled loop nest (amp-fuse-contraction-epilogues), the GPU
// pipeline into one library call with a 16-bit output
// (amp-linalg-to-library-calls).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TRANSFORMS_CONTRACTIONEPILOGUES_H
#define AMP_TRANSFORMS_CONTRACTIONEPILOGUES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace amp {

/// The type that `operand`, an input of `consumer`, is narrowed to when the
/// generic only narrows it: all loops parallel, an identity indexing map,
/// and a block argument whose every use is an `arith.truncf` to one f16 or
/// bf16 type from a wider float. Null otherwise. Works on tensors and
/// buffers.
FloatType getNarrowedType(linalg::GenericOp consumer, OpOperand &operand);

/// True for the ops whose f32 accumulator an epilogue may narrow: linalg
/// contractions (matmul, batch_matmul, their transposed forms) and
/// convolutions.
bool isContractionWithEpilogue(Operation *op);

/// True if a loop of `op` has static size 0: its body never runs, and its
/// results are its inits.
bool hasEmptyLoop(linalg::LinalgOp op);

/// A clone of the tensor `fill` right before `before`, with a clone of the
/// tensor.empty it fills (if that is what it fills): a buffer of its own
/// once bufferized. Returns the clone's result.
Value cloneFillBefore(RewriterBase &rewriter, linalg::FillOp fill,
                      Operation *before);

/// Gives `contraction` (see isContractionWithEpilogue) or a reduction (see
/// isSingleInitReduction), on tensors, an accumulator of its own right
/// before it, when its init is a linalg.fill:
/// a fill that other ops use too (one zero fill for several contractions,
/// as --cse leaves it) is cloned, with the tensor.empty it fills, and a fill
/// of its own in the contraction's block is moved next to it. Both lowerings
/// then find the fill they match (as IREE clones such producers into each
/// dispatch region). Returns whether the IR changed.
bool privatizeAccumulatorFill(RewriterBase &rewriter,
                              linalg::LinalgOp contraction);

/// True for a linalg.generic or linalg.reduce on tensors with reduction
/// loops and one init (a sum, a max, a mean's sum), not a contraction.
bool isSingleInitReduction(Operation *op);

/// True for a reduction whose f32 accumulator an epilogue may narrow on the
/// CPU: an isSingleInitReduction of an f32 init. Its narrowing consumer is
/// tiled like a contraction's, so that only a tile of the accumulator
/// exists and the loop nest writes the low type.
bool isReductionWithEpilogue(Operation *op);

/// True when `consumer` reads `operand` (one of its inputs) elementwise,
/// through an identity map in all-parallel loops, and writes a low type
/// (f16/bf16) or reads the result of a contraction of low-type operands: an
/// epilogue that computes on the f32 accumulator and rounds once (or not at
/// all), as after amp-round-once.
bool isLowEpilogueRead(linalg::GenericOp consumer, OpOperand &operand);

/// The contraction on tensors whose result `consumer` narrows (or, with
/// `allowWideReads`, reads in an epilogue that writes the low type, see
/// isLowEpilogueRead), if that result has no other user and the accumulator
/// is a linalg.fill (so that only a tile of it needs to exist); null
/// otherwise.
linalg::LinalgOp getNarrowedContraction(linalg::GenericOp consumer,
                                        bool allowWideReads = false);

/// Tiles `consumer` (a generic that narrows a contraction's result, see
/// getNarrowedContraction) in scf.for loops of `tileSize` along its two
/// innermost dimensions and 1 along the others, and fuses the contraction
/// and the fill of its accumulator into the loop body, so that the f32
/// accumulator exists one tile at a time. The consumer's results are
/// replaced and the consumer, contraction and fill erased. Fails, changing
/// nothing, when `consumer` does not match or the contraction or consumer
/// has an empty loop (upstream's tile-and-fuse cannot tile a loop of size
/// 0); a fill shared with other ops (see privatizeAccumulatorFill) is
/// cloned for the contraction first.
FailureOr<scf::SCFTileAndFuseResult>
fuseContractionEpilogue(RewriterBase &rewriter, linalg::GenericOp consumer,
                        int64_t tileSize);

} // namespace amp
} // namespace mlir

#endif // AMP_TRANSFORMS_CONTRACTIONEPILOGUES_H
