//===- Collectives.cpp - collectives across the processes of a job --------===//
//
// Part of amp-mlir. ampAllReduce and the process-group queries
// (AmpCollectives.h). One process is a group of one. Under an MPI launcher
// the MPI backend, libamp_runtime_mpi.so (the only part of the runtime that
// links MPI), is loaded with dlopen from this library's directory on first
// use; without it, a job of several processes fails with a message naming
// the library instead of running as independent processes.
//
// Compiled into libamp_runtime.so and into the simulator library: each has
// its own state, and both load the same backend (MPI is initialised once).
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/AmpCollectives.h"
#include "amp/runtime/AmpRuntime.h"

#include "Collectives.h"
#include "InlineConvert.h"
#include "Internal.h"
#include "LibraryCallEntries.h"
#include "MpiBackendAbi.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <string>
#include <vector>

using namespace amp::rt;

namespace {

constexpr const char *kBackendLibrary = "libamp_runtime_mpi.so";

struct CollectiveState {
  std::mutex mutex;
  bool started = false;
  bool finalized = false;
  /// Why the backend could not be started (sticky), empty if it was.
  std::string failure;
  int32_t rank = 0;
  int32_t size = 1;
  const char *backend = "single";
  AmpMpiBackendAllReduceFn allReduce = nullptr;
  AmpMpiBackendFinalizeFn finalize = nullptr;
};

CollectiveState &getState() {
  // Leaked: collectives may run from other libraries' destructors.
  static auto *state = new CollectiveState;
  return *state;
}

/// The process count an MPI launcher announces, or 0 when there is none;
/// `variable` names the environment variable read.
long launcherSize(const char **variable) {
  for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char *value = std::getenv(name);
    if (value && *value) {
      *variable = name;
      long size = std::strtol(value, nullptr, 10);
      return size > 0 ? size : 1;
    }
  }
  return 0;
}

/// libamp_runtime_mpi.so in the directory of the library holding this code,
/// or AMP_MPI_BACKEND when set.
std::string backendPath() {
  if (const char *path = std::getenv("AMP_MPI_BACKEND"))
    if (*path)
      return path;
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&ampAllReduce), &info) &&
      info.dli_fname) {
    std::string self = info.dli_fname;
    size_t slash = self.rfind('/');
    if (slash != std::string::npos)
      return self.substr(0, slash + 1) + kBackendLibrary;
  }
  return kBackendLibrary;
}

/// Starts the backend once (mutex held). False with `state.failure` set.
bool start(CollectiveState &state) {
  if (state.started)
    return state.failure.empty();
  state.started = true;
  const char *variable = nullptr;
  long processes = launcherSize(&variable);
  if (processes == 0)
    return true; // One process.
  std::string path = backendPath();
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!handle) {
    if (processes == 1)
      return true; // A launcher with one process: no MPI needed.
    const char *reason = dlerror();
    state.failure =
        std::string("this process is one of ") + std::to_string(processes) +
        " started by an MPI launcher (" + variable + "=" +
        std::to_string(processes) + ") but the MPI backend " + kBackendLibrary +
        " cannot be loaded (" + (reason ? reason : path.c_str()) +
        "): build amp-mlir with MPI (libopenmpi-dev) so that " +
        kBackendLibrary +
        " is built next to the runtime, or name it with AMP_MPI_BACKEND";
    return false;
  }
  auto version = reinterpret_cast<AmpMpiBackendAbiVersionFn>(
      dlsym(handle, "ampMpiBackendAbiVersion"));
  auto init =
      reinterpret_cast<AmpMpiBackendInitFn>(dlsym(handle, "ampMpiBackendInit"));
  state.allReduce = reinterpret_cast<AmpMpiBackendAllReduceFn>(
      dlsym(handle, "ampMpiBackendAllReduce"));
  state.finalize = reinterpret_cast<AmpMpiBackendFinalizeFn>(
      dlsym(handle, "ampMpiBackendFinalize"));
  if (!version || !init || !state.allReduce || !state.finalize ||
      version() != AMP_MPI_BACKEND_ABI_VERSION) {
    state.failure = "'" + path + "' is not an MPI backend of this runtime " +
                    "(ABI version " +
                    std::to_string(AMP_MPI_BACKEND_ABI_VERSION) + ")";
    return false;
  }
  char error[512] = "";
  if (init(&state.rank, &state.size, error, sizeof(error)) != 0) {
    state.failure = std::string("MPI backend: ") + error;
    return false;
  }
  state.backend = "mpi";
  return true;
}

/// start() for `call`: false with "<call>: <reason>" as the last error.
bool startFor(const char *call, CollectiveState &state) {
  if (state.finalized)
    return setError(call, "the collectives were finalized "
                          "(ampCollectiveFinalize)");
  if (!start(state))
    return setError(call, "%s", state.failure.c_str());
  return true;
}

/// One MPI_Allreduce of `count` elements (mutex held).
bool backendAllReduce(const char *call, CollectiveState &state, void *data,
                      int64_t count, int32_t type, int32_t op) {
  char error[512] = "";
  if (state.allReduce(data, count, type, op, error, sizeof(error)) != 0)
    return setError(call, "%s", error);
  return true;
}

int32_t backendOp(int32_t kind) {
  switch (kind) {
  case AMP_REDUCE_MAX:
    return AMP_MPI_BACKEND_MAX;
  case AMP_REDUCE_MIN:
    return AMP_MPI_BACKEND_MIN;
  default: // sum, mean
    return AMP_MPI_BACKEND_SUM;
  }
}

