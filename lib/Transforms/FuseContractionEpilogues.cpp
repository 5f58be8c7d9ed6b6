//===- FuseContractionEpilogues.cpp - amp-fuse-contraction-epilogues ------===//
//
// Part of amp-mlir. On the CPU, the narrowing of a contraction's f32
// accumulator (and what is fused with it) is tiled, and the contraction and
// its zero fill are fused into the tile loop: only a tile of f32 exists.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/ContractionEpilogues.h"
#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPFUSECONTRACTIONEPILOGUESPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {
struct AmpFuseContractionEpiloguesPass
    : public amp::impl::AmpFuseContractionEpiloguesPassBase<
          AmpFuseContractionEpiloguesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (tileSize <= 0) {
      getOperation()->emitError(
          "amp-fuse-contraction-epilogues: tile-size must be positive");
      return signalPassFailure();
    }
    // Collected first: tiling creates new (tile-sized) consumers that must
    // not be tiled again.
    SmallVector<linalg::GenericOp> consumers;
    getOperation()->walk([&](linalg::GenericOp consumer) {
      linalg::LinalgOp contraction =
          getNarrowedContraction(consumer, /*allowWideReads=*/true);
      if (!contraction ||
          (skipLibraryContractions &&
           isa<linalg::MatmulOp, linalg::BatchMatmulOp>(
               contraction.getOperation())) ||
          (skipLibraryConvolutions &&
           isa<linalg::Conv2DNchwFchwOp, linalg::Conv2DNhwcHwcfOp,
               linalg::Conv2DNhwcFhwcOp>(contraction.getOperation())))
        return;
      // Upstream's tile-and-fuse cannot tile a loop of size 0.
      if (hasEmptyLoop(contraction) ||
          hasEmptyLoop(cast<linalg::LinalgOp>(consumer.getOperation()))) {
        contraction->emitRemark(
            "amp: epilogue not fused: the contraction has a loop of size 0 "
            "(its result is its init; amp-prepare-contractions replaces it)");
        return;
      }
      consumers.push_back(consumer);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp consumer : consumers)
      if (failed(fuseContractionEpilogue(rewriter, consumer, tileSize)))
        consumer->emitRemark("amp: the contraction's f32 result is kept whole: "
                             "tiling its narrowing failed");
  }
};
} // namespace
