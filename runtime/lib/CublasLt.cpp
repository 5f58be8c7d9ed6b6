//===- CublasLt.cpp - GEMMs on cuBLASLt -----------------------------------===//
//
// Part of amp-mlir. ampGpuGemm (no epilogue) and ampGpuGemmEpilogue on
// cublasLtMatmul with its BIAS, RELU_BIAS and GELU_BIAS epilogues,
// descriptors and algorithm cached per shape, types and alignments, and
// cuBLAS's recommended 32 MiB workspace. ampGpuScaledGemm on cublasLtMatmul:
// FP8 operands (E4M3 x E4M3, E4M3 x E5M2, E5M2 x E4M3), f32 accumulation
// (CUBLAS_COMPUTE_32F), an f32, bf16 or f16 output, the per-tensor scales as
// cuBLASLt's A/B scale pointers, with one cached handle, workspace and f32
// scratch on the shared stream. cublasGemmEx has no FP8 types; cuBLASLt's FP8
// kernels need sm_89 or later and the "TN" layout, which ArgCheck.cpp enforces
// before this runs. The output's amax is not cuBLASLt's AMAX_D pointer, which
// cuBLASLt takes only for an FP8 D (an H200 refused it for a bf16 D with
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

#include <algorithm>
#include <array>
#include <map>
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

/// The heuristic's first algorithm (`found` 0 when it has none) for the
/// descriptors of `d`, under the runtime's workspace and the alignments,
/// in bytes, of cuBLASLt's A, B and C/D (d.preference made here).
bool findAlgorithm(const char *call, CublasLtState &st, Descriptors &d,
                   std::array<uint32_t, 3> alignment,
                   cublasLtMatmulHeuristicResult_t &heuristic, int &found) {
  const CublasLtApi *api = st.api;
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
  const struct {
    cublasLtMatmulPreferenceAttributes_t attribute;
    uint32_t bytes;
  } alignments[] = {{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, alignment[0]},
                    {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, alignment[1]},
                    {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, alignment[2]},
                    {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, alignment[2]}};
  for (const auto &entry : alignments)
    if (!ltCheck(call,
                 api->cublasLtMatmulPreferenceSetAttribute(
                     d.preference, entry.attribute, &entry.bytes,
                     sizeof(entry.bytes)),
                 "cublasLtMatmulPreferenceSetAttribute(MIN_ALIGNMENT)"))
      return false;
  return ltCheck(call,
                 api->cublasLtMatmulAlgoGetHeuristic(
                     st.handle, d.matmul, d.a, d.b, d.c, d.c, d.preference, 1,
                     &heuristic, &found),
                 "cublasLtMatmulAlgoGetHeuristic");
}

/// Makes `d.matmul`: f32 compute and scale, cuBLASLt's A and B transposed
/// as `opA` and `opB`.
bool makeMatmulDesc(const char *call, Descriptors &d, cublasOperation_t opA,
                    cublasOperation_t opB) {
  const CublasLtApi *api = d.api;
  return ltCheck(call,
                 api->cublasLtMatmulDescCreate(&d.matmul, CUBLAS_COMPUTE_32F,
                                               CUDA_R_32F),
                 "cublasLtMatmulDescCreate") &&
         ltCheck(call,
                 api->cublasLtMatmulDescSetAttribute(
                     d.matmul, CUBLASLT_MATMUL_DESC_TRANSA, &opA, sizeof(opA)),
                 "cublasLtMatmulDescSetAttribute(TRANSA)") &&
         ltCheck(call,
                 api->cublasLtMatmulDescSetAttribute(
                     d.matmul, CUBLASLT_MATMUL_DESC_TRANSB, &opB, sizeof(opB)),
                 "cublasLtMatmulDescSetAttribute(TRANSB)");
}

