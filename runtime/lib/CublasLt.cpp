//===- CublasLt.cpp - FP8 GEMMs on cuBLASLt -------------------------------===//
//
// Part of amp-mlir. ampGpuScaledGemm on cublasLtMatmul: FP8 operands (E4M3 x
// E4M3, E4M3 x E5M2, E5M2 x E4M3), f32 accumulation (CUBLAS_COMPUTE_32F),
// an f32, bf16 or f16 output, the per-tensor scales as cuBLASLt's A/B scale
// pointers, with one cached handle, workspace and f32 scratch on the shared
// stream. cublasGemmEx has no FP8 types; cuBLASLt's FP8 kernels need sm_89
// or later and the "TN" layout, which ArgCheck.cpp enforces before this
// runs. The output's amax is not cuBLASLt's AMAX_D pointer, which cuBLASLt
// takes only for an FP8 D (an H200 refused it for a bf16 D with
// CUBLAS_STATUS_INVALID_VALUE): runScaledGemm (GpuScaledGemm.cpp) computes
// it with the runtime's own kernel, as lib/ScaledGemmPlan.h plans, around
// the matmul below.
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
#include "GpuLossScalingDevice.h"
#include "Internal.h"
#include "LibraryCallEntries.h"
#include "ScaledGemmPlan.h"

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
  /// The f32 D of a 16-bit output whose amax is wanted (ScaledGemmPlan.h).
  ScratchBuffer scratch;
};

CublasLtState &cublasLtState() {
  static CublasLtState *state = new CublasLtState; // Leaked: see GpuContext.
  return *state;
}

