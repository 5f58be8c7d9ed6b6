//===- CudnnConvEpilogue.cpp - a convolution and its epilogue, fused ------===//
//
// Part of amp-mlir. ampGpuConv2dEpilogue on cuDNN's graph API, built with
// cudnn-frontend (CudnnGraph.h): one operation graph of the convolution
// (conv_fprop) and its epilogue's pointwise operations (multiply by the
// per-channel scale, add the per-channel bias, add the residual, ReLU),
// which cuDNN's runtime-fusion engines run as one kernel: the f32 sum
// never leaves the chip, and y is rounded once.
//  - f16/bf16 or f32 io, f32 intermediates and compute; an f32 y from
//    16-bit x and wt is the graph's output type (no widening passes, which
//    the legacy API needs: Cudnn.cpp);
//  - NCHW/FCHW or NHWC/FHWC (KRSC) tensors described by their strides, the
//    scale and bias as 1 x f x 1 x 1 f32 tensors;
//  - one graph and plan per (layout, geometry, types, epilogue, which
//    operands are present), kept for the process; each call passes its
//    pointers; the workspace is a grow-only scratch buffer;
//  - no fallback: where cuDNN has no engine for the graph (check_support),
//    the call fails with cuDNN's message; the compiler's option
//    conv-epilogues=false keeps the epilogue a kernel instead.
//
//===----------------------------------------------------------------------===//

#include "CudnnCommon.h"
#include "LibraryCallEntries.h"

#ifdef AMP_RUNTIME_HAVE_CUDNN_FRONTEND

#include "CudnnGraph.h"

#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

using namespace amp::rt;
using namespace amp::rt::dnn;

namespace {
constexpr const char *kWhat = "cuDNN fused convolution";

/// The tensors' uids in the graph and the variant pack.
enum ConvEpilogueUid : int64_t { X = 1, W, Y, Scale, Bias, Residual };

/// What a plan depends on: everything of the call but its pointers, and
/// which of the optional operands are there.
using ConvEpilogueKey = std::array<int64_t, 24>;

ConvEpilogueKey getKey(const ConvEpilogueArgs &e) {
  return {e.layout,
          e.n,
          e.c,
          e.h,
          e.w,
          e.f,
          e.kh,
          e.kw,
          e.oh,
          e.ow,
          e.padTop,
          e.padLeft,
          e.strideH,
          e.strideW,
          e.dilH,
          e.dilW,
          e.groups,
          e.xType,
          e.wType,
          e.yType,
          e.epilogue,
          e.scale != nullptr,
          e.bias != nullptr,
          e.residual != nullptr};
}

struct ConvEpilogueState {
  std::map<ConvEpilogueKey, std::unique_ptr<GraphPlan>> plans;
  ScratchBuffer workspace;
};

ConvEpilogueState &convEpilogueState() {
  static auto *state = new ConvEpilogueState; // Leaked, as cudnnState.
  return *state;
}

fe::DataType_t toFrontendType(int32_t type) {
  return type == AMP_DTYPE_F16    ? fe::DataType_t::HALF
         : type == AMP_DTYPE_BF16 ? fe::DataType_t::BFLOAT16
                                  : fe::DataType_t::FLOAT;
}

/// The strides of an (n, c, h, w)-indexed tensor stored NCHW or NHWC.
std::vector<int64_t> activationStrides(bool nhwc, int64_t c, int64_t h,
                                       int64_t w) {
  return nhwc ? std::vector<int64_t>{h * w * c, 1, w * c, c}
              : std::vector<int64_t>{c * h * w, h * w, w, 1};
}

/// A tensor of the graph (addTensor: dims in NCHW order) of `type`.
std::shared_ptr<fe::graph::Tensor_attributes>
addTypedTensor(fe::graph::Graph &graph, const char *name, int64_t uid,
               std::vector<int64_t> dims, const std::vector<int64_t> &strides,
               fe::DataType_t type) {
  auto tensor = addTensor(graph, name, uid, std::move(dims), strides);
  tensor->set_data_type(type);
  return tensor;
}

/// The graph of `e`: conv_fprop, then the epilogue's pointwise operations
/// in the order of the definition, y the last one's output.
std::unique_ptr<GraphPlan>
buildPlan(const char *call, const ConvEpilogueArgs &e, cudnnHandle_t handle) {
  auto plan = std::make_unique<GraphPlan>();
  plan->graph = std::make_shared<fe::graph::Graph>();
  fe::graph::Graph &graph = *plan->graph;
  graph.set_io_data_type(toFrontendType(e.xType))
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  bool nhwc = e.layout == AMP_CONV_NHWC_FHWC;
  auto x = addTypedTensor(graph, "x", X, {e.n, e.c, e.h, e.w},
                          activationStrides(nhwc, e.c, e.h, e.w),
                          toFrontendType(e.xType));
  // FCHW, or KRSC (FHWC): the filter as an (f, c, kh, kw)-indexed tensor.
  auto w = addTypedTensor(graph, "w", W, {e.f, e.c, e.kh, e.kw},
                          activationStrides(nhwc, e.c, e.kh, e.kw),
                          toFrontendType(e.wType));
  auto value = graph.conv_fprop(x, w,
                                fe::graph::Conv_fprop_attributes()
                                    .set_name("amp_conv")
                                    .set_padding({e.padTop, e.padLeft})
                                    .set_stride({e.strideH, e.strideW})
                                    .set_dilation({e.dilH, e.dilW}));
  auto channel = [&](const char *name, int64_t uid) {
    return addTypedTensor(graph, name, uid, {1, e.f, 1, 1}, {e.f, 1, e.f, e.f},
                          fe::DataType_t::FLOAT);
  };
  auto pointwise = [&](const char *name, fe::PointwiseMode_t mode,
                       std::shared_ptr<fe::graph::Tensor_attributes> operand) {
    auto options =
        fe::graph::Pointwise_attributes().set_name(name).set_mode(mode);
    value = operand ? graph.pointwise(value, operand, options)
                    : graph.pointwise(value, options);
  };
  std::vector<int64_t> yStrides = activationStrides(nhwc, e.f, e.oh, e.ow);
  if (e.scale)
    pointwise("amp_scale", fe::PointwiseMode_t::MUL, channel("scale", Scale));
  if (e.bias)
    pointwise("amp_bias", fe::PointwiseMode_t::ADD, channel("bias", Bias));
  if (e.residual)
    pointwise("amp_residual", fe::PointwiseMode_t::ADD,
              addTypedTensor(graph, "residual", Residual,
                             {e.n, e.f, e.oh, e.ow}, yStrides,
                             toFrontendType(e.yType)));
  if (e.epilogue == AMP_CONV_EPILOGUE_SCALE_BIAS_RELU)
    pointwise("amp_relu", fe::PointwiseMode_t::RELU_FWD, nullptr);
  std::vector<int64_t> yDims = {e.n, e.f, e.oh, e.ow};
  value->set_output(true)
      .set_uid(Y)
      .set_dim(yDims)
      .set_stride(normalizedStrides(yDims, yStrides))
      .set_data_type(toFrontendType(e.yType));
  if (!buildGraph(call, kWhat, *plan, handle))
    return nullptr;
  return plan;
}
} // namespace