/// cublasLtMatmul of `description` (checked against cuBLASLt's rules by
/// runScaledGemm) into `output`, with the mutex held and the handle made.
bool matmul(const char *call, CublasLtState &st, const ScaledGemmArgs &g,
            const CublasLtFloat8Matmul &description,
            const gpuls::ScaledGemmOutput &output) {
  const CublasLtApi *api = st.api;
  Descriptors d(api);
  // cuBLASLt's A is our B and its B our A (above): the description's
  // A scale is our bScale, its B scale our aScale.
  if (!makeMatmulDesc(call, d, CUBLAS_OP_T, CUBLAS_OP_N) ||
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
  // Kernels that need more alignment than the operands have are excluded.
  int64_t dBytes = static_cast<int64_t>(gemmElementSize(description.dType));
  uint32_t dAlignment = alignmentOf(output.pointer, output.ld * dBytes, g.batch,
                                    output.stride * dBytes);
  cublasLtMatmulHeuristicResult_t heuristic = {};
  int found = 0;
  if (!findAlgorithm(call, st, d,
                     {alignmentOf(g.b, g.ldb, g.batch, g.strideB),
                      alignmentOf(g.a, g.lda, g.batch, g.strideA), dAlignment},
                     heuristic, found))
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
                                     kWorkspaceBytes, gpuStream()),
                 "cublasLtMatmul");
}

/// Creates the handle and the workspace on first use. Called with the mutex
/// held and the context current.
bool ensureHandle(const char *call, CublasLtState &st) {
  if (st.handle)
    return true;
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
  return true;
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
  if (!ensureHandle(call, st))
    return false;
  size_t scratchBytes = gpuls::scaledGemmScratchBytes(g);
  if (scratchBytes && !st.scratch.reserve(call, scratchBytes))
    return false;
  return gpuls::runScaledGemm(call, g, st.scratch.ptr,
                              [&](const CublasLtFloat8Matmul &description,
                                  const gpuls::ScaledGemmOutput &output) {
                                return matmul(call, st, g, description, output);
                              });
}

