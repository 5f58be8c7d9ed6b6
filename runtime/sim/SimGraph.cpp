//===- SimGraph.cpp - CUDA graphs in the GPU simulator --------------------===//
//
// Part of amp-mlir. ampGpuGraphBeginCapture .. ampGpuGraphEndCapture and
// ampGpuGraphLaunch on the simulator: while the stream is captured, every
// entry point that queues work (kernel launches with their parameters'
// sizes, library calls, device-to-device copies, fills, frees) records a
// closure with copies of its arguments instead of running, and each launch
// of the graph runs the closures in order, as a CUDA graph replays its
// nodes with the values of the capture. What a capture cannot hold on a GPU
// (a host wait of the loss scaler's API, a host <-> device copy, a kernel
// launched without its parameters' sizes, a constant's first upload) fails
// here too, with the same reason. The contract is AmpRuntime.h's.
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/AmpRuntime.h"
#include "amp/runtime/MgpuAbi.h"

#include "../lib/Internal.h"
#include "SimState.h"

#include <algorithm>
#include <memory>
#include <new>
#include <vector>

using namespace amp;
using namespace amp::sim;
using amp::rt::setError;

struct AmpGpuGraph {
  std::vector<std::function<void()>> work;
  /// The allocations made in its capture: freed when it is destroyed.
  std::vector<void *> allocations;
};

namespace {

struct CaptureState {
  std::mutex mutex;
  std::atomic<bool> capturing{false};
  /// The graph being captured.
  std::unique_ptr<AmpGpuGraph> graph;
  /// Every graph's allocations (and the capture's).
  std::vector<void *> owned;
};

CaptureState &captureState() {
  static CaptureState *state = new CaptureState; // Used from global dtors.
  return *state;
}

} // namespace

bool sim::capturing() {
  return captureState().capturing.load(std::memory_order_acquire);
}

void sim::captureRecord(std::function<void()> work) {
  CaptureState &st = captureState();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (st.graph)
    st.graph->work.push_back(std::move(work));
}

void sim::captureNoteAllocation(void *pointer) {
  CaptureState &st = captureState();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (!st.graph)
    return;
  st.graph->allocations.push_back(pointer);
  st.owned.push_back(pointer);
}

bool sim::captureOwns(void *pointer) {
  CaptureState &st = captureState();
  std::lock_guard<std::mutex> lock(st.mutex);
  return std::find(st.owned.begin(), st.owned.end(), pointer) != st.owned.end();
}

bool sim::checkNotCapturing(const char *call, const char *why) {
  if (!capturing())
    return true;
  return setError(call, "cannot be captured in a CUDA graph: %s", why);
}

extern "C" {

int ampGpuGraphBeginCapture(void) {
  CaptureState &st = captureState();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (st.graph) {
    setError("ampGpuGraphBeginCapture", "the stream is already being captured");
    return 1;
  }
  st.graph.reset(new (std::nothrow) AmpGpuGraph);
  if (!st.graph) {
    setError("ampGpuGraphBeginCapture", "out of memory");
    return 1;
  }
  st.capturing.store(true, std::memory_order_release);
  return 0;
}

AmpGpuGraph *ampGpuGraphEndCapture(void) {
  CaptureState &st = captureState();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (!st.graph) {
    setError("ampGpuGraphEndCapture",
             "the stream is not being captured (ampGpuGraphBeginCapture)");
    return nullptr;
  }
  st.capturing.store(false, std::memory_order_release);
  // The capture's allocations left live are the graph's (freed with it).
  return st.graph.release();
}

int ampGpuGraphLaunch(AmpGpuGraph *graph) {
  if (!graph) {
    setError("ampGpuGraphLaunch", "null graph");
    return 1;
  }
  if (capturing()) {
    setError("ampGpuGraphLaunch", "the stream is being captured");
    return 1;
  }
  count(&AmpSimStats::graphLaunches);
  for (std::function<void()> &work : graph->work)
    work();
  return 0;
}

void ampGpuGraphDestroy(AmpGpuGraph *graph) {
  if (!graph)
    return;
  {
    CaptureState &st = captureState();
    std::lock_guard<std::mutex> lock(st.mutex);
    for (void *pointer : graph->allocations)
      st.owned.erase(std::find(st.owned.begin(), st.owned.end(), pointer));
  }
  for (void *pointer : graph->allocations)
    mgpuMemFree(pointer, nullptr);
  delete graph;
}

} // extern "C"
