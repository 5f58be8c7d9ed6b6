//===- WideningGemm.h - a packed f32 GEMM that widens 16-bit operands
//------===//
//
// Part of amp-mlir. The CPU pipeline's GEMM for f16/bf16 operands
// (CpuLibrary.cpp): a Goto/BLIS-style blocked GEMM whose packing widens
// f16/bf16 to f32 on the way, so that 16-bit operands are read once, in
// place, instead of being widened into f32 scratch that a CBLAS then packs
// again. Accumulation is in f32 with FMA.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_LIB_WIDENINGGEMM_H
#define AMP_RUNTIME_LIB_WIDENINGGEMM_H

#include <cstdint>

namespace amp {
namespace rt {
namespace cpu {

/// The micro-kernel wideningGemm uses on this CPU: "avx512" (AVX-512F with
/// F16C), "avx2" (AVX2, FMA and F16C), or nullptr where it cannot run (then
/// the caller widens and calls a CBLAS). AMP_CPU_GEMM=avx2 caps it at AVX2;
/// AMP_CPU_GEMM=blas (or off/0) turns it off.
const char *wideningGemmKernel();

/// C = op(A) op(B) + beta C, accumulated in f32: op(A) m x k and op(B)
/// k x n, row-major (A stored k x m if transA, B stored n x k if transB),
/// each of AMP_DTYPE_F32, F16 or BF16; C f32 m x n (ldc). Only where
/// wideningGemmKernel() is not null.
void wideningGemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
                  const void *a, int32_t aType, int64_t lda, const void *b,
                  int32_t bType, int64_t ldb, float beta, float *c,
                  int64_t ldc);

/// wideningGemm with the micro-kernel `name` ("avx512" or "avx2") whatever
/// the CPU would pick; false (nothing computed) where it cannot run. For
/// the tests: every kernel gives the same bits.
bool wideningGemmWithKernel(const char *name, bool transA, bool transB,
                            int64_t m, int64_t n, int64_t k, const void *a,
                            int32_t aType, int64_t lda, const void *b,
                            int32_t bType, int64_t ldb, float beta, float *c,
                            int64_t ldc);

} // namespace cpu
} // namespace rt
} // namespace amp

#endif // AMP_RUNTIME_LIB_WIDENINGGEMM_H
