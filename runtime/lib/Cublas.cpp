//===- Cublas.cpp - row-major GEMM on cuBLAS ------------------------------===//
//
// Part of amp-mlir. ampGpuGemm: on cuBLASLt (CublasLt.cpp, the default), or
// on cublasGemmEx / cublasGemmStridedBatchedEx with one cached handle bound
// to the shared stream where cuBLASLt has no algorithm or
// AMP_GEMM_LIBRARY=cublas asks for it; plus the f16/bf16 -> f32 widening
// that the mixed-type convolution path uses.
//
// Row-major from column-major cuBLAS: a row-major R x C matrix with row
// stride ld is the column-major C x R matrix with the same ld, so
// C = op(A) op(B) (row-major) is C^T = op(B)^T op(A)^T (column-major): pass
// B first, A second, and swap m and n.
//
//===----------------------------------------------------------------------===//

#include "GpuContext.h"
#include "GpuLossScalingDevice.h"
#include "Internal.h"
#include "LibraryCallEntries.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

using namespace amp::rt;

namespace {
struct CublasState {
  std::mutex mutex; // A cuBLAS handle must not be used by two threads at once.
  const CublasApi *api = nullptr;
  cublasHandle_t handle = nullptr;
  /// Device constants 1.0 as f16 (element 0) and bf16 (element 1).
  CUdeviceptr ones = 0;
};

CublasState &cublasState() {
  static CublasState *state = new CublasState; // Leaked: see GpuContext.cpp.
  return *state;
}

bool cublasCheck(const char *call, const CublasApi *api, cublasStatus_t status,
                 const char *what) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return true;
  const char *text = api->cublasGetStatusString(status);
  return setError(call, "%s failed: %s (status %d)", what,
                  text ? text : "unknown cublasStatus_t",
                  static_cast<int>(status));
}

/// Creates the handle on first use. Called with the mutex held and the
/// context current.
bool ensureHandle(const char *call, const DriverApi *drv, CublasState &st) {
  if (st.handle)
    return true;
  const CublasApi *api = loadCublas(call);
  if (!api)
    return false;
  cublasHandle_t handle = nullptr;
  if (!cublasCheck(call, api, api->cublasCreate_v2(&handle), "cublasCreate"))
    return false;
  // CUBLAS_DEFAULT_MATH: with CUBLAS_COMPUTE_32F, f16/bf16 inputs still use
  // Tensor Cores (the compute type, not the math mode, selects them in CUDA
  // 12/13), while f32 inputs stay true fp32 (no TF32, which would need
  // CUBLAS_COMPUTE_32F_FAST_TF32 or CUBLAS_TF32_TENSOR_OP_MATH).
  if (!cublasCheck(call, api, api->cublasSetStream_v2(handle, gpuStream()),
                   "cublasSetStream") ||
      !cublasCheck(call, api,
                   api->cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH),
                   "cublasSetMathMode")) {
    api->cublasDestroy_v2(handle);
    return false;
  }
  CUdeviceptr ones = 0;
  if (!gpuMalloc(call, 4, &ones) ||
      !cuCheck(call, drv->cuMemsetD16Async(ones, 0x3c00, 1, gpuStream()),
               "cuMemsetD16Async") ||
      !cuCheck(call, drv->cuMemsetD16Async(ones + 2, 0x3f80, 1, gpuStream()),
               "cuMemsetD16Async")) {
    api->cublasDestroy_v2(handle);
    return false;
  }
  st.api = api;
  st.handle = handle;
  st.ones = ones;
  return true;
}

} // namespace

/// ampGpuGemm on cuBLAS (arguments already checked).
/// Whether ampGpuGemm uses cublasGemmEx instead of cuBLASLt:
/// AMP_GEMM_LIBRARY=cublas in the environment (read once), for comparing
/// the two.
static bool useCublasGemmEx() {
  static const bool legacy = [] {
    const char *library = std::getenv("AMP_GEMM_LIBRARY");
    return library && std::strcmp(library, "cublas") == 0;
  }();
  return legacy;
}