bool amp::rt::cuda::ConvEpilogue(const char *call, const ConvEpilogueArgs &e,
                                 NoResult &) {
  return catchFrontendErrors(call, kWhat, [&]() -> bool {
    CudnnState &st = cudnnState();
    std::lock_guard<std::mutex> lock(st.mutex);
    if (!prepareFrontend(call, st))
      return false;
    ConvEpilogueState &state = convEpilogueState();
    ConvEpilogueKey key = getKey(e);
    auto it = state.plans.find(key);
    if (it == state.plans.end()) {
      std::unique_ptr<GraphPlan> plan = buildPlan(call, e, st.handle);
      if (!plan)
        return false;
      it = state.plans.emplace(key, std::move(plan)).first;
    }
    GraphPlan &plan = *it->second;
    if (!state.workspace.reserve(call,
                                 static_cast<size_t>(plan.workspaceBytes)))
      return false;
    std::unordered_map<int64_t, void *> pointers = {
        {X, const_cast<void *>(e.x)}, {W, const_cast<void *>(e.wt)}, {Y, e.y}};
    if (e.scale)
      pointers[Scale] = const_cast<float *>(e.scale);
    if (e.bias)
      pointers[Bias] = const_cast<float *>(e.bias);
    if (e.residual)
      pointers[Residual] = const_cast<void *>(e.residual);
    return feCheck(
        call, kWhat,
        plan.graph->execute(st.handle, pointers,
                            reinterpret_cast<void *>(state.workspace.ptr)),
        "execute");
  });
}

#else // !AMP_RUNTIME_HAVE_CUDNN_FRONTEND

bool amp::rt::cuda::ConvEpilogue(const char *call,
                                 const amp::rt::ConvEpilogueArgs &,
                                 amp::rt::NoResult &) {
  return amp::rt::setError(
      call, "the runtime was built without cudnn-frontend (cuDNN's graph "
            "API, which fuses the convolution and its epilogue): run "
            "scripts/fetch-cudnn-frontend.sh and rebuild");
}

#endif // AMP_RUNTIME_HAVE_CUDNN_FRONTEND
