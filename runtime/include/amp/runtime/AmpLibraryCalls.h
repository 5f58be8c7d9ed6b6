/*===- AmpLibraryCalls.h - library calls of compiled code -------*- C -*-===*\
|*                                                                          *|
|* Part of amp-mlir. Declares every entry of LibraryCalls.def: the GPU      *|
|* library calls that compiled code makes (ampGpuGemm, ampGpuScaledGemm,    *|
|* ampGpuConv2d and its gradients ampGpuConv2dBackwardData/Filter,          *|
|* ampGpuConstant, ampGpuCheckFiniteAndUnscaleBuffer(s), ampGpuAllReduce)   *|
|* and their CPU twins (ampCpuGemm, ..., ampAllReduce), and the calls only  *|
|* the CPU pipeline makes (ampCpuLibraryGemm). What each does is            *|
|* documented in LibraryCalls.def. Included by AmpRuntime.h.                *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_AMPLIBRARYCALLS_H
#define AMP_RUNTIME_AMPLIBRARYCALLS_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define AMP_LIBRARY_CALL_API __attribute__((visibility("default")))
#else
#define AMP_LIBRARY_CALL_API
#endif

/* How a table entry's pieces read in C. */
#define AMP_LIBRARY_CALL_C_RESULT_Void void
#define AMP_LIBRARY_CALL_C_RESULT_Ptr void *
#define AMP_LIBRARY_CALL_C_PARAM(KIND, C_TYPE, NAME) C_TYPE NAME
#define AMP_LIBRARY_CALL_ARG(KIND, C_TYPE, NAME) NAME
#define AMP_LIBRARY_CALL_COMMA ,

#ifdef __cplusplus
extern "C" {
#endif

#define AMP_LIBRARY_CALL(STEM, GPU_NAME, CPU_NAME, RESULT, PARAMS)             \
  AMP_LIBRARY_CALL_API AMP_LIBRARY_CALL_C_RESULT_##RESULT GPU_NAME(            \
      PARAMS(AMP_LIBRARY_CALL_C_PARAM, AMP_LIBRARY_CALL_COMMA));               \
  AMP_LIBRARY_CALL_API AMP_LIBRARY_CALL_C_RESULT_##RESULT CPU_NAME(            \
      PARAMS(AMP_LIBRARY_CALL_C_PARAM, AMP_LIBRARY_CALL_COMMA));
#define AMP_CPU_LIBRARY_CALL(STEM, CPU_NAME, ARGS, RESULT, PARAMS)             \
  AMP_LIBRARY_CALL_API AMP_LIBRARY_CALL_C_RESULT_##RESULT CPU_NAME(            \
      PARAMS(AMP_LIBRARY_CALL_C_PARAM, AMP_LIBRARY_CALL_COMMA));
#include "amp/runtime/LibraryCalls.def"

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AMP_RUNTIME_AMPLIBRARYCALLS_H */
