//===- LibraryCallEntries.h - entries from LibraryCalls.def -----*- C++ -*-===//
//
// Part of amp-mlir. How every build of the runtime defines the library
// calls of LibraryCalls.def: the extern "C" entry point packs its arguments
// into <STEM>Args, runs the shared argument checks (check(), Internal.h),
// and only then the backend's function, which has one signature per call:
//
//   bool amp::rt::<backend>::<STEM>(const char *call, const <STEM>Args &,
//                                   LibraryCallResult<RESULT> &result);
//
// returning false with the last error set. Backends: `cuda` (the CUDA
// sources), `sim` (the GPU simulator), `cpu` (the CPU twins); the build
// without CUDA uses `notBuilt` for every GPU entry point. A file that
// defines a backend's entry points writes, for example:
//
//   #define AMP_LIBRARY_CALL(STEM, GPU_NAME, CPU_NAME, RESULT, PARAMS)
//     AMP_LIBRARY_CALL_ENTRY(GPU_NAME, STEM, RESULT, PARAMS, true, sim::STEM)
//
// (on one line, or continued with backslashes).
//   #include "amp/runtime/LibraryCalls.def"
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_LIB_LIBRARYCALLENTRIES_H
#define AMP_RUNTIME_LIB_LIBRARYCALLENTRIES_H

#include "Internal.h"

namespace amp {
namespace rt {

/// What a backend function returns besides success, by the RESULT column.
struct NoResult {};
using LibraryCallResultVoid = NoResult;
using LibraryCallResultPtr = void *;

#define AMP_LIBRARY_CALL_BACKEND(STEM, RESULT)                                 \
  bool STEM(const char *call, const STEM##Args &args,                          \
            LibraryCallResult##RESULT &result);
#define AMP_LIBRARY_CALL(STEM, GPU_NAME, CPU_NAME, RESULT, PARAMS)             \
  namespace cuda {                                                             \
  AMP_LIBRARY_CALL_BACKEND(STEM, RESULT)                                       \
  }                                                                            \
  namespace sim {                                                              \
  AMP_LIBRARY_CALL_BACKEND(STEM, RESULT)                                       \
  }                                                                            \
  namespace cpu {                                                              \
  AMP_LIBRARY_CALL_BACKEND(STEM, RESULT)                                       \
  }
// The CPU-only calls: a cpu:: backend taking the arguments of the row ARGS,
// and its checks, cpu::check<STEM> (ARGS's check() with what the call adds).
#define AMP_CPU_LIBRARY_CALL(STEM, CPU_NAME, ARGS, RESULT, PARAMS)             \
  namespace cpu {                                                              \
  bool STEM(const char *call, const ARGS##Args &args,                          \
            LibraryCallResult##RESULT &result);                                \
  CallCheck check##STEM(const char *call, const ARGS##Args &args);             \
  }
#include "amp/runtime/LibraryCalls.def"
#undef AMP_LIBRARY_CALL_BACKEND

/// The backend of a build without CUDA: every call with work reports that
/// GPU support was not built (GpuStubs.cpp).
bool reportGpuNotBuilt(const char *call);
template <typename Args, typename Result>
bool notBuilt(const char *call, const Args &, Result &) {
  return reportGpuNotBuilt(call);
}

/// The body of every entry point, once its arguments are checked (`checked`,
/// from check() or a CPU-only call's own checks): the backend if there is
/// work; failures go to the error handler, and the result is then
/// value-initialised (NULL).
template <typename Args, typename Result>
Result runCheckedLibraryCall(const char *call, const Args &args,
                             CallCheck checked,
                             bool (*backend)(const char *, const Args &,
                                             Result &)) {
  Result result{};
  switch (checked) {
  case CallCheck::Invalid:
    break;
  case CallCheck::Nothing:
    return result;
  case CallCheck::Work:
    if (backend(call, args, result))
      return result;
    break;
  }
  raiseLastError();
  return Result{};
}

/// The body of every entry point of the table: check(), then the backend.
template <typename Args, typename Result>
Result runLibraryCall(const char *call, const Args &args, bool onGpu,
                      bool (*backend)(const char *, const Args &, Result &)) {
  return runCheckedLibraryCall(call, args, check(call, args, onGpu), backend);
}

} // namespace rt
} // namespace amp

/// Defines the extern "C" entry point NAME of the call STEM on BACKEND.
#define AMP_LIBRARY_CALL_ENTRY(NAME, STEM, RESULT, PARAMS, ON_GPU, BACKEND)    \
  extern "C" AMP_LIBRARY_CALL_C_RESULT_##RESULT NAME(                          \
      PARAMS(AMP_LIBRARY_CALL_C_PARAM, AMP_LIBRARY_CALL_COMMA)) {              \
    using namespace ::amp::rt;                                                 \
    return static_cast<AMP_LIBRARY_CALL_C_RESULT_##RESULT>(                    \
        runLibraryCall<STEM##Args, LibraryCallResult##RESULT>(                 \
            #NAME,                                                             \
            STEM##Args{PARAMS(AMP_LIBRARY_CALL_ARG, AMP_LIBRARY_CALL_COMMA)},  \
            ON_GPU, BACKEND));                                                 \
  }

/// Defines the extern "C" entry point CPU_NAME of an AMP_CPU_LIBRARY_CALL
/// row: ARGS's arguments, checked by cpu::check<STEM>, then cpu::<STEM>.
#define AMP_CPU_LIBRARY_CALL_ENTRY(CPU_NAME, STEM, ARGS, RESULT, PARAMS)       \
  extern "C" AMP_LIBRARY_CALL_C_RESULT_##RESULT CPU_NAME(                      \
      PARAMS(AMP_LIBRARY_CALL_C_PARAM, AMP_LIBRARY_CALL_COMMA)) {              \
    using namespace ::amp::rt;                                                 \
    ARGS##Args args{PARAMS(AMP_LIBRARY_CALL_ARG, AMP_LIBRARY_CALL_COMMA)};     \
    return static_cast<AMP_LIBRARY_CALL_C_RESULT_##RESULT>(                    \
        runCheckedLibraryCall<ARGS##Args, LibraryCallResult##RESULT>(          \
            #CPU_NAME, args, cpu::check##STEM(#CPU_NAME, args), cpu::STEM));   \
  }

#endif // AMP_RUNTIME_LIB_LIBRARYCALLENTRIES_H
