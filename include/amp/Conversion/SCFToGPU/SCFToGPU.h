//===- SCFToGPU.h - parallel loops to GPU kernels ---------------*- C++ -*-===//
//
// Part of amp-mlir. amp-map-loops-to-gpu: scf.parallel loops (tiled,
// vectorised, reductions) as gpu.launch.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_SCFTOGPU_SCFTOGPU_H
#define AMP_CONVERSION_SCFTOGPU_SCFTOGPU_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace amp {

#define GEN_PASS_DECL_AMPMAPLOOPSTOGPUPASS
#include "amp/Conversion/Passes.h.inc"

} // namespace amp
} // namespace mlir

#endif // AMP_CONVERSION_SCFTOGPU_SCFTOGPU_H
