//===- TestMain.cpp - main of AmpRuntimeTests
//------------------------------===//
//
// Part of amp-mlir. AmpRuntimeTests checks the behaviour without a CUDA
// driver. On a machine that has one, the driver is hidden from the runtime
// (AMP_RUNTIME_LIBCUDA points to a missing file) so the tests stay
// deterministic; the real GPU paths are AmpRuntimeGpuTests' job.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdlib>

int main(int argc, char **argv) {
  if (void *driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
    dlclose(driver);
    setenv("AMP_RUNTIME_LIBCUDA", "/nonexistent/amp-runtime-test/libcuda.so.1",
           /*overwrite=*/1);
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
