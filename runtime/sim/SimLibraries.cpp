//===- SimLibraries.cpp - library calls served by the CPU references ------===//
//
// Part of amp-mlir. The simulator's backend of the library calls that
// compiled code makes (LibraryCalls.def): after the argument checks that
// every build shares (with the GPU libraries' limits: cuBLAS's int32 sizes,
// cuDNN's symmetric padding), every operand range is checked against the
// live device allocations, then the CPU twin computes the result; the
// unscale calls run the runtime's own kernels instead (SimLossScaling.cpp).
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/AmpRuntime.h"

#include "../lib/Collectives.h"
#include "../lib/ConvTypePlan.h"
#include "../lib/GpuApi.h"
#include "../lib/GpuLossScalingDevice.h"
#include "../lib/Internal.h"
#include "../lib/LibraryCallEntries.h"
#include "../lib/ScaledGemmPlan.h"
#include "SimState.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

using namespace amp;
using namespace amp::rt;
using namespace amp::sim;

//===----------------------------------------------------------------------===//
// What each call moves and computes, for the roofline estimate
//===----------------------------------------------------------------------===//

/// The tensor-core peak of 16-bit and FP8 operands, the FMA units' of f32.
static ::amp::sim::Peak peakOfType(int32_t type) {
  switch (type) {
  case AMP_DTYPE_F16:
  case AMP_DTYPE_BF16:
    return ::amp::sim::Peak::F16;
  case AMP_DTYPE_F8E4M3FN:
  case AMP_DTYPE_F8E5M2:
    return ::amp::sim::Peak::Fp8;
  default:
    return ::amp::sim::Peak::Fp32;
  }
}

/// Reads each operand once (and `bias`, n elements of cType, if not null)
/// and writes C once (C, or `addend` in its place, is read too when beta is
/// not 0), and `biasGradElements` of cType where `biasGrad` is not null:
/// 2*batch*m*n*k
/// FLOPs. The record's name holds the types and the shape, and `epilogue`
/// where there is one.
static void recordGemm(const char *call, const GemmArgs &g,
                       ::amp::sim::Peak peak, const void *bias = nullptr,
                       const char *epilogue = nullptr,
                       const void *addend = nullptr, void *biasGrad = nullptr,
                       int64_t biasGradElements = 0, void *aux = nullptr,
                       bool auxRead = false, int64_t auxBytes = 0) {
  ::amp::sim::Work work;
  int64_t a = g.batch * g.m * g.k, b = g.batch * g.k * g.n,
          c = g.batch * g.m * g.n;
  int64_t cSize = static_cast<int64_t>(gemmElementSize(g.cType));
  work.bytesRead = a * static_cast<int64_t>(gemmElementSize(g.aType)) +
                   b * static_cast<int64_t>(gemmElementSize(g.bType)) +
                   (g.beta != 0.0f ? c * cSize : 0) + (bias ? g.n * cSize : 0) +
                   (aux && auxRead ? auxBytes : 0);
  // A bias gradient (GemmBiasGrad) is summed as its operand (A or B) is
  // read: its elements written and k adds for each. An aux output
  // (GELU_AUX_BIAS: a second C; RELU_AUX_BIAS: the mask) is written; an aux
  // input (DGELU, DRELU), read.
  work.bytesWritten = c * cSize + (biasGrad ? biasGradElements * cSize : 0) +
                      (aux && !auxRead ? auxBytes : 0);
  work.flops =
      2 * g.batch * g.m * g.n * g.k + (biasGrad ? g.k * biasGradElements : 0);
  work.peak = peak;
  work.library = true;
  std::string name = std::string(call) + " " + dtypeName(g.aType) + "*" +
                     dtypeName(g.bType) + "->" + dtypeName(g.cType) +
                     " m=" + std::to_string(g.m) + " n=" + std::to_string(g.n) +
                     " k=" + std::to_string(g.k);
  if (g.batch > 1)
    name += " batch=" + std::to_string(g.batch);
  if (epilogue)
    name += std::string(" epilogue=") + epilogue;
  ::amp::sim::record(AMP_SIM_RECORD_LIBRARY, name, {work});
  ::amp::sim::markAccess(g.a, false);
  ::amp::sim::markAccess(g.b, false);
  if (bias)
    ::amp::sim::markAccess(bias, false);
  if (g.beta != 0.0f)
    ::amp::sim::markAccess(addend ? addend : g.c, false);
  ::amp::sim::markAccess(g.c, true);
  if (biasGrad)
    ::amp::sim::markAccess(biasGrad, true);
  if (aux)
    ::amp::sim::markAccess(aux, !auxRead);
}

/// The record name of the convolution `v`: the call, the types, the layout
/// and the geometry.
static std::string getConvRecordName(const char *call, const ConvArgs &v) {
  std::string name = std::string(call) + " " + dtypeName(v.xType) + "*" +
                     dtypeName(v.wType) + "->" + dtypeName(v.yType) +
                     (v.layout == AMP_CONV_NCHW_FCHW ? " nchw" : " nhwc") +
                     " n=" + std::to_string(v.n) + " c=" + std::to_string(v.c) +
                     " h=" + std::to_string(v.h) + " w=" + std::to_string(v.w) +
                     " f=" + std::to_string(v.f) +
                     " k=" + std::to_string(v.kh) + "x" + std::to_string(v.kw) +
                     " s=" + std::to_string(v.strideH);
  if (v.strideW != v.strideH)
    name += "x" + std::to_string(v.strideW);
  if (v.groups != 1)
    name += " groups=" + std::to_string(v.groups);
  return name;
}

