//===- HostAllocatorTest.cpp - the allocator of compiled CPU code ---------===//
//
// Part of amp-mlir. lib/HostAllocator.cpp: large blocks are kept when freed
// and handed out again for a request of their size class, small ones are
// not kept, what is kept is bounded and released on request, and every
// block is a malloc'd one.
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/AmpRuntime.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

TEST(HostAllocator, LargeBlocksAreReused) {
  ampCpuAllocatorRelease();
  void *first = _mlir_memref_to_llvm_alloc(1 << 20);
  ASSERT_NE(first, nullptr);
  std::memset(first, 1, 1 << 20);
  _mlir_memref_to_llvm_free(first);
  EXPECT_GE(ampCpuAllocatorCachedBytes(), uint64_t(1) << 20);
  // The same class (eighths of the power of two below): the same block.
  void *again = _mlir_memref_to_llvm_alloc((1 << 20) - 100);
  EXPECT_EQ(again, first);
  EXPECT_EQ(ampCpuAllocatorCachedBytes(), 0u);
  // Another class: another block.
  void *larger = _mlir_memref_to_llvm_alloc(3 << 20);
  EXPECT_NE(larger, first);
  _mlir_memref_to_llvm_free(again);
  _mlir_memref_to_llvm_free(larger);
  EXPECT_GE(ampCpuAllocatorCachedBytes(), uint64_t(4) << 20);
  ampCpuAllocatorRelease();
  EXPECT_EQ(ampCpuAllocatorCachedBytes(), 0u);
}

TEST(HostAllocator, SmallBlocksAreNotKept) {
  ampCpuAllocatorRelease();
  void *small = _mlir_memref_to_llvm_alloc(1000);
  ASSERT_NE(small, nullptr);
  _mlir_memref_to_llvm_free(small);
  EXPECT_EQ(ampCpuAllocatorCachedBytes(), 0u);
  _mlir_memref_to_llvm_free(nullptr);
  EXPECT_EQ(ampCpuAllocatorCachedBytes(), 0u);
}

TEST(HostAllocator, BlocksAreMallocd) {
  // A result buffer that the caller releases with free().
  void *block = _mlir_memref_to_llvm_alloc(200000);
  ASSERT_NE(block, nullptr);
  std::free(block);
  void *aligned = _mlir_memref_to_llvm_aligned_alloc(64, 100000);
  ASSERT_NE(aligned, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(aligned) % 64, 0u);
  _mlir_memref_to_llvm_free(aligned);
  ampCpuAllocatorRelease();
}

// What --lower-to-cpu calls (use-aligned-alloc): 64-byte blocks, reused
// like the others, whatever block of the class the cache holds.
TEST(HostAllocator, AlignedBlocksAreReused) {
  ampCpuAllocatorRelease();
  for (uint64_t size :
       {uint64_t(70000), uint64_t(1) << 20, uint64_t(5) << 20}) {
    void *first = _mlir_memref_to_llvm_aligned_alloc(64, size);
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 64, 0u) << size;
    _mlir_memref_to_llvm_free(first);
    void *again = _mlir_memref_to_llvm_aligned_alloc(64, size);
    EXPECT_EQ(again, first) << size;
    _mlir_memref_to_llvm_free(again);
  }
  // Small blocks and larger alignments are aligned too.
  for (uint64_t alignment : {uint64_t(32), uint64_t(64), uint64_t(4096)}) {
    void *block = _mlir_memref_to_llvm_aligned_alloc(alignment, 1000);
    ASSERT_NE(block, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % alignment, 0u) << alignment;
    _mlir_memref_to_llvm_free(block);
  }
  ampCpuAllocatorRelease();
}

} // namespace
