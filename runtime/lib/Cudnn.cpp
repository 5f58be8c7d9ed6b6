//===- Cudnn.cpp - 2-D convolution on the cuDNN legacy API ----------------===//
//
// Part of amp-mlir. ampGpuConv2d on cudnnConvolutionForward (cuDNN 9 still
// exports the legacy API; it is deprecated in favour of the graph API):
//  - one handle bound to the shared stream; descriptors, the algorithm choice
//    and its workspace size cached per (layout, shape, parameters, types,
//    search mode);
//  - algorithm choice by cudnnGetConvolutionForwardAlgorithm_v7 heuristics,
//    or by cudnnFindConvolutionForwardAlgorithm benchmarks when exhaustive
//    search is on (ampGpuSetConvExhaustiveSearch or
//    AMP_CUDNN_EXHAUSTIVE_SEARCH=1, like Paddle's
//    FLAGS_cudnn_exhaustive_search);
//  - NHWC/HWCF: cuDNN's NHWC filter format is KRSC, so the HWCF filter is
//    transposed into a cached device buffer with cudnnTransformTensor
//    (strided 4-D descriptors) on every call (weights may change);
//  - f16/bf16 inputs with f32 output: the legacy API wants x, w and y of one
//    type and has no half-in/float-out configuration, so x and w are widened
//    (exactly, cuBLAS, Cublas.cpp) into cached f32 buffers and an f32
//    convolution writes y directly; nothing is rounded through 16 bits
//    (planConvTypes, ConvTypePlan.h, says which buffers are converted).
//
//===----------------------------------------------------------------------===//

#include "ConvTypePlan.h"
#include "GpuContext.h"
#include "Internal.h"
#include "LibraryCallEntries.h"

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

using namespace amp::rt;

namespace {

std::atomic<int> gExhaustive{-1}; // -1: not decided yet (read the env).

bool exhaustiveSearch() {
  int value = gExhaustive.load(std::memory_order_relaxed);
  if (value < 0) {
    value = envFlag("AMP_CUDNN_EXHAUSTIVE_SEARCH", false) ? 1 : 0;
    int expected = -1;
    if (!gExhaustive.compare_exchange_strong(expected, value))
      value = expected;
  }
  return value != 0;
}

using PlanKey = std::array<int64_t, 20>;

struct ConvPlan {
  const CudnnApi *api = nullptr;
  cudnnTensorDescriptor_t xDesc = nullptr, yDesc = nullptr;
  cudnnFilterDescriptor_t wDesc = nullptr;
  cudnnConvolutionDescriptor_t convDesc = nullptr;
  // NHWC only: the HWCF filter and its KRSC copy as strided 4-D tensors.
  cudnnTensorDescriptor_t hwcfDesc = nullptr, krscDesc = nullptr;
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  size_t workspaceBytes = 0;

