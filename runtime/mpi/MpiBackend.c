/*===- MpiBackend.c - libamp_runtime_mpi.so, the MPI backend ---*- C -*-===*\
|*                                                                          *|
|* Part of amp-mlir. The only part of the runtime that links MPI: loaded    *|
|* with dlopen by libamp_runtime(_gpusim).so on the first collective under *|
|* an MPI launcher (lib/Collectives.cpp). ABI: lib/MpiBackendAbi.h.         *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/

#include "../lib/MpiBackendAbi.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define AMP_MPI_EXPORT __attribute__((visibility("default")))

/* Whether this library called MPI_Init_thread (then it finalises). */
static int initializedHere = 0;

static int mpiFailed(const char *what, int code, char *error,
                     size_t errorSize) {
  char text[MPI_MAX_ERROR_STRING] = "";
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    snprintf(text, sizeof(text), "MPI error %d", code);
  snprintf(error, errorSize, "%s failed: %s", what, text);
  return 1;
}

static void finalizeAtExit(void) {
  int finalized = 0;
  if (initializedHere && MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized)
    MPI_Finalize();
}

AMP_MPI_EXPORT int ampMpiBackendAbiVersion(void) {
  return AMP_MPI_BACKEND_ABI_VERSION;
}

AMP_MPI_EXPORT int ampMpiBackendInit(int32_t *rank, int32_t *size, char *error,
                                     size_t errorSize) {
  int initialized = 0, finalized = 0, code;
  MPI_Finalized(&finalized);
  if (finalized) {
    snprintf(error, errorSize, "MPI is already finalized");
    return 1;
  }
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    code = MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
    if (code != MPI_SUCCESS)
      return mpiFailed("MPI_Init_thread", code, error, errorSize);
    initializedHere = 1;
    atexit(finalizeAtExit);
  }
  int r = 0, n = 0;
  if ((code = MPI_Comm_rank(MPI_COMM_WORLD, &r)) != MPI_SUCCESS)
    return mpiFailed("MPI_Comm_rank", code, error, errorSize);
  if ((code = MPI_Comm_size(MPI_COMM_WORLD, &n)) != MPI_SUCCESS)
    return mpiFailed("MPI_Comm_size", code, error, errorSize);
  *rank = r;
  *size = n;
  return 0;
}

AMP_MPI_EXPORT int ampMpiBackendAllReduce(void *data, int64_t count,
                                          int32_t type, int32_t op, char *error,
                                          size_t errorSize) {
  MPI_Datatype datatype;
  size_t elementSize;
  switch (type) {
  case AMP_MPI_BACKEND_FLOAT:
    datatype = MPI_FLOAT;
    elementSize = sizeof(float);
    break;
  case AMP_MPI_BACKEND_INT32:
    datatype = MPI_INT32_T;
    elementSize = sizeof(int32_t);
    break;
  case AMP_MPI_BACKEND_BYTE:
    datatype = MPI_UINT8_T;
    elementSize = 1;
    break;
  default:
    snprintf(error, errorSize, "invalid element type %d", (int)type);
    return 1;
  }
  MPI_Op mpiOp;
  switch (op) {
  case AMP_MPI_BACKEND_SUM:
    mpiOp = MPI_SUM;
    break;
  case AMP_MPI_BACKEND_MAX:
    mpiOp = MPI_MAX;
    break;
  case AMP_MPI_BACKEND_MIN:
    mpiOp = MPI_MIN;
    break;
  default:
    snprintf(error, errorSize, "invalid operation %d", (int)op);
    return 1;
  }
  char *bytes = (char *)data;
  /* MPI counts are ints. */
  const int64_t chunk = INT_MAX / 2;
  for (int64_t done = 0; done < count; done += chunk) {
    int64_t n = count - done < chunk ? count - done : chunk;
    int code = MPI_Allreduce(MPI_IN_PLACE, bytes + done * elementSize, (int)n,
                             datatype, mpiOp, MPI_COMM_WORLD);
    if (code != MPI_SUCCESS)
      return mpiFailed("MPI_Allreduce", code, error, errorSize);
  }
  return 0;
}

AMP_MPI_EXPORT void ampMpiBackendFinalize(void) { finalizeAtExit(); }
