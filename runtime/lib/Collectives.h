//===- Collectives.h - shared internals of the collectives ------*- C++ -*-===//
//
// Part of amp-mlir. What the host collectives (Collectives.cpp) share with
// their device twins (GpuCollectives.cpp, the simulator's SimLibraries.cpp,
// GpuStubs.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_LIB_COLLECTIVES_H
#define AMP_RUNTIME_LIB_COLLECTIVES_H

#include <cstddef>
#include <cstdint>

namespace amp {
namespace rt {

/// Bytes per element of a dtype the collectives take (F32, F16, BF16, I32,
/// I1), 0 for others.
size_t collectiveElementSize(int32_t dtype);

/// Checks ampAllReduce's arguments (count, pointer, dtype, kind and their
/// combination); on failure sets "<call>: <reason>" and returns false.
bool validateAllReduce(const char *call, const void *data, int64_t count,
                       int32_t dtype, int32_t kind);

/// The group's size, starting the backend if needed; 0 with the last error
/// set ("<call>: <reason>") if it cannot be started.
int32_t collectiveWorldSize(const char *call);

/// ampAllReduce on validated arguments and host memory, without calling the
/// error handler: false with the last error set on failure.
bool allReduceHost(const char *call, void *data, int64_t count, int32_t dtype,
                   int32_t kind);

} // namespace rt
} // namespace amp

#endif // AMP_RUNTIME_LIB_COLLECTIVES_H
