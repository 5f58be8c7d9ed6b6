//===- Passes.h - amp conversion passes -------------------------*- C++ -*-===//
//
// Part of amp-mlir. Every conversion (Passes.td), each declared by the
// header of its folder, and their registration; the lowering transforms
// that are not conversions are in amp/Transforms/Passes.h.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_PASSES_H
#define AMP_CONVERSION_PASSES_H

#include "amp/Conversion/AmpToLibraryCalls/AmpToLibraryCalls.h"
#include "amp/Conversion/AttentionToLinalg/AttentionToLinalg.h"
#include "amp/Conversion/ConvolutionGradientsToLinalg/ConvolutionGradientsToLinalg.h"
#include "amp/Conversion/Float8ScalingToLinalg/Float8ScalingToLinalg.h"
#include "amp/Conversion/Float8ToNVVM/Float8ToNVVM.h"
#include "amp/Conversion/GPUToSim/GPUToSim.h"
#include "amp/Conversion/LinalgToLibraryCalls/LinalgToLibraryCalls.h"
#include "amp/Conversion/LossScalingToLinalg/LossScalingToLinalg.h"
#include "amp/Conversion/MemRefToGPU/MemRefToGPU.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace amp {

#define GEN_PASS_REGISTRATION
#include "amp/Conversion/Passes.h.inc"

} // namespace amp
} // namespace mlir

#endif // AMP_CONVERSION_PASSES_H
