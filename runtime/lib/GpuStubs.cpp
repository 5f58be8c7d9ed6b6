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
#include "GpuApi.h"
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

/// What a generated mgpu* stub returns: nothing, or NULL.
struct NullResult {
  operator void *() const { return nullptr; }
};

template <typename... Args> void ignore(const Args &...) {}

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

// The mgpu* functions that MgpuAbi.def marks Own: modules are recorded, so
// that the global ctor/dtor pair of a gpu.binary works without CUDA; the
// first mgpuModuleGetFunction reports that GPU support was not built.

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

} // extern "C"

// Every other mgpu* function (MgpuAbi.def), by its STUB column: Always
// reports that GPU support was not built, If(PARAM) does so when PARAM is
// nonzero (the call has work), Never does nothing; a pointer result is NULL.
// AMP_MGPU_STUB_If(PARAM) expands to the name of the entry macro, which
// takes the row's arguments that follow it.
#define AMP_MGPU_STUB_Own(NAME, RESULT, PARAMS, STUB)
#define AMP_MGPU_STUB_Always AMP_MGPU_STUB_ENTRY
#define AMP_MGPU_STUB_Never AMP_MGPU_STUB_ENTRY
#define AMP_MGPU_STUB_If(PARAM) AMP_MGPU_STUB_ENTRY
#define AMP_MGPU_STUB_WHEN_Always true
#define AMP_MGPU_STUB_WHEN_Never false
#define AMP_MGPU_STUB_WHEN_If(PARAM) (PARAM) != 0
#define AMP_MGPU_STUB_ENTRY(NAME, RESULT, PARAMS, STUB)                        \
  extern "C" AMP_MGPU_PROTOTYPE(NAME, RESULT, PARAMS) {                        \
    ignore(PARAMS(AMP_MGPU_ARG, AMP_MGPU_COMMA));                              \
    if (AMP_MGPU_STUB_WHEN_##STUB)                                             \
      fail(#NAME);                                                             \
    return static_cast<AMP_MGPU_C_RESULT_##RESULT>(NullResult{});              \
  }
#define AMP_MGPU_FUNCTION(NAME, RESULT, PARAMS, STUB)                          \
  AMP_MGPU_STUB_##STUB(NAME, RESULT, PARAMS, STUB)
#include "amp/runtime/MgpuAbi.def"

// The device queries, loss scaling and optimizers (GpuApi.def): declared in
// the public headers with the table's signatures, and defined here by the
// STUB column: Fail(VALUE) reports that GPU support was not built and
// returns VALUE, FailClearing(BUF, LEN, VALUE) first writes "" to the
// string buffer, Nothing does nothing (no handle can exist in this build, so
// the destroy functions have nothing to do; nothing can have been queued).
// Failures are returned with ampLastError() set, never passed to the error
// handler. AMP_GPU_API_STUB_<kind>(...) expands to the body's last
// statements; `call` is the row's name.
#define AMP_GPU_API_FUNCTION AMP_GPU_API_CHECK
#include "amp/runtime/GpuApi.def"
#define AMP_GPU_API_STUB_Nothing
#define AMP_GPU_API_STUB_Fail(VALUE)                                           \
  noGpu(call);                                                                 \
  return VALUE;
#define AMP_GPU_API_STUB_FailClearing(BUF, LEN, VALUE)                         \
  if (BUF && LEN)                                                              \
    BUF[0] = '\0';                                                             \
  AMP_GPU_API_STUB_Fail(VALUE)
#define AMP_GPU_API_FUNCTION(NAME, RESULT, PARAMS, STUB)                       \
  extern "C" AMP_GPU_API_PROTOTYPE(NAME, RESULT, PARAMS) {                     \
    [[maybe_unused]] const char *call = #NAME;                                 \
    ignore(PARAMS(AMP_MGPU_ARG, AMP_MGPU_COMMA));                              \
    AMP_GPU_API_STUB_##STUB                                                    \
  }
#include "amp/runtime/GpuApi.def"

// This build defines every mgpu* function with its table signature.
#define AMP_MGPU_FUNCTION AMP_MGPU_DEFINED
#include "amp/runtime/MgpuAbi.def"
