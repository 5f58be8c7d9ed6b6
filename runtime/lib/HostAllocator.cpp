//===- HostAllocator.cpp - the buffers of compiled CPU code ---------------===//
//
// Part of amp-mlir. --lower-to-cpu lowers memref.alloc and memref.dealloc to
// calls of _mlir_memref_to_llvm_alloc, _mlir_memref_to_llvm_aligned_alloc
// and _mlir_memref_to_llvm_free (finalize-memref-to-llvm's generic
// functions), defined here. A model's call allocates the same large buffers
// each time (activations, attention scores); glibc serves a large request
// with a fresh mmap and unmaps it when it is freed, so every call faulted
// in and zeroed its buffers again: 17% of a GPT-2-like prefill's time was
// the kernel's page faults (docs/performance.md). Buffers of at least 64
// KiB are kept when freed, by size class, and handed out again; smaller
// ones go straight to malloc and free. Every pointer handed out is a
// malloc'd block, so a result buffer the caller frees with free() is fine.
//
// The classes are 8 per power of two (at most 12.5% more than asked),
// multiples of 4 KiB. A freed block goes to the largest class not above its
// malloc_usable_size, which is at least the class it was allocated for. At
// most AMP_CPU_ALLOC_CACHE_MB MiB are kept (default 1024; 0 keeps none);
// ampCpuAllocatorRelease() frees them.
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/AmpRuntime.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <malloc.h>
#include <map>
#include <mutex>
#include <vector>

namespace {

constexpr uint64_t kMinCached = 64 << 10;
constexpr uint64_t kPage = 4 << 10;

/// The spacing of the classes around `size` (size >= kMinCached): an
/// eighth of the power of two at or below it, at least a page.
uint64_t classStep(uint64_t size) {
  uint64_t power = uint64_t(1) << (63 - __builtin_clzll(size));
  return std::max(power / 8, kPage);
}

/// The smallest class at least `size`.
uint64_t classAbove(uint64_t size) {
  uint64_t step = classStep(size);
  return (size + step - 1) / step * step;
}

/// The largest class at most `size`.
uint64_t classBelow(uint64_t size) {
  uint64_t step = classStep(size);
  return size / step * step;
}

struct Cache {
  std::mutex mutex;
  std::map<uint64_t, std::vector<void *>> free; // class -> blocks
  uint64_t cachedBytes = 0;
  uint64_t limit = [] {
    const char *env = std::getenv("AMP_CPU_ALLOC_CACHE_MB");
    long long mib = env ? std::atoll(env) : 1024;
    return mib > 0 ? uint64_t(mib) << 20 : uint64_t(0);
  }();
};

Cache &getCache() {
  static Cache *cache = new Cache; // Never destroyed: used until exit.
  return *cache;
}

/// The alignment of every cached block: what --lower-to-cpu asks of its
/// buffers (memref.alloc's 64 bytes, a cache line and an AVX-512 vector).
constexpr uint64_t kCachedAlignment = 64;

void *allocate(uint64_t size) {
  if (size < kMinCached)
    return std::malloc(size);
  uint64_t cls = classAbove(size);
  Cache &cache = getCache();
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto it = cache.free.find(cls);
    if (it != cache.free.end() && !it->second.empty()) {
      void *block = it->second.back();
      it->second.pop_back();
      cache.cachedBytes -= cls;
      return block;
    }
  }
  // A class is a multiple of a page, as aligned_alloc wants; free() and
  // malloc_usable_size take its blocks.
  return std::aligned_alloc(kCachedAlignment, cls);
}

void release(void *block) {
  if (!block)
    return;
  uint64_t usable = malloc_usable_size(block);
  Cache &cache = getCache();
  if (usable >= kMinCached) {
    uint64_t cls = classBelow(usable);
    std::lock_guard<std::mutex> lock(cache.mutex);
    if (cache.cachedBytes + cls <= cache.limit) {
      cache.free[cls].push_back(block);
      cache.cachedBytes += cls;
      return;
    }
  }
  std::free(block);
}

} // namespace

extern "C" void *_mlir_memref_to_llvm_alloc(uint64_t size) {
  return allocate(size);
}

extern "C" void *_mlir_memref_to_llvm_aligned_alloc(uint64_t alignment,
                                                    uint64_t size) {
  // What --lower-to-cpu calls (use-aligned-alloc): malloc's 16 bytes, or
  // the cached blocks' 64, or aligned_alloc for what they do not cover.
  if (alignment <= alignof(std::max_align_t) ||
      (alignment <= kCachedAlignment && size >= kMinCached))
    return allocate(size);
  return std::aligned_alloc(alignment,
                            (size + alignment - 1) / alignment * alignment);
}

extern "C" void _mlir_memref_to_llvm_free(void *block) { release(block); }

extern "C" uint64_t ampCpuAllocatorCachedBytes(void) {
  Cache &cache = getCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  return cache.cachedBytes;
}

extern "C" void ampCpuAllocatorRelease(void) {
  Cache &cache = getCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  for (auto &[cls, blocks] : cache.free)
    for (void *block : blocks)
      std::free(block);
  cache.free.clear();
  cache.cachedBytes = 0;
}
