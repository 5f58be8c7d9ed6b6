//===- CudnnAttention.cpp - fused attention on cuDNN's graph API ----------===//
//
// Part of amp-mlir. ampGpuAttention on cuDNN's fused scaled-dot-product
// attention (the "SDPA" graph of cuDNN 9), built with cudnn-frontend (the
// header-only C++ API NVIDIA keeps over the graph API; pinned, installed by
// scripts/fetch-cudnn-frontend.sh): writing the ~15 backend descriptors of
// the operation graph by hand is what the frontend exists to avoid.
//  - the frontend loads cuDNN itself (NV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING)
//    through the handle the runtime's loader opened (CudaLoader.cpp), so
//    nothing is linked;
//  - one graph, with its execution plan and workspace size, per (sizes,
//    type, strides, bias strides, causal, stats, scale) and kept for the
//    process; each call passes its pointers;
//  - the cuDNN handle and lock are the convolutions' (CudnnCommon.h), bound
//    to the shared stream; the workspace is a grow-only scratch buffer.
//
//===----------------------------------------------------------------------===//

#include "CudnnCommon.h"
#include "LibraryCallEntries.h"

#ifdef AMP_RUNTIME_HAVE_CUDNN_FRONTEND

#define NV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING
#define CUDNN_FRONTEND_SKIP_JSON_LIB
#include <cudnn_frontend.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <map>
#include <memory>

namespace cudnn_frontend {
/// The frontend's cuDNN (dynamic loading): the runtime's dlopen handle.
void *cudnn_dlhandle = nullptr;
} // namespace cudnn_frontend

using namespace amp::rt;
using namespace amp::rt::dnn;
namespace fe = cudnn_frontend;

