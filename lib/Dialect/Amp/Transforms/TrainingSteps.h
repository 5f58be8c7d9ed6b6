//===- TrainingSteps.h - the parts of a training step -----------*- C++ -*-===//
//
// Part of amp-mlir. Private to lib/Dialect/Amp/Transforms: which ops of a
// training step are its optimizer update, shared by the decision pass (they
// stay f32) and the report (they are not part of the low-precision ideal).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_DIALECT_AMP_TRANSFORMS_TRAININGSTEPS_H
#define AMP_LIB_DIALECT_AMP_TRANSFORMS_TRAININGSTEPS_H

#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "llvm/ADT/DenseSet.h"

namespace mlir {
namespace amp {

/// In the training steps (functions with amp.check_finite_and_unscale) that
/// `unscales` belong to, the ops that compute neither the loss nor the
/// gradients.
llvm::DenseSet<Operation *>
findOptimizerOps(ArrayRef<CheckFiniteAndUnscaleOp> unscales);

} // namespace amp
} // namespace mlir

#endif // AMP_LIB_DIALECT_AMP_TRANSFORMS_TRAININGSTEPS_H
