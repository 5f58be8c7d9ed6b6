//===- GpuContext.cpp - device, context and shared stream -----------------===//
//
// Part of amp-mlir. Lazy GPU initialisation (driver, primary context, shared
// stream), device-memory helpers and the ampGpu* query entry points.
//
//===----------------------------------------------------------------------===//

#include "GpuContext.h"
#include "GpuApi.h"
#include "Internal.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>

using namespace amp::rt;

namespace {
struct GpuState {
  std::mutex mutex;
  std::atomic<bool> ready{false};
  int32_t deviceOrdinal = 0;
  const DriverApi *driver = nullptr;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  bool memoryPools = false;
  int computeCapability = 0;
};

GpuState &gpuState() {
  // Leaked on purpose: the mgpu* dtors of other libraries may run after ours.
  static GpuState *state = new GpuState;
  return *state;
}

/// The default pool of `device` keeps freed memory (release threshold
/// UINT64_MAX) instead of returning it to the OS at every synchronisation
/// (the default threshold is 0): compiled code allocates and frees its
/// temporaries with cuMemAllocAsync/cuMemFreeAsync every step, and would
/// otherwise pay a driver allocation per buffer per step after each sync.
/// Best effort: a driver without the calls, or a failure, only costs speed.
void keepPoolMemory(const DriverApi *drv, CUdevice device) {
  if (!drv->cuDeviceGetDefaultMemPool || !drv->cuMemPoolSetAttribute)
    return;
  CUmemoryPool pool = nullptr;
  if (drv->cuDeviceGetDefaultMemPool(&pool, device) != CUDA_SUCCESS || !pool)
    return;
  cuuint64_t threshold = UINT64_MAX;
  (void)drv->cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                                   &threshold);
}

