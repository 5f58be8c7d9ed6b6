/*===- MgpuAbi.h - the mgpu* ABI of LLVM/MLIR 22.1 -------------*- C -*-===*\
|*                                                                          *|
|* Part of amp-mlir. The `mgpu*` functions that MLIR 22.1.8's gpu-to-llvm   *|
|* and `#gpu.select_object` translation emit calls to, with exactly the     *|
|* 22.1.8 signatures (older CudaRuntimeWrappers.cpp versions differ and C   *|
|* linkage would not catch a mismatch). Implemented by libamp_runtime.so   *|
|* on the CUDA driver API, loaded with dlopen on first GPU use.             *|
|*                                                                          *|
|* Behaviour: module loads are lazy (mgpuModuleLoad/JIT make no CUDA call), *|
|* the primary context of the default device is used, and there is ONE     *|
|* shared in-order stream: mgpuStreamCreate returns it, mgpuStreamDestroy  *|
|* is a no-op, a NULL stream argument means the shared stream. Failures go  *|
|* to the handler of ampSetErrorHandler (AmpRuntime.h).                     *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_MGPUABI_H
#define AMP_RUNTIME_MGPUABI_H

#include "amp/runtime/AmpRuntime.h"

#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Records a cubin/fatbin blob (`size` bytes, may be 0 for NUL-terminated
 *  PTX) and returns a module handle; makes no CUDA call (safe in the
 *  priority-123 global ctor and without a driver). `blob` must outlive the
 *  module. The CUDA module is loaded on the first mgpuModuleGetFunction. */
AMP_RUNTIME_API void *mgpuModuleLoad(void *blob, size_t size);

/** Like mgpuModuleLoad for NUL-terminated PTX text, JIT-compiled on first
 *  use with CU_JIT_OPTIMIZATION_LEVEL = optLevel (clamped to 0..4). */
AMP_RUNTIME_API void *mgpuModuleLoadJIT(void *ptx, int optLevel);

/** Unloads a module (NULL and never-used modules are fine; needs no driver
 *  then). Called from a global dtor. */
AMP_RUNTIME_API void mgpuModuleUnload(void *module);

/** Returns the kernel `name` of `module`, loading the module on first use;
 *  cached per name. NULL (after the handler returns) on failure. */
AMP_RUNTIME_API void *mgpuModuleGetFunction(void *module, const char *name);

/** cuLaunchKernel on `stream` (NULL = shared stream). `params` is the
 *  cuLaunchKernel kernelParams array of `paramsCount` entries. Dynamic shared
 *  memory above 48 KiB is opted into automatically. */
AMP_RUNTIME_API void mgpuLaunchKernel(void *function, intptr_t gridX,
                                      intptr_t gridY, intptr_t gridZ,
                                      intptr_t blockX, intptr_t blockY,
                                      intptr_t blockZ, int32_t smem,
                                      void *stream, void **params, void **extra,
                                      size_t paramsCount);

/** Cluster launch (cuLaunchKernelEx with a cluster-dimension attribute);
 *  22.1.8 passes no paramsCount. Reports an error when the driver has no
 *  cuLaunchKernelEx (CUDA < 12). */
AMP_RUNTIME_API void
mgpuLaunchClusterKernel(void *function, intptr_t clusterX, intptr_t clusterY,
                        intptr_t clusterZ, intptr_t gridX, intptr_t gridY,
                        intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                        intptr_t blockZ, int32_t smem, void *stream,
                        void **params, void **extra);

/** Returns the shared stream (initialising the GPU on first use). */
AMP_RUNTIME_API void *mgpuStreamCreate(void);
/** No-op: the shared stream lives as long as the process. */
AMP_RUNTIME_API void mgpuStreamDestroy(void *stream);
/** Waits for `stream` (NULL = shared stream). */
AMP_RUNTIME_API void mgpuStreamSynchronize(void *stream);
/** Makes `stream` wait for `event`. */
AMP_RUNTIME_API void mgpuStreamWaitEvent(void *stream, void *event);

/** Creates an event (timing disabled). */
AMP_RUNTIME_API void *mgpuEventCreate(void);
/** Destroys an event. */
AMP_RUNTIME_API void mgpuEventDestroy(void *event);
/** Waits for an event. */
AMP_RUNTIME_API void mgpuEventSynchronize(void *event);
/** Records `event` on `stream` (NULL = shared stream). */
AMP_RUNTIME_API void mgpuEventRecord(void *event, void *stream);

/** Allocates `bytes` of device memory ordered on `stream` (cuMemAllocAsync;
 *  cuMemAlloc where memory pools are unsupported), or managed memory
 *  (cuMemAllocManaged, CU_MEM_ATTACH_GLOBAL) if `hostShared`. Returns NULL
 *  for 0 bytes. */
AMP_RUNTIME_API void *mgpuMemAlloc(uint64_t bytes, void *stream,
                                   bool hostShared);
/** Frees memory from mgpuMemAlloc, ordered on `stream` (managed memory is
 *  freed after synchronising the stream). NULL is ignored. */
AMP_RUNTIME_API void mgpuMemFree(void *ptr, void *stream);
/** cuMemcpyAsync of `bytes` on `stream`; any direction (unified addressing). */
AMP_RUNTIME_API void mgpuMemcpy(void *dst, void *src, size_t bytes,
                                void *stream);
/** Sets `count` 32-bit words at `dst` to `value` (cuMemsetD32Async). */
AMP_RUNTIME_API void mgpuMemset32(void *dst, uint32_t value, size_t count,
                                  void *stream);
/** Sets `count` 16-bit words at `dst` to `value` (cuMemsetD16Async). LLVM
 *  passes an i16, hence the 16-bit parameter type. */
AMP_RUNTIME_API void mgpuMemset16(void *dst, uint16_t value, size_t count,
                                  void *stream);

/** Selects the device used by the runtime. Must be called before the first
 *  GPU use (or with the device already in use); switching later is an error. */
AMP_RUNTIME_API void mgpuSetDefaultDevice(int32_t device);

/** Page-locks the host memory of a memref (cuMemHostRegister). `descriptor`
 *  points to a StridedMemRefType<T, rank> {allocated, aligned, offset,
 *  sizes[rank], strides[rank]}; the registered range covers every element
 *  the strides can reach. */
AMP_RUNTIME_API void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                                               int64_t elementSizeBytes);
/** Undoes mgpuMemHostRegisterMemRef for the same descriptor. */
AMP_RUNTIME_API void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                                 int64_t elementSizeBytes);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AMP_RUNTIME_MGPUABI_H */