bool ltCheck(const char *call, cublasStatus_t status, const char *what) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return true;
  // cuBLASLt's own name of the status (CUBLAS_STATUS_INVALID_VALUE, ...).
  const CublasLtApi *api = cublasLtState().api;
  const char *name = api && api->cublasLtGetStatusName
                         ? api->cublasLtGetStatusName(status)
                         : nullptr;
  return setError(call, "%s failed: %s (cublasStatus_t %d)", what,
                  name ? name : "unknown cublasStatus_t",
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
/// The alignment, in bytes, that every matrix of a batched operand keeps:
/// the largest power of two up to 256 dividing its address, its leading
/// dimension and (batch > 1) its batch stride, all in bytes. cuBLASLt's
/// heuristic assumes 256 (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*_BYTES'
/// default) unless told, and ArgCheck.cpp only guarantees 16.
uint32_t alignmentOf(const void *pointer, int64_t ldBytes, int64_t batch,
                     int64_t strideBytes) {
  uint64_t bits = reinterpret_cast<uintptr_t>(pointer) |
                  static_cast<uint64_t>(ldBytes) |
                  (batch > 1 ? static_cast<uint64_t>(strideBytes) : 0) | 256u;
  return static_cast<uint32_t>(bits & (~bits + 1));
}

/// cublasLtMatmul of `description` (checked against cuBLASLt's rules by
/// runScaledGemm) into `output`, with the mutex held and the handle made.
bool matmul(const char *call, CublasLtState &st, const ScaledGemmArgs &g,
            const CublasLtFloat8Matmul &description,
            const gpuls::ScaledGemmOutput &output) {
  const CublasLtApi *api = st.api;
  Descriptors d(api);
  cublasOperation_t transposed = CUBLAS_OP_T, plain = CUBLAS_OP_N;
  // cuBLASLt's A is our B and its B our A (above): the description's
  // A scale is our bScale, its B scale our aScale.
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
      !setPointer(call, api, d.matmul, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                  description.aScale ? g.bScale : nullptr,
                  "cublasLtMatmulDescSetAttribute(A_SCALE_POINTER)") ||
      !setPointer(call, api, d.matmul, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                  description.bScale ? g.aScale : nullptr,
                  "cublasLtMatmulDescSetAttribute(B_SCALE_POINTER)") ||
      !setPointer(call, api, d.matmul, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER,
                  description.amaxD ? g.dAmax : nullptr,
                  "cublasLtMatmulDescSetAttribute(AMAX_D_POINTER)"))
    return false;
  // cuBLASLt's A: our B (k x n column-major, ld = ldb); its B: our A (k x m,
  // ld = lda); C and D: the output, n x m (C or the f32 scratch).
  if (!makeLayout(call, api, &d.a, toCudaType(description.aType), g.k, g.n,
                  g.ldb, g.batch, g.strideB) ||
      !makeLayout(call, api, &d.b, toCudaType(description.bType), g.k, g.m,
                  g.lda, g.batch, g.strideA) ||
      !makeLayout(call, api, &d.c, toCudaType(description.dType), g.n, g.m,
                  output.ld, g.batch, output.stride))
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
  // Kernels that need more alignment than the operands have are excluded.
  int64_t dBytes = static_cast<int64_t>(gemmElementSize(description.dType));
  uint32_t dAlignment = alignmentOf(output.pointer, output.ld * dBytes, g.batch,
                                    output.stride * dBytes);
  const struct {
    cublasLtMatmulPreferenceAttributes_t attribute;
    uint32_t bytes;
  } alignments[] = {{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                     alignmentOf(g.b, g.ldb, g.batch, g.strideB)},
                    {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                     alignmentOf(g.a, g.lda, g.batch, g.strideA)},
                    {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, dAlignment},
                    {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, dAlignment}};
  for (const auto &alignment : alignments)
    if (!ltCheck(call,
                 api->cublasLtMatmulPreferenceSetAttribute(
                     d.preference, alignment.attribute, &alignment.bytes,
                     sizeof(alignment.bytes)),
                 "cublasLtMatmulPreferenceSetAttribute(MIN_ALIGNMENT)"))
      return false;
  cublasLtMatmulHeuristicResult_t heuristic = {};
  int found = 0;
  if (!ltCheck(call,
               api->cublasLtMatmulAlgoGetHeuristic(st.handle, d.matmul, d.a,
                                                   d.b, d.c, d.c, d.preference,
                                                   1, &heuristic, &found),
               "cublasLtMatmulAlgoGetHeuristic"))
    return appendError(" for %s x %s -> %s, m = %lld, n = %lld, k = %lld",
                       dtypeName(g.aType), dtypeName(g.bType),
                       dtypeName(description.dType),
                       static_cast<long long>(g.m), static_cast<long long>(g.n),
                       static_cast<long long>(g.k));
  if (found == 0)
    return setError(call,
                    "cuBLASLt has no FP8 kernel for %s x %s -> %s, m = %lld, "
                    "n = %lld, k = %lld",
                    dtypeName(g.aType), dtypeName(g.bType),
                    dtypeName(description.dType), static_cast<long long>(g.m),
                    static_cast<long long>(g.n), static_cast<long long>(g.k));
  const float alpha = 1.0f, beta = g.beta;
  return ltCheck(call,
                 api->cublasLtMatmul(st.handle, d.matmul, &alpha, g.b, d.a, g.a,
                                     d.b, &beta, output.pointer, d.c,
                                     output.pointer, d.c, &heuristic.algo,
                                     reinterpret_cast<void *>(st.workspace),
                                     workspaceBytes, gpuStream()),
                 "cublasLtMatmul");
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
    st.api = api; // Loaded (its status names too), whatever follows.
    cublasLtHandle_t handle = nullptr;
    if (!ltCheck(call, api->cublasLtCreate(&handle), "cublasLtCreate"))
      return false;
    CUdeviceptr workspace = 0;
    if (!gpuMalloc(call, kWorkspaceBytes, &workspace)) {
      api->cublasLtDestroy(handle);
      return false;
    }
    st.handle = handle;
    st.workspace = workspace;
  }
  size_t scratchBytes = gpuls::scaledGemmScratchBytes(g);
  if (scratchBytes && !st.scratch.reserve(call, scratchBytes))
    return false;
  return gpuls::runScaledGemm(call, g, st.scratch.ptr,
                              [&](const CublasLtFloat8Matmul &description,
                                  const gpuls::ScaledGemmOutput &output) {
                                return matmul(call, st, g, description, output);
                              });
}