  ~ConvPlan() {
    if (!api)
      return;
    for (cudnnTensorDescriptor_t desc : {xDesc, yDesc, hwcfDesc, krscDesc})
      if (desc)
        api->cudnnDestroyTensorDescriptor(desc);
    if (wDesc)
      api->cudnnDestroyFilterDescriptor(wDesc);
    if (convDesc)
      api->cudnnDestroyConvolutionDescriptor(convDesc);
  }
};

struct CudnnState {
  std::mutex mutex; // Serialises handle, cache and scratch buffers.
  const CudnnApi *api = nullptr;
  cudnnHandle_t handle = nullptr;
  std::map<PlanKey, std::unique_ptr<ConvPlan>> plans;
  // filter: the KRSC copy (NHWC); wideX/wideW: f32 copies of 16-bit x and w
  // when the output is f32 (ConvTypePlan.h).
  ScratchBuffer workspace, filter, wideX, wideW;
};

CudnnState &cudnnState() {
  static CudnnState *state = new CudnnState; // Leaked: see GpuContext.cpp.
  return *state;
}

bool cudnnCheck(const char *call, const CudnnApi *api, cudnnStatus_t status,
                const char *what) {
  if (status == CUDNN_STATUS_SUCCESS)
    return true;
  const char *text = api->cudnnGetErrorString(status);
  setError(call, "%s failed: %s", what, text ? text : "unknown cudnnStatus_t");
  if (api->cudnnGetLastErrorString) {
    char detail[1024] = {0};
    api->cudnnGetLastErrorString(detail, sizeof(detail));
    if (detail[0])
      appendError(" (%s)", detail);
  }
  return false;
}

cudnnDataType_t cudnnType(int32_t type) {
  switch (type) {
  case AMP_DTYPE_F16:
    return CUDNN_DATA_HALF;
  case AMP_DTYPE_BF16:
    return CUDNN_DATA_BFLOAT16;
  default:
    return CUDNN_DATA_FLOAT;
  }
}

const char *mathTypeName(cudnnMathType_t type) {
  switch (type) {
  case CUDNN_DEFAULT_MATH:
    return "default";
  case CUDNN_TENSOR_OP_MATH:
    return "tensor-op";
  case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION:
    return "tensor-op-allow-conversion";
  case CUDNN_FMA_MATH:
    return "fma";
  }
  return "?";
}

/// Picks the first successful candidate; for f32 data prefers FMA kernels
/// (true fp32, like the cuBLAS path that does not use TF32).
bool pickAlgorithm(const char *call, const cudnnConvolutionFwdAlgoPerf_t *perf,
                   int count, bool preferFma,
                   cudnnConvolutionFwdAlgoPerf_t *out) {
  const cudnnConvolutionFwdAlgoPerf_t *first = nullptr;
  for (int i = 0; i < count; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS)
      continue;
    if (!first)
      first = &perf[i];
    if (!preferFma || perf[i].mathType == CUDNN_FMA_MATH) {
      *out = perf[i];
      return true;
    }
  }
  if (!first)
    return setError(call,
                    "cuDNN found no forward algorithm for this "
                    "convolution (%d candidates, none usable)",
                    count);
  *out = *first;
  return true;
}

