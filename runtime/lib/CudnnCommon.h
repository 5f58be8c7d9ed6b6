//===- CudnnCommon.h - what the cuDNN convolutions share --------*- C++ -*-===//
//
// Part of amp-mlir. The state and helpers that the forward convolution
// (Cudnn.cpp, ampGpuConv2d) and its gradients (CudnnBackward.cpp,
// ampGpuConv2dBackwardData/Filter) share on cuDNN's legacy API: one handle
// bound to the shared stream, one lock, one plan cache keyed by direction,
// geometry, types and search mode, the grow-only scratch buffers, and the
// descriptor, algorithm and widening helpers.
//
// Every convolution is described by its forward view (ConvArgs; for the
// backward calls getConvArgs, Internal.h): the two inputs as x and wt, the
// output as y. The descriptors are those of the forward convolution (xDesc
// n x c x h x w, yDesc n x f x oh x ow, wDesc f x c/groups x kh x kw, the
// group count on the convolution descriptor), whichever tensor each one
// holds in a direction.
//
// Only compiled with the CUDA headers (AMP_RUNTIME_HAVE_CUDA).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_LIB_CUDNNCOMMON_H
#define AMP_RUNTIME_LIB_CUDNNCOMMON_H

#include "ConvTypePlan.h"
#include "GpuContext.h"
#include "Internal.h"

#include <array>
#include <map>
#include <memory>
#include <mutex>

namespace amp {
namespace rt {
namespace dnn {

/// Which cuDNN convolution a plan runs.
enum class ConvDirection {
  Forward = 0,        ///< cudnnConvolutionForward: y from x and w.
  BackwardData = 1,   ///< cudnnConvolutionBackwardData: dx from dy and w.
  BackwardFilter = 2, ///< cudnnConvolutionBackwardFilter: dw from x and dy.
};

/// The plan cache's key: the direction, the layout, the geometry (groups
/// included) and the three types of the forward view, and the search mode.
using PlanKey = std::array<int64_t, 22>;
PlanKey getPlanKey(ConvDirection direction, const ConvArgs &v, bool exhaustive);

/// The descriptors of one convolution (in the compute type of
/// planConvTypes) and the algorithm chosen for its direction, with the
/// workspace it needs.
struct ConvPlan {
  const CudnnApi *api = nullptr;
  cudnnTensorDescriptor_t xDesc = nullptr, yDesc = nullptr;
  cudnnFilterDescriptor_t wDesc = nullptr;
  cudnnConvolutionDescriptor_t convDesc = nullptr;
  // NHWC only (forward): the HWCF filter and its KRSC copy as strided 4-D
  // tensors.
  cudnnTensorDescriptor_t hwcfDesc = nullptr, krscDesc = nullptr;
  // The algorithm of the plan's direction.
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  cudnnConvolutionBwdDataAlgo_t dataAlgo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
  cudnnConvolutionBwdFilterAlgo_t filterAlgo =
      CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
  size_t workspaceBytes = 0;

  ConvPlan() = default;
  ConvPlan(const ConvPlan &) = delete;
  ConvPlan &operator=(const ConvPlan &) = delete;
  ~ConvPlan();
};

struct CudnnState {
  std::mutex mutex; // Serialises handle, cache and scratch buffers.
  const CudnnApi *api = nullptr;
  cudnnHandle_t handle = nullptr;
  std::map<PlanKey, std::unique_ptr<ConvPlan>> plans;
  // filter: the KRSC copy (NHWC); wideX/wideW: f32 copies of the view's
  // 16-bit x and wt when the output is f32 (ConvTypePlan.h): x and w of
  // the forward convolution, dy and w of the backward data one, x and dy
  // of the backward filter one.
  ScratchBuffer workspace, filter, wideX, wideW;
};

/// The process's state (leaked, see GpuContext.cpp).
CudnnState &cudnnState();

/// Creates st.handle on the stream of the GPU on first use; call with
/// st.mutex held, after gpuInit. False with the error set.
bool ensureCudnnHandle(const char *call, CudnnState &st);

/// ampGpuSetConvExhaustiveSearch, else AMP_CUDNN_EXHAUSTIVE_SEARCH.
bool exhaustiveSearch();

/// Sets "<call>: <what> failed: <cuDNN's message>" and returns false unless
/// `status` is CUDNN_STATUS_SUCCESS.
bool cudnnCheck(const char *call, const CudnnApi *api, cudnnStatus_t status,
                const char *what);

cudnnDataType_t cudnnType(int32_t type);
const char *mathTypeName(cudnnMathType_t type);

/// Creates the x, y, filter and convolution descriptors of the forward view
/// `v` in `types.computeType` (NCHW/FCHW, or NHWC/KRSC when `v.layout` is
/// NHWC/HWCF; the filter with c/groups channels and the convolution with
/// `v.groups` groups) and requests the math type that `types` prefers.
bool createConvDescriptors(const char *call, const CudnnApi *api,
                           const ConvArgs &v, const ConvTypePlan &types,
                           ConvPlan &plan);

/// The cached plan of `key`, built by `build(plan)` on first use (a failed
/// build is not cached); null with the error set. Call with st.mutex held.
template <typename Build>
const ConvPlan *findOrBuildPlan(CudnnState &st, const PlanKey &key,
                                Build build) {
  auto it = st.plans.find(key);
  if (it == st.plans.end()) {
    auto plan = std::make_unique<ConvPlan>();
    if (!build(*plan))
      return nullptr;
    it = st.plans.emplace(key, std::move(plan)).first;
  }
  return it->second.get();
}

/// Picks the first successful candidate of a cuDNN algorithm query (Perf:
/// cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t); `preferFma` (f32
/// data) prefers FMA kernels (true fp32, like the cuBLAS path that does not
/// use TF32). `direction` names the query in the error ("forward").
template <typename Perf>
bool pickAlgorithm(const char *call, const char *direction, const Perf *perf,
                   int count, bool preferFma, Perf *out) {
  const Perf *first = nullptr;
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
                    "cuDNN found no %s algorithm for this convolution (%d "
                    "candidates, none usable)",
                    direction, count);
  *out = *first;
  return true;
}

/// `count` elements of `type` at `input` as the convolution reads them:
/// `input` itself, or with `widen` its exact f32 copy in `scratch` (queued
/// on the shared stream; call with st.mutex held). False with the error
/// set.
bool widenInput(const char *call, bool widen, const void *input, int32_t type,
                int64_t count, ScratchBuffer &scratch, const void *&out);

} // namespace dnn
} // namespace rt
} // namespace amp

#endif // AMP_RUNTIME_LIB_CUDNNCOMMON_H
