//===- ElideHostWaits.cpp - amp-elide-host-waits --------------------------===//
//
// Part of amp-mlir. gpu-async-region makes the host wait for all GPU work
// before any call or op with side effects, and starts a new stream after it:
//
//   gpu.wait [%t]                      // mgpuStreamSynchronize
//   call @ampGpuGemm(...)              // enqueued on the runtime's stream
//   cf.assert %ok, "..."               // a host check of host values
//   %n = gpu.wait async                // a new stream
//
// libamp_runtime runs everything (kernels, copies, cuBLAS, cuDNN) on one
// in-order stream, so for calls of its stream-ordered entry points (marked
// `amp.stream_ordered`) the wait is not needed, and a check of host values
// needs nothing from the device: the chain goes on with %t and the host
// never blocks inside a function.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPELIDEHOSTWAITSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

/// A call of a runtime function that enqueues its work on the runtime's
/// stream.
static bool isStreamOrderedCall(Operation *op) {
  auto call = dyn_cast<func::CallOp>(op);
  if (!call)
    return false;
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  if (!callee)
    return false;
  // A function of this module is compiled the same way: its host code never
  // touches device memory, and its GPU work goes on the same one stream.
  return callee->hasAttr(AmpDialect::kStreamOrderedAttrName) ||
         !callee.isExternal();
}

/// A store to host stack memory (an llvm.alloca, through GEPs), such as the
/// tables of library calls: no GPU work reads or writes it.
static bool isHostStackStore(Operation *op) {
  auto store = dyn_cast<LLVM::StoreOp>(op);
  if (!store)
    return false;
  Value address = store.getAddr();
  while (auto gep = address.getDefiningOp<LLVM::GEPOp>())
    address = gep.getBase();
  return address.getDefiningOp<LLVM::AllocaOp>() != nullptr;
}

/// The host wait that gpu-async-region puts at the end of a loop body
/// (before scf.yield) is not needed when a later host wait in the function
/// body, after the loop, covers the same (one, in-order) stream: the next
/// iteration's work is queued behind it anyway, and host code never reads
/// device memory.
static bool isRedundantLoopBodyWait(gpu::WaitOp wait) {
  if (wait.getAsyncToken() ||
      !isa_and_nonnull<scf::YieldOp>(wait->getNextNode()))
    return false;
  Operation *loop = wait->getParentOp();
  if (!isa<scf::ForOp, scf::WhileOp>(loop) ||
      !isa<func::FuncOp>(loop->getParentOp()))
    return false;
  for (Operation *op = loop->getNextNode(); op; op = op->getNextNode())
    if (auto later = dyn_cast<gpu::WaitOp>(op))
      if (!later.getAsyncToken())
        return true;
  return false;
}

/// A host check: its condition is a host value (amp-check-host-code rejects
/// host code that reads device memory), so it needs no device result.
static bool isHostCheck(Operation *op) { return isa<cf::AssertOp>(op); }

namespace {
struct AmpElideHostWaitsPass
    : public amp::impl::AmpElideHostWaitsPassBase<AmpElideHostWaitsPass> {
  void runOnOperation() override {
    SmallVector<gpu::WaitOp> waits;
    getOperation().walk([&](gpu::WaitOp op) {
      if (!op.getAsyncToken() && op.getAsyncDependencies().size() == 1)
        waits.push_back(op);
    });
    unsigned elided = 0;
    for (gpu::WaitOp wait : waits) {
      // Up to the next gpu op: only pure host ops, stream-ordered calls and
      // host checks, at least one of the latter two (the wait's reason).
      bool sawHostWork = false;
      gpu::WaitOp next;
      for (Operation *op = wait->getNextNode(); op; op = op->getNextNode()) {
        if (auto other = dyn_cast<gpu::WaitOp>(op)) {
          next = other;
          break;
        }
        if (isStreamOrderedCall(op) || isHostCheck(op)) {
          sawHostWork = true;
          continue;
        }
        if (isHostStackStore(op))
          continue;
        if (!isPure(op))
          break;
      }
      if (!sawHostWork || !next || !next.getAsyncToken() ||
          !next.getAsyncDependencies().empty())
        continue;
      next.getAsyncToken().replaceAllUsesWith(
          wait.getAsyncDependencies().front());
      next.erase();
      wait.erase();
      ++elided;
    }
    SmallVector<gpu::WaitOp> loopWaits;
    getOperation().walk([&](gpu::WaitOp op) {
      if (isRedundantLoopBodyWait(op))
        loopWaits.push_back(op);
    });
    for (gpu::WaitOp wait : loopWaits) {
      wait.erase();
      ++elided;
    }
    if (elided == 0)
      markAllAnalysesPreserved();
  }
};
} // namespace
