//===- PrepareContractions.cpp - amp-prepare-contractions -----------------===//
//
// Part of amp-mlir. Both lowerings match a contraction together with the
// fill of its f32 accumulator. After --cse one zero fill often feeds several
// contractions: each gets its own here, right before it. A contraction with
// an empty loop computes nothing: it is replaced by its accumulator.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/ContractionEpilogues.h"
#include "amp/Transforms/Passes.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPPREPARECONTRACTIONSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {
struct AmpPrepareContractionsPass
    : public amp::impl::AmpPrepareContractionsPassBase<
          AmpPrepareContractionsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> contractions;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (isContractionWithEpilogue(op) && op.hasPureTensorSemantics())
        contractions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    bool changed = false;
    for (linalg::LinalgOp contraction : contractions) {
      if (hasEmptyLoop(contraction)) {
        // Nothing to accumulate: the result is the init (the fill).
        rewriter.replaceOp(contraction, contraction.getDpsInits());
        changed = true;
        continue;
      }
      // The last user of a shared fill finds it with one use left: it takes
      // the original, so nothing is left dead.
      changed |= privatizeAccumulatorFill(rewriter, contraction);
    }
    if (!changed)
      markAllAnalysesPreserved();
  }
};
} // namespace
