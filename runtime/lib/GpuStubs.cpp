//===- GpuStubs.cpp - GPU entry points of a build without CUDA ------------===//
//
// Part of amp-mlir. Compiled instead of the CUDA sources when CMake found no
// CUDA headers: the same symbols, module loads still recorded lazily (so the
// mgpuModuleLoad ctor and mgpuModuleUnload dtor work), argument errors still
// reported precisely, and every GPU operation reports that GPU support was
// not built.
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/MgpuAbi.h"

#include "Collectives.h"
#include "Internal.h"
#include "LibraryCallEntries.h"

#include <cstring>
#include <new>

using namespace amp::rt;

bool amp::rt::reportGpuNotBuilt(const char *call) {
  return setError(call,
                  "GPU support was not built: amp_runtime was compiled without "
                  "the CUDA headers (cuda.h, cublas_api.h, cudnn.h), so "
                  "libcuda.so.1, cuBLAS and cuDNN are never loaded; "
                  "reconfigure with AMP_RUNTIME_CUDA_ROOT=<CUDA toolkit>");
}

namespace {
bool noGpu(const char *call) { return reportGpuNotBuilt(call); }

void fail(const char *call) {
  noGpu(call);
  raiseLastError();
}

void *newModule(const char *call, const void *data, size_t size, bool isPtx,
                int optLevel) {
  auto *record = new (std::nothrow) ModuleRecord;
  if (!record) {
    raiseError(call, "out of memory");
    return nullptr;
  }
  record->data = data;
  record->size = size;
  record->isPtx = isPtx;
  record->optLevel = optLevel;
  return record;
}
} // namespace

// The library calls (LibraryCalls.def): their argument errors are reported
// precisely, calls with nothing to do succeed, the others report noGpu.
#define AMP_LIBRARY_CALL(STEM, GPU_NAME, CPU_NAME, RESULT, PARAMS)             \
  AMP_LIBRARY_CALL_ENTRY(GPU_NAME, STEM, RESULT, PARAMS, /*onGpu=*/true,       \
                         (notBuilt<STEM##Args, LibraryCallResult##RESULT>))
#include "amp/runtime/LibraryCalls.def"

extern "C" {

int ampGpuAvailable(void) {
  noGpu("ampGpuAvailable");
  return 0;
}

int ampGpuComputeCapability(void) {
  noGpu("ampGpuComputeCapability");
  return 0;
}

int ampGpuDeviceName(char *buf, size_t len) {
  if (buf && len)
    buf[0] = '\0';
  noGpu("ampGpuDeviceName");
  return 1;
}

void ampGpuSynchronize(void) {} // Nothing can have been queued.

void ampGpuSetConvExhaustiveSearch(int enable) { (void)enable; }

void *mgpuModuleLoad(void *blob, size_t size) {
  return newModule("mgpuModuleLoad", blob, size, false, 4);
}

void *mgpuModuleLoadJIT(void *ptx, int optLevel) {
  return newModule("mgpuModuleLoadJIT", ptx,
                   ptx ? std::strlen(static_cast<char *>(ptx)) + 1 : 0, true,
                   optLevel);
}

void mgpuModuleUnload(void *module) {
  auto *record = static_cast<ModuleRecord *>(module);
  if (!record)
    return;
  if (record->magic != ModuleRecord::kMagic)
    return raiseError("mgpuModuleUnload", "invalid module handle %p", module);
  record->magic = 0;
  delete record;
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  (void)module;
  (void)name;
  fail("mgpuModuleGetFunction");
  return nullptr;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount) {
  (void)function, (void)gridX, (void)gridY, (void)gridZ, (void)blockX;
  (void)blockY, (void)blockZ, (void)smem, (void)stream, (void)params;
  (void)extra, (void)paramsCount;
  fail("mgpuLaunchKernel");
}

void mgpuLaunchClusterKernel(void *function, intptr_t clusterX,
                             intptr_t clusterY, intptr_t clusterZ,
                             intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                             intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                             int32_t smem, void *stream, void **params,
                             void **extra) {
  (void)function, (void)clusterX, (void)clusterY, (void)clusterZ;
  (void)gridX, (void)gridY, (void)gridZ, (void)blockX, (void)blockY;
  (void)blockZ, (void)smem, (void)stream, (void)params, (void)extra;
  fail("mgpuLaunchClusterKernel");
}

void *mgpuStreamCreate(void) {
  fail("mgpuStreamCreate");
  return nullptr;
}

void mgpuStreamDestroy(void *stream) { (void)stream; }

void mgpuStreamSynchronize(void *stream) {
  (void)stream;
  fail("mgpuStreamSynchronize");
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  (void)stream, (void)event;
  fail("mgpuStreamWaitEvent");
}

void *mgpuEventCreate(void) {
  fail("mgpuEventCreate");
  return nullptr;
}

void mgpuEventDestroy(void *event) {
  (void)event;
  fail("mgpuEventDestroy");
}

void mgpuEventSynchronize(void *event) {
  (void)event;
  fail("mgpuEventSynchronize");
}

void mgpuEventRecord(void *event, void *stream) {
  (void)event, (void)stream;
  fail("mgpuEventRecord");
}

void *mgpuMemAlloc(uint64_t bytes, void *stream, bool hostShared) {
  (void)stream, (void)hostShared;
  if (bytes == 0)
    return nullptr;
  fail("mgpuMemAlloc");
  return nullptr;
}

void mgpuMemFree(void *ptr, void *stream) {
  (void)stream;
  if (ptr)
    fail("mgpuMemFree");
}

void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream) {
  (void)dst, (void)src, (void)stream;
  if (bytes)
    fail("mgpuMemcpy");
}

void mgpuMemset32(void *dst, uint32_t value, size_t count, void *stream) {
  (void)dst, (void)value, (void)stream;
  if (count)
    fail("mgpuMemset32");
}

void mgpuMemset16(void *dst, uint16_t value, size_t count, void *stream) {
  (void)dst, (void)value, (void)stream;
  if (count)
    fail("mgpuMemset16");
}

void mgpuSetDefaultDevice(int32_t device) {
  (void)device; // Nothing to select; later GPU calls report the problem.
}

void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementSizeBytes) {
  (void)rank, (void)descriptor, (void)elementSizeBytes;
  fail("mgpuMemHostRegisterMemRef");
}

void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t elementSizeBytes) {
  (void)rank, (void)descriptor, (void)elementSizeBytes;
  fail("mgpuMemHostUnregisterMemRef");
}

