/*===- AmpGpuSim.h - the GPU simulator's C ABI ------------------*- C -*-===*\
|*                                                                          *|
|* Part of amp-mlir. libamp_runtime_gpusim.so runs the output of            *|
|* `--lower-to-gpu="simulate=true"` on the CPU: it exports the same `mgpu*` *|
|* and `ampGpu*` entry points as libamp_runtime.so (device memory is host   *|
|* memory, tracked; library calls are served by the CPU references) plus    *|
|* the functions below, which the simulated kernels call in place of their *|
|* NVVM special registers, barriers and shuffles.                           *|
|*                                                                          *|
|* Everything the simulator detects (a launch over CUDA's limits, an        *|
|* out-of-bounds access, a free of a pointer that is not a live device      *|
|* allocation, a barrier some threads never reach) is reported through the  *|
|* runtime's error handler (AmpRuntime.h) with the kernel's name; the launch *|
|* stops at the first error.                                                *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_AMPGPUSIM_H
#define AMP_RUNTIME_AMPGPUSIM_H

#include "amp/runtime/AmpRuntime.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A simulated kernel: `params` is a cuLaunchKernel parameter array (one
 *  pointer to each argument value). */
typedef void (*AmpSimKernel)(void **params);

/** Launch flag: the kernel synchronises threads (barriers or warp
 *  shuffles); its threads then run as fibers, switching at each barrier and
 *  shuffle. Without it each thread runs to completion in turn. */
#define AMP_SIM_KERNEL_SYNCHRONIZES 1
/** Launch flag: the kernel's blocks do unequal work (a multi-tensor
 *  kernel's blocks take chunks of tensors of different sizes), so the
 *  count-only mode (ampSimSetCountOnly) runs every block of it instead of
 *  counting the middle blocks as block 1. */
#define AMP_SIM_KERNEL_UNEVEN 2

/** Runs `kernel` (named `name`, "module::kernel") over the grid, one block
 *  at a time, after checking the launch against CUDA's limits: block
 *  dimensions at most (1024, 1024, 64) and 1024 threads in all, grid
 *  dimensions at most (2^31-1, 65535, 65535), all at least 1, dynamic shared
 *  memory at most 227 KiB. */
AMP_RUNTIME_API void ampSimLaunchKernel(const char *name, AmpSimKernel kernel,
                                        int64_t gridX, int64_t gridY,
                                        int64_t gridZ, int64_t blockX,
                                        int64_t blockY, int64_t blockZ,
                                        int32_t sharedMemoryBytes,
                                        void **params, int32_t flags);

/** ampSimLaunchKernel with the byte size of each of its `numParams`
 *  parameters (`paramSizes`), which amp-gpu-to-sim passes: what a capture
 *  (ampGpuGraphBeginCapture) needs to keep the values for its launches.
 *  ampSimLaunchKernel itself cannot be captured. */
AMP_RUNTIME_API void ampSimLaunchKernelWithSizes(
    const char *name, AmpSimKernel kernel, int64_t gridX, int64_t gridY,
    int64_t gridZ, int64_t blockX, int64_t blockY, int64_t blockZ,
    int32_t sharedMemoryBytes, void **params, int32_t flags, int32_t numParams,
    const int32_t *paramSizes);

/** ampSimLaunchKernelWithSizes for a kernel of merged launches
 *  (amp-merge-gpu-launches): its blocks are `numSegments` consecutive
 *  ranges, one per body, the size of each the int64 value of the parameter
 *  `segmentParams[i]`. The count-only mode counts each range as it counts a
 *  kernel (its first two blocks and its last run; the others, when the
 *  first two count the same, count as the second), instead of running
 *  every block of an AMP_SIM_KERNEL_UNEVEN kernel. Ranges that do not add
 *  up to the grid are an error. */
AMP_RUNTIME_API void ampSimLaunchKernelInSegments(
    const char *name, AmpSimKernel kernel, int64_t gridX, int64_t gridY,
    int64_t gridZ, int64_t blockX, int64_t blockY, int64_t blockZ,
    int32_t sharedMemoryBytes, void **params, int32_t flags, int32_t numParams,
    const int32_t *paramSizes, int32_t numSegments,
    const int32_t *segmentParams);

