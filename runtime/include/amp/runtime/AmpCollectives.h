/*===- AmpCollectives.h - collectives across processes ---------*- C -*-===*\
|*                                                                          *|
|* Part of amp-mlir. Data-parallel collectives of libamp_runtime.so (and of *|
|* the simulator library): what `amp.all_reduce` lowers to. Included by     *|
|* AmpRuntime.h.                                                            *|
|*                                                                          *|
|* The process group. A process started by an MPI launcher (OpenMPI's      *|
|* mpirun sets OMPI_COMM_WORLD_SIZE; MPICH/Hydra and others PMI_SIZE) is    *|
|* one rank of MPI_COMM_WORLD: on the first collective call (or rank/size   *|
|* query) the runtime loads libamp_runtime_mpi.so from its own directory    *|
|* (or the path in AMP_MPI_BACKEND), which initialises MPI                  *|
|* (MPI_Init_thread, unless the program did it) and finalises it at exit   *|
|* (unless the program initialised it). libamp_runtime.so itself has no     *|
|* link dependency on MPI. Under a launcher with more than one process and  *|
|* no loadable backend every collective fails with a message naming the     *|
|* library: never silently one process. Otherwise (no launcher, or a        *|
|* launcher with one process) the group is this process alone: rank 0 of   *|
|* 1, and every reduction is the identity.                                  *|
|*                                                                          *|
|* Every rank must make the same collective calls, with the same count,    *|
|* dtype and kind, in the same order. The calls of one process are          *|
|* serialised by the runtime (MPI_THREAD_SERIALIZED).                       *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_AMPCOLLECTIVES_H
#define AMP_RUNTIME_AMPCOLLECTIVES_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define AMP_COLLECTIVES_API __attribute__((visibility("default")))
#else
#define AMP_COLLECTIVES_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** How ampAllReduce combines the ranks' values (values are ABI: the order of
 *  amp.all_reduce's kinds). */
typedef enum AmpReduceKind {
  AMP_REDUCE_SUM = 0,  /**< f32, f16, bf16, i32. */
  AMP_REDUCE_MEAN = 1, /**< f32, f16, bf16: the sum divided by the size. */
  AMP_REDUCE_MAX = 2,  /**< All types; on AMP_DTYPE_I1 a logical or. */
  AMP_REDUCE_MIN = 3,  /**< All types; on AMP_DTYPE_I1 a logical and. */
} AmpReduceKind;

/** Reduces `count` elements of type `dtype` (an AmpDType: F32, F16, BF16,
 *  I32 or I1) at `data`, host memory, elementwise across every rank of the
 *  process group, in place: afterwards every rank holds the reduction.
 *  F16 and BF16 are converted to f32, reduced in f32 (MPI_FLOAT) and rounded
 *  once to nearest even; `mean` divides the f32 sum by the size. I1 bytes
 *  are read as false (0) or true (anything else) and written as 0 or 1.
 *  With one process nothing is read or written. Invalid arguments (a
 *  negative count, NULL data with count > 0, an unknown dtype or kind, sum
 *  or mean of I1, mean of I32), a missing MPI backend and MPI failures go to
 *  the error handler (ampSetErrorHandler). */
AMP_COLLECTIVES_API void ampAllReduce(void *data, int64_t count, int32_t dtype,
                                      int32_t kind);

/** ampAllReduce on device memory (libamp_runtime.so: CUDA; the simulator:
 *  its device buffers), for the GPU pipeline. Waits for the work queued on
 *  the shared stream, copies the buffer to the host, reduces it there and
 *  copies it back before returning, so it is ordered with the stream on
 *  both sides. With one process it does nothing (no copy). NCCL is not
 *  used. Errors go to the error handler. */
AMP_COLLECTIVES_API void ampGpuAllReduce(void *deviceData, int64_t count,
                                         int32_t dtype, int32_t kind);

/** This process's rank in the group (0 without a launcher), or -1 if the
 *  backend cannot be started (ampLastError() says why; the error handler
 *  is not called). */
AMP_COLLECTIVES_API int32_t ampCollectiveRank(void);

/** The number of processes in the group (1 without a launcher), or -1 as
 *  for ampCollectiveRank. */
AMP_COLLECTIVES_API int32_t ampCollectiveWorldSize(void);

/** "single" (one process) or "mpi" (libamp_runtime_mpi.so), starting the
 *  backend if needed; NULL if it cannot be started (ampLastError() says
 *  why). */
AMP_COLLECTIVES_API const char *ampCollectiveBackend(void);

/** Once the MPI backend was started: finalises MPI now if the runtime
 *  initialised it (otherwise MPI_Finalize runs at exit), and later
 *  collectives fail. Idempotent; nothing to do when the backend was not
 *  started (a single process, or no collective yet). */
AMP_COLLECTIVES_API void ampCollectiveFinalize(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AMP_RUNTIME_AMPCOLLECTIVES_H */
