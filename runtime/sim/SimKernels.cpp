//===- SimKernels.cpp - kernel launches on the CPU ------------------------===//
//
// Part of amp-mlir. Runs a simulated kernel over its grid, one block after
// another. A kernel without barriers or shuffles runs its threads to
// completion in turn. One with them runs each thread of a block as a fiber
// (ucontext) that yields at every barrier and shuffle; a round-robin
// scheduler releases a barrier once every thread of the block that has not
// exited waits at it (for a shuffle: every thread of the warp), as the
// Numba CUDA simulator does with OS threads.
//
// A fiber starts with setcontext on its own stack; after that, switches
// are _setjmp/_longjmp, which do not save the signal mask (swapcontext
// makes two sigprocmask system calls per switch: three quarters of the
// time of a softmax kernel went there). Under AddressSanitizer, which
// must be told of every stack switch, fibers switch with swapcontext.
//
//===----------------------------------------------------------------------===//

// _longjmp between stacks is what fibers do; glibc's fortified longjmp
// would take the other stack for a corrupted frame.
#undef _FORTIFY_SOURCE

#include "amp/runtime/AmpGpuSim.h"

#include "../lib/Internal.h"
#include "SimState.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <setjmp.h>
#include <string>
#include <ucontext.h>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define AMP_SIM_SWAPCONTEXT_FIBERS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AMP_SIM_SWAPCONTEXT_FIBERS 1
#endif
#endif
#ifndef AMP_SIM_SWAPCONTEXT_FIBERS
#define AMP_SIM_SWAPCONTEXT_FIBERS 0
#endif

using namespace amp;
using namespace amp::sim;
using amp::rt::raiseLastError;
using amp::rt::setError;

namespace {

constexpr int64_t kMaxBlock[3] = {1024, 1024, 64};
constexpr int64_t kMaxThreadsPerBlock = 1024;
constexpr int64_t kMaxGrid[3] = {2147483647, 65535, 65535};
constexpr int64_t kMaxSharedMemory = 227 * 1024;
constexpr int kWarpSize = 32;
constexpr size_t kFiberStack = 256 * 1024;

enum class LaneState { Ready, AtBarrier, AtWarpSync, Done };

struct Lane {
  ucontext_t context;
  /// Where the fiber resumes, once started (see the file comment).
  jmp_buf resume;
  bool started = false;
  LaneState state = LaneState::Ready;
  int32_t shuffleValue = 0;
  /// At a shuffle: the member mask it waits for.
  uint32_t syncMask = ~0u;
};

/// The launch in progress on this thread.
struct Launch {
  const char *name = "";
  AmpSimKernel kernel = nullptr;
  void **params = nullptr;
  int64_t grid[3] = {1, 1, 1};
  int64_t block[3] = {1, 1, 1};
  int64_t blockId[3] = {0, 0, 0};
  int64_t threadId[3] = {0, 0, 0};
  int64_t linearThread = 0;
  int64_t threadsPerBlock = 1;
  bool failed = false;
  bool fibers = false;
  // The estimate's counts, every thread of the launch.
  int64_t bytesRead = 0, bytesWritten = 0, flops = 0;
  int64_t loads[AMP_SIM_ACCESS_WIDTHS] = {};
  int64_t stores[AMP_SIM_ACCESS_WIDTHS] = {};
  // Fiber mode.
  ucontext_t scheduler;
  jmp_buf schedulerResume;
  std::vector<Lane> lanes;
};

thread_local Launch *current = nullptr;

/// What a block adds to its launch's counts.
struct BlockCounts {
  int64_t bytesRead = 0, bytesWritten = 0, flops = 0;
  int64_t loads[AMP_SIM_ACCESS_WIDTHS] = {};
  int64_t stores[AMP_SIM_ACCESS_WIDTHS] = {};

