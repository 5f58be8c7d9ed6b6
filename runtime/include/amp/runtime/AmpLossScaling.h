/*===- AmpLossScaling.h - loss scaling and master weights C API -*- C -*-===*\
|*                                                                          *|
|* Part of amp-mlir. Dynamic loss scaling (the unified state machine of     *|
|* PyTorch, Paddle, DeepSpeed, Megatron, Apex and Colossal-AI), the fused   *|
|* check-finite-and-unscale pass over gradients, and optimizers that keep   *|
|* fp32 master weights, on the CPU and on the GPU. Included by AmpRuntime.h.*|
|*                                                                          *|
|* Return conventions: functions returning `int` return 0 on success and a  *|
|* non-zero value on failure (ampLastError() says why; the error handler is *|
|* NOT called), except where a function documents a 0/1 result, in which    *|
|* case failure is -1. Pointer-returning functions return NULL on failure.  *|
|* The void entry points for compiled code (last section) report failures   *|
|* through the error handler instead.                                       *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_AMPLOSSSCALING_H
#define AMP_RUNTIME_AMPLOSSSCALING_H

#include <stddef.h>
#include <stdint.h>

#ifndef AMP_RUNTIME_API
#if defined(__GNUC__) || defined(__clang__)
#define AMP_RUNTIME_API __attribute__((visibility("default")))
#else
#define AMP_RUNTIME_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*===----------------------------------------------------------------------===*
 * Loss-scaler configuration
 *===----------------------------------------------------------------------===*/

/** The knobs of the unified dynamic loss scaler (docs/loss-scaling.md). All
 *  arithmetic on the scale is done in fp32. */
typedef struct AmpLossScalerConfig {
  float init_scale;         /**< Initial scale; finite, >= FLT_MIN (a normal
                                 float, so that 1/scale is finite). */
  float growth_factor;      /**< Multiplier after growth_interval clean steps;
                               finite, > 1. */
  float backoff_factor;     /**< Multiplier on a counted overflow; in (0, 1). */
  int32_t growth_interval;  /**< Consecutive clean steps per growth; >= 1. */
  int32_t backoff_interval; /**< Consecutive counted overflows per back-off
                                 (Paddle decr_every_n_nan_or_inf); >= 1. */
  int32_t hysteresis;       /**< Overflows absorbed before back-off becomes
                                 active (DeepSpeed delayed_shift); >= 1. */
  int32_t consecutive_hysteresis; /**< Nonzero: refill the hysteresis on every
                                       clean step, not only on growth. */
  float min_scale; /**< Floor after back-off; 0 = no floor. Finite, >= 0. */
  float max_scale; /**< Cap after growth; 0 = no cap. Finite, >= 0. */
  int32_t dynamic; /**< 0: the scale stays init_scale (overflowing steps are
                        still reported and skipped). */
} AmpLossScalerConfig;

/** Fills `out` with a named preset: "pytorch", "paddle", "paddle-static",
 *  "deepspeed", "megatron", "apex", "colossalai", or "bf16"/"none" (scale 1,
 *  not dynamic: the finite check stays as a NaN guard). Returns 0, or
 *  non-zero for an unknown name or NULL argument (`out` is then unchanged). */
AMP_RUNTIME_API int ampLossScalerConfigPreset(const char *name,
                                              AmpLossScalerConfig *out);

/** Returns 0 if `cfg` is valid, else non-zero with ampLastError() naming the
 *  first offending field, e.g. "growth_factor must be finite and > 1". */
AMP_RUNTIME_API int ampLossScalerConfigValidate(const AmpLossScalerConfig *cfg);

/*===----------------------------------------------------------------------===*
 * Host loss scaler
 *===----------------------------------------------------------------------===*/

typedef struct AmpLossScaler AmpLossScaler;

/** Counters of a scaler, for logging and tests. */
typedef struct AmpLossScalerStats {
  float scale;           /**< Current scale. */
  int32_t good_steps;    /**< Consecutive clean steps since growth/overflow. */
  int32_t bad_steps;     /**< Consecutive counted overflows (Paddle). */
  int32_t hysteresis;    /**< Overflows still absorbed (DeepSpeed tracker). */
  int64_t steps;         /**< Updates so far. */
  int64_t skipped_steps; /**< Updates with found_inf != 0. */
  int64_t overflows_at_min_scale; /**< Back-offs attempted at min_scale
                                       (DeepSpeed raises here; we count). */
} AmpLossScalerStats;

