//===- CudnnBackward.cpp - the gradients of the cuDNN convolution ---------===//
//
// Part of amp-mlir. ampGpuConv2dBackwardData on cudnnConvolutionBackwardData
// and ampGpuConv2dBackwardFilter on cudnnConvolutionBackwardFilter (cuDNN's
// legacy API, as ampGpuConv2d in Cudnn.cpp, whose handle, lock, plan cache,
// scratch buffers and helpers they share through CudnnCommon.h):
//  - NCHW/FCHW, or NHWC/FHWC (cuDNN's NHWC tensors and KRSC filter; checked
//    before): the descriptors are the forward convolution's (x n x c x h x
//    w, y n x f x oh x ow, w f x c/groups x kh x kw in the layout's order,
//    and its group count), whichever tensor each one holds here
//    (dx in x's for the data gradient, dy in y's, dw in w's for the filter
//    gradient);
//  - descriptors, the algorithm and its workspace size cached per
//    (direction, shape, parameters, types, search mode);
//  - algorithm choice by cudnnGetConvolutionBackward{Data,Filter}Algorithm_v7
//    heuristics, or by cudnnFindConvolutionBackward{Data,Filter}Algorithm
//    benchmarks when exhaustive search is on (ampGpuSetConvExhaustiveSearch
//    or AMP_CUDNN_EXHAUSTIVE_SEARCH=1); f32 data prefers FMA kernels;
//  - f16/bf16 inputs with an f32 output: the two inputs are widened exactly
//    into the shared f32 scratch buffers and an f32 convolution writes the
//    output directly, applying beta itself (planConvTypes, ConvTypePlan.h).
//
//===----------------------------------------------------------------------===//

#include "CudnnCommon.h"
#include "LibraryCallEntries.h"

#include <algorithm>
#include <vector>

using namespace amp::rt;
using namespace amp::rt::dnn;

