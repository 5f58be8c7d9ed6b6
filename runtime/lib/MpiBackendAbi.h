/*===- MpiBackendAbi.h - what libamp_runtime_mpi.so exports ----*- C -*-===*\
|*                                                                          *|
|* Part of amp-mlir. The private ABI between the runtime (Collectives.cpp)  *|
|* and its MPI backend, libamp_runtime_mpi.so (mpi/MpiBackend.c), which the *|
|* runtime dlopens under an MPI launcher. Only this library links MPI.      *|
|* Functions return 0 on success, else nonzero with a NUL-terminated        *|
|* message in `error` (at most `errorSize` bytes).                          *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_LIB_MPIBACKENDABI_H
#define AMP_RUNTIME_LIB_MPIBACKENDABI_H

#include <stddef.h>
#include <stdint.h>

/* Bumped on any change of the functions below. */
#define AMP_MPI_BACKEND_ABI_VERSION 1

/* Element types of ampMpiBackendAllReduce. */
#define AMP_MPI_BACKEND_FLOAT 0 /* float (MPI_FLOAT) */
#define AMP_MPI_BACKEND_INT32 1 /* int32_t (MPI_INT32_T) */
#define AMP_MPI_BACKEND_BYTE 2  /* uint8_t (MPI_UINT8_T) */

/* Operations of ampMpiBackendAllReduce. */
#define AMP_MPI_BACKEND_SUM 0
#define AMP_MPI_BACKEND_MAX 1
#define AMP_MPI_BACKEND_MIN 2

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*AmpMpiBackendAbiVersionFn)(void);
/* Initialises MPI (MPI_Init_thread, MPI_THREAD_SERIALIZED) unless it is
 * already; then MPI_COMM_WORLD's rank and size. */
typedef int (*AmpMpiBackendInitFn)(int32_t *rank, int32_t *size, char *error,
                                   size_t errorSize);
/* In-place MPI_Allreduce over MPI_COMM_WORLD, in chunks that fit an int. */
typedef int (*AmpMpiBackendAllReduceFn)(void *data, int64_t count, int32_t type,
                                        int32_t op, char *error,
                                        size_t errorSize);
/* MPI_Finalize if the backend initialised MPI and it is not finalised. */
typedef void (*AmpMpiBackendFinalizeFn)(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AMP_RUNTIME_LIB_MPIBACKENDABI_H */
