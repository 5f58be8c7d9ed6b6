//===- PreciseGpuMath.cpp - amp-precise-gpu-math --------------------------===//
//
// Part of amp-mlir. convert-gpu-to-nvvm lowers math.sqrt to libdevice's
// __nv_sqrtf, which picks sqrt.approx.f32 unless __nvvm_reflect
// ("__CUDA_PREC_SQRT") is 1; NVVMReflect in LLVM 22 only sets __CUDA_ARCH
// and __CUDA_FTZ (module flag "nvvm-reflect-ftz") by itself, every other
// name reads 0 unless the global cl::opt -nvvm-reflect-add is given, and the
// #nvvm.target flags do not change it. Rather than set a process-wide LLVM
// option from a pass pipeline, math.sqrt and math.rsqrt in GPU modules
// become the correctly rounded intrinsic directly (sqrt.rn.f32 in PTX), as
// the CPU path (llvm.sqrt, and 1/sqrt for rsqrt) computes them:
//
//   math.sqrt %x : f32   ->  llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"(%x)
//   math.rsqrt %x : f32  ->  1.0 / that (arith.divf: div.rn.f32)
//   f16/bf16             ->  the same on arith.extf, then arith.truncf
//                            (f32 has more than 2*11+2 bits: sqrt rounded
//                            to f32 then to 16 bits is correctly rounded)
//   vector<Nx...>        ->  the same per element (vector.extract/insert:
//                            a vectorised elementwise kernel's)
//
// An op with the `afn` fastmath flag keeps the libdevice (approximate)
// lowering: that flag asks for it. f64 is left alone: libdevice's __nv_sqrt
// is always sqrt.rn.f64. arith.divf needs nothing: LLVM's NVPTX backend
// emits div.rn.f32 for an fdiv without arcp/afn.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPPRECISEGPUMATHPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {

bool allowsApproximation(Operation *op) {
  auto fmf = dyn_cast<arith::ArithFastMathInterface>(op);
  return fmf && arith::bitEnumContainsAny(fmf.getFastMathFlagsAttr().getValue(),
                                          arith::FastMathFlags::afn);
}

/// The precise f32 square root (or its reciprocal) of `op`'s operand, in
/// the operand's type; null for types this pass leaves alone.
Value buildPreciseSqrt(OpBuilder &b, Location loc, Value x, bool reciprocal) {
  Type type = x.getType();
  // A vector (a vectorised elementwise kernel's): element by element.
  if (auto vector = dyn_cast<VectorType>(type)) {
    Type element = vector.getElementType();
    if (vector.getRank() != 1 || vector.isScalable() ||
        (!element.isF32() && !element.isF16() && !element.isBF16()))
      return {};
    Value result = arith::ConstantOp::create(
        b, loc, vector, DenseElementsAttr::get(vector, b.getZeroAttr(element)));
    for (int64_t i = 0, e = vector.getNumElements(); i < e; ++i) {
      Value lane = vector::ExtractOp::create(b, loc, x, i);
      Value root = buildPreciseSqrt(b, loc, lane, reciprocal);
      result = vector::InsertOp::create(b, loc, root, result, i);
    }
    return result;
  }
  Type f32 = b.getF32Type();
  if (!type.isF32() && !type.isF16() && !type.isBF16())
    return {};
  Value wide = type.isF32() ? x : arith::ExtFOp::create(b, loc, f32, x);
  Value root =
      LLVM::CallIntrinsicOp::create(b, loc, f32,
                                    b.getStringAttr("llvm.nvvm.sqrt.rn.f"),
                                    ValueRange{wide})
          .getResult(0);
  if (reciprocal) {
    Value one = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f));
    root = arith::DivFOp::create(b, loc, one, root);
  }
  return type.isF32() ? root : arith::TruncFOp::create(b, loc, type, root);
}

struct AmpPreciseGpuMathPass
    : public amp::impl::AmpPreciseGpuMathPassBase<AmpPreciseGpuMathPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<math::SqrtOp, math::RsqrtOp>(op) && !allowsApproximation(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      Value result = buildPreciseSqrt(b, op->getLoc(), op->getOperand(0),
                                      isa<math::RsqrtOp>(op));
      if (!result)
        continue;
      op->getResult(0).replaceAllUsesWith(result);
      op->erase();
    }
  }
};

} // namespace
