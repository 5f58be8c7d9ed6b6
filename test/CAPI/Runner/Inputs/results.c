/* A C program that calls a compiled function through the runner's C API
 * and takes its result without a copy (ampRunnerResultsTake): the input
 * buffer is read in place and never written, even by a function that
 * updates its argument in its IR; the result outlives its
 * AmpRunnerResults; a result cannot be taken twice or read after it was
 * taken; the runner's copy counters stay at zero. Compiled as C99. */

#include "amp-c/Runner.h"

#include <stdio.h>
#include <string.h>

static const char kModule[] =
    "#id = affine_map<(d0) -> (d0)>\n"
    "func.func @double(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %y = linalg.generic {indexing_maps = [#id, #id],\n"
    "                       iterator_types = [\"parallel\"]}\n"
    "      ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) {\n"
    "  ^bb0(%a: f32, %b: f32):\n"
    "    %s = arith.addf %a, %a : f32\n"
    "    linalg.yield %s : f32\n"
    "  } -> tensor<4xf32>\n"
    "  return %y : tensor<4xf32>\n"
    "}\n";

int main(void) {
  AmpRunnerModule *module =
      ampRunnerModuleParse(kModule, strlen(kModule), "double.mlir");
  AmpRunnerOptions *options = ampRunnerOptionsCreate();
  AmpRunnerExecutable *exe =
      module ? ampRunnerCompile(module, "double", options) : NULL;
  if (!exe) {
    printf("compile failed: %s\n", ampRunnerGetLastError());
    return 1;
  }
  float x[4] = {1.0f, 2.0f, 0.5f, -4.0f};
  const void *inputs[1] = {x};
  AmpRunnerResults *results = ampRunnerCall(exe, inputs, NULL);
  if (!results) {
    printf("call failed: %s\n", ampRunnerGetLastError());
    return 1;
  }
  int64_t rank = -1;
  const int64_t *shape = NULL;
  void *data = NULL;
  AmpRunnerHostBuffer *y =
      ampRunnerResultsTake(results, 0, &rank, &shape, &data);
  if (!y) {
    printf("take failed: %s\n", ampRunnerGetLastError());
    return 1;
  }
  printf("taken: rank %lld, shape %lld\n", (long long)rank,
         (long long)shape[0]);
  AmpRunnerHostBuffer *again =
      ampRunnerResultsTake(results, 0, NULL, NULL, NULL);
  printf("again: %s: %s\n", again ? "TAKEN" : "refused",
         ampRunnerGetLastError());
  const void *read = NULL;
  int got = ampRunnerResultsGet(results, 0, NULL, NULL, &read);
  printf("get: %s: %s\n", got ? "refused" : "READ", ampRunnerGetLastError());
  ampRunnerResultsDestroy(results);
  const float *values = (const float *)data;
  printf("y = %g %g %g %g\n", values[0], values[1], values[2], values[3]);
  printf("x = %g %g %g %g\n", x[0], x[1], x[2], x[3]);
  int64_t calls = -1, inputBytes = -1, resultBytes = -1;
  ampRunnerGetHostCopyStats(exe, &calls, &inputBytes, &resultBytes);
  printf("copies: %lld calls, %lld input bytes, %lld result bytes\n",
         (long long)calls, (long long)inputBytes, (long long)resultBytes);
  ampRunnerHostBufferDestroy(y);
  ampRunnerExecutableDestroy(exe);
  ampRunnerOptionsDestroy(options);
  ampRunnerModuleDestroy(module);
  return 0;
}