bool buildPlan(const char *call, const CudnnApi *api, cudnnHandle_t handle,
               const ConvArgs &v, bool exhaustive, ConvPlan &plan) {
  plan.api = api;
  auto i32 = [](int64_t value) { return static_cast<int>(value); };
  ConvTypePlan types = planConvTypes(v.xType, v.wType, v.yType);
  cudnnDataType_t type = cudnnType(types.computeType);
  bool nhwc = v.layout == AMP_CONV_NHWC_HWCF;
  cudnnTensorFormat_t format = nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
  if (!cudnnCheck(call, api, api->cudnnCreateTensorDescriptor(&plan.xDesc),
                  "cudnnCreateTensorDescriptor") ||
      !cudnnCheck(call, api, api->cudnnCreateTensorDescriptor(&plan.yDesc),
                  "cudnnCreateTensorDescriptor") ||
      !cudnnCheck(call, api, api->cudnnCreateFilterDescriptor(&plan.wDesc),
                  "cudnnCreateFilterDescriptor") ||
      !cudnnCheck(call, api,
                  api->cudnnCreateConvolutionDescriptor(&plan.convDesc),
                  "cudnnCreateConvolutionDescriptor"))
    return false;
  // Every descriptor has the compute type: f32 when y is f32 (16-bit x and w
  // are widened first), else the common 16-bit type.
  if (!cudnnCheck(call, api,
                  api->cudnnSetTensor4dDescriptor(plan.xDesc, format, type,
                                                  i32(v.n), i32(v.c), i32(v.h),
                                                  i32(v.w)),
                  "cudnnSetTensor4dDescriptor(x)") ||
      !cudnnCheck(call, api,
                  api->cudnnSetTensor4dDescriptor(plan.yDesc, format, type,
                                                  i32(v.n), i32(v.f), i32(v.oh),
                                                  i32(v.ow)),
                  "cudnnSetTensor4dDescriptor(y)") ||
      // NCHW: FCHW = KCRS; NHWC: KRSC (the transposed HWCF copy).
      !cudnnCheck(call, api,
                  api->cudnnSetFilter4dDescriptor(plan.wDesc, type, format,
                                                  i32(v.f), i32(v.c), i32(v.kh),
                                                  i32(v.kw)),
                  "cudnnSetFilter4dDescriptor") ||
      !cudnnCheck(call, api,
                  api->cudnnSetConvolution2dDescriptor(
                      plan.convDesc, i32(v.padTop), i32(v.padLeft),
                      i32(v.strideH), i32(v.strideW), i32(v.dilH), i32(v.dilW),
                      CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                  "cudnnSetConvolution2dDescriptor"))
    return false;
  cudnnMathType_t requested =
      types.preferFma ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH;
  if (!cudnnCheck(call, api,
                  api->cudnnSetConvolutionMathType(plan.convDesc, requested),
                  "cudnnSetConvolutionMathType"))
    return false;

  if (nhwc) {
    // Element (k, c, r, s) of HWCF sits at ((r*S + s)*C + c)*K + k; of KRSC
    // at ((k*R + r)*S + s)*C + c. Dims are given as (n=K, c=C, h=R, w=S).
    int K = i32(v.f), C = i32(v.c), R = i32(v.kh), S = i32(v.kw);
    if (!cudnnCheck(call, api, api->cudnnCreateTensorDescriptor(&plan.hwcfDesc),
                    "cudnnCreateTensorDescriptor") ||
        !cudnnCheck(call, api, api->cudnnCreateTensorDescriptor(&plan.krscDesc),
                    "cudnnCreateTensorDescriptor") ||
        !cudnnCheck(call, api,
                    api->cudnnSetTensor4dDescriptorEx(plan.hwcfDesc, type, K, C,
                                                      R, S, 1, K, S * C * K,
                                                      C * K),
                    "cudnnSetTensor4dDescriptorEx(HWCF filter)") ||
        !cudnnCheck(call, api,
                    api->cudnnSetTensor4dDescriptorEx(plan.krscDesc, type, K, C,
                                                      R, S, R * S * C, 1, S * C,
                                                      C),
                    "cudnnSetTensor4dDescriptorEx(KRSC filter)"))
      return false;
  }

  int maxCount = 0;
  if (!cudnnCheck(
          call, api,
          api->cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &maxCount),
          "cudnnGetConvolutionForwardAlgorithmMaxCount"))
    return false;
  if (maxCount < 1)
    maxCount = 1;
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(maxCount);
  int returned = 0;
  if (exhaustive) {
    // Benchmarks every algorithm (blocking; cuDNN allocates its own buffers,
    // so the caller's y is not touched).
    if (!cudnnCheck(call, api,
                    api->cudnnFindConvolutionForwardAlgorithm(
                        handle, plan.xDesc, plan.wDesc, plan.convDesc,
                        plan.yDesc, maxCount, &returned, perf.data()),
                    "cudnnFindConvolutionForwardAlgorithm"))
      return false;
  } else if (!cudnnCheck(call, api,
                         api->cudnnGetConvolutionForwardAlgorithm_v7(
                             handle, plan.xDesc, plan.wDesc, plan.convDesc,
                             plan.yDesc, maxCount, &returned, perf.data()),
                         "cudnnGetConvolutionForwardAlgorithm_v7")) {
    return false;
  }
  cudnnConvolutionFwdAlgoPerf_t chosen{};
  if (!pickAlgorithm(call, perf.data(), returned, types.preferFma, &chosen))
    return false;
  // The math type of the chosen result must be set on the descriptor.
  if (!cudnnCheck(
          call, api,
          api->cudnnSetConvolutionMathType(plan.convDesc, chosen.mathType),
          "cudnnSetConvolutionMathType") ||
      !cudnnCheck(call, api,
                  api->cudnnGetConvolutionForwardWorkspaceSize(
                      handle, plan.xDesc, plan.wDesc, plan.convDesc, plan.yDesc,
                      chosen.algo, &plan.workspaceBytes),
                  "cudnnGetConvolutionForwardWorkspaceSize"))
    return appendError(" (algorithm %d, math %s)",
                       static_cast<int>(chosen.algo),
                       mathTypeName(chosen.mathType));
  plan.algo = chosen.algo;
  return true;
}

} // namespace

