//===- GpuGraph.cpp - the shared stream captured as a CUDA graph ---------===//
//
// Part of amp-mlir. ampGpuGraphBeginCapture .. ampGpuGraphEndCapture record
// what compiled code queues on the runtime's one stream as a CUDA graph
// (stream capture, thread-local mode), which ampGpuGraphLaunch replays with
// one launch. Stream-ordered allocations made in the capture become the
// graph's memory nodes; those the code left live (its results) are freed in
// the graph when the capture ends, so that an instantiated graph owns no
// memory between its launches and can be launched again and again. The
// declarations and their contract are in AmpRuntime.h.
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/AmpRuntime.h"

#include "GpuContext.h"
#include "Internal.h"

#include <atomic>
#include <mutex>
#include <new>
#include <unordered_set>
#include <vector>

using namespace amp::rt;

struct AmpGpuGraph {
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
};

namespace {

struct CaptureState {
  std::mutex mutex;
  std::atomic<bool> capturing{false};
  /// The capture's allocations not freed yet.
  std::unordered_set<CUdeviceptr> allocations;
};

CaptureState &captureState() {
  static CaptureState *state = new CaptureState; // Leaked, as GpuState.
  return *state;
}

/// The driver, with the graph functions (optional symbols: CUDA 11.4 and
/// later), or null with the error set.
const DriverApi *graphDriver(const char *call) {
  const DriverApi *drv = gpuInit(call);
  if (!drv)
    return nullptr;
  if (!drv->cuStreamBeginCapture_v2 || !drv->cuStreamEndCapture ||
      !drv->cuGraphInstantiateWithFlags || !drv->cuGraphLaunch ||
      !drv->cuGraphExecDestroy || !drv->cuGraphDestroy) {
    setError(call, "the CUDA driver has no stream capture or graph launch "
                   "(cuStreamBeginCapture_v2, cuGraphInstantiateWithFlags; "
                   "CUDA 11.4 or newer)");
    return nullptr;
  }
  return drv;
}

} // namespace

bool amp::rt::gpuCapturing() {
  return captureState().capturing.load(std::memory_order_acquire);
}

void amp::rt::gpuCaptureNoteAllocation(CUdeviceptr ptr) {
  CaptureState &st = captureState();
  std::lock_guard<std::mutex> lock(st.mutex);
  st.allocations.insert(ptr);
}

void amp::rt::gpuCaptureNoteFree(CUdeviceptr ptr) {
  CaptureState &st = captureState();
  std::lock_guard<std::mutex> lock(st.mutex);
  st.allocations.erase(ptr);
}

extern "C" {

int ampGpuGraphBeginCapture(void) {
  const char *call = "ampGpuGraphBeginCapture";
  const DriverApi *drv = graphDriver(call);
  if (!drv)
    return 1;
  if (!gpuHasMemoryPools()) {
    setError(call, "capturing needs stream-ordered allocation "
                   "(cuMemAllocAsync with memory pools), which this device "
                   "or driver does not offer");
    return 1;
  }
  CaptureState &st = captureState();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (st.capturing.load(std::memory_order_relaxed)) {
    setError(call, "the stream is already being captured");
    return 1;
  }
  // Thread-local mode: a call on this thread that is unsafe in a capture
  // (a synchronous allocation or copy) fails instead of corrupting it.
  if (!cuCheck(call,
               drv->cuStreamBeginCapture_v2(
                   gpuStream(), CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
               "cuStreamBeginCapture"))
    return 1;
  st.allocations.clear();
  st.capturing.store(true, std::memory_order_release);
  return 0;
}

AmpGpuGraph *ampGpuGraphEndCapture(void) {
  const char *call = "ampGpuGraphEndCapture";
  CaptureState &st = captureState();
  std::vector<CUdeviceptr> leftovers;
  {
    std::lock_guard<std::mutex> lock(st.mutex);
    if (!st.capturing.load(std::memory_order_relaxed)) {
      setError(call, "the stream is not being captured "
                     "(ampGpuGraphBeginCapture)");
      return nullptr;
    }
    leftovers.assign(st.allocations.begin(), st.allocations.end());
    st.allocations.clear();
  }
  const DriverApi *drv = gpuInit(call);
  CUstream stream = gpuStream();
  // The results the capture left: freed in the graph, after the copies the
  // caller queued out of them.
  bool freed = true;
  for (CUdeviceptr ptr : leftovers)
    freed = freed && cuCheck(call, drv->cuMemFreeAsync(ptr, stream),
                             "cuMemFreeAsync (a result of the capture)");
  st.capturing.store(false, std::memory_order_release);
  CUgraph graph = nullptr;
  CUresult ended = drv->cuStreamEndCapture(stream, &graph);
  if (ended != CUDA_SUCCESS) {
    cuCheck(call, ended, "cuStreamEndCapture");
    appendError(" (an operation that a capture cannot hold ran on the "
                "stream: a host wait, a copy from pageable host memory, a "
                "synchronous allocation)");
    return nullptr;
  }
  auto *result = new (std::nothrow) AmpGpuGraph;
  if (!freed || !result ||
      !cuCheck(call, drv->cuGraphInstantiateWithFlags(&result->exec, graph, 0),
               "cuGraphInstantiateWithFlags")) {
    if (!result)
      setError(call, "out of memory");
    drv->cuGraphDestroy(graph);
    delete result;
    return nullptr;
  }
  result->graph = graph;
  return result;
}

int ampGpuGraphLaunch(AmpGpuGraph *graph) {
  const char *call = "ampGpuGraphLaunch";
  if (!graph) {
    setError(call, "null graph");
    return 1;
  }
  if (gpuCapturing()) {
    setError(call, "the stream is being captured");
    return 1;
  }
  const DriverApi *drv = graphDriver(call);
  return drv && cuCheck(call, drv->cuGraphLaunch(graph->exec, gpuStream()),
                        "cuGraphLaunch")
             ? 0
             : 1;
}

void ampGpuGraphDestroy(AmpGpuGraph *graph) {
  if (!graph)
    return;
  const char *call = "ampGpuGraphDestroy";
  if (const DriverApi *drv = gpuInit(call)) {
    // Not while a launch of it may still run.
    (void)drv->cuStreamSynchronize(gpuStream());
    (void)drv->cuGraphExecDestroy(graph->exec);
    (void)drv->cuGraphDestroy(graph->graph);
  }
  delete graph;
}

} // extern "C"