/** Creates a scaler with `cfg` (NULL: the "pytorch" preset). An invalid
 *  config gives NULL and ampLastError() says why. */
AMP_RUNTIME_API AmpLossScaler *
ampLossScalerCreate(const AmpLossScalerConfig *cfg);
/** Destroys a scaler; NULL is a no-op. */
AMP_RUNTIME_API void ampLossScalerDestroy(AmpLossScaler *scaler);
/** The current scale (NaN for a NULL scaler). */
AMP_RUNTIME_API float ampLossScalerGetScale(const AmpLossScaler *scaler);
/** 1/scale, computed in double and rounded to fp32 (NaN for NULL). */
AMP_RUNTIME_API float ampLossScalerGetInvScale(const AmpLossScaler *scaler);
/** Copies the configuration / counters; 0 on success. */
AMP_RUNTIME_API int ampLossScalerGetConfig(const AmpLossScaler *scaler,
                                           AmpLossScalerConfig *out);
AMP_RUNTIME_API int ampLossScalerGetStats(const AmpLossScaler *scaler,
                                          AmpLossScalerStats *out);

/** Advances the state machine by one step. Returns 1 if the optimizer step
 *  must be applied (found_inf == 0), 0 if it must be skipped, -1 for a NULL
 *  scaler. The skip depends only on found_inf; hysteresis and
 *  backoff_interval only delay scale changes. */
AMP_RUNTIME_API int ampLossScalerUpdate(AmpLossScaler *scaler, int found_inf);

/** Checkpointing. The state is a versioned, checksummed byte blob holding the
 *  configuration and every counter. SaveState returns the blob size and
 *  writes it to `buffer` only if `capacity` is at least that size (buffer may
 *  be NULL to query); 0 on a NULL scaler. LoadState replaces configuration
 *  and counters; a truncated, corrupt, foreign or newer-version blob is
 *  rejected (non-zero, ampLastError() says why) and the scaler is unchanged. */
AMP_RUNTIME_API size_t ampLossScalerSaveState(const AmpLossScaler *scaler,
                                              void *buffer, size_t capacity);
AMP_RUNTIME_API int ampLossScalerLoadState(AmpLossScaler *scaler,
                                           const void *blob, size_t size);

/** Sets the count of consecutive clean steps since the last growth or
 *  overflow (AmpLossScalerStats.good_steps; PyTorch's `_growth_tracker`), to
 *  restore a checkpoint that has the counter but no state blob. The scale
 *  grows at the update that brings it to growth_interval. Returns 0, or
 *  non-zero for a NULL scaler or a count outside [0, growth_interval) (the
 *  scaler is then unchanged). */
AMP_RUNTIME_API int ampLossScalerSetGrowthTracker(AmpLossScaler *scaler,
                                                  int32_t good_steps);

/*===----------------------------------------------------------------------===*
 * Check finite and unscale (CPU), in place, one pass over memory
 *===----------------------------------------------------------------------===*/

/** For each of `count` tensors (`tensors[i]` with `numels[i]` elements):
 *  x = round(float(x) * (1/scale)) in place, with 1/scale computed in double
 *  and rounded to fp32. Returns 1 if any element read or written is Inf or
 *  NaN (a finite input whose result overflows counts), 0 if all are finite,
 *  -1 on invalid arguments, writing nothing (scale not finite and > 0 or
 *  below FLT_MIN, as for the loss scaler; negative count/numel; NULL pointer
 *  with numel > 0; a pointer not aligned to its elements). Elements are
 * unscaled even when a non-finite one is found (PyTorch semantics: the step is
 *  skipped, the gradients are not used). F16/BF16 variants take IEEE
 *  binary16 / bfloat16 bit patterns and round to nearest even. */
AMP_RUNTIME_API int ampCheckFiniteAndUnscaleF32(float *const *tensors,
                                                const int64_t *numels,
                                                int64_t count, float scale);
AMP_RUNTIME_API int ampCheckFiniteAndUnscaleF16(uint16_t *const *tensors,
                                                const int64_t *numels,
                                                int64_t count, float scale);