/// A convolution as the CUDA runtime runs it (Cudnn.cpp, CudnnBackward.cpp),
/// on the forward view `v` of its operands (getConvArgs: the two inputs as
/// x and wt, the output as y) with `xCount`, `wCount` and `yCount`
/// elements: the widening passes planConvTypes asks for, the NHWC filter's
/// transform to KRSC on every call (the forward convolution only), then
/// the convolution in the compute type: 2*n*f*oh*ow*(c/groups)*kh*kw FLOPs
/// (each direction) at the FMA rate (f32 data), TF32 (f32 widened from 16
/// bits) or the 16-bit tensor-core rate.
static void recordConvWork(const char *call, const ConvArgs &v, int64_t xCount,
                           int64_t wCount, int64_t yCount) {
  using ::amp::sim::Work;
  ConvTypePlan plan = planConvTypes(v.xType, v.wType, v.yType);
  int64_t compute = static_cast<int64_t>(dtypeSize(plan.computeType)),
          ySize = static_cast<int64_t>(dtypeSize(v.yType));
  std::vector<Work> parts;
  auto pass = [&](int64_t read, int64_t written) {
    Work work;
    work.bytesRead = read;
    work.bytesWritten = written;
    work.library = true;
    parts.push_back(work);
  };
  if (plan.widenX)
    pass(xCount * static_cast<int64_t>(dtypeSize(v.xType)), xCount * 4);
  if (plan.widenW)
    pass(wCount * static_cast<int64_t>(dtypeSize(v.wType)), wCount * 4);
  if (v.layout == AMP_CONV_NHWC_HWCF)
    pass(wCount * compute, wCount * compute);
  Work conv;
  conv.bytesRead =
      (xCount + wCount) * compute + (v.beta != 0.0f ? yCount * ySize : 0);
  conv.bytesWritten = yCount * ySize;
  conv.flops = 2 * v.n * v.f * v.oh * v.ow * (v.c / v.groups) * v.kh * v.kw;
  conv.peak = plan.computeType != AMP_DTYPE_F32 ? ::amp::sim::Peak::F16
              : plan.preferFma                  ? ::amp::sim::Peak::Fp32
                                                : ::amp::sim::Peak::Tf32;
  conv.library = true;
  parts.push_back(conv);
  ::amp::sim::record(AMP_SIM_RECORD_LIBRARY, getConvRecordName(call, v), parts);
  ::amp::sim::markAccess(v.x, false);
  ::amp::sim::markAccess(v.wt, false);
  if (v.beta != 0.0f)
    ::amp::sim::markAccess(v.y, false);
  ::amp::sim::markAccess(v.y, true);
}

/// The fused convolution of `e` (ConvEpilogue: cuDNN's operation graph) as
/// one pass: x and wt read in their own types (no widening), the scale, the
/// bias and the residual read, y written once; the convolution's FLOPs and
/// the epilogue's (a multiply, two adds and the ReLU per output element).
static void recordConvEpilogueWork(const char *call, const ConvEpilogueArgs &e,
                                   int64_t xCount, int64_t wCount,
                                   int64_t yCount) {
  ConvArgs v = getConvArgs(e);
  ConvTypePlan plan = planConvTypes(v.xType, v.wType, v.yType);
  int64_t ySize = static_cast<int64_t>(dtypeSize(v.yType));
  ::amp::sim::Work conv;
  conv.bytesRead = xCount * static_cast<int64_t>(dtypeSize(v.xType)) +
                   wCount * static_cast<int64_t>(dtypeSize(v.wType)) +
                   (e.scale ? v.f * 4 : 0) + (e.bias ? v.f * 4 : 0) +
                   (e.residual ? yCount * ySize : 0);
  conv.bytesWritten = yCount * ySize;
  conv.flops = 2 * v.n * v.f * v.oh * v.ow * v.c * v.kh * v.kw + 4 * yCount;
  conv.peak = v.xType != AMP_DTYPE_F32 ? ::amp::sim::Peak::F16
              : plan.preferFma         ? ::amp::sim::Peak::Fp32
                                       : ::amp::sim::Peak::Tf32;
  conv.library = true;
  std::string name =
      getConvRecordName(call, v) + " epilogue=" +
      (e.epilogue == AMP_CONV_EPILOGUE_SCALE_BIAS_RELU ? "scale_bias_relu"
                                                       : "scale_bias") +
      (e.residual ? "+residual" : "");
  ::amp::sim::record(AMP_SIM_RECORD_LIBRARY, name, {conv});
  for (const void *input : {v.x, v.wt, static_cast<const void *>(e.scale),
                            static_cast<const void *>(e.bias), e.residual})
    if (input)
      ::amp::sim::markAccess(input, false);
  ::amp::sim::markAccess(v.y, true);
}

