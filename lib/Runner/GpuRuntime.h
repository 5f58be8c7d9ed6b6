//===- GpuRuntime.h - libamp_runtime loaded at run time ---------*- C++ -*-===//
//
// Part of amp-mlir. The few entry points of libamp_runtime.so that amp-run
// calls itself (device buffers, copies, the stream), resolved with dlopen and
// dlsym so that amp-run neither links the runtime nor needs it for CPU runs.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_RUNNER_GPURUNTIME_H
#define AMP_LIB_RUNNER_GPURUNTIME_H

#include "amp/Runner/Runner.h"
#include "amp/runtime/MgpuAbi.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>

/// AmpGpuSim.h's counters and estimate.
struct AmpSimStats;
struct AmpSimChip;
struct AmpSimRecord;
struct AmpSimEstimate;

namespace mlir {
namespace amp {
namespace runner {

/// A runtime library opened with dlopen (once per path and process): its
/// path, its symbols, and the failures its error handler recorded. The
/// handler (ampSetErrorHandler) records failures instead of aborting.
class RuntimeLibrary {
public:
  StringRef getPath() const { return path; }
  /// The address of `name` in this library (dlsym on its handle), or null.
  void *lookup(StringRef name) const;
  /// The first failure reported by the runtime since the last call, if any.
  llvm::Error takeError();

protected:
  /// Opens `path` (`what` names the library in errors) once per path for
  /// each Runtime class, installs the recording error handler, and lets
  /// `init` resolve and check the entry points.
  template <typename Runtime>
  static llvm::Expected<Runtime *>
  loadOnce(StringRef path, StringRef what,
           llvm::function_ref<llvm::Error(Runtime &)> init);

  std::string path;
  void *handle = nullptr;
};

class GpuRuntime : public RuntimeLibrary {
public:
  /// Loads the runtime library at `path` (once per path and process), checks
  /// that it exports what amp-run needs and that a GPU is usable
  /// (ampGpuAvailable), and installs an error handler that records failures
  /// instead of aborting. The message of a failure is the runtime's own
  /// (ampLastError) or dlopen's. With `openDevice` false, the library is
  /// only loaded and checked, for the symbols of a compilation that will not
  /// run (CompileOptions::openDevice); a later load with `openDevice` opens
  /// the device then.
  static llvm::Expected<GpuRuntime *> load(StringRef path,
                                           bool openDevice = true);

  /// Whether the device was opened (load with `openDevice`).
  bool hasDevice() const { return stream != nullptr; }

  void *allocate(size_t bytes);
  void deallocate(void *pointer);
  void copy(void *destination, const void *source, size_t bytes);
  void synchronize();

  /// CUDA graphs of the runtime's stream (AmpRuntime.h): errors carry the
  /// runtime's message (ampLastError).
  llvm::Error beginCapture();
  llvm::Expected<AmpGpuGraph *> endCapture();
  llvm::Error launchGraph(AmpGpuGraph *graph);
  void destroyGraph(AmpGpuGraph *graph);

  /// True for the GPU simulator (libamp_runtime_gpusim.so, which exports
  /// ampSimGetStats).
  bool isSimulator() const { return simGetStats != nullptr; }
  /// The simulator's counters (zero for the real runtime).
  SimulatorStats getSimulatorStats() const;
  /// The simulator: zeroes its counters and records.
  void resetSimulatorStats();
  /// The simulator's roofline estimate for `chip`.
  llvm::Expected<SimulatorEstimate> getSimulatorEstimate(StringRef chip);
  /// The simulator: an error naming the buffers if more than `expected`
  /// device buffers are live.
  llvm::Error checkLiveBuffers(int64_t expected) const;

private:
  friend class RuntimeLibrary;
  GpuRuntime() = default;
  /// Resolves the entry points.
  llvm::Error initialize();
  /// Checks for a usable GPU and creates the stream.
  llvm::Error openDevice();

  void *stream = nullptr;

  // The runtime's declarations give the types (nothing is linked).
  decltype(&::ampGpuAvailable) gpuAvailable = nullptr;
  decltype(&::ampLastError) lastError = nullptr;
  decltype(&::mgpuMemAlloc) memAlloc = nullptr;
  decltype(&::mgpuMemFree) memFree = nullptr;
  decltype(&::mgpuMemcpy) memCopy = nullptr;
  decltype(&::mgpuStreamCreate) streamCreate = nullptr;
  decltype(&::mgpuStreamSynchronize) streamSynchronize = nullptr;
  decltype(&::ampGpuGraphBeginCapture) graphBeginCapture = nullptr;
  decltype(&::ampGpuGraphEndCapture) graphEndCapture = nullptr;
  decltype(&::ampGpuGraphLaunch) graphLaunch = nullptr;
  decltype(&::ampGpuGraphDestroy) graphDestroy = nullptr;
  void (*simGetStats)(AmpSimStats *) = nullptr;
  void (*simResetStats)() = nullptr;
  int (*simGetChip)(const char *, AmpSimChip *) = nullptr;
  int64_t (*simGetRecords)(const char *, AmpSimRecord *, int64_t) = nullptr;
  int (*simEstimate)(const char *, AmpSimEstimate *) = nullptr;
  int64_t (*simDescribeLiveBuffers)(char *, size_t, int64_t) = nullptr;
};

/// libamp_runtime.so for host code: what compiled CPU code calls (the
/// collectives, ampAllReduce) and the process group's rank. Loaded with
/// dlopen once per path, with the same recording error handler as
/// GpuRuntime (failures are reported after the call instead of aborting).
class HostRuntime : public RuntimeLibrary {
public:
  static llvm::Expected<HostRuntime *> load(StringRef path);

  /// This process's rank in the collectives' process group.
  llvm::Expected<int32_t> getRank() const;

private:
  friend class RuntimeLibrary;
  HostRuntime() = default;

  int32_t (*collectiveRank)() = nullptr;
  const char *(*lastError)() = nullptr;
};

} // namespace runner
} // namespace amp
} // namespace mlir

#endif // AMP_LIB_RUNNER_GPURUNTIME_H
