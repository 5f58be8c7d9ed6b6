//===- CudnnAttention.cpp - fused attention on cuDNN's graph API ----------===//
//
// Part of amp-mlir. ampGpuAttention and ampGpuAttentionBackward on cuDNN's
// fused scaled-dot-product attention (the "SDPA" graphs of cuDNN 9, forward
// and backward), built with cudnn-frontend (the header-only C++ API NVIDIA
// keeps over the graph API; pinned, installed by
// scripts/fetch-cudnn-frontend.sh): writing the ~15 backend descriptors of
// the operation graph by hand is what the frontend exists to avoid.
//  - the frontend loads cuDNN itself (NV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING)
//    through the handle the runtime's loader opened (CudaLoader.cpp), so
//    nothing is linked;
//  - one graph, with its execution plan and workspace size, per direction
//    and (sizes, type, strides, bias strides, causal, stats, scale), kept
//    for the process; each call passes its pointers;
//  - the cuDNN handle and lock are the convolutions' (CudnnCommon.h), bound
//    to the shared stream; the workspace is a grow-only scratch buffer.
//
//===----------------------------------------------------------------------===//

#include "CudnnCommon.h"
#include "LibraryCallEntries.h"

#ifdef AMP_RUNTIME_HAVE_CUDNN_FRONTEND

#include "CudnnGraph.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace cudnn_frontend {
/// The frontend's cuDNN (dynamic loading): the runtime's dlopen handle.
void *cudnn_dlhandle = nullptr;
} // namespace cudnn_frontend

using namespace amp::rt;
using namespace amp::rt::dnn;

namespace {
/// What the errors of this file's calls say they are from.
constexpr const char *kWhat = "cuDNN fused attention";
} // namespace

