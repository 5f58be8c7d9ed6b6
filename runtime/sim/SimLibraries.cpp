//===- SimLibraries.cpp - library calls served by the CPU references ------===//
//
// Part of amp-mlir. The ampGpu* entry points that compiled code calls,
// checked as the GPU versions check them (cuBLAS's int32 sizes, cuDNN's
// symmetric padding), with every operand range checked against the live
// device allocations, then computed by the CPU twin (ampCpu*) of the same
// signature.
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/AmpLossScaling.h"
#include "amp/runtime/AmpRuntime.h"

#include "../lib/Collectives.h"
#include "../lib/Internal.h"
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

void ampGpuGemm(int32_t transA, int32_t transB, int64_t batch, int64_t m,
                int64_t n, int64_t k, const void *a, int32_t aType, int64_t lda,
                int64_t strideA, const void *b, int32_t bType, int64_t ldb,
                int64_t strideB, void *c, int32_t cType, int64_t ldc,
                int64_t strideC, float beta) {
  const char *call = "ampGpuGemm";
  count(&AmpSimStats::libraryCalls);
  GemmArgs g{transA, transB, batch,   m,       n,     k,   a,
             aType,  lda,    strideA, b,       bType, ldb, strideB,
             c,      cType,  ldc,     strideC, beta};
  if (!validateGemm(call, g, /*forCuBlas=*/true))
    return raiseLastError();
  uint64_t aSpan =
      matrixSpan(batch, transA ? k : m, transA ? m : k, lda, strideA);
  uint64_t bSpan =
      matrixSpan(batch, transB ? n : k, transB ? k : n, ldb, strideB);
  uint64_t cSpan = matrixSpan(batch, m, n, ldc, strideC);
  if (!checkDeviceRange(call, "A", a, aSpan * dtypeSize(aType)) ||
      !checkDeviceRange(call, "B", b, bSpan * dtypeSize(bType)) ||
      !checkDeviceRange(call, "C", c, cSpan * dtypeSize(cType)))
    return raiseLastError();
  ampCpuGemm(transA, transB, batch, m, n, k, a, aType, lda, strideA, b, bType,
             ldb, strideB, c, cType, ldc, strideC, beta);
}

void ampGpuConv2d(int32_t layout, int64_t n, int64_t c, int64_t h, int64_t w,
                  int64_t f, int64_t kh, int64_t kw, int64_t oh, int64_t ow,
                  int64_t padTop, int64_t padLeft, int64_t strideH,
                  int64_t strideW, int64_t dilH, int64_t dilW, const void *x,
                  int32_t xType, const void *wt, int32_t wType, void *y,
                  int32_t yType, float beta) {
  const char *call = "ampGpuConv2d";
  count(&AmpSimStats::libraryCalls);
  ConvArgs v{layout, n,     c,      h,       w,       f,       kh,   kw,
             oh,     ow,    padTop, padLeft, strideH, strideW, dilH, dilW,
             x,      xType, wt,     wType,   y,       yType,   beta};
  if (!validateConv(call, v, /*forCuDnn=*/true))
    return raiseLastError();
  if (!checkDeviceRange(call, "x", x,
                        uint64_t(n * c * h * w) * dtypeSize(xType)) ||
      !checkDeviceRange(call, "wt", wt,
                        uint64_t(f * c * kh * kw) * dtypeSize(wType)) ||
      !checkDeviceRange(call, "y", y,
                        uint64_t(n * f * oh * ow) * dtypeSize(yType)))
    return raiseLastError();
  ampCpuConv2d(layout, n, c, h, w, f, kh, kw, oh, ow, padTop, padLeft, strideH,
               strideW, dilH, dilW, x, xType, wt, wType, y, yType, beta);
}

void ampGpuCheckFiniteAndUnscaleBuffer(const void *in, void *out, int64_t numel,
                                       int32_t dtype, const float *invScale,
                                       uint8_t *foundInf) {
  const char *call = "ampGpuCheckFiniteAndUnscaleBuffer";
  count(&AmpSimStats::libraryCalls);
  if (!validateUnscaleBuffer(call, in, out, numel, dtype, invScale, foundInf))
    return raiseLastError();
  uint64_t bytes = uint64_t(numel) * dtypeSize(dtype);
  if (!checkDeviceRange(call, "in", in, bytes) ||
      !checkDeviceRange(call, "out", out, bytes) ||
      !checkDeviceRange(call, "invScale", invScale, sizeof(float)) ||
      !checkDeviceRange(call, "foundInf", foundInf, 1))
    return raiseLastError();
  ampCpuCheckFiniteAndUnscaleBuffer(in, out, numel, dtype, invScale, foundInf);
}

void ampGpuCheckFiniteAndUnscaleBuffers(int64_t count, const void *const *ins,
                                        void *const *outs,
                                        const int64_t *numels,
                                        const int32_t *dtypes,
                                        const float *invScale,
                                        uint8_t *foundInf) {
  const char *call = "ampGpuCheckFiniteAndUnscaleBuffers";
  sim::count(&AmpSimStats::libraryCalls);
  if (!validateUnscaleBuffers(call, count, ins, outs, numels, dtypes, invScale,
                              foundInf))
    return raiseLastError();
  // The table itself is host memory (passed by value to the kernel); the
  // buffers it names are device memory.
  for (int64_t i = 0; i < count; ++i) {
    uint64_t bytes = uint64_t(numels[i]) * dtypeSize(dtypes[i]);
    if (!checkDeviceRange(call, "in", ins[i], bytes) ||
        !checkDeviceRange(call, "out", outs[i], bytes))
      return raiseLastError();
  }
  if (!checkDeviceRange(call, "invScale", invScale, sizeof(float)) ||
      !checkDeviceRange(call, "foundInf", foundInf, 1))
    return raiseLastError();
  ampCpuCheckFiniteAndUnscaleBuffers(count, ins, outs, numels, dtypes, invScale,
                                     foundInf);
}

void ampGpuAllReduce(void *deviceData, int64_t count, int32_t dtype,
                     int32_t kind) {
  // Device buffers are host memory here: reduced in place, after the range
  // check (kernels have already run: launches are synchronous).
  const char *call = "ampGpuAllReduce";
  sim::count(&AmpSimStats::libraryCalls);
  if (!validateAllReduce(call, deviceData, count, dtype, kind))
    return raiseLastError();
  uint64_t bytes = uint64_t(count) * collectiveElementSize(dtype);
  if ((count > 0 && !checkDeviceRange(call, "data", deviceData, bytes)) ||
      !allReduceHost(call, deviceData, count, dtype, kind))
    return raiseLastError();
}

void *ampGpuConstant(const void *hostPtr, int64_t bytes) {
  // One device copy per (address, size), for the life of the process, as
  // the runtime caches it for the life of the loaded module.
  static std::mutex mutex;
  static std::map<std::pair<const void *, int64_t>, void *> cache;
  if (bytes <= 0)
    return nullptr;
  if (!hostPtr) {
    raiseError("ampGpuConstant", "null host pointer");
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(mutex);
  void *&device = cache[{hostPtr, bytes}];
  if (!device) {
    device = allocate("ampGpuConstant", uint64_t(bytes), /*persistent=*/true);
    if (device)
      std::memcpy(device, hostPtr, size_t(bytes));
  }
  return device;
}

} // extern "C"
