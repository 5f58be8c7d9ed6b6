//===- AmpToLibraryCalls.h - amp buffer ops to runtime calls ----*- C++ -*-===//
//
// Part of amp-mlir. amp-to-library-calls: the amp ops that are runtime
// calls, on buffers, one family per file: the collectives
// (amp.all_reduce_in_place: ampAllReduce, or ampGpuAllReduce on device
// buffers; CollectivesToLibraryCalls.cpp) and the gradients' unscale
// (amp.unscale_gradients: ampGpuCheckFiniteAndUnscaleBuffers on device
// buffers; UnscaleToLibraryCalls.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_AMPTOLIBRARYCALLS_AMPTOLIBRARYCALLS_H
#define AMP_CONVERSION_AMPTOLIBRARYCALLS_AMPTOLIBRARYCALLS_H

#include "mlir/Pass/Pass.h"

#include <optional>
#include <string>

namespace mlir {
class RewritePatternSet;

namespace amp {
class OptimizerUpdateOp;
class UnscaleGradientsOp;

#define GEN_PASS_DECL_AMPTOLIBRARYCALLSPASS
#include "amp/Conversion/Passes.h.inc"

/// Patterns rewriting amp.all_reduce_in_place into a call of the runtime's
/// ampAllReduce(pointer, count, dtype, kind) on host buffers, or with
/// `device` of its device twin ampGpuAllReduce (stream-ordered), declared
/// from the runtime's table (RuntimeCalls.h).
void populateAmpCollectivesToLibraryCallsPatterns(RewritePatternSet &patterns,
                                                  bool device);

/// Why `op` cannot be one call of ampGpuCheckFiniteAndUnscaleBuffers (on
/// tensors, a strided gradient buffer, an f64 gradient, a host-scalar
/// inverse scale), or std::nullopt when it can.
std::optional<std::string> getUnscaleCallMismatch(UnscaleGradientsOp op);

/// Patterns rewriting each amp.unscale_gradients on device buffers that
/// fits (getUnscaleCallMismatch) into one call of the runtime's
/// multi-tensor unscale, ampGpuCheckFiniteAndUnscaleBuffers.
void populateAmpUnscaleToLibraryCallsPatterns(RewritePatternSet &patterns);

/// Why `op` cannot be one call of ampGpuOptimizerUpdateBuffers (on tensors,
/// a strided buffer), or std::nullopt when it can.
std::optional<std::string> getOptimizerCallMismatch(OptimizerUpdateOp op);

/// Patterns rewriting each amp.optimizer_update on device buffers that fits
/// (getOptimizerCallMismatch) into one call of the runtime's multi-tensor
/// optimizer, ampGpuOptimizerUpdateBuffers.
void populateAmpOptimizerToLibraryCallsPatterns(RewritePatternSet &patterns);

/// The patterns of amp-to-library-calls: the collectives' and, with
/// `device`, the unscale's and the optimizer's.
void populateAmpToLibraryCallsPatterns(RewritePatternSet &patterns,
                                       bool device);

} // namespace amp
} // namespace mlir

#endif // AMP_CONVERSION_AMPTOLIBRARYCALLS_AMPTOLIBRARYCALLS_H
