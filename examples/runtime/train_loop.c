/* A framework's training loop on libamp_runtime's C API (host side):
 * linear regression y = x . w with fp16 working weights, fp32 master
 * weights, fp16 gradients, dynamic loss scaling and AdamW.
 *
 *   cc -std=c99 -I runtime/include examples/runtime/train_loop.c \
 *      -L build/lib -lamp_runtime -lm -Wl,-rpath,build/lib -o train_loop
 *   ./train_loop            # prints the loss, the scale and skipped steps
 *
 * Step 40 gets an Inf in its gradient: the step is skipped (weights, moments
 * and the step count unchanged) and the scale backs off. The scaler and the
 * optimizer are checkpointed at step 60 and the run continues from the
 * blobs, as after a restart. Exits non-zero if anything is off.
 */

#include "amp/runtime/AmpRuntime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 64, D = 16, STEPS = 120, INJECT = 40, CHECKPOINT = 60 };

static int fail(const char *what) {
  fprintf(stderr, "train_loop: FAIL: %s (%s)\n", what, ampLastError());
  return 1;
}

int main(void) {
  /* Data: y = x . w_true. */
  static float x[N][D], y[N], w_true[D];
  unsigned seed = 1;
  for (int j = 0; j < D; ++j) {
    seed = seed * 1103515245u + 12345u;
    w_true[j] = (float)((seed >> 16) % 2001) / 1000.0f - 1.0f;
  }
  for (int i = 0; i < N; ++i) {
    y[i] = 0.0f;
    for (int j = 0; j < D; ++j) {
      seed = seed * 1103515245u + 12345u;
      x[i][j] = (float)((seed >> 16) % 2001) / 1000.0f - 1.0f;
      y[i] += x[i][j] * w_true[j];
    }
  }

  /* fp32 master, fp16 working copy, fp16 gradient, fp32 AdamW moments. */
  float master[D] = {0}, m[D] = {0}, v[D] = {0};
  uint16_t w16[D], grad16[D];
  ampConvertF32ToF16(master, w16, D);

  AmpLossScalerConfig scfg;
  if (ampLossScalerConfigPreset("pytorch", &scfg))
    return fail("preset");
  scfg.growth_interval = 25;
  AmpLossScaler *scaler = ampLossScalerCreate(&scfg);
  AmpOptimizerConfig ocfg;
  ampOptimizerConfigDefault(AMP_OPTIMIZER_ADAMW, &ocfg);
  ocfg.lr = 0.05f;
  AmpOptimizer *opt = ampOptimizerCreate(&ocfg);
  if (!scaler || !opt)
    return fail("create");
  AmpOptimizerParam param = {master, w16, AMP_DTYPE_F16, grad16,
                             AMP_DTYPE_F16, m, v, D};

  float first_loss = 0.0f, loss = 0.0f;
  int skipped = 0;
  for (int step = 0; step < STEPS; ++step) {
    /* Forward with the fp16 weights; loss = mean squared error. */
    float w[D], grad[D] = {0};
    ampConvertF16ToF32(w16, w, D);
    loss = 0.0f;
    float scale = ampLossScalerGetScale(scaler);
    for (int i = 0; i < N; ++i) {
      float p = 0.0f;
      for (int j = 0; j < D; ++j)
        p += x[i][j] * w[j];
      float r = p - y[i];
      loss += r * r / N;
      /* Backward of the scaled loss: d(scale * loss)/dw. */
      for (int j = 0; j < D; ++j)
        grad[j] += scale * 2.0f * r * x[i][j] / N;
    }
    if (step == 0)
      first_loss = loss;
    if (step == INJECT)
      grad[3] = INFINITY;
    ampConvertF32ToF16(grad, grad16, D); /* fp16 gradients */

    /* Check and unscale in place, advance the scaler, step if clean. */
    uint16_t *grads[1] = {grad16};
    int64_t numels[1] = {D};
    int found = ampCheckFiniteAndUnscaleF16(grads, numels, 1, scale);
    int apply = ampLossScalerUpdate(scaler, found);
    int64_t before = ampOptimizerGetStep(opt);
    int applied = ampOptimizerStep(opt, &param, 1, 1.0f, !apply);
    if (found != (step == INJECT) || applied != apply)
      return fail("only the injected step may be skipped");
    if (!apply) {
      ++skipped;
      if (ampOptimizerGetStep(opt) != before)
        return fail("a skipped step advanced the optimizer");
      if (ampLossScalerGetScale(scaler) != scale / 2)
        return fail("the scale did not back off");
    }

    if (step == CHECKPOINT) {
      /* Save both, destroy, restore into fresh objects (a restart). */
      size_t sn = ampLossScalerSaveState(scaler, NULL, 0);
      size_t on = ampOptimizerSaveState(opt, NULL, 0);
      void *sb = malloc(sn), *ob = malloc(on);
      if (ampLossScalerSaveState(scaler, sb, sn) != sn ||
          ampOptimizerSaveState(opt, ob, on) != on)
        return fail("save");
      ampLossScalerDestroy(scaler);
      ampOptimizerDestroy(opt);
      scaler = ampLossScalerCreate(NULL);
      opt = ampOptimizerCreate(&ocfg);
      if (!scaler || !opt || ampLossScalerLoadState(scaler, sb, sn) ||
          ampOptimizerLoadState(opt, ob, on))
        return fail("load");
      free(sb);
      free(ob);
    }
    if (step % 20 == 0 || step == INJECT)
      printf("step %3d  loss %.6f  scale %.0f%s\n", step, loss, scale,
             apply ? "" : "  (skipped)");
  }

  AmpLossScalerStats stats;
  ampLossScalerGetStats(scaler, &stats);
  printf("final loss %.6f (from %.6f), scale %.0f, %d skipped, %lld "
         "optimizer steps\n",
         loss, first_loss, stats.scale, skipped,
         (long long)ampOptimizerGetStep(opt));
  if (!(loss < 0.01f * first_loss))
    return fail("the loss did not drop 100-fold");
  if (skipped != 1 || stats.skipped_steps != 1 ||
      ampOptimizerGetStep(opt) != STEPS - 1)
    return fail("counters");
  ampLossScalerDestroy(scaler);
  ampOptimizerDestroy(opt);
  printf("ok\n");
  return 0;
}
