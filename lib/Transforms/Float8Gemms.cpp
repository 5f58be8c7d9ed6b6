//===- Float8Gemms.cpp - which FP8 GEMMs cuBLASLt takes -------------------===//
//
// Part of amp-mlir. See amp/Transforms/Float8Gemms.h.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Float8Gemms.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

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
