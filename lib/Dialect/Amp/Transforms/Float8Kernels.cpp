//===- Float8Kernels.cpp - which FP8 contractions a target computes -------===//
//
// Part of amp-mlir. See amp/Dialect/Amp/Transforms/Float8Kernels.h.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Float8Kernels.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::amp;

StringRef mlir::amp::getCublasLtFloat8Refusal(Type a, Type b, bool transA,
                                              bool transB, int64_t k,
                                              int64_t n) {
  if (isa<Float8E5M2Type>(a) && isa<Float8E5M2Type>(b))
    return "FP8 operands must be E4M3 x E4M3, E4M3 x E5M2 or E5M2 x E4M3";
  if (transA || !transB)
    return "an FP8 GEMM on the GPU needs cuBLASLt's TN layout: A m x k and "
           "B stored n x k (a transposed B operand)";
  auto multiple = [](int64_t size) {
    return ShapedType::isDynamic(size) || size % 16 == 0;
  };
  if (!multiple(k) || !multiple(n))
    return "an FP8 GEMM on the GPU needs k and n multiples of 16 (cuBLASLt)";
  return {};
}

bool mlir::amp::isTransposedBGemm(linalg::LinalgOp op) {
  bool batched = isa<linalg::BatchMatmulOp>(op.getOperation());
  if (!batched && !isa<linalg::MatmulOp>(op.getOperation()))
    return false;
  return op.getIndexingMapsArray() ==
         ArrayRef(ScaledMatmulOp::getIndexingMaps(op.getContext(), batched));
}

/// Why cuBLASLt's FP8 GEMM does not take the matmul or batch matmul `op`:
/// as amp-float8-contractions lays them out, A m x k and B stored n x k.
static StringRef getCublasLtRefusal(linalg::LinalgOp op) {
  unsigned o = isa<linalg::BatchMatmulOp>(op.getOperation()) ? 1 : 0;
  auto aType = cast<ShapedType>(op.getDpsInputs()[0].getType());
  auto bType = cast<ShapedType>(op.getDpsInputs()[1].getType());
  return getCublasLtFloat8Refusal(aType.getElementType(),
                                  bType.getElementType(), /*transA=*/false,
                                  /*transB=*/isTransposedBGemm(op),
                                  aType.getShape()[o + 1], bType.getShape()[o]);
}

std::string mlir::amp::getFloat8KernelRefusal(linalg::LinalgOp op,
                                              Float8Kernels kernels) {
  if (kernels == Float8Kernels::Auto || kernels == Float8Kernels::All)
    return {};
  if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()))
    return kNoFloat8ConvRefusal.str();
  if (kernels == Float8Kernels::None)
    return kNoFloat8GemmsRefusal.str();
  return getCublasLtRefusal(op).str();
}

static bool isFloat8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(getElementTypeOrSelf(type));
}

void mlir::amp::widenFloat8Operands(linalg::LinalgOp op, StringRef why) {
  OpBuilder builder(op);
  Type bf16 = builder.getBF16Type();
  bool convolution =
      !isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation());
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (!isFloat8(input->get().getType()))
      continue;
    auto type = cast<RankedTensorType>(input->get().getType());
    Value wide = arith::ExtFOp::create(builder, op.getLoc(), type.clone(bf16),
                                       input->get());
    // The body reads the block argument (and widens it to the
    // accumulator's f32): it takes the bf16 element as it took FP8.
    input->set(wide);
    op.getMatchingBlockArgument(input).setType(bf16);
  }
  op->emitRemark() << "amp: FP8 operands widened exactly to bf16 for the "
                   << (convolution ? "cuDNN" : "cuBLAS") << " call: " << why;
}
