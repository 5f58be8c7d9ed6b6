//===- WidenFloat8Contractions.cpp - amp-widen-float8-contractions --------===//
//
// Part of amp-mlir. Where the GPU has no FP8 library kernel (convolutions
// in cuDNN's legacy API; GEMMs before sm_89), an FP8 contraction reads its
// operands widened exactly to bf16, and the bf16 library call computes the
// FP8 contraction's products: no generated FP8 kernel, and the same result.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Float8Gemms.h"
#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPWIDENFLOAT8CONTRACTIONSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {
/// Whether cuBLASLt's FP8 GEMM takes the matmul or batch matmul `op` with
/// FP8 operands (getCublasLtFloat8Refusal): as amp-float8-contractions lays
/// them out, A m x k and B stored n x k.
bool isCublasLtGemm(linalg::LinalgOp op) {
  MLIRContext *context = op.getContext();
  bool batch = isa<linalg::BatchMatmulOp>(op.getOperation());
  unsigned o = batch ? 1 : 0;
  auto dims = [&](std::initializer_list<unsigned> positions) {
    SmallVector<AffineExpr> results;
    if (batch)
      results.push_back(getAffineDimExpr(0, context));
    for (unsigned p : positions)
      results.push_back(getAffineDimExpr(p + o, context));
    return AffineMap::get(3 + o, 0, results, context);
  };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  bool tn = maps[0] == dims({0, 2}) && maps[1] == dims({1, 2}) &&
            maps[2] == dims({0, 1});
  auto aType = cast<ShapedType>(op.getDpsInputs()[0].getType());
  auto bType = cast<ShapedType>(op.getDpsInputs()[1].getType());
  return tn && getCublasLtFloat8Refusal(
                   aType.getElementType(), bType.getElementType(),
                   /*transA=*/false, /*transB=*/true, aType.getShape()[o + 1],
                   bType.getShape()[o])
                   .empty();
}

struct AmpWidenFloat8ContractionsPass
    : public amp::impl::AmpWidenFloat8ContractionsPassBase<
          AmpWidenFloat8ContractionsPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([&](linalg::LinalgOp op) {
      bool convolution = isa<linalg::Conv2DNchwFchwOp, linalg::Conv2DNhwcHwcfOp,
                             linalg::Conv2DNhwcFhwcOp>(op.getOperation());
      bool gemm =
          isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation());
      if (!(convolution || gemm) || !op.hasPureTensorSemantics())
        return;
      auto isFloat8 = [](OpOperand *operand) {
        return isa<Float8E4M3FNType, Float8E5M2Type>(
            getElementTypeOrSelf(operand->get().getType()));
      };
      SmallVector<OpOperand *> inputs = op.getDpsInputOperands();
      if (llvm::none_of(inputs, isFloat8))
        return;
      // Why no FP8 library kernel takes it.
      const char *why = nullptr;
      if (convolution)
        why = "cuDNN's legacy API has no FP8 convolution";
      else if (gemms)
        why = "FP8 GEMMs need cuBLASLt on sm_89 or later";
      else if (!isCublasLtGemm(op))
        why = "cuBLASLt's FP8 GEMM takes E4M3 x E4M3, E4M3 x E5M2 or E5M2 "
              "x E4M3 in the TN layout with k and n multiples of 16";
      if (!why)
        return;
      OpBuilder builder(op);
      Type bf16 = builder.getBF16Type();
      for (OpOperand *input : inputs) {
        if (!isFloat8(input))
          continue;
        auto type = cast<RankedTensorType>(input->get().getType());
        Value wide = arith::ExtFOp::create(builder, op.getLoc(),
                                           type.clone(bf16), input->get());
        // The body reads the block argument (and widens it to the
        // accumulator's f32): it takes the bf16 element as it took FP8.
        input->set(wide);
        op.getMatchingBlockArgument(input).setType(bf16);
      }
      op->emitRemark() << "amp: FP8 operands widened exactly to bf16 for the "
                       << (convolution ? "cuDNN" : "cuBLAS")
                       << " call: " << why;
    });
  }
};
} // namespace
