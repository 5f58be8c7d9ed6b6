//===- OptimizerRules.h - the optimizer's update as loops -------*- C++ -*-===//
//
// Part of amp-mlir. amp.optimizer_update as linalg: one elementwise generic
// per parameter, in f32, PyTorch's rules. Shared by the passes that make
// loops of it: amp-loss-scaling-to-linalg (where no library call takes the
// op) and amp-channels-last (a parameter whose gradient is read through a
// transpose, which the generic's map absorbs).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_OPTIMIZERRULES_H
#define AMP_DIALECT_AMP_TRANSFORMS_OPTIMIZERRULES_H

#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace amp {

/// The update of parameter `index` of `op` as one generic at the builder's
/// insertion point: it reads the gradient (widened to f32), the step count
/// and the skip flag, and updates the parameter and its state (its
/// destinations, in that order); on an overflow every value is selected
/// back. On tensors its results are the new parameter and state, on
/// buffers it has none.
linalg::GenericOp buildOptimizerUpdateGeneric(OpBuilder &builder,
                                              OptimizerUpdateOp op,
                                              unsigned index);

} // namespace amp
} // namespace mlir

#endif // AMP_DIALECT_AMP_TRANSFORMS_OPTIMIZERRULES_H
