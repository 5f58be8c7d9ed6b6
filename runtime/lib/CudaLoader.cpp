//===- CudaLoader.cpp - dlopen of libcuda, libcublas and libcudnn ---------===//
//
// Part of amp-mlir. Opens the CUDA driver and the vendor libraries on first
// use and resolves the function tables of CudaLoader.h. Nothing here is
// linked: a machine without a driver can load libamp_runtime.so and run every
// CPU entry point; GPU entry points then report why they cannot work.
//
//===----------------------------------------------------------------------===//

#include "CudaLoader.h"
#include "Internal.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#ifndef AMP_RUNTIME_CUDA_ROOT_DIR
#define AMP_RUNTIME_CUDA_ROOT_DIR "/usr/local/cuda"
#endif

using namespace amp::rt;

namespace {

struct Library {
  void *handle = nullptr;
  std::string path;  // What was opened.
  std::string error; // Why nothing could be opened.
};

/// Tries `sonames` through the loader path and then in the fallback
/// directories; the environment variable `envVar` overrides all of this.
Library openLibrary(const char *envVar,
                    std::initializer_list<const char *> sonames) {
  Library lib;
  std::vector<std::string> candidates;
  const char *override = std::getenv(envVar);
  if (override && *override) {
    candidates.push_back(override);
  } else {
    std::vector<std::string> dirs;
    if (const char *home = std::getenv("CUDA_HOME"); home && *home)
      dirs.push_back(std::string(home) + "/lib64");
    dirs.push_back(AMP_RUNTIME_CUDA_ROOT_DIR "/lib64");
    dirs.push_back("/usr/lib/x86_64-linux-gnu");
    for (const char *soname : sonames)
      candidates.push_back(soname);
    for (const char *soname : sonames)
      for (const std::string &dir : dirs)
        candidates.push_back(dir + "/" + soname);
  }
  for (const std::string &candidate : candidates) {
    dlerror();
    if (void *handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      lib.handle = handle;
      lib.path = candidate;
      return lib;
    }
    // Report the first failure: the plain soname through the loader path
    // (or the override), which is what users can act on.
    if (lib.error.empty()) {
      const char *why = dlerror();
      lib.error = why ? why : "unknown dlopen error";
    }
  }
  if (override && *override)
    lib.error += std::string(" (from ") + envVar + ")";
  return lib;
}

/// Resolves one table entry; remembers the first missing required symbol.
#define AMP_RESOLVE(symbol, required)                                          \
  api.symbol =                                                                 \
      reinterpret_cast<decltype(api.symbol)>(dlsym(lib.handle, #symbol));      \
  if (!api.symbol && (required) && !missing)                                   \
    missing = #symbol;

struct LoadState {
  std::mutex mutex;
  bool driverTried = false, cublasTried = false, cublasLtTried = false,
       cudnnTried = false;
  DriverApi driver;
  CublasApi cublas;
  CublasLtApi cublasLt;
  CudnnApi cudnn;
  bool driverOk = false, cublasOk = false, cublasLtOk = false, cudnnOk = false;
  std::string driverError, cublasError, cublasLtError, cudnnError;
  void *cudnnHandle = nullptr; // The dlopen handle of the loaded cuDNN.
};

LoadState &loadState() {
  // Leaked on purpose: usable from global dtors in any order.
  static LoadState *state = new LoadState;
  return *state;
}

} // namespace

const DriverApi *amp::rt::loadDriver(const char *call) {
  LoadState &st = loadState();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (!st.driverTried) {
    st.driverTried = true;
    Library lib = openLibrary("AMP_RUNTIME_LIBCUDA", {"libcuda.so.1"});
    if (!lib.handle) {
      st.driverError = "no CUDA driver: libcuda.so.1 could not be loaded "
                       "(dlopen: " +
                       lib.error + "); GPU work needs an NVIDIA driver";
    } else {
      DriverApi &api = st.driver;
      const char *missing = nullptr;
      AMP_CUDA_DRIVER_FUNCTIONS(AMP_RESOLVE)
      if (missing)
        st.driverError = "the CUDA driver " + lib.path + " lacks " + missing +
                         " (driver too old?)";
      else
        st.driverOk = true;
    }
  }
  if (!st.driverOk) {
    setError(call, "%s", st.driverError.c_str());
    return nullptr;
  }
  return &st.driver;
}

const CublasApi *amp::rt::loadCublas(const char *call) {
  LoadState &st = loadState();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (!st.cublasTried) {
    st.cublasTried = true;
    Library lib = openLibrary("AMP_RUNTIME_LIBCUBLAS",
                              {"libcublas.so.13", "libcublas.so"});
    if (!lib.handle) {
      st.cublasError = "cuBLAS not available: libcublas.so.13 could not be "
                       "loaded (dlopen: " +
                       lib.error + ")";
    } else {
      CublasApi &api = st.cublas;
      const char *missing = nullptr;
      AMP_CUBLAS_FUNCTIONS(AMP_RESOLVE)
      if (missing)
        st.cublasError = "cuBLAS library " + lib.path + " lacks " + missing;
      else
        st.cublasOk = true;
    }
  }
  if (!st.cublasOk) {
    setError(call, "%s", st.cublasError.c_str());
    return nullptr;
  }
  return &st.cublas;
}

const CublasLtApi *amp::rt::loadCublasLt(const char *call) {
  LoadState &st = loadState();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (!st.cublasLtTried) {
    st.cublasLtTried = true;
    Library lib = openLibrary("AMP_RUNTIME_LIBCUBLASLT",
                              {"libcublasLt.so.13", "libcublasLt.so"});
    if (!lib.handle) {
      st.cublasLtError = "cuBLASLt not available: libcublasLt.so.13 could "
                         "not be loaded (dlopen: " +
                         lib.error + "); FP8 GEMMs need it";
    } else {
      CublasLtApi &api = st.cublasLt;
      const char *missing = nullptr;
      AMP_CUBLASLT_FUNCTIONS(AMP_RESOLVE)
      if (missing)
        st.cublasLtError = "cuBLASLt library " + lib.path + " lacks " + missing;
      else
        st.cublasLtOk = true;
    }
  }
  if (!st.cublasLtOk) {
    setError(call, "%s", st.cublasLtError.c_str());
    return nullptr;
  }
  return &st.cublasLt;
}

const CudnnApi *amp::rt::loadCudnn(const char *call) {
  LoadState &st = loadState();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (!st.cudnnTried) {
    st.cudnnTried = true;
    Library lib =
        openLibrary("AMP_RUNTIME_LIBCUDNN", {"libcudnn.so.9", "libcudnn.so"});
    if (!lib.handle) {
      st.cudnnError = "cuDNN not available: libcudnn.so.9 could not be "
                      "loaded (dlopen: " +
                      lib.error + ")";
    } else {
      CudnnApi &api = st.cudnn;
      const char *missing = nullptr;
      AMP_CUDNN_FUNCTIONS(AMP_RESOLVE)
      if (missing) {
        st.cudnnError = "cuDNN library " + lib.path + " lacks " + missing;
      } else if (size_t version = api.cudnnGetVersion();
                 version / 10000 != CUDNN_MAJOR) {
        st.cudnnError = "cuDNN library " + lib.path + " has version " +
                        std::to_string(version) + ", built for major " +
                        std::to_string(CUDNN_MAJOR);
      } else {
        st.cudnnOk = true;
        st.cudnnHandle = lib.handle;
      }
    }
  }
  if (!st.cudnnOk) {
    setError(call, "%s", st.cudnnError.c_str());
    return nullptr;
  }
  return &st.cudnn;
}

void *amp::rt::cudnnLibraryHandle() {
  LoadState &st = loadState();
  std::lock_guard<std::mutex> lock(st.mutex);
  return st.cudnnOk ? st.cudnnHandle : nullptr;
}