namespace amp {
namespace rt {
namespace sim {

/// A, B and C of `g` lie in live device allocations.
static bool checkGemmRanges(const char *call, const GemmArgs &g) {
  uint64_t aSpan = getMatrixSpan(g.batch, g.transA ? g.k : g.m,
                                 g.transA ? g.m : g.k, g.lda, g.strideA);
  uint64_t bSpan = getMatrixSpan(g.batch, g.transB ? g.n : g.k,
                                 g.transB ? g.k : g.n, g.ldb, g.strideB);
  uint64_t cSpan = getMatrixSpan(g.batch, g.m, g.n, g.ldc, g.strideC);
  return checkDeviceRange(call, "A", g.a, aSpan * gemmElementSize(g.aType)) &&
         checkDeviceRange(call, "B", g.b, bSpan * gemmElementSize(g.bType)) &&
         checkDeviceRange(call, "C", g.c, cSpan * gemmElementSize(g.cType));
}

/// Count-only mode (ampSimSetCountOnly): C is zero instead of computed.
static bool countOnlyGemm(const GemmArgs &g) {
  if (!state().countOnly.load())
    return false;
  std::memset(g.c, 0,
              getMatrixSpan(g.batch, g.m, g.n, g.ldc, g.strideC) *
                  gemmElementSize(g.cType));
  return true;
}

bool Gemm(const char *call, const GemmArgs &g, NoResult &result) {
  count(&AmpSimStats::libraryCalls);
  if (!checkGemmRanges(call, g))
    return false;
  recordGemm(call, g, peakOfType(g.aType));
  return countOnlyGemm(g) || cpu::Gemm(call, g, result);
}

bool GemmEpilogue(const char *call, const GemmEpilogueArgs &e,
                  NoResult &result) {
  count(&AmpSimStats::libraryCalls);
  GemmArgs g = getGemmArgs(e);
  size_t cSize = gemmElementSize(e.cType);
  bool biased = epilogueAddsBias(e.epilogue);
  uint64_t auxBytes = getEpilogueAuxBytes(e);
  if (!checkGemmRanges(call, g) ||
      (biased && !checkDeviceRange(call, "bias", e.bias,
                                   static_cast<uint64_t>(e.n) * cSize)) ||
      (e.addend && e.beta != 0.0f &&
       !checkDeviceRange(call, "addend", e.addend,
                         getMatrixSpan(e.batch, e.m, e.n, e.ldc, e.strideC) *
                             cSize)) ||
      (e.aux && !checkDeviceRange(call, "aux", e.aux, auxBytes)))
    return false;
  recordGemm(call, g, peakOfType(g.aType), biased ? e.bias : nullptr,
             e.epilogue == AMP_GEMM_EPILOGUE_RELU_BIAS       ? "relu_bias"
             : e.epilogue == AMP_GEMM_EPILOGUE_GELU_BIAS     ? "gelu_bias"
             : e.epilogue == AMP_GEMM_EPILOGUE_GELU_AUX_BIAS ? "gelu_aux_bias"
             : e.epilogue == AMP_GEMM_EPILOGUE_DGELU         ? "dgelu"
             : e.epilogue == AMP_GEMM_EPILOGUE_RELU_AUX_BIAS ? "relu_aux_bias"
             : e.epilogue == AMP_GEMM_EPILOGUE_DRELU         ? "drelu"
                                                             : "bias",
             e.beta != 0.0f ? e.addend : nullptr, nullptr, 0, e.aux,
             epilogueReadsAux(e.epilogue), static_cast<int64_t>(auxBytes));
  return countOnlyGemm(g) || cpu::GemmEpilogue(call, e, result);
}

bool GemmBiasGrad(const char *call, const GemmBiasGradArgs &e,
                  NoResult &result) {
  count(&AmpSimStats::libraryCalls);
  GemmArgs g = getGemmArgs(e);
  int64_t elements = getBiasGradElements(e);
  uint64_t bytes =
      static_cast<uint64_t>(elements) * gemmElementSize(e.cType);
  if (!checkGemmRanges(call, g) ||
      !checkDeviceRange(call, "biasGrad", e.biasGrad, bytes))
    return false;
  recordGemm(call, g, peakOfType(g.aType), nullptr,
             e.operand == AMP_GEMM_BIAS_GRAD_A ? "bgrad_a" : "bgrad_b", nullptr,
             e.biasGrad, elements);
  if (state().countOnly.load()) {
    std::memset(e.biasGrad, 0, bytes);
    return countOnlyGemm(g);
  }
  return cpu::GemmBiasGrad(call, e, result);
}

bool ScaledGemm(const char *call, const ScaledGemmArgs &s, NoResult &result) {
  // cuBLASLt's layout rules were checked (check()); the simulator models no
  // architecture, so not the compute capability 8.9 its FP8 kernels need.
  count(&AmpSimStats::libraryCalls);
  auto scalar = [&](const char *name, const void *pointer) {
    return !pointer || checkDeviceRange(call, name, pointer, sizeof(float));
  };
  if (!checkGemmRanges(call, getGemmArgs(s)) || !scalar("aScale", s.aScale) ||
      !scalar("bScale", s.bScale) || !scalar("dAmax", s.dAmax))
    return false;
  recordGemm(call, getGemmArgs(s), ::amp::sim::Peak::Fp8);
  if (countOnlyGemm(getGemmArgs(s))) {
    if (s.dAmax)
      std::memset(s.dAmax, 0, sizeof(float));
    return true;
  }
  // The GPU's plan (lib/ScaledGemmPlan.h, lib/GpuScaledGemm.cpp): the same
  // cuBLASLt description, checked against cuBLASLt's rules, and the same
  // passes of the runtime's kernel around it, with the CPU reference as
  // cuBLASLt (its amax only where the description sets AMAX_D_POINTER).
  size_t scratchBytes = gpuls::scaledGemmScratchBytes(s);
  gpuls::DevicePtr scratch = 0;
  if (scratchBytes && !gpuls::device::allocate(call, scratchBytes, &scratch))
    return false;
  bool ok = gpuls::runScaledGemm(call, s, scratch,
                                 [&](const CublasLtFloat8Matmul &description,
                                     const gpuls::ScaledGemmOutput &output) {
                                   ScaledGemmArgs lt = s;
                                   lt.c = output.pointer;
                                   lt.cType = description.dType;
                                   lt.ldc = output.ld;
                                   lt.strideC = output.stride;
                                   lt.dAmax =
                                       description.amaxD ? s.dAmax : nullptr;
                                   return cpu::ScaledGemm(call, lt, result);
                                 });
  // A live allocation of its own: releasing it sets no error (a failure's
  // message stays).
  gpuls::device::release(call, scratch);
  return ok;
}

/// Count-only mode (ampSimSetCountOnly): the output of a convolution
/// (`count` elements of `type`) is zero instead of computed.
static bool countOnlyConv(void *out, int64_t count, int32_t type) {
  if (!state().countOnly.load())
    return false;
  std::memset(out, 0, size_t(count) * dtypeSize(type));
  return true;
}

bool Conv(const char *call, const ConvArgs &v, NoResult &result) {
  count(&AmpSimStats::libraryCalls);
  int64_t xCount = v.n * v.c * v.h * v.w,
          wCount = v.f * (v.c / v.groups) * v.kh * v.kw,
          yCount = v.n * v.f * v.oh * v.ow;
  return checkDeviceRange(call, "x", v.x,
                          uint64_t(xCount) * dtypeSize(v.xType)) &&
         checkDeviceRange(call, "wt", v.wt,
                          uint64_t(wCount) * dtypeSize(v.wType)) &&
         checkDeviceRange(call, "y", v.y,
                          uint64_t(yCount) * dtypeSize(v.yType)) &&
         (recordConvWork(call, v, xCount, wCount, yCount), true) &&
         (countOnlyConv(v.y, yCount, v.yType) || cpu::Conv(call, v, result));
}

bool ConvEpilogue(const char *call, const ConvEpilogueArgs &e,
                  NoResult &result) {
  count(&AmpSimStats::libraryCalls);
  int64_t xCount = e.n * e.c * e.h * e.w, wCount = e.f * e.c * e.kh * e.kw,
          yCount = e.n * e.f * e.oh * e.ow;
  uint64_t yBytes = uint64_t(yCount) * dtypeSize(e.yType);
  return checkDeviceRange(call, "x", e.x,
                          uint64_t(xCount) * dtypeSize(e.xType)) &&
         checkDeviceRange(call, "wt", e.wt,
                          uint64_t(wCount) * dtypeSize(e.wType)) &&
         checkDeviceRange(call, "y", e.y, yBytes) &&
         (!e.scale ||
          checkDeviceRange(call, "scale", e.scale, uint64_t(e.f) * 4)) &&
         (!e.bias ||
          checkDeviceRange(call, "bias", e.bias, uint64_t(e.f) * 4)) &&
         (!e.residual ||
          checkDeviceRange(call, "residual", e.residual, yBytes)) &&
         (recordConvEpilogueWork(call, e, xCount, wCount, yCount), true) &&
         (countOnlyConv(e.y, yCount, e.yType) ||
          cpu::ConvEpilogue(call, e, result));
}

// The backward convolutions: dy (n*f*oh*ow), the filter or x, and the
// gradient, each checked against the device allocations, recorded as
// Cudnn.cpp runs them (the same FLOPs as the forward convolution), then
// computed by the CPU twin.
bool ConvBackwardData(const char *call, const ConvBackwardDataArgs &d,
                      NoResult &result) {
  count(&AmpSimStats::libraryCalls);
  int64_t dyCount = d.n * d.f * d.oh * d.ow,
          wCount = d.f * (d.c / d.groups) * d.kh * d.kw,
          dxCount = d.n * d.c * d.h * d.w;
  return checkDeviceRange(call, "dy", d.dy,
                          uint64_t(dyCount) * dtypeSize(d.dyType)) &&
         checkDeviceRange(call, "wt", d.wt,
                          uint64_t(wCount) * dtypeSize(d.wType)) &&
         checkDeviceRange(call, "dx", d.dx,
                          uint64_t(dxCount) * dtypeSize(d.dxType)) &&
         (recordConvWork(call, getConvArgs(d), dyCount, wCount, dxCount),
          true) &&
         (countOnlyConv(d.dx, dxCount, d.dxType) ||
          cpu::ConvBackwardData(call, d, result));
}

bool ConvBackwardFilter(const char *call, const ConvBackwardFilterArgs &d,
                        NoResult &result) {
  count(&AmpSimStats::libraryCalls);
  int64_t xCount = d.n * d.c * d.h * d.w, dyCount = d.n * d.f * d.oh * d.ow,
          dwCount = d.f * (d.c / d.groups) * d.kh * d.kw;
  return checkDeviceRange(call, "x", d.x,
                          uint64_t(xCount) * dtypeSize(d.xType)) &&
         checkDeviceRange(call, "dy", d.dy,
                          uint64_t(dyCount) * dtypeSize(d.dyType)) &&
         checkDeviceRange(call, "dw", d.dw,
                          uint64_t(dwCount) * dtypeSize(d.dwType)) &&
         (recordConvWork(call, getConvArgs(d), xCount, dyCount, dwCount),
          true) &&
         (countOnlyConv(d.dw, dwCount, d.dwType) ||
          cpu::ConvBackwardFilter(call, d, result));
}

/// Where one strided operand of an attention call lies: its name, pointer
/// (NULL: none, for the optional ones), element size, sequence length, row
/// length (the contiguous elements of each row) and its batch, head and
/// sequence strides.
struct AttentionRange {
  const char *name;
  const void *pointer;
  size_t elementSize;
  int64_t seq, row, strideB, strideH, strideS;
};

/// Each operand, from its first element to its last, within one live
/// allocation.
static bool checkAttentionRanges(const char *call, int64_t batch, int64_t heads,
                                 std::initializer_list<AttentionRange> ops) {
  for (const AttentionRange &op : ops) {
    uint64_t span =
        uint64_t((batch - 1) * op.strideB + (heads - 1) * op.strideH +
                 (op.seq - 1) * op.strideS + op.row);
    if (op.pointer &&
        !checkDeviceRange(call, op.name, op.pointer, span * op.elementSize))
      return false;
  }
  return true;
}

/// The record's name of an attention call (forward or backward): "<call>
/// <dtype> b=.. h=.. sq=.. skv=.. d=..", then " causal" and " bias" where
/// they apply.
template <typename Args>
static std::string attentionName(const char *call, const Args &a) {
  std::string name =
      std::string(call) + " " + dtypeName(a.dtype) +
      " b=" + std::to_string(a.batch) + " h=" + std::to_string(a.heads) +
      " sq=" + std::to_string(a.seqQ) + " skv=" + std::to_string(a.seqKV) +
      " d=" + std::to_string(a.headDim);
  if (a.causal)
    name += " causal";
  if (a.bias)
    name += " bias";
  return name;
}

/// The elements of an attention call's bias (0 without one), each read once
/// whatever it broadcasts over.
template <typename Args> static int64_t attentionBiasCount(const Args &a) {
  if (!a.bias)
    return 0;
  return (a.biasStrideB ? a.batch : 1) * (a.biasStrideH ? a.heads : 1) *
         a.seqQ * a.seqKV;
}

/// Count-only mode: the headDim elements of each row of one strided output
/// made zero.
static void zeroAttentionRows(void *data, size_t size, int64_t batch,
                              int64_t heads, int64_t seq, int64_t headDim,
                              int64_t strideB, int64_t strideH,
                              int64_t strideS) {
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < seq; ++i)
        std::memset(static_cast<char *>(data) +
                        (b * strideB + h * strideH + i * strideS) *
                            int64_t(size),
                    0, size_t(headDim) * size);
}

/// cuDNN's fused attention reads q, k, v (and the bias, as broadcast) once
/// and writes out (and stats) once: 4*batch*heads*seqQ*seqKV*headDim FLOPs
/// (the two products), half of it when causal (the masked tiles are
/// skipped), at the 16-bit tensor-core rate.
static void recordAttention(const char *call, const AttentionArgs &a) {
  ::amp::sim::Work work;
  int64_t size = static_cast<int64_t>(dtypeSize(a.dtype));
  int64_t qo = a.batch * a.heads * a.seqQ * a.headDim,
          kv = a.batch * a.heads * a.seqKV * a.headDim;
  work.bytesRead = (qo + 2 * kv + attentionBiasCount(a)) * size;
  work.bytesWritten =
      qo * size + (a.stats ? a.batch * a.heads * a.seqQ * 4 : 0);
  work.flops =
      4 * a.batch * a.heads * a.seqQ * a.seqKV * a.headDim / (a.causal ? 2 : 1);
  work.peak = ::amp::sim::Peak::F16;
  work.library = true;
  std::string name = attentionName(call, a);
  if (a.stats)
    name += " stats";
  ::amp::sim::record(AMP_SIM_RECORD_LIBRARY, name, {work});
  for (const void *input : {a.q, a.k, a.v, a.bias})
    if (input)
      ::amp::sim::markAccess(input, false);
  ::amp::sim::markAccess(a.out, true);
  if (a.stats)
    ::amp::sim::markAccess(a.stats, true);
}

bool Attention(const char *call, const AttentionArgs &a, NoResult &result) {
  count(&AmpSimStats::libraryCalls);
  size_t size = dtypeSize(a.dtype);
  int64_t d = a.headDim;
  if (!checkAttentionRanges(
          call, a.batch, a.heads,
          {{"q", a.q, size, a.seqQ, d, a.qStrideB, a.qStrideH, a.qStrideS},
           {"k", a.k, size, a.seqKV, d, a.kStrideB, a.kStrideH, a.kStrideS},
           {"v", a.v, size, a.seqKV, d, a.vStrideB, a.vStrideH, a.vStrideS},
           {"out", a.out, size, a.seqQ, d, a.outStrideB, a.outStrideH,
            a.outStrideS},
           {"bias", a.bias, size, a.seqQ, a.seqKV, a.biasStrideB, a.biasStrideH,
            a.biasStrideS},
           {"stats", a.stats, sizeof(float), a.seqQ, 1, a.heads * a.seqQ,
            a.seqQ, 1}}))
    return false;
  recordAttention(call, a);
  if (state().countOnly.load()) {
    // Count-only mode: out (row by row) and stats are zero.
    zeroAttentionRows(a.out, size, a.batch, a.heads, a.seqQ, d, a.outStrideB,
                      a.outStrideH, a.outStrideS);
    if (a.stats)
      std::memset(a.stats, 0,
                  size_t(a.batch * a.heads * a.seqQ) * sizeof(float));
    return true;
  }
  return cpu::Attention(call, a, result);
}

/// cuDNN's fused attention backward reads q, k, v, out, dOut, the f32 stats
/// (and the bias, as broadcast) once and writes dq, dk and dv once:
/// 10*batch*heads*seqQ*seqKV*headDim FLOPs (the five products: the scores
/// again, dP, dV, dQ and dK), half of it when causal, at the 16-bit
/// tensor-core rate.
static void recordAttentionBackward(const char *call,
                                    const AttentionBackwardArgs &a) {
  ::amp::sim::Work work;
  int64_t size = static_cast<int64_t>(dtypeSize(a.dtype));
  int64_t qo = a.batch * a.heads * a.seqQ * a.headDim,
          kv = a.batch * a.heads * a.seqKV * a.headDim;
  work.bytesRead = (3 * qo + 2 * kv + attentionBiasCount(a)) * size +
                   a.batch * a.heads * a.seqQ * 4;
  work.bytesWritten = (qo + 2 * kv) * size;
  work.flops = 10 * a.batch * a.heads * a.seqQ * a.seqKV * a.headDim /
               (a.causal ? 2 : 1);
  work.peak = ::amp::sim::Peak::F16;
  work.library = true;
  ::amp::sim::record(AMP_SIM_RECORD_LIBRARY, attentionName(call, a), {work});
  for (const void *input : {a.q, a.k, a.v, a.out, a.dOut,
                            static_cast<const void *>(a.stats), a.bias})
    if (input)
      ::amp::sim::markAccess(input, false);
  for (void *output : {a.dq, a.dk, a.dv})
    ::amp::sim::markAccess(output, true);
}

bool AttentionBackward(const char *call, const AttentionBackwardArgs &a,
                       NoResult &result) {
  count(&AmpSimStats::libraryCalls);
  size_t size = dtypeSize(a.dtype);
  int64_t d = a.headDim;
  if (!checkAttentionRanges(
          call, a.batch, a.heads,
          {{"q", a.q, size, a.seqQ, d, a.qStrideB, a.qStrideH, a.qStrideS},
           {"k", a.k, size, a.seqKV, d, a.kStrideB, a.kStrideH, a.kStrideS},
           {"v", a.v, size, a.seqKV, d, a.vStrideB, a.vStrideH, a.vStrideS},
           {"out", a.out, size, a.seqQ, d, a.outStrideB, a.outStrideH,
            a.outStrideS},
           {"dOut", a.dOut, size, a.seqQ, d, a.dOutStrideB, a.dOutStrideH,
            a.dOutStrideS},
           {"stats", a.stats, sizeof(float), a.seqQ, 1, a.heads * a.seqQ,
            a.seqQ, 1},
           {"dq", a.dq, size, a.seqQ, d, a.dqStrideB, a.dqStrideH, a.dqStrideS},
           {"dk", a.dk, size, a.seqKV, d, a.dkStrideB, a.dkStrideH,
            a.dkStrideS},
           {"dv", a.dv, size, a.seqKV, d, a.dvStrideB, a.dvStrideH,
            a.dvStrideS},
           {"bias", a.bias, size, a.seqQ, a.seqKV, a.biasStrideB, a.biasStrideH,
            a.biasStrideS}}))
    return false;
  recordAttentionBackward(call, a);
  if (state().countOnly.load()) {
    // Count-only mode: the gradients are zero.
    zeroAttentionRows(a.dq, size, a.batch, a.heads, a.seqQ, d, a.dqStrideB,
                      a.dqStrideH, a.dqStrideS);
    zeroAttentionRows(a.dk, size, a.batch, a.heads, a.seqKV, d, a.dkStrideB,
                      a.dkStrideH, a.dkStrideS);
    zeroAttentionRows(a.dv, size, a.batch, a.heads, a.seqKV, d, a.dvStrideB,
                      a.dvStrideH, a.dvStrideS);
    return true;
  }
  return cpu::AttentionBackward(call, a, result);
}

// The unscale calls launch the kernels of cuda/LossScaling.cu, as on a GPU
// (lib/GpuLossScaling.cpp on SimLossScaling.cpp's device): one launch per
// buffer, and one per 96 entries of a table.
bool UnscaleBuffer(const char *call, const UnscaleBufferArgs &u, NoResult &) {
  count(&AmpSimStats::libraryCalls);
  uint64_t bytes = uint64_t(u.numel) * dtypeSize(u.dtype);
  return checkDeviceRange(call, "in", u.in, bytes) &&
         checkDeviceRange(call, "out", u.out, bytes) &&
         checkDeviceRange(call, "invScale", u.invScale, sizeof(float)) &&
         checkDeviceRange(call, "foundInf", u.foundInf, 1) &&
         (markAccess(u.in, false), markAccess(u.out, true), true) &&
         gpuls::unscaleBuffer(call, u);
}

bool UnscaleBuffers(const char *call, const UnscaleBuffersArgs &u, NoResult &) {
  count(&AmpSimStats::libraryCalls);
  // The table itself is host memory (passed by value to the kernel); the
  // buffers it names are device memory.
  for (int64_t i = 0; i < u.count; ++i) {
    uint64_t bytes = uint64_t(u.numels[i]) * dtypeSize(u.dtypes[i]);
    if (!checkDeviceRange(call, "in", u.ins[i], bytes) ||
        !checkDeviceRange(call, "out", u.outs[i], bytes))
      return false;
  }
  if (!checkDeviceRange(call, "invScale", u.invScale, sizeof(float)) ||
      !checkDeviceRange(call, "foundInf", u.foundInf, 1))
    return false;
  // The kernels' launches are recorded as kernels (SimKernels.cpp); here,
  // what the ideal counts.
  for (int64_t i = 0; i < u.count; ++i) {
    ::amp::sim::markAccess(u.ins[i], false);
    ::amp::sim::markAccess(u.outs[i], true);
  }
  return gpuls::unscaleBuffers(call, u);
}

// The optimizer update launches the kernel of cuda/LossScaling.cu, as on a
// GPU: one launch per 48 non-empty entries.
bool OptimizerUpdate(const char *call, const OptimizerUpdateArgs &u,
                     NoResult &) {
  count(&AmpSimStats::libraryCalls);
  const bool adam =
      u.kind == AMP_OPTIMIZER_ADAM || u.kind == AMP_OPTIMIZER_ADAMW;
  const bool velocity = u.kind == AMP_OPTIMIZER_MOMENTUM && u.momentum > 0.0f;
  // The table itself is host memory (a kernel parameter); the buffers it
  // names, the step count and the flag are device memory.
  struct Range {
    const char *name;
    const void *pointer;
    bool used, write;
  };
  for (int64_t i = 0; i < u.count; ++i) {
    uint64_t n = uint64_t(u.numels[i]);
    const Range ranges[] = {
        {"params", u.params[i], true, false},
        {"paramsOut", u.paramsOut[i], true, true},
        {"state0", u.state0 ? u.state0[i] : nullptr, velocity || adam, false},
        {"state0Out", u.state0Out ? u.state0Out[i] : nullptr, velocity || adam,
         true},
        {"state1", u.state1 ? u.state1[i] : nullptr, adam, false},
        {"state1Out", u.state1Out ? u.state1Out[i] : nullptr, adam, true}};
    if (!checkDeviceRange(call, "grads", u.grads[i],
                          n * dtypeSize(u.gradTypes[i])))
      return false;
    for (const Range &r : ranges)
      if (r.used && !checkDeviceRange(call, r.name, r.pointer, n * 4))
        return false;
    ::amp::sim::markAccess(u.grads[i], false);
    for (const Range &r : ranges)
      if (r.used)
        ::amp::sim::markAccess(r.pointer, r.write);
  }
  if (!checkDeviceRange(call, "step", u.step, sizeof(int32_t)) ||
      !checkDeviceRange(call, "skip", u.skip, 1))
    return false;
  return gpuls::optimizerUpdateBuffers(call, u);
}

bool AllReduce(const char *call, const AllReduceArgs &r, NoResult &) {
  // Device buffers are host memory here: reduced in place, after the range
  // check (kernels have already run: launches are synchronous).
  count(&AmpSimStats::libraryCalls);
  uint64_t bytes = uint64_t(r.count) * collectiveElementSize(r.dtype);
  if (!checkDeviceRange(call, "data", r.data, bytes))
    return false;
  // Not modelled: the host round trip and the network (a launch cost).
  ::amp::sim::Work work;
  work.library = true;
  ::amp::sim::record(AMP_SIM_RECORD_LIBRARY, call, {work});
  return allReduceHost(call, r.data, r.count, r.dtype, r.kind);
}

bool Constant(const char *call, const ConstantArgs &k, void *&result) {
  // One device copy per constant of a loaded module, cached in its slot
  // (LibraryCalls.def), as the CUDA runtime does.
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::atomic<void *> *slot = getConstantSlot(k.slot);
  if (void *cached = slot->load()) {
    result = cached;
    return true;
  }
  if (!::amp::sim::checkNotCapturing(
          call, "a constant used for the first time (its upload; capture "
                "after a call that ran the same code)"))
    return false;
  void *device = allocate(call, uint64_t(k.bytes), /*persistent=*/true);
  if (!device)
    return false;
  std::memcpy(device, k.hostPtr, size_t(k.bytes));
  ::amp::sim::Work work;
  work.bytesWritten = work.hostBytes = k.bytes;
  ::amp::sim::record(AMP_SIM_RECORD_COPY, "constant upload host->device",
                     {work});
  slot->store(device);
  result = device;
  return true;
}

/// What a call recorded in a capture keeps of its arguments: a copy. The
/// calls whose tables are host memory read before they return (the unscale
/// and the optimizer of a step) keep copies of the tables too, as the CUDA
/// runtime passes them to its kernel by value.
template <typename Args> struct Captured {
  explicit Captured(const Args &args) : args(args) {}
  Captured(const Captured &) = delete;
  Args args;
};

/// Points `field` (a host table of `count` entries, or null) at a copy in
/// `keep`.
template <typename T>
static void keepTable(std::vector<std::remove_const_t<T>> &keep, T *&field,
                      int64_t count) {
  if (!field)
    return;
  keep.assign(field, field + count);
  field = keep.data();
}

template <> struct Captured<UnscaleBuffersArgs> {
  explicit Captured(const UnscaleBuffersArgs &given) : args(given) {
    keepTable(ins, args.ins, args.count);
    keepTable(outs, args.outs, args.count);
    keepTable(numels, args.numels, args.count);
    keepTable(dtypes, args.dtypes, args.count);
  }
  Captured(const Captured &) = delete;
  UnscaleBuffersArgs args;
  std::vector<const void *> ins;
  std::vector<void *> outs;
  std::vector<int64_t> numels;
  std::vector<int32_t> dtypes;
};

template <> struct Captured<OptimizerUpdateArgs> {
  explicit Captured(const OptimizerUpdateArgs &given) : args(given) {
    int64_t n = args.count;
    keepTable(params, args.params, n);
    keepTable(paramsOut, args.paramsOut, n);
    keepTable(grads, args.grads, n);
    keepTable(gradTypes, args.gradTypes, n);
    keepTable(state0, args.state0, n);
    keepTable(state0Out, args.state0Out, n);
    keepTable(state1, args.state1, n);
    keepTable(state1Out, args.state1Out, n);
    keepTable(numels, args.numels, n);
  }
  Captured(const Captured &) = delete;
  OptimizerUpdateArgs args;
  std::vector<const float *> params, state0, state1;
  std::vector<float *> paramsOut, state0Out, state1Out;
  std::vector<const void *> grads;
  std::vector<int32_t> gradTypes;
  std::vector<int64_t> numels;
};

/// The body of every entry point on the simulator: runLibraryCall, or,
/// while the stream is captured, the argument checks now and the call
/// recorded for the graph's launches. A call with a result (ampGpuConstant's
/// pointer) runs now, as it does in a CUDA capture.
template <typename Args, typename Result>
static Result runOrCapture(const char *call, const Args &args,
                           bool (*backend)(const char *, const Args &,
                                           Result &)) {
  if (!::amp::sim::capturing() || !std::is_same<Result, NoResult>::value)
    return runLibraryCall(call, args, /*onGpu=*/true, backend);
  CallCheck checked = check(call, args, /*onGpu=*/true);
  if (checked == CallCheck::Invalid) {
    raiseLastError();
    return Result{};
  }
  if (checked == CallCheck::Work) {
    auto captured = std::make_shared<Captured<Args>>(args);
    ::amp::sim::captureRecord([call, captured, backend] {
      runCheckedLibraryCall(call, captured->args, CallCheck::Work, backend);
    });
  }
  return Result{};
}

} // namespace sim
} // namespace rt
} // namespace amp

