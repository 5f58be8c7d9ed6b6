//===- CpuLoopsTestMain.cpp - main of the CPU library's variant tests -----===//
//
// Part of amp-mlir. Runs CpuLibraryTest.cpp with the environment of one
// variant of the CPU library calls, set before the runtime's first call:
// AMP_TEST_CPU_BLAS becomes AMP_CPU_BLAS (AmpRuntimeCpuLoopsTests: "none",
// the fallback loops, as on a machine without a CBLAS library) and
// AMP_TEST_CPU_GEMM becomes AMP_CPU_GEMM (AmpRuntimeCpuLoopsTests: "blas",
// no widening GEMM either; AmpRuntimeCpuAvx2Tests: "avx2", its AVX2
// micro-kernel on a CPU that has AVX-512).
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <cstdlib>

int main(int argc, char **argv) {
#ifdef AMP_TEST_CPU_BLAS
  setenv("AMP_CPU_BLAS", AMP_TEST_CPU_BLAS, /*overwrite=*/1);
#endif
#ifdef AMP_TEST_CPU_GEMM
  setenv("AMP_CPU_GEMM", AMP_TEST_CPU_GEMM, /*overwrite=*/1);
#endif
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
