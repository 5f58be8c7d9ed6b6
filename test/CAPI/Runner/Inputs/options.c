/* A C program that compiles and calls a function through the runner's C
 * API, its options set by the typed setters (C enums, and the lowerings'
 * and the AMP pipeline's options by name with a value of their kind), and
 * checks that each setter refuses what its option does not take. Compiled
 * as C99: the header is C. */

#include "amp-c/Runner.h"

#include <stdio.h>
#include <string.h>

static const char kModule[] =
    "func.func @scale(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %c = arith.constant dense<3.0> : tensor<4xf32>\n"
    "  %y = arith.mulf %x, %c : tensor<4xf32>\n"
    "  return %y : tensor<4xf32>\n"
    "}\n";

/* Prints what a call that must fail said. */
static void refused(const char *what, int result) {
  printf("%s: %s: %s\n", what, result ? "refused" : "ACCEPTED",
         ampRunnerGetLastError());
}

int main(void) {
  printf("version %d\n", ampRunnerGetApiVersion());
  printf("gpu options: %s\n",
         ampRunnerGetLoweringOptions(AMP_RUNNER_LOWERING_GPU));

  AmpRunnerModule *module =
      ampRunnerModuleParse(kModule, strlen(kModule), "scale.mlir");
  if (!module) {
    printf("parse failed: %s\n", ampRunnerGetLastError());
    return 1;
  }

  AmpRunnerOptions *options = ampRunnerOptionsCreate();
  if (ampRunnerOptionsSetLevel(options, AMP_RUNNER_LEVEL_O2) ||
      ampRunnerOptionsSetDtype(options, AMP_RUNNER_DTYPE_BF16) ||
      ampRunnerOptionsSetRounding(options, AMP_RUNNER_ROUNDING_PER_OP) ||
      ampRunnerOptionsSetLoweringBool(options, AMP_RUNNER_LOWERING_CPU,
                                      "approximate-math", 0) ||
      ampRunnerOptionsSetLoweringInt(options, AMP_RUNNER_LOWERING_CPU,
                                     "split-reductions", 4) ||
      ampRunnerOptionsSetLoweringString(options, AMP_RUNNER_LOWERING_GPU,
                                        "chip", "sm_80")) {
    printf("a setter failed: %s\n", ampRunnerGetLastError());
    return 1;
  }
  AmpRunnerExecutable *exe = ampRunnerCompile(module, "scale", options);
  if (!exe) {
    printf("compile failed: %s\n", ampRunnerGetLastError());
    return 1;
  }
  float x[4] = {1.0f, 2.0f, 0.5f, -4.0f}, y[4] = {0};
  const void *inputs[1] = {x};
  void *outputs[1] = {y};
  if (ampRunnerRun(exe, inputs, outputs)) {
    printf("run failed: %s\n", ampRunnerGetLastError());
    return 1;
  }
  printf("low type %s, y = %g %g %g %g\n", ampRunnerGetLowPrecisionType(exe),
         y[0], y[1], y[2], y[3]);
  ampRunnerExecutableDestroy(exe);

  /* Each setter checks its value where it enters. */
  refused("level 7", ampRunnerOptionsSetLevel(options, (AmpRunnerLevel)7));
  refused("libraries=1", ampRunnerOptionsSetLoweringInt(
                             options, AMP_RUNNER_LOWERING_CPU, "libraries", 1));
  refused("chip=volta", ampRunnerOptionsSetLoweringString(
                            options, AMP_RUNNER_LOWERING_GPU, "chip", "volta"));
  refused("block-size=-1",
          ampRunnerOptionsSetLoweringInt(options, AMP_RUNNER_LOWERING_GPU,
                                         "block-size", -1));
  refused("chip on the CPU",
          ampRunnerOptionsSetLoweringString(options, AMP_RUNNER_LOWERING_CPU,
                                            "chip", "sm_80"));
  /* What needs the other options: a CPU lowering option and target gpu-sim. */
  ampRunnerOptionsSetTarget(options, AMP_RUNNER_TARGET_GPU_SIM);
  refused("cpu option, gpu-sim target", ampRunnerCheckOptions(module, options));

  ampRunnerOptionsDestroy(options);

  /* The AMP pipeline's options by name, each with a value of its kind. */
  printf("amp options: %s\n", ampRunnerGetAmpOptions());
  AmpRunnerOptions *amp = ampRunnerOptionsCreate();
  const char *black[1] = {"arith.mulf"};
  if (ampRunnerOptionsSetLevel(amp, AMP_RUNNER_LEVEL_O2) ||
      ampRunnerOptionsSetAmpStrings(amp, "custom-black-list", black, 1) ||
      ampRunnerOptionsSetAmpString(amp, "placement", "greedy") ||
      ampRunnerOptionsSetAmpFloat(amp, "calibration-margin", 8.0) ||
      ampRunnerOptionsSetAmpBool(amp, "keep-amp-casts", 0) ||
      ampRunnerOptionsSetAmpOptions(amp, "loss-scaling=off")) {
    printf("an AMP setter failed: %s\n", ampRunnerGetLastError());
    return 1;
  }
  const char *report =
      ampRunnerModuleTransform(module, amp, 0, AMP_RUNNER_TRANSFORM_REPORT);
  printf("arith.mulf %s\n",
         report && strstr(report, "\"reason\": \"custom black list\"")
             ? "black-listed"
             : "NOT black-listed");
  refused("explain=1", ampRunnerOptionsSetAmpInt(amp, "explain", 1));
  refused("custom-black-list=arith.mulf",
          ampRunnerOptionsSetAmpString(amp, "custom-black-list", "arith.mulf"));
  refused("fp8-margin=2^40",
          ampRunnerOptionsSetAmpInt(amp, "fp8-margin", (int64_t)1 << 40));
  refused("dtyp", ampRunnerOptionsSetAmpString(amp, "dtyp", "bf16"));
  refused("text dtyp", ampRunnerOptionsSetAmpOptions(amp, "dtyp=bf16"));
  /* An enumerated option's spelling is checked when the level reads it. */
  if (ampRunnerOptionsSetAmpString(amp, "placement", "best")) {
    printf("placement=best refused early: %s\n", ampRunnerGetLastError());
    return 1;
  }
  refused("placement=best", ampRunnerCheckOptions(module, amp));
  ampRunnerOptionsDestroy(amp);

  ampRunnerModuleDestroy(module);
  return 0;
}
