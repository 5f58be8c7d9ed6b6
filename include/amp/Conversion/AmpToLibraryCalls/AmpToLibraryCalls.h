//===- AmpToLibraryCalls.h - amp buffer ops to runtime calls ----*- C++ -*-===//
//
// Part of amp-mlir. amp-collectives-to-library-calls: the buffer form of the
// collectives (amp.all_reduce_in_place) as calls of libamp_runtime's library
// calls (ampAllReduce, or ampGpuAllReduce on device buffers).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_AMPTOLIBRARYCALLS_AMPTOLIBRARYCALLS_H
#define AMP_CONVERSION_AMPTOLIBRARYCALLS_AMPTOLIBRARYCALLS_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;

namespace amp {

#define GEN_PASS_DECL_AMPCOLLECTIVESTOLIBRARYCALLSPASS
#include "amp/Conversion/Passes.h.inc"

/// Patterns rewriting amp.all_reduce_in_place into a call of the runtime's
/// ampAllReduce(pointer, count, dtype, kind) on host buffers, or with
/// `device` of its device twin ampGpuAllReduce (stream-ordered), declared
/// from the runtime's table (RuntimeCalls.h).
void populateAmpCollectivesToLibraryCallsPatterns(RewritePatternSet &patterns,
                                                  bool device);

} // namespace amp
} // namespace mlir

#endif // AMP_CONVERSION_AMPTOLIBRARYCALLS_AMPTOLIBRARYCALLS_H