namespace {
/// The tensors' uids in the graphs and the variant packs.
enum AttentionUid : int64_t { Q = 1, K, V, Out, Bias, Stats, DOut, DQ, DK, DV };

/// What a plan depends on: its direction (0 forward, 1 backward), sizes,
/// type, causal, the bias (present, its strides), the scale's bits (it is a
/// constant of the graph), then what the direction adds (the strides of its
/// tensors, stats or not).
using AttentionKey = std::vector<int64_t>;

/// The start of the key of `a` (AttentionArgs or AttentionBackwardArgs:
/// the fields they share).
template <typename Args>
AttentionKey getAttentionKey(int64_t direction, const Args &a) {
  uint32_t scaleBits;
  std::memcpy(&scaleBits, &a.scale, sizeof(scaleBits));
  return {direction,
          a.batch,
          a.heads,
          a.seqQ,
          a.seqKV,
          a.headDim,
          a.dtype,
          a.causal,
          a.bias != nullptr,
          a.bias ? a.biasStrideB : 0,
          a.bias ? a.biasStrideH : 0,
          a.bias ? a.biasStrideS : 0,
          scaleBits};
}

using AttentionPlan = GraphPlan;

struct AttentionState {
  std::map<AttentionKey, std::unique_ptr<AttentionPlan>> plans;
  ScratchBuffer workspace;
};

AttentionState &attentionState() {
  static AttentionState *state = new AttentionState; // Leaked, as cudnnState.
  return *state;
}

/// An output of the graph: `uid`, a (batch, head, sequence, headDim) tensor
/// with its strides (normalizedStrides).
void setOutput(fe::graph::Tensor_attributes &tensor, int64_t uid,
               std::vector<int64_t> dims, const std::vector<int64_t> &strides) {
  std::vector<int64_t> normalized = normalizedStrides(dims, strides);
  tensor.set_output(true)
      .set_uid(uid)
      .set_dim(std::move(dims))
      .set_stride(std::move(normalized));
}

/// The f32 stats, batch x heads x seqQ (x 1), dense: the forward's output,
/// the backward's input (cuDNN before 9.26 reads only this packed layout).
template <typename Args>
void setStatsLayout(fe::graph::Tensor_attributes &stats, const Args &a) {
  stats.set_uid(Stats)
      .set_data_type(fe::DataType_t::FLOAT)
      .set_dim({a.batch, a.heads, a.seqQ, 1})
      .set_stride({a.heads * a.seqQ, a.seqQ, 1, 1});
}

/// The graphs' tensors that both directions read: q, k, v and the bias
/// (nullptr without one).
struct AttentionInputs {
  std::shared_ptr<fe::graph::Tensor_attributes> q, k, v, bias;
};

/// A new graph of `a`'s type (f16 or bf16 io, f32 intermediates and
/// compute) and its inputs.
template <typename Args>
AttentionInputs newGraph(AttentionPlan &plan, const Args &a) {
  plan.graph = std::make_shared<fe::graph::Graph>();
  fe::graph::Graph &graph = *plan.graph;
  graph
      .set_io_data_type(a.dtype == AMP_DTYPE_BF16 ? fe::DataType_t::BFLOAT16
                                                  : fe::DataType_t::HALF)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  AttentionInputs inputs;
  inputs.q = addTensor(graph, "q", Q, {a.batch, a.heads, a.seqQ, a.headDim},
                       {a.qStrideB, a.qStrideH, a.qStrideS, 1});
  inputs.k = addTensor(graph, "k", K, {a.batch, a.heads, a.seqKV, a.headDim},
                       {a.kStrideB, a.kStrideH, a.kStrideS, 1});
  inputs.v = addTensor(graph, "v", V, {a.batch, a.heads, a.seqKV, a.headDim},
                       {a.vStrideB, a.vStrideH, a.vStrideS, 1});
  if (a.bias)
    inputs.bias = addTensor(graph, "bias", Bias,
                            {a.biasStrideB ? a.batch : 1,
                             a.biasStrideH ? a.heads : 1, a.seqQ, a.seqKV},
                            {a.biasStrideB, a.biasStrideH, a.biasStrideS, 1});
  return inputs;
}

/// The forward's graph of `a` (validated, its plan built for `handle`), or
/// nullptr with the last error set.
std::unique_ptr<AttentionPlan>
buildPlan(const char *call, const AttentionArgs &a, cudnnHandle_t handle) {
  auto plan = std::make_unique<AttentionPlan>();
  AttentionInputs in = newGraph(*plan, a);
  auto options = fe::graph::SDPA_attributes()
                     .set_name("amp_attention")
                     .set_generate_stats(a.stats != nullptr)
                     .set_attn_scale(a.scale)
                     .set_causal_mask(a.causal != 0);
  if (in.bias)
    options.set_bias(in.bias);
  auto [out, stats] = plan->graph->sdpa(in.q, in.k, in.v, options);
  setOutput(*out, Out, {a.batch, a.heads, a.seqQ, a.headDim},
            {a.outStrideB, a.outStrideH, a.outStrideS, 1});
  if (a.stats) {
    stats->set_output(true);
    setStatsLayout(*stats, a);
  }
  if (!buildGraph(call, kWhat, *plan, handle))
    return nullptr;
  return plan;
}

/// The backward's graph of `a`: sdpa_backward of q, k, v, out, dOut and
/// the stats, with the forward's scale, causal mask and bias (no dBias),
/// writing dq, dk and dv.
std::unique_ptr<AttentionPlan> buildPlan(const char *call,
                                         const AttentionBackwardArgs &a,
                                         cudnnHandle_t handle) {
  auto plan = std::make_unique<AttentionPlan>();
  AttentionInputs in = newGraph(*plan, a);
  fe::graph::Graph &graph = *plan->graph;
  auto out = addTensor(graph, "out", Out, {a.batch, a.heads, a.seqQ, a.headDim},
                       {a.outStrideB, a.outStrideH, a.outStrideS, 1});
  auto dOut =
      addTensor(graph, "dOut", DOut, {a.batch, a.heads, a.seqQ, a.headDim},
                {a.dOutStrideB, a.dOutStrideH, a.dOutStrideS, 1});
  auto stats = graph.tensor(fe::graph::Tensor_attributes().set_name("stats"));
  setStatsLayout(*stats, a);
  auto options = fe::graph::SDPA_backward_attributes()
                     .set_name("amp_attention_backward")
                     .set_attn_scale(a.scale)
                     .set_causal_mask(a.causal != 0);
  if (in.bias)
    options.set_bias(in.bias);
  auto [dq, dk, dv] =
      graph.sdpa_backward(in.q, in.k, in.v, out, dOut, stats, options);
  setOutput(*dq, DQ, {a.batch, a.heads, a.seqQ, a.headDim},
            {a.dqStrideB, a.dqStrideH, a.dqStrideS, 1});
  setOutput(*dk, DK, {a.batch, a.heads, a.seqKV, a.headDim},
            {a.dkStrideB, a.dkStrideH, a.dkStrideS, 1});
  setOutput(*dv, DV, {a.batch, a.heads, a.seqKV, a.headDim},
            {a.dvStrideB, a.dvStrideH, a.dvStrideS, 1});
  if (!buildGraph(call, kWhat, *plan, handle))
    return nullptr;
  return plan;
}

/// Runs the graph of `a` (its plan cached under `key`, built on first use)
/// with the device pointers of `pointers`, on the shared stream, under the
/// cuDNN lock.
template <typename Args>
bool runAttention(const char *call, const Args &a, const AttentionKey &key,
                  std::unordered_map<int64_t, void *> pointers) {
  // cuDNN's SDPA runs on sm_80 and later: say so rather than its "no
  // execution plan" (amp-fuse-attention makes no call for an older chip).
  if (int capability = gpuComputeCapability(); capability < 80)
    return setError(call,
                    "cuDNN's fused attention needs compute capability 8.0 or "
                    "later (sm_80, Ampere); this device is sm_%d: compile "
                    "with --gpu-options=chip=sm_%d, which keeps the attention "
                    "as GEMM calls and kernels",
                    capability, capability);
  CudnnState &st = cudnnState();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (!prepareFrontend(call, st))
    return false;
  AttentionState &state = attentionState();
  auto it = state.plans.find(key);
  if (it == state.plans.end()) {
    std::unique_ptr<AttentionPlan> plan = buildPlan(call, a, st.handle);
    if (!plan)
      return false;
    it = state.plans.emplace(key, std::move(plan)).first;
  }
  AttentionPlan &plan = *it->second;
  if (!state.workspace.reserve(call, static_cast<size_t>(plan.workspaceBytes)))
    return false;
  if (a.bias)
    pointers[Bias] = const_cast<void *>(a.bias);
  return feCheck(
      call, kWhat,
      plan.graph->execute(st.handle, pointers,
                          reinterpret_cast<void *>(state.workspace.ptr)),
      "execute");
}

} // namespace

