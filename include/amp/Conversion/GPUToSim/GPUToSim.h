//===- GPUToSim.h - NVVM kernels to the simulator ---------------*- C++ -*-===//
//
// Part of amp-mlir. amp-gpu-to-sim: NVVM kernels as host functions
// that the GPU simulator launches.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_GPUTOSIM_GPUTOSIM_H
#define AMP_CONVERSION_GPUTOSIM_GPUTOSIM_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace amp {

#define GEN_PASS_DECL_AMPGPUTOSIMPASS
#include "amp/Conversion/Passes.h.inc"

} // namespace amp
} // namespace mlir

#endif // AMP_CONVERSION_GPUTOSIM_GPUTOSIM_H
