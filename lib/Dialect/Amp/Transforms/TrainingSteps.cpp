//===- TrainingSteps.cpp - the parts of a training step -------------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "TrainingSteps.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::amp;

/// In a training step (a function with amp.check_finite_and_unscale), the
/// ops that compute neither the loss nor the gradients: everything that is
/// not an ancestor of amp.scale_loss's loss or of the gradients that
/// amp.check_finite_and_unscale reads. That is the optimizer update (it
/// reads the unscaled fp32 gradients and the fp32 master weights) and its
/// bookkeeping (bias corrections, learning rates, step counters).
llvm::DenseSet<Operation *>
mlir::amp::findOptimizerOps(ArrayRef<CheckFiniteAndUnscaleOp> unscales) {
  llvm::DenseSet<Operation *> result;
  llvm::SetVector<Operation *> steps;
  for (CheckFiniteAndUnscaleOp op : unscales)
    if (auto func = op->getParentOfType<FunctionOpInterface>())
      steps.insert(func);
  for (Operation *step : steps) {
    llvm::DenseSet<Operation *> slice;
    SmallVector<Value> worklist;
    step->walk([&](Operation *op) {
      if (auto unscale = dyn_cast<CheckFiniteAndUnscaleOp>(op))
        llvm::append_range(worklist, unscale.getGradients());
      else if (auto scale = dyn_cast<ScaleLossOp>(op))
        worklist.push_back(scale.getLoss());
    });
    auto addOp = [&](Operation *op) {
      if (op == step || !slice.insert(op).second)
        return;
      // The op and everything nested in it (linalg bodies, guard regions),
      // with the values they use.
      op->walk([&](Operation *inner) {
        slice.insert(inner);
        llvm::append_range(worklist, inner->getOperands());
      });
    };
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      Operation *owner = value.getDefiningOp();
      if (!owner)
        owner = cast<BlockArgument>(value).getOwner()->getParentOp();
      // Values from enclosing ops (a loop's block arguments): the enclosing
      // op computes them.
      for (Operation *op = owner; op && op != step; op = op->getParentOp())
        addOp(op);
    }
    step->walk([&](Operation *op) {
      if (op != step && !slice.contains(op))
        result.insert(op);
    });
  }
  return result;
}