namespace {
/// The epilogue codes of runGemm beyond AmpGemmEpilogue's: none, and the
/// bias gradients of GemmBiasGrad (cuBLASLt's BGRADA of our B, BGRADB of
/// our A; their bias pointer is written).
constexpr int32_t kNoEpilogue = 0, kBiasGradOfB = -1, kBiasGradOfA = -2;

/// Whether runGemm's `epilogue` sets cuBLASLt's bias pointer: the bias
/// epilogues, and the bias gradients (where it is written; not one of
/// AmpGemmEpilogue's gradients, so epilogueAddsBias holds).
bool epilogueHasBiasPointer(int32_t epilogue) {
  return epilogue != kNoEpilogue && epilogueAddsBias(epilogue);
}

/// What selects a GEMM's cuBLASLt descriptors and algorithm: everything of
/// a GemmEpilogue call but its pointers, whose alignments count instead.
using GemmPlanKey = std::array<int64_t, 22>;

/// A GEMM's cuBLASLt descriptors and the heuristic's algorithm, made once
/// per GemmPlanKey and kept (as the handle) for the process.
struct GemmPlan {
  cublasLtMatmulDesc_t matmul = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo = {};
  /// The heuristic found no algorithm (kept, so that it is asked once).
  bool noKernel = false;
};

std::map<GemmPlanKey, GemmPlan> &gemmPlans() {
  static auto *plans = new std::map<GemmPlanKey, GemmPlan>; // Leaked, as the
  return *plans; // handle: see GpuContext.cpp.
}

GemmPlanKey getGemmPlanKey(const GemmEpilogueArgs &e) {
  auto bytes = [](int32_t type, int64_t count) {
    return count * static_cast<int64_t>(gemmElementSize(type));
  };
  return {e.transA, e.transB, e.batch, e.m, e.n, e.k, e.aType, e.lda,
          e.batch > 1 ? e.strideA : 0, e.bType, e.ldb,
          e.batch > 1 ? e.strideB : 0, e.cType, e.ldc,
          e.batch > 1 ? e.strideC : 0, e.beta != 0.0f, e.epilogue,
          alignmentOf(e.a, bytes(e.aType, e.lda), e.batch,
                      bytes(e.aType, e.strideA)),
          alignmentOf(e.b, bytes(e.bType, e.ldb), e.batch,
                      bytes(e.bType, e.strideB)),
          // C (the addend, or D in place) and D share this one.
          std::min(alignmentOf(e.c, bytes(e.cType, e.ldc), e.batch,
                               bytes(e.cType, e.strideC)),
                   alignmentOf(e.addend ? e.addend : e.c, bytes(e.cType, e.ldc),
                               e.batch, bytes(e.cType, e.strideC))),
          alignmentOf(e.bias, 0, 1, 0),
          !e.aux ? 0
          : epilogueAuxIsReluMask(e.epilogue)
              ? alignmentOf(e.aux, ampGemmReluMaskRowBits(e.n) / 8, e.batch,
                            e.m * ampGemmReluMaskRowBits(e.n) / 8)
              : alignmentOf(e.aux, bytes(e.cType, e.ldc), e.batch,
                            bytes(e.cType, e.strideC))};
}

/// The name of cuBLASLt's epilogue for runGemm's code `epilogue`.
const char *epilogueName(int32_t epilogue) {
  switch (epilogue) {
  case kNoEpilogue:
    return "DEFAULT";
  case kBiasGradOfB:
    return "BGRADA";
  case kBiasGradOfA:
    return "BGRADB";
  case AMP_GEMM_EPILOGUE_RELU_BIAS:
    return "RELU_BIAS";
  case AMP_GEMM_EPILOGUE_GELU_BIAS:
    return "GELU_BIAS";
  case AMP_GEMM_EPILOGUE_GELU_AUX_BIAS:
    return "GELU_AUX_BIAS";
  case AMP_GEMM_EPILOGUE_DGELU:
    return "DGELU";
  case AMP_GEMM_EPILOGUE_RELU_AUX_BIAS:
    return "RELU_AUX_BIAS";
  case AMP_GEMM_EPILOGUE_DRELU:
    return "DRELU";
  default:
    return "BIAS";
  }
}

/// Sets the int64 attribute `attribute` of `matmul` to `value`.
bool setInt64(const char *call, const CublasLtApi *api,
              cublasLtMatmulDesc_t matmul,
              cublasLtMatmulDescAttributes_t attribute, int64_t value,
              const char *what) {
  return ltCheck(call,
                 api->cublasLtMatmulDescSetAttribute(matmul, attribute, &value,
                                                     sizeof(value)),
                 what);
}

/// The aux output of GELU_AUX_BIAS, or input of DGELU (C's type, ldc and
/// strideC), or the ReLU mask of RELU_AUX_BIAS and DRELU (its leading
/// dimension and batch stride in bits: cuBLASLt's D is n x m, so a row of
/// ours is a column of its) on `matmul`: its layout once per plan
/// (`layout`), its pointer on every call.
bool setAux(const char *call, const CublasLtApi *api,
            cublasLtMatmulDesc_t matmul, const GemmEpilogueArgs &e,
            bool layout) {
  if (!epilogueUsesAux(e.epilogue))
    return true;
  bool mask = epilogueAuxIsReluMask(e.epilogue);
  int64_t ld = mask ? ampGemmReluMaskRowBits(e.n) : e.ldc;
  int64_t stride = mask ? e.m * ld : e.strideC;
  return (!layout ||
          (setInt64(call, api, matmul, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, ld,
                    "cublasLtMatmulDescSetAttribute(EPILOGUE_AUX_LD)") &&
           (e.batch == 1 ||
            setInt64(call, api, matmul,
                     CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, stride,
                     "cublasLtMatmulDescSetAttribute("
                     "EPILOGUE_AUX_BATCH_STRIDE)")))) &&
         setPointer(call, api, matmul,
                    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, e.aux,
                    "cublasLtMatmulDescSetAttribute(EPILOGUE_AUX_POINTER)");
}

/// Makes the plan of `e` (whose key is `key`) into `plan`: descriptors in
/// the column-major view (CublasLt.cpp's header: cuBLASLt's A is our B,
/// its B our A, D is n x m) with the epilogue, then the heuristic's first
/// algorithm for them. On failure, what was made is destroyed.
bool makeGemmPlan(const char *call, CublasLtState &st,
                  const GemmEpilogueArgs &e, const GemmPlanKey &key,
                  GemmPlan &plan) {
  const CublasLtApi *api = st.api;
  Descriptors d(api);
  cublasOperation_t opA = e.transB ? CUBLAS_OP_T : CUBLAS_OP_N,
                    opB = e.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasLtEpilogue_t epilogue =
      e.epilogue == kNoEpilogue                   ? CUBLASLT_EPILOGUE_DEFAULT
      : e.epilogue == kBiasGradOfB                ? CUBLASLT_EPILOGUE_BGRADA
      : e.epilogue == kBiasGradOfA                ? CUBLASLT_EPILOGUE_BGRADB
      : e.epilogue == AMP_GEMM_EPILOGUE_RELU_BIAS ? CUBLASLT_EPILOGUE_RELU_BIAS
      : e.epilogue == AMP_GEMM_EPILOGUE_GELU_BIAS ? CUBLASLT_EPILOGUE_GELU_BIAS
      : e.epilogue == AMP_GEMM_EPILOGUE_GELU_AUX_BIAS
          ? CUBLASLT_EPILOGUE_GELU_AUX_BIAS
      : e.epilogue == AMP_GEMM_EPILOGUE_DGELU ? CUBLASLT_EPILOGUE_DGELU
      : e.epilogue == AMP_GEMM_EPILOGUE_RELU_AUX_BIAS
          ? CUBLASLT_EPILOGUE_RELU_AUX_BIAS
      : e.epilogue == AMP_GEMM_EPILOGUE_DRELU ? CUBLASLT_EPILOGUE_DRELU
                                              : CUBLASLT_EPILOGUE_BIAS;
  if (!makeMatmulDesc(call, d, opA, opB) ||
      !ltCheck(call,
               api->cublasLtMatmulDescSetAttribute(
                   d.matmul, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                   sizeof(epilogue)),
               "cublasLtMatmulDescSetAttribute(EPILOGUE)") ||
      // The heuristic reads the bias pointer's alignment (the key's).
      (epilogueHasBiasPointer(e.epilogue) &&
       !setPointer(call, api, d.matmul, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                   e.bias, "cublasLtMatmulDescSetAttribute(BIAS_POINTER)")) ||
      !setAux(call, api, d.matmul, e, /*layout=*/true))
    return false;
  if (!makeLayout(call, api, &d.a, toCudaType(e.bType), e.transB ? e.k : e.n,
                  e.transB ? e.n : e.k, e.ldb, e.batch, e.strideB) ||
      !makeLayout(call, api, &d.b, toCudaType(e.aType), e.transA ? e.m : e.k,
                  e.transA ? e.k : e.m, e.lda, e.batch, e.strideA) ||
      !makeLayout(call, api, &d.c, toCudaType(e.cType), e.n, e.m, e.ldc,
                  e.batch, e.strideC))
    return false;
  // The key's alignments: cuBLASLt's A is our B, its B our A.
  cublasLtMatmulHeuristicResult_t heuristic = {};
  int found = 0;
  if (!findAlgorithm(call, st, d,
                     {static_cast<uint32_t>(key[18]),
                      static_cast<uint32_t>(key[17]),
                      static_cast<uint32_t>(key[19])},
                     heuristic, found))
    return false;
  if (found == 0) {
    plan.noKernel = true;
    return setError(call,
                    "cuBLASLt has no kernel for %s x %s -> %s with the %s "
                    "epilogue, m = %lld, n = %lld, k = %lld",
                    dtypeName(e.aType), dtypeName(e.bType), dtypeName(e.cType),
                    epilogueName(e.epilogue), static_cast<long long>(e.m),
                    static_cast<long long>(e.n), static_cast<long long>(e.k));
  }
  // The plan keeps the descriptors; the preference goes with `d`.
  plan.matmul = d.matmul;
  plan.a = d.a;
  plan.b = d.b;
  plan.c = d.c;
  plan.algo = heuristic.algo;
  d.matmul = nullptr;
  d.a = d.b = d.c = nullptr;
  return true;
}
} // namespace

