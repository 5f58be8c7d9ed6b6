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

/** Element types understood by the runtime (values are ABI; the table and
 *  each type's meaning are in DTypes.def). */
typedef enum AmpDType {
#define AMP_DTYPE(NAME, CODE, SPELLING, BYTES) AMP_DTYPE_##NAME = CODE,
#include "amp/runtime/DTypes.def"
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

/** CUDA graphs of the shared stream: what compiled code queues between
 *  ampGpuGraphBeginCapture and ampGpuGraphEndCapture (kernels, library
 *  calls, stream-ordered allocations and frees, device-to-device copies) is
 *  recorded instead of run, and each ampGpuGraphLaunch then runs all of it
 *  with one launch, on the same buffers (pointers and scalars are those of
 *  the capture). While capturing, the host waits of compiled code
 *  (mgpuStreamSynchronize, ampGpuSynchronize) are skipped; whatever cannot
 *  be captured (a constant's first upload, a workspace that must grow, a
 *  collective, managed memory) fails with a message that says so. Capture
 *  after a call that ran the same code with the same shapes. Needs
 *  stream-ordered allocation (memory pools). Failures return nonzero (NULL
 *  for ampGpuGraphEndCapture) with ampLastError() set; the handler is not
 *  called. */
typedef struct AmpGpuGraph AmpGpuGraph;
/** Starts capturing the shared stream (one capture at a time). */
AMP_RUNTIME_API int ampGpuGraphBeginCapture(void);
/** Ends the capture: first frees, in the graph, every buffer the capture
 *  allocated and did not free (the graph owns no memory between launches:
 *  copy what is needed out of it before ending), then instantiates the
 *  graph. NULL if the capture failed (the stream is no longer captured). */
AMP_RUNTIME_API AmpGpuGraph *ampGpuGraphEndCapture(void);
/** Queues one run of the graph on the shared stream; asynchronous. */
AMP_RUNTIME_API int ampGpuGraphLaunch(AmpGpuGraph *graph);
/** Waits for the stream and destroys the graph. NULL does nothing. */
AMP_RUNTIME_API void ampGpuGraphDestroy(AmpGpuGraph *graph);

/** Selects how ampGpuConv2d and its gradients (ampGpuConv2dBackwardData,
 *  ampGpuConv2dBackwardFilter) pick cuDNN algorithms for shapes not seen
 *  yet: nonzero = exhaustive benchmarking (cudnnFindConvolutionForwardAlgorithm
 *  and its backward twins, blocking, allocates temporary memory), 0 =
 *  heuristics (cudnnGetConvolutionForwardAlgorithm_v7 and its backward
 *  twins). Overrides the environment variable AMP_CUDNN_EXHAUSTIVE_SEARCH
 *  (1 = exhaustive). */
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
/** The value of an FP8 bit pattern (exact in f32): E4M3FN (no infinities;
 *  S.1111.111 is NaN) and E5M2 (IEEE-like, with infinities). */
AMP_RUNTIME_API float ampF8E4M3FNToF32(uint8_t bits);
AMP_RUNTIME_API float ampF8E5M2ToF32(uint8_t bits);

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
 * Library calls of compiled code (GEMM, convolution, constants, unscaling,
 * all-reduce) and their CPU twins: declared by AmpLibraryCalls.h from the
 * table LibraryCalls.def, which documents them.
 *===----------------------------------------------------------------------===*/

/** Epilogues of ampGpuGemmEpilogue/ampCpuGemmEpilogue (their `epilogue`
 *  argument): cuBLASLt's CUBLASLT_EPILOGUE_BIAS, _RELU_BIAS, _GELU_BIAS,
 *  _GELU_AUX_BIAS, _DGELU, _RELU_AUX_BIAS and _DRELU. */
typedef enum AmpGemmEpilogue {
  /** C = A*B + beta*C + bias (bias broadcast along the rows). */
  AMP_GEMM_EPILOGUE_BIAS = 1,
  /** C = max(A*B + beta*C + bias, 0). */
  AMP_GEMM_EPILOGUE_RELU_BIAS = 2,
  /** C = gelu(A*B + beta*C + bias), GELU's tanh approximation
   *  0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
  AMP_GEMM_EPILOGUE_GELU_BIAS = 3,
  /** As AMP_GEMM_EPILOGUE_GELU_BIAS, and the GELU's input
   *  A*B + beta*C + bias is also written, to `aux` (a training step's
   *  forward: the backward reads the pre-activation). */
  AMP_GEMM_EPILOGUE_GELU_AUX_BIAS = 4,
  /** C = (A*B + beta*C) * gelu'(aux): the gradient of the GELU (tanh form)
   *  whose input GELU_AUX_BIAS kept, at that input (`aux`, read); no
   *  bias (a training step's backward). */
  AMP_GEMM_EPILOGUE_DGELU = 5,
  /** As AMP_GEMM_EPILOGUE_RELU_BIAS, and whether each element of
   *  A*B + beta*C + bias is positive is written to `aux` as one bit (the
   *  ReLU mask, ampGemmReluMaskBytes: a training step's forward, whose
   *  backward needs only the sign). */
  AMP_GEMM_EPILOGUE_RELU_AUX_BIAS = 6,
  /** C = (A*B + beta*C) where the mask bit in `aux` (read) is set, 0
   *  elsewhere: the gradient of the ReLU whose mask RELU_AUX_BIAS wrote,
   *  for a C of the same batch, m and n; no bias. */
  AMP_GEMM_EPILOGUE_DRELU = 7,
} AmpGemmEpilogue;

/** The operand whose bias gradient ampGpuGemmBiasGrad/ampCpuGemmBiasGrad
 *  write (their `operand` argument): a training step's output gradient dY,
 *  the operand of the weight-gradient GEMM whose rows are the batch (k). */
typedef enum AmpGemmBiasGradOperand {
  /** A stored k x m (transA 1): m sums, one per column of A. The weight
   *  gradient dY^T X of a layer y = x W^T + b (torch.nn.Linear):
   *  cuBLASLt's BGRADB. */
  AMP_GEMM_BIAS_GRAD_A = 1,
  /** B stored k x n (transB 0): n sums, one per column of B. The weight
   *  gradient X^T dY of a layer y = x W + b (transformers' Conv1D):
   *  cuBLASLt's BGRADA. */
  AMP_GEMM_BIAS_GRAD_B = 2,
} AmpGemmBiasGradOperand;

/** Bits per row of the ReLU mask of AMP_GEMM_EPILOGUE_RELU_AUX_BIAS and
 *  AMP_GEMM_EPILOGUE_DRELU for a C of n columns: n rounded up to a multiple
 *  of 128 (cuBLASLt's rule for its bit mask's leading dimension). The
 *  mask holds batch * m such rows, packed; the bit of element (b, i, j) is
 *  bit j % 8 of byte (b * m + i) * bits / 8 + j / 8 on the CPU and in the
 *  simulator, and cuBLASLt's own on the GPU (only the two epilogues read
 *  and write it). */
static inline int64_t ampGemmReluMaskRowBits(int64_t n) {
  return (n + 127) / 128 * 128;
}

/** Bytes of the ReLU mask of a C of batch * m rows of n columns. */
static inline int64_t ampGemmReluMaskBytes(int64_t batch, int64_t m,
                                           int64_t n) {
  return batch * m * (ampGemmReluMaskRowBits(n) / 8);
}

/** Layouts of ampGpuConv2d/ampCpuConv2d (their `layout` argument). */
typedef enum AmpConvLayout {
  /** x: N x C x H x W, wt: F x C x KH x KW, y: N x F x OH x OW
   *  (linalg.conv_2d_nchw_fchw). */
  AMP_CONV_NCHW_FCHW = 0,
  /** x: N x H x W x C, wt: KH x KW x C x F, y: N x OH x OW x F
   *  (linalg.conv_2d_nhwc_hwcf). */
  AMP_CONV_NHWC_HWCF = 1,
  /** x: N x H x W x C, wt: F x KH x KW x C, y: N x OH x OW x F
   *  (linalg.conv_2d_nhwc_fhwc, what tosa.conv2d and amp-channels-last
   *  write): cuDNN's NHWC tensors and KRSC filter, read as they are; the
   *  backward convolutions take it too. */
  AMP_CONV_NHWC_FHWC = 2,
} AmpConvLayout;

/** Epilogues of ampGpuConv2dEpilogue/ampCpuConv2dEpilogue (their
 *  `epilogue` argument): what follows the per-channel scale, bias and the
 *  residual, in f32, before the one rounding. */
typedef enum AmpConvEpilogue {
  /** y = conv * scale + bias (+ residual): batch norm in inference folded
   *  into a scale and a shift, or a convolution's bias. */
  AMP_CONV_EPILOGUE_SCALE_BIAS = 1,
  /** y = max(conv * scale + bias (+ residual), 0): the same, then a ReLU
   *  (ResNet's conv-BN-ReLU, and conv-BN-add-ReLU with the residual). */
  AMP_CONV_EPILOGUE_SCALE_BIAS_RELU = 2,
} AmpConvEpilogue;

/** What computes ampCpuLibraryGemm and ampCpuLibraryConv2d in this
 *  process: the path of the CBLAS library it loaded on first use (e.g.
 *  ".../libopenblas.so.0"), or
 *  "loops" when there is none (none found when the runtime was configured,
 *  none that loads, or AMP_CPU_BLAS=none). AMP_CPU_BLAS=<path> loads that
 *  library instead of the configured one. Loads it if not done yet. */
AMP_RUNTIME_API const char *ampCpuLibraryName(void);

/** What computes ampCpuLibraryGemm and ampCpuLibraryConv2d with f16/bf16
 *  operands in this process: "avx512" or "avx2", the micro-kernel of the
 *  runtime's own GEMM that widens them to f32 while packing (AVX-512F, or
 *  AVX2 with FMA and F16C), or "blas" where it does not run: the operands
 *  are widened into f32 scratch for the library above. AMP_CPU_GEMM=avx2
 *  caps the choice at AVX2; AMP_CPU_GEMM=blas turns it off. */
AMP_RUNTIME_API const char *ampCpuGemmKernel(void);

/** The buffers of code compiled by --lower-to-cpu (runtime-allocator=true):
 *  memref.alloc and memref.dealloc call these (finalize-memref-to-llvm's
 *  generic allocation functions). Blocks of at least 64 KiB are kept when
 *  freed, by size class (8 per power of two), and handed out again, so that
 *  a model's calls reuse their buffers instead of faulting in fresh pages;
 *  at most AMP_CPU_ALLOC_CACHE_MB MiB (default 1024; 0: none) are kept.
 *  Every block is a malloc'd one: free() may release a result buffer. */
AMP_RUNTIME_API void *_mlir_memref_to_llvm_alloc(uint64_t size);
AMP_RUNTIME_API void *_mlir_memref_to_llvm_aligned_alloc(uint64_t alignment,
                                                         uint64_t size);
AMP_RUNTIME_API void _mlir_memref_to_llvm_free(void *block);
/** The bytes kept for reuse now. */
AMP_RUNTIME_API uint64_t ampCpuAllocatorCachedBytes(void);
/** Frees the blocks kept for reuse. */
AMP_RUNTIME_API void ampCpuAllocatorRelease(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

/* The library calls of compiled code (LibraryCalls.def). */
#include "amp/runtime/AmpLibraryCalls.h"
/* Loss scaling and master-weight optimizers. */
#include "amp/runtime/AmpLossScaling.h"
/* Collectives across the processes of a data-parallel job (MPI). */
#include "amp/runtime/AmpCollectives.h"

#endif /* AMP_RUNTIME_AMPRUNTIME_H */