// Every GPU entry point of LibraryCalls.def on the simulator.
#define AMP_LIBRARY_CALL(STEM, GPU_NAME, CPU_NAME, RESULT, PARAMS)             \
  extern "C" AMP_LIBRARY_CALL_C_RESULT_##RESULT GPU_NAME(                      \
      PARAMS(AMP_LIBRARY_CALL_C_PARAM, AMP_LIBRARY_CALL_COMMA)) {              \
    using namespace ::amp::rt;                                                 \
    return static_cast<AMP_LIBRARY_CALL_C_RESULT_##RESULT>(                    \
        ::amp::rt::sim::runOrCapture<STEM##Args, LibraryCallResult##RESULT>(   \
            #GPU_NAME,                                                         \
            STEM##Args{PARAMS(AMP_LIBRARY_CALL_ARG, AMP_LIBRARY_CALL_COMMA)},  \
            ::amp::rt::sim::STEM));                                            \
  }
#include "amp/runtime/LibraryCalls.def"

// Every row of GpuApi.def, with the row's signature: the device queries
// below, the loss scaler, tensor tables and optimizers in
// lib/GpuLossScaling.cpp (the CUDA runtime's host half, on the device of
// SimLossScaling.cpp).
#define AMP_GPU_API_FUNCTION AMP_GPU_API_CHECK
#include "amp/runtime/GpuApi.def"

extern "C" {

int ampGpuAvailable(void) { return 1; }

// The simulator models no architecture: every type is accepted.
int ampGpuComputeCapability(void) { return 0; }

int ampGpuDeviceName(char *buf, size_t len) {
  if (!buf || !len)
    return 1;
  std::strncpy(buf, "amp-mlir GPU simulator (CPU)", len - 1);
  buf[len - 1] = '\0';
  return 0;
}

void ampGpuSynchronize(void) {
  if (!capturing())
    count(&AmpSimStats::synchronizations);
}

void ampGpuSetConvExhaustiveSearch(int) {}

} // extern "C"
