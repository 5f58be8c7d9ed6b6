//===- GpuRuntime.cpp - libamp_runtime loaded at run time -----------------===//
//
// Part of amp-mlir. amp-run does not link the runtime: it resolves the few
// entry points it calls with dlsym, as pointers of the types that the
// runtime's headers declare (AmpRuntime.h, and MgpuAbi.h from the mgpu*
// table MgpuAbi.def).
//
//===----------------------------------------------------------------------===//

#include "GpuRuntime.h"

#include "amp/runtime/AmpGpuSim.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <dlfcn.h>
#include <memory>
#include <mutex>
#include <vector>

using namespace mlir;
using namespace mlir::amp::runner;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

namespace {
/// What the installed error handler recorded (the runtime calls it for
/// failures of void- and pointer-returning entry points).
struct HandlerState {
  std::mutex mutex;
  bool failed = false;
  std::string message;
};
} // namespace

static HandlerState &getHandlerState() {
  static HandlerState state;
  return state;
}

/// AmpErrorHandler: record the first failure and return; the failing entry
/// point then returns without doing its work (NULL for pointers), and amp-run
/// reports the failure after the call.
static void recordRuntimeError(const char *message) {
  HandlerState &state = getHandlerState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (!state.failed) {
    state.failed = true;
    state.message = message ? message : "unknown GPU runtime error";
  }
}

//===----------------------------------------------------------------------===//
// RuntimeLibrary
//===----------------------------------------------------------------------===//

template <typename Runtime>
llvm::Expected<Runtime *>
RuntimeLibrary::loadOnce(StringRef path, StringRef what,
                         llvm::function_ref<llvm::Error(Runtime &)> init) {
  static std::mutex mutex;
  static llvm::StringMap<std::unique_ptr<Runtime>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = loaded.find(path);
  if (it != loaded.end())
    return it->second.get();
  if (path.empty())
    return makeError("the path of the " + what +
                     " is unknown (name it with --runtime-lib)");
  if (!llvm::sys::fs::exists(path))
    return makeError("the " + what + " '" + path +
                     "' does not exist (build it, or name it with "
                     "--runtime-lib)");
  std::string pathString = path.str();
  void *handle = dlopen(pathString.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!handle) {
    const char *reason = dlerror();
    return makeError("cannot load the " + what + ": " +
                     llvm::Twine(reason ? reason : pathString));
  }
  // Failures inside the library must not abort the process.
  using Handler = void (*)(const char *);
  if (auto setHandler = reinterpret_cast<Handler (*)(Handler)>(
          dlsym(handle, "ampSetErrorHandler")))
    setHandler(recordRuntimeError);
  std::unique_ptr<Runtime> runtime(new Runtime());
  runtime->path = pathString;
  runtime->handle = handle;
  if (llvm::Error error = init(*runtime)) {
    // What the handler recorded meanwhile belongs to this failure.
    llvm::consumeError(runtime->takeError());
    return std::move(error);
  }
  Runtime *result = runtime.get();
  loaded[path] = std::move(runtime);
  return result;
}

void *RuntimeLibrary::lookup(StringRef name) const {
  std::string symbol = name.str();
  return dlsym(handle, symbol.c_str());
}

llvm::Error RuntimeLibrary::takeError() {
  HandlerState &state = getHandlerState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (!state.failed)
    return llvm::Error::success();
  state.failed = false;
  return makeError(std::move(state.message));
}

//===----------------------------------------------------------------------===//
// GpuRuntime
//===----------------------------------------------------------------------===//

llvm::Expected<GpuRuntime *> GpuRuntime::load(StringRef path, bool openDevice) {
  llvm::Expected<GpuRuntime *> runtime = loadOnce<GpuRuntime>(
      path, "GPU runtime library",
      [](GpuRuntime &runtime) { return runtime.initialize(); });
  if (!runtime || !openDevice)
    return runtime;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if ((*runtime)->hasDevice())
    return runtime;
  if (llvm::Error error = (*runtime)->openDevice())
    return std::move(error);
  return runtime;
}

