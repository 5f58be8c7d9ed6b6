//===- CudaLoader.h - dlopen'ed CUDA driver/cuBLAS/cuDNN tables -*- C++ -*-===//
//
// Part of amp-mlir. Function-pointer tables for the few CUDA driver, cuBLAS
// and cuDNN entry points the runtime uses. The real headers are included for
// types and enums only; the libraries are never linked, they are opened with
// dlopen on first GPU use. Pointer types come from `decltype` of the header
// declarations, so they cannot drift from the installed headers.
//
// Only compiled when CMake found the CUDA headers (AMP_RUNTIME_HAVE_CUDA).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_LIB_CUDALOADER_H
#define AMP_RUNTIME_LIB_CUDALOADER_H

// cuDNN 9 marks the legacy convolution API deprecated only when this macro is
// defined; make sure it is not.
#ifdef CUDNN_WARN_DEPRECATED
#undef CUDNN_WARN_DEPRECATED
#endif

#include <cublasLt.h>
#include <cublas_api.h>
#include <cuda.h>
#include <cudnn.h>

#include <type_traits>

namespace amp {
namespace rt {

// X(symbol, required): `symbol` is the exact exported name (versioned names
// such as cuMemAlloc_v2 spelled out; cuda.h maps the plain names to them).
#define AMP_CUDA_DRIVER_FUNCTIONS(X)                                           \
  X(cuInit, true)                                                              \
  X(cuDriverGetVersion, true)                                                  \
  X(cuGetErrorName, true)                                                      \
  X(cuGetErrorString, true)                                                    \
  X(cuDeviceGetCount, true)                                                    \
  X(cuDeviceGet, true)                                                         \
  X(cuDeviceGetName, true)                                                     \
  X(cuDeviceGetAttribute, true)                                                \
  X(cuDevicePrimaryCtxRetain, true)                                            \
  X(cuCtxSetCurrent, true)                                                     \
  X(cuCtxGetCurrent, true)                                                     \
  X(cuModuleLoadDataEx, true)                                                  \
  X(cuModuleUnload, true)                                                      \
  X(cuModuleGetFunction, true)                                                 \
  X(cuFuncSetAttribute, true)                                                  \
  X(cuLaunchKernel, true)                                                      \
  X(cuLaunchKernelEx, false)                                                   \
  X(cuStreamCreate, true)                                                      \
  X(cuStreamSynchronize, true)                                                 \
  X(cuStreamWaitEvent, true)                                                   \
  X(cuEventCreate, true)                                                       \
  X(cuEventDestroy_v2, true)                                                   \
  X(cuEventRecord, true)                                                       \
  X(cuEventSynchronize, true)                                                  \
  X(cuMemAlloc_v2, true)                                                       \
  X(cuMemFree_v2, true)                                                        \
  X(cuMemAllocAsync, false)                                                    \
  X(cuMemFreeAsync, false)                                                     \
  X(cuDeviceGetDefaultMemPool, false)                                          \
  X(cuMemPoolSetAttribute, false)                                              \
  X(cuMemAllocManaged, true)                                                   \
  X(cuMemcpyAsync, true)                                                       \
  X(cuMemsetD32Async, true)                                                    \
  X(cuMemsetD16Async, true)                                                    \
  X(cuMemHostRegister_v2, true)                                                \
  X(cuMemHostUnregister, true)                                                 \
  X(cuStreamBeginCapture_v2, false)                                            \
  X(cuStreamEndCapture, false)                                                 \
  X(cuGraphInstantiateWithFlags, false)                                        \
  X(cuGraphLaunch, false)                                                      \
  X(cuGraphExecDestroy, false)                                                 \
  X(cuGraphDestroy, false)

#define AMP_CUBLAS_FUNCTIONS(X)                                                \
  X(cublasCreate_v2, true)                                                     \
  X(cublasDestroy_v2, true)                                                    \
  X(cublasSetStream_v2, true)                                                  \
  X(cublasSetMathMode, true)                                                   \
  X(cublasGetStatusString, true)                                               \
  X(cublasGemmEx, true)                                                        \
  X(cublasGemmStridedBatchedEx, true)

// cuBLASLt, for the FP8 GEMMs (cublasGemmEx has no FP8 types).
#define AMP_CUBLASLT_FUNCTIONS(X)                                              \
  X(cublasLtCreate, true)                                                      \
  X(cublasLtDestroy, true)                                                     \
  X(cublasLtMatmulDescCreate, true)                                            \
  X(cublasLtMatmulDescDestroy, true)                                           \
  X(cublasLtMatmulDescSetAttribute, true)                                      \
  X(cublasLtMatrixLayoutCreate, true)                                          \
  X(cublasLtMatrixLayoutDestroy, true)                                         \
  X(cublasLtMatrixLayoutSetAttribute, true)                                    \
  X(cublasLtMatmulPreferenceCreate, true)                                      \
  X(cublasLtMatmulPreferenceDestroy, true)                                     \
  X(cublasLtMatmulPreferenceSetAttribute, true)                                \
  X(cublasLtMatmulAlgoGetHeuristic, true)                                      \
  X(cublasLtMatmul, true)                                                      \
  X(cublasLtGetStatusName, false)
#define AMP_CUDNN_FUNCTIONS(X)                                                 \
  X(cudnnGetVersion, true)                                                     \
  X(cudnnGetErrorString, true)                                                 \
  X(cudnnGetLastErrorString, false)                                            \
  X(cudnnCreate, true)                                                         \
  X(cudnnSetStream, true)                                                      \
  X(cudnnCreateTensorDescriptor, true)                                         \
  X(cudnnDestroyTensorDescriptor, true)                                        \
  X(cudnnSetTensor4dDescriptor, true)                                          \
  X(cudnnSetTensor4dDescriptorEx, true)                                        \
  X(cudnnCreateFilterDescriptor, true)                                         \
  X(cudnnDestroyFilterDescriptor, true)                                        \
  X(cudnnSetFilter4dDescriptor, true)                                          \
  X(cudnnCreateConvolutionDescriptor, true)                                    \
  X(cudnnDestroyConvolutionDescriptor, true)                                   \
  X(cudnnSetConvolution2dDescriptor, true)                                     \
  X(cudnnSetConvolutionMathType, true)                                         \
  X(cudnnSetConvolutionGroupCount, true)                                       \
  X(cudnnGetConvolutionForwardAlgorithmMaxCount, true)                         \
  X(cudnnGetConvolutionForwardAlgorithm_v7, true)                              \
  X(cudnnFindConvolutionForwardAlgorithm, true)                                \
  X(cudnnGetConvolutionForwardWorkspaceSize, true)                             \
  X(cudnnConvolutionForward, true)                                             \
  X(cudnnGetConvolutionBackwardDataAlgorithmMaxCount, true)                    \
  X(cudnnGetConvolutionBackwardDataAlgorithm_v7, true)                         \
  X(cudnnFindConvolutionBackwardDataAlgorithm, true)                           \
  X(cudnnGetConvolutionBackwardDataWorkspaceSize, true)                        \
  X(cudnnConvolutionBackwardData, true)                                        \
  X(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount, true)                  \
  X(cudnnGetConvolutionBackwardFilterAlgorithm_v7, true)                       \
  X(cudnnFindConvolutionBackwardFilterAlgorithm, true)                         \
  X(cudnnGetConvolutionBackwardFilterWorkspaceSize, true)                      \
  X(cudnnConvolutionBackwardFilter, true)                                      \
  X(cudnnTransformTensor, true)

// cublasGemmEx / cublasGemmStridedBatchedEx are overloaded in C++ (an inline
// compatibility wrapper takes a cudaDataType compute type), so their pointer
// types are spelled out and checked against the header below.
using PFN_amp_cublasGemmEx = cublasStatus_t (*)(
    cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
    const void *, const void *, cudaDataType, int, const void *, cudaDataType,
    int, const void *, void *, cudaDataType, int, cublasComputeType_t,
    cublasGemmAlgo_t);
using PFN_amp_cublasGemmStridedBatchedEx = cublasStatus_t (*)(
    cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
    const void *, const void *, cudaDataType, int, long long int, const void *,
    cudaDataType, int, long long int, const void *, void *, cudaDataType, int,
    long long int, int, cublasComputeType_t, cublasGemmAlgo_t);
static_assert(
    std::is_same<decltype(static_cast<PFN_amp_cublasGemmEx>(&::cublasGemmEx)),
                 PFN_amp_cublasGemmEx>::value,
    "cublasGemmEx signature");
static_assert(
    std::is_same<decltype(static_cast<PFN_amp_cublasGemmStridedBatchedEx>(
                     &::cublasGemmStridedBatchedEx)),
                 PFN_amp_cublasGemmStridedBatchedEx>::value,
    "cublasGemmStridedBatchedEx signature");

#define AMP_FN_TYPE(symbol) decltype(&::symbol)

struct DriverApi {
#define AMP_DECLARE(symbol, required) AMP_FN_TYPE(symbol) symbol = nullptr;
  AMP_CUDA_DRIVER_FUNCTIONS(AMP_DECLARE)
#undef AMP_DECLARE
};

struct CublasApi {
  decltype(&::cublasCreate_v2) cublasCreate_v2 = nullptr;
  decltype(&::cublasDestroy_v2) cublasDestroy_v2 = nullptr;
  decltype(&::cublasSetStream_v2) cublasSetStream_v2 = nullptr;
  decltype(&::cublasSetMathMode) cublasSetMathMode = nullptr;
  decltype(&::cublasGetStatusString) cublasGetStatusString = nullptr;
  PFN_amp_cublasGemmEx cublasGemmEx = nullptr;
  PFN_amp_cublasGemmStridedBatchedEx cublasGemmStridedBatchedEx = nullptr;
};

struct CublasLtApi {
#define AMP_DECLARE(symbol, required) AMP_FN_TYPE(symbol) symbol = nullptr;
  AMP_CUBLASLT_FUNCTIONS(AMP_DECLARE)
#undef AMP_DECLARE
};
struct CudnnApi {
#define AMP_DECLARE(symbol, required) AMP_FN_TYPE(symbol) symbol = nullptr;
  AMP_CUDNN_FUNCTIONS(AMP_DECLARE)
#undef AMP_DECLARE
};

/// The loaded tables, or nullptr with "<call>: <reason>" as the last error.
/// Loading happens once per process (thread-safe); a failure is remembered.
/// Library lookup: the environment override (AMP_RUNTIME_LIBCUDA,
/// AMP_RUNTIME_LIBCUBLAS, AMP_RUNTIME_LIBCUDNN: a path or soname, the only
/// candidate when set), else each soname through the normal loader path, then
/// in $CUDA_HOME/lib64, <configured CUDA root>/lib64,
/// /usr/lib/x86_64-linux-gnu.
const DriverApi *loadDriver(const char *call);
const CublasApi *loadCublas(const char *call);
/// AMP_RUNTIME_LIBCUBLASLT overrides the library, as the others.
const CublasLtApi *loadCublasLt(const char *call);
const CudnnApi *loadCudnn(const char *call);
/// The dlopen handle of the cuDNN that loadCudnn loaded (nullptr before,
/// or if it failed): for cudnn-frontend's own symbol lookup.
void *cudnnLibraryHandle();

} // namespace rt
} // namespace amp

#endif // AMP_RUNTIME_LIB_CUDALOADER_H
