/* Calls @dense of an amp-compile library through its header, from C. */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>

int main(void) {
  float x[2 * 16], w[16 * 8], b[8];
  for (int i = 0; i < 2 * 16; ++i)
    x[i] = (float)(i % 7) / 10.0f - 0.3f;
  for (int i = 0; i < 16 * 8; ++i)
    w[i] = (float)(i % 5) / 20.0f - 0.1f;
  for (int i = 0; i < 8; ++i)
    b[i] = 0.05f * (float)i;
  amp_memref_2d xd = {x, x, 0, {2, 16}, {16, 1}};
  amp_memref_2d wd = {w, w, 0, {16, 8}, {8, 1}};
  amp_memref_1d bd = {b, b, 0, {8}, {1}};
  amp_memref_2d y;
  _mlir_ciface_dense(&y, &xd, &wd, &bd);
  const float *out = (const float *)y.aligned + y.offset;
  printf("dense: %ldx%ld, y[0][0] = %.4f, y[1][7] = %.4f\n", (long)y.sizes[0],
         (long)y.sizes[1], out[0], out[y.strides[0] + 7]);
  free(y.allocated);
  return 0;
}