/** Special registers of the running thread, numbered as AmpSimRegister. */
typedef enum AmpSimRegister {
  AMP_SIM_TID_X = 0,
  AMP_SIM_TID_Y,
  AMP_SIM_TID_Z,
  AMP_SIM_NTID_X,
  AMP_SIM_NTID_Y,
  AMP_SIM_NTID_Z,
  AMP_SIM_CTAID_X,
  AMP_SIM_CTAID_Y,
  AMP_SIM_CTAID_Z,
  AMP_SIM_NCTAID_X,
  AMP_SIM_NCTAID_Y,
  AMP_SIM_NCTAID_Z,
  AMP_SIM_LANEID,
  AMP_SIM_WARPSIZE
} AmpSimRegister;

AMP_RUNTIME_API int32_t ampSimSpecialRegister(int32_t which);

/** bar.sync 0: waits until every thread of the block that has not exited
 *  arrives. */
AMP_RUNTIME_API void ampSimBarrier(void);

/** shfl.sync with PTX's semantics: `mode` 0 up, 1 down, 2 bfly, 3 idx;
 *  `value` the 32 bits of the lane's value; `laneOrOffset` and `clamp` as
 *  PTX's b and c operands. Returns the value in the low 32 bits and the
 *  validity predicate in bit 32. Every lane of `mask` must reach it. */
AMP_RUNTIME_API int64_t ampSimShuffle(int32_t mode, int32_t mask, int32_t value,
                                      int32_t laneOrOffset, int32_t clamp);

/** cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 with PTX's semantics: `a` and `b`
 *  rounded to nearest even to FP8 (`type` AMP_DTYPE_F8E4M3FN or
 *  AMP_DTYPE_F8E5M2), finite values beyond the largest saturated to it,
 *  NaN to the canonical NaN 0x7f; `a`'s code in bits 8-15, `b`'s in bits
 *  0-7. */
AMP_RUNTIME_API int32_t ampSimCvtF32x2ToF8x2(float a, float b, int32_t type);

/** Checks that [pointer, pointer + bytes) lies inside one live device
 *  allocation and, when bits 8 and up of `flags` give an alignment, that
 *  `pointer` has it; returns `pointer`, or (after reporting the error) a
 *  scratch buffer the access can safely use. Bit 0 of `flags` is 1 for
 *  writes. */
AMP_RUNTIME_API void *ampSimCheckAccess(void *pointer, int64_t bytes,
                                        int32_t flags);

/** What the simulator counted since it was loaded (or last reset). */
typedef struct AmpSimStats {
  int64_t allocations;      /**< mgpuMemAlloc calls that allocated */
  int64_t frees;            /**< mgpuMemFree calls that freed */
  int64_t liveBuffers;      /**< allocations not freed */
  int64_t liveBytes;        /**< their bytes */
  int64_t peakBytes;        /**< the most bytes live at once */
  int64_t launches;         /**< kernels launched */
  int64_t threads;          /**< kernel threads run */
  int64_t libraryCalls;     /**< ampGpu* library calls served */
  int64_t copies;           /**< mgpuMemcpy/mgpuMemset calls */
  int64_t synchronizations; /**< mgpuStreamSynchronize calls */
  /* What the roofline estimate reads (ampSimEstimate). Bytes are device
   * memory traffic as requested, without caches. */
  int64_t kernelBytesRead;    /**< bytes kernels loaded from device memory */
  int64_t kernelBytesWritten; /**< bytes kernels stored (atomics: stores) */
  int64_t kernelFlops;        /**< floating-point operations of kernels */
  int64_t libraryBytes; /**< bytes library calls read and wrote (shapes) */
  int64_t libraryFlops; /**< their floating-point operations (shapes) */
  int64_t copyBytes;    /**< device memory bytes of copies and fills */
  int64_t hostBytes;    /**< bytes copied between host and device */
  /** The ideal: every device buffer (constants included) that was read,
   *  read once, and every one written, written once: the sum of their
   *  sizes, each counted once for reading and once for writing. */
  int64_t idealBytes;
  /** ampGpuGraphLaunch calls (the work of each is counted as it runs) */
  int64_t graphLaunches;
} AmpSimStats;

AMP_RUNTIME_API void ampSimGetStats(AmpSimStats *stats);

/** Zeroes the counters and the records (live buffers stay live and
 *  counted). */
AMP_RUNTIME_API void ampSimResetStats(void);