const char *kindName(int32_t kind) {
  switch (kind) {
  case AMP_REDUCE_SUM:
    return "sum";
  case AMP_REDUCE_MEAN:
    return "mean";
  case AMP_REDUCE_MAX:
    return "max";
  case AMP_REDUCE_MIN:
    return "min";
  default:
    return "<invalid kind>";
  }
}

} // namespace

size_t amp::rt::collectiveElementSize(int32_t dtype) {
  switch (dtype) {
  case AMP_DTYPE_F32:
  case AMP_DTYPE_I32:
    return 4;
  case AMP_DTYPE_F16:
  case AMP_DTYPE_BF16:
    return 2;
  case AMP_DTYPE_I1:
    return 1;
  default:
    return 0;
  }
}

bool amp::rt::validateAllReduce(const char *call, const void *data,
                                int64_t count, int32_t dtype, int32_t kind) {
  if (count < 0)
    return setError(call, "negative count %lld", static_cast<long long>(count));
  if (count > 0 && !data)
    return setError(call, "NULL data with count %lld",
                    static_cast<long long>(count));
  if (collectiveElementSize(dtype) == 0)
    return setError(call,
                    "invalid dtype %d (expected F32, F16, BF16, I32 or I1)",
                    static_cast<int>(dtype));
  if (kind < AMP_REDUCE_SUM || kind > AMP_REDUCE_MIN)
    return setError(call, "invalid kind %d (expected sum, mean, max or min)",
                    static_cast<int>(kind));
  if (dtype == AMP_DTYPE_I1 &&
      (kind == AMP_REDUCE_SUM || kind == AMP_REDUCE_MEAN))
    return setError(call, "cannot %s i1 values (max is or, min is and)",
                    kindName(kind));
  if (dtype == AMP_DTYPE_I32 && kind == AMP_REDUCE_MEAN)
    return setError(call, "cannot mean i32 values (use sum and divide)");
  return true;
}

int32_t amp::rt::collectiveWorldSize(const char *call) {
  CollectiveState &state = getState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (!startFor(call, state))
    return 0;
  return state.size;
}

bool amp::rt::allReduceHost(const char *call, void *data, int64_t count,
                            int32_t dtype, int32_t kind) {
  CollectiveState &state = getState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (!startFor(call, state))
    return false;
  if (state.size == 1 || count == 0)
    return true; // The identity.
  int32_t op = backendOp(kind);
  float divisor = static_cast<float>(state.size);
  switch (dtype) {
  case AMP_DTYPE_F32: {
    auto *values = static_cast<float *>(data);
    if (!backendAllReduce(call, state, values, count, AMP_MPI_BACKEND_FLOAT,
                          op))
      return false;
    if (kind == AMP_REDUCE_MEAN)
      for (int64_t i = 0; i < count; ++i)
        values[i] /= divisor;
    return true;
  }
  case AMP_DTYPE_F16:
  case AMP_DTYPE_BF16: {
    // Reduced in f32, rounded once.
    auto *bits = static_cast<uint16_t *>(data);
    bool half = dtype == AMP_DTYPE_F16;
    std::vector<float> values(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i)
      values[i] = half ? f16ToF32(bits[i]) : bf16ToF32(bits[i]);
    if (!backendAllReduce(call, state, values.data(), count,
                          AMP_MPI_BACKEND_FLOAT, op))
      return false;
    for (int64_t i = 0; i < count; ++i) {
      float value = kind == AMP_REDUCE_MEAN ? values[i] / divisor : values[i];
      bits[i] = half ? f32ToF16(value) : f32ToBF16(value);
    }
    return true;
  }
  case AMP_DTYPE_I32:
    return backendAllReduce(call, state, data, count, AMP_MPI_BACKEND_INT32,
                            op);
  case AMP_DTYPE_I1: {
    auto *bytes = static_cast<uint8_t *>(data);
    for (int64_t i = 0; i < count; ++i)
      bytes[i] = bytes[i] != 0;
    return backendAllReduce(call, state, data, count, AMP_MPI_BACKEND_BYTE, op);
  }
  default:
    return setError(call, "invalid dtype %d", static_cast<int>(dtype));
  }
}

CallCheck amp::rt::check(const char *call, const AllReduceArgs &args, bool) {
  if (!validateAllReduce(call, args.data, args.count, args.dtype, args.kind))
    return CallCheck::Invalid;
  // Every rank makes the same calls: all of them skip an empty one.
  return args.count == 0 ? CallCheck::Nothing : CallCheck::Work;
}

/// ampAllReduce, the CPU twin of ampGpuAllReduce (its entry point is
/// defined in CpuReference.cpp, with the other twins).
bool amp::rt::cpu::AllReduce(const char *call, const AllReduceArgs &args,
                             NoResult &) {
  return allReduceHost(call, args.data, args.count, args.dtype, args.kind);
}

extern "C" {

int32_t ampCollectiveRank(void) {
  CollectiveState &state = getState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (!startFor("ampCollectiveRank", state))
    return -1;
  return state.rank;
}

int32_t ampCollectiveWorldSize(void) {
  int32_t size = collectiveWorldSize("ampCollectiveWorldSize");
  return size > 0 ? size : -1;
}

const char *ampCollectiveBackend(void) {
  CollectiveState &state = getState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (!startFor("ampCollectiveBackend", state))
    return nullptr;
  return state.backend;
}

void ampCollectiveFinalize(void) {
  CollectiveState &state = getState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.finalized || !state.finalize)
    return;
  state.finalize();
  state.finalized = true;
}

} // extern "C"