llvm::Error GpuRuntime::initialize() {
  std::string missing;
  auto resolve = [&](auto &function, const char *name) {
    function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(
        dlsym(handle, name));
    if (!function)
      missing += (missing.empty() ? "" : ", ") + std::string(name);
  };
  resolve(gpuAvailable, "ampGpuAvailable");
  resolve(lastError, "ampLastError");
  resolve(memAlloc, "mgpuMemAlloc");
  resolve(memFree, "mgpuMemFree");
  resolve(memCopy, "mgpuMemcpy");
  resolve(streamCreate, "mgpuStreamCreate");
  resolve(streamSynchronize, "mgpuStreamSynchronize");
  // CUDA graphs (optional: beginCapture says when they are missing).
  auto optional = [&](auto &function, const char *name) {
    function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(
        dlsym(handle, name));
  };
  optional(graphBeginCapture, "ampGpuGraphBeginCapture");
  optional(graphEndCapture, "ampGpuGraphEndCapture");
  optional(graphLaunch, "ampGpuGraphLaunch");
  optional(graphDestroy, "ampGpuGraphDestroy");
  // The simulator's own entry points (optional: absent in libamp_runtime).
  simGetStats = reinterpret_cast<void (*)(AmpSimStats *)>(
      dlsym(handle, "ampSimGetStats"));
  simDescribeLiveBuffers =
      reinterpret_cast<int64_t (*)(char *, size_t, int64_t)>(
          dlsym(handle, "ampSimDescribeLiveBuffers"));
  simResetStats =
      reinterpret_cast<void (*)()>(dlsym(handle, "ampSimResetStats"));
  simGetChip = reinterpret_cast<int (*)(const char *, AmpSimChip *)>(
      dlsym(handle, "ampSimGetChip"));
  simGetRecords =
      reinterpret_cast<int64_t (*)(const char *, AmpSimRecord *, int64_t)>(
          dlsym(handle, "ampSimGetRecords"));
  simEstimate = reinterpret_cast<int (*)(const char *, AmpSimEstimate *)>(
      dlsym(handle, "ampSimEstimate"));
  if (!missing.empty())
    return makeError("'" + path +
                     "' is not the amp-mlir GPU runtime: it does "
                     "not export " +
                     missing);
  return llvm::Error::success();
}

llvm::Error GpuRuntime::openDevice() {
  if (!gpuAvailable()) {
    const char *reason = lastError();
    return makeError(reason && *reason ? reason
                                       : "no usable GPU (ampGpuAvailable() "
                                         "returned 0)");
  }
  stream = streamCreate();
  return takeError();
}

void *GpuRuntime::allocate(size_t bytes) {
  if (!bytes)
    return nullptr;
  return memAlloc(bytes, stream, /*hostShared=*/false);
}

void GpuRuntime::deallocate(void *pointer) {
  if (pointer)
    memFree(pointer, stream);
}

void GpuRuntime::copy(void *destination, const void *source, size_t bytes) {
  if (bytes)
    memCopy(destination, const_cast<void *>(source), bytes, stream);
}

llvm::Error GpuRuntime::beginCapture() {
  if (!graphBeginCapture || !graphEndCapture || !graphLaunch || !graphDestroy)
    return makeError("the GPU runtime library '" + path +
                     "' does not export ampGpuGraphBeginCapture, "
                     "ampGpuGraphEndCapture, ampGpuGraphLaunch and "
                     "ampGpuGraphDestroy (an older build?)");
  if (graphBeginCapture() != 0)
    return makeError(lastError());
  return llvm::Error::success();
}

llvm::Expected<AmpGpuGraph *> GpuRuntime::endCapture() {
  AmpGpuGraph *graph = graphEndCapture();
  if (!graph)
    return makeError(lastError());
  return graph;
}

llvm::Error GpuRuntime::launchGraph(AmpGpuGraph *graph) {
  if (graphLaunch(graph) != 0)
    return makeError(lastError());
  return takeError();
}

void GpuRuntime::destroyGraph(AmpGpuGraph *graph) {
  if (graphDestroy)
    graphDestroy(graph);
}

void GpuRuntime::synchronize() { streamSynchronize(stream); }

SimulatorStats GpuRuntime::getSimulatorStats() const {
  SimulatorStats stats;
  if (!simGetStats)
    return stats;
  AmpSimStats sim = {};
  simGetStats(&sim);
  stats.allocations = sim.allocations;
  stats.frees = sim.frees;
  stats.liveBuffers = sim.liveBuffers;
  stats.liveBytes = sim.liveBytes;
  stats.peakBytes = sim.peakBytes;
  stats.launches = sim.launches;
  stats.threads = sim.threads;
  stats.libraryCalls = sim.libraryCalls;
  stats.copies = sim.copies;
  stats.synchronizations = sim.synchronizations;
  stats.graphLaunches = sim.graphLaunches;
  stats.kernelBytesRead = sim.kernelBytesRead;
  stats.kernelBytesWritten = sim.kernelBytesWritten;
  stats.kernelFlops = sim.kernelFlops;
  stats.libraryBytes = sim.libraryBytes;
  stats.libraryFlops = sim.libraryFlops;
  stats.copyBytes = sim.copyBytes;
  stats.hostBytes = sim.hostBytes;
  stats.idealBytes = sim.idealBytes;
  return stats;
}

void GpuRuntime::resetSimulatorStats() {
  if (simResetStats)
    simResetStats();
}