  BlockCounts operator-(const BlockCounts &other) const {
    BlockCounts result = *this;
    result.bytesRead -= other.bytesRead;
    result.bytesWritten -= other.bytesWritten;
    result.flops -= other.flops;
    for (int w = 0; w < AMP_SIM_ACCESS_WIDTHS; ++w) {
      result.loads[w] -= other.loads[w];
      result.stores[w] -= other.stores[w];
    }
    return result;
  }
  bool operator==(const BlockCounts &other) const {
    return bytesRead == other.bytesRead && bytesWritten == other.bytesWritten &&
           flops == other.flops &&
           std::equal(loads, loads + AMP_SIM_ACCESS_WIDTHS, other.loads) &&
           std::equal(stores, stores + AMP_SIM_ACCESS_WIDTHS, other.stores);
  }
};

BlockCounts countsOf(const Launch &launch) {
  BlockCounts counts;
  counts.bytesRead = launch.bytesRead;
  counts.bytesWritten = launch.bytesWritten;
  counts.flops = launch.flops;
  std::copy(launch.loads, launch.loads + AMP_SIM_ACCESS_WIDTHS, counts.loads);
  std::copy(launch.stores, launch.stores + AMP_SIM_ACCESS_WIDTHS,
            counts.stores);
  return counts;
}

/// Adds `times` blocks of `counts` to the launch.
void addCounts(Launch &launch, const BlockCounts &counts, int64_t times) {
  launch.bytesRead += counts.bytesRead * times;
  launch.bytesWritten += counts.bytesWritten * times;
  launch.flops += counts.flops * times;
  for (int w = 0; w < AMP_SIM_ACCESS_WIDTHS; ++w) {
    launch.loads[w] += counts.loads[w] * times;
    launch.stores[w] += counts.stores[w] * times;
  }
}

/// Fiber stacks, kept for the next launch.
thread_local std::vector<std::unique_ptr<char[]>> stacks;

void setThread(Launch &launch, int64_t linear) {
  launch.linearThread = linear;
  launch.threadId[0] = linear % launch.block[0];
  launch.threadId[1] = (linear / launch.block[0]) % launch.block[1];
  launch.threadId[2] = linear / (launch.block[0] * launch.block[1]);
}

/// Records the first error of the launch, naming the kernel, block and
/// thread.
void fail(Launch &launch, const char *fmt, ...) AMP_PRINTF_LIKE(2, 3);
void fail(Launch &launch, const char *fmt, ...) {
  if (launch.failed)
    return;
  launch.failed = true;
  char detail[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(detail, sizeof(detail), fmt, args);
  va_end(args);
  setError("gpu-sim",
           "kernel '%s', block (%" PRId64 ",%" PRId64 ",%" PRId64
           "), thread (%" PRId64 ",%" PRId64 ",%" PRId64 "): %s",
           launch.name, launch.blockId[0], launch.blockId[1], launch.blockId[2],
           launch.threadId[0], launch.threadId[1], launch.threadId[2], detail);
}

void fiberEntry() {
  Launch &launch = *current;
  launch.kernel(launch.params);
  launch.lanes[launch.linearThread].state = LaneState::Done;
  if (!AMP_SIM_SWAPCONTEXT_FIBERS)
    _longjmp(launch.schedulerResume, 1);
  // Returning resumes uc_link: the scheduler.
}

/// Yields the running fiber back to the scheduler in `state`.
void yield(Launch &launch, LaneState state) {
  Lane &lane = launch.lanes[launch.linearThread];
  lane.state = state;
  if (AMP_SIM_SWAPCONTEXT_FIBERS) {
    swapcontext(&lane.context, &launch.scheduler);
    return;
  }
  if (_setjmp(lane.resume) == 0)
    _longjmp(launch.schedulerResume, 1);
}

/// Runs lane `t` until it yields or ends.
void switchTo(Launch &launch, int64_t t) {
  Lane &lane = launch.lanes[t];
  if (AMP_SIM_SWAPCONTEXT_FIBERS) {
    swapcontext(&launch.scheduler, &lane.context);
    return;
  }
  if (_setjmp(launch.schedulerResume) != 0)
    return;
  if (!lane.started) {
    lane.started = true;
    setcontext(&lane.context);
  }
  _longjmp(lane.resume, 1);
}

bool runBlockWithFibers(Launch &launch) {
  int64_t threads = launch.threadsPerBlock;
  launch.lanes.assign(threads, Lane());
  while (stacks.size() < static_cast<size_t>(threads))
    stacks.emplace_back(new char[kFiberStack]);
  for (int64_t t = 0; t < threads; ++t) {
    Lane &lane = launch.lanes[t];
    getcontext(&lane.context);
    lane.context.uc_stack.ss_sp = stacks[t].get();
    lane.context.uc_stack.ss_size = kFiberStack;
    lane.context.uc_link = &launch.scheduler;
    makecontext(&lane.context, fiberEntry, 0);
  }
  int64_t warps = (threads + kWarpSize - 1) / kWarpSize;
  while (true) {
    bool ran = false;
    for (int64_t t = 0; t < threads && !launch.failed; ++t) {
      if (launch.lanes[t].state != LaneState::Ready)
        continue;
      setThread(launch, t);
      launch.lanes[t].state = LaneState::Ready;
      switchTo(launch, t);
      ran = true;
    }
    if (launch.failed)
      return false;
    // Release the warps whose live lanes all wait at a shuffle, then the
    // block if all live lanes wait at the barrier.
    bool released = false, allDone = true, allAtBarrier = true;
    // A shuffle waits for the live lanes of its member mask (lanes outside
    // it may be elsewhere, as in a reduction over part of a warp).
    for (int64_t w = 0; w < warps; ++w) {
      int64_t begin = w * kWarpSize,
              end = std::min<int64_t>(threads, begin + kWarpSize);
      uint32_t waiting = 0, live = 0, mask = 0;
      for (int64_t t = begin; t < end; ++t) {
        const Lane &lane = launch.lanes[t];
        if (lane.state == LaneState::Done)
          continue;
        live |= 1u << (t - begin);
        if (lane.state == LaneState::AtWarpSync) {
          waiting |= 1u << (t - begin);
          mask = lane.syncMask;
        }
      }
      if (waiting && (live & mask & ~waiting) == 0) {
        for (int64_t t = begin; t < end; ++t)
          if (launch.lanes[t].state == LaneState::AtWarpSync &&
              (mask >> (t - begin) & 1u))
            launch.lanes[t].state = LaneState::Ready;
        released = true;
      }
    }
    for (const Lane &lane : launch.lanes) {
      allDone &= lane.state == LaneState::Done;
      allAtBarrier &=
          lane.state == LaneState::Done || lane.state == LaneState::AtBarrier;
    }
    if (allDone)
      return true;
    if (!released && allAtBarrier) {
      for (Lane &lane : launch.lanes)
        if (lane.state == LaneState::AtBarrier)
          lane.state = LaneState::Ready;
      released = true;
    }
    if (!released && !ran) {
      int64_t waiting = 0, stuck = -1;
      for (int64_t t = 0; t < threads; ++t)
        if (launch.lanes[t].state != LaneState::Done) {
          ++waiting;
          if (stuck < 0)
            stuck = t;
        }
      setThread(launch, stuck);
      fail(launch,
           "deadlock: %" PRId64 " of %" PRId64
           " threads wait at a barrier or shuffle that the others never "
           "reach (divergent barrier)",
           waiting, threads);
      return false;
    }
  }
}

bool runBlockInTurn(Launch &launch) {
  for (int64_t t = 0; t < launch.threadsPerBlock; ++t) {
    setThread(launch, t);
    launch.kernel(launch.params);
    if (launch.failed)
      return false;
  }
  return true;
}

} // namespace

extern "C" void ampSimLaunchKernel(const char *name, AmpSimKernel kernel,
                                   int64_t gridX, int64_t gridY, int64_t gridZ,
                                   int64_t blockX, int64_t blockY,
                                   int64_t blockZ, int32_t sharedMemoryBytes,
                                   void **params, int32_t flags) {
  if (!checkNotCapturing(name ? name : "ampSimLaunchKernel",
                         "a kernel launched without its parameters' sizes "
                         "(ampSimLaunchKernel; amp-gpu-to-sim passes them to "
                         "ampSimLaunchKernelWithSizes)") ||
      !launchKernel(name, kernel, gridX, gridY, gridZ, blockX, blockY, blockZ,
                    sharedMemoryBytes, params, flags))
    raiseLastError();
}

/// The sizes of a merged kernel's segments: the int64 values of the
/// parameters `segmentParams` names.
static std::vector<int64_t> getSegments(void **params, int32_t numParams,
                                        int32_t numSegments,
                                        const int32_t *segmentParams) {
  std::vector<int64_t> segments;
  for (int32_t i = 0; i < numSegments; ++i) {
    int32_t index = segmentParams[i];
    int64_t size = -1;
    if (index >= 0 && index < numParams)
      std::memcpy(&size, params[index], sizeof(size));
    segments.push_back(size);
  }
  return segments;
}

/// ampSimLaunchKernelWithSizes and ampSimLaunchKernelInSegments: runs the
/// kernel, or records it with its parameters' values while capturing.
static void launchWithSizes(const char *name, AmpSimKernel kernel,
                            int64_t gridX, int64_t gridY, int64_t gridZ,
                            int64_t blockX, int64_t blockY, int64_t blockZ,
                            int32_t sharedMemoryBytes, void **params,
                            int32_t flags, int32_t numParams,
                            const int32_t *paramSizes, int32_t numSegments,
                            const int32_t *segmentParams) {
  if (!capturing()) {
    std::vector<int64_t> segments =
        getSegments(params, numParams, numSegments, segmentParams);
    if (!launchKernel(name, kernel, gridX, gridY, gridZ, blockX, blockY, blockZ,
                      sharedMemoryBytes, params, flags, segments.data(),
                      numSegments))
      raiseLastError();
    return;
  }
  // The values of the parameters, each at a 16-byte aligned offset, as a
  // graph's kernel node keeps them.
  std::vector<size_t> offsets;
  size_t bytes = 0;
  for (int32_t i = 0; i < numParams; ++i) {
    offsets.push_back(bytes);
    bytes += (static_cast<size_t>(paramSizes[i]) + 15) / 16 * 16;
  }
  auto values = std::make_shared<std::vector<std::max_align_t>>(
      (bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t) + 1);
  char *base = reinterpret_cast<char *>(values->data());
  for (int32_t i = 0; i < numParams; ++i)
    std::memcpy(base + offsets[i], params[i], size_t(paramSizes[i]));
  std::vector<int32_t> segmentIndices(segmentParams,
                                      segmentParams + numSegments);
  captureRecord([=] {
    char *at = reinterpret_cast<char *>(values->data());
    std::vector<void *> pointers;
    for (size_t offset : offsets)
      pointers.push_back(at + offset);
    std::vector<int64_t> segments = getSegments(
        pointers.data(), numParams, numSegments, segmentIndices.data());
    if (!launchKernel(name, kernel, gridX, gridY, gridZ, blockX, blockY, blockZ,
                      sharedMemoryBytes, pointers.data(), flags,
                      segments.data(), numSegments))
      raiseLastError();
  });
}

extern "C" void ampSimLaunchKernelWithSizes(
    const char *name, AmpSimKernel kernel, int64_t gridX, int64_t gridY,
    int64_t gridZ, int64_t blockX, int64_t blockY, int64_t blockZ,
    int32_t sharedMemoryBytes, void **params, int32_t flags, int32_t numParams,
    const int32_t *paramSizes) {
  launchWithSizes(name, kernel, gridX, gridY, gridZ, blockX, blockY, blockZ,
                  sharedMemoryBytes, params, flags, numParams, paramSizes, 0,
                  nullptr);
}

extern "C" void ampSimLaunchKernelInSegments(
    const char *name, AmpSimKernel kernel, int64_t gridX, int64_t gridY,
    int64_t gridZ, int64_t blockX, int64_t blockY, int64_t blockZ,
    int32_t sharedMemoryBytes, void **params, int32_t flags, int32_t numParams,
    const int32_t *paramSizes, int32_t numSegments,
    const int32_t *segmentParams) {
  launchWithSizes(name, kernel, gridX, gridY, gridZ, blockX, blockY, blockZ,
                  sharedMemoryBytes, params, flags, numParams, paramSizes,
                  numSegments, segmentParams);
}

bool sim::launchKernel(const char *name, AmpSimKernel kernel, int64_t gridX,
                       int64_t gridY, int64_t gridZ, int64_t blockX,
                       int64_t blockY, int64_t blockZ,
                       int32_t sharedMemoryBytes, void **params, int32_t flags,
                       const int64_t *segments, int32_t numSegments) {
  const char *call = "gpu-sim";
  name = name ? name : "?";
  int64_t grid[3] = {gridX, gridY, gridZ};
  int64_t block[3] = {blockX, blockY, blockZ};
  static const char *axis[3] = {"x", "y", "z"};
  for (int d = 0; d < 3; ++d) {
    if (block[d] < 1 || block[d] > kMaxBlock[d]) {
      setError(call,
               "kernel '%s' launched with block (%" PRId64 ",%" PRId64
               ",%" PRId64 "): blockDim.%s must be in [1, %" PRId64 "]",
               name, blockX, blockY, blockZ, axis[d], kMaxBlock[d]);
      return false;
    }
    if (grid[d] < 1 || grid[d] > kMaxGrid[d]) {
      setError(call,
               "kernel '%s' launched with grid (%" PRId64 ",%" PRId64
               ",%" PRId64 "): gridDim.%s must be in [1, %" PRId64 "]",
               name, gridX, gridY, gridZ, axis[d], kMaxGrid[d]);
      return false;
    }
  }
  if (blockX * blockY * blockZ > kMaxThreadsPerBlock) {
    setError(call,
             "kernel '%s' launched with block (%" PRId64 ",%" PRId64 ",%" PRId64
             "): %" PRId64 " threads per block, more than %" PRId64,
             name, blockX, blockY, blockZ, blockX * blockY * blockZ,
             kMaxThreadsPerBlock);
    return false;
  }
  if (sharedMemoryBytes < 0 || sharedMemoryBytes > kMaxSharedMemory) {
    setError(call,
             "kernel '%s' launched with %d bytes of dynamic shared memory; "
             "at most %" PRId64,
             name, sharedMemoryBytes, kMaxSharedMemory);
    return false;
  }
  if (!kernel) {
    setError(call, "kernel '%s' launched with no function", name);
    return false;
  }

  Launch launch;
  launch.name = name;
  launch.kernel = kernel;
  launch.params = params;
  launch.fibers = flags & AMP_SIM_KERNEL_SYNCHRONIZES;
  for (int d = 0; d < 3; ++d) {
    launch.grid[d] = grid[d];
    launch.block[d] = block[d];
  }
  launch.threadsPerBlock = blockX * blockY * blockZ;
  Launch *outer = current;
  current = &launch;
  int64_t blocks = gridX * gridY * gridZ;
  bool ok = true;
  auto runBlock = [&](int64_t b) {
    launch.blockId[0] = b % gridX;
    launch.blockId[1] = (b / gridX) % gridY;
    launch.blockId[2] = b / (gridX * gridY);
    ok = launch.fibers ? runBlockWithFibers(launch) : runBlockInTurn(launch);
  };
  // Count-only: a one-dimensional range of blocks whose first two count
  // the same is taken to count the same in every block but the last (the
  // bounds checks of a tail): blocks 0, 1 and the last run, and the others
  // are counted as block 1. Otherwise every block of the range runs.
  auto runRange = [&](int64_t start, int64_t count) {
    int64_t next = start;
    if (count >= 4) {
      BlockCounts before = countsOf(launch);
      runBlock(start);
      BlockCounts first = countsOf(launch) - before;
      if (ok)
        runBlock(start + 1);
      BlockCounts second = countsOf(launch) - before - first;
      next = start + 2;
      if (ok && first == second) {
        addCounts(launch, second, count - 3);
        next = start + count - 1;
      }
    }
    for (int64_t b = next; b < start + count && ok; ++b)
      runBlock(b);
  };
  bool countOnly = state().countOnly.load() && gridY == 1 && gridZ == 1;
  if (countOnly && numSegments > 0) {
    // A merged kernel: each body's blocks are a range of their own.
    int64_t total = 0;
    for (int32_t i = 0; i < numSegments; ++i)
      total += segments[i] > 0 ? segments[i] : blocks + 1;
    if (total != blocks) {
      current = outer;
      setError(call,
               "kernel '%s' launched with %" PRId64
               " blocks in segments that add up to %" PRId64,
               name, blocks, total);
      return false;
    }
    int64_t start = 0;
    for (int32_t i = 0; i < numSegments && ok; ++i) {
      runRange(start, segments[i]);
      start += segments[i];
    }
  } else if (countOnly && !(flags & AMP_SIM_KERNEL_UNEVEN)) {
    runRange(0, blocks);
  } else {
    for (int64_t b = 0; b < blocks && ok; ++b)
      runBlock(b);
  }
  current = outer;
  count(&AmpSimStats::launches);
  count(&AmpSimStats::threads, blocks * launch.threadsPerBlock);
  LaunchInfo info;
  std::copy(grid, grid + 3, info.grid);
  std::copy(block, block + 3, info.block);
  info.threads = blocks * launch.threadsPerBlock;
  std::copy(launch.loads, launch.loads + AMP_SIM_ACCESS_WIDTHS, info.loads);
  std::copy(launch.stores, launch.stores + AMP_SIM_ACCESS_WIDTHS, info.stores);
  Work work;
  work.bytesRead = launch.bytesRead;
  work.bytesWritten = launch.bytesWritten;
  work.flops = launch.flops;
  record(AMP_SIM_RECORD_KERNEL, name, {work}, &info);
  return ok;
}

extern "C" int32_t ampSimSpecialRegister(int32_t which) {
  Launch *launch = current;
  if (!launch)
    return 0;
  switch (which) {
  case AMP_SIM_TID_X:
  case AMP_SIM_TID_Y:
  case AMP_SIM_TID_Z:
    return static_cast<int32_t>(launch->threadId[which - AMP_SIM_TID_X]);
  case AMP_SIM_NTID_X:
  case AMP_SIM_NTID_Y:
  case AMP_SIM_NTID_Z:
    return static_cast<int32_t>(launch->block[which - AMP_SIM_NTID_X]);
  case AMP_SIM_CTAID_X:
  case AMP_SIM_CTAID_Y:
  case AMP_SIM_CTAID_Z:
    return static_cast<int32_t>(launch->blockId[which - AMP_SIM_CTAID_X]);
  case AMP_SIM_NCTAID_X:
  case AMP_SIM_NCTAID_Y:
  case AMP_SIM_NCTAID_Z:
    return static_cast<int32_t>(launch->grid[which - AMP_SIM_NCTAID_X]);
  case AMP_SIM_LANEID:
    return static_cast<int32_t>(launch->linearThread % kWarpSize);
  case AMP_SIM_WARPSIZE:
    return kWarpSize;
  default:
    fail(*launch, "unknown special register %d", which);
    return 0;
  }
}

extern "C" void ampSimBarrier(void) {
  Launch *launch = current;
  if (!launch || launch->failed)
    return;
  if (!launch->fibers) {
    if (launch->threadsPerBlock > 1)
      fail(*launch, "a barrier in a kernel launched without "
                    "AMP_SIM_KERNEL_SYNCHRONIZES");
    return;
  }
  yield(*launch, LaneState::AtBarrier);
}

namespace {
/// One value of cvt.rn.satfinite to FP8: the positive codes up to the
/// largest finite one increase with their value, so the nearest is found
/// by bisection; a tie goes to the even code.
uint8_t cvtSatfinite(float x, int32_t type) {
  if (std::isnan(x))
    return 0x7f;
  uint8_t sign = std::signbit(x) ? 0x80 : 0;
  float magnitude = std::fabs(x);
  int largest = type == AMP_DTYPE_F8E5M2 ? 0x7b : 0x7e;
  auto value = [&](int code) {
    uint8_t bits = static_cast<uint8_t>(code);
    return type == AMP_DTYPE_F8E5M2 ? ampF8E5M2ToF32(bits)
                                    : ampF8E4M3FNToF32(bits);
  };
  if (magnitude >= value(largest))
    return sign | static_cast<uint8_t>(largest);
  int below = 0, above = largest; // value(below) <= magnitude < value(above)
  while (above - below > 1) {
    int middle = (below + above) / 2;
    (value(middle) <= magnitude ? below : above) = middle;
  }
  // The midpoint of two FP8 values is exact in f32.
  float midpoint = (value(below) + value(above)) / 2;
  int code = magnitude < midpoint   ? below
             : magnitude > midpoint ? above
             : below % 2 == 0       ? below
                                    : above;
  return sign | static_cast<uint8_t>(code);
}
} // namespace

extern "C" int32_t ampSimCvtF32x2ToF8x2(float a, float b, int32_t type) {
  return (int32_t(cvtSatfinite(a, type)) << 8) | cvtSatfinite(b, type);
}

extern "C" int64_t ampSimShuffle(int32_t mode, int32_t mask, int32_t value,
                                 int32_t laneOrOffset, int32_t clamp) {
  Launch *launch = current;
  if (!launch || launch->failed)
    return value;
  int64_t self = launch->linearThread;
  int32_t lane = static_cast<int32_t>(self % kWarpSize);
  int64_t warpBase = self - lane;
  if (!launch->fibers) {
    if (launch->threadsPerBlock > 1)
      fail(*launch, "a shuffle in a kernel launched without "
                    "AMP_SIM_KERNEL_SYNCHRONIZES");
    return value;
  }
  // PTX ISA, shfl.sync.
  uint32_t b = static_cast<uint32_t>(laneOrOffset) & 31u;
  uint32_t c = static_cast<uint32_t>(clamp) & 31u;
  uint32_t segmask = (static_cast<uint32_t>(clamp) >> 8) & 31u;
  uint32_t self32 = static_cast<uint32_t>(lane);
  uint32_t maxLane = (self32 & segmask) | (c & ~segmask);
  uint32_t minLane = self32 & segmask;
  int64_t j;
  bool valid;
  switch (mode) {
  case 0: // up
    j = int64_t(self32) - b;
    valid = j >= int64_t(maxLane);
    break;
  case 1: // down
    j = self32 + b;
    valid = j <= int64_t(maxLane);
    break;
  case 2: // bfly
    j = self32 ^ b;
    valid = j <= int64_t(maxLane);
    break;
  case 3: // idx
    j = minLane | (b & ~segmask);
    valid = j <= int64_t(maxLane);
    break;
  default:
    fail(*launch, "unknown shuffle mode %d", mode);
    return value;
  }
  if (!valid)
    j = self32;
  if (!(static_cast<uint32_t>(mask) >> lane & 1u))
    fail(*launch,
         "a shuffle whose member mask %#x leaves out the calling "
         "lane %d",
         static_cast<unsigned>(mask), lane);
  // Publish, wait for the warp, read, wait again (so that no lane
  // overwrites its value before every lane has read it).
  launch->lanes[self].shuffleValue = value;
  launch->lanes[self].syncMask = static_cast<uint32_t>(mask);
  yield(*launch, LaneState::AtWarpSync);
  int64_t source = warpBase + j;
  int32_t result = value;
  if (source < launch->threadsPerBlock &&
      launch->lanes[source].state != LaneState::Done)
    result = launch->lanes[source].shuffleValue;
  else if (valid)
    fail(*launch, "shuffle reads lane %" PRId64 ", which is not active", j);
  setThread(*launch, self);
  yield(*launch, LaneState::AtWarpSync);
  setThread(*launch, self);
  return static_cast<int64_t>(static_cast<uint32_t>(result)) |
         (static_cast<int64_t>(valid) << 32);
}

extern "C" void ampSimCountFlops(int64_t count) {
  if (Launch *launch = current)
    launch->flops += count;
}

/// AMP_SIM_ACCESS_WIDTHS' bucket of an access of `bytes`.
static int widthIndex(int64_t bytes) {
  return bytes <= 1 ? 0 : bytes <= 2 ? 1 : bytes <= 4 ? 2 : bytes <= 8 ? 3 : 4;
}

extern "C" void *ampSimCheckAccess(void *pointer, int64_t bytes,
                                   int32_t flags) {
  int32_t isStore = flags & 1;
  if (Launch *launch = current) {
    (isStore ? launch->bytesWritten : launch->bytesRead) += bytes;
    ++(isStore ? launch->stores : launch->loads)[widthIndex(bytes)];
  }
  uint64_t alignment = static_cast<uint32_t>(flags) >> 8;
  if (alignment > 1 && reinterpret_cast<uintptr_t>(pointer) % alignment != 0) {
    if (Launch *launch = current)
      fail(*launch,
           "misaligned %s: %p is not %llu-byte aligned (a "
           "vectorised access needs buffers that start aligned)",
           isStore ? "store" : "load", pointer,
           static_cast<unsigned long long>(alignment));
  }
  // The last allocation an access hit, valid while no buffer is freed.
  thread_local uintptr_t cachedBase = 0;
  thread_local uint64_t cachedSize = 0;
  thread_local uint64_t cachedEpoch = ~uint64_t(0);
  // Whether it is marked read / written (AmpSimStats::idealBytes).
  thread_local bool cachedRead = false, cachedWritten = false;
  alignas(64) thread_local char scratch[4096];
  auto mark = [&] {
    bool &marked = isStore ? cachedWritten : cachedRead;
    if (!marked) {
      markAccess(pointer, isStore);
      marked = true;
    }
  };
  uintptr_t address = reinterpret_cast<uintptr_t>(pointer);
  uint64_t epoch = state().epoch.load(std::memory_order_relaxed);
  if (epoch == cachedEpoch && address >= cachedBase &&
      address - cachedBase + static_cast<uint64_t>(bytes) <= cachedSize) {
    mark();
    return pointer;
  }
  uintptr_t base;
  uint64_t size;
  if (findAndMarkAllocation(address, bytes, isStore, &base, &size, &cachedRead,
                            &cachedWritten)) {
    cachedBase = base;
    cachedSize = size;
    cachedEpoch = epoch;
    return pointer;
  }
  Launch *launch = current;
  char where[256];
  describeAddress(address, bytes, where, sizeof(where));
  if (launch)
    fail(*launch, "out-of-bounds %s of %s", isStore ? "store" : "load", where);
  return bytes <= static_cast<int64_t>(sizeof(scratch)) ? scratch : pointer;
}
