//===- ReductionKernels.h - reductions as one block per output --*- C++ -*-===//
//
// Part of amp-mlir. amp-map-loops-to-gpu's kernels for the reductions of a
// bufferized function: the loop nests that convert-linalg-to-parallel-loops
// writes for a reduction (scf.parallel outputs, scf.for reduced dimensions)
// become a gpu.launch with one block per output, the block's threads each
// folding a strided share and gpu.all_reduce combining them.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TRANSFORMS_REDUCTIONKERNELS_H
#define AMP_TRANSFORMS_REDUCTIONKERNELS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir {
namespace amp {

/// What amp-map-loops-to-gpu's options ask of the reductions' kernels.
struct ReductionKernelOptions {
  /// The elementwise loop that is the only reader of a reduction's result
  /// runs in the reduction's kernel (`fuse-reduction-epilogues`).
  bool fuseEpilogues = true;
  /// Reductions over the same rows that read each other's results at the
  /// row, and the elementwise loop over the rows and their elements after
  /// them, run in one kernel with a block per row (`fuse-rows`).
  bool fuseRows = true;
};

/// Maps each reduction nest of `func` (outside existing launches) to a
/// gpu.launch with one block per output.
void mapReductionsToBlocks(func::FuncOp func,
                           const ReductionKernelOptions &options);

} // namespace amp
} // namespace mlir

#endif // AMP_TRANSFORMS_REDUCTIONKERNELS_H