/// A GEMM of `e` (epilogue 0: none) on cublasLtMatmul (arguments already
/// checked): the plan of its shape, types, layouts and alignments is made
/// on the first call and reused; each call sets its bias pointer and runs
/// it. False with the error set, and `noKernel` where cuBLASLt has no
/// algorithm for it (asked once per plan key).
static bool runGemm(const char *call, const GemmEpilogueArgs &e,
                    bool &noKernel) {
  noKernel = false;
  if (!gpuInit(call) ||
      !gpuCheckTypesSupported(call, {e.aType, e.bType, e.cType}))
    return false;
  CublasLtState &st = cublasLtState();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (!ensureHandle(call, st))
    return false;
  GemmPlanKey key = getGemmPlanKey(e);
  auto found = gemmPlans().find(key);
  if (found == gemmPlans().end()) {
    GemmPlan plan;
    if (!makeGemmPlan(call, st, e, key, plan) && !plan.noKernel)
      return false;
    found = gemmPlans().emplace(key, plan).first;
  }
  const GemmPlan &plan = found->second;
  if (plan.noKernel) {
    noKernel = true;
    return setError(call, "cuBLASLt has no kernel for this GEMM");
  }
  const CublasLtApi *api = st.api;
  const float alpha = 1.0f, beta = e.beta;
  return (!epilogueHasBiasPointer(e.epilogue) ||
          setPointer(call, api, plan.matmul, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                     e.bias, "cublasLtMatmulDescSetAttribute(BIAS_POINTER)")) &&
         setAux(call, api, plan.matmul, e, /*layout=*/false) &&
         ltCheck(call,
                 api->cublasLtMatmul(
                     st.handle, plan.matmul, &alpha, e.b, plan.a, e.a, plan.b,
                     &beta, e.addend ? e.addend : e.c, plan.c, e.c, plan.c,
                     &plan.algo, reinterpret_cast<void *>(st.workspace),
                     kWorkspaceBytes, gpuStream()),
                 "cublasLtMatmul");
}

