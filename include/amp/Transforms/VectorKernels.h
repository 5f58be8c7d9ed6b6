//===- VectorKernels.h - vectorised elementwise kernels ---------*- C++ -*-===//
//
// Part of amp-mlir. amp-map-loops-to-gpu's kernels for elementwise loops
// over whole buffers: each buffer seen as 1-D, each access a 16-byte
// vector of the widest type, several groups per thread with their loads
// issued before their math, each block taking a contiguous share of the
// groups in a grid of at most a few blocks per SM, and a scalar tail where the
// element count is no multiple of the vector length.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TRANSFORMS_VECTORKERNELS_H
#define AMP_TRANSFORMS_VECTORKERNELS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <cstdint>

namespace mlir {
namespace amp {

/// What amp-map-loops-to-gpu's options ask of the vectorised kernels.
struct VectorKernelOptions {
  /// Bytes per access of the widest type (`vector-bytes`; 0: none).
  unsigned vectorBytes = 16;
  /// Threads per block (`block-size`).
  unsigned blockSize = 256;
  /// Groups a thread takes per step of its block's share, their loads
  /// issued first (`vectors-per-thread`).
  unsigned vectorsPerThread = 4;
  /// The most blocks of a grid (0: as many as cover the loop, one group
  /// per thread).
  int64_t maxBlocks = 0;
};

/// Rewrites `loop`, an outermost scf.parallel, as a blocks' loop and a
/// threads' loop ready for gpu-map-parallel-loops, if it is an elementwise
/// loop over whole buffers that vectorises (static bounds from 0 but
/// perhaps a dynamic batch, unit steps, loads and stores of identity-layout
/// buffers of its shape or broadcast along its dimensions, arith and math
/// ops on scalars). Returns whether it did; `loop` is unchanged if not.
bool mapVectorisableLoop(RewriterBase &rewriter, scf::ParallelOp loop,
                         const VectorKernelOptions &options);

} // namespace amp
} // namespace mlir

#endif // AMP_TRANSFORMS_VECTORKERNELS_H
