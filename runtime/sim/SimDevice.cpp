//===- SimDevice.cpp - simulated device memory and the mgpu* ABI ----------===//
//
// Part of amp-mlir. The `mgpu*` entry points that the host code of
// `--lower-to-gpu` calls, on host memory: every device allocation is tracked
// (so frees of unknown pointers, copies past an allocation's end and leaks
// are reported), streams and events are no-ops (everything runs in order,
// synchronously), and modules are refused (simulated kernels are host
// functions launched with ampSimLaunchKernel).
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/MgpuAbi.h"

#include "../lib/Internal.h"
#include "SimState.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>

using namespace amp;
using namespace amp::sim;
using amp::rt::raiseError;
using amp::rt::raiseLastError;
using amp::rt::setError;

/// The alignment of every allocation (cudaMalloc gives 256 bytes).
static constexpr size_t kAlignment = 256;

DeviceState &sim::state() {
  static DeviceState *instance = new DeviceState; // Used from global dtors.
  return *instance;
}

void sim::count(int64_t AmpSimStats::*counter, int64_t amount) {
  DeviceState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.stats.*counter += amount;
}

/// The live allocation that holds [address, address + bytes), or end().
/// With s.mutex held.
static std::map<uintptr_t, Allocation>::iterator
findLive(DeviceState &s, uintptr_t address, uint64_t bytes) {
  auto it = s.live.upper_bound(address);
  if (it == s.live.begin())
    return s.live.end();
  --it;
  // A zero-sized allocation holds no bytes.
  if (address - it->first + bytes > it->second.bytes || address < it->first)
    return s.live.end();
  return it;
}

bool sim::findAllocation(uintptr_t address, uint64_t bytes, uintptr_t *base,
                         uint64_t *size) {
  DeviceState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = findLive(s, address, bytes);
  if (it == s.live.end())
    return false;
  *base = it->first;
  *size = it->second.bytes;
  return true;
}

bool sim::findAndMarkAllocation(uintptr_t address, uint64_t bytes, bool write,
                                uintptr_t *base, uint64_t *size, bool *read,
                                bool *written) {
  DeviceState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = findLive(s, address, bytes);
  if (it == s.live.end())
    return false;
  Allocation &allocation = it->second;
  bool &flag = write ? allocation.written : allocation.read;
  if (!flag) {
    flag = true;
    s.stats.idealBytes += static_cast<int64_t>(allocation.bytes);
  }
  *base = it->first;
  *size = allocation.bytes;
  *read = allocation.read;
  *written = allocation.written;
  return true;
}

void sim::markAccess(const void *pointer, bool write) {
  if (!pointer)
    return;
  DeviceState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  uintptr_t address = reinterpret_cast<uintptr_t>(pointer);
  auto it = s.live.upper_bound(address);
  if (it == s.live.begin())
    return;
  --it;
  if (address - it->first >= std::max<uint64_t>(it->second.bytes, 1))
    return;
  bool &flag = write ? it->second.written : it->second.read;
  if (!flag) {
    flag = true;
    s.stats.idealBytes += static_cast<int64_t>(it->second.bytes);
  }
}

void sim::describeAddress(uintptr_t address, uint64_t bytes, char *out,
                          size_t size) {
  DeviceState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto after = s.live.upper_bound(address);
  if (after != s.live.begin()) {
    auto it = std::prev(after);
    uint64_t offset = address - it->first;
    if (offset < it->second.bytes || (offset == 0 && bytes == 0)) {
      std::snprintf(out, size,
                    "%" PRIu64 " bytes at offset %" PRIu64
                    " of device allocation #%" PRId64 " (%" PRIu64
                    " bytes): %" PRIu64 " bytes past its end",
                    bytes, offset, it->second.id, it->second.bytes,
                    offset + bytes - it->second.bytes);
      return;
    }
    if (offset - it->second.bytes < 4096) {
      std::snprintf(out, size,
                    "%" PRIu64 " bytes at offset %" PRIu64
                    " of device allocation #%" PRId64 " (%" PRIu64
                    " bytes), outside it",
                    bytes, offset, it->second.id, it->second.bytes);
      return;
    }
  }
  if (after != s.live.end() && after->first - address < 4096) {
    std::snprintf(out, size,
                  "%" PRIu64 " bytes %" PRIu64
                  " bytes before device allocation #%" PRId64,
                  bytes, uint64_t(after->first - address), after->second.id);
    return;
  }
  std::snprintf(out, size,
                "%" PRIu64 " bytes at %#" PRIxPTR
                ", outside every live device allocation",
                bytes, address);
}

