//===- LossScaler.cpp - host dynamic loss scaler --------------------------===//
//
// Part of amp-mlir. The named presets (LossScalerPresets.def), configuration
// validation, the host scaler (a thin wrapper around updateLossScalerState of
// LossScalerState.h) and the checkpoint blob shared with the GPU scaler
// (framing, checksum and field encoding from StateBlob.h).
//
// Blob layout (version 1, 104 bytes, every field little-endian, written
// field by field so that no struct padding or host byte order leaks in):
//
//   offset size
//        0    8  magic "AMPLSCL\0"
//        8    4  uint32 version (kLossScalerBlobVersion)
//       12    4  uint32 total size of the blob in bytes
//       16   40  config: init_scale, growth_factor, backoff_factor (f32 bits),
//                growth_interval, backoff_interval, hysteresis,
//                consecutive_hysteresis (i32), min_scale, max_scale (f32
//                bits), dynamic (i32)
//       56   40  state: scale (f32 bits), good_steps, bad_steps, hysteresis
//                (i32), steps, skipped_steps, overflows_at_min_scale (i64)
//       96    8  uint64 FNV-1a (64-bit) of bytes [0, 96)
//
// 1/scale is not stored: it is recomputed with reciprocalScale on load.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "LossScalerState.h"
#include "StateBlob.h"

#include <cfloat>
#include <cmath>
#include <cstring>
#include <new>

using namespace amp::rt;
using amp::rt::blob::Reader;
using amp::rt::blob::Writer;

struct AmpLossScaler {
  AmpLossScalerConfig config;
  LossScalerState state;
};

namespace {

//===----------------------------------------------------------------------===//
// Presets
//===----------------------------------------------------------------------===//

struct Preset {
  const char *name;
  AmpLossScalerConfig config;
};

#define AMP_LOSS_SCALER_PRESET(NAME, INIT, GROWTH, BACKOFF, GROWTH_INTERVAL,   \
                               BACKOFF_INTERVAL, HYSTERESIS, CONSECUTIVE,      \
                               HAS_MIN, MIN, HAS_MAX, MAX, DYNAMIC)            \
  {NAME,                                                                       \
   {static_cast<float>(INIT), static_cast<float>(GROWTH),                      \
    static_cast<float>(BACKOFF), GROWTH_INTERVAL, BACKOFF_INTERVAL,            \
    HYSTERESIS, CONSECUTIVE, (HAS_MIN) ? static_cast<float>(MIN) : 0.0f,       \
    (HAS_MAX) ? static_cast<float>(MAX) : 0.0f, DYNAMIC}},
constexpr Preset kPresets[] = {
#include "amp/runtime/LossScalerPresets.def"
};

/// Names accepted in addition to the table's.
struct PresetAlias {
  const char *alias;
  const char *name;
};
constexpr PresetAlias kPresetAliases[] = {{"none", "bf16"}};

