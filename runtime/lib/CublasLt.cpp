//===- CublasLt.cpp - FP8 GEMMs on cuBLASLt -------------------------------===//
//
// Part of amp-mlir. ampGpuScaledGemm on cublasLtMatmul: FP8 operands (E4M3 x
// E4M3, E4M3 x E5M2, E5M2 x E4M3), f32 accumulation (CUBLAS_COMPUTE_32F),
// an f32, bf16 or f16 output, the per-tensor scales as cuBLASLt's A/B scale
// pointers and the output's amax as its AMAX_D pointer, with one cached
// handle and workspace on the shared stream. cublasGemmEx has no FP8
// types; cuBLASLt's FP8 kernels need sm_89 or later and the "TN" layout,
// which ArgCheck.cpp enforces before this runs.
//
// Row-major to column-major as in Cublas.cpp: C (m x n, row-major) is the
// column-major n x m matrix C^T = B A^T. Our B, stored n x k row-major
// (transB), is the column-major k x n matrix that cuBLASLt's A must be with
// op T; our A (m x k row-major) is the column-major k x m matrix that its B
// must be with op N. So: cuBLASLt A = our B (T), cuBLASLt B = our A (N),
// m' = n, n' = m, and our aScale is cuBLASLt's B scale (and bScale its A
// scale). Only their product reaches D, so the swap is exact either way.
//
//===----------------------------------------------------------------------===//

#include "GpuContext.h"
#include "Internal.h"
#include "LibraryCallEntries.h"

#include <mutex>

using namespace amp::rt;

namespace {
/// Workspace for cuBLASLt's heuristics (32 MiB, what cuBLAS recommends for
/// Hopper).
constexpr size_t kWorkspaceBytes = size_t(32) << 20;

struct CublasLtState {
  std::mutex mutex;
  const CublasLtApi *api = nullptr;
  cublasLtHandle_t handle = nullptr;
  CUdeviceptr workspace = 0;
};

CublasLtState &cublasLtState() {
  static CublasLtState *state = new CublasLtState; // Leaked: see GpuContext.
  return *state;
}

bool ltCheck(const char *call, cublasStatus_t status, const char *what) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return true;
  return setError(call, "%s failed (cublasStatus_t %d)", what,
                  static_cast<int>(status));
}

/// Sets the pointer attribute `attribute` of `matmul` to `pointer` when it
/// is not NULL (cuBLASLt's default, NULL, means a scale of 1 or no amax).
bool setPointer(const char *call, const CublasLtApi *api,
                cublasLtMatmulDesc_t matmul,
                cublasLtMatmulDescAttributes_t attribute, const void *pointer,
                const char *what) {
  if (!pointer)
    return true;
  return ltCheck(call,
                 api->cublasLtMatmulDescSetAttribute(matmul, attribute,
                                                     &pointer, sizeof(pointer)),
                 what);
}

/// The descriptors of one call, destroyed on every path.
struct Descriptors {
  const CublasLtApi *api;
  cublasLtMatmulDesc_t matmul = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulPreference_t preference = nullptr;
  explicit Descriptors(const CublasLtApi *api) : api(api) {}
  ~Descriptors() {
    if (preference)
      api->cublasLtMatmulPreferenceDestroy(preference);
    for (cublasLtMatrixLayout_t layout : {a, b, c})
      if (layout)
        api->cublasLtMatrixLayoutDestroy(layout);
    if (matmul)
      api->cublasLtMatmulDescDestroy(matmul);
  }
};

/// A column-major rows x cols layout with leading dimension ld, batched.
bool makeLayout(const char *call, const CublasLtApi *api,
                cublasLtMatrixLayout_t *layout, cudaDataType type, int64_t rows,
                int64_t cols, int64_t ld, int64_t batch, int64_t stride) {
  if (!ltCheck(call,
               api->cublasLtMatrixLayoutCreate(layout, type, rows, cols, ld),
               "cublasLtMatrixLayoutCreate"))
    return false;
  if (batch == 1)
    return true;
  int32_t count = static_cast<int32_t>(batch);
  return ltCheck(call,
                 api->cublasLtMatrixLayoutSetAttribute(
                     *layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                     sizeof(count)),
                 "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)") &&
         ltCheck(call,
                 api->cublasLtMatrixLayoutSetAttribute(
                     *layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                     &stride, sizeof(stride)),
                 "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)");
}
} // namespace