bool sim::checkDeviceRange(const char *call, const char *what,
                           const void *pointer, uint64_t bytes) {
  uintptr_t base;
  uint64_t size;
  if (bytes == 0 ||
      findAllocation(reinterpret_cast<uintptr_t>(pointer), bytes, &base, &size))
    return true;
  char where[256];
  describeAddress(reinterpret_cast<uintptr_t>(pointer), bytes, where,
                  sizeof(where));
  return setError(call, "%s: %s", what, where);
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

void *sim::allocate(const char *call, uint64_t bytes, bool persistent) {
  void *pointer = tryAllocate(call, bytes, persistent);
  if (!pointer)
    raiseLastError();
  return pointer;
}

void *sim::tryAllocate(const char *call, uint64_t bytes, bool persistent) {
  // Round up so that vectorised accesses of the last elements stay inside
  // what malloc gave, but track the exact size.
  size_t padded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void *pointer = std::aligned_alloc(kAlignment, padded ? padded : kAlignment);
  if (!pointer) {
    setError(call, "out of memory allocating %" PRIu64 " bytes", bytes);
    return nullptr;
  }
  // Fresh device memory is not zero on a GPU either: make reads of
  // uninitialised memory visible as NaN patterns rather than zeros.
  std::memset(pointer, 0xff, padded ? padded : kAlignment);
  DeviceState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.live[reinterpret_cast<uintptr_t>(pointer)] = {bytes, s.nextId++,
                                                  persistent};
  if (!persistent) {
    s.liveBytes += bytes;
    ++s.liveBuffers;
    ++s.stats.allocations;
    if (s.liveBytes > s.stats.peakBytes)
      s.stats.peakBytes = s.liveBytes;
  }
  return pointer;
}

extern "C" void *mgpuMemAlloc(uint64_t bytes, void * /*stream*/,
                              bool /*hostShared*/) {
  void *pointer = allocate("mgpuMemAlloc", bytes, /*persistent=*/false);
  if (pointer && capturing())
    captureNoteAllocation(pointer);
  return pointer;
}

extern "C" void mgpuMemFree(void *pointer, void * /*stream*/) {
  if (!pointer)
    return;
  if (captureOwns(pointer)) {
    // Freed with its graph; a free in the capture is the graph's own.
    if (!capturing())
      raiseError("mgpuMemFree",
                 "%p belongs to a CUDA graph (ampGpuGraphDestroy frees it)",
                 pointer);
    return;
  }
  if (capturing())
    return captureRecord([pointer] { mgpuMemFree(pointer, nullptr); });
  DeviceState &s = state();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.live.find(reinterpret_cast<uintptr_t>(pointer));
    if (it != s.live.end() && !it->second.persistent) {
      s.liveBytes -= it->second.bytes;
      --s.liveBuffers;
      s.live.erase(it);
      ++s.stats.frees;
      s.epoch.fetch_add(1);
      std::free(pointer);
      return;
    }
  }
  char where[256];
  describeAddress(reinterpret_cast<uintptr_t>(pointer), 0, where,
                  sizeof(where));
  raiseError("mgpuMemFree",
             "%p is not the start of a live device allocation (%s): a double "
             "free, a host pointer, or a constant of ampGpuConstant",
             pointer, where);
}