const Preset *findPreset(const char *name) {
  for (const PresetAlias &alias : kPresetAliases)
    if (std::strcmp(name, alias.alias) == 0)
      name = alias.name;
  for (const Preset &preset : kPresets)
    if (std::strcmp(name, preset.name) == 0)
      return &preset;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

/// Checks `c`; on failure sets "<call>: <prefix><field> must ..." and returns
/// false. Fields are checked in declaration order, then the relations
/// between them.
bool checkConfig(const char *call, const char *prefix,
                 const AmpLossScalerConfig &c) {
  auto finite = [](float x) { return std::isfinite(x); };
  if (!finite(c.init_scale) || !(c.init_scale > 0.0f))
    return setError(call, "%sinit_scale must be finite and > 0, got %g", prefix,
                    static_cast<double>(c.init_scale));
  if (c.init_scale < kSmallestScale)
    return setError(call,
                    "%sinit_scale must be >= %g (the smallest normal float, "
                    "so that 1/scale is finite), got %g",
                    prefix, static_cast<double>(kSmallestScale),
                    static_cast<double>(c.init_scale));
  if (!finite(c.growth_factor) || !(c.growth_factor > 1.0f))
    return setError(call, "%sgrowth_factor must be finite and > 1, got %g",
                    prefix, static_cast<double>(c.growth_factor));
  if (!(c.backoff_factor > 0.0f && c.backoff_factor < 1.0f))
    return setError(call, "%sbackoff_factor must be in (0, 1), got %g", prefix,
                    static_cast<double>(c.backoff_factor));
  if (c.growth_interval < 1)
    return setError(call, "%sgrowth_interval must be >= 1, got %d", prefix,
                    static_cast<int>(c.growth_interval));
  if (c.backoff_interval < 1)
    return setError(call, "%sbackoff_interval must be >= 1, got %d", prefix,
                    static_cast<int>(c.backoff_interval));
  if (c.hysteresis < 1)
    return setError(call, "%shysteresis must be >= 1, got %d", prefix,
                    static_cast<int>(c.hysteresis));
  if (!finite(c.min_scale) || !(c.min_scale >= 0.0f))
    return setError(call,
                    "%smin_scale must be finite and >= 0 (0 = no floor), "
                    "got %g",
                    prefix, static_cast<double>(c.min_scale));
  if (!finite(c.max_scale) || !(c.max_scale >= 0.0f))
    return setError(call,
                    "%smax_scale must be finite and >= 0 (0 = no cap), got %g",
                    prefix, static_cast<double>(c.max_scale));
  bool hasMin = c.min_scale > 0.0f, hasMax = c.max_scale > 0.0f;
  if (hasMin && hasMax && c.min_scale > c.max_scale)
    return setError(call, "%smin_scale (%g) must be <= max_scale (%g)", prefix,
                    static_cast<double>(c.min_scale),
                    static_cast<double>(c.max_scale));
  if (hasMin && c.init_scale < c.min_scale)
    return setError(call, "%sinit_scale (%g) must be >= min_scale (%g)", prefix,
                    static_cast<double>(c.init_scale),
                    static_cast<double>(c.min_scale));
  if (hasMax && c.init_scale > c.max_scale)
    return setError(call, "%sinit_scale (%g) must be <= max_scale (%g)", prefix,
                    static_cast<double>(c.init_scale),
                    static_cast<double>(c.max_scale));
  return true;
}

/// Checks that `s` is a state the state machine can reach under `c` (which
/// is valid); on failure sets "<call>: <reason>" and returns false.
bool checkState(const char *call, const AmpLossScalerConfig &c,
                const LossScalerState &s) {
  const char *prefix = "inconsistent state in blob: ";
  if (!std::isfinite(s.scale) || !(s.scale > 0.0f))
    return setError(call, "%sscale must be finite and > 0, got %g", prefix,
                    static_cast<double>(s.scale));
  if (s.scale < kSmallestScale)
    return setError(call, "%sscale %g is below the smallest normal float",
                    prefix, static_cast<double>(s.scale));
  if (c.min_scale > 0.0f && s.scale < c.min_scale)
    return setError(call, "%sscale %g is below min_scale %g", prefix,
                    static_cast<double>(s.scale),
                    static_cast<double>(c.min_scale));
  if (c.max_scale > 0.0f && s.scale > c.max_scale)
    return setError(call, "%sscale %g is above max_scale %g", prefix,
                    static_cast<double>(s.scale),
                    static_cast<double>(c.max_scale));
  if (s.goodSteps < 0 || s.goodSteps >= c.growth_interval)
    return setError(call, "%sgood_steps %d is outside [0, growth_interval %d)",
                    prefix, static_cast<int>(s.goodSteps),
                    static_cast<int>(c.growth_interval));
  if (s.badSteps < 0 || s.badSteps >= c.backoff_interval)
    return setError(call, "%sbad_steps %d is outside [0, backoff_interval %d)",
                    prefix, static_cast<int>(s.badSteps),
                    static_cast<int>(c.backoff_interval));
  if (s.hysteresis < 0 || s.hysteresis > c.hysteresis)
    return setError(call, "%shysteresis %d is outside [0, hysteresis %d]",
                    prefix, static_cast<int>(s.hysteresis),
                    static_cast<int>(c.hysteresis));
  if (s.steps < 0 || s.skippedSteps < 0 || s.skippedSteps > s.steps ||
      s.overflowsAtMinScale < 0 || s.overflowsAtMinScale > s.skippedSteps)
    return setError(call,
                    "%scounters must satisfy 0 <= overflows_at_min_scale "
                    "(%lld) <= skipped_steps (%lld) <= steps (%lld)",
                    prefix, static_cast<long long>(s.overflowsAtMinScale),
                    static_cast<long long>(s.skippedSteps),
                    static_cast<long long>(s.steps));
  return true;
}

//===----------------------------------------------------------------------===//
// Blob encoding
//===----------------------------------------------------------------------===//

constexpr unsigned char kBlobMagic[8] = {'A', 'M', 'P', 'L', 'S', 'C', 'L', 0};
constexpr size_t kBlobHeaderSize = blob::kHeaderSize;
constexpr size_t kBlobConfigSize = 10 * 4;
constexpr size_t kBlobStateSize = 4 * 4 + 3 * 8;
constexpr size_t kBlobChecksumOffset =
    kBlobHeaderSize + kBlobConfigSize + kBlobStateSize;
constexpr size_t kBlobSize = kBlobChecksumOffset + blob::kChecksumSize;

const char *const kPytorchPreset = "pytorch";

} // namespace