/// ampGpuGemmEpilogue (arguments already checked), after the GELU aux
/// epilogues' own rules (cuBLASLt's: the aux leading dimension and batch
/// stride multiples of 8; a ReLU mask's are multiples of 128 bits by
/// construction).
bool amp::rt::cuda::GemmEpilogue(const char *call, const GemmEpilogueArgs &e,
                                 NoResult &) {
  if (epilogueUsesAux(e.epilogue) && !epilogueAuxIsReluMask(e.epilogue) &&
      (e.ldc % 8 != 0 || (e.batch > 1 && e.strideC % 8 != 0)))
    return setError(call,
                    "cuBLASLt's %s needs ldc (%lld) and, batched, strideC "
                    "(%lld) to be multiples of 8",
                    epilogueName(e.epilogue), static_cast<long long>(e.ldc),
                    static_cast<long long>(e.strideC));
  bool noKernel;
  return runGemm(call, e, noKernel);
}

/// The GemmEpilogue arguments of the GEMM `g` with `epilogue` (one of
/// AmpGemmEpilogue or runGemm's own) and its bias pointer.
static GemmEpilogueArgs withEpilogue(const GemmArgs &g, int32_t epilogue,
                                     const void *bias) {
  return {g.transA, g.transB,  g.batch, g.m,       g.n,    g.k,
          g.a,      g.aType,   g.lda,   g.strideA, g.b,    g.bType,
          g.ldb,    g.strideB, g.c,     g.cType,   g.ldc,  g.strideC,
          g.beta,   epilogue,  bias,    nullptr,   nullptr};
}

bool amp::rt::gemmOnCublasLt(const char *call, const GemmArgs &g,
                             bool &noKernel) {
  return runGemm(call, withEpilogue(g, kNoEpilogue, nullptr), noKernel);
}

/// ampGpuGemmBiasGrad (arguments checked: batch 1, B not transposed or A
/// transposed): cuBLASLt's BGRADA epilogue, which sums cuBLASLt's A (our B,
/// n x k column-major) over k into the bias pointer, of D's type, or
/// BGRADB, which sums its B (our A, m x k column-major, read transposed)
/// over k.
bool amp::rt::cuda::GemmBiasGrad(const char *call, const GemmBiasGradArgs &g,
                                 NoResult &) {
  bool noKernel;
  return runGemm(call,
                 withEpilogue(getGemmArgs(g),
                              g.operand == AMP_GEMM_BIAS_GRAD_A ? kBiasGradOfA
                                                                : kBiasGradOfB,
                              g.biasGrad),
                 noKernel);
}
