//===- LossScaling.cu - loss-scaling and master-weight kernels ------------===//
//
// Part of amp-mlir. The device side of the GPU loss scaler and optimizers
// (host side: lib/GpuLossScaling.cpp; layouts: LossScalingAbi.h):
//
//   amp_ls_update                 <<<1,1>>> the scaler state machine
//   amp_ls_check_unscale_{f32,f16,bf16}
//                                 x *= inv_scale in place over a work list of
//                                 (tensor, chunk) pieces, found_inf on any
//                                 non-finite result or an invalid inv_scale
//   amp_ls_unscale_buffer_{f32,f16,bf16}
//                                 out = in * inv_scale over one buffer (in
//                                 place or not), found_inf a byte; the entry
//                                 point for compiled code
//   amp_ls_unscale_buffers        the same for a table of buffers, one launch
//   amp_opt_{sgd,momentum,adam,adamw}
//                                 fp32 master update + low-precision copy
//   amp_opt_commit                <<<1,1>>> advances t and beta^t unless the
//                                 step was skipped
//   amp_f8_matrix_pass            the FP8 GEMM's output pass: the amax of
//                                 its f32 values (cuBLASLt computes it only
//                                 for an FP8 D) and their rounding into a
//                                 16-bit D (lib/ScaledGemmPlan.h)
//
// Each kernel is a wrapper of its body in LossScalingKernels.h, which the
// GPU simulator compiles too (sim/SimLossScaling.cpp), so that the tests of
// these kernels against the CPU runtime run without a GPU on this very code.
//
// Built by nvcc into a fatbin (sm_80/sm_90 SASS + compute_90 PTX) that is
// embedded in libamp_runtime.so and loaded with cuModuleLoadDataEx. Compiled
// with --fmad=false and IEEE division/sqrt so that every result is the same
// fp32 operation sequence as the CPU code (no contraction into FMAs).
//
// Results are bit-identical to the CPU entry points, NaN payloads included:
// a NaN input x gives the quiet NaN that x86 produces for x * inv_scale
// (payload kept) and Convert.cpp then rounds (f16: h | 0x200, bf16:
// h | 0x40), fixed up after the hardware conversion, which would return
// the canonical NaN.
//
//===----------------------------------------------------------------------===//

#include "LossScalingKernels.h"

using namespace amp::rt::gpuls;
using namespace amp::rt::gpuls::kernel;

extern "C" __global__ void __launch_bounds__(1)
    amp_ls_update(ScalerBlock *block) {
  updateScaler(block);
}

extern "C" __global__ void __launch_bounds__(kCheckBlockSize)
    amp_ls_check_unscale_f32(const CheckItem *items, int64_t numItems,
                             const float *invScale, float *foundInf) {
  checkUnscale<UnscaleF32>(items, numItems, invScale, foundInf);
}

extern "C" __global__ void __launch_bounds__(kCheckBlockSize)
    amp_ls_check_unscale_f16(const CheckItem *items, int64_t numItems,
                             const float *invScale, float *foundInf) {
  checkUnscale<UnscaleF16>(items, numItems, invScale, foundInf);
}

extern "C" __global__ void __launch_bounds__(kCheckBlockSize)
    amp_ls_check_unscale_bf16(const CheckItem *items, int64_t numItems,
                              const float *invScale, float *foundInf) {
  checkUnscale<UnscaleBF16>(items, numItems, invScale, foundInf);
}

extern "C" __global__ void __launch_bounds__(kBufferBlockSize)
    amp_ls_unscale_buffer_f32(const void *in, void *out, int64_t numel,
                              const float *invScale, uint8_t *foundInf) {
  unscaleBuffer<UnscaleF32>(in, out, numel, invScale, foundInf);
}

extern "C" __global__ void __launch_bounds__(kBufferBlockSize)
    amp_ls_unscale_buffer_f16(const void *in, void *out, int64_t numel,
                              const float *invScale, uint8_t *foundInf) {
  unscaleBuffer<UnscaleF16>(in, out, numel, invScale, foundInf);
}

extern "C" __global__ void __launch_bounds__(kBufferBlockSize)
    amp_ls_unscale_buffer_bf16(const void *in, void *out, int64_t numel,
                               const float *invScale, uint8_t *foundInf) {
  unscaleBuffer<UnscaleBF16>(in, out, numel, invScale, foundInf);
}

extern "C" __global__ void __launch_bounds__(kBufferBlockSize)
    amp_ls_unscale_buffers(const BufferTable table) {
  unscaleBuffers(table);
}

extern "C" __global__ void __launch_bounds__(kMatrixPassBlockSize)
    amp_f8_matrix_pass(const MatrixPass pass) {
  matrixPass(pass);
}

#define AMP_OPTIMIZER_KERNEL(name, kind)                                       \
  extern "C" __global__ void __launch_bounds__(kOptBlockSize)                  \
      name(const OptTensor *tensors, const OptItem *items, int64_t numItems,   \
           const OptStepRecord *record, const float *foundInf,                 \
           const float *invScale, AmpOptimizerConfig config) {                 \
    optimizerStep<kind>(tensors, items, numItems, record, foundInf, invScale,  \
                        config);                                               \
  }
AMP_OPTIMIZER_KERNEL(amp_opt_sgd, AMP_OPTIMIZER_SGD)
AMP_OPTIMIZER_KERNEL(amp_opt_momentum, AMP_OPTIMIZER_MOMENTUM)
AMP_OPTIMIZER_KERNEL(amp_opt_adam, AMP_OPTIMIZER_ADAM)
AMP_OPTIMIZER_KERNEL(amp_opt_adamw, AMP_OPTIMIZER_ADAMW)
#undef AMP_OPTIMIZER_KERNEL

extern "C" __global__ void __launch_bounds__(kOptBlockSize)
    amp_opt_update_buffers(const OptBufferTable table) {
  optimizerUpdateTable(table);
}

extern "C" __global__ void __launch_bounds__(1)
    amp_opt_commit(OptStepRecord *record, const float *foundInf,
                   const float *invScale, double beta1, double beta2) {
  commitStep(record, foundInf, invScale, beta1, beta2);
}
