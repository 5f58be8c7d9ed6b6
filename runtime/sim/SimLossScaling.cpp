//===- SimLossScaling.cpp - the loss scaler's kernels in the simulator ----===//
//
// Part of amp-mlir. The device operations of the GPU loss scaler, tensor
// tables and optimizers (lib/GpuLossScalingDevice.h) in the GPU simulator,
// so that the same entry points as libamp_runtime.so's (ampGpuLossScaler*,
// ampGpuTensorTable*, ampGpuCheckFiniteAndUnscale*, ampGpuOptimizer*: the
// host half in lib/GpuLossScaling.cpp, shared with the CUDA runtime) run
// on the CPU with the GPU's kernels:
//
//  * each kernel of cuda/LossScaling.cu is here an AmpSimKernel that calls
//    the same body (cuda/LossScalingKernels.h, compiled for the host, this
//    file with -ffp-contract=off), launched over the grid the host half
//    chose by the simulator's launcher, which counts its launches and
//    threads in AmpSimStats like those of every simulated kernel;
//  * device memory is the simulator's tracked memory: the scaler's block,
//    the work lists and the optimizer tables are device allocations (the
//    handles' Destroy frees them); a table or optimizer whose tensors are
//    not inside live device allocations is refused when it is created, and
//    every access of the kernels is checked (an out-of-bounds or misaligned
//    one fails the call with the kernel, block and thread named);
//  * uploads, downloads and BeginStep's store count as copies, and
//    downloads (GetStats, SaveState, GetStep) as synchronizations: a
//    training step that synchronises shows in the counters, as on a GPU.
//
// Errors are returned with "<entry point>: <reason>" as the last error,
// never raised (the CUDA backend's rule), except by the library calls of
// compiled code, whose entry points raise them.
//
//===----------------------------------------------------------------------===//

#include "../cuda/LossScalingKernels.h"
#include "../lib/GpuLossScalingDevice.h"
#include "../lib/Internal.h"
#include "SimState.h"

#include "amp/runtime/MgpuAbi.h"

#include <algorithm>
#include <cstring>
#include <string>

using namespace amp;
using namespace amp::rt;
using namespace amp::rt::gpuls;
using namespace amp::sim;

namespace {

/// The simulated device's streaming multiprocessors: they only size the
/// buffer kernels' grids (at most kBufferBlocksPerSm each; the kernels
/// stride over the rest), and a small device keeps the simulated threads
/// few.
constexpr int kMultiprocessors = 4;

/// Kernel argument `index` of a cuLaunchKernel parameter array.
template <typename T> T param(void **params, int index) {
  T value;
  std::memcpy(&value, params[index], sizeof(T));
  return value;
}

// The kernels of cuda/LossScaling.cu, with the same parameters, as
// AmpSimKernel functions.

void updateKernel(void **p) {
  kernel::updateScaler(param<ScalerBlock *>(p, 0));
}

template <typename Op> void checkKernel(void **p) {
  kernel::checkUnscale<Op>(param<const CheckItem *>(p, 0), param<int64_t>(p, 1),
                           param<const float *>(p, 2), param<float *>(p, 3));
}

template <typename Op> void bufferKernel(void **p) {
  kernel::unscaleBuffer<Op>(param<const void *>(p, 0), param<void *>(p, 1),
                            param<int64_t>(p, 2), param<const float *>(p, 3),
                            param<uint8_t *>(p, 4));
}

void tableKernel(void **p) {
  // Passed by value: the parameter array points at the host's copy.
  kernel::unscaleBuffers(*static_cast<const BufferTable *>(p[0]));
}

template <int Kind> void optimizerKernel(void **p) {
  const AmpOptimizerConfig config = param<AmpOptimizerConfig>(p, 6);
  kernel::optimizerStep<Kind>(
      param<const OptTensor *>(p, 0), param<const OptItem *>(p, 1),
      param<int64_t>(p, 2), param<const OptStepRecord *>(p, 3),
      param<const float *>(p, 4), param<const float *>(p, 5), config);
}

void commitKernel(void **p) {
  kernel::commitStep(param<OptStepRecord *>(p, 0), param<const float *>(p, 1),
                     param<const float *>(p, 2), param<double>(p, 3),
                     param<double>(p, 4));
}

void matrixPassKernel(void **p) {
  // Passed by value: the parameter array points at the host's copy.
  kernel::matrixPass(*static_cast<const MatrixPass *>(p[0]));
}

void optimizerTableKernel(void **p) {
  // Passed by value: the parameter array points at the host's copy.
  kernel::optimizerUpdateTable(*static_cast<const OptBufferTable *>(p[0]));
}

struct SimKernel {
  const char *name; // LossScalingAbi.h's
  AmpSimKernel function;
  /// AMP_SIM_KERNEL_SYNCHRONIZES for the kernels with a barrier
  /// (__syncthreads_or): their threads run as fibers.
  int32_t flags;
};

constexpr int32_t kSync = AMP_SIM_KERNEL_SYNCHRONIZES;
// The multi-tensor kernels: their blocks take chunks of tensors of
// different sizes (a tensor's last chunk, a table entry's share of a
// large tensor), which count-only mode must not take as block 1's.
constexpr int32_t kUneven = AMP_SIM_KERNEL_UNEVEN;

const SimKernel kKernels[kNumKernels] = {
    {kUpdateKernel, updateKernel, 0},
    {kCheckKernelF32, checkKernel<kernel::UnscaleF32>, kSync | kUneven},
    {kCheckKernelF16, checkKernel<kernel::UnscaleF16>, kSync | kUneven},
    {kCheckKernelBF16, checkKernel<kernel::UnscaleBF16>, kSync | kUneven},
    {kBufferKernelF32, bufferKernel<kernel::UnscaleF32>, kSync},
    {kBufferKernelF16, bufferKernel<kernel::UnscaleF16>, kSync},
    {kBufferKernelBF16, bufferKernel<kernel::UnscaleBF16>, kSync},
    {kBufferTableKernel, tableKernel, kSync | kUneven},
    {kOptKernelSgd, optimizerKernel<AMP_OPTIMIZER_SGD>, kUneven},
    {kOptKernelMomentum, optimizerKernel<AMP_OPTIMIZER_MOMENTUM>, kUneven},
    {kOptKernelAdam, optimizerKernel<AMP_OPTIMIZER_ADAM>, kUneven},
    {kOptKernelAdamW, optimizerKernel<AMP_OPTIMIZER_ADAMW>, kUneven},
    {kOptCommitKernel, commitKernel, 0},
    {kMatrixPassKernel, matrixPassKernel, 0},
    {kOptBufferTableKernel, optimizerTableKernel, kUneven},
};

void *hostPointer(DevicePtr ptr) { return reinterpret_cast<void *>(ptr); }

} // namespace

