/*===- AmpRuntime.h - amp-mlir runtime C API -------------------*- C -*-===*\
|*                                                                          *|
|* Part of amp-mlir. The C ABI of libamp_runtime.so: error reporting, GPU   *|
|* queries, exact f16/bf16 conversions, cuBLAS GEMM and cuDNN convolution   *|
|* entry points, and CPU reference implementations with the same            *|
|* signatures. The `mgpu*` ABI that LLVM 22 emits is declared in MgpuAbi.h. *|
|*                                                                          *|
|* Conventions shared by the GEMM/convolution entry points:                 *|
|*  - element types are AmpDType values passed as int32_t;                  *|
|*  - leading dimensions and batch strides count ELEMENTS, not bytes;       *|
|*  - `beta` scales the previous contents of the output; beta == 0 means    *|
|*    the output is not read (it may hold NaN/garbage), as in BLAS;         *|
|*  - GPU entry points are asynchronous on the runtime's one shared stream  *|
|*    (the stream mgpuStreamCreate returns) and take device pointers; they  *|
|*    report failures through the error handler (see ampSetErrorHandler).  *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_AMPRUNTIME_H
#define AMP_RUNTIME_AMPRUNTIME_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define AMP_RUNTIME_API __attribute__((visibility("default")))
#else
#define AMP_RUNTIME_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Element types understood by the runtime (values are ABI). */
typedef enum AmpDType {
  AMP_DTYPE_F32 = 0,  /**< IEEE binary32. */
  AMP_DTYPE_F16 = 1,  /**< IEEE binary16, stored as uint16_t bits. */
  AMP_DTYPE_BF16 = 2, /**< bfloat16, stored as uint16_t bits. */
  /* The collectives (AmpCollectives.h) also take these two; every other
   * entry point takes only the floating-point types above. */
  AMP_DTYPE_I32 = 3, /**< int32_t. */
  AMP_DTYPE_I1 = 4,  /**< Booleans, one byte each (0 or 1), as MLIR stores
                          i1 in memory. */
} AmpDType;

/*===----------------------------------------------------------------------===*
 * Errors
 *===----------------------------------------------------------------------===*/

/** Called with the message of a failed entry point that has no return
 *  channel. It may return (the entry point then returns without doing its
 *  work; pointer-returning ones return NULL) or longjmp out; throwing also
 *  works where the runtime was compiled with unwind tables (the default on
 *  x86-64). The runtime holds no lock and owns no resource when it calls the
 *  handler. */
typedef void (*AmpErrorHandler)(const char *message);

/** The message of the last failure on the calling thread ("" if none, or
 *  after ampClearError). Messages name the failing call and the reason, e.g.
 *  "mgpuMemAlloc: no CUDA driver: libcuda.so.1 could not be loaded (...)".
 *  The buffer is per thread; its contents change at the next failure. */
AMP_RUNTIME_API const char *ampLastError(void);

/** Resets the calling thread's last error to "". */
AMP_RUNTIME_API void ampClearError(void);

/** Installs `handler` for failures of void-returning `mgpu*`/library entry
 *  points (and pointer-returning `mgpu*` ones) and returns the previous one.
 *  NULL restores the default handler, which prints
 *  "amp-runtime: error: <message>" to stderr and calls abort(); a NULL
 *  return value means the default handler was installed. Process-wide. */
AMP_RUNTIME_API AmpErrorHandler ampSetErrorHandler(AmpErrorHandler handler);

/*===----------------------------------------------------------------------===*
 * GPU queries
 *===----------------------------------------------------------------------===*/

/** Returns 1 if the CUDA driver (libcuda.so.1) loads and the default device
 *  exists and can be initialised, else 0 with ampLastError() saying why.
 *  Never calls the error handler, never aborts. */
AMP_RUNTIME_API int ampGpuAvailable(void);

/** The default device's compute capability as 10 * major + minor (90 for an
 *  H100), or 0 with ampLastError() saying why (no GPU; the simulator
 *  returns 0 without an error). The environment variable
 *  AMP_RUNTIME_COMPUTE_CAPABILITY (read once, at the first GPU call)
 *  replaces it for the runtime's own checks, so that the refusal of bf16
 *  before sm_80 ("bf16 operands need compute capability 8.0 or later")
 *  can be tested on a newer device. */
AMP_RUNTIME_API int ampGpuComputeCapability(void);