llvm::Expected<SimulatorEstimate>
GpuRuntime::getSimulatorEstimate(StringRef chipName) {
  if (!simGetChip || !simGetRecords || !simEstimate)
    return makeError("'" + path +
                     "' has no roofline estimate (ampSimEstimate): not the "
                     "GPU simulator, or an older one");
  std::string name = chipName.str();
  AmpSimChip chip;
  AmpSimEstimate total;
  if (simGetChip(name.c_str(), &chip) != 0 ||
      simEstimate(name.c_str(), &total) != 0) {
    if (llvm::Error error = takeError())
      return std::move(error);
    return makeError("unknown chip '" + chipName + "'");
  }
  SimulatorEstimate estimate;
  estimate.chip = chip.name;
  estimate.description = chip.description;
  estimate.bandwidth = chip.bandwidth;
  estimate.fp32Flops = chip.fp32Flops;
  estimate.f16Flops = chip.f16Flops;
  estimate.launchSeconds = chip.launchSeconds;
  estimate.libraryEfficiency = chip.libraryEfficiency;
  estimate.seconds = total.seconds;
  estimate.kernelSeconds = total.kernelSeconds;
  estimate.librarySeconds = total.librarySeconds;
  estimate.copySeconds = total.copySeconds;
  estimate.launches = total.launches;
  int64_t count = simGetRecords(name.c_str(), nullptr, 0);
  std::vector<AmpSimRecord> records(
      static_cast<size_t>(std::max<int64_t>(count, 0)));
  count = simGetRecords(name.c_str(), records.data(),
                        static_cast<int64_t>(records.size()));
  records.resize(static_cast<size_t>(
      std::min<int64_t>(std::max<int64_t>(count, 0), records.size())));
  for (const AmpSimRecord &r : records) {
    SimulatorRecord out;
    out.name = r.name;
    out.kind = static_cast<SimulatorRecord::Kind>(r.kind);
    out.bound = static_cast<SimulatorRecord::Bound>(r.bound);
    out.calls = r.calls;
    out.launches = r.launches;
    out.threads = r.threads;
    std::copy(r.grid, r.grid + 3, out.grid);
    std::copy(r.block, r.block + 3, out.block);
    out.bytesRead = r.bytesRead;
    out.bytesWritten = r.bytesWritten;
    out.hostBytes = r.hostBytes;
    out.flops = r.flops;
    std::copy(r.loads, r.loads + 5, out.loads);
    std::copy(r.stores, r.stores + 5, out.stores);
    out.seconds = r.seconds;
    estimate.records.push_back(std::move(out));
  }
  if (llvm::Error error = takeError())
    return std::move(error);
  return estimate;
}

llvm::Error GpuRuntime::checkLiveBuffers(int64_t expected) const {
  if (!simDescribeLiveBuffers)
    return llvm::Error::success();
  char buffer[512];
  int64_t live = simDescribeLiveBuffers(buffer, sizeof(buffer), 8);
  if (live <= expected)
    return llvm::Error::success();
  return makeError("gpu-sim: " + llvm::Twine(live - expected) +
                   " device buffer" + (live - expected == 1 ? "" : "s") +
                   " not freed when the call returned (live, oldest first: " +
                   buffer + (live > 8 ? ", ..." : "") + ")");
}

//===----------------------------------------------------------------------===//
// The estimate's chips
//===----------------------------------------------------------------------===//

std::string mlir::amp::runner::getSimulatorChipNames() {
  std::string names;
#define AMP_SIM_CHIP(ID, NAME, ...)                                            \
  names += (names.empty() ? "" : ", ") + std::string(NAME);
#include "amp/runtime/SimChips.def"
  return names;
}

bool mlir::amp::runner::isSimulatorChip(StringRef name) {
#define AMP_SIM_CHIP(ID, NAME, ...)                                            \
  if (name == NAME)                                                            \
    return true;
#include "amp/runtime/SimChips.def"
  return false;
}

//===----------------------------------------------------------------------===//
// HostRuntime
//===----------------------------------------------------------------------===//

llvm::Expected<HostRuntime *> HostRuntime::load(StringRef path) {
  return loadOnce<HostRuntime>(
      path, "runtime library", [&](HostRuntime &runtime) -> llvm::Error {
        runtime.collectiveRank = reinterpret_cast<int32_t (*)()>(
            dlsym(runtime.handle, "ampCollectiveRank"));
        runtime.lastError = reinterpret_cast<const char *(*)()>(
            dlsym(runtime.handle, "ampLastError"));
        if (!runtime.collectiveRank || !runtime.lastError)
          return makeError("'" + path +
                           "' is not the amp-mlir runtime: it does not "
                           "export ampCollectiveRank and ampLastError");
        return llvm::Error::success();
      });
}

llvm::Expected<int32_t> HostRuntime::getRank() const {
  int32_t rank = collectiveRank();
  if (rank < 0) {
    const char *reason = lastError();
    return makeError(reason && *reason ? reason : "ampCollectiveRank() failed");
  }
  return rank;
}
