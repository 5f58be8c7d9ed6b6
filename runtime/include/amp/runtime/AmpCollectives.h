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

#include "amp/runtime/AmpLibraryCalls.h"

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

/* ampAllReduce(data, count, dtype, kind), and ampGpuAllReduce on device
 * memory for the GPU pipeline, are library calls: declared by
 * AmpLibraryCalls.h (included above) from LibraryCalls.def, which
 * documents them. */

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
