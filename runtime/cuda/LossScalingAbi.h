//===- LossScalingAbi.h - layouts shared by kernels and host ----*- C++ -*-===//
//
// Part of amp-mlir. The device-memory layouts and kernel names shared by the
// loss-scaling / optimizer kernels (LossScaling.cu, compiled by nvcc into an
// embedded fatbin) and their host side (lib/GpuLossScaling.cpp, compiled by
// the C++ compiler, launching through cuLaunchKernel). Plain C++17 with fixed
// width fields only, so both compilers give the same layout (checked by the
// static_asserts below on both sides).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_CUDA_LOSSSCALINGABI_H
#define AMP_RUNTIME_CUDA_LOSSSCALINGABI_H

#include "../lib/LossScalerState.h"

#include <stddef.h>
#include <stdint.h>

namespace amp {
namespace rt {
namespace gpuls {

//===----------------------------------------------------------------------===//
// Kernel names (extern "C" in LossScaling.cu) and their parameters
//===----------------------------------------------------------------------===//

/// <<<1, 1>>>(ScalerBlock *block): the state machine on block->state with
/// block->config and block->foundInf != 0; also rewrites block->state.invScale.
constexpr const char *kUpdateKernel = "amp_ls_update";

/// <<<grid, kCheckBlockSize>>>(const CheckItem *items, int64_t numItems,
/// const float *invScale, float *foundInf), one kernel per element type.
constexpr const char *kCheckKernelF32 = "amp_ls_check_unscale_f32";
constexpr const char *kCheckKernelF16 = "amp_ls_check_unscale_f16";
constexpr const char *kCheckKernelBF16 = "amp_ls_check_unscale_bf16";

/// <<<grid, kBufferBlockSize>>>(const void *in, void *out, int64_t numel,
/// const float *invScale, uint8_t *foundInf), one kernel per element type:
/// out[i] = round(float(in[i]) * *invScale) over one buffer (in == out or
/// disjoint, numel >= 1, both aligned to their elements), grid-stride;
/// foundInf is a byte, set to 1 (never cleared) if a result is not finite or
/// *invScale is not finite and > 0 (then nothing else is written).
constexpr const char *kBufferKernelF32 = "amp_ls_unscale_buffer_f32";
constexpr const char *kBufferKernelF16 = "amp_ls_unscale_buffer_f16";
constexpr const char *kBufferKernelBF16 = "amp_ls_unscale_buffer_bf16";

/// <<<table.firstBlock[table.count], kBufferBlockSize>>>(BufferTable table),
/// passed by value (a kernel parameter, so nothing is uploaded): the buffer
/// kernels' work for every entry of the table in one launch; entry i gets
/// blocks [firstBlock[i], firstBlock[i+1]) and strides over them.
constexpr const char *kBufferTableKernel = "amp_ls_unscale_buffers";

/// <<<grid, kOptBlockSize>>>(const OptTensor *tensors, const OptItem *items,
/// int64_t numItems, const OptStepRecord *record, const float *foundInf,
/// const float *invScale, AmpOptimizerConfig config); foundInf and invScale
/// may be null. Every block returns at once if *foundInf != 0. The kernels
/// use t = record->t + 1 and the powers times beta; they never write record.
constexpr const char *kOptKernelSgd = "amp_opt_sgd";
constexpr const char *kOptKernelMomentum = "amp_opt_momentum";
constexpr const char *kOptKernelAdam = "amp_opt_adam";
constexpr const char *kOptKernelAdamW = "amp_opt_adamw";

/// <<<table.firstBlock[table.count], kOptBlockSize>>>(OptBufferTable table),
/// passed by value: the optimizer update of a compiled training step
/// (ampGpuOptimizerUpdateBuffers) for every entry of the table in one
/// launch; entry i gets blocks [firstBlock[i], firstBlock[i+1]), one chunk of
/// kOptChunkElements elements per block and turn. A skipped step (*skip !=
/// 0) reads no gradient and copies each value to a destination that is not
/// its own buffer; nothing writes *step.
constexpr const char *kOptBufferTableKernel = "amp_opt_update_buffers";

/// <<<1, 1>>>(OptStepRecord *record, const float *foundInf, double beta1,
/// double beta2): commits the step (t += 1, powers *= beta) unless
/// *foundInf != 0. Enqueued after the optimizer kernel; the host passes
/// beta1 = beta2 = 1 for SGD and Momentum, whose powers stay 1 (as on the CPU).
constexpr const char *kOptCommitKernel = "amp_opt_commit";

/// <<<grid, kMatrixPassBlockSize>>>(MatrixPass pass), passed by value: the
/// FP8 GEMM's pass over its output (lib/ScaledGemmPlan.h) on `batch`
/// row-major `rows x cols` matrices: each element of `src` read as f32,
/// converted into `dst` when it is not 0, and with `amax` not 0 the largest
/// |value| (a NaN wins) folded into *amax by an atomic max of the f32's bits
/// without sign, so *amax must hold 0 (or an earlier amax) before.
constexpr const char *kMatrixPassKernel = "amp_f8_matrix_pass";

//===----------------------------------------------------------------------===//
// Device-resident scaler: one allocation, stable addresses
//===----------------------------------------------------------------------===//

struct ScalerBlock {
  LossScalerState state;      // scale / invScale are the public pointers.
  AmpLossScalerConfig config; // Read by the update kernel.
  float foundInf;             // Nonzero: overflow this step.
  int32_t reserved[3];
};

//===----------------------------------------------------------------------===//
// Check finite and unscale: a work list of (tensor, chunk) pieces
//===----------------------------------------------------------------------===//

/// One piece of one tensor: its first element's address and its length
/// (1 <= count <= elements per chunk). Built once per table, so that a block
/// needs a single 16-byte load to find its work.
struct CheckItem {
  uint64_t address;
  int64_t count;
};

constexpr int kCheckBlockSize = 256;
/// Bytes of a full chunk: a multiple of 16, so every chunk of a 16-byte
/// aligned tensor is 16-byte aligned too.
constexpr int64_t kCheckChunkBytes = 64 * 1024;

//===----------------------------------------------------------------------===//
// Check finite and unscale of one buffer (entry point for compiled code)
//===----------------------------------------------------------------------===//

constexpr int kBufferBlockSize = 256;
/// Grid cap of the buffer kernels, per multiprocessor (blocks then loop).
constexpr int64_t kBufferBlocksPerSm = 4;

/// Entries per launch of the table kernel: the parameter struct stays under
/// the 4 KiB kernel-parameter limit of every CUDA version (as PyTorch's
/// multi_tensor_apply, larger tables take one launch per 96 entries).
constexpr int kBufferTableEntries = 96;

struct BufferTable {
  uint64_t in[kBufferTableEntries];
  uint64_t out[kBufferTableEntries];
  int64_t numel[kBufferTableEntries];       // >= 1
  int32_t firstBlock[kBufferTableEntries + 1]; // Prefix sums of the blocks.
  int32_t dtype[kBufferTableEntries];       // AmpDType.
  int32_t count;                            // 1..kBufferTableEntries
  uint64_t invScale; // const float *
  uint64_t foundInf; // uint8_t *
};
static_assert(sizeof(BufferTable) <= 4096,
              "kernel parameters are limited to 4 KiB");
static_assert(sizeof(BufferTable) % 8 == 0, "no tail padding differences");

//===----------------------------------------------------------------------===//
// The FP8 GEMM's output pass
//===----------------------------------------------------------------------===//

struct MatrixPass {
  uint64_t src;  // const void *, srcType elements
  uint64_t dst;  // void *, dstType elements, or 0 (nothing written)
  uint64_t amax; // uint32_t * (an f32's bits), or 0 (no amax)
  int64_t batch, rows, cols;
  int64_t srcLd, srcStride, dstLd, dstStride; // In elements.
  int32_t srcType, dstType;                   // AmpDType: f32, f16, bf16.
};
static_assert(sizeof(MatrixPass) == 88, "MatrixPass layout");

/// Threads of a pass block (a multiple of the warp size: the amax is
/// reduced over each warp before its atomic). Blocks take whole rows.
constexpr int kMatrixPassBlockSize = 256;
/// Grid cap of the pass, per multiprocessor (blocks then loop over rows).
constexpr int64_t kMatrixPassBlocksPerSm = 4;

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

/// Sentinel `lowpType` of a parameter without a low-precision copy.
constexpr int32_t kNoLowp = -1;

/// One parameter (device addresses; 0 where unused).
struct OptTensor {
  uint64_t master;
  uint64_t lowp;
  uint64_t grad;
  uint64_t state0;
  uint64_t state1;
  int64_t numel;
  int32_t lowpType;   // AmpDType or kNoLowp.
  int32_t gradType;   // AmpDType.
  int32_t vectorized; // Every used pointer is aligned for 4-element access.
  int32_t reserved;
};

/// One chunk of one parameter: elements [start, min(start + chunk, numel)).
struct OptItem {
  int64_t tensor;
  int64_t start;
};

/// Elements per optimizer chunk (a multiple of 4, see OptTensor::vectorized).
constexpr int64_t kOptChunkElements = 16 * 1024;
constexpr int kOptBlockSize = 256;

/// The step count and the Adam bias-correction powers beta^t, on the device.
struct OptStepRecord {
  int64_t t;
  double beta1Pow;
  double beta2Pow;
};

/// Entries per launch of amp_opt_update_buffers (the table stays under the
/// 4 KiB kernel-parameter limit, as BufferTable).
constexpr int kOptBufferTableEntries = 48;

/// The optimizer update's table, a kernel parameter: device addresses (0
/// for the state a kind does not use; a destination equal to its value's
/// address updates in place), the settings, and the device step count
/// (int32, updates applied before) and skip flag (one byte).
struct OptBufferTable {
  uint64_t param[kOptBufferTableEntries];    // const float *
  uint64_t paramOut[kOptBufferTableEntries]; // float *
  uint64_t grad[kOptBufferTableEntries];
  uint64_t state0[kOptBufferTableEntries]; // const float *, or 0
  uint64_t state0Out[kOptBufferTableEntries];
  uint64_t state1[kOptBufferTableEntries]; // const float *, or 0
  uint64_t state1Out[kOptBufferTableEntries];
  int64_t numel[kOptBufferTableEntries]; // >= 1
  int32_t firstBlock[kOptBufferTableEntries + 1];
  int32_t gradType[kOptBufferTableEntries]; // AmpDType
  int32_t count;                            // 1..kOptBufferTableEntries
  AmpOptimizerConfig config;
  uint64_t step; // const int32_t *
  uint64_t skip; // const uint8_t *
};
static_assert(sizeof(OptBufferTable) <= 4096,
              "kernel parameters are limited to 4 KiB");
static_assert(sizeof(OptBufferTable) % 8 == 0, "no tail padding differences");

/// The largest grid of the work-list kernels (blocks loop over the items).
constexpr int64_t kMaxGridBlocks = int64_t(1) << 20;

static_assert(sizeof(LossScalerState) == 48, "LossScalerState layout");
static_assert(sizeof(AmpLossScalerConfig) == 40, "AmpLossScalerConfig layout");
static_assert(offsetof(ScalerBlock, config) == 48, "ScalerBlock layout");
static_assert(offsetof(ScalerBlock, foundInf) == 88, "ScalerBlock layout");
static_assert(sizeof(ScalerBlock) == 104, "ScalerBlock layout");
static_assert(sizeof(CheckItem) == 16, "CheckItem layout");
static_assert(sizeof(OptTensor) == 64, "OptTensor layout");
static_assert(sizeof(OptItem) == 16, "OptItem layout");
static_assert(sizeof(OptStepRecord) == 24, "OptStepRecord layout");
static_assert(sizeof(AmpOptimizerConfig) == 36, "AmpOptimizerConfig layout");
static_assert(kCheckChunkBytes % 16 == 0, "chunks keep 16-byte alignment");
static_assert(kOptChunkElements % 4 == 0, "chunks keep vector alignment");

} // namespace gpuls
} // namespace rt
} // namespace amp

#endif // AMP_RUNTIME_CUDA_LOSSSCALINGABI_H
