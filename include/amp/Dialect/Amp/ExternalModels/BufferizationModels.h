//===- BufferizationModels.h - bufferization of the amp ops -----*- C++ -*-===//
//
// Part of amp-mlir. BufferizableOpInterface models of the amp ops that
// survive to bufferization (amp.all_reduce, amp.unscale_gradients): the
// other amp ops are lowered to tensor code before it
// (amp-loss-scaling-to-linalg) or are markers.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_EXTERNALMODELS_BUFFERIZATIONMODELS_H
#define AMP_DIALECT_AMP_EXTERNALMODELS_BUFFERIZATIONMODELS_H

namespace mlir {
class DialectRegistry;

namespace amp {

/// amp.all_reduce bufferizes to a new buffer, a copy of its operand, that
/// amp.all_reduce_in_place reduces (the conversion
/// amp-to-library-calls makes that the runtime's `ampAllReduce`,
/// or its device twin `ampGpuAllReduce`). amp.unscale_gradients bufferizes
/// to its buffer form, in destination-passing style.
void registerBufferizationModels(DialectRegistry &registry);

} // namespace amp
} // namespace mlir

#endif // AMP_DIALECT_AMP_EXTERNALMODELS_BUFFERIZATIONMODELS_H
