//===- HostAllocatorLimitTest.cpp - AMP_CPU_ALLOC_CACHE_MB ----------------===//
//
// Part of amp-mlir. With AMP_CPU_ALLOC_CACHE_MB=1 (set by the test's main
// before the first allocation), at most 1 MiB is kept: a second freed MiB
// is released at once.
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/AmpRuntime.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace {

TEST(HostAllocatorLimit, KeepsAtMostTheLimit) {
  void *a = _mlir_memref_to_llvm_alloc(1 << 20);
  void *b = _mlir_memref_to_llvm_alloc(1 << 20);
  _mlir_memref_to_llvm_free(a);
  EXPECT_EQ(ampCpuAllocatorCachedBytes(), uint64_t(1) << 20);
  _mlir_memref_to_llvm_free(b);
  EXPECT_EQ(ampCpuAllocatorCachedBytes(), uint64_t(1) << 20);
}

} // namespace

int main(int argc, char **argv) {
  setenv("AMP_CPU_ALLOC_CACHE_MB", "1", /*overwrite=*/1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
