//===- GpuLossScalingDevice.h - the loss scaler's device backends -*- C++
//-*-===//
//
// Part of amp-mlir. The host half of the GPU loss scaler, tensor tables and
// optimizers (GpuLossScaling.cpp: handles, argument checks, work lists,
// launch shapes), and the FP8 GEMM's passes around its matmul
// (GpuScaledGemm.cpp), are written once against the few device operations
// below. Each library that contains them defines them once:
//
//  * libamp_runtime.so, on the CUDA driver API (GpuLossScalingCuda.cpp):
//    the kernels of the embedded fatbin, on the shared stream;
//  * libamp_runtime_gpusim.so, in the GPU simulator (sim/SimLossScaling.cpp):
//    the same kernels' bodies (cuda/LossScalingKernels.h) compiled for the
//    host and run by ampSimLaunchKernel, on its tracked device memory.
//
// Every function returns false (or nothing) with "<call>: <reason>" as the
// last error on failure and never calls the error handler: the entry points
// decide whether to raise.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_LIB_GPULOSSSCALINGDEVICE_H
#define AMP_RUNTIME_LIB_GPULOSSSCALINGDEVICE_H

#include "Internal.h"
#include "ScaledGemmPlan.h"

#include <cstddef>
#include <cstdint>
#include <functional>

namespace amp {
namespace rt {
namespace gpuls {

/// The kernels of cuda/LossScaling.cu (names: LossScalingAbi.h).
enum KernelId {
  kUpdate,
  kCheckF32,
  kCheckF16,
  kCheckBF16,
  kBufferF32,
  kBufferF16,
  kBufferBF16,
  kBufferTable,
  kSgd,
  kMomentum,
  kAdam,
  kAdamW,
  kCommit,
  kMatrixPass,
  kOptTable,
  kNumKernels
};

/// A device address.
using DevicePtr = uint64_t;

namespace device {

/// The device is initialised and the kernels are loaded (once per process).
bool ready(const char *call);
/// Streaming multiprocessors (to size the buffer kernels' grids); 0 if
/// unknown. Valid once ready() succeeded.
int multiprocessors();
/// `bytes` of device memory (released with release()).
bool allocate(const char *call, size_t bytes, DevicePtr *out);
void release(const char *call, DevicePtr ptr);
/// Host to device, ordered after the work already queued (the source may be
/// pageable memory: it has been consumed when this returns).
bool upload(const char *call, DevicePtr dst, const void *src, size_t bytes);
/// Waits for the queued work, then copies device to host.
bool download(const char *call, void *dst, DevicePtr src, size_t bytes);
/// Queues a store of 32 zero bits at `dst`.
bool zero32(const char *call, DevicePtr dst);
/// Queues kernel `id` on a grid of min(`gridBlocks`, kMaxGridBlocks) blocks
/// of `blockThreads` threads; `params` as for cuLaunchKernel.
bool launch(const char *call, KernelId id, int64_t gridBlocks,
            unsigned blockThreads, void **params);
/// Whether [pointer, pointer + bytes) is device memory. The simulator checks
/// it against its live allocations (a GPU would fault, later and
/// asynchronously); the CUDA backend has nothing to check it against and
/// accepts it. `what` names the range in the message.
bool checkRange(const char *call, const char *what, const void *pointer,
                uint64_t bytes);

} // namespace device

/// ampGpuCheckFiniteAndUnscaleBuffer(s) with checked arguments (numel > 0,
/// resp. the table's non-empty entries): the launches. Shared by the CUDA
/// backend (cuda::UnscaleBuffer(s)) and the simulator's (sim::...).
bool unscaleBuffer(const char *call, const UnscaleBufferArgs &args);
bool unscaleBuffers(const char *call, const UnscaleBuffersArgs &args);

/// ampGpuOptimizerUpdateBuffers with checked arguments: one launch per
/// kOptBufferTableEntries non-empty entries. Shared by the CUDA backend
/// (cuda::OptimizerUpdate) and the simulator's (sim::OptimizerUpdate).
bool optimizerUpdateBuffers(const char *call, const OptimizerUpdateArgs &args);

/// The device of an FP8 GEMM's output: cuBLASLt's C/D matrices (batch
/// row-major m x n of `type`, leading dimension `ld`, batch stride `stride`,
/// in elements).
struct ScaledGemmOutput {
  void *pointer;
  int32_t type;
  int64_t ld, stride;
};

/// ampGpuScaledGemm with checked arguments, as planScaledGemm
/// (ScaledGemmPlan.h) decides for `args`: its cuBLASLt description checked
/// against cuBLASLt's rules (getCublasLtFloat8Refusal), then the passes of
/// the runtime's kernel before and after `matmul(description, output)`,
/// which computes D = aScale bScale op(A) op(B) + beta C into `output` (C
/// itself, or the f32 scratch at `scratch`, of scaledGemmScratchBytes(args)
/// bytes, when the plan has one) with the scale and amax pointers the
/// description sets. Shared by the CUDA backend (cuda::ScaledGemm,
/// cuBLASLt) and the simulator's (sim::ScaledGemm, the CPU reference).
using ScaledGemmMatmul = std::function<bool(
    const CublasLtFloat8Matmul &description, const ScaledGemmOutput &output)>;
bool runScaledGemm(const char *call, const ScaledGemmArgs &args,
                   DevicePtr scratch, const ScaledGemmMatmul &matmul);
/// The bytes of the f32 scratch matrix of planScaledGemm(args) (0 if none).
size_t scaledGemmScratchBytes(const ScaledGemmArgs &args);

/// dst[i] = (f32) src[i] for `count` elements of srcType (f16, bf16 or
/// f32), exactly, by the matrix-pass kernel: the widening of a convolution's
/// 16-bit operands for an f32 output (lib/Cudnn.cpp), queued on the shared
/// stream.
bool widenToF32(const char *call, DevicePtr src, int32_t srcType, DevicePtr dst,
                int64_t count);

} // namespace gpuls
} // namespace rt
} // namespace amp

#endif // AMP_RUNTIME_LIB_GPULOSSSCALINGDEVICE_H
