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
//    NHWC/FHWC (amp-channels-last's form) is KRSC and is read as it is;
//  - f16/bf16 inputs with f32 output: the legacy API wants x, w and y of one
//    type and has no half-in/float-out configuration, so x and w are widened
//    (exactly, cuBLAS, Cublas.cpp) into cached f32 buffers and an f32
//    convolution writes y directly; nothing is rounded through 16 bits
//    (planConvTypes, ConvTypePlan.h, says which buffers are converted).
//
// The handle, the lock, the plan cache, the scratch buffers and the helpers
// are shared with the backward convolutions (CudnnBackward.cpp) through
// CudnnCommon.h, and defined here.
//
//===----------------------------------------------------------------------===//

#include "CudnnCommon.h"
#include "LibraryCallEntries.h"

#include <atomic>
#include <vector>

using namespace amp::rt;
using namespace amp::rt::dnn;

namespace {
std::atomic<int> gExhaustive{-1}; // -1: not decided yet (read the env).
} // namespace

bool amp::rt::dnn::exhaustiveSearch() {
  int value = gExhaustive.load(std::memory_order_relaxed);
  if (value < 0) {
    value = envFlag("AMP_CUDNN_EXHAUSTIVE_SEARCH", false) ? 1 : 0;
    int expected = -1;
    if (!gExhaustive.compare_exchange_strong(expected, value))
      value = expected;
  }
  return value != 0;
}

PlanKey amp::rt::dnn::getPlanKey(ConvDirection direction, const ConvArgs &v,
                                 bool exhaustive) {
  return {static_cast<int64_t>(direction),
          v.layout,
          v.n,
          v.c,
          v.h,
          v.w,
          v.f,
          v.kh,
          v.kw,
          v.oh,
          v.ow,
          v.padTop,
          v.padLeft,
          v.strideH,
          v.strideW,
          v.dilH,
          v.dilW,
          v.groups,
          v.xType,
          v.wType,
          v.yType,
          exhaustive};
}

