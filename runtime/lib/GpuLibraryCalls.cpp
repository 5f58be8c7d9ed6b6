//===- GpuLibraryCalls.cpp - the GPU library calls on CUDA ----------------===//
//
// Part of amp-mlir. Every GPU entry point of LibraryCalls.def on its CUDA
// backend (amp::rt::cuda::<STEM>: Cublas.cpp, Cudnn.cpp, CudnnBackward.cpp,
// GpuLossScaling.cpp, GpuCollectives.cpp, MgpuAbi.cpp), after the shared
// argument checks.
//
//===----------------------------------------------------------------------===//

#include "LibraryCallEntries.h"

#define AMP_LIBRARY_CALL(STEM, GPU_NAME, CPU_NAME, RESULT, PARAMS)             \
  AMP_LIBRARY_CALL_ENTRY(GPU_NAME, STEM, RESULT, PARAMS, /*onGpu=*/true,       \
                         ::amp::rt::cuda::STEM)
#include "amp/runtime/LibraryCalls.def"
