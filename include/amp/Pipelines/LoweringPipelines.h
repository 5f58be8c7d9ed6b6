//===- LoweringPipelines.h - --lower-to-cpu / --lower-to-gpu ----*- C++ -*-===//
//
// Part of amp-mlir. Lowering of tensor programs in f32/f16/bf16 (the output of
// --amp-o1/--amp-o2, or any such module of linalg, tosa, tensor, arith and
// math ops) to the LLVM dialect: for the host CPU, or for NVIDIA GPUs through
// the gpu/nvvm dialects with matmuls and convolutions as cuBLAS/cuDNN calls
// into libamp_runtime.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_PIPELINES_LOWERINGPIPELINES_H
#define AMP_PIPELINES_LOWERINGPIPELINES_H

#include "amp/Pipelines/LoweringOptions.h"

#include "mlir/Pass/PassManager.h"

namespace mlir {
namespace amp {

/// Adds the passes of --lower-to-cpu: TOSA to linalg, decomposition of
/// aggregate ops (softmax), elementwise fusion, bufferization, matmuls as
/// CPU library calls (when `libraries`), loops, LLVM.
void buildLowerToCpuPipeline(OpPassManager &pm,
                             const CpuLoweringOptions &options);

/// Adds the passes of --lower-to-gpu: TOSA to linalg, library calls for
/// matmuls and convolutions (when `libraries`), fused elementwise kernels,
/// device temporaries, gpu/nvvm lowering and `gpu.binary` creation (with
/// `simulate`, host functions for the GPU simulator instead). `options`
/// are verified (verifyGpuLoweringOptions).
void buildLowerToGpuPipeline(OpPassManager &pm,
                             const GpuLoweringOptions &options);

/// Registers --lower-to-cpu and --lower-to-gpu.
void registerLoweringPipelines();

} // namespace amp
} // namespace mlir

#endif // AMP_PIPELINES_LOWERINGPIPELINES_H
