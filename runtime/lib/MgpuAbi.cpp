//===- MgpuAbi.cpp - the LLVM 22.1.8 mgpu* ABI on the CUDA driver ---------===//
//
// Part of amp-mlir. The `mgpu*` functions that MLIR's gpu-to-llvm and the
// `#gpu.select_object` translation call (signatures: MgpuAbi.h). Module loads
// are lazy, there is one shared in-order stream, memory is stream-ordered.
// Every entry point validates, does its work with locks held only inside
// helpers, and calls the error handler last on failure.
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/MgpuAbi.h"

#include "GpuContext.h"
#include "Internal.h"
#include "LibraryCallEntries.h"

#include <atomic>
#include <climits>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <unordered_map>
#include <unordered_set>
#include <utility>

using namespace amp::rt;

namespace {

/// The CUDA side of a ModuleRecord, created on the first GetFunction.
struct LoadedModule {
  CUmodule module = nullptr;
  std::unordered_map<const char *, CUfunction> functions;
};

struct AbiState {
  std::mutex mutex; // Guards module loading/caches and the managed set.
  std::unordered_set<CUdeviceptr> managed;
};

AbiState &abiState() {
  static AbiState *state = new AbiState; // Leaked: used from global dtors.
  return *state;
}

ModuleRecord *asModule(void *handle) {
  auto *record = static_cast<ModuleRecord *>(handle);
  return record && record->magic == ModuleRecord::kMagic ? record : nullptr;
}

void *newModule(const void *data, size_t size, bool isPtx, int optLevel) {
  auto *record = new (std::nothrow) ModuleRecord;
  if (!record)
    return nullptr;
  record->data = data;
  record->size = size;
  record->isPtx = isPtx;
  record->optLevel = optLevel < 0 ? 0 : optLevel > 4 ? 4 : optLevel;
  return record;
}

/// cuModuleLoadDataEx with the JIT error log in the message on failure.
bool loadModule(const char *call, const DriverApi *drv, ModuleRecord &record,
                CUmodule *out) {
  constexpr unsigned kLogSize = 8192;
  char log[kLogSize] = {0};
  CUjit_option options[3] = {CU_JIT_ERROR_LOG_BUFFER,
                             CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                             CU_JIT_OPTIMIZATION_LEVEL};
  void *values[3] = {log, reinterpret_cast<void *>(uintptr_t(kLogSize)),
                     reinterpret_cast<void *>(uintptr_t(record.optLevel))};
  unsigned numOptions = record.isPtx ? 3 : 2;
  CUresult result =
      drv->cuModuleLoadDataEx(out, record.data, numOptions, options, values);
  if (result == CUDA_SUCCESS)
    return true;
  cuCheck(call, result,
          record.isPtx ? "cuModuleLoadDataEx (PTX JIT)" : "cuModuleLoadDataEx");
  if (log[0]) {
    log[kLogSize - 1] = '\0';
    appendError("; JIT log: %s", log);
  }
  return false;
}

bool getFunction(const char *call, void *handle, const char *name,
                 CUfunction *out) {
  ModuleRecord *record = asModule(handle);
  if (!record)
    return setError(call, "invalid module handle %p", handle);
  if (!name)
    return setError(call, "null kernel name");
  const DriverApi *drv = gpuInit(call);
  if (!drv)
    return false;
  AbiState &st = abiState();
  std::lock_guard<std::mutex> lock(st.mutex);
  auto *loaded = static_cast<LoadedModule *>(record->impl);
  if (!loaded) {
    CUmodule module = nullptr;
    if (!loadModule(call, drv, *record, &module))
      return false;
    loaded = new LoadedModule;
    loaded->module = module;
    record->impl = loaded;
  }
  auto it = loaded->functions.find(name);
  if (it != loaded->functions.end()) {
    *out = it->second;
    return true;
  }
  CUfunction function = nullptr;
  CUresult result = drv->cuModuleGetFunction(&function, loaded->module, name);
  if (result != CUDA_SUCCESS) {
    cuCheck(call, result, "cuModuleGetFunction");
    return appendError(" (kernel '%s')", name);
  }
  loaded->functions.emplace(name, function);
  *out = function;
  return true;
}

bool unloadModule(const char *call, void *handle) {
  if (!handle)
    return true;
  ModuleRecord *record = asModule(handle);
  if (!record)
    return setError(call, "invalid module handle %p", handle);
  LoadedModule *loaded;
  {
    AbiState &st = abiState();
    std::lock_guard<std::mutex> lock(st.mutex);
    loaded = static_cast<LoadedModule *>(record->impl);
    record->impl = nullptr;
  }
  bool ok = true;
  if (loaded) {
    // Loaded implies the driver and context exist; at process exit the
    // driver may already be shut down, which is not an error.
    if (const DriverApi *drv = gpuInit(call)) {
      CUresult result = drv->cuModuleUnload(loaded->module);
      if (result != CUDA_SUCCESS && result != CUDA_ERROR_DEINITIALIZED)
        ok = cuCheck(call, result, "cuModuleUnload");
    } else {
      ok = std::strstr(ampLastError(), "CUDA_ERROR_DEINITIALIZED") != nullptr;
    }
    delete loaded;
  }
  record->magic = 0;
  delete record;
  return ok;
}

bool toDim(const char *call, const char *what, intptr_t value, unsigned *out) {
  if (value <= 0 || static_cast<uintmax_t>(value) > UINT_MAX)
    return setError(call, "invalid %s = %lld", what,
                    static_cast<long long>(value));
  *out = static_cast<unsigned>(value);
  return true;
}

/// Opts `function` into more than 48 KiB of dynamic shared memory if needed.
bool prepareSharedMemory(const char *call, const DriverApi *drv,
                         CUfunction function, int32_t smem) {
  if (smem < 0)
    return setError(call, "negative dynamic shared memory size %d", smem);
  if (smem <= 48 * 1024)
    return true;
  return cuCheck(
      call,
      drv->cuFuncSetAttribute(
          function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem),
      "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
}

bool launchKernel(const char *call, void *function, const intptr_t grid[3],
                  const intptr_t block[3], int32_t smem, void *stream,
                  void **params, void **extra) {
  if (!function)
    return setError(call, "null kernel function");
  unsigned g[3], b[3];
  const char *gridNames[3] = {"gridX", "gridY", "gridZ"};
  const char *blockNames[3] = {"blockX", "blockY", "blockZ"};
  for (int i = 0; i < 3; ++i)
    if (!toDim(call, gridNames[i], grid[i], &g[i]) ||
        !toDim(call, blockNames[i], block[i], &b[i]))
      return false;
  const DriverApi *drv = gpuInit(call);
  if (!drv)
    return false;
  auto fn = static_cast<CUfunction>(function);
  if (!prepareSharedMemory(call, drv, fn, smem))
    return false;
  return cuCheck(call,
                 drv->cuLaunchKernel(fn, g[0], g[1], g[2], b[0], b[1], b[2],
                                     static_cast<unsigned>(smem),
                                     gpuResolveStream(stream), params, extra),
                 "cuLaunchKernel");
}

bool launchClusterKernel(const char *call, void *function,
                         const intptr_t cluster[3], const intptr_t grid[3],
                         const intptr_t block[3], int32_t smem, void *stream,
                         void **params, void **extra) {
  if (!function)
    return setError(call, "null kernel function");
  unsigned c[3], g[3], b[3];
  const char *clusterNames[3] = {"clusterX", "clusterY", "clusterZ"};
  const char *gridNames[3] = {"gridX", "gridY", "gridZ"};
  const char *blockNames[3] = {"blockX", "blockY", "blockZ"};
  for (int i = 0; i < 3; ++i)
    if (!toDim(call, clusterNames[i], cluster[i], &c[i]) ||
        !toDim(call, gridNames[i], grid[i], &g[i]) ||
        !toDim(call, blockNames[i], block[i], &b[i]))
      return false;
  const DriverApi *drv = gpuInit(call);
  if (!drv)
    return false;
  if (!drv->cuLaunchKernelEx)
    return setError(call, "cluster launches are unsupported: the CUDA driver "
                          "has no cuLaunchKernelEx (needs CUDA 12 or newer)");
  auto fn = static_cast<CUfunction>(function);
  if (!prepareSharedMemory(call, drv, fn, smem))
    return false;
  // More than 8 blocks per cluster is a non-portable size (sm_90: up to 16).
  if (uint64_t(c[0]) * c[1] * c[2] > 8 &&
      !cuCheck(call,
               drv->cuFuncSetAttribute(
                   fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
               "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)"))
    return false;
  CUlaunchAttribute attribute;
  std::memset(&attribute, 0, sizeof(attribute));
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = c[0];
  attribute.value.clusterDim.y = c[1];
  attribute.value.clusterDim.z = c[2];
  CUlaunchConfig config;
  std::memset(&config, 0, sizeof(config));
  config.gridDimX = g[0];
  config.gridDimY = g[1];
  config.gridDimZ = g[2];
  config.blockDimX = b[0];
  config.blockDimY = b[1];
  config.blockDimZ = b[2];
  config.sharedMemBytes = static_cast<unsigned>(smem);
  config.hStream = gpuResolveStream(stream);
  config.attrs = &attribute;
  config.numAttrs = 1;
  return cuCheck(call, drv->cuLaunchKernelEx(&config, fn, params, extra),
                 "cuLaunchKernelEx");
}

bool memAlloc(const char *call, uint64_t bytes, void *stream, bool hostShared,
              void **out) {
  *out = nullptr;
  if (bytes == 0)
    return true;
  const DriverApi *drv = gpuInit(call);
  if (!drv)
    return false;
  CUdeviceptr ptr = 0;
  if (hostShared && gpuCapturing())
    return setError(call, "host-shared (managed) memory cannot be allocated "
                          "while the stream is captured as a CUDA graph");
  if (hostShared) {
    if (!cuCheck(call,
                 drv->cuMemAllocManaged(&ptr, bytes, CU_MEM_ATTACH_GLOBAL),
                 "cuMemAllocManaged"))
      return false;
    AbiState &st = abiState();
    std::lock_guard<std::mutex> lock(st.mutex);
    st.managed.insert(ptr);
  } else if (!gpuMalloc(call, bytes, &ptr, gpuResolveStream(stream))) {
    return false;
  }
  *out = reinterpret_cast<void *>(ptr);
  return true;
}

bool memFree(const char *call, void *ptr, void *stream) {
  if (!ptr)
    return true;
  const DriverApi *drv = gpuInit(call);
  if (!drv)
    return false;
  auto dptr = reinterpret_cast<CUdeviceptr>(ptr);
  bool managed;
  {
    AbiState &st = abiState();
    std::lock_guard<std::mutex> lock(st.mutex);
    managed = st.managed.erase(dptr) != 0;
  }
  if (managed)
    return cuCheck(call, drv->cuStreamSynchronize(gpuResolveStream(stream)),
                   "cuStreamSynchronize") &&
           cuCheck(call, drv->cuMemFree_v2(dptr), "cuMemFree");
  return gpuFree(call, dptr, gpuResolveStream(stream));
}

/// Byte range of a strided memref descriptor {alloc, aligned, offset,
/// sizes[rank], strides[rank]}; empty memrefs give 0 bytes.
bool memrefRange(const char *call, int64_t rank, void *descriptor,
                 int64_t elementSize, char **begin, size_t *bytes) {
  if (!descriptor || rank < 0 || elementSize <= 0)
    return setError(call,
                    "invalid memref (descriptor %p, rank %lld, element "
                    "size %lld)",
                    descriptor, static_cast<long long>(rank),
                    static_cast<long long>(elementSize));
  struct Header {
    char *allocated;
    char *aligned;
    int64_t offset;
  };
  Header header;
  std::memcpy(&header, descriptor, sizeof(header));
  const auto *shape = reinterpret_cast<const int64_t *>(
      static_cast<const char *>(descriptor) + sizeof(Header));
  int64_t lastElement = 0;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = shape[d], stride = shape[rank + d];
    if (size == 0) {
      *begin = header.aligned;
      *bytes = 0;
      return true;
    }
    if (size < 0 || stride < 0)
      return setError(call,
                      "unsupported memref dimension %lld: size %lld, "
                      "stride %lld",
                      static_cast<long long>(d), static_cast<long long>(size),
                      static_cast<long long>(stride));
    lastElement += (size - 1) * stride;
  }
  *begin = header.aligned + header.offset * elementSize;
  *bytes = static_cast<size_t>((lastElement + 1) * elementSize);
  return true;
}

/// The body of the entry points that make one driver call: initialise the
/// GPU, run `fn(drv)` (a CUresult; `what` names it in errors) and pass a
/// failure to the error handler.
template <typename Fn>
void driverCall(const char *call, const char *what, Fn &&fn) {
  const DriverApi *drv = gpuInit(call);
  if (!drv || !cuCheck(call, fn(drv), what))
    raiseLastError();
}

/// mgpuMemset16/32: `count` elements of `value` through the driver's
/// `fn` (cuMemsetD16Async / cuMemsetD32Async) on the runtime's stream.
template <typename T, typename Fn>
void memset(const char *call, void *dst, T value, size_t count, void *stream,
            Fn DriverApi::*fn, const char *fnName) {
  if (count == 0)
    return;
  driverCall(call, fnName, [&](const DriverApi *drv) {
    return (drv->*fn)(reinterpret_cast<CUdeviceptr>(dst), value, count,
                      gpuResolveStream(stream));
  });
}

/// mgpuMemHostRegisterMemRef and mgpuMemHostUnregisterMemRef: `fn(drv,
/// begin, bytes)` on the bytes a memref's strides can reach; nothing for an
/// empty memref.
template <typename Fn>
void onMemrefRange(const char *call, const char *what, int64_t rank,
                   void *descriptor, int64_t elementSizeBytes, Fn &&fn) {
  char *begin = nullptr;
  size_t bytes = 0;
  if (!memrefRange(call, rank, descriptor, elementSizeBytes, &begin, &bytes))
    return raiseLastError();
  if (bytes == 0)
    return;
  driverCall(call, what,
             [&](const DriverApi *drv) { return fn(drv, begin, bytes); });
}

} // namespace

extern "C" {

void *mgpuModuleLoad(void *blob, size_t size) {
  // No CUDA call here: runs in a priority-123 global ctor, possibly on a
  // machine without a driver.
  void *module = newModule(blob, size, /*isPtx=*/false, /*optLevel=*/4);
  if (!module)
    raiseError("mgpuModuleLoad", "out of memory");
  return module;
}

void *mgpuModuleLoadJIT(void *ptx, int optLevel) {
  void *module =
      newModule(ptx, ptx ? std::strlen(static_cast<char *>(ptx)) + 1 : 0,
                /*isPtx=*/true, optLevel);
  if (!module)
    raiseError("mgpuModuleLoadJIT", "out of memory");
  return module;
}

void mgpuModuleUnload(void *module) {
  if (!unloadModule("mgpuModuleUnload", module))
    raiseLastError();
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  CUfunction function = nullptr;
  if (!getFunction("mgpuModuleGetFunction", module, name, &function)) {
    raiseLastError();
    return nullptr;
  }
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount) {
  (void)paramsCount; // cuLaunchKernel finds the count in the kernel image.
  const intptr_t grid[3] = {gridX, gridY, gridZ};
  const intptr_t block[3] = {blockX, blockY, blockZ};
  if (!launchKernel("mgpuLaunchKernel", function, grid, block, smem, stream,
                    params, extra))
    raiseLastError();
}

void mgpuLaunchClusterKernel(void *function, intptr_t clusterX,
                             intptr_t clusterY, intptr_t clusterZ,
                             intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                             intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                             int32_t smem, void *stream, void **params,
                             void **extra) {
  const intptr_t cluster[3] = {clusterX, clusterY, clusterZ};
  const intptr_t grid[3] = {gridX, gridY, gridZ};
  const intptr_t block[3] = {blockX, blockY, blockZ};
  if (!launchClusterKernel("mgpuLaunchClusterKernel", function, cluster, grid,
                           block, smem, stream, params, extra))
    raiseLastError();
}

void *mgpuStreamCreate(void) {
  if (!gpuInit("mgpuStreamCreate")) {
    raiseLastError();
    return nullptr;
  }
  return gpuStream();
}

void mgpuStreamDestroy(void *stream) {
  (void)stream; // The shared stream lives as long as the process.
}

void mgpuStreamSynchronize(void *stream) {
  // Compiled code's wait at its return: in a capture, the graph's launcher
  // waits instead (a wait is illegal while the stream is captured).
  if (gpuCapturing() && gpuResolveStream(stream) == gpuStream())
    return;
  driverCall("mgpuStreamSynchronize", "cuStreamSynchronize",
             [&](const DriverApi *drv) {
               return drv->cuStreamSynchronize(gpuResolveStream(stream));
             });
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  driverCall("mgpuStreamWaitEvent", "cuStreamWaitEvent",
             [&](const DriverApi *drv) {
               return drv->cuStreamWaitEvent(gpuResolveStream(stream),
                                             static_cast<CUevent>(event), 0);
             });
}

void *mgpuEventCreate(void) {
  const char *call = "mgpuEventCreate";
  CUevent event = nullptr;
  const DriverApi *drv = gpuInit(call);
  if (!drv ||
      !cuCheck(call, drv->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
               "cuEventCreate")) {
    raiseLastError();
    return nullptr;
  }
  return event;
}

void mgpuEventDestroy(void *event) {
  driverCall("mgpuEventDestroy", "cuEventDestroy", [&](const DriverApi *drv) {
    return drv->cuEventDestroy_v2(static_cast<CUevent>(event));
  });
}

void mgpuEventSynchronize(void *event) {
  driverCall("mgpuEventSynchronize", "cuEventSynchronize",
             [&](const DriverApi *drv) {
               return drv->cuEventSynchronize(static_cast<CUevent>(event));
             });
}

void mgpuEventRecord(void *event, void *stream) {
  driverCall("mgpuEventRecord", "cuEventRecord", [&](const DriverApi *drv) {
    return drv->cuEventRecord(static_cast<CUevent>(event),
                              gpuResolveStream(stream));
  });
}

void *mgpuMemAlloc(uint64_t bytes, void *stream, bool hostShared) {
  void *ptr = nullptr;
  if (!memAlloc("mgpuMemAlloc", bytes, stream, hostShared, &ptr)) {
    raiseLastError();
    return nullptr;
  }
  return ptr;
}

} // extern "C"

/// ampGpuConstant (arguments checked, bytes > 0): the device copy cached in
/// the module's `slot` (LibraryCalls.def).
bool amp::rt::cuda::Constant(const char *call, const ConstantArgs &k,
                             void *&result) {
  std::atomic<void *> *slot = getConstantSlot(k.slot);
  if (void *cached = slot->load(std::memory_order_acquire)) {
    result = cached;
    return true;
  }
  const int64_t bytes = k.bytes;
  if (gpuCapturing())
    return setError(call,
                    "a %lld-byte constant is used for the first time while "
                    "the stream is captured as a CUDA graph (its upload "
                    "cannot be captured): a graph is captured after a call "
                    "that ran the same code",
                    static_cast<long long>(bytes));
  const DriverApi *drv = gpuInit(call);
  CUdeviceptr ptr = 0;
  // Not from the stream-ordered pool: the copy lives as long as the
  // module (it is not freed when the module is unloaded).
  if (!drv ||
      !cuCheck(call, drv->cuMemAlloc_v2(&ptr, static_cast<size_t>(bytes)),
               "cuMemAlloc") ||
      !cuCheck(call,
               drv->cuMemcpyAsync(ptr, reinterpret_cast<CUdeviceptr>(k.hostPtr),
                                  static_cast<size_t>(bytes), gpuStream()),
               "cuMemcpyAsync (constant upload)"))
    return false;
  void *expected = nullptr, *mine = reinterpret_cast<void *>(ptr);
  if (!slot->compare_exchange_strong(expected, mine,
                                     std::memory_order_acq_rel)) {
    // Another thread uploaded it meanwhile.
    drv->cuMemFree_v2(ptr);
    result = expected;
    return true;
  }
  result = mine;
  return true;
}

extern "C" {

void mgpuMemFree(void *ptr, void *stream) {
  if (!memFree("mgpuMemFree", ptr, stream))
    raiseLastError();
}

void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream) {
  if (bytes == 0)
    return;
  driverCall("mgpuMemcpy", "cuMemcpyAsync", [&](const DriverApi *drv) {
    return drv->cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                              reinterpret_cast<CUdeviceptr>(src), bytes,
                              gpuResolveStream(stream));
  });
}