AMP_RUNTIME_API int ampCheckFiniteAndUnscaleBF16(uint16_t *const *tensors,
                                                 const int64_t *numels,
                                                 int64_t count, float scale);

/** Master-gradient form (Apex O2): reads low-precision gradients `src[i]`
 *  (AmpDType `srcType`: F32, F16 or BF16), writes float(x) * (1/scale) to
 *  the fp32 buffers `dst[i]` (may equal src[i] only for F32). Same return
 *  values as above. */
AMP_RUNTIME_API int ampCheckFiniteAndUnscaleToF32(const void *const *src,
                                                  int32_t srcType,
                                                  float *const *dst,
                                                  const int64_t *numels,
                                                  int64_t count, float scale);

/*===----------------------------------------------------------------------===*
 * Optimizers with fp32 master weights (CPU)
 *===----------------------------------------------------------------------===*/

typedef enum AmpOptimizerKind {
  AMP_OPTIMIZER_SGD = 0,      /**< p -= lr * (g + wd * p). */
  AMP_OPTIMIZER_MOMENTUM = 1, /**< PyTorch SGD(momentum, dampening, nesterov);
                                   with dampening 0 also Paddle Momentum. */
  AMP_OPTIMIZER_ADAM = 2,     /**< Adam, L2 weight decay coupled into g. */
  AMP_OPTIMIZER_ADAMW = 3,    /**< AdamW, decoupled: p *= 1 - lr * wd. */
} AmpOptimizerKind;

typedef struct AmpOptimizerConfig {
  int32_t kind;       /**< AmpOptimizerKind. */
  float lr;           /**< Learning rate; finite, >= 0. */
  float weight_decay; /**< >= 0. */
  float momentum;     /**< Momentum: in [0, 1). */
  float dampening;    /**< Momentum: in [0, 1]. */
  int32_t nesterov;   /**< Momentum: nonzero = Nesterov (needs dampening 0). */
  float beta1, beta2; /**< Adam/AdamW: in [0, 1). */
  float eps;          /**< Adam/AdamW: > 0. */
} AmpOptimizerConfig;

/** Defaults for `kind` (PyTorch): lr 1e-3, momentum 0.9 (Momentum),
 *  betas (0.9, 0.999), eps 1e-8, weight decay 0 (AdamW: 1e-2). */
AMP_RUNTIME_API int ampOptimizerConfigDefault(int32_t kind,
                                              AmpOptimizerConfig *out);

/** One parameter tensor of an optimizer. `master` is the fp32 master copy
 *  (read and written); `lowp` its low-precision working copy of AmpDType
 *  `lowp_type` (written as round-to-nearest-even of the new master in the
 *  same pass; NULL for an fp32 parameter that is its own master); `grad` the
 *  gradient of AmpDType `grad_type`, already unscaled unless the step gets an
 *  inv_scale; `state0`/`state1` fp32 optimizer state (Momentum: the velocity
 *  in state0; Adam/AdamW: m in state0, v in state1; NULL where unused). */
typedef struct AmpOptimizerParam {
  float *master;
  void *lowp;
  int32_t lowp_type;
  const void *grad;
  int32_t grad_type;
  float *state0;
  float *state1;
  int64_t numel;
} AmpOptimizerParam;

typedef struct AmpOptimizer AmpOptimizer;

/** Creates an optimizer (NULL on an invalid config; ampLastError says why).
 *  It owns the step count t (starts at 0) and the Adam bias-correction
 *  powers beta1^t, beta2^t (kept in double). */
AMP_RUNTIME_API AmpOptimizer *ampOptimizerCreate(const AmpOptimizerConfig *cfg);
AMP_RUNTIME_API void ampOptimizerDestroy(AmpOptimizer *opt);
/** Number of applied steps so far (-1 for NULL). */
AMP_RUNTIME_API int64_t ampOptimizerGetStep(const AmpOptimizer *opt);
/** Changes the learning rate (schedules); 0 on success. */
AMP_RUNTIME_API int ampOptimizerSetLearningRate(AmpOptimizer *opt, float lr);

