/*===- FakeMpiBackend.c - a fake MPI backend for the unit tests -*- C -*-===*\
|*                                                                          *|
|* Part of amp-mlir. Implements lib/MpiBackendAbi.h without MPI: this       *|
|* process is rank 1 of 3, and the two other ranks contribute the value 1   *|
|* to every element (sum: x + 2, max: max(x, 1), min: min(x, 1)), so that   *|
|* AmpCollectivesFakeTests can check the runtime's conversions and mean.    *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/

#include "../lib/MpiBackendAbi.h"

#include <stdio.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT int ampMpiBackendAbiVersion(void) { return AMP_MPI_BACKEND_ABI_VERSION; }

EXPORT int ampMpiBackendInit(int32_t *rank, int32_t *size, char *error,
                             size_t errorSize) {
  (void)error;
  (void)errorSize;
  *rank = 1;
  *size = 3;
  return 0;
}

#define COMBINE(T)                                                             \
  do {                                                                         \
    T *v = (T *)data;                                                          \
    for (int64_t i = 0; i < count; ++i)                                        \
      v[i] = op == AMP_MPI_BACKEND_SUM   ? (T)(v[i] + 2)                       \
             : op == AMP_MPI_BACKEND_MAX ? (v[i] > 1 ? v[i] : (T)1)            \
                                         : (v[i] < 1 ? v[i] : (T)1);           \
  } while (0)

EXPORT int ampMpiBackendAllReduce(void *data, int64_t count, int32_t type,
                                  int32_t op, char *error, size_t errorSize) {
  switch (type) {
  case AMP_MPI_BACKEND_FLOAT:
    COMBINE(float);
    return 0;
  case AMP_MPI_BACKEND_INT32:
    COMBINE(int32_t);
    return 0;
  case AMP_MPI_BACKEND_BYTE:
    COMBINE(uint8_t);
    return 0;
  default:
    snprintf(error, errorSize, "fake backend: bad type %d", (int)type);
    return 1;
  }
}

EXPORT void ampMpiBackendFinalize(void) {}