void mgpuMemset32(void *dst, uint32_t value, size_t count, void *stream) {
  memset("mgpuMemset32", dst, value, count, stream,
         &DriverApi::cuMemsetD32Async, "cuMemsetD32Async");
}

void mgpuMemset16(void *dst, uint16_t value, size_t count, void *stream) {
  memset("mgpuMemset16", dst, value, count, stream,
         &DriverApi::cuMemsetD16Async, "cuMemsetD16Async");
}

void mgpuSetDefaultDevice(int32_t device) {
  if (!gpuSetDefaultDevice("mgpuSetDefaultDevice", device))
    raiseLastError();
}

void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementSizeBytes) {
  onMemrefRange("mgpuMemHostRegisterMemRef", "cuMemHostRegister", rank,
                descriptor, elementSizeBytes,
                [](const DriverApi *drv, char *begin, size_t bytes) {
                  return drv->cuMemHostRegister_v2(begin, bytes, 0);
                });
}

void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t elementSizeBytes) {
  onMemrefRange("mgpuMemHostUnregisterMemRef", "cuMemHostUnregister", rank,
                descriptor, elementSizeBytes,
                [](const DriverApi *drv, char *begin, size_t) {
                  return drv->cuMemHostUnregister(begin);
                });
}

} // extern "C"

// This file defines every mgpu* function with its table signature.
#define AMP_MGPU_FUNCTION AMP_MGPU_DEFINED
#include "amp/runtime/MgpuAbi.def"
