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
#include <map>
#include <mutex>

namespace amp {
namespace sim {

struct Allocation {
  uint64_t bytes = 0;
  int64_t id = 0;
  /// A constant uploaded once (ampGpuConstant): lives as long as the
  /// process, like the module that owns it; not a leak.
  bool persistent = false;
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
/// points that return their errors).
bool launchKernel(const char *name, AmpSimKernel kernel, int64_t gridX,
                  int64_t gridY, int64_t gridZ, int64_t blockX, int64_t blockY,
                  int64_t blockZ, int32_t sharedMemoryBytes, void **params,
                  int32_t flags);

bool findAllocation(uintptr_t address, uint64_t bytes, uintptr_t *base,
                    uint64_t *size);

/// "inside allocation #3 (400 bytes) at offset 396" or "outside every
/// device allocation" (nearest one named), for messages.
void describeAddress(uintptr_t address, uint64_t bytes, char *out, size_t size);

/// Checks a host-side range argument (a copy, a library call operand) that
/// must lie in device memory; sets the error and returns false if not.
bool checkDeviceRange(const char *call, const char *what, const void *pointer,
                      uint64_t bytes);

void count(int64_t AmpSimStats::*counter, int64_t amount = 1);

} // namespace sim
} // namespace amp

#endif // AMP_RUNTIME_SIM_SIMSTATE_H
