//===- BufferizationModels.h - bufferization of the amp ops -----*- C++ -*-===//
//
// Part of amp-mlir. BufferizableOpInterface models of the amp ops that
// survive to bufferization (amp.all_reduce): the other amp ops are lowered
// to tensor code before it (amp-lower-loss-scaling) or are markers.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_EXTERNALMODELS_BUFFERIZATIONMODELS_H
#define AMP_DIALECT_AMP_EXTERNALMODELS_BUFFERIZATIONMODELS_H

namespace mlir {
class DialectRegistry;

namespace amp {

/// amp.all_reduce bufferizes to a new buffer, a copy of its operand, that
/// `ampAllReduce` reduces in place (the runtime's library call, made through
/// RuntimeCalls.h: an `llvm.call`, so that no C wrapper is requested for it;
/// amp-memref-to-gpu makes it a call of the device twin `ampGpuAllReduce`).
void registerBufferizationModels(DialectRegistry &registry);

} // namespace amp
} // namespace mlir

#endif // AMP_DIALECT_AMP_EXTERNALMODELS_BUFFERIZATIONMODELS_H