//===----------------------------------------------------------------------===//
// Shared helpers (LossScalerState.h)
//===----------------------------------------------------------------------===//

bool amp::rt::validateLossScalerConfig(const char *call,
                                       const AmpLossScalerConfig &config) {
  return checkConfig(call, "", config);
}

bool amp::rt::resolveLossScalerConfig(const char *call,
                                      const AmpLossScalerConfig *cfg,
                                      AmpLossScalerConfig &config) {
  config = cfg ? *cfg : findPreset(kPytorchPreset)->config;
  return checkConfig(call, "", config);
}

size_t amp::rt::lossScalerBlobSize() { return kBlobSize; }

size_t amp::rt::saveLossScalerBlob(const AmpLossScalerConfig &c,
                                   const LossScalerState &s, void *buffer,
                                   size_t capacity) {
  if (!buffer || capacity < kBlobSize)
    return kBlobSize;
  unsigned char bytes[kBlobSize];
  Writer w(bytes);
  w.header(kBlobMagic, kLossScalerBlobVersion, kBlobSize);
  w.f32(c.init_scale);
  w.f32(c.growth_factor);
  w.f32(c.backoff_factor);
  w.i32(c.growth_interval);
  w.i32(c.backoff_interval);
  w.i32(c.hysteresis);
  w.i32(c.consecutive_hysteresis);
  w.f32(c.min_scale);
  w.f32(c.max_scale);
  w.i32(c.dynamic);
  w.f32(s.scale);
  w.i32(s.goodSteps);
  w.i32(s.badSteps);
  w.i32(s.hysteresis);
  w.i64(s.steps);
  w.i64(s.skippedSteps);
  w.i64(s.overflowsAtMinScale);
  blob::seal(bytes, kBlobSize);
  std::memcpy(buffer, bytes, kBlobSize);
  return kBlobSize;
}

bool amp::rt::loadLossScalerBlob(const char *call, const void *blob,
                                 size_t size, AmpLossScalerConfig &config,
                                 LossScalerState &state) {
  if (!blob::checkFraming(call, blob, size, kBlobMagic, "a loss-scaler state",
                          kLossScalerBlobVersion, kBlobSize))
    return false;
  const auto *bytes = static_cast<const unsigned char *>(blob);
  Reader r(bytes + kBlobHeaderSize);
  AmpLossScalerConfig c;
  c.init_scale = r.f32();
  c.growth_factor = r.f32();
  c.backoff_factor = r.f32();
  c.growth_interval = r.i32();
  c.backoff_interval = r.i32();
  c.hysteresis = r.i32();
  c.consecutive_hysteresis = r.i32();
  c.min_scale = r.f32();
  c.max_scale = r.f32();
  c.dynamic = r.i32();
  LossScalerState s;
  s.scale = r.f32();
  s.goodSteps = r.i32();
  s.badSteps = r.i32();
  s.hysteresis = r.i32();
  s.reserved = 0;
  s.steps = r.i64();
  s.skippedSteps = r.i64();
  s.overflowsAtMinScale = r.i64();
  if (!checkConfig(call, "invalid config in blob: ", c))
    return false;
  if (!checkState(call, c, s))
    return false;
  s.invScale = reciprocalScale(s.scale);
  config = c;
  state = s;
  return true;
}

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