/// A range is device memory if it starts inside an allocation; then it must
/// end inside it too. Host ranges are not checked.
static bool checkCopyRange(const char *call, const char *what,
                           const void *pointer, uint64_t bytes) {
  uintptr_t base;
  uint64_t size;
  if (!findAllocation(reinterpret_cast<uintptr_t>(pointer), 1, &base, &size))
    return true;
  return checkDeviceRange(call, what, pointer, bytes);
}

/// Whether `pointer` starts inside a live device allocation.
static bool isDevice(const void *pointer) {
  uintptr_t base;
  uint64_t size;
  return findAllocation(reinterpret_cast<uintptr_t>(pointer), 1, &base, &size);
}

extern "C" void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream) {
  if (capturing() && bytes) {
    if (!isDevice(src) || !isDevice(dst)) {
      checkNotCapturing("mgpuMemcpy", "a copy between host and device memory "
                                      "(the runtime copies from pageable "
                                      "memory)");
      return raiseLastError();
    }
    return captureRecord([=] { mgpuMemcpy(dst, src, bytes, stream); });
  }
  count(&AmpSimStats::copies);
  if (!bytes)
    return;
  if (!checkCopyRange("mgpuMemcpy", "destination", dst, bytes) ||
      !checkCopyRange("mgpuMemcpy", "source", src, bytes))
    return raiseLastError();
  std::memmove(dst, src, bytes);
  // The estimate: device memory traffic on the device side(s), the host
  // link's for a host <-> device copy.
  bool fromDevice = isDevice(src), toDevice = isDevice(dst);
  Work work;
  int64_t n = static_cast<int64_t>(bytes);
  work.bytesRead = fromDevice ? n : 0;
  work.bytesWritten = toDevice ? n : 0;
  work.hostBytes = fromDevice != toDevice ? n : 0;
  record(AMP_SIM_RECORD_COPY,
         std::string("memcpy ") + (fromDevice ? "device" : "host") + "->" +
             (toDevice ? "device" : "host"),
         {work});
  if (fromDevice)
    markAccess(src, /*write=*/false);
  if (toDevice)
    markAccess(dst, /*write=*/true);
}

/// mgpuMemset32/16: `count_` elements of `value` at `dst`, inside one
/// device allocation.
template <typename T>
static void fill(const char *call, void *dst, T value, size_t count_) {
  count(&AmpSimStats::copies);
  if (!checkDeviceRange(call, "destination", dst, count_ * sizeof(T)))
    return raiseLastError();
  auto *out = static_cast<T *>(dst);
  for (size_t i = 0; i < count_; ++i)
    out[i] = value;
  if (!count_)
    return;
  Work work;
  work.bytesWritten = static_cast<int64_t>(count_ * sizeof(T));
  record(AMP_SIM_RECORD_COPY, "memset", {work});
  markAccess(dst, /*write=*/true);
}

extern "C" void mgpuMemset32(void *dst, uint32_t value, size_t count_,
                             void * /*stream*/) {
  if (capturing())
    return captureRecord([=] { fill("mgpuMemset32", dst, value, count_); });
  fill("mgpuMemset32", dst, value, count_);
}

extern "C" void mgpuMemset16(void *dst, uint16_t value, size_t count_,
                             void * /*stream*/) {
  if (capturing())
    return captureRecord([=] { fill("mgpuMemset16", dst, value, count_); });
  fill("mgpuMemset16", dst, value, count_);
}

//===----------------------------------------------------------------------===//
// Streams, events, modules
//===----------------------------------------------------------------------===//

namespace {
/// The one stream (and event) handle: a non-null address.
char gStream, gEvent;
} // namespace

