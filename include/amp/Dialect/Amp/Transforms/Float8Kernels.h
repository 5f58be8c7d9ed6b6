//===- Float8Kernels.h - which FP8 contractions a target computes -*- C++
//-*-===//
//
// Part of amp-mlir. The targets' rules for FP8 contractions, in one place
// for the passes that apply them: amp-float8-contractions, which makes a
// contraction FP8 and, where the target has no FP8 kernel for it
// (fp8-kernels), has it read its operands widened exactly to bf16; and
// amp-linalg-to-library-calls, whose GPU backend makes the cuBLASLt call
// (the runtime's ampGpuScaledGemm, docs/runtime-api.md).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_FLOAT8KERNELS_H
#define AMP_DIALECT_AMP_TRANSFORMS_FLOAT8KERNELS_H

#include "amp/Dialect/Amp/Transforms/Options.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mlir {
namespace amp {

/// Whether a GPU of compute capability `computeCapability` has cuBLASLt's
/// FP8 GEMMs: sm_89 and later.
inline bool hasCublasLtFloat8Gemms(int computeCapability) {
  return computeCapability >= 89;
}

/// Why a GPU library computes no FP8 GEMM on an older chip, and no FP8
/// convolution at all.
inline constexpr llvm::StringLiteral kNoFloat8GemmsRefusal =
    "FP8 GEMMs need cuBLASLt on sm_89 or later";
inline constexpr llvm::StringLiteral kNoFloat8ConvRefusal =
    "cuDNN's legacy API has no FP8 convolution";

/// Why cuBLASLt's FP8 GEMM does not take a GEMM of FP8 element types `a`
/// and `b` with these transposes (A stored k x m when `transA`; B stored
/// n x k when `transB`) and sizes `k` and `n` (ShapedType::kDynamic:
/// checked at the call); empty when it does. Its rules: not E5M2 x E5M2,
/// the TN layout (transA = false, transB = true), k and n multiples of 16.
llvm::StringRef getCublasLtFloat8Refusal(Type a, Type b, bool transA,
                                         bool transB, int64_t k, int64_t n);

/// Whether `op` is a matmul or batch matmul of A m x k and B stored n x k
/// (C(m, n) += A(m, k) * B(n, k), after the batch): the layout of
/// amp.scaled_matmul and of cuBLASLt's FP8 GEMM.
bool isTransposedBGemm(linalg::LinalgOp op);

/// Why a target whose FP8 kernels are `kernels` does not compute the
/// contraction `op` (a 2-D convolution, a matmul or batch matmul on
/// tensors, with FP8 operands laid out as amp-float8-contractions lays
/// them out) from its FP8 operands; empty when it does.
std::string getFloat8KernelRefusal(linalg::LinalgOp op, Float8Kernels kernels);

/// Has `op` read its FP8 operands widened exactly to bf16 (arith.extf:
/// every E4M3 and E5M2 value is a bf16 value), so that a bf16 library call
/// computes the products the FP8 contraction would, with a remark giving
/// `why`.
void widenFloat8Operands(linalg::LinalgOp op, llvm::StringRef why);

} // namespace amp
} // namespace mlir

#endif // AMP_DIALECT_AMP_TRANSFORMS_FLOAT8KERNELS_H