/** One optimizer step over `count` parameters. If `found_inf` is nonzero
 *  nothing is read or written and the step count does not advance; returns
 *  0 (skipped). Otherwise t += 1 and each parameter is updated in fp32 with
 *  g = float(grad) * inv_scale (pass 1 for already unscaled gradients),
 *  returning 1 (applied; a step over no elements still advances t). Returns
 *  -1 on invalid arguments, nothing written: `lowp_type`/`grad_type` must be
 *  valid AmpDType values even when `lowp` is NULL, and the buffers of one
 *  parameter must not overlap (an fp32 parameter that is its own master
 *  passes lowp = NULL, not lowp = master). Momentum's first applied step
 *  (t == 1) sets the velocity to g without reading it (PyTorch); a parameter
 *  added later gets (1 - dampening) * g, which is the same for dampening 0. */
AMP_RUNTIME_API int ampOptimizerStep(AmpOptimizer *opt,
                                     const AmpOptimizerParam *params,
                                     int64_t count, float inv_scale,
                                     int found_inf);

/** Checkpointing of an optimizer's own state: its configuration, the step
 *  count t and the bias-correction powers beta1^t, beta2^t (the parameters
 *  and the per-parameter state0/state1 buffers are the caller's to save).
 *  Same conventions as ampLossScalerSaveState/LoadState: SaveState returns
 *  the blob size and writes it only if `capacity` is large enough (0 on a
 *  NULL optimizer); LoadState replaces configuration and state, and rejects
 *  a truncated, corrupt, foreign or newer-version blob, a blob of another
 *  optimizer kind, an invalid configuration and an inconsistent state
 *  (negative t, powers not finite or outside [0, 1]), leaving the optimizer
 *  unchanged. A run continued from a loaded blob (with the caller's saved
 *  buffers) is bit-identical to the uninterrupted run. */
AMP_RUNTIME_API size_t ampOptimizerSaveState(const AmpOptimizer *opt,
                                             void *buffer, size_t capacity);
AMP_RUNTIME_API int ampOptimizerLoadState(AmpOptimizer *opt, const void *blob,
                                          size_t size);

/*===----------------------------------------------------------------------===*
 * GPU: device-resident scaler, tensor tables, optimizer kernels
 *
 * Everything is asynchronous on the runtime's shared stream (the one
 * mgpuStreamCreate returns) and never synchronises the host, except the
 * functions documented as reading state back. The per-step protocol is
 *   ampGpuLossScalerBeginStep   found_inf = 0 (memset)
 *   ampGpuCheckFiniteAndUnscale one launch per tensor table
 *   ampGpuOptimizerStep         every block returns early if found_inf != 0
 *   ampGpuLossScalerUpdate      one-thread kernel: the state machine
 * Without a GPU (or without CUDA at build time) every function fails with a
 * clear ampLastError().
 *===----------------------------------------------------------------------===*/

typedef struct AmpGpuLossScaler AmpGpuLossScaler;
typedef struct AmpGpuTensorTable AmpGpuTensorTable;
typedef struct AmpGpuOptimizer AmpGpuOptimizer;

/** Creates a scaler whose state lives in device memory (NULL cfg: the
 *  "pytorch" preset). */
AMP_RUNTIME_API AmpGpuLossScaler *
ampGpuLossScalerCreate(const AmpLossScalerConfig *cfg);
AMP_RUNTIME_API void ampGpuLossScalerDestroy(AmpGpuLossScaler *scaler);
/** Device pointers: the scale, 1/scale (both fp32, updated by the update
 *  kernel) and found_inf (fp32, nonzero = overflow this step). Stable for
 *  the scaler's lifetime (CUDA-graph friendly). */
AMP_RUNTIME_API float *ampGpuLossScalerScalePtr(AmpGpuLossScaler *scaler);
AMP_RUNTIME_API float *ampGpuLossScalerInvScalePtr(AmpGpuLossScaler *scaler);
AMP_RUNTIME_API float *ampGpuLossScalerFoundInfPtr(AmpGpuLossScaler *scaler);
/** found_inf = 0 on the stream. */
AMP_RUNTIME_API int ampGpuLossScalerBeginStep(AmpGpuLossScaler *scaler);
/** Enqueues the one-thread update kernel. */
AMP_RUNTIME_API int ampGpuLossScalerUpdate(AmpGpuLossScaler *scaler);
/** Synchronises the stream and reads the counters back (for logging). */
AMP_RUNTIME_API int ampGpuLossScalerGetStats(AmpGpuLossScaler *scaler,
                                             AmpLossScalerStats *out);