extern "C" void *mgpuStreamCreate(void) { return &gStream; }
extern "C" void mgpuStreamDestroy(void *) {}
extern "C" void mgpuStreamSynchronize(void *) {
  // In a capture, the graph's launcher waits (AmpRuntime.h).
  if (!capturing())
    count(&AmpSimStats::synchronizations);
}
extern "C" void mgpuStreamWaitEvent(void *, void *) {}
extern "C" void *mgpuEventCreate(void) { return &gEvent; }
extern "C" void mgpuEventDestroy(void *) {}
extern "C" void mgpuEventSynchronize(void *) {}
extern "C" void mgpuEventRecord(void *, void *) {}
extern "C" void mgpuSetDefaultDevice(int32_t) {}
extern "C" void mgpuMemHostRegisterMemRef(int64_t, void *, int64_t) {}
extern "C" void mgpuMemHostUnregisterMemRef(int64_t, void *, int64_t) {}

static constexpr const char *kNoModules =
    "the GPU simulator runs no GPU binaries: compile with "
    "--lower-to-gpu=\"simulate=true\" (amp-run --target=gpu-sim), which "
    "turns kernels into host functions";

extern "C" void *mgpuModuleLoad(void *, size_t) {
  raiseError("mgpuModuleLoad", "%s", kNoModules);
  return nullptr;
}
extern "C" void *mgpuModuleLoadJIT(void *, int) {
  raiseError("mgpuModuleLoadJIT", "%s", kNoModules);
  return nullptr;
}
extern "C" void mgpuModuleUnload(void *) {}
extern "C" void *mgpuModuleGetFunction(void *, const char *) {
  raiseError("mgpuModuleGetFunction", "%s", kNoModules);
  return nullptr;
}
extern "C" void mgpuLaunchKernel(void *, intptr_t, intptr_t, intptr_t, intptr_t,
                                 intptr_t, intptr_t, int32_t, void *, void **,
                                 void **, size_t) {
  raiseError("mgpuLaunchKernel", "%s", kNoModules);
}
extern "C" void mgpuLaunchClusterKernel(void *, intptr_t, intptr_t, intptr_t,
                                        intptr_t, intptr_t, intptr_t, intptr_t,
                                        intptr_t, intptr_t, int32_t, void *,
                                        void **, void **) {
  raiseError("mgpuLaunchClusterKernel", "%s", kNoModules);
}

// The simulator defines every mgpu* function with its table signature.
#define AMP_MGPU_FUNCTION AMP_MGPU_DEFINED
#include "amp/runtime/MgpuAbi.def"

//===----------------------------------------------------------------------===//
// Statistics
//===----------------------------------------------------------------------===//

extern "C" void ampSimGetStats(AmpSimStats *stats) {
  if (!stats)
    return;
  DeviceState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  *stats = s.stats;
  stats->liveBuffers = s.liveBuffers;
  stats->liveBytes = s.liveBytes;
}

extern "C" void ampSimResetStats(void) {
  DeviceState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.stats = {};
  s.stats.peakBytes = s.liveBytes;
  s.records.clear();
  s.recordIndex.clear();
  s.launches.clear();
  // A new step for idealBytes: nothing read or written yet (and the access
  // checks' cached allocation, with its marks, is stale).
  for (auto &entry : s.live)
    entry.second.read = entry.second.written = false;
  s.epoch.fetch_add(1);
}

extern "C" int64_t ampSimDescribeLiveBuffers(char *buffer, size_t size,
                                             int64_t count_) {
  DeviceState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  std::map<int64_t, uint64_t> byId;
  for (auto &[base, allocation] : s.live)
    if (!allocation.persistent)
      byId[allocation.id] = allocation.bytes;
  std::string text;
  int64_t shown = 0;
  for (auto &[id, bytes] : byId) {
    if (shown++ == count_)
      break;
    if (!text.empty())
      text += ", ";
    text += "#" + std::to_string(id) + ": " + std::to_string(bytes) + " bytes";
  }
  if (buffer && size) {
    std::strncpy(buffer, text.c_str(), size - 1);
    buffer[size - 1] = '\0';
  }
  return s.liveBuffers;
}