extern "C" {

int ampLossScalerConfigPreset(const char *name, AmpLossScalerConfig *out) {
  const char *call = "ampLossScalerConfigPreset";
  if (!name)
    return setError(call, "name is NULL"), 1;
  if (!out)
    return setError(call, "out is NULL"), 1;
  const Preset *preset = findPreset(name);
  if (!preset) {
    setError(call, "unknown preset \"%s\"; known presets:", name);
    for (const Preset &p : kPresets)
      appendError(" %s", p.name);
    for (const PresetAlias &alias : kPresetAliases)
      appendError(" %s", alias.alias);
    return 1;
  }
  *out = preset->config;
  return 0;
}

int ampLossScalerConfigValidate(const AmpLossScalerConfig *cfg) {
  const char *call = "ampLossScalerConfigValidate";
  if (!cfg)
    return setError(call, "config is NULL"), 1;
  return checkConfig(call, "", *cfg) ? 0 : 1;
}

AmpLossScaler *ampLossScalerCreate(const AmpLossScalerConfig *cfg) {
  const char *call = "ampLossScalerCreate";
  AmpLossScalerConfig config;
  if (!resolveLossScalerConfig(call, cfg, config))
    return nullptr;
  auto *scaler = new (std::nothrow) AmpLossScaler;
  if (!scaler) {
    setError(call, "out of memory");
    return nullptr;
  }
  scaler->config = config;
  scaler->state = initialLossScalerState(config);
  return scaler;
}

void ampLossScalerDestroy(AmpLossScaler *scaler) { delete scaler; }

float ampLossScalerGetScale(const AmpLossScaler *scaler) {
  if (!scaler) {
    setError("ampLossScalerGetScale", "scaler is NULL");
    return NAN;
  }
  return scaler->state.scale;
}

float ampLossScalerGetInvScale(const AmpLossScaler *scaler) {
  if (!scaler) {
    setError("ampLossScalerGetInvScale", "scaler is NULL");
    return NAN;
  }
  return scaler->state.invScale;
}

int ampLossScalerGetConfig(const AmpLossScaler *scaler,
                           AmpLossScalerConfig *out) {
  const char *call = "ampLossScalerGetConfig";
  if (!scaler)
    return setError(call, "scaler is NULL"), 1;
  if (!out)
    return setError(call, "out is NULL"), 1;
  *out = scaler->config;
  return 0;
}

int ampLossScalerGetStats(const AmpLossScaler *scaler,
                          AmpLossScalerStats *out) {
  const char *call = "ampLossScalerGetStats";
  if (!scaler)
    return setError(call, "scaler is NULL"), 1;
  if (!out)
    return setError(call, "out is NULL"), 1;
  const LossScalerState &s = scaler->state;
  out->scale = s.scale;
  out->good_steps = s.goodSteps;
  out->bad_steps = s.badSteps;
  out->hysteresis = s.hysteresis;
  out->steps = s.steps;
  out->skipped_steps = s.skippedSteps;
  out->overflows_at_min_scale = s.overflowsAtMinScale;
  return 0;
}

int ampLossScalerUpdate(AmpLossScaler *scaler, int found_inf) {
  if (!scaler) {
    setError("ampLossScalerUpdate", "scaler is NULL");
    return -1;
  }
  return updateLossScalerState(scaler->state, scaler->config, found_inf != 0)
             ? 1
             : 0;
}

size_t ampLossScalerSaveState(const AmpLossScaler *scaler, void *buffer,
                              size_t capacity) {
  if (!scaler) {
    setError("ampLossScalerSaveState", "scaler is NULL");
    return 0;
  }
  return saveLossScalerBlob(scaler->config, scaler->state, buffer, capacity);
}

int ampLossScalerLoadState(AmpLossScaler *scaler, const void *blob,
                           size_t size) {
  const char *call = "ampLossScalerLoadState";
  if (!scaler)
    return setError(call, "scaler is NULL"), 1;
  return loadLossScalerBlob(call, blob, size, scaler->config, scaler->state)
             ? 0
             : 1;
}

int ampLossScalerSetGrowthTracker(AmpLossScaler *scaler, int32_t good_steps) {
  const char *call = "ampLossScalerSetGrowthTracker";
  if (!scaler)
    return setError(call, "scaler is NULL"), 1;
  if (good_steps < 0 || good_steps >= scaler->config.growth_interval)
    return setError(call, "good_steps %d is outside [0, growth_interval %d)",
                    static_cast<int>(good_steps),
                    static_cast<int>(scaler->config.growth_interval)),
           1;
  scaler->state.goodSteps = good_steps;
  return 0;
}

} // extern "C"
