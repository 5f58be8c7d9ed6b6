//===- GpuScaledGemm.cpp - the FP8 GEMM's passes around its matmul --------===//
//
// Part of amp-mlir. The host half of ampGpuScaledGemm that the CUDA runtime
// (lib/CublasLt.cpp, the matmul on cuBLASLt) and the GPU simulator
// (sim/SimLibraries.cpp, the matmul on the CPU reference) share: the plan of
// lib/ScaledGemmPlan.h carried out with the runtime's kernel
// (amp_f8_matrix_pass, cuda/LossScalingKernels.h) through the device
// operations of GpuLossScalingDevice.h, so that CI runs the very launches,
// grids and index arithmetic a GPU runs.
//
//===----------------------------------------------------------------------===//

#include "GpuLossScalingDevice.h"
#include "Internal.h"
#include "ScaledGemmPlan.h"

#include "../cuda/LossScalingAbi.h"

#include <algorithm>

using namespace amp::rt;
using namespace amp::rt::gpuls;

namespace {
/// Launches the matrix-pass kernel on `pass`: blocks take its rows, at most
/// kMatrixPassBlocksPerSm per multiprocessor.
bool launchMatrixPass(const char *call, MatrixPass &pass) {
  int64_t sms = std::max(device::multiprocessors(), 1);
  int64_t grid =
      std::min<int64_t>(pass.batch * pass.rows, sms * kMatrixPassBlocksPerSm);
  void *params[] = {&pass};
  return device::launch(call, kMatrixPass, grid, kMatrixPassBlockSize, params);
}

ScaledGemmPlan getPlan(const ScaledGemmArgs &s) {
  return planScaledGemm(s.aType, s.bType, s.cType, s.aScale != nullptr,
                        s.bScale != nullptr, s.dAmax != nullptr, s.beta);
}

/// One launch of the pass from `src` to `dst` (dst.pointer may be null:
/// nothing written) over the batch of m x n matrices, folding the amax into
/// `amax` when it is not null.
bool launchPass(const char *call, const ScaledGemmArgs &s,
                const ScaledGemmOutput &src, const ScaledGemmOutput &dst,
                float *amax) {
  MatrixPass pass{};
  pass.src = reinterpret_cast<uint64_t>(src.pointer);
  pass.dst = reinterpret_cast<uint64_t>(dst.pointer);
  pass.amax = reinterpret_cast<uint64_t>(amax);
  pass.batch = s.batch;
  pass.rows = s.m;
  pass.cols = s.n;
  pass.srcLd = src.ld;
  pass.srcStride = src.stride;
  pass.dstLd = dst.ld;
  pass.dstStride = dst.stride;
  pass.srcType = src.type;
  pass.dstType = dst.type;
  return launchMatrixPass(call, pass);
}
} // namespace

size_t amp::rt::gpuls::scaledGemmScratchBytes(const ScaledGemmArgs &s) {
  if (!getPlan(s).f32Scratch)
    return 0;
  return static_cast<size_t>(s.batch) * static_cast<size_t>(s.m) *
         static_cast<size_t>(s.n) * sizeof(float);
}

bool amp::rt::gpuls::runScaledGemm(const char *call, const ScaledGemmArgs &s,
                                   DevicePtr scratch,
                                   const ScaledGemmMatmul &matmul) {
  ScaledGemmPlan plan = getPlan(s);
  if (const char *rule = getCublasLtFloat8Refusal(plan.matmul))
    return setError(call, "%s", rule);
  // The kernel's module is loaded (or its absence reported) before anything
  // is queued.
  if ((plan.amaxPass || plan.widenC) && !device::ready(call)) {
    CublasLtFloat8Matmul withAmax = plan.matmul;
    withAmax.amaxD = true;
    return appendError(" (the amax of a non-FP8 D is the runtime's own "
                       "kernel's: %s)",
                       getCublasLtFloat8Refusal(withAmax));
  }
  const ScaledGemmOutput c{s.c, s.cType, s.ldc, s.strideC};
  // Compact: ld n and stride m * n keep cuBLASLt's 16-byte rules (n is a
  // multiple of 16).
  const ScaledGemmOutput wide{reinterpret_cast<void *>(scratch), AMP_DTYPE_F32,
                              s.n, s.m * s.n};
  const ScaledGemmOutput nowhere{nullptr, AMP_DTYPE_F32, 0, 0};
  if (plan.widenC && !launchPass(call, s, c, wide, nullptr))
    return false;
  const ScaledGemmOutput &output = plan.f32Scratch ? wide : c;
  if (!matmul(plan.matmul, output))
    return false;
  if (!plan.amaxPass)
    return true;
  return device::zero32(call, reinterpret_cast<DevicePtr>(s.dAmax)) &&
         launchPass(call, s, output, plan.narrowPass ? c : nowhere, s.dAmax);
}

bool amp::rt::gpuls::widenToF32(const char *call, DevicePtr src,
                                int32_t srcType, DevicePtr dst, int64_t count) {
  // The count as rows of kColumns elements, then the rest as one row: the
  // matrix pass converts each element (exactly, 16 bits to f32).
  constexpr int64_t kColumns = 4096;
  const int64_t srcBytes = srcType == AMP_DTYPE_F32 ? 4 : 2;
  auto pass = [&](int64_t offset, int64_t rows, int64_t cols) {
    MatrixPass p{};
    p.src = src + static_cast<uint64_t>(offset * srcBytes);
    p.dst = dst + static_cast<uint64_t>(offset * 4);
    p.batch = 1;
    p.rows = rows;
    p.cols = cols;
    p.srcLd = cols;
    p.dstLd = cols;
    p.srcType = srcType;
    p.dstType = AMP_DTYPE_F32;
    return launchMatrixPass(call, p);
  };
  const int64_t rows = count / kColumns, rest = count % kColumns;
  return (rows == 0 || pass(0, rows, kColumns)) &&
         (rest == 0 || pass(rows * kColumns, 1, rest));
}