/** Writes the NUL-terminated name of the default device into `buf` (at most
 *  `len` bytes, truncated if needed). Returns 0 on success, nonzero on
 *  failure (ampLastError() says why; the handler is not called). */
AMP_RUNTIME_API int ampGpuDeviceName(char *buf, size_t len);

/** Waits until all work queued on the shared stream has finished. A no-op if
 *  the GPU was never used. Failures go to the error handler. */
AMP_RUNTIME_API void ampGpuSynchronize(void);

/** Selects how ampGpuConv2d picks cuDNN algorithms for shapes not seen yet:
 *  nonzero = exhaustive benchmarking (cudnnFindConvolutionForwardAlgorithm,
 *  blocking, allocates temporary memory), 0 = heuristics
 *  (cudnnGetConvolutionForwardAlgorithm_v7). Overrides the environment
 *  variable AMP_CUDNN_EXHAUSTIVE_SEARCH (1 = exhaustive). */
AMP_RUNTIME_API void ampGpuSetConvExhaustiveSearch(int enable);

/*===----------------------------------------------------------------------===*
 * Exact conversions (CPU). Round-to-nearest-even, NaN stays (quiet) NaN,
 * overflow gives +-Inf, subnormals are produced and consumed exactly.
 *===----------------------------------------------------------------------===*/

/** binary32 -> binary16 bits. */
AMP_RUNTIME_API uint16_t ampF32ToF16(float value);
/** binary16 bits -> binary32 (exact). */
AMP_RUNTIME_API float ampF16ToF32(uint16_t bits);
/** binary32 -> bfloat16 bits. */
AMP_RUNTIME_API uint16_t ampF32ToBF16(float value);
/** bfloat16 bits -> binary32 (exact). */
AMP_RUNTIME_API float ampBF16ToF32(uint16_t bits);

/** Converts `n` floats of `src` to binary16 bits in `dst`. */
AMP_RUNTIME_API void ampConvertF32ToF16(const float *src, uint16_t *dst,
                                        int64_t n);
/** Converts `n` binary16 values of `src` to floats in `dst`. */
AMP_RUNTIME_API void ampConvertF16ToF32(const uint16_t *src, float *dst,
                                        int64_t n);
/** Converts `n` floats of `src` to bfloat16 bits in `dst`. */
AMP_RUNTIME_API void ampConvertF32ToBF16(const float *src, uint16_t *dst,
                                         int64_t n);
/** Converts `n` bfloat16 values of `src` to floats in `dst`. */
AMP_RUNTIME_API void ampConvertBF16ToF32(const uint16_t *src, float *dst,
                                         int64_t n);

/*===----------------------------------------------------------------------===*
 * GEMM
 *===----------------------------------------------------------------------===*/

/** Batched row-major GEMM on the GPU (cuBLAS), asynchronous on the shared
 *  stream, device pointers. For each i in [0, batch):
 *    C_i = op(A_i) * op(B_i) + beta * C_i        (alpha = 1)
 *  with A_i = a + i*strideA, B_i = b + i*strideB, C_i = c + i*strideC
 *  (element offsets; strides are ignored when batch == 1).
 *  op(A) is m x k: A is stored row-major m x k (lda >= k) or, if transA, k x m
 *  (lda >= m) and transposed. op(B) is k x n: B is stored k x n (ldb >= n) or,
 *  if transB, n x k (ldb >= k). C is m x n row-major, ldc >= n.
 *  aType == bType in {F32, F16, BF16}; cType is F32 or aType. Products are
 *  accumulated in f32 (CUBLAS_COMPUTE_32F; no TF32 for f32 inputs).
 *  m, n, k, batch > 0 and all sizes must fit in int32 (cuBLAS).
 *  Errors go to the error handler. */
AMP_RUNTIME_API void ampGpuGemm(int32_t transA, int32_t transB, int64_t batch,
                                int64_t m, int64_t n, int64_t k, const void *a,
                                int32_t aType, int64_t lda, int64_t strideA,
                                const void *b, int32_t bType, int64_t ldb,
                                int64_t strideB, void *c, int32_t cType,
                                int64_t ldc, int64_t strideC, float beta);

/** CPU reference of ampGpuGemm with the same signature and semantics on host
 *  pointers; accumulates in double and rounds once (RNE) to cType. Errors go
 *  to the error handler. */
