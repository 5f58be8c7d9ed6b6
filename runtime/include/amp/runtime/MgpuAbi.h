/*===- MgpuAbi.h - the mgpu* ABI of LLVM/MLIR 22.1 -------------*- C -*-===*\
|*                                                                          *|
|* Part of amp-mlir. Declares every row of MgpuAbi.def: the `mgpu*`         *|
|* functions that MLIR 22.1.8's gpu-to-llvm and `#gpu.select_object`        *|
|* translation emit calls to, with exactly the 22.1.8 signatures. What each *|
|* does is documented in MgpuAbi.def. Implemented by libamp_runtime.so on   *|
|* the CUDA driver API (loaded with dlopen on first GPU use) and by the GPU *|
|* simulator, libamp_runtime_gpusim.so.                                     *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_MGPUABI_H
#define AMP_RUNTIME_MGPUABI_H

#include "amp/runtime/AmpRuntime.h"

#ifndef __cplusplus
#include <stdbool.h>
#endif

/* How a table entry's pieces read in C. */
#define AMP_MGPU_C_RESULT_Void void
#define AMP_MGPU_C_RESULT_Ptr void *
#define AMP_MGPU_C_PARAM(C_TYPE, NAME) C_TYPE NAME
#define AMP_MGPU_C_TYPE(C_TYPE, NAME) C_TYPE
#define AMP_MGPU_ARG(C_TYPE, NAME) NAME
#define AMP_MGPU_COMMA ,
/* The prototype of a row's function: RESULT NAME(PARAMS). */
#define AMP_MGPU_PROTOTYPE(NAME, RESULT, PARAMS)                               \
  AMP_MGPU_C_RESULT_##RESULT NAME(PARAMS(AMP_MGPU_C_PARAM, AMP_MGPU_COMMA))

#ifdef __cplusplus
extern "C" {
#endif

#define AMP_MGPU_FUNCTION(NAME, RESULT, PARAMS, STUB)                          \
  AMP_RUNTIME_API AMP_MGPU_PROTOTYPE(NAME, RESULT, PARAMS);
#include "amp/runtime/MgpuAbi.def"

#ifdef __cplusplus
} /* extern "C" */

/* For a file that defines the mgpu* functions (a backend: the CUDA
 * runtime, the build without CUDA, the simulator, a test double), after
 * its definitions:
 *
 *   #define AMP_MGPU_FUNCTION AMP_MGPU_DEFINED
 *   #include "amp/runtime/MgpuAbi.def"
 *
 * For each row this initialises a pointer of the row's type (RESULT
 * (*)(PARAMS)) with the backend's function and keeps it in the object
 * file, so that
 *  - a definition whose signature differs from its row does not compile
 *    (with the declarations above in scope it already conflicts with
 *    them; the pointer's initialisation fails too), and
 *  - a row that the backend does not define is an undefined symbol: a link
 *    error for the runtime libraries (linked with --no-undefined), a load
 *    error (dlopen with RTLD_NOW) for a test double. */
#define AMP_MGPU_DEFINED(NAME, RESULT, PARAMS, STUB)                           \
  [[maybe_unused]] __attribute__((used)) static AMP_MGPU_C_RESULT_##RESULT(    \
      *const ampMgpuDefined_##NAME)(PARAMS(AMP_MGPU_C_TYPE, AMP_MGPU_COMMA)) = \
      &::NAME;
#endif

#endif /* AMP_RUNTIME_MGPUABI_H */