// Loss scaling and optimizers (AmpLossScaling.h): failures are returned with
// ampLastError() set, never passed to the error handler. No handle can
// exist in this build, so the destroy functions have nothing to do.

AmpGpuLossScaler *ampGpuLossScalerCreate(const AmpLossScalerConfig *cfg) {
  (void)cfg;
  noGpu("ampGpuLossScalerCreate");
  return nullptr;
}

void ampGpuLossScalerDestroy(AmpGpuLossScaler *scaler) { (void)scaler; }

float *ampGpuLossScalerScalePtr(AmpGpuLossScaler *scaler) {
  (void)scaler;
  noGpu("ampGpuLossScalerScalePtr");
  return nullptr;
}

float *ampGpuLossScalerInvScalePtr(AmpGpuLossScaler *scaler) {
  (void)scaler;
  noGpu("ampGpuLossScalerInvScalePtr");
  return nullptr;
}

float *ampGpuLossScalerFoundInfPtr(AmpGpuLossScaler *scaler) {
  (void)scaler;
  noGpu("ampGpuLossScalerFoundInfPtr");
  return nullptr;
}

int ampGpuLossScalerBeginStep(AmpGpuLossScaler *scaler) {
  (void)scaler;
  noGpu("ampGpuLossScalerBeginStep");
  return 1;
}

int ampGpuLossScalerUpdate(AmpGpuLossScaler *scaler) {
  (void)scaler;
  noGpu("ampGpuLossScalerUpdate");
  return 1;
}

int ampGpuLossScalerGetStats(AmpGpuLossScaler *scaler,
                             AmpLossScalerStats *out) {
  (void)scaler, (void)out;
  noGpu("ampGpuLossScalerGetStats");
  return 1;
}

size_t ampGpuLossScalerSaveState(AmpGpuLossScaler *scaler, void *buffer,
                                 size_t capacity) {
  (void)scaler, (void)buffer, (void)capacity;
  noGpu("ampGpuLossScalerSaveState");
  return 0;
}

int ampGpuLossScalerLoadState(AmpGpuLossScaler *scaler, const void *blob,
                              size_t size) {
  (void)scaler, (void)blob, (void)size;
  noGpu("ampGpuLossScalerLoadState");
  return 1;
}

AmpGpuTensorTable *ampGpuTensorTableCreate(void *const *devicePtrs,
                                           const int64_t *numels, int64_t count,
                                           int32_t dtype) {
  (void)devicePtrs, (void)numels, (void)count, (void)dtype;
  noGpu("ampGpuTensorTableCreate");
  return nullptr;
}

void ampGpuTensorTableDestroy(AmpGpuTensorTable *table) { (void)table; }

int ampGpuCheckFiniteAndUnscale(AmpGpuLossScaler *scaler,
                                const AmpGpuTensorTable *table) {
  (void)scaler, (void)table;
  noGpu("ampGpuCheckFiniteAndUnscale");
  return 1;
}

AmpGpuOptimizer *ampGpuOptimizerCreate(const AmpOptimizerConfig *cfg,
                                       const AmpOptimizerParam *params,
                                       int64_t count) {
  (void)cfg, (void)params, (void)count;
  noGpu("ampGpuOptimizerCreate");
  return nullptr;
}

void ampGpuOptimizerDestroy(AmpGpuOptimizer *opt) { (void)opt; }

int ampGpuOptimizerStep(AmpGpuOptimizer *opt, const float *found_inf,
                        const float *inv_scale) {
  (void)opt, (void)found_inf, (void)inv_scale;
  noGpu("ampGpuOptimizerStep");
  return 1;
}

int64_t ampGpuOptimizerGetStep(AmpGpuOptimizer *opt) {
  (void)opt;
  noGpu("ampGpuOptimizerGetStep");
  return -1;
}

size_t ampGpuOptimizerSaveState(AmpGpuOptimizer *opt, void *buffer,
                                size_t capacity) {
  (void)opt, (void)buffer, (void)capacity;
  noGpu("ampGpuOptimizerSaveState");
  return 0;
}

int ampGpuOptimizerLoadState(AmpGpuOptimizer *opt, const void *blob,
                             size_t size) {
  (void)opt, (void)blob, (void)size;
  noGpu("ampGpuOptimizerLoadState");
  return 1;
}

int ampGpuOptimizerSetLearningRate(AmpGpuOptimizer *opt, float lr) {
  (void)opt, (void)lr;
  noGpu("ampGpuOptimizerSetLearningRate");
  return 1;
}

} // extern "C"
