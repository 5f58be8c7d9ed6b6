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
AMP_RUNTIME_API int64_t ampSimShuffle(int32_t mode, int32_t mask,
                                      int32_t value, int32_t laneOrOffset,
                                      int32_t clamp);

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
  int64_t allocations;   /**< mgpuMemAlloc calls that allocated */
  int64_t frees;         /**< mgpuMemFree calls that freed */
  int64_t liveBuffers;   /**< allocations not freed */
  int64_t liveBytes;     /**< their bytes */
  int64_t peakBytes;     /**< the most bytes live at once */
  int64_t launches;      /**< kernels launched */
  int64_t threads;       /**< kernel threads run */
  int64_t libraryCalls;  /**< ampGpu* library calls served */
  int64_t copies;        /**< mgpuMemcpy/mgpuMemset calls */
  int64_t synchronizations; /**< mgpuStreamSynchronize calls */
} AmpSimStats;

AMP_RUNTIME_API void ampSimGetStats(AmpSimStats *stats);

/** Zeroes the counters (live buffers stay live and counted). */
AMP_RUNTIME_API void ampSimResetStats(void);

/** Writes a description of the live allocations (at most `count`, oldest
 *  first: "#id: N bytes") to `buffer`; returns the number of live
 *  allocations. */
AMP_RUNTIME_API int64_t ampSimDescribeLiveBuffers(char *buffer, size_t size,
                                                  int64_t count);

#ifdef __cplusplus
}
#endif

#endif /* AMP_RUNTIME_AMPGPUSIM_H */
