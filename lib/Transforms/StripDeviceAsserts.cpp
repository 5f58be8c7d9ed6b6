//===- StripDeviceAsserts.cpp - the amp-strip-device-asserts pass ---------===//
//
// Part of amp-mlir. Erases cf.assert ops inside scf.parallel loops before
// they are mapped to GPU kernels (convert-parallel-loops-to-gpu does not map
// a loop that has one), and inside the gpu.launch ops that
// amp-map-loops-to-gpu made of reductions.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPSTRIPDEVICEASSERTSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;

namespace {
struct AmpStripDeviceAssertsPass
    : public amp::impl::AmpStripDeviceAssertsPassBase<
          AmpStripDeviceAssertsPass> {
  void runOnOperation() override {
    SmallVector<cf::AssertOp> asserts;
    getOperation()->walk([&](cf::AssertOp op) {
      if (op->getParentOfType<scf::ParallelOp>() ||
          op->getParentOfType<gpu::LaunchOp>())
        asserts.push_back(op);
    });
    for (cf::AssertOp op : asserts) {
      op.emitRemark() << "amp: the GPU kernel drops this check (\""
                      << op.getMsg()
                      << "\"): the device does not report it; the CPU "
                         "pipeline and the GPU simulator do";
      op.erase();
    }
  }
};
} // namespace
