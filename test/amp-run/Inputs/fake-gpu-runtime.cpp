//===- fake-gpu-runtime.cpp - a GPU runtime without a GPU -----------------===//
//
// Part of amp-mlir. Test double of libamp_runtime.so for gpu-host-path.test:
// "device" memory is host memory and kernels and library calls do nothing,
// so that amp-run's host side of --target=gpu (device buffers, copies in and
// out, synchronization, freeing) runs on machines without a GPU. At exit it
// prints what it was asked to do.
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/MgpuAbi.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

namespace {
struct Counters {
  int allocations = 0, frees = 0, copies = 0, synchronizations = 0;
  int launches = 0, libraryCalls = 0, badFrees = 0;
  std::set<void *> live;
  ~Counters() {
    std::fprintf(stderr,
                 "fake-gpu: %d allocations, %d frees, %d bad frees, %zu "
                 "live, %d copies, %d synchronizations, %d launches, %d "
                 "library calls\n",
                 allocations, frees, badFrees, live.size(), copies,
                 synchronizations, launches, libraryCalls);
  }
} counters;
int stream, module, function;
} // namespace

// The runtime's declarations (MgpuAbi.h, which includes AmpRuntime.h) are
// in scope, so a definition here whose signature differs from the runtime's
// does not compile.
extern "C" {
int ampGpuAvailable(void) { return 1; }
const char *ampLastError(void) { return ""; }
AmpErrorHandler ampSetErrorHandler(AmpErrorHandler) { return nullptr; }

void *mgpuMemAlloc(uint64_t bytes, void *, bool) {
  if (!bytes)
    return nullptr;
  ++counters.allocations;
  void *pointer = std::calloc(1, bytes);
  counters.live.insert(pointer);
  return pointer;
}
void mgpuMemFree(void *pointer, void *) {
  if (!pointer)
    return;
  ++counters.frees;
  if (!counters.live.erase(pointer)) {
    ++counters.badFrees;
    return;
  }
  std::free(pointer);
}
void mgpuMemcpy(void *destination, void *source, size_t bytes, void *) {
  ++counters.copies;
  std::memcpy(destination, source, bytes);
}
void mgpuMemset32(void *destination, uint32_t value, size_t count, void *) {
  for (size_t i = 0; i < count; ++i)
    static_cast<uint32_t *>(destination)[i] = value;
}
void mgpuMemset16(void *destination, uint16_t value, size_t count, void *) {
  for (size_t i = 0; i < count; ++i)
    static_cast<uint16_t *>(destination)[i] = value;
}
void *mgpuStreamCreate(void) { return &stream; }
void mgpuStreamDestroy(void *) {}
void mgpuStreamSynchronize(void *) { ++counters.synchronizations; }
void mgpuStreamWaitEvent(void *, void *) {}
void *mgpuEventCreate(void) { return &stream; }
void mgpuEventDestroy(void *) {}
void mgpuEventSynchronize(void *) {}
void mgpuEventRecord(void *, void *) {}
void *mgpuModuleLoad(void *, size_t) { return &module; }
void *mgpuModuleLoadJIT(void *, int) { return &module; }
void mgpuModuleUnload(void *) {}
void *mgpuModuleGetFunction(void *, const char *) { return &function; }
void mgpuLaunchKernel(void *, intptr_t, intptr_t, intptr_t, intptr_t, intptr_t,
                      intptr_t, int32_t, void *, void **, void **, size_t) {
  ++counters.launches;
}
void mgpuLaunchClusterKernel(void *, intptr_t, intptr_t, intptr_t, intptr_t,
                             intptr_t, intptr_t, intptr_t, intptr_t, intptr_t,
                             int32_t, void *, void **, void **) {
  ++counters.launches;
}
void mgpuSetDefaultDevice(int32_t) {}
void mgpuMemHostRegisterMemRef(int64_t, void *, int64_t) {}
void mgpuMemHostUnregisterMemRef(int64_t, void *, int64_t) {}
void ampGpuSynchronize(void) { ++counters.synchronizations; }
}

// Every function of the runtime's mgpu* table (MgpuAbi.def) is defined
// above: a missing one is an undefined symbol, and dlopen fails.
#define AMP_MGPU_FUNCTION AMP_MGPU_DEFINED
#include "amp/runtime/MgpuAbi.def"

// The library calls, one per row of the runtime's table (LibraryCalls.def),
// so that a new call needs no line here: they do nothing but count, except
// ampGpuConstant, whose device copy is the host data itself (device memory
// is host memory; what the CPU twin ampCpuConstant does).
namespace {
template <typename Result, typename... Args> Result fakeLibraryCall(Args...) {
  ++counters.libraryCalls;
  return Result();
}
// ampGpuConstant(hostPtr, bytes, slot): not counted.
template <>
void *fakeLibraryCall<void *, const void *, int64_t, void *>(const void *host,
                                                             int64_t bytes,
                                                             void *) {
  return bytes ? const_cast<void *>(host) : nullptr;
}
} // namespace

#define AMP_LIBRARY_CALL(STEM, GPU_NAME, CPU_NAME, RESULT, PARAMS)             \
  extern "C" AMP_LIBRARY_CALL_C_RESULT_##RESULT GPU_NAME(                      \
      PARAMS(AMP_LIBRARY_CALL_C_PARAM, AMP_LIBRARY_CALL_COMMA)) {              \
    return fakeLibraryCall<AMP_LIBRARY_CALL_C_RESULT_##RESULT>(                \
        PARAMS(AMP_LIBRARY_CALL_ARG, AMP_LIBRARY_CALL_COMMA));                 \
  }
#include "amp/runtime/LibraryCalls.def"
