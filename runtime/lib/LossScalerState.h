//===- LossScalerState.h - the loss-scaler state machine --------*- C++ -*-===//
//
// Part of amp-mlir. The state of a loss scaler and the unified update rule
// (../shared/research/loss_scaling.md, section 3.4), written once and
// compiled for the host (LossScaler.cpp) and for the device (the one-thread
// update kernel in cuda/LossScaling.cu), so that both follow exactly the same
// arithmetic. Plain C++ with no library dependency.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_LIB_LOSSSCALERSTATE_H
#define AMP_RUNTIME_LIB_LOSSSCALERSTATE_H

#include "amp/runtime/AmpLossScaling.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define AMP_HOST_DEVICE __host__ __device__
#else
#define AMP_HOST_DEVICE
#endif

namespace amp {
namespace rt {

/// Everything a scaler changes. Device-resident for the GPU scaler (the
/// kernels read `scale`/`invScale`; the optimizer kernels read found_inf,
/// which lives next to it, see GpuLossScaling.cpp).
struct LossScalerState {
  float scale;
  float invScale;
  int32_t goodSteps;
  int32_t badSteps;
  int32_t hysteresis;
  int32_t reserved;
  int64_t steps;
  int64_t skippedSteps;
  int64_t overflowsAtMinScale;
};

/// Smallest normal fp32: back-off never goes below it (without a min_scale),
/// so 1/scale stays finite instead of the scale decaying to 0 (the
/// "loss scale 0" reports of Apex, insightface, auto-round).
constexpr float kSmallestScale = 1.17549435e-38f;

AMP_HOST_DEVICE inline bool isFiniteF32(float x) {
  // Inf - Inf and NaN - NaN are NaN; every finite x gives 0.
  return x - x == 0.0f;
}

/// An inverse scale the unscale entry points accept: finite and > 0 (false
/// for NaN). A device-side one that is not is reported as found_inf.
AMP_HOST_DEVICE inline bool isValidInverseScale(float inv) {
  return inv > 0.0f && inv <= 3.40282347e+38f;
}

AMP_HOST_DEVICE inline float reciprocalScale(float scale) {
  return static_cast<float>(1.0 / static_cast<double>(scale));
}

/// The initial state for a (valid) configuration.
AMP_HOST_DEVICE inline LossScalerState
initialLossScalerState(const AmpLossScalerConfig &config) {
  LossScalerState s;
  s.scale = config.init_scale;
  s.invScale = reciprocalScale(config.init_scale);
  s.goodSteps = 0;
  s.badSteps = 0;
  s.hysteresis = config.hysteresis;
  s.reserved = 0;
  s.steps = 0;
  s.skippedSteps = 0;
  s.overflowsAtMinScale = 0;
  return s;
}

/// One update. Returns true if the optimizer step is applied (no overflow).
/// Skipping depends on foundInf only; hysteresis and backoff_interval delay
/// scale changes, never the skip.
AMP_HOST_DEVICE inline bool updateLossScalerState(LossScalerState &s,
                                                  const AmpLossScalerConfig &c,
                                                  bool foundInf) {
  s.steps += 1;
  if (foundInf)
    s.skippedSteps += 1;
  if (!c.dynamic)
    return !foundInf;
  if (foundInf) {
    // Any overflow restarts the growth window (every system).
    s.goodSteps = 0;
    // Hysteresis (DeepSpeed delayed_shift, Megatron, Colossal-AI): an
    // overflow is absorbed while more than one unit is left. Once exhausted
    // the tracker stays at 0 and every counted overflow may back off, until
    // a growth (or, with consecutive_hysteresis, any clean step) refills it.
    if (s.hysteresis > 1) {
      s.hysteresis -= 1;
      return false;
    }
    s.hysteresis = 0;
    // Paddle's decr_every_n_nan_or_inf: back off once per backoff_interval
    // consecutive counted overflows.
    s.badSteps += 1;
    if (s.badSteps < c.backoff_interval)
      return false;
    s.badSteps = 0;
    bool hasMin = c.min_scale > 0.0f;
    if (hasMin && s.scale <= c.min_scale)
      s.overflowsAtMinScale += 1;
    float next = s.scale * c.backoff_factor;
    if (hasMin && next < c.min_scale)
      next = c.min_scale;
    if (next < kSmallestScale)
      next = s.scale < kSmallestScale ? kSmallestScale : s.scale;
    s.scale = next;
  } else {
    s.badSteps = 0;
    if (c.consecutive_hysteresis)
      s.hysteresis = c.hysteresis;
    s.goodSteps += 1;
    if (s.goodSteps >= c.growth_interval) {
      s.goodSteps = 0;
      s.hysteresis = c.hysteresis;
      float next = s.scale * c.growth_factor;
      if (c.max_scale > 0.0f && next > c.max_scale)
        next = c.max_scale;
      // Never grow to Inf (PyTorch #98828 / PR #98876, Paddle's op).
      if (isFiniteF32(next))
        s.scale = next;
    }
  }
  s.invScale = reciprocalScale(s.scale);
  return !foundInf;
}

#ifndef __CUDACC__
/// The checkpoint blob: "AMPLSCL\0", version, size, config, state, FNV-1a
/// checksum of everything before it. Implemented in LossScaler.cpp and shared
/// by the host and the GPU scaler.
constexpr uint32_t kLossScalerBlobVersion = 1;
size_t lossScalerBlobSize();
size_t saveLossScalerBlob(const AmpLossScalerConfig &config,
                          const LossScalerState &state, void *buffer,
                          size_t capacity);
/// Validates and decodes a blob (config re-validated too); on failure sets
/// "<call>: <reason>" and returns false, leaving the outputs unchanged.
bool loadLossScalerBlob(const char *call, const void *blob, size_t size,
                        AmpLossScalerConfig &config, LossScalerState &state);
/// Validates a configuration, setting "<call>: <field> must ..." on failure.
bool validateLossScalerConfig(const char *call,
                              const AmpLossScalerConfig &config);
/// The configuration a Create call uses: `*cfg`, or the "pytorch" preset
/// for NULL; validated. On failure sets "<call>: ..." and returns false.
bool resolveLossScalerConfig(const char *call, const AmpLossScalerConfig *cfg,
                             AmpLossScalerConfig &config);
#endif

} // namespace rt
} // namespace amp

#endif // AMP_RUNTIME_LIB_LOSSSCALERSTATE_H
