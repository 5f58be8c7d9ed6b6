//===- MemRefToGPU.cpp - the amp-memref-to-gpu pass -----------------------===//
//
// Part of amp-mlir. Puts every buffer of a bufferized module on the device:
//  - memref.alloc becomes gpu.alloc, memref.dealloc gpu.dealloc;
//  - bufferization.dealloc (from ownership-based buffer deallocation, which
//    decides what is freed where: in loops, across calls) becomes host
//    scalar code plus gpu.dealloc, never a helper that loads and stores
//    memrefs (those would be device buffers here);
//  - bufferization.clone becomes gpu.alloc plus linalg.copy;
//  - memref.get_global (a constant) becomes the runtime's cached device copy
//    of the host global, ampGpuConstant: uploaded once per loaded module
//    (cached in a zeroed host word of the module, a `<global>__amp_device_copy`
//    slot), not per call, and never freed by compiled code;
//  - memref.copy becomes linalg.copy (a kernel, whatever the layouts).
// The collectives' buffers (amp.all_reduce_in_place) are device buffers then:
// amp-to-library-calls{device=true} calls the device twin.
//
// A conditional free must not be a gpu.dealloc in an scf.if: gpu-async-region
// would put a host synchronisation before and inside every such region. So
// the pointer to free is selected on the host (the buffer's, or NULL) and
// wrapped in a memref<i8> descriptor for one unconditional gpu.dealloc;
// mgpuMemFree(NULL) does nothing.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/MemRefToGPU/MemRefToGPU.h"
#include "amp/Conversion/RuntimeCalls.h"
#include "amp/Dialect/Amp/IR/AmpDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <algorithm>

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPMEMREFTOGPUPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {

/// The name suffix of the slot global that caches a constant global's
/// device copy (ampGpuConstant).
constexpr llvm::StringLiteral kSlotSuffix = "__amp_device_copy";

/// The aligned pointer of `buffer` as an index (== the allocated pointer for
/// gpu.alloc buffers, which the deallocation pipeline passes as bases).
Value pointerIndex(OpBuilder &b, Location loc, Value buffer) {
  return memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
}

/// A memref of `type` (static shape, identity layout) whose allocated and
/// aligned pointers are `ptr`: an LLVM descriptor cast to the memref type
/// (the cast pair folds away when the memref is lowered to LLVM).
Value memrefFromPointer(OpBuilder &b, Location loc, Value ptr,
                        MemRefType type) {
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  int64_t rank = type.getRank();
  SmallVector<Type> fields = {ptrType, ptrType, i64};
  if (rank > 0) {
    fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
    fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
  }
  auto descType = LLVM::LLVMStructType::getLiteral(ctx, fields);
  Value desc = LLVM::PoisonOp::create(b, loc, descType);
  auto i64c = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  desc = LLVM::InsertValueOp::create(b, loc, desc, ptr, ArrayRef<int64_t>{0});
  desc = LLVM::InsertValueOp::create(b, loc, desc, ptr, ArrayRef<int64_t>{1});
  desc =
      LLVM::InsertValueOp::create(b, loc, desc, i64c(0), ArrayRef<int64_t>{2});
  SmallVector<int64_t> strides;
  int64_t offset;
  (void)type.getStridesAndOffset(strides, offset);
  for (int64_t i = 0; i < rank; ++i) {
    desc = LLVM::InsertValueOp::create(b, loc, desc, i64c(type.getDimSize(i)),
                                       ArrayRef<int64_t>{3, i});
    desc = LLVM::InsertValueOp::create(b, loc, desc, i64c(strides[i]),
                                       ArrayRef<int64_t>{4, i});
  }
  return UnrealizedConversionCastOp::create(b, loc, type, desc).getResult(0);
}

bool isConstantTrue(Value value) {
  APInt v;
  return matchPattern(value, m_ConstantInt(&v)) && v.isOne();
}

/// bufferization.dealloc (memrefs m_i, conditions c_i, retained r_j) as host
/// scalar code: m_i is freed iff c_i, it aliases no retained value, and no
/// earlier m_k with c_k has the same base (each allocation freed once); the
/// updated ownership of r_j is OR_i (c_i and m_i aliases r_j).
void lowerDealloc(IRRewriter &rewriter, bufferization::DeallocOp op) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  ValueRange memrefs = op.getMemrefs(), conditions = op.getConditions(),
             retained = op.getRetained();
  // The common case: unconditional, nothing retained, one buffer per base.
  bool simple = retained.empty() && memrefs.size() == 1 &&
                isConstantTrue(conditions.front());
  if (simple) {
    gpu::DeallocOp::create(rewriter, loc, TypeRange(), ValueRange(),
                           memrefs.front());
    rewriter.eraseOp(op);
    return;
  }
  Type i1 = rewriter.getI1Type();
  Value falseValue = arith::ConstantIntOp::create(rewriter, loc, i1, 0);
  Value trueValue = arith::ConstantIntOp::create(rewriter, loc, i1, 1);
  SmallVector<Value> bases, retainedBases;
  for (Value m : memrefs)
    bases.push_back(pointerIndex(rewriter, loc, m));
  for (Value r : retained)
    retainedBases.push_back(pointerIndex(rewriter, loc, r));
  auto same = [&](Value a, Value b) {
    return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, a, b)
        .getResult();
  };
  SmallVector<Value> updated(retained.size(), falseValue);
  auto ptrType = LLVM::LLVMPointerType::get(rewriter.getContext());
  Value null = LLVM::ZeroOp::create(rewriter, loc, ptrType);
  auto byteType = MemRefType::get({}, rewriter.getI8Type());
  for (size_t i = 0; i < memrefs.size(); ++i) {
    Value free = conditions[i];
    for (size_t j = 0; j < retained.size(); ++j) {
      Value alias = same(bases[i], retainedBases[j]);
      updated[j] = arith::OrIOp::create(
          rewriter, loc, updated[j],
          arith::AndIOp::create(rewriter, loc, conditions[i], alias));
      Value notAlias = arith::XOrIOp::create(rewriter, loc, alias, trueValue);
      free = arith::AndIOp::create(rewriter, loc, free, notAlias);
    }
    for (size_t k = 0; k < i; ++k) {
      Value earlier = arith::AndIOp::create(rewriter, loc, conditions[k],
                                            same(bases[i], bases[k]));
      Value notEarlier =
          arith::XOrIOp::create(rewriter, loc, earlier, trueValue);
      free = arith::AndIOp::create(rewriter, loc, free, notEarlier);
    }
    if (matchPattern(free, m_Zero()))
      continue;
    if (isConstantTrue(free)) {
      gpu::DeallocOp::create(rewriter, loc, TypeRange(), ValueRange(),
                             memrefs[i]);
      continue;
    }
    Value address = arith::IndexCastOp::create(rewriter, loc,
                                               rewriter.getI64Type(), bases[i]);
    Value ptr = LLVM::IntToPtrOp::create(rewriter, loc, ptrType, address);
    Value chosen = LLVM::SelectOp::create(rewriter, loc, free, ptr, null);
    gpu::DeallocOp::create(rewriter, loc, TypeRange(), ValueRange(),
                           memrefFromPointer(rewriter, loc, chosen, byteType));
  }
  rewriter.replaceOp(op, updated);
}