/// __syncthreads_or: the block's threads are fibers of the launching thread
/// that switch only at barriers, so one variable of that thread serves as
/// the block's shared flag. Every live thread clears it between the first
/// two barriers (after every thread has read the previous result), sets it
/// between the last two, and reads it after the last.
int kernel::simSyncthreadsOr(int predicate) {
  thread_local int any = 0;
  ampSimBarrier();
  any = 0;
  ampSimBarrier();
  if (predicate)
    any = 1;
  ampSimBarrier();
  return any;
}

//===----------------------------------------------------------------------===//
// GpuLossScalingDevice.h in the simulator
//===----------------------------------------------------------------------===//

bool device::ready(const char *) { return true; }

int device::multiprocessors() { return kMultiprocessors; }

bool device::allocate(const char *call, size_t bytes, DevicePtr *out) {
  void *pointer = tryAllocate(call, bytes, /*persistent=*/false);
  if (!pointer)
    return false;
  *out = reinterpret_cast<DevicePtr>(pointer);
  return true;
}

void device::release(const char *call, DevicePtr ptr) {
  if (!ptr)
    return;
  // mgpuMemFree would report a pointer that is no longer a live allocation
  // (freed by the caller through a handle's scale or found_inf pointer, the
  // start of its block) to the error handler: set the error instead.
  uintptr_t base;
  uint64_t size;
  if (!findAllocation(ptr, 0, &base, &size) || base != ptr) {
    setError(call,
             "the handle's device memory at %p is no longer a live device "
             "allocation (was a pointer of the handle passed to mgpuMemFree?)",
             hostPointer(ptr));
    return;
  }
  mgpuMemFree(hostPointer(ptr), nullptr);
}

bool device::upload(const char *call, DevicePtr dst, const void *src,
                    size_t bytes) {
  if (!checkNotCapturing(call, "a copy from host memory"))
    return false;
  count(&AmpSimStats::copies);
  if (!checkDeviceRange(call, "destination", hostPointer(dst), bytes))
    return false;
  std::memcpy(hostPointer(dst), src, bytes);
  return true;
}

bool device::download(const char *call, void *dst, DevicePtr src,
                      size_t bytes) {
  if (!checkNotCapturing(call, "a host wait and copy to host memory"))
    return false;
  count(&AmpSimStats::synchronizations);
  count(&AmpSimStats::copies);
  if (!checkDeviceRange(call, "source", hostPointer(src), bytes))
    return false;
  std::memcpy(dst, hostPointer(src), bytes);
  return true;
}

bool device::zero32(const char *call, DevicePtr dst) {
  count(&AmpSimStats::copies);
  if (!checkDeviceRange(call, "destination", hostPointer(dst), 4))
    return false;
  std::memset(hostPointer(dst), 0, 4);
  return true;
}

bool device::launch(const char *call, KernelId id, int64_t gridBlocks,
                    unsigned blockThreads, void **params) {
  const SimKernel &k = kKernels[id];
  const std::string name = std::string("loss_scaling::") + k.name;
  // The library calls that launch these are recorded whole in a capture
  // (SimLibraries.cpp); only the loss scaler's own API gets here.
  if (!checkNotCapturing(call, "the device loss scaler's API runs outside "
                               "compiled code's stream work"))
    return false;
  if (launchKernel(name.c_str(), k.function,
                   std::min<int64_t>(gridBlocks, kMaxGridBlocks), 1, 1,
                   blockThreads, 1, 1, 0, params, k.flags))
    return true;
  // "gpu-sim: kernel '...', block (...), thread (...): ..." under the
  // entry point's name.
  std::string why = ampLastError();
  return setError(call, "%s", why.c_str());
}

bool device::checkRange(const char *call, const char *what, const void *pointer,
                        uint64_t bytes) {
  return checkDeviceRange(call, what, pointer, bytes);
}