bool amp::rt::cuda::Attention(const char *call, const AttentionArgs &a,
                              NoResult &) {
  return catchFrontendErrors(call, kWhat, [&] {
    AttentionKey key = getAttentionKey(0, a);
    key.insert(key.end(),
               {a.qStrideB, a.qStrideH, a.qStrideS, a.kStrideB, a.kStrideH,
                a.kStrideS, a.vStrideB, a.vStrideH, a.vStrideS, a.outStrideB,
                a.outStrideH, a.outStrideS, a.stats != nullptr});
    std::unordered_map<int64_t, void *> pointers = {
        {Q, const_cast<void *>(a.q)},
        {K, const_cast<void *>(a.k)},
        {V, const_cast<void *>(a.v)},
        {Out, a.out}};
    if (a.stats)
      pointers[Stats] = a.stats;
    return runAttention(call, a, key, std::move(pointers));
  });
}

bool amp::rt::cuda::AttentionBackward(const char *call,
                                      const AttentionBackwardArgs &a,
                                      NoResult &) {
  return catchFrontendErrors(call, kWhat, [&] {
    AttentionKey key = getAttentionKey(1, a);
    key.insert(key.end(),
               {a.qStrideB,    a.qStrideH,    a.qStrideS,    a.kStrideB,
                a.kStrideH,    a.kStrideS,    a.vStrideB,    a.vStrideH,
                a.vStrideS,    a.outStrideB,  a.outStrideH,  a.outStrideS,
                a.dOutStrideB, a.dOutStrideH, a.dOutStrideS, a.dqStrideB,
                a.dqStrideH,   a.dqStrideS,   a.dkStrideB,   a.dkStrideH,
                a.dkStrideS,   a.dvStrideB,   a.dvStrideH,   a.dvStrideS});
    std::unordered_map<int64_t, void *> pointers = {
        {Q, const_cast<void *>(a.q)},
        {K, const_cast<void *>(a.k)},
        {V, const_cast<void *>(a.v)},
        {Out, const_cast<void *>(a.out)},
        {DOut, const_cast<void *>(a.dOut)},
        {Stats, const_cast<float *>(a.stats)},
        {DQ, a.dq},
        {DK, a.dk},
        {DV, a.dv}};
    return runAttention(call, a, key, std::move(pointers));
  });
}

#else // !AMP_RUNTIME_HAVE_CUDNN_FRONTEND

namespace {
bool reportFrontendNotBuilt(const char *call) {
  return amp::rt::setError(
      call, "the runtime was built without cudnn-frontend (cuDNN's fused "
            "attention): run scripts/fetch-cudnn-frontend.sh and rebuild");
}
} // namespace

bool amp::rt::cuda::Attention(const char *call, const amp::rt::AttentionArgs &,
                              amp::rt::NoResult &) {
  return reportFrontendNotBuilt(call);
}

bool amp::rt::cuda::AttentionBackward(const char *call,
                                      const amp::rt::AttentionBackwardArgs &,
                                      amp::rt::NoResult &) {
  return reportFrontendNotBuilt(call);
}

#endif // AMP_RUNTIME_HAVE_CUDNN_FRONTEND