/** Adds `count` floating-point operations to the running thread's launch.
 *  amp-gpu-to-sim calls it at the start of each basic block of a
 *  kernel that computes on floating-point values, with that block's count:
 *  1 per element for add, subtract, multiply, divide, remainder, min/max
 *  and math functions (sqrt, exp, log, tanh, ...), 2 for fma/fmuladd; 0 for
 *  conversions, comparisons, negations and selects. */
AMP_RUNTIME_API void ampSimCountFlops(int64_t count);

/*===--------------------------------------------------------------------===*
 * The roofline estimate
 *
 * The simulator records, per kernel (by name), per library call (by call,
 * types and shape) and per kind of copy, what ran since the last reset:
 * calls, threads, the grid and block of the last launch, device memory
 * bytes read and written (kernels: every checked global access, as the
 * kernel requests it: no caches, no coalescing; library calls: each
 * operand once, from the shape arguments, plus the runtime's own passes,
 * e.g. cuDNN's widening of 16-bit inputs), global accesses by width, and
 * floating-point operations. From them, a time for a chip of SimChips.def:
 * per launch, max(bytes / bandwidth, FLOPs / peak) plus a launch cost;
 * library calls at a fixed fraction of that roofline (SimChips.def's model
 * constants); host <-> device copies at the host link's bandwidth. The peak
 * is the f32 FMA rate for generated kernels, the tensor-core rate of the
 * type for library calls (true fp32 GEMMs: the FMA rate). docs/gpu.md
 * says what the estimate ignores.
 *===--------------------------------------------------------------------===*/

/** The chip `name` names (SimChips.def), its peaks and the model's
 *  constants. */
typedef struct AmpSimChip {
  const char *name;         /**< "h100-sxm" */
  const char *description;  /**< "NVIDIA H100 SXM" */
  double bandwidth;         /**< device memory, bytes/s */
  double fp32Flops;         /**< FMA units, FLOP/s */
  double tf32Flops;         /**< dense TF32 tensor cores */
  double f16Flops;          /**< dense f16/bf16 tensor cores */
  double fp8Flops;          /**< dense FP8 tensor cores */
  double hostBandwidth;     /**< host <-> device, bytes/s per direction */
  double launchSeconds;     /**< per launch */
  double libraryEfficiency; /**< library calls' fraction of the roofline */
} AmpSimChip;

/** Fills `chip` for `name`; returns 0, or 1 after reporting "unknown chip
 *  'NAME' (known: h100-sxm, h200)" through the error handler. */
AMP_RUNTIME_API int ampSimGetChip(const char *name, AmpSimChip *chip);

/** The chips' names, comma-separated: "h100-sxm, h200". */
AMP_RUNTIME_API const char *ampSimChipNames(void);

typedef enum AmpSimRecordKind {
  AMP_SIM_RECORD_KERNEL = 0,  /**< a generated kernel */
  AMP_SIM_RECORD_LIBRARY = 1, /**< a library call (ampGpu*) */
  AMP_SIM_RECORD_COPY = 2     /**< copies and fills of one direction */
} AmpSimRecordKind;

/** What bounds a record's estimate (the larger term of its roofline). */
typedef enum AmpSimBound {
  AMP_SIM_BOUND_MEMORY = 0,
  AMP_SIM_BOUND_COMPUTE = 1,
  AMP_SIM_BOUND_LAUNCH = 2 /**< the launch cost is more than the rest */
} AmpSimBound;

/** Global accesses by width: 1, 2, 4, 8 and 16 or more bytes. */
#define AMP_SIM_ACCESS_WIDTHS 5

typedef struct AmpSimRecord {
  /** A kernel's "module::kernel"; a library call's entry point, types and
   *  shape ("ampGpuGemm f16*f16->f16 m=64 n=256 k=128"); a copy's
   *  direction ("memcpy host->device", "memset"). Truncated to fit. */
  char name[160];
  int32_t kind;     /**< AmpSimRecordKind */
  int32_t bound;    /**< AmpSimBound, for the chip asked (all calls) */
  int64_t calls;    /**< launches, calls, copies */
  int64_t launches; /**< kernels they launch on a GPU (a library call may
                         launch several: cuDNN's widening passes) */
  int64_t threads;  /**< kernels: threads run, every launch */
  int64_t grid[3], block[3];       /**< kernels: of the last launch */
  int64_t bytesRead, bytesWritten; /**< device memory */
  int64_t hostBytes;               /**< copies: bytes over the host link */
  int64_t flops;
  int64_t loads[AMP_SIM_ACCESS_WIDTHS];  /**< kernels: loads by width */
  int64_t stores[AMP_SIM_ACCESS_WIDTHS]; /**< kernels: stores by width */
  double seconds; /**< the estimate for the chip asked, every call */
} AmpSimRecord;

