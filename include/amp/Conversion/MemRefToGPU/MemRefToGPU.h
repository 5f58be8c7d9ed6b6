//===- MemRefToGPU.h - buffers on the device --------------------*- C++ -*-===//
//
// Part of amp-mlir. amp-memref-to-gpu: the buffers of a bufferized module as
// device allocations.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_MEMREFTOGPU_MEMREFTOGPU_H
#define AMP_CONVERSION_MEMREFTOGPU_MEMREFTOGPU_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace amp {

#define GEN_PASS_DECL_AMPMEMREFTOGPUPASS
#include "amp/Conversion/Passes.h.inc"

} // namespace amp
} // namespace mlir

#endif // AMP_CONVERSION_MEMREFTOGPU_MEMREFTOGPU_H