/** Checkpointing with the same blob format as the host scaler (a blob saved
 *  by one loads into the other). SaveState synchronises. */
AMP_RUNTIME_API size_t ampGpuLossScalerSaveState(AmpGpuLossScaler *scaler,
                                                 void *buffer, size_t capacity);
AMP_RUNTIME_API int ampGpuLossScalerLoadState(AmpGpuLossScaler *scaler,
                                              const void *blob, size_t size);

/** A table of `count` device tensors of one AmpDType, copied to the device
 *  once (pointers, element counts and a chunked work list), so that one
 *  launch covers every tensor and no per-step upload is needed. */
AMP_RUNTIME_API AmpGpuTensorTable *
ampGpuTensorTableCreate(void *const *devicePtrs, const int64_t *numels,
                        int64_t count, int32_t dtype);
AMP_RUNTIME_API void ampGpuTensorTableDestroy(AmpGpuTensorTable *table);

/** One launch: every element x of the table becomes x * inv_scale (read on
 *  the device) in place; found_inf is set to 1 if any element read or
 *  written is not finite, or if inv_scale is not finite and > 0 (then
 *  nothing else is written). No host synchronisation. */
AMP_RUNTIME_API int ampGpuCheckFiniteAndUnscale(AmpGpuLossScaler *scaler,
                                                const AmpGpuTensorTable *table);

/** A GPU optimizer over device parameters (AmpOptimizerParam with device
 *  pointers), tables built once. The step count and bias-correction powers
 *  live on the device. */
AMP_RUNTIME_API AmpGpuOptimizer *
ampGpuOptimizerCreate(const AmpOptimizerConfig *cfg,
                      const AmpOptimizerParam *params, int64_t count);
AMP_RUNTIME_API void ampGpuOptimizerDestroy(AmpGpuOptimizer *opt);
/** Enqueues the update; it reads `found_inf` (device fp32, may be NULL =
 *  never skip) and `inv_scale` (device fp32, may be NULL = 1) on the device.
 *  The step is skipped when found_inf != 0 or inv_scale is not finite and
 *  > 0 (the unscale rule; the CPU optimizer rejects such a host value). A
 *  skipped step leaves every byte unchanged, including the step count. */
AMP_RUNTIME_API int ampGpuOptimizerStep(AmpGpuOptimizer *opt,
                                        const float *found_inf,
                                        const float *inv_scale);
/** Synchronises and returns the number of applied steps (-1 on error). */
AMP_RUNTIME_API int64_t ampGpuOptimizerGetStep(AmpGpuOptimizer *opt);
/** Checkpointing with the same blob format as the CPU optimizer (a blob
 *  saved by one loads into the other). SaveState synchronises and reads the
 *  device step record; LoadState uploads it (stream-ordered: steps enqueued
 *  before it use the old state, later ones the loaded state). Besides the
 *  CPU optimizer's checks, LoadState rejects a Momentum blob with momentum
 *  > 0 into an optimizer created with momentum 0 (its tables have no
 *  velocity buffers). */
AMP_RUNTIME_API size_t ampGpuOptimizerSaveState(AmpGpuOptimizer *opt,
                                                void *buffer, size_t capacity);
AMP_RUNTIME_API int ampGpuOptimizerLoadState(AmpGpuOptimizer *opt,
                                             const void *blob, size_t size);
/** Changes the learning rate of later steps (schedules); 0 on success. The
 *  rate is a kernel argument, so no device memory is touched and steps
 *  already enqueued keep the old rate. */
AMP_RUNTIME_API int ampGpuOptimizerSetLearningRate(AmpGpuOptimizer *opt,
                                                   float lr);

/* The entry points for compiled code, ampGpuCheckFiniteAndUnscaleBuffer(s)
 * and their CPU twins ampCpuCheckFiniteAndUnscaleBuffer(s), are library
 * calls: declared by AmpLibraryCalls.h from LibraryCalls.def. */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AMP_RUNTIME_AMPLOSSSCALING_H */