bool amp::rt::cuda::ScaledGemm(const char *call, const ScaledGemmArgs &g,
                               NoResult &) {
  if (!gpuInit(call))
    return false;
  int capability = gpuComputeCapability();
  if (capability < 89)
    return setError(call,
                    "FP8 GEMMs need compute capability 8.9 or later (sm_89, "
                    "Ada; sm_90, Hopper); this device is sm_%d: compile with "
                    "dtype bf16 for it",
                    capability);
  CublasLtState &st = cublasLtState();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (!st.handle) {
    const CublasLtApi *api = loadCublasLt(call);
    if (!api)
      return false;
    cublasLtHandle_t handle = nullptr;
    if (!ltCheck(call, api->cublasLtCreate(&handle), "cublasLtCreate"))
      return false;
    CUdeviceptr workspace = 0;
    if (!gpuMalloc(call, kWorkspaceBytes, &workspace)) {
      api->cublasLtDestroy(handle);
      return false;
    }
    st.api = api;
    st.handle = handle;
    st.workspace = workspace;
  }
  const CublasLtApi *api = st.api;
  Descriptors d(api);
  cublasOperation_t transposed = CUBLAS_OP_T, plain = CUBLAS_OP_N;
  if (!ltCheck(call,
               api->cublasLtMatmulDescCreate(&d.matmul, CUBLAS_COMPUTE_32F,
                                             CUDA_R_32F),
               "cublasLtMatmulDescCreate") ||
      !ltCheck(call,
               api->cublasLtMatmulDescSetAttribute(
                   d.matmul, CUBLASLT_MATMUL_DESC_TRANSA, &transposed,
                   sizeof(transposed)),
               "cublasLtMatmulDescSetAttribute(TRANSA)") ||
      !ltCheck(call,
               api->cublasLtMatmulDescSetAttribute(d.matmul,
                                                   CUBLASLT_MATMUL_DESC_TRANSB,
                                                   &plain, sizeof(plain)),
               "cublasLtMatmulDescSetAttribute(TRANSB)") ||
      // cuBLASLt's A is our B and its B our A (above).
      !setPointer(call, api, d.matmul, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                  g.bScale,
                  "cublasLtMatmulDescSetAttribute(A_SCALE_POINTER)") ||
      !setPointer(call, api, d.matmul, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                  g.aScale,
                  "cublasLtMatmulDescSetAttribute(B_SCALE_POINTER)") ||
      !setPointer(call, api, d.matmul, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER,
                  g.dAmax, "cublasLtMatmulDescSetAttribute(AMAX_D_POINTER)"))
    return false;
  // cuBLASLt's A: our B (k x n column-major, ld = ldb); its B: our A (k x m,
  // ld = lda); C and D: n x m (ld = ldc).
  if (!makeLayout(call, api, &d.a, toCudaType(g.bType), g.k, g.n, g.ldb,
                  g.batch, g.strideB) ||
      !makeLayout(call, api, &d.b, toCudaType(g.aType), g.k, g.m, g.lda,
                  g.batch, g.strideA) ||
      !makeLayout(call, api, &d.c, toCudaType(g.cType), g.n, g.m, g.ldc,
                  g.batch, g.strideC))
    return false;
  size_t workspaceBytes = kWorkspaceBytes;
  if (!ltCheck(call, api->cublasLtMatmulPreferenceCreate(&d.preference),
               "cublasLtMatmulPreferenceCreate") ||
      !ltCheck(call,
               api->cublasLtMatmulPreferenceSetAttribute(
                   d.preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                   &workspaceBytes, sizeof(workspaceBytes)),
               "cublasLtMatmulPreferenceSetAttribute"))
    return false;
  cublasLtMatmulHeuristicResult_t heuristic = {};
  int found = 0;
  if (!ltCheck(call,
               api->cublasLtMatmulAlgoGetHeuristic(st.handle, d.matmul, d.a,
                                                   d.b, d.c, d.c, d.preference,
                                                   1, &heuristic, &found),
               "cublasLtMatmulAlgoGetHeuristic"))
    return false;
  if (found == 0)
    return setError(call,
                    "cuBLASLt has no FP8 kernel for %s x %s -> %s, m = %lld, "
                    "n = %lld, k = %lld",
                    dtypeName(g.aType), dtypeName(g.bType), dtypeName(g.cType),
                    static_cast<long long>(g.m), static_cast<long long>(g.n),
                    static_cast<long long>(g.k));
  const float alpha = 1.0f, beta = g.beta;
  return ltCheck(call,
                 api->cublasLtMatmul(st.handle, d.matmul, &alpha, g.b, d.a, g.a,
                                     d.b, &beta, g.c, d.c, g.c, d.c,
                                     &heuristic.algo,
                                     reinterpret_cast<void *>(st.workspace),
                                     workspaceBytes, gpuStream()),
                 "cublasLtMatmul");
}
