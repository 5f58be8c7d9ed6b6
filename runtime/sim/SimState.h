//===- SimState.h - shared state of the GPU simulator -----------*- C++ -*-===//
//
// Part of amp-mlir. The simulated device memory (host memory, every
// allocation tracked) and the counters, shared by the simulator's sources.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_SIM_SIMSTATE_H
#define AMP_RUNTIME_SIM_SIMSTATE_H

#include "amp/runtime/AmpGpuSim.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace amp {
namespace sim {

struct Allocation {
  uint64_t bytes = 0;
  int64_t id = 0;
  /// A constant uploaded once per loaded module (ampGpuConstant): lives
  /// as long as the process, as the CUDA runtime's copies do; not counted
  /// as a leak.
  bool persistent = false;
  /// Read / written since the last reset (AmpSimStats::idealBytes).
  bool read = false, written = false;
};

/// Which compute peak of a chip a piece of work runs at.
enum class Peak { Fp32, Tf32, F16, Fp8 };

/// One piece of work of a record, estimated as one roofline: a kernel
/// launch, a library call (or one of the kernels it runs), a copy.
struct Work {
  int64_t bytesRead = 0, bytesWritten = 0, flops = 0;
  /// Bytes over the host link (a host <-> device copy).
  int64_t hostBytes = 0;
  Peak peak = Peak::Fp32;
  /// A library call's work: at the chip's library efficiency.
  bool library = false;
};

/// What a record adds for a kernel launch (kernels only).
struct LaunchInfo {
  int64_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  int64_t threads = 0;
  int64_t loads[AMP_SIM_ACCESS_WIDTHS] = {};
  int64_t stores[AMP_SIM_ACCESS_WIDTHS] = {};
};

/// The chips of SimChips.def, in its order.
enum class ChipId {
#define AMP_SIM_CHIP(ID, ...) ID,
#include "amp/runtime/SimChips.def"
  Count
};
constexpr int kChips = static_cast<int>(ChipId::Count);

/// A record (AmpSimRecord) with the estimate of every chip.
struct Record {
  std::string name;
  int32_t kind = AMP_SIM_RECORD_KERNEL;
  int64_t calls = 0, launches = 0;
  LaunchInfo launch;
  Work total;
  /// Per chip: the estimate of every call, and its memory / compute /
  /// launch parts (for the bound).
  double seconds[kChips] = {}, memorySeconds[kChips] = {},
         computeSeconds[kChips] = {}, launchSeconds[kChips] = {};
};

/// One launch of the step (a kernel, one kernel of a library call, a copy):
/// the launch list of ampSimGetLaunches.
struct LaunchEntry {
  int64_t record = 0;
  int32_t kind = AMP_SIM_RECORD_KERNEL;
  Work work;
};

struct DeviceState {
  std::mutex mutex;
  /// Live allocations by base address.
  std::map<uintptr_t, Allocation> live;
  int64_t nextId = 1;
  /// Bytes and count of the live allocations that are not persistent.
  int64_t liveBytes = 0;
  int64_t liveBuffers = 0;
  /// Bumped by every free: invalidates the access checks' cached range.
  std::atomic<uint64_t> epoch{0};
  AmpSimStats stats = {};
  /// The records since the last reset, in the order they first ran.
  std::vector<Record> records;
  std::map<std::string, size_t> recordIndex;
  /// Every launch since the last reset, in order.
  std::vector<LaunchEntry> launches;
  /// ampSimSetCountOnly: library calls are counted and checked, not
  /// computed.
  std::atomic<bool> countOnly{false};
};

DeviceState &state();

/// The live allocation holding [address, address + bytes), if any; `base`
/// and `size` describe it. Takes the lock.
/// Allocates `bytes` of simulated device memory (filled with 0xff bytes);
/// null after reporting the error.
void *allocate(const char *call, uint64_t bytes, bool persistent);
/// The same, null with the error set but not reported (for entry points
/// that return their errors).
void *tryAllocate(const char *call, uint64_t bytes, bool persistent);

/// ampSimLaunchKernel, false with the error set but not reported (for entry
/// points that return their errors). `segments` (`numSegments` of them, or
/// none) are the blocks of each body of a merged kernel, in order
/// (ampSimLaunchKernelInSegments).
bool launchKernel(const char *name, AmpSimKernel kernel, int64_t gridX,
                  int64_t gridY, int64_t gridZ, int64_t blockX, int64_t blockY,
                  int64_t blockZ, int32_t sharedMemoryBytes, void **params,
                  int32_t flags, const int64_t *segments = nullptr,
                  int32_t numSegments = 0);

bool findAllocation(uintptr_t address, uint64_t bytes, uintptr_t *base,
                    uint64_t *size);

/// CUDA graphs (SimGraph.cpp). While the stream is captured
/// (ampGpuGraphBeginCapture), its work is recorded, not run: each entry
/// point that queues work records a closure that ampGpuGraphLaunch runs.
/// Allocations made in the capture are the graph's: they stay live, at the
/// same addresses, until the graph is destroyed (a free in the capture is
/// the graph's own), as a graph's memory nodes keep their addresses.
bool capturing();
/// Records `work` into the capture (errors are raised when it runs).
void captureRecord(std::function<void()> work);
/// An allocation made in the capture.
void captureNoteAllocation(void *pointer);
/// Whether `pointer` is an allocation of the capture or of a graph.
bool captureOwns(void *pointer);
/// Sets "<call>: cannot be captured in a CUDA graph: <why>" and returns
/// false if the stream is captured; true otherwise.
bool checkNotCapturing(const char *call, const char *why);

/// findAllocation that also marks the allocation read (`write` false) or
/// written for AmpSimStats::idealBytes, and says which marks it now has.
bool findAndMarkAllocation(uintptr_t address, uint64_t bytes, bool write,
                           uintptr_t *base, uint64_t *size, bool *read,
                           bool *written);

/// "inside allocation #3 (400 bytes) at offset 396" or "outside every
/// device allocation" (nearest one named), for messages.
void describeAddress(uintptr_t address, uint64_t bytes, char *out, size_t size);

/// Checks a host-side range argument (a copy, a library call operand) that
/// must lie in device memory; sets the error and returns false if not.
bool checkDeviceRange(const char *call, const char *what, const void *pointer,
                      uint64_t bytes);

void count(int64_t AmpSimStats::*counter, int64_t amount = 1);

/// Marks the live device allocation holding `pointer` read or written,
/// for AmpSimStats::idealBytes (nothing for host memory). Takes the lock.
void markAccess(const void *pointer, bool write);

/// Adds a call of `name` (of `kind`, AmpSimRecordKind) made of `parts` to
/// its record and to the counters: each part is one roofline and one
/// launch cost (one kernel on a GPU, or one copy); `launch` for kernels.
/// Takes the lock. Defined in SimEstimate.cpp.
void record(int32_t kind, const std::string &name,
            const std::vector<Work> &parts, const LaunchInfo *launch = nullptr);

} // namespace sim
} // namespace amp

#endif // AMP_RUNTIME_SIM_SIMSTATE_H
