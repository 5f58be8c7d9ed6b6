//===- MemRefToGPU.cpp - the amp-memref-to-gpu pass -----------------------===//
//
// Part of amp-mlir. Puts every buffer of a bufferized function on the device:
// temporaries become gpu.alloc (freed before the function returns, unless
// returned), constants are copied from their host globals into device
// buffers, and copies become linalg.copy (a kernel, whatever the layouts).
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPMEMREFTOGPUPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

/// True if `value`, or a view of it, is returned.
static bool escapes(Value value) {
  SmallVector<Value> worklist = {value};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<func::ReturnOp>(user))
        return true;
      if (auto view = dyn_cast<ViewLikeOpInterface>(user))
        if (view.getViewSource() == v)
          worklist.append(user->result_begin(), user->result_end());
      if (isa<memref::CastOp, memref::ReinterpretCastOp>(user))
        worklist.append(user->result_begin(), user->result_end());
    }
  }
  return false;
}

namespace {
struct AmpMemRefToGPUPass
    : public amp::impl::AmpMemRefToGPUPassBase<AmpMemRefToGPUPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return markAllAnalysesPreserved();
    IRRewriter rewriter(&getContext());
    SmallVector<Value> owned;

    // Copies: a kernel whatever the layouts (gpu.memcpy needs contiguous
    // buffers).
    func.walk([&](memref::CopyOp op) {
      rewriter.setInsertionPoint(op);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(op, op.getSource(),
                                                  op.getTarget());
    });
    // Constants: one device copy per call.
    func.walk([&](memref::GetGlobalOp op) {
      auto type = op.getType();
      rewriter.setInsertionPointAfter(op);
      auto alloc = gpu::AllocOp::create(rewriter, op.getLoc(), type,
                                        /*asyncToken=*/Type(),
                                        /*asyncDependencies=*/ValueRange(),
                                        /*dynamicSizes=*/ValueRange(),
                                        /*symbolOperands=*/ValueRange());
      rewriter.replaceAllUsesWith(op.getResult(), alloc.getMemref());
      gpu::MemcpyOp::create(rewriter, op.getLoc(), TypeRange(), ValueRange(),
                            alloc.getMemref(), op.getResult());
      owned.push_back(alloc.getMemref());
    });
    // Temporaries.
    func.walk([&](memref::AllocOp op) {
      rewriter.setInsertionPoint(op);
      auto alloc = gpu::AllocOp::create(
          rewriter, op.getLoc(), op.getType(), /*asyncToken=*/Type(),
          ValueRange(), op.getDynamicSizes(), op.getSymbolOperands());
      rewriter.replaceOp(op, alloc.getMemref());
      if (alloc->getBlock() == &func.getBody().front())
        owned.push_back(alloc.getMemref());
      else
        alloc->emitRemark("amp: device buffer allocated in a nested region "
                          "is not freed");
    });
    func.walk([&](memref::DeallocOp op) {
      Value memref = op.getMemref(); // `op` is gone after eraseOp.
      rewriter.setInsertionPoint(op);
      gpu::DeallocOp::create(rewriter, op.getLoc(), TypeRange(), ValueRange(),
                             memref);
      rewriter.eraseOp(op);
      llvm::erase(owned, memref);
    });
    // Free what is not returned before every return.
    func.walk([&](func::ReturnOp ret) {
      rewriter.setInsertionPoint(ret);
      for (Value buffer : owned)
        if (!escapes(buffer))
          gpu::DeallocOp::create(rewriter, ret.getLoc(), TypeRange(),
                                 ValueRange(), buffer);
    });
  }
};
} // namespace
