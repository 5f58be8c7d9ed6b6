//===- GpuCollectives.cpp - ampGpuAllReduce on CUDA device memory ---------===//
//
// Part of amp-mlir. The device twin of ampAllReduce: the buffer goes to the
// host (after the work queued on the shared stream), is reduced there by
// the host collectives (MPI), and comes back before the call returns. NCCL
// would reduce device buffers directly; it is not used (not available on
// the machines this was written on).
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/AmpCollectives.h"

#include "Collectives.h"
#include "GpuContext.h"
#include "Internal.h"
#include "LibraryCallEntries.h"

#include <vector>

using namespace amp::rt;

/// The reduction of `count` elements at device address `device` through a
/// host staging copy; false with the last error set on failure.
static bool allReduceDevice(const char *call, void *device, int64_t count,
                            int32_t dtype, int32_t kind) {
  const DriverApi *drv = gpuInit(call);
  if (!drv)
    return false;
  size_t bytes = static_cast<size_t>(count) * collectiveElementSize(dtype);
  std::vector<unsigned char> host(bytes);
  CUstream stream = gpuStream();
  CUdeviceptr pointer = reinterpret_cast<CUdeviceptr>(device);
  return cuCheck(call,
                 drv->cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(host.data()),
                                    pointer, bytes, stream),
                 "cuMemcpyAsync (device to host)") &&
         cuCheck(call, drv->cuStreamSynchronize(stream),
                 "cuStreamSynchronize") &&
         allReduceHost(call, host.data(), count, dtype, kind) &&
         cuCheck(call,
                 drv->cuMemcpyAsync(pointer,
                                    reinterpret_cast<CUdeviceptr>(host.data()),
                                    bytes, stream),
                 "cuMemcpyAsync (host to device)") &&
         cuCheck(call, drv->cuStreamSynchronize(stream), "cuStreamSynchronize");
}

/// ampGpuAllReduce (arguments checked, count > 0).
bool amp::rt::cuda::AllReduce(const char *call, const AllReduceArgs &r,
                              NoResult &) {
  int32_t size = collectiveWorldSize(call);
  if (size == 0)
    return false;
  if (size == 1)
    return true; // The identity: no copy.
  if (gpuCapturing())
    return setError(call, "cannot be captured in a CUDA graph: it waits for "
                          "the stream and reduces on the host (NCCL is not "
                          "used)");
  return allReduceDevice(call, r.data, r.count, r.dtype, r.kind);
}