namespace {

/// The plan of the data gradient of `v` (the forward view: dy as x, wt as
/// wt, dx as y).
bool buildBackwardDataPlan(const char *call, const CudnnApi *api,
                           cudnnHandle_t handle, const ConvArgs &v,
                           bool exhaustive, ConvPlan &plan) {
  ConvTypePlan types = planConvTypes(v.xType, v.wType, v.yType);
  if (!createConvDescriptors(call, api, v, types, plan))
    return false;
  int maxCount = 0;
  if (!cudnnCheck(call, api,
                  api->cudnnGetConvolutionBackwardDataAlgorithmMaxCount(
                      handle, &maxCount),
                  "cudnnGetConvolutionBackwardDataAlgorithmMaxCount"))
    return false;
  std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(std::max(maxCount, 1));
  int requested = static_cast<int>(perf.size()), returned = 0;
  // dx is described by xDesc, dy by yDesc.
  if (exhaustive) {
    // Benchmarks every algorithm (blocking; cuDNN allocates its own buffers,
    // so the caller's dx is not touched).
    if (!cudnnCheck(call, api,
                    api->cudnnFindConvolutionBackwardDataAlgorithm(
                        handle, plan.wDesc, plan.yDesc, plan.convDesc,
                        plan.xDesc, requested, &returned, perf.data()),
                    "cudnnFindConvolutionBackwardDataAlgorithm"))
      return false;
  } else if (!cudnnCheck(call, api,
                         api->cudnnGetConvolutionBackwardDataAlgorithm_v7(
                             handle, plan.wDesc, plan.yDesc, plan.convDesc,
                             plan.xDesc, requested, &returned, perf.data()),
                         "cudnnGetConvolutionBackwardDataAlgorithm_v7")) {
    return false;
  }
  cudnnConvolutionBwdDataAlgoPerf_t chosen{};
  if (!pickAlgorithm(call, "backward-data", perf.data(), returned,
                     types.preferFma, &chosen))
    return false;
  // The math type of the chosen result must be set on the descriptor.
  if (!cudnnCheck(
          call, api,
          api->cudnnSetConvolutionMathType(plan.convDesc, chosen.mathType),
          "cudnnSetConvolutionMathType") ||
      !cudnnCheck(call, api,
                  api->cudnnGetConvolutionBackwardDataWorkspaceSize(
                      handle, plan.wDesc, plan.yDesc, plan.convDesc, plan.xDesc,
                      chosen.algo, &plan.workspaceBytes),
                  "cudnnGetConvolutionBackwardDataWorkspaceSize"))
    return appendError(" (algorithm %d, math %s)",
                       static_cast<int>(chosen.algo),
                       mathTypeName(chosen.mathType));
  plan.dataAlgo = chosen.algo;
  return true;
}

/// The plan of the filter gradient of `v` (the forward view: x as x, dy as
/// wt, dw as y).
bool buildBackwardFilterPlan(const char *call, const CudnnApi *api,
                             cudnnHandle_t handle, const ConvArgs &v,
                             bool exhaustive, ConvPlan &plan) {
  ConvTypePlan types = planConvTypes(v.xType, v.wType, v.yType);
  if (!createConvDescriptors(call, api, v, types, plan))
    return false;
  int maxCount = 0;
  if (!cudnnCheck(call, api,
                  api->cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(
                      handle, &maxCount),
                  "cudnnGetConvolutionBackwardFilterAlgorithmMaxCount"))
    return false;
  std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> perf(std::max(maxCount, 1));
  int requested = static_cast<int>(perf.size()), returned = 0;
  // dy is described by yDesc, dw by wDesc.
  if (exhaustive) {
    // Benchmarks every algorithm (blocking; cuDNN allocates its own buffers,
    // so the caller's dw is not touched).
    if (!cudnnCheck(call, api,
                    api->cudnnFindConvolutionBackwardFilterAlgorithm(
                        handle, plan.xDesc, plan.yDesc, plan.convDesc,
                        plan.wDesc, requested, &returned, perf.data()),
                    "cudnnFindConvolutionBackwardFilterAlgorithm"))
      return false;
  } else if (!cudnnCheck(call, api,
                         api->cudnnGetConvolutionBackwardFilterAlgorithm_v7(
                             handle, plan.xDesc, plan.yDesc, plan.convDesc,
                             plan.wDesc, requested, &returned, perf.data()),
                         "cudnnGetConvolutionBackwardFilterAlgorithm_v7")) {
    return false;
  }
  cudnnConvolutionBwdFilterAlgoPerf_t chosen{};
  if (!pickAlgorithm(call, "backward-filter", perf.data(), returned,
                     types.preferFma, &chosen))
    return false;
  if (!cudnnCheck(
          call, api,
          api->cudnnSetConvolutionMathType(plan.convDesc, chosen.mathType),
          "cudnnSetConvolutionMathType") ||
      !cudnnCheck(call, api,
                  api->cudnnGetConvolutionBackwardFilterWorkspaceSize(
                      handle, plan.xDesc, plan.yDesc, plan.convDesc, plan.wDesc,
                      chosen.algo, &plan.workspaceBytes),
                  "cudnnGetConvolutionBackwardFilterWorkspaceSize"))
    return appendError(" (algorithm %d, math %s)",
                       static_cast<int>(chosen.algo),
                       mathTypeName(chosen.mathType));
  plan.filterAlgo = chosen.algo;
  return true;
}

using BuildPlan = bool (*)(const char *, const CudnnApi *, cudnnHandle_t,
                           const ConvArgs &, bool, ConvPlan &);

/// What both gradients do around their cuDNN call, on the forward view `v`
/// of their operands (its x and wt with `xCount` and `wCount` elements):
/// the cached plan of `direction`, the inputs widened when planConvTypes
/// says so, the workspace; then `run(api, handle, plan, x, wt, workspace)`
/// with the inputs as cuDNN reads them, under the cuDNN lock.
template <typename Run>
bool runBackward(const char *call, ConvDirection direction, BuildPlan build,
                 const ConvArgs &v, int64_t xCount, int64_t wCount, Run run) {
  const DriverApi *drv = gpuInit(call);
  if (!drv || !gpuCheckTypesSupported(call, {v.xType, v.wType, v.yType}))
    return false;
  CudnnState &st = cudnnState();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (!ensureCudnnHandle(call, st))
    return false;
  const CudnnApi *api = st.api;

  bool exhaustive = exhaustiveSearch();
  const ConvPlan *plan = findOrBuildPlan(
      st, getPlanKey(direction, v, exhaustive), [&](ConvPlan &built) {
        return build(call, api, st.handle, v, exhaustive, built);
      });
  if (!plan)
    return false;

  // Exact widening of 16-bit inputs for an f32 output (queued on the shared
  // stream before the convolution; the cuDNN lock keeps the buffers ours).
  ConvTypePlan types = planConvTypes(v.xType, v.wType, v.yType);
  const void *x = nullptr;
  const void *wt = nullptr;
  if (!widenInput(call, types.widenX, v.x, v.xType, xCount, st.wideX, x) ||
      !widenInput(call, types.widenW, v.wt, v.wType, wCount, st.wideW, wt))
    return false;
  if (plan->workspaceBytes && !st.workspace.reserve(call, plan->workspaceBytes))
    return false;
  return run(api, st.handle, *plan, x, wt,
             reinterpret_cast<void *>(st.workspace.ptr));
}

} // namespace

