//===- GpuRuntime.h - libamp_runtime loaded at run time ---------*- C++ -*-===//
//
// Part of amp-mlir. The few entry points of libamp_runtime.so that amp-run
// calls itself (device buffers, copies, the stream), resolved with dlopen and
// dlsym so that amp-run neither links the runtime nor needs it for CPU runs.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_RUNNER_GPURUNTIME_H
#define AMP_LIB_RUNNER_GPURUNTIME_H

#include "mlir/Support/LLVM.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace mlir {
namespace amp {
namespace runner {

class GpuRuntime {
public:
  /// Loads the runtime library at `path` (once per path and process), checks
  /// that it exports what amp-run needs and that a GPU is usable
  /// (ampGpuAvailable), and installs an error handler that records failures
  /// instead of aborting. The message of a failure is the runtime's own
  /// (ampLastError) or dlopen's.
  static llvm::Expected<GpuRuntime *> load(StringRef path);

  StringRef getPath() const { return path; }

  void *allocate(size_t bytes);
  void deallocate(void *pointer);
  void copy(void *destination, const void *source, size_t bytes);
  void synchronize();

  /// The first failure reported by the runtime since the last call, if any.
  llvm::Error takeError();

private:
  GpuRuntime() = default;

  std::string path;
  void *handle = nullptr;
  void *stream = nullptr;

  int (*gpuAvailable)() = nullptr;
  const char *(*lastError)() = nullptr;
  void *(*memAlloc)(uint64_t, void *, bool) = nullptr;
  void (*memFree)(void *, void *) = nullptr;
  void (*memCopy)(void *, void *, size_t, void *) = nullptr;
  void *(*streamCreate)() = nullptr;
  void (*streamSynchronize)(void *) = nullptr;
};

} // namespace runner
} // namespace amp
} // namespace mlir

#endif // AMP_LIB_RUNNER_GPURUNTIME_H
