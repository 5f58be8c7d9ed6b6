//===- OptimizerState.h - optimizer validation and checkpoints --*- C++ -*-===//
//
// Part of amp-mlir. What the CPU optimizers (Optimizers.cpp) share with the
// GPU ones (GpuLossScaling.cpp): configuration and parameter validation, so
// that both accept the same inputs, and the checkpoint blob, so that a blob
// saved by one loads into the other. Host only.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_LIB_OPTIMIZERSTATE_H
#define AMP_RUNTIME_LIB_OPTIMIZERSTATE_H

#include "amp/runtime/AmpLossScaling.h"

#include <cstddef>
#include <cstdint>

namespace amp {
namespace rt {

/// Checks `cfg` for ampOptimizerCreate / ampGpuOptimizerCreate (and the
/// configuration in a checkpoint). Only the fields the kind uses are checked
/// (SGD: lr, weight_decay; Momentum: also momentum, dampening, nesterov;
/// Adam/AdamW: also beta1, beta2, eps). On failure sets
/// "<call>: <prefix><field> ..." and returns false.
bool validateOptimizerConfig(const char *call, const AmpOptimizerConfig &cfg,
                             const char *prefix = "");
/// Checks the parameters of one optimizer step under `cfg`: sizes, types,
/// the pointers the kind needs, inv_scale, and that the buffers of one
/// parameter do not overlap. On failure sets "<call>: ..." and returns false.
bool validateOptimizerParams(const char *call, const AmpOptimizerConfig &cfg,
                             const AmpOptimizerParam *params, int64_t count,
                             float invScale);

/// "SGD", "Momentum", "Adam", "AdamW" or "<invalid kind>".
const char *optimizerKindName(int32_t kind);

/// An optimizer's own state besides its configuration: the applied steps t
/// and the Adam bias-correction powers beta1^t, beta2^t (1 for SGD and
/// Momentum, which never advance them).
struct OptimizerStepState {
  int64_t t;
  double beta1Pow;
  double beta2Pow;
};

/// The checkpoint blob: "AMPOPTM\0", version, size, config, step state,
/// FNV-1a checksum (layout in Optimizers.cpp).
constexpr uint32_t kOptimizerBlobVersion = 1;
size_t optimizerBlobSize();
/// Returns the blob size; writes the blob only if `buffer` is not NULL and
/// `capacity` is at least that size.
size_t saveOptimizerBlob(const AmpOptimizerConfig &config,
                         const OptimizerStepState &state, void *buffer,
                         size_t capacity);
/// Validates and decodes a blob for an optimizer of `kind`: framing and
/// checksum, the same kind, a valid configuration and a consistent step
/// state. On failure sets "<call>: <reason>" and returns false, leaving the
/// outputs unchanged.
bool loadOptimizerBlob(const char *call, const void *blob, size_t size,
                       int32_t kind, AmpOptimizerConfig &config,
                       OptimizerStepState &state);

} // namespace rt
} // namespace amp

#endif // AMP_RUNTIME_LIB_OPTIMIZERSTATE_H