AMP_RUNTIME_API void ampCpuGemm(int32_t transA, int32_t transB, int64_t batch,
                                int64_t m, int64_t n, int64_t k, const void *a,
                                int32_t aType, int64_t lda, int64_t strideA,
                                const void *b, int32_t bType, int64_t ldb,
                                int64_t strideB, void *c, int32_t cType,
                                int64_t ldc, int64_t strideC, float beta);

/*===----------------------------------------------------------------------===*
 * 2-D convolution
 *===----------------------------------------------------------------------===*/

/** Layouts for ampGpuConv2d/ampCpuConv2d. */
typedef enum AmpConvLayout {
  /** x: N x C x H x W, wt: F x C x KH x KW, y: N x F x OH x OW
   *  (linalg.conv_2d_nchw_fchw). */
  AMP_CONV_NCHW_FCHW = 0,
  /** x: N x H x W x C, wt: KH x KW x C x F, y: N x OH x OW x F
   *  (linalg.conv_2d_nhwc_hwcf). */
  AMP_CONV_NHWC_HWCF = 1,
} AmpConvLayout;

/** 2-D cross-correlation on the GPU (cuDNN legacy API), asynchronous on the
 *  shared stream, device pointers, densely packed tensors:
 *    y[n,f,oy,ox] = sum_{c,r,s} x[n, c, oy*strideH - padTop + r*dilH,
 *                                   ox*strideW - padLeft + s*dilW]
 *                               * wt[f, c, r, s]  + beta * y[n,f,oy,ox]
 *  (zero outside the input), in the index order of `layout`.
 *  xType == wType in {F32, F16, BF16}; yType is xType or F32 (with 16-bit
 *  x and wt, they are widened exactly and an f32 convolution writes y: no
 *  16-bit intermediate; see the README). Padding must be symmetric, i.e. the
 * caller's oh/ow must equal (h + 2*padTop - dilH*(kh-1) - 1)/strideH + 1 (and
 * likewise for w); other shapes are rejected with an "asymmetric padding is
 * unsupported" error. Errors go to the error handler. */
AMP_RUNTIME_API void
ampGpuConv2d(int32_t layout, int64_t n, int64_t c, int64_t h, int64_t w,
             int64_t f, int64_t kh, int64_t kw, int64_t oh, int64_t ow,
             int64_t padTop, int64_t padLeft, int64_t strideH, int64_t strideW,
             int64_t dilH, int64_t dilW, const void *x, int32_t xType,
             const void *wt, int32_t wType, void *y, int32_t yType, float beta);

/** CPU reference of ampGpuConv2d with the same signature on host pointers.
 *  Accumulates in double, rounds once to yType. Unlike the GPU version it
 *  accepts any oh/ow >= 1 (bottom/right padding is implied by oh/ow).
 *  Errors go to the error handler. */
AMP_RUNTIME_API void
ampCpuConv2d(int32_t layout, int64_t n, int64_t c, int64_t h, int64_t w,
             int64_t f, int64_t kh, int64_t kw, int64_t oh, int64_t ow,
             int64_t padTop, int64_t padLeft, int64_t strideH, int64_t strideW,
             int64_t dilH, int64_t dilW, const void *x, int32_t xType,
             const void *wt, int32_t wType, void *y, int32_t yType, float beta);

/** For compiled code: the device copy of a constant (a host global of
 *  `bytes` bytes at `hostPtr`, e.g. a memref.global), uploaded on the first
 *  call for that (address, size) and cached for the life of the process, so
 *  that a function called every step does not copy its constants every
 *  step. Stream-ordered: the upload is queued on the shared stream, and
 *  every later use on that stream sees it. The host bytes must not change
 *  (they are constants). bytes == 0 returns NULL without any GPU call. The
 *  returned memory is owned by the runtime: never free it. Errors (NULL
 *  hostPtr with bytes > 0, negative bytes, GPU failures) go to the error
 *  handler. */
AMP_RUNTIME_API void *ampGpuConstant(const void *hostPtr, int64_t bytes);

/** CPU twin of ampGpuConstant with the same signature: the constant is
 *  already in host memory, so it returns `hostPtr` (NULL for bytes == 0). */
AMP_RUNTIME_API void *ampCpuConstant(const void *hostPtr, int64_t bytes);

#ifdef __cplusplus
} /* extern "C" */
#endif

/* Loss scaling and master-weight optimizers. */
#include "amp/runtime/AmpLossScaling.h"
/* Collectives across the processes of a data-parallel job (MPI). */
#include "amp/runtime/AmpCollectives.h"

#endif /* AMP_RUNTIME_AMPRUNTIME_H */
