//===- CpuLoopsTestMain.cpp - main of AmpRuntimeCpuLoopsTests -------------===//
//
// Part of amp-mlir. Runs CpuLibraryTest.cpp with AMP_CPU_BLAS=none, set
// before the runtime's first library call: ampCpuLibraryGemm runs its
// fallback loops, as on a machine without a CBLAS library.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <cstdlib>

int main(int argc, char **argv) {
  setenv("AMP_CPU_BLAS", "none", /*overwrite=*/1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
