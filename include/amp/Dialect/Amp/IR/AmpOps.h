//===- AmpOps.h - amp dialect operations ------------------------*- C++ -*-===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_AMPOPS_H
#define AMP_DIALECT_AMP_IR_AMPOPS_H

#include "amp/Dialect/Amp/IR/AmpAttributes.h"
#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/IR/AmpInterfaces.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace amp {
/// The side-effect resource of the collectives (amp.all_reduce): the process
/// group's communication, which every collective reads and writes.
struct CollectiveResource
    : public SideEffects::Resource::Base<CollectiveResource> {
  StringRef getName() final { return "amp::Collective"; }
};

/// The sizes of a 4-D operand of amp.conv2d_backward_data/filter in the
/// order n (f), c, h (kh), w (kw): its shape, or with `channelsLast` its
/// NHWC (FHWC) shape reordered.
SmallVector<int64_t, 4> getConvolutionGradientSizes(ArrayRef<int64_t> shape,
                                                    bool channelsLast);
} // namespace amp
} // namespace mlir

#define GET_OP_CLASSES
#include "amp/Dialect/Amp/IR/AmpOps.h.inc"

#endif // AMP_DIALECT_AMP_IR_AMPOPS_H