/** The records since the last reset, in the order they first ran: fills
 *  at most `capacity` of `records` (may be NULL with capacity 0) with the
 *  estimate for `chip`, and returns how many there are; -1 after reporting
 *  an unknown chip. */
AMP_RUNTIME_API int64_t ampSimGetRecords(const char *chip,
                                         AmpSimRecord *records,
                                         int64_t capacity);

typedef struct AmpSimEstimate {
  double seconds;        /**< everything below */
  double kernelSeconds;  /**< generated kernels */
  double librarySeconds; /**< library calls */
  double copySeconds;    /**< copies and fills */
  int64_t launches;      /**< kernels launched on a GPU, library calls'
                              included */
} AmpSimEstimate;

/** The estimate for `chip` of everything since the last reset; 0, or 1
 *  after reporting an unknown chip. */
AMP_RUNTIME_API int ampSimEstimate(const char *chip, AmpSimEstimate *total);

/** Which compute peak of a chip a launch runs at. */
typedef enum AmpSimPeak {
  AMP_SIM_PEAK_FP32 = 0, /**< FMA units */
  AMP_SIM_PEAK_TF32 = 1,
  AMP_SIM_PEAK_F16 = 2, /**< f16/bf16 tensor cores */
  AMP_SIM_PEAK_FP8 = 3
} AmpSimPeak;

/** One launch since the last reset: a kernel, one kernel of a library call
 *  (cuDNN's widening passes are launches of their own), or a copy. */
typedef struct AmpSimLaunch {
  int64_t record;  /**< its record's index in ampSimGetRecords' order */
  int32_t kind;    /**< AmpSimRecordKind */
  int32_t peak;    /**< AmpSimPeak */
  int32_t library; /**< 1: estimated at the library efficiency */
  int32_t reserved;
  int64_t bytesRead, bytesWritten; /**< device memory */
  int64_t hostBytes;               /**< over the host link */
  int64_t flops;
} AmpSimLaunch;

/** The launches since the last reset, in the order they ran: fills at most
 *  `capacity` of `launches` (may be NULL with capacity 0) and returns how
 *  many there are. */
AMP_RUNTIME_API int64_t ampSimGetLaunches(AmpSimLaunch *launches,
                                          int64_t capacity);

/** The estimate for `chip` of `count` launches given by the caller (the
 *  launches of a run, or counts derived from them, e.g. extrapolated to
 *  another batch size): the same model as ampSimEstimate, launch by
 *  launch. Returns 0, or 1 after reporting an unknown chip or a launch
 *  with a negative count or an unknown kind or peak. */
AMP_RUNTIME_API int ampSimEstimateLaunches(const char *chip,
                                           const AmpSimLaunch *launches,
                                           int64_t count,
                                           AmpSimEstimate *total);

/** Count-only mode (nonzero): library calls (GEMMs, convolutions) are
 *  checked, counted and recorded as usual, but not computed; their outputs
 *  are zero. A kernel with a one-dimensional grid of at least 4 blocks
 *  whose first two blocks count the same (bytes, FLOPs, accesses by
 *  width) runs those two and its last block, and the others are counted
 *  as the second: generated kernels differ between blocks only in their
 *  tail's bounds checks. For estimates of models too large to run on the
 *  CPU: the counts do not depend on the values (no kernel branches on
 *  data in inference); the results are meaningless. */
AMP_RUNTIME_API void ampSimSetCountOnly(int countOnly);

/** Writes a description of the live allocations (at most `count`, oldest
 *  first: "#id: N bytes") to `buffer`; returns the number of live
 *  allocations. */
AMP_RUNTIME_API int64_t ampSimDescribeLiveBuffers(char *buffer, size_t size,
                                                  int64_t count);

#ifdef __cplusplus
}
#endif

#endif /* AMP_RUNTIME_AMPGPUSIM_H */
