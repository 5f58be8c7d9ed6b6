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
#include "../lib/GpuApi.h"
#include "../lib/GpuLossScalingDevice.h"
#include "../lib/Internal.h"
#include "../lib/LibraryCallEntries.h"
#include "SimState.h"

#include <cstring>
#include <map>
#include <mutex>
#include <utility>

using namespace amp;
using namespace amp::rt;
using namespace amp::sim;

/// Elements spanned by `batch` row-major `rows x cols` matrices with leading
/// dimension `ld`, `stride` apart.
static uint64_t matrixSpan(int64_t batch, int64_t rows, int64_t cols,
                           int64_t ld, int64_t stride) {
  uint64_t one = static_cast<uint64_t>((rows - 1) * ld + cols);
  return one + static_cast<uint64_t>((batch > 1 ? batch - 1 : 0) * stride);
}

namespace amp {
namespace rt {
namespace sim {

/// A, B and C of `g` lie in live device allocations.
static bool checkGemmRanges(const char *call, const GemmArgs &g) {
  uint64_t aSpan = matrixSpan(g.batch, g.transA ? g.k : g.m,
                              g.transA ? g.m : g.k, g.lda, g.strideA);
  uint64_t bSpan = matrixSpan(g.batch, g.transB ? g.n : g.k,
                              g.transB ? g.k : g.n, g.ldb, g.strideB);
  uint64_t cSpan = matrixSpan(g.batch, g.m, g.n, g.ldc, g.strideC);
  return checkDeviceRange(call, "A", g.a, aSpan * gemmElementSize(g.aType)) &&
         checkDeviceRange(call, "B", g.b, bSpan * gemmElementSize(g.bType)) &&
         checkDeviceRange(call, "C", g.c, cSpan * gemmElementSize(g.cType));
}

bool Gemm(const char *call, const GemmArgs &g, NoResult &result) {
  count(&AmpSimStats::libraryCalls);
  return checkGemmRanges(call, g) && cpu::Gemm(call, g, result);
}

bool ScaledGemm(const char *call, const ScaledGemmArgs &s, NoResult &result) {
  // cuBLASLt's rules were checked (check()); the simulator models no
  // architecture, so not the compute capability 8.9 its FP8 kernels need.
  count(&AmpSimStats::libraryCalls);
  auto scalar = [&](const char *name, const void *pointer) {
    return !pointer || checkDeviceRange(call, name, pointer, sizeof(float));
  };
  return checkGemmRanges(call, getGemmArgs(s)) && scalar("aScale", s.aScale) &&
         scalar("bScale", s.bScale) && scalar("dAmax", s.dAmax) &&
         cpu::ScaledGemm(call, s, result);
}

bool Conv(const char *call, const ConvArgs &v, NoResult &result) {
  count(&AmpSimStats::libraryCalls);
  return checkDeviceRange(call, "x", v.x,
                          uint64_t(v.n * v.c * v.h * v.w) *
                              dtypeSize(v.xType)) &&
         checkDeviceRange(call, "wt", v.wt,
                          uint64_t(v.f * v.c * v.kh * v.kw) *
                              dtypeSize(v.wType)) &&
         checkDeviceRange(call, "y", v.y,
                          uint64_t(v.n * v.f * v.oh * v.ow) *
                              dtypeSize(v.yType)) &&
         cpu::Conv(call, v, result);
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
  return checkDeviceRange(call, "invScale", u.invScale, sizeof(float)) &&
         checkDeviceRange(call, "foundInf", u.foundInf, 1) &&
         gpuls::unscaleBuffers(call, u);
}

bool AllReduce(const char *call, const AllReduceArgs &r, NoResult &) {
  // Device buffers are host memory here: reduced in place, after the range
  // check (kernels have already run: launches are synchronous).
  count(&AmpSimStats::libraryCalls);
  uint64_t bytes = uint64_t(r.count) * collectiveElementSize(r.dtype);
  return checkDeviceRange(call, "data", r.data, bytes) &&
         allReduceHost(call, r.data, r.count, r.dtype, r.kind);
}

bool Constant(const char *call, const ConstantArgs &k, void *&result) {
  // One device copy per (address, size), for the life of the process, as
  // the runtime caches it for the life of the loaded module.
  static std::mutex mutex;
  static std::map<std::pair<const void *, int64_t>, void *> cache;
  std::lock_guard<std::mutex> lock(mutex);
  void *&device = cache[{k.hostPtr, k.bytes}];
  if (!device) {
    device = allocate(call, uint64_t(k.bytes), /*persistent=*/true);
    if (!device)
      return false;
    std::memcpy(device, k.hostPtr, size_t(k.bytes));
  }
  result = device;
  return true;
}

} // namespace sim
} // namespace rt
} // namespace amp

// Every GPU entry point of LibraryCalls.def on the simulator.
#define AMP_LIBRARY_CALL(STEM, GPU_NAME, CPU_NAME, RESULT, PARAMS)             \
  AMP_LIBRARY_CALL_ENTRY(GPU_NAME, STEM, RESULT, PARAMS, /*onGpu=*/true,       \
                         ::amp::rt::sim::STEM)
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

void ampGpuSynchronize(void) { count(&AmpSimStats::synchronizations); }

void ampGpuSetConvExhaustiveSearch(int) {}

} // extern "C"