bool initLocked(GpuState &st, const char *call) {
  const DriverApi *drv = loadDriver(call);
  if (!drv)
    return false;
  if (!cuCheck(call, drv->cuInit(0), "cuInit"))
    return false;
  int count = 0;
  if (!cuCheck(call, drv->cuDeviceGetCount(&count), "cuDeviceGetCount"))
    return false;
  if (count <= 0)
    return setError(call, "no CUDA device found");
  if (st.deviceOrdinal < 0 || st.deviceOrdinal >= count)
    return setError(call, "CUDA device %d does not exist (%d device%s)",
                    st.deviceOrdinal, count, count == 1 ? "" : "s");
  CUdevice device;
  if (!cuCheck(call, drv->cuDeviceGet(&device, st.deviceOrdinal),
               "cuDeviceGet"))
    return false;
  CUcontext context;
  if (!cuCheck(call, drv->cuDevicePrimaryCtxRetain(&context, device),
               "cuDevicePrimaryCtxRetain"))
    return false;
  if (!cuCheck(call, drv->cuCtxSetCurrent(context), "cuCtxSetCurrent"))
    return false;
  // A blocking (CU_STREAM_DEFAULT) stream stays ordered with any work that
  // other code puts on the legacy default stream.
  CUstream stream;
  if (!cuCheck(call, drv->cuStreamCreate(&stream, CU_STREAM_DEFAULT),
               "cuStreamCreate"))
    return false;
  int major = 0, minor = 0;
  if (!cuCheck(
          call,
          drv->cuDeviceGetAttribute(
              &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
          "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)") ||
      !cuCheck(
          call,
          drv->cuDeviceGetAttribute(
              &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
          "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MINOR)"))
    return false;
  st.computeCapability = 10 * major + minor;
  if (const char *assumed = std::getenv("AMP_RUNTIME_COMPUTE_CAPABILITY");
      assumed && *assumed) {
    char *end = nullptr;
    long value = std::strtol(assumed, &end, 10);
    if (*end != '\0' || value < 10 || value > 1000)
      return setError(call,
                      "AMP_RUNTIME_COMPUTE_CAPABILITY must be a compute "
                      "capability such as 75 or 90, not '%s'",
                      assumed);
    st.computeCapability = static_cast<int>(value);
  }
  int pools = 0;
  if (drv->cuMemAllocAsync && drv->cuMemFreeAsync &&
      drv->cuDeviceGetAttribute(&pools,
                                CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
                                device) != CUDA_SUCCESS)
    pools = 0;
  if (pools != 0)
    keepPoolMemory(drv, device);
  st.driver = drv;
  st.device = device;
  st.context = context;
  st.stream = stream;
  st.memoryPools = pools != 0 && drv->cuMemAllocAsync && drv->cuMemFreeAsync;
  st.ready.store(true, std::memory_order_release);
  return true;
}
} // namespace

bool amp::rt::cuCheck(const char *call, CUresult result, const char *what) {
  if (result == CUDA_SUCCESS)
    return true;
  const char *name = nullptr, *description = nullptr;
  // The driver table is loaded whenever a CUresult exists.
  if (const DriverApi *drv = loadDriver(call)) {
    drv->cuGetErrorName(result, &name);
    drv->cuGetErrorString(result, &description);
  }
  return setError(call, "%s failed: %s (%s)", what,
                  name ? name : "unknown CUresult",
                  description ? description : "no description");
}

const DriverApi *amp::rt::gpuInit(const char *call) {
  GpuState &st = gpuState();
  if (!st.ready.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(st.mutex);
    if (!st.ready.load(std::memory_order_relaxed) && !initLocked(st, call))
      return nullptr;
  }
  const DriverApi *drv = st.driver;
  CUcontext current = nullptr;
  if (drv->cuCtxGetCurrent(&current) != CUDA_SUCCESS || current != st.context)
    if (!cuCheck(call, drv->cuCtxSetCurrent(st.context), "cuCtxSetCurrent"))
      return nullptr;
  return drv;
}

bool amp::rt::gpuInitialized() {
  return gpuState().ready.load(std::memory_order_acquire);
}

CUstream amp::rt::gpuStream() { return gpuState().stream; }

int amp::rt::gpuComputeCapability() { return gpuState().computeCapability; }

bool amp::rt::gpuCheckTypesSupported(const char *call,
                                     std::initializer_list<int32_t> types) {
  int capability = gpuComputeCapability();
  if (capability >= 80)
    return true;
  for (int32_t type : types)
    if (type == AMP_DTYPE_BF16)
      return setError(call,
                      "bf16 operands need compute capability 8.0 or later "
                      "(sm_80, Ampere); this device is sm_%d, which cuBLAS "
                      "and cuDNN run in f16 or f32 only: compile with dtype "
                      "f16 for it",
                      capability);
  return true;
}

CUdevice amp::rt::gpuDevice() { return gpuState().device; }

CUstream amp::rt::gpuResolveStream(void *stream) {
  return stream ? static_cast<CUstream>(stream) : gpuState().stream;
}

bool amp::rt::gpuHasMemoryPools() { return gpuState().memoryPools; }

bool amp::rt::gpuMalloc(const char *call, size_t bytes, CUdeviceptr *out,
                        CUstream stream) {
  GpuState &st = gpuState();
  if (st.memoryPools) {
    if (!cuCheck(
            call,
            st.driver->cuMemAllocAsync(out, bytes, stream ? stream : st.stream),
            "cuMemAllocAsync"))
      return false;
    if (gpuCapturing())
      gpuCaptureNoteAllocation(*out);
    return true;
  }
  return cuCheck(call, st.driver->cuMemAlloc_v2(out, bytes), "cuMemAlloc");
}

bool amp::rt::gpuFree(const char *call, CUdeviceptr ptr, CUstream stream) {
  GpuState &st = gpuState();
  if (!stream)
    stream = st.stream;
  if (st.memoryPools) {
    if (gpuCapturing())
      gpuCaptureNoteFree(ptr);
    return cuCheck(call, st.driver->cuMemFreeAsync(ptr, stream),
                   "cuMemFreeAsync");
  }
  // Without stream-ordered allocation, wait for the users of `ptr` first.
  return cuCheck(call, st.driver->cuStreamSynchronize(stream),
                 "cuStreamSynchronize") &&
         cuCheck(call, st.driver->cuMemFree_v2(ptr), "cuMemFree");
}

bool amp::rt::ScratchBuffer::reserve(const char *call, size_t bytes) {
  if (bytes <= size)
    return true;
  // Memory allocated in a capture belongs to the graph.
  if (gpuCapturing())
    return setError(call,
                    "needs a %zu-byte workspace, more than the %zu bytes "
                    "allocated before the capture began: a CUDA graph is "
                    "captured after a call that ran the same shapes",
                    bytes, size);
  // Grow by at least 1.5x to avoid reallocating for slowly growing shapes.
  size_t want = bytes < size + size / 2 ? size + size / 2 : bytes;
  want = (want + 255) & ~static_cast<size_t>(255);
  if (ptr) {
    if (!gpuFree(call, ptr))
      return false;
    ptr = 0;
    size = 0;
  }
  CUdeviceptr fresh = 0;
  if (!gpuMalloc(call, want, &fresh))
    return false;
  ptr = fresh;
  size = want;
  return true;
}

bool amp::rt::gpuSetDefaultDevice(const char *call, int32_t device) {
  GpuState &st = gpuState();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (st.ready.load(std::memory_order_relaxed) && device != st.deviceOrdinal)
    return setError(call,
                    "cannot switch to device %d: the runtime already uses "
                    "device %d (select the device before the first GPU use)",
                    device, st.deviceOrdinal);
  st.deviceOrdinal = device;
  return true;
}

// Every function of GpuApi.def is declared with its row's signature and
// defined by this library: the queries below, ampGpuSetConvExhaustiveSearch
// in Cudnn.cpp, the loss scaler, tensor tables and optimizers in
// GpuLossScaling.cpp.
#define AMP_GPU_API_FUNCTION AMP_GPU_API_CHECK
#include "amp/runtime/GpuApi.def"

extern "C" {

int ampGpuAvailable(void) { return gpuInit("ampGpuAvailable") ? 1 : 0; }

int ampGpuComputeCapability(void) {
  return gpuInit("ampGpuComputeCapability") ? gpuComputeCapability() : 0;
}

int ampGpuDeviceName(char *buf, size_t len) {
  const char *call = "ampGpuDeviceName";
  if (!buf || len == 0) {
    setError(call, "empty output buffer");
    return 1;
  }
  buf[0] = '\0';
  const DriverApi *drv = gpuInit(call);
  if (!drv)
    return 1;
  char name[256] = {0};
  if (!cuCheck(call, drv->cuDeviceGetName(name, sizeof(name) - 1, gpuDevice()),
               "cuDeviceGetName"))
    return 1;
  size_t copy = std::min(std::strlen(name), len - 1);
  std::memcpy(buf, name, copy);
  buf[copy] = '\0';
  return 0;
}

void ampGpuSynchronize(void) {
  const char *call = "ampGpuSynchronize";
  if (!gpuInitialized() || gpuCapturing())
    return; // Nothing queued, or captured: the graph's launcher waits.
  const DriverApi *drv = gpuInit(call);
  if (!drv || !cuCheck(call, drv->cuStreamSynchronize(gpuStream()),
                       "cuStreamSynchronize"))
    raiseLastError();
}

} // extern "C"
