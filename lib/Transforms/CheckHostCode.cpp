//===- CheckHostCode.cpp - the amp-check-host-code pass -------------------===//
//
// Part of amp-mlir. After loops are mapped to GPU kernels, no host code may
// touch a buffer: every buffer lives on the device, and a host access faults
// at run time. Such code is an error here, at compile time, naming the op.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPCHECKHOSTCODEPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

/// CUDA's limits (compute capability 3.0 and later) on a launch whose sizes
/// are constants: block at most (1024, 1024, 64) and 1024 threads, grid y
/// and z at most 65535, x at most 2^31 - 1.
static LogicalResult checkLaunchLimits(gpu::LaunchOp launch) {
  static constexpr int64_t kBlock[3] = {1024, 1024, 64};
  static constexpr int64_t kGrid[3] = {2147483647, 65535, 65535};
  static constexpr const char *kAxis[3] = {"x", "y", "z"};
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  Value blockValues[3] = {block.x, block.y, block.z};
  Value gridValues[3] = {grid.x, grid.y, grid.z};
  int64_t threads = 1;
  bool allStatic = true;
  for (int d = 0; d < 3; ++d) {
    std::optional<int64_t> size = getConstantIntValue(blockValues[d]);
    if (size && *size > kBlock[d])
      return launch.emitError("amp: a launch with blockDim.")
             << kAxis[d] << " = " << *size << ", over CUDA's limit of "
             << kBlock[d];
    if (size)
      threads *= *size;
    else
      allStatic = false;
    std::optional<int64_t> blocks = getConstantIntValue(gridValues[d]);
    if (blocks && *blocks > kGrid[d])
      return launch.emitError("amp: a launch with gridDim.")
             << kAxis[d] << " = " << *blocks << ", over CUDA's limit of "
             << kGrid[d];
  }
  if (allStatic && threads > 1024)
    return launch.emitError("amp: a launch with ")
           << threads << " threads per block, over CUDA's limit of 1024";
  return success();
}

namespace {
struct AmpCheckHostCodePass
    : public amp::impl::AmpCheckHostCodePassBase<AmpCheckHostCodePass> {
  void runOnOperation() override {
    bool failed = false;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto launch = dyn_cast<gpu::LaunchOp>(op)) {
        if (mlir::failed(checkLaunchLimits(launch)))
          failed = true;
        return WalkResult::skip();
      }
      if (isa<gpu::GPUModuleOp>(op))
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