amp::rt::dnn::ConvPlan::~ConvPlan() {
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

CudnnState &amp::rt::dnn::cudnnState() {
  static CudnnState *state = new CudnnState; // Leaked: see GpuContext.cpp.
  return *state;
}

bool amp::rt::dnn::ensureCudnnHandle(const char *call, CudnnState &st) {
  if (st.handle)
    return true;
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
  return true;
}

bool amp::rt::dnn::cudnnCheck(const char *call, const CudnnApi *api,
                              cudnnStatus_t status, const char *what) {
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

cudnnDataType_t amp::rt::dnn::cudnnType(int32_t type) {
  switch (type) {
  case AMP_DTYPE_F16:
    return CUDNN_DATA_HALF;
  case AMP_DTYPE_BF16:
    return CUDNN_DATA_BFLOAT16;
  default:
    return CUDNN_DATA_FLOAT;
  }
}

const char *amp::rt::dnn::mathTypeName(cudnnMathType_t type) {
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

bool amp::rt::dnn::createConvDescriptors(const char *call, const CudnnApi *api,
                                         const ConvArgs &v,
                                         const ConvTypePlan &types,
                                         ConvPlan &plan) {
  plan.api = api;
  auto i32 = [](int64_t value) { return static_cast<int>(value); };
  cudnnDataType_t type = cudnnType(types.computeType);
  // NHWC/HWCF (filter transformed to KRSC) and NHWC/FHWC (KRSC itself).
  bool nhwc = v.layout != AMP_CONV_NCHW_FCHW;
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
      // NCHW: FCHW = KCRS; NHWC: KRSC (the transposed HWCF copy). A
      // grouped convolution's filter has c/groups input channels.
      !cudnnCheck(call, api,
                  api->cudnnSetFilter4dDescriptor(plan.wDesc, type, format,
                                                  i32(v.f), i32(v.c / v.groups),
                                                  i32(v.kh), i32(v.kw)),
                  "cudnnSetFilter4dDescriptor") ||
      !cudnnCheck(call, api,
                  api->cudnnSetConvolution2dDescriptor(
                      plan.convDesc, i32(v.padTop), i32(v.padLeft),
                      i32(v.strideH), i32(v.strideW), i32(v.dilH), i32(v.dilW),
                      CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                  "cudnnSetConvolution2dDescriptor") ||
      !cudnnCheck(
          call, api,
          api->cudnnSetConvolutionGroupCount(plan.convDesc, i32(v.groups)),
          "cudnnSetConvolutionGroupCount"))
    return false;
  cudnnMathType_t requested =
      types.preferFma ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH;
  return cudnnCheck(call, api,
                    api->cudnnSetConvolutionMathType(plan.convDesc, requested),
                    "cudnnSetConvolutionMathType");
}

namespace {
bool buildPlan(const char *call, const CudnnApi *api, cudnnHandle_t handle,
               const ConvArgs &v, bool exhaustive, ConvPlan &plan) {
  auto i32 = [](int64_t value) { return static_cast<int>(value); };
  ConvTypePlan types = planConvTypes(v.xType, v.wType, v.yType);
  cudnnDataType_t type = cudnnType(types.computeType);
  if (!createConvDescriptors(call, api, v, types, plan))
    return false;

  if (v.layout == AMP_CONV_NHWC_HWCF) {
    // Element (k, c, r, s) of HWCF sits at ((r*S + s)*C + c)*K + k; of KRSC
    // at ((k*R + r)*S + s)*C + c. Dims are given as (n=K, c=C, h=R, w=S);
    // C is the filter's channels, c/groups.
    int K = i32(v.f), C = i32(v.c / v.groups), R = i32(v.kh), S = i32(v.kw);
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
  if (!pickAlgorithm(call, "forward", perf.data(), returned, types.preferFma,
                     &chosen))
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
  if (!ensureCudnnHandle(call, st))
    return false;
  const CudnnApi *api = st.api;

  bool exhaustive = exhaustiveSearch();
  const ConvPlan *found = findOrBuildPlan(
      st, getPlanKey(ConvDirection::Forward, v, exhaustive),
      [&](ConvPlan &plan) {
        return buildPlan(call, api, st.handle, v, exhaustive, plan);
      });
  if (!found)
    return false;
  const ConvPlan &plan = *found;

  const float one = 1.0f, zero = 0.0f;
  ConvTypePlan types = planConvTypes(v.xType, v.wType, v.yType);
  size_t elementSize = dtypeSize(types.computeType);
  int64_t inputCount = v.n * v.c * v.h * v.w;
  int64_t filterCount = v.f * (v.c / v.groups) * v.kh * v.kw;
  // Exact widening of 16-bit inputs for an f32 output (queued on the shared
  // stream before the convolution; the cuDNN lock keeps the buffers ours).
  const void *input = nullptr;
  const void *weights = nullptr;
  if (!widenInput(call, types.widenX, v.x, v.xType, inputCount, st.wideX,
                  input) ||
      !widenInput(call, types.widenW, v.wt, v.wType, filterCount, st.wideW,
                  weights))
    return false;
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

bool amp::rt::dnn::widenInput(const char *call, bool widen, const void *input,
                              int32_t type, int64_t count,
                              ScratchBuffer &scratch, const void *&out) {
  out = input;
  if (!widen)
    return true;
  if (!scratch.reserve(call, static_cast<size_t>(count) * 4) ||
      !gpuWidenToF32(call, reinterpret_cast<CUdeviceptr>(input), type,
                     scratch.ptr, count, 0.0f))
    return false;
  out = reinterpret_cast<const void *>(scratch.ptr);
  return true;
}

extern "C" void ampGpuSetConvExhaustiveSearch(int enable) {
  gExhaustive.store(enable ? 1 : 0, std::memory_order_relaxed);
}
