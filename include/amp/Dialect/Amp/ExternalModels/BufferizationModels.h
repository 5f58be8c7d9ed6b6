//===- BufferizationModels.h - bufferization of the amp ops -----*- C++ -*-===//
//
// Part of amp-mlir. BufferizableOpInterface models of the amp ops that
// survive to bufferization (amp.all_reduce): the other amp ops are lowered
// to tensor code before it (amp-lower-loss-scaling) or are markers.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_EXTERNALMODELS_BUFFERIZATIONMODELS_H
#define AMP_DIALECT_AMP_EXTERNALMODELS_BUFFERIZATIONMODELS_H

#include "llvm/ADT/StringRef.h"

namespace mlir {
class DialectRegistry;

namespace amp {

/// The runtime function that reduces a host buffer in place:
/// `void ampAllReduce(void *data, int64_t count, int32_t dtype,
/// int32_t kind)` (runtime/include/amp/runtime/AmpCollectives.h).
inline constexpr llvm::StringLiteral kAllReduceFunctionName = "ampAllReduce";

/// amp.all_reduce bufferizes to a new buffer, a copy of its operand, that
/// `ampAllReduce` reduces in place (an `llvm.call`, so that no C wrapper is
/// requested for it; amp-memref-to-gpu makes it a call of the device twin
/// `ampGpuAllReduce`).
void registerBufferizationModels(DialectRegistry &registry);

} // namespace amp
} // namespace mlir

#endif // AMP_DIALECT_AMP_EXTERNALMODELS_BUFFERIZATIONMODELS_H