namespace {
/// The tensors' uids in the graph and the variant pack.
enum AttentionUid : int64_t { Q = 1, K, V, Out, Bias, Stats };

/// What a plan depends on: sizes, type, the strides of the five tensors,
/// causal, stats or not, and the scale's bits (it is a constant of the
/// graph).
using AttentionKey = std::array<int64_t, 24>;

AttentionKey getAttentionKey(const AttentionArgs &a) {
  uint32_t scaleBits;
  std::memcpy(&scaleBits, &a.scale, sizeof(scaleBits));
  return {a.batch,
          a.heads,
          a.seqQ,
          a.seqKV,
          a.headDim,
          a.dtype,
          a.qStrideB,
          a.qStrideH,
          a.qStrideS,
          a.kStrideB,
          a.kStrideH,
          a.kStrideS,
          a.vStrideB,
          a.vStrideH,
          a.vStrideS,
          a.outStrideB,
          a.outStrideH,
          a.outStrideS,
          a.bias != nullptr,
          a.bias ? a.biasStrideB : 0,
          a.bias ? a.biasStrideH : 0,
          a.bias ? a.biasStrideS : 0,
          (a.causal << 1) | (a.stats != nullptr),
          scaleBits};
}

struct AttentionPlan {
  std::shared_ptr<fe::graph::Graph> graph;
  int64_t workspaceBytes = 0;
};

struct AttentionState {
  std::map<AttentionKey, std::unique_ptr<AttentionPlan>> plans;
  ScratchBuffer workspace;
};

AttentionState &attentionState() {
  static AttentionState *state = new AttentionState; // Leaked, as cudnnState.
  return *state;
}

/// A frontend status: true if good, else "<call>: cuDNN attention <what>:
/// <message>" as the last error.
bool feCheck(const char *call, fe::error_t status, const char *what) {
  if (status.is_good())
    return true;
  return setError(call, "cuDNN fused attention: %s failed: %s", what,
                  status.get_message().c_str());
}

/// `strides` with the stride of each dimension of size 1 (never stepped
/// over, so anything in the call) made that of an outermost dimension.
std::vector<int64_t> normalizedStrides(const std::vector<int64_t> &dims,
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

/// A (batch, head, sequence, row) tensor of the graph with its strides
/// (normalizedStrides).
std::shared_ptr<fe::graph::Tensor_attributes>
addTensor(fe::graph::Graph &graph, const char *name, int64_t uid,
          std::vector<int64_t> dims, const std::vector<int64_t> &strides) {
  std::vector<int64_t> normalized = normalizedStrides(dims, strides);
  return graph.tensor(fe::graph::Tensor_attributes()
                          .set_name(name)
                          .set_uid(uid)
                          .set_dim(std::move(dims))
                          .set_stride(std::move(normalized)));
}

/// The graph of `a` (validated, its plan built for `handle`), or nullptr
/// with the last error set.
std::unique_ptr<AttentionPlan>
buildPlan(const char *call, const AttentionArgs &a, cudnnHandle_t handle) {
  auto plan = std::make_unique<AttentionPlan>();
  plan->graph = std::make_shared<fe::graph::Graph>();
  fe::graph::Graph &graph = *plan->graph;
  graph
      .set_io_data_type(a.dtype == AMP_DTYPE_BF16 ? fe::DataType_t::BFLOAT16
                                                  : fe::DataType_t::HALF)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  auto q = addTensor(graph, "q", Q, {a.batch, a.heads, a.seqQ, a.headDim},
                     {a.qStrideB, a.qStrideH, a.qStrideS, 1});
  auto k = addTensor(graph, "k", K, {a.batch, a.heads, a.seqKV, a.headDim},
                     {a.kStrideB, a.kStrideH, a.kStrideS, 1});
  auto v = addTensor(graph, "v", V, {a.batch, a.heads, a.seqKV, a.headDim},
                     {a.vStrideB, a.vStrideH, a.vStrideS, 1});
  auto options = fe::graph::SDPA_attributes()
                     .set_name("amp_attention")
                     .set_generate_stats(a.stats != nullptr)
                     .set_attn_scale(a.scale)
                     .set_causal_mask(a.causal != 0);
  if (a.bias)
    options.set_bias(
        addTensor(graph, "bias", Bias,
                  {a.biasStrideB ? a.batch : 1, a.biasStrideH ? a.heads : 1,
                   a.seqQ, a.seqKV},
                  {a.biasStrideB, a.biasStrideH, a.biasStrideS, 1}));
  auto [out, stats] = graph.sdpa(q, k, v, options);
  std::vector<int64_t> outDims = {a.batch, a.heads, a.seqQ, a.headDim};
  out->set_output(true).set_uid(Out).set_dim(outDims).set_stride(
      normalizedStrides(outDims,
                        {a.outStrideB, a.outStrideH, a.outStrideS, 1}));
  if (a.stats)
    stats->set_output(true)
        .set_uid(Stats)
        .set_data_type(fe::DataType_t::FLOAT)
        .set_dim({a.batch, a.heads, a.seqQ, 1})
        .set_stride({a.heads * a.seqQ, a.seqQ, 1, 1});
  if (!feCheck(call, graph.validate(), "validate") ||
      !feCheck(call, graph.build_operation_graph(handle),
               "build_operation_graph") ||
      !feCheck(call,
               graph.create_execution_plans(
                   {fe::HeurMode_t::A, fe::HeurMode_t::FALLBACK}),
               "create_execution_plans") ||
      !feCheck(call, graph.check_support(handle), "check_support") ||
      !feCheck(call, graph.build_plans(handle), "build_plans") ||
      !feCheck(call, graph.get_workspace_size(plan->workspaceBytes),
               "get_workspace_size"))
    return nullptr;
  return plan;
}

/// The cached plan of `a` (built on first use). Called under the lock.
AttentionPlan *getPlan(const char *call, const AttentionArgs &a,
                       CudnnState &st) {
  auto &plans = attentionState().plans;
  AttentionKey key = getAttentionKey(a);
  auto it = plans.find(key);
  if (it != plans.end())
    return it->second.get();
  std::unique_ptr<AttentionPlan> plan = buildPlan(call, a, st.handle);
  if (!plan)
    return nullptr;
  return plans.emplace(key, std::move(plan)).first->second.get();
}

bool runAttention(const char *call, const AttentionArgs &a) {
  CudnnState &st = cudnnState();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (!ensureCudnnHandle(call, st))
    return false;
  if (!fe::cudnn_dlhandle && !(fe::cudnn_dlhandle = cudnnLibraryHandle()))
    return setError(call, "cuDNN's library handle is not available");
  AttentionPlan *plan = getPlan(call, a, st);
  if (!plan)
    return false;
  AttentionState &state = attentionState();
  if (!state.workspace.reserve(call, static_cast<size_t>(plan->workspaceBytes)))
    return false;
  std::unordered_map<int64_t, void *> pointers = {{Q, const_cast<void *>(a.q)},
                                                  {K, const_cast<void *>(a.k)},
                                                  {V, const_cast<void *>(a.v)},
                                                  {Out, a.out}};
  if (a.bias)
    pointers[Bias] = const_cast<void *>(a.bias);
  if (a.stats)
    pointers[Stats] = a.stats;
  return feCheck(
      call,
      plan->graph->execute(st.handle, pointers,
                           reinterpret_cast<void *>(state.workspace.ptr)),
      "execute");
}
} // namespace

bool amp::rt::cuda::Attention(const char *call, const AttentionArgs &a,
                              NoResult &) {
  // The frontend reports through error_t, but its dynamic loading throws
  // when a symbol is missing.
  try {
    return runAttention(call, a);
  } catch (const std::exception &error) {
    return setError(call, "cuDNN fused attention: %s", error.what());
  }
}

#else // !AMP_RUNTIME_HAVE_CUDNN_FRONTEND

bool amp::rt::cuda::Attention(const char *call, const amp::rt::AttentionArgs &,
                              amp::rt::NoResult &) {
  return amp::rt::setError(
      call, "the runtime was built without cudnn-frontend (cuDNN's fused "
            "attention): run scripts/fetch-cudnn-frontend.sh and rebuild");
}

#endif // AMP_RUNTIME_HAVE_CUDNN_FRONTEND