struct AmpMemRefToGPUPass
    : public amp::impl::AmpMemRefToGPUPassBase<AmpMemRefToGPUPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // An unranked buffer has no size to allocate on the device (a function
    // returning its own tensor<*xf32> argument clones it): refused before
    // anything is rewritten, so the module is left as it was.
    WalkResult unranked = module.walk([&](bufferization::CloneOp op) {
      if (isa<MemRefType>(op.getType()))
        return WalkResult::advance();
      op.emitOpError("of an unranked buffer ")
          << op.getType()
          << " cannot be put on the GPU (amp-memref-to-gpu allocates "
             "device buffers of a known rank); give the function's "
             "arguments and results ranked tensor types";
      return WalkResult::interrupt();
    });
    if (unranked.wasInterrupted())
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    auto ptrType = LLVM::LLVMPointerType::get(&getContext());
    Type i64 = rewriter.getI64Type();

    // Copies: a kernel whatever the layouts (gpu.memcpy needs contiguous
    // buffers).
    module.walk([&](memref::CopyOp op) {
      rewriter.setInsertionPoint(op);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(op, op.getSource(),
                                                  op.getTarget());
    });
    // Constants: the runtime's device copy, uploaded once per loaded
    // module, cached in a slot of the module's own (a zeroed host word per
    // global: a module loaded later starts with zero slots, whatever the
    // addresses of its constants).
    SymbolTable symbols(module);
    llvm::DenseMap<Operation *, memref::GlobalOp> slots;
    auto getSlot = [&](memref::GetGlobalOp use) -> memref::GlobalOp {
      auto global = symbols.lookup<memref::GlobalOp>(use.getName());
      memref::GlobalOp &slot = slots[global];
      if (slot || !global)
        return slot;
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointAfter(global);
      auto type = MemRefType::get({}, i64);
      slot = memref::GlobalOp::create(
          rewriter, global.getLoc(), (global.getSymName() + kSlotSuffix).str(),
          rewriter.getStringAttr("private"), type,
          DenseElementsAttr::get(RankedTensorType::get({}, i64),
                                 rewriter.getI64IntegerAttr(0)),
          /*constant=*/false, rewriter.getI64IntegerAttr(8));
      symbols.insert(slot);
      return slot;
    };
    SmallVector<memref::GetGlobalOp> constants;
    module.walk([&](memref::GetGlobalOp op) {
      if (!op.getName().ends_with(kSlotSuffix))
        constants.push_back(op);
    });
    for (memref::GetGlobalOp op : constants) {
      auto type = op.getType();
      Type element = type.getElementType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
          !(isa<FloatType>(element) || isa<IntegerType>(element))) {
        op->emitError("amp: unsupported constant type ") << type;
        return signalPassFailure();
      }
      Location loc = op.getLoc();
      rewriter.setInsertionPointAfter(op);
      int64_t elementBytes =
          std::max<int64_t>(1, (element.getIntOrFloatBitWidth() + 7) / 8);
      Value hostIndex = pointerIndex(rewriter, loc, op);
      Value host = LLVM::IntToPtrOp::create(
          rewriter, loc, ptrType,
          arith::IndexCastOp::create(rewriter, loc, i64, hostIndex)
              .getResult());
      Value bytes = arith::ConstantIntOp::create(
          rewriter, loc, type.getNumElements() * elementBytes, 64);
      memref::GlobalOp slotGlobal = getSlot(op);
      if (!slotGlobal) {
        op->emitError("amp: no memref.global named ") << op.getName();
        return signalPassFailure();
      }
      Value slotBuffer = memref::GetGlobalOp::create(
          rewriter, loc, slotGlobal.getType(), slotGlobal.getSymName());
      Value slot = LLVM::IntToPtrOp::create(
          rewriter, loc, ptrType,
          arith::IndexCastOp::create(rewriter, loc, i64,
                                     pointerIndex(rewriter, loc, slotBuffer))
              .getResult());
      FailureOr<Operation *> call = createRuntimeCall(
          rewriter, op, RuntimeFunction::ampGpuConstant, {host, bytes, slot});
      if (failed(call))
        return signalPassFailure();
      Value device = (*call)->getResult(0);
      Value buffer = memrefFromPointer(rewriter, loc, device, type);
      rewriter.replaceAllUsesExcept(op.getResult(), buffer,
                                    hostIndex.getDefiningOp());
    }
    // Temporaries.
    module.walk([&](memref::AllocOp op) {
      rewriter.setInsertionPoint(op);
      auto alloc = gpu::AllocOp::create(
          rewriter, op.getLoc(), op.getType(), /*asyncToken=*/Type(),
          ValueRange(), op.getDynamicSizes(), op.getSymbolOperands());
      rewriter.replaceOp(op, alloc.getMemref());
    });
    // Clones (a returned buffer that the function does not own): a new
    // device buffer and a copy kernel.
    module.walk([&](bufferization::CloneOp op) {
      rewriter.setInsertionPoint(op);
      Location loc = op.getLoc();
      auto type = cast<MemRefType>(op.getType());
      auto allocType = MemRefType::get(type.getShape(), type.getElementType(),
                                       AffineMap(), type.getMemorySpace());
      SmallVector<Value> sizes;
      for (int64_t i = 0; i < type.getRank(); ++i)
        if (type.isDynamicDim(i))
          sizes.push_back(
              memref::DimOp::create(rewriter, loc, op.getInput(), i));
      Value alloc = gpu::AllocOp::create(rewriter, loc, allocType,
                                         /*asyncToken=*/Type(), ValueRange(),
                                         sizes, ValueRange())
                        .getMemref();
      linalg::CopyOp::create(rewriter, loc, op.getInput(), alloc);
      Value result = alloc;
      if (allocType != type)
        result = memref::CastOp::create(rewriter, loc, type, alloc);
      rewriter.replaceOp(op, result);
    });
    module.walk([&](memref::DeallocOp op) {
      rewriter.setInsertionPoint(op);
      gpu::DeallocOp::create(rewriter, op.getLoc(), TypeRange(), ValueRange(),
                             op.getMemref());
      rewriter.eraseOp(op);
    });
    module.walk(
        [&](bufferization::DeallocOp op) { lowerDealloc(rewriter, op); });
  }
};
} // namespace