/// ampGpuConv2dBackwardData on cuDNN (arguments already checked).
bool amp::rt::cuda::ConvBackwardData(const char *call,
                                     const ConvBackwardDataArgs &d,
                                     NoResult &) {
  auto run = [&](const CudnnApi *api, cudnnHandle_t handle,
                 const ConvPlan &plan, const void *dy, const void *wt,
                 void *workspace) {
    // dx has the compute type (ConvTypePlan::writesYDirectly): cuDNN applies
    // beta itself, in f32.
    const float one = 1.0f, beta = d.beta;
    if (!cudnnCheck(call, api,
                    api->cudnnConvolutionBackwardData(
                        handle, &one, plan.wDesc, wt, plan.yDesc, dy,
                        plan.convDesc, plan.dataAlgo, workspace,
                        plan.workspaceBytes, &beta, plan.xDesc, d.dx),
                    "cudnnConvolutionBackwardData"))
      return appendError(" (algorithm %d)", static_cast<int>(plan.dataAlgo));
    return true;
  };
  return runBackward(call, ConvDirection::BackwardData, buildBackwardDataPlan,
                     getConvArgs(d), d.n * d.f * d.oh * d.ow,
                     d.f * (d.c / d.groups) * d.kh * d.kw, run);
}

/// ampGpuConv2dBackwardFilter on cuDNN (arguments already checked).
bool amp::rt::cuda::ConvBackwardFilter(const char *call,
                                       const ConvBackwardFilterArgs &d,
                                       NoResult &) {
  auto run = [&](const CudnnApi *api, cudnnHandle_t handle,
                 const ConvPlan &plan, const void *x, const void *dy,
                 void *workspace) {
    // dw has the compute type: cuDNN applies beta itself, in f32.
    const float one = 1.0f, beta = d.beta;
    if (!cudnnCheck(call, api,
                    api->cudnnConvolutionBackwardFilter(
                        handle, &one, plan.xDesc, x, plan.yDesc, dy,
                        plan.convDesc, plan.filterAlgo, workspace,
                        plan.workspaceBytes, &beta, plan.wDesc, d.dw),
                    "cudnnConvolutionBackwardFilter"))
      return appendError(" (algorithm %d)", static_cast<int>(plan.filterAlgo));
    return true;
  };
  return runBackward(call, ConvDirection::BackwardFilter,
                     buildBackwardFilterPlan, getConvArgs(d),
                     d.n * d.c * d.h * d.w, d.n * d.f * d.oh * d.ow, run);
}
