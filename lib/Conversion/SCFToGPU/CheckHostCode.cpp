//===- CheckHostCode.cpp - the amp-check-host-code pass -------------------===//
//
// Part of amp-mlir. After loops are mapped to GPU kernels, no host code may
// touch a buffer: every buffer lives on the device, and a host access faults
// at run time. Such code is an error here, at compile time, naming the op.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPCHECKHOSTCODEPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {
struct AmpCheckHostCodePass
    : public amp::impl::AmpCheckHostCodePassBase<AmpCheckHostCodePass> {
  void runOnOperation() override {
    bool failed = false;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::LaunchOp, gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (isa<scf::ParallelOp>(op)) {
        op->emitError("amp: --lower-to-gpu could not map this loop to a GPU "
                      "kernel (its bounds are not computable on the host)");
        failed = true;
        return WalkResult::skip();
      }
      if (isa<linalg::LinalgOp>(op)) {
        op->emitError() << "amp: --lower-to-gpu has no kernel for '"
                        << op->getName() << "'";
        failed = true;
        return WalkResult::skip();
      }
      if (isa<memref::LoadOp, memref::StoreOp>(op)) {
        auto memref = op->getOperand(isa<memref::LoadOp>(op) ? 0 : 1);
        if (memref.getDefiningOp<memref::AllocaOp>())
          return WalkResult::advance();
        op->emitError("amp: --lower-to-gpu left this access to a device "
                      "buffer on the host, where it would fault");
        failed = true;
      }
      return WalkResult::advance();
    });
    if (failed)
      signalPassFailure();
    else
      markAllAnalysesPreserved();
  }
};
} // namespace
