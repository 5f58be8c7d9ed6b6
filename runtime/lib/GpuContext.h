//===- GpuContext.h - device, context and shared stream ---------*- C++ -*-===//
//
// Part of amp-mlir. The process-wide GPU state: the default device, its
// retained primary context (made current on each calling thread), the one
// shared in-order stream that kernels, copies, cuBLAS and cuDNN all use, and
// stream-ordered device memory helpers.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_LIB_GPUCONTEXT_H
#define AMP_RUNTIME_LIB_GPUCONTEXT_H

#include "CudaLoader.h"
#include "Internal.h"

#include <initializer_list>

#include <cstddef>
#include <cstdint>

namespace amp {
namespace rt {

/// Loads the driver and initialises device/context/stream on first use, then
/// makes the context current on the calling thread. Returns nullptr with
/// "<call>: <reason>" as the last error on failure. Thread-safe.
const DriverApi *gpuInit(const char *call);

/// mgpuSetDefaultDevice: records the device for the lazy initialisation;
/// fails if another device is already in use.
bool gpuSetDefaultDevice(const char *call, int32_t device);

/// True once gpuInit succeeded in this process (no driver call).
bool gpuInitialized();

/// The shared stream and the device (valid after gpuInit succeeded).
CUstream gpuStream();
CUdevice gpuDevice();

/// The device's compute capability as 10 * major + minor (90 for sm_90;
/// valid after gpuInit succeeded). AMP_RUNTIME_COMPUTE_CAPABILITY (e.g. 75),
/// read once at initialisation, replaces it for the runtime's own checks,
/// so that the refusals of older devices can be tested on a newer one.
int gpuComputeCapability();

/// False with "<call>: bf16 operands need compute capability 8.0 ..." as
/// the last error when one of `types` is AMP_DTYPE_BF16 and the device is
/// older than sm_80 (cuBLAS and cuDNN have no bf16 kernels there).
bool gpuCheckTypesSupported(const char *call,
                            std::initializer_list<int32_t> types);

/// `stream` if non-null, else the shared stream.
CUstream gpuResolveStream(void *stream);

/// Sets "<call>: <what> failed: CUDA_ERROR_X (description)" and returns false
/// unless `result` is CUDA_SUCCESS.
bool cuCheck(const char *call, CUresult result, const char *what);

/// Device memory ordered on `stream` (default: the shared stream) with
/// cuMemAllocAsync/cuMemFreeAsync when the device supports memory pools, else
/// cuMemAlloc, and cuMemFree after synchronising the stream.
bool gpuMalloc(const char *call, size_t bytes, CUdeviceptr *out,
               CUstream stream = nullptr);
bool gpuFree(const char *call, CUdeviceptr ptr, CUstream stream = nullptr);

/// Whether device memory is stream-ordered (cuMemAllocAsync; valid after
/// gpuInit succeeded).
bool gpuHasMemoryPools();

/// CUDA graphs (GpuGraph.cpp): whether the shared stream is being captured
/// (ampGpuGraphBeginCapture .. ampGpuGraphEndCapture). While it is, the
/// host waits of compiled code (mgpuStreamSynchronize, ampGpuSynchronize)
/// are not made (a wait is illegal in a capture; the caller waits after the
/// graph's launch), gpuMalloc and gpuFree note what the capture allocated,
/// and whatever would wait for the stream, copy from pageable memory or
/// grow a scratch buffer refuses, saying why.
bool gpuCapturing();
void gpuCaptureNoteAllocation(CUdeviceptr ptr);
void gpuCaptureNoteFree(CUdeviceptr ptr);

/// ampGpuGemm on cuBLASLt (CublasLt.cpp): descriptors and the heuristic's
/// algorithm cached per shape, types and alignments, the 32 MiB workspace.
/// False with the error set, and `noKernel` where cuBLASLt has no
/// algorithm for the GEMM (the caller then uses cublasGemmEx).
bool gemmOnCublasLt(const char *call, const GemmArgs &g, bool &noKernel);

/// A grow-only device buffer on the shared stream. Callers serialise uses.
struct ScratchBuffer {
  CUdeviceptr ptr = 0;
  size_t size = 0;
  bool reserve(const char *call, size_t bytes);
};

/// The CUDA libraries' type of an AmpDType of the GEMMs (f32, f16, bf16,
/// E4M3, E5M2).
inline cudaDataType toCudaType(int32_t type) {
  switch (type) {
  case AMP_DTYPE_F16:
    return CUDA_R_16F;
  case AMP_DTYPE_BF16:
    return CUDA_R_16BF;
  case AMP_DTYPE_F8E4M3FN:
    return CUDA_R_8F_E4M3;
  case AMP_DTYPE_F8E5M2:
    return CUDA_R_8F_E5M2;
  default:
    return CUDA_R_32F;
  }
}

/// dst[i] = float(src[i]) + beta * dst[i] for `count` f16/bf16 elements on
/// the shared stream (cuBLAS, see Cublas.cpp). beta == 0 does not read dst.
bool gpuWidenToF32(const char *call, CUdeviceptr src, int32_t srcType,
                   CUdeviceptr dst, int64_t count, float beta);

} // namespace rt
} // namespace amp

#endif // AMP_RUNTIME_LIB_GPUCONTEXT_H
