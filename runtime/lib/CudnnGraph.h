//===- CudnnGraph.h - what the cuDNN graph-API calls share ------*- C++ -*-===//
//
// Part of amp-mlir. The helpers of the calls built on cuDNN's graph API
// through cudnn-frontend (CudnnAttention.cpp: the fused attention;
// CudnnConvEpilogue.cpp: the convolution with its epilogue): the
// frontend's status and exceptions as the call's error, the graph's steps
// from validation to a built plan, the frontend's dynamic loading through
// the runtime's cuDNN handle, and a plan with its workspace size.
//
// Only compiled with cudnn-frontend's headers
// (AMP_RUNTIME_HAVE_CUDNN_FRONTEND).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_LIB_CUDNNGRAPH_H
#define AMP_RUNTIME_LIB_CUDNNGRAPH_H

#include "CudnnCommon.h"

#define NV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING
#define CUDNN_FRONTEND_SKIP_JSON_LIB
#include <cudnn_frontend.h>

#include <exception>
#include <memory>
#include <vector>

namespace amp {
namespace rt {
namespace dnn {
namespace fe = cudnn_frontend;

/// A graph, its execution plan built, and the workspace it needs.
struct GraphPlan {
  std::shared_ptr<fe::graph::Graph> graph;
  int64_t workspaceBytes = 0;
};

/// A frontend status: true if good, else "<call>: <what> <step> failed:
/// <message>" as the last error (`what`: "cuDNN fused attention").
inline bool feCheck(const char *call, const char *what, fe::error_t status,
                    const char *step) {
  if (status.is_good())
    return true;
  return setError(call, "%s: %s failed: %s", what, step,
                  status.get_message().c_str());
}

/// Validates the graph of `plan`, builds its plan for `handle` (heuristics
/// A, then the fallback list) and reads its workspace size; false with the
/// last error set if a step fails.
inline bool buildGraph(const char *call, const char *what, GraphPlan &plan,
                       cudnnHandle_t handle) {
  fe::graph::Graph &graph = *plan.graph;
  return feCheck(call, what, graph.validate(), "validate") &&
         feCheck(call, what, graph.build_operation_graph(handle),
                 "build_operation_graph") &&
         feCheck(call, what,
                 graph.create_execution_plans(
                     {fe::HeurMode_t::A, fe::HeurMode_t::FALLBACK}),
                 "create_execution_plans") &&
         feCheck(call, what, graph.check_support(handle), "check_support") &&
         feCheck(call, what, graph.build_plans(handle), "build_plans") &&
         feCheck(call, what, graph.get_workspace_size(plan.workspaceBytes),
                 "get_workspace_size");
}

/// The frontend's cuDNN: the handle of `st` made (bound to the shared
/// stream) and the frontend's dynamic loading pointed at the library the
/// runtime's loader opened. Under the cuDNN lock.
inline bool prepareFrontend(const char *call, CudnnState &st) {
  if (!ensureCudnnHandle(call, st))
    return false;
  if (!fe::cudnn_dlhandle && !(fe::cudnn_dlhandle = cudnnLibraryHandle()))
    return setError(call, "cuDNN's library handle is not available");
  return true;
}

/// `run()`, with the exceptions of the frontend (its dynamic loading throws
/// when a symbol is missing; it reports everything else through error_t)
/// made the call's error.
template <typename Run>
bool catchFrontendErrors(const char *call, const char *what, Run run) {
  try {
    return run();
  } catch (const std::exception &error) {
    return setError(call, "%s: %s", what, error.what());
  }
}

/// `strides` with the stride of each dimension of size 1 (never stepped
/// over, so anything in the call) made that of an outermost dimension.
inline std::vector<int64_t> normalizedStrides(const std::vector<int64_t> &dims,
                                              std::vector<int64_t> strides) {
  int64_t extent = 1;
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] > 1)
      extent = std::max(extent, strides[i] * dims[i]);
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] == 1)
      strides[i] = extent;
  return strides;
}

/// A tensor of `graph`: its name, uid, dims and strides (normalizedStrides).
inline std::shared_ptr<fe::graph::Tensor_attributes>
addTensor(fe::graph::Graph &graph, const char *name, int64_t uid,
          std::vector<int64_t> dims, const std::vector<int64_t> &strides) {
  std::vector<int64_t> normalized = normalizedStrides(dims, strides);
  return graph.tensor(fe::graph::Tensor_attributes()
                          .set_name(name)
                          .set_uid(uid)
                          .set_dim(std::move(dims))
                          .set_stride(std::move(normalized)));
}

} // namespace dnn
} // namespace rt
} // namespace amp

#endif // AMP_RUNTIME_LIB_CUDNNGRAPH_H
