//===- GpuApi.h - the backends of GpuApi.def --------------------*- C++ -*-===//
//
// Part of amp-mlir. What a file that defines the functions of GpuApi.def
// (the device queries and the device loss scaler, tensor tables and
// optimizers of the C API) needs of the table. Their declarations are the
// hand-written ones of AmpRuntime.h and AmpLossScaling.h; the table is
// checked against them, not turned into them (GpuApi.def says why).
//
// A backend (the CUDA runtime, the build without CUDA, the simulator)
// writes, after the includes and before its definitions,
//
//   #define AMP_GPU_API_FUNCTION AMP_GPU_API_CHECK
//   #include "amp/runtime/GpuApi.def"
//
// For each row this
//  - asserts that the public header declares the function with the row's
//    exact type (a declaration that drifted, or is missing, does not
//    compile; a definition that differs from the declaration is a
//    conflicting declaration of a C function), and
//  - initialises a kept pointer of the row's type with the function, so
//    that a row the backend does not define is an undefined symbol: a link
//    error for the runtime libraries (linked with --no-undefined).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_LIB_GPUAPI_H
#define AMP_RUNTIME_LIB_GPUAPI_H

#include "amp/runtime/AmpRuntime.h"
#include "amp/runtime/MgpuAbi.h"

#include <type_traits>

namespace amp {
namespace rt {
/// Names a type written as a type-id (a function-pointer type, for a
/// declaration).
template <typename T> using GpuApiType = T;
} // namespace rt
} // namespace amp

/// A row's prototype, RESULT NAME(PARAMS), and its function-pointer type
/// (the parameter pieces are MgpuAbi.h's, which reads PARAMS the same way).
#define AMP_GPU_API_PROTOTYPE(NAME, RESULT, PARAMS)                            \
  RESULT NAME(PARAMS(AMP_MGPU_C_PARAM, AMP_MGPU_COMMA))
#define AMP_GPU_API_POINTER(RESULT, PARAMS)                                    \
  RESULT (*)(PARAMS(AMP_MGPU_C_TYPE, AMP_MGPU_COMMA))

#define AMP_GPU_API_CHECK(NAME, RESULT, PARAMS, STUB)                          \
  static_assert(std::is_same<decltype(&::NAME),                                \
                             AMP_GPU_API_POINTER(RESULT, PARAMS)>::value,      \
                #NAME ": its declaration in AmpRuntime.h or AmpLossScaling.h " \
                      "differs from its row in GpuApi.def");                   \
  [[maybe_unused]] __attribute__((used)) static const ::amp::rt::GpuApiType<   \
      AMP_GPU_API_POINTER(RESULT, PARAMS)>                                     \
      ampGpuApiDefined_##NAME = &::NAME;

#endif // AMP_RUNTIME_LIB_GPUAPI_H
