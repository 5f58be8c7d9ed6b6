//===- Float8Gemms.h - which FP8 GEMMs cuBLASLt takes -----------*- C++ -*-===//
//
// Part of amp-mlir. cuBLASLt's rules for an FP8 GEMM (the runtime's
// ampGpuScaledGemm, docs/runtime-api.md), in one place for the two passes
// that apply them: amp-widen-float8-contractions (on tensors, before the
// GPU pipeline: a GEMM cuBLASLt refuses reads its operands widened to bf16)
// and amp-linalg-to-library-calls (on buffers: the call itself).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TRANSFORMS_FLOAT8GEMMS_H
#define AMP_TRANSFORMS_FLOAT8GEMMS_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir {
namespace amp {

/// Why cuBLASLt's FP8 GEMM does not take a GEMM of FP8 element types `a`
/// and `b` with these transposes (A stored k x m when `transA`; B stored
/// n x k when `transB`) and sizes `k` and `n` (ShapedType::kDynamic:
/// checked at the call); empty when it does. Its rules: not E5M2 x E5M2,
/// the TN layout (transA = false, transB = true), k and n multiples of 16.
llvm::StringRef getCublasLtFloat8Refusal(Type a, Type b, bool transA,
                                         bool transB, int64_t k, int64_t n);

} // namespace amp
} // namespace mlir

#endif // AMP_TRANSFORMS_FLOAT8GEMMS_H