/// ampGpuConv2d on cuDNN (arguments already checked).
bool amp::rt::cuda::Conv(const char *call, const ConvArgs &v, NoResult &) {
  const DriverApi *drv = gpuInit(call);
  if (!drv || !gpuCheckTypesSupported(call, {v.xType, v.wType, v.yType}))
    return false;
  CudnnState &st = cudnnState();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (!st.handle) {
    const CudnnApi *api = loadCudnn(call);
    if (!api)
      return false;
    cudnnHandle_t handle = nullptr;
    if (!cudnnCheck(call, api, api->cudnnCreate(&handle), "cudnnCreate"))
      return false;
    if (!cudnnCheck(call, api, api->cudnnSetStream(handle, gpuStream()),
                    "cudnnSetStream"))
      return false;
    st.api = api;
    st.handle = handle;
  }
  const CudnnApi *api = st.api;

  bool exhaustive = exhaustiveSearch();
  PlanKey key = {v.layout, v.n,       v.c,       v.h,       v.w,
                 v.f,      v.kh,      v.kw,      v.oh,      v.ow,
                 v.padTop, v.padLeft, v.strideH, v.strideW, v.dilH,
                 v.dilW,   v.xType,   v.wType,   v.yType,   exhaustive};
  auto it = st.plans.find(key);
  if (it == st.plans.end()) {
    auto plan = std::make_unique<ConvPlan>();
    if (!buildPlan(call, api, st.handle, v, exhaustive, *plan))
      return false;
    it = st.plans.emplace(key, std::move(plan)).first;
  }
  const ConvPlan &plan = *it->second;

  const float one = 1.0f, zero = 0.0f;
  ConvTypePlan types = planConvTypes(v.xType, v.wType, v.yType);
  size_t elementSize = dtypeSize(types.computeType);
  int64_t inputCount = v.n * v.c * v.h * v.w;
  int64_t filterCount = v.f * v.c * v.kh * v.kw;
  // Exact widening of 16-bit inputs for an f32 output (queued on the shared
  // stream before the convolution; the cuDNN lock keeps the buffers ours).
  const void *input = v.x;
  const void *weights = v.wt;
  if (types.widenX) {
    if (!st.wideX.reserve(call, static_cast<size_t>(inputCount) * 4) ||
        !gpuWidenToF32(call, reinterpret_cast<CUdeviceptr>(v.x), v.xType,
                       st.wideX.ptr, inputCount, 0.0f))
      return false;
    input = reinterpret_cast<const void *>(st.wideX.ptr);
  }
  if (types.widenW) {
    if (!st.wideW.reserve(call, static_cast<size_t>(filterCount) * 4) ||
        !gpuWidenToF32(call, reinterpret_cast<CUdeviceptr>(v.wt), v.wType,
                       st.wideW.ptr, filterCount, 0.0f))
      return false;
    weights = reinterpret_cast<const void *>(st.wideW.ptr);
  }
  const void *filter = weights;
  if (plan.krscDesc) {
    if (!st.filter.reserve(call,
                           static_cast<size_t>(filterCount) * elementSize) ||
        !cudnnCheck(call, api,
                    api->cudnnTransformTensor(
                        st.handle, &one, plan.hwcfDesc, weights, &zero,
                        plan.krscDesc, reinterpret_cast<void *>(st.filter.ptr)),
                    "cudnnTransformTensor(HWCF -> KRSC filter)"))
      return false;
    filter = reinterpret_cast<const void *>(st.filter.ptr);
  }
  if (plan.workspaceBytes && !st.workspace.reserve(call, plan.workspaceBytes))
    return false;
  void *workspace = reinterpret_cast<void *>(st.workspace.ptr);

  // y has the compute type (ConvTypePlan::writesYDirectly): cuDNN applies
  // beta itself, in f32.
  const float beta = v.beta;
  if (!cudnnCheck(call, api,
                  api->cudnnConvolutionForward(
                      st.handle, &one, plan.xDesc, input, plan.wDesc, filter,
                      plan.convDesc, plan.algo, workspace, plan.workspaceBytes,
                      &beta, plan.yDesc, v.y),
                  "cudnnConvolutionForward"))
    return appendError(" (algorithm %d)", static_cast<int>(plan.algo));
  return true;
}

extern "C" void ampGpuSetConvExhaustiveSearch(int enable) {
  gExhaustive.store(enable ? 1 : 0, std::memory_order_relaxed);
}