/// ampGpuGemm (arguments checked): cuBLASLt (gemmOnCublasLt), or
/// cublasGemmEx where cuBLASLt has no algorithm for the GEMM or
/// AMP_GEMM_LIBRARY=cublas asks for it.
bool amp::rt::cuda::Gemm(const char *call, const GemmArgs &g, NoResult &) {
  if (!useCublasGemmEx()) {
    bool noKernel = false;
    if (gemmOnCublasLt(call, g, noKernel))
      return true;
    if (!noKernel)
      return false;
    ampClearError(); // The stated fallback: cublasGemmEx below.
  }
  const DriverApi *drv = gpuInit(call);
  if (!drv || !gpuCheckTypesSupported(call, {g.aType, g.bType, g.cType}))
    return false;
  CublasState &st = cublasState();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (!ensureHandle(call, drv, st))
    return false;
  const CublasApi *api = st.api;
  // Compute and scale types are f32 for every combination (alpha/beta are
  // floats); f32 x f32 uses CUBLAS_COMPUTE_32F, not the TF32 variant.
  const float alpha = 1.0f, beta = g.beta;
  cublasOperation_t opFirst = g.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opSecond = g.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  int m = static_cast<int>(g.n), n = static_cast<int>(g.m),
      k = static_cast<int>(g.k);
  if (g.batch == 1)
    return cublasCheck(
        call, api,
        api->cublasGemmEx(st.handle, opFirst, opSecond, m, n, k, &alpha, g.b,
                          toCudaType(g.bType), static_cast<int>(g.ldb), g.a,
                          toCudaType(g.aType), static_cast<int>(g.lda), &beta,
                          g.c, toCudaType(g.cType), static_cast<int>(g.ldc),
                          CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx");
  return cublasCheck(
      call, api,
      api->cublasGemmStridedBatchedEx(
          st.handle, opFirst, opSecond, m, n, k, &alpha, g.b,
          toCudaType(g.bType), static_cast<int>(g.ldb), g.strideB, g.a,
          toCudaType(g.aType), static_cast<int>(g.lda), g.strideA, &beta, g.c,
          toCudaType(g.cType), static_cast<int>(g.ldc), g.strideC,
          static_cast<int>(g.batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
      "cublasGemmStridedBatchedEx");
}

bool amp::rt::gpuWidenToF32(const char *call, CUdeviceptr src, int32_t srcType,
                            CUdeviceptr dst, int64_t count, float beta) {
#if AMP_RUNTIME_HAVE_LOSS_SCALING_KERNELS
  // The runtime's own kernel, a copy. (The GEMM below is cuBLAS's GEMV
  // kernel: on an H200, its 57 widenings took 85.6 ms of ResNet-50's 138 ms
  // at O1, batch 256; kit run of d63d663. Not yet run on a GPU.)
  if (beta == 0.0f)
    return gpuls::widenToF32(call, static_cast<gpuls::DevicePtr>(src), srcType,
                             static_cast<gpuls::DevicePtr>(dst), count);
#endif
  // Without the runtime's kernels (no nvcc at build time), or with beta:
  // cuDNN's legacy tensor ops do not convert half -> float, cuBLAS GemmEx
  // does: dst (count x 1, f32) = src (count x 1) * one (1 x 1) + beta * dst,
  // with src/one in f16 or bf16 and f32 compute: exact widening plus one f32
  // rounding of the accumulation, the same as an f32 `y = x + beta * y`.
  const DriverApi *drv = gpuInit(call);
  if (!drv)
    return false;
  CublasState &st = cublasState();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (!ensureHandle(call, drv, st))
    return false;
  const float alpha = 1.0f;
  CUdeviceptr one = st.ones + (srcType == AMP_DTYPE_BF16 ? 2 : 0);
  constexpr int64_t kChunk = int64_t(1) << 30;
  for (int64_t start = 0; start < count; start += kChunk) {
    int rows =
        static_cast<int>(count - start < kChunk ? count - start : kChunk);
    auto *a = reinterpret_cast<const void *>(src + start * 2);
    auto *c = reinterpret_cast<void *>(dst + start * 4);
    if (!cublasCheck(
            call, st.api,
            st.api->cublasGemmEx(st.handle, CUBLAS_OP_N, CUBLAS_OP_N, rows, 1,
                                 1, &alpha, a, toCudaType(srcType), rows,
                                 reinterpret_cast<const void *>(one),
                                 toCudaType(srcType), 1, &beta, c, CUDA_R_32F,
                                 rows, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            "cublasGemmEx (widening to f32)"))
      return false;
  }
  return true;
}
