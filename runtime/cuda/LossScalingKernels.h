//===- LossScalingKernels.h - what each kernel thread does ------*- C++ -*-===//
//
// Part of amp-mlir. The thread-level code of the loss-scaling and optimizer
// kernels (layouts, kernel names and launch shapes: LossScalingAbi.h),
// written once for two compilers:
//
//  * nvcc: cuda/LossScaling.cu wraps each kernel body below in its
//    extern "C" __global__ kernel, compiled into the fatbin that
//    libamp_runtime.so launches (lib/GpuLossScalingCuda.cpp);
//  * the host C++ compiler: sim/SimLossScaling.cpp wraps the same bodies in
//    AmpSimKernel functions that the GPU simulator (libamp_runtime_gpusim.so)
//    launches over the same grids with ampSimLaunchKernel.
//
// Why one source rather than a simulator twin written apart: the tests that
// hold the kernels to the CPU runtime (unittests/GpuLossScalingTest.cpp:
// bit-identical unscale, optimizer steps equal to ampOptimizerStep, the
// scaler's state machine) then run in CI, which has no GPU, against the very
// index arithmetic, vector/scalar splits, NaN fix-ups and rounding order the
// GPU runs. A re-implementation would only test itself, and could drift from
// the kernels unnoticed.
//
// What the two targets do differently is confined to the primitives of the
// first section, each an AMP_HD function with a __CUDA_ARCH__ branch:
//
//  * thread and block indices: the special registers, or
//    ampSimSpecialRegister;
//  * __syncthreads_or: the hardware barrier, or one of the simulator's
//    (kernels that use it are launched with AMP_SIM_KERNEL_SYNCHRONIZES, so
//    their threads run as fibers);
//  * memory accesses: plain, or through ampSimCheckAccess, which reports an
//    out-of-bounds or misaligned access (naming the kernel, block and
//    thread) instead of touching memory it should not;
//  * correctly rounded f32 arithmetic: __fmul_rn and friends (no FMA
//    contraction; the kernels are built with --fmad=false), or the host's
//    IEEE operations (SimLossScaling.cpp is built with -ffp-contract=off),
//    with the GPU's canonical NaN (0x7fffffff) for a NaN result, since the
//    GPU keeps no NaN payload (that is what the fix-ups below undo);
//  * f16/bf16 conversions: PTX cvt, or the runtime's exact host conversions
//    (InlineConvert.h) with the canonical NaN (0x7fff) that cvt.rn gives.
//
// Everything else is shared, and a change to it changes both.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_CUDA_LOSSSCALINGKERNELS_H
#define AMP_RUNTIME_CUDA_LOSSSCALINGKERNELS_H

#include "LossScalingAbi.h"

#include "amp/runtime/AmpRuntime.h"

#ifndef __CUDA_ARCH__
#include "../lib/InlineConvert.h"
#include "amp/runtime/AmpGpuSim.h"

#include <cmath>
#include <cstring>
#endif

#ifdef __CUDACC__
#define AMP_HD __host__ __device__ __forceinline__
#define AMP_UNROLL _Pragma("unroll")
#else
#define AMP_HD inline
#define AMP_UNROLL
#endif

namespace amp {
namespace rt {
namespace gpuls {
namespace kernel {

//===----------------------------------------------------------------------===//
// Primitives: the GPU's, or the simulator's
//===----------------------------------------------------------------------===//

#ifdef __CUDACC__
using ::float4;
using ::make_float4;
using ::make_uint2;
using ::make_uint4;
using ::uint2;
using ::uint4;
#else
// CUDA's vector types (vector_types.h): the same sizes and alignments.
struct alignas(8) uint2 {
  uint32_t x, y;
};
struct alignas(16) uint4 {
  uint32_t x, y, z, w;
};
struct alignas(16) float4 {
  float x, y, z, w;
};
inline uint2 make_uint2(uint32_t x, uint32_t y) { return {x, y}; }
inline uint4 make_uint4(uint32_t x, uint32_t y, uint32_t z, uint32_t w) {
  return {x, y, z, w};
}
inline float4 make_float4(float x, float y, float z, float w) {
  return {x, y, z, w};
}
#endif

/// threadIdx.x, blockIdx.x, blockDim.x, gridDim.x (every launch is 1-D).
AMP_HD unsigned threadIndex() {
#ifdef __CUDA_ARCH__
  return threadIdx.x;
#else
  return static_cast<unsigned>(ampSimSpecialRegister(AMP_SIM_TID_X));
#endif
}
AMP_HD unsigned blockIndex() {
#ifdef __CUDA_ARCH__
  return blockIdx.x;
#else
  return static_cast<unsigned>(ampSimSpecialRegister(AMP_SIM_CTAID_X));
#endif
}
AMP_HD unsigned blockSize() {
#ifdef __CUDA_ARCH__
  return blockDim.x;
#else
  return static_cast<unsigned>(ampSimSpecialRegister(AMP_SIM_NTID_X));
#endif
}
AMP_HD unsigned gridSize() {
#ifdef __CUDA_ARCH__
  return gridDim.x;
#else
  return static_cast<unsigned>(ampSimSpecialRegister(AMP_SIM_NCTAID_X));
#endif
}

#ifndef __CUDA_ARCH__
/// __syncthreads_or on the simulator's barrier (sim/SimLossScaling.cpp).
int simSyncthreadsOr(int predicate);
#endif

/// __syncthreads_or: a barrier of the block, then whether any of its
/// threads that have not exited passed a nonzero predicate.
AMP_HD int syncthreadsOr(int predicate) {
#ifdef __CUDA_ARCH__
  return __syncthreads_or(predicate);
#else
  return simSyncthreadsOr(predicate);
#endif
}

/// `*p` of device memory.
template <typename T> AMP_HD T load(const T *p) {
#ifdef __CUDA_ARCH__
  return *p;
#else
  T value;
  std::memcpy(&value,
              ampSimCheckAccess(const_cast<T *>(p), sizeof(T),
                                static_cast<int32_t>(alignof(T) << 8)),
              sizeof(T));
  return value;
#endif
}

/// `*p = value` to device memory.
template <typename T> AMP_HD void store(T *p, const T &value) {
#ifdef __CUDA_ARCH__
  *p = value;
#else
  std::memcpy(ampSimCheckAccess(p, sizeof(T),
                                static_cast<int32_t>(1 | alignof(T) << 8)),
              &value, sizeof(T));
#endif
}

AMP_HD uint32_t floatAsUint(float value) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(value);
#else
  return floatBits(value);
#endif
}
AMP_HD float uintAsFloat(uint32_t bits) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(bits);
#else
  return bitsFloat(bits);
#endif
}

#ifndef __CUDA_ARCH__
/// The result of an f32 operation as the GPU gives it: a NaN is 0x7fffffff.
inline float gpuResult(float value) {
  return value != value ? bitsFloat(0x7fffffffu) : value;
}
#endif

/// Correctly rounded f32 operations, never contracted into an FMA.
AMP_HD float fmulRn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return gpuResult(a * b);
#endif
}
AMP_HD float faddRn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fadd_rn(a, b);
#else
  return gpuResult(a + b);
#endif
}
AMP_HD float fsubRn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fsub_rn(a, b);
#else
  return gpuResult(a - b);
#endif
}
AMP_HD float fdivRn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fdiv_rn(a, b);
#else
  return gpuResult(a / b);
#endif
}
AMP_HD float fsqrtRn(float a) {
#ifdef __CUDA_ARCH__
  return __fsqrt_rn(a);
#else
  return gpuResult(std::sqrt(a));
#endif
}
/// IEEE double square root (only of valid configurations: never NaN).
AMP_HD double sqrtDouble(double a) {
#ifdef __CUDA_ARCH__
  return sqrt(a);
#else
  return std::sqrt(a);
#endif
}

/// The binary16 in the low 16 bits of `h` as fp32 (exact).
AMP_HD float f16ToF32(uint32_t h) {
#ifdef __CUDA_ARCH__
  unsigned short bits = static_cast<unsigned short>(h);
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(bits));
  return f;
#else
  return ::amp::rt::f16ToF32(static_cast<uint16_t>(h));
#endif
}

/// {lo, hi} rounded to nearest even into one f16x2 word (lo in bits 0-15).
/// Non-NaN values round exactly like ampF32ToF16 (subnormals, overflow to
/// Inf); NaNs give the hardware's canonical NaN and are fixed by callers.
AMP_HD uint32_t packF16x2Raw(float lo, float hi) {
#ifdef __CUDA_ARCH__
  uint32_t d;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
  return d;
#else
  auto one = [](float x) -> uint32_t {
    return x != x ? 0x7fffu : ::amp::rt::f32ToF16(x);
  };
  return one(lo) | (one(hi) << 16);
#endif
}
AMP_HD uint32_t packBF16x2Raw(float lo, float hi) {
#ifdef __CUDA_ARCH__
  uint32_t d;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
  return d;
#else
  auto one = [](float x) -> uint32_t {
    return x != x ? 0x7fffu : ::amp::rt::f32ToBF16(x);
  };
  return one(lo) | (one(hi) << 16);
#endif
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

/// The bfloat16 in the low 16 bits of `h` as fp32 (exact).
AMP_HD float bf16ToF32(uint32_t h) { return uintAsFloat(h << 16); }

/// Convert.cpp's NaN encodings (quietened, top payload bits kept).
AMP_HD uint32_t f16NaN(uint32_t f) {
  return ((f >> 16) & 0x8000u) | 0x7e00u | ((f >> 13) & 0x3ffu);
}
AMP_HD uint32_t bf16NaN(uint32_t f) { return (f >> 16) | 0x0040u; }
AMP_HD bool isNaNBits(uint32_t f) { return (f & 0x7fffffffu) > 0x7f800000u; }

/// Exact ampF32ToF16 / ampF32ToBF16 of two values, NaNs included.
AMP_HD uint32_t packF16x2(float lo, float hi) {
  uint32_t d = packF16x2Raw(lo, hi);
  uint32_t lb = floatAsUint(lo), hb = floatAsUint(hi);
  if (isNaNBits(lb))
    d = (d & 0xffff0000u) | f16NaN(lb);
  if (isNaNBits(hb))
    d = (d & 0x0000ffffu) | (f16NaN(hb) << 16);
  return d;
}
AMP_HD uint32_t packBF16x2(float lo, float hi) {
  uint32_t d = packBF16x2Raw(lo, hi);
  uint32_t lb = floatAsUint(lo), hb = floatAsUint(hi);
  if (isNaNBits(lb))
    d = (d & 0xffff0000u) | bf16NaN(lb);
  if (isNaNBits(hb))
    d = (d & 0x0000ffffu) | (bf16NaN(hb) << 16);
  return d;
}

//===----------------------------------------------------------------------===//
// Check finite and unscale
//===----------------------------------------------------------------------===//

/// Each op transforms one 32-bit word (1 x f32 or 2 x f16/bf16) in place
/// semantics: y = round(float(x) * inv), `bad` set if a RESULT is not finite.
/// The kernels only run with a valid inv (finite and > 0, checked on the
/// device first), for which a non-finite input always gives a non-finite
/// result: the flag covers what is read and what is written (finite inputs
/// that overflow), like the CPU kernels.
struct UnscaleF32 {
  static constexpr int kElementBytes = 4;
  AMP_HD static uint32_t word(uint32_t x, float inv, uint32_t &bad) {
    uint32_t abs = x & 0x7fffffffu;
    uint32_t y = floatAsUint(fmulRn(uintAsFloat(x), inv));
    // x86 keeps the NaN operand's payload (quietened); the GPU would not.
    y = abs > 0x7f800000u ? (x | 0x00400000u) : y;
    bad |= (y & 0x7f800000u) == 0x7f800000u ? 1u : 0u;
    return y;
  }
};

struct UnscaleF16 {
  static constexpr int kElementBytes = 2;
  AMP_HD static uint32_t word(uint32_t w, float inv, uint32_t &bad) {
    uint32_t y = packF16x2Raw(fmulRn(f16ToF32(w & 0xffffu), inv),
                              fmulRn(f16ToF32(w >> 16), inv));
    bool nonFiniteLo = (w & 0x00007c00u) == 0x00007c00u;
    bool nonFiniteHi = (w & 0x7c000000u) == 0x7c000000u;
    if (nonFiniteLo || nonFiniteHi) {
      // NaN h: ampF32ToF16(quiet(float(h))) == h | 0x200.
      if (nonFiniteLo && (w & 0x000003ffu))
        y = (y & 0xffff0000u) | ((w | 0x0200u) & 0x0000ffffu);
      if (nonFiniteHi && (w & 0x03ff0000u))
        y = (y & 0x0000ffffu) | ((w | 0x02000000u) & 0xffff0000u);
    }
    if ((y & 0x00007c00u) == 0x00007c00u || (y & 0x7c000000u) == 0x7c000000u)
      bad = 1u;
    return y;
  }
};

struct UnscaleBF16 {
  static constexpr int kElementBytes = 2;
  AMP_HD static uint32_t word(uint32_t w, float inv, uint32_t &bad) {
    uint32_t y = packBF16x2Raw(fmulRn(bf16ToF32(w & 0xffffu), inv),
                               fmulRn(uintAsFloat(w & 0xffff0000u), inv));
    bool nonFiniteLo = (w & 0x00007f80u) == 0x00007f80u;
    bool nonFiniteHi = (w & 0x7f800000u) == 0x7f800000u;
    if (nonFiniteLo || nonFiniteHi) {
      // NaN h: ampF32ToBF16(quiet(float(h))) == h | 0x40.
      if (nonFiniteLo && (w & 0x0000007fu))
        y = (y & 0xffff0000u) | ((w | 0x0040u) & 0x0000ffffu);
      if (nonFiniteHi && (w & 0x007f0000u))
        y = (y & 0x0000ffffu) | ((w | 0x00400000u) & 0xffff0000u);
    }
    if ((y & 0x00007f80u) == 0x00007f80u || (y & 0x7f800000u) == 0x7f800000u)
      bad = 1u;
    return y;
  }
};

template <typename Op, bool Write>
AMP_HD void unscaleScalar(char *base, int64_t i, float inv, uint32_t &bad) {
  if (Op::kElementBytes == 4) {
    uint32_t *p = reinterpret_cast<uint32_t *>(base) + i;
    uint32_t y = Op::word(load(p), inv, bad);
    if (Write)
      store(p, y);
  } else {
    // The upper half is 0 (finite) and dropped.
    unsigned short *p = reinterpret_cast<unsigned short *>(base) + i;
    uint32_t y = Op::word(load(p), inv, bad);
    if (Write)
      store(p, static_cast<unsigned short>(y));
  }
}

template <typename Op>
AMP_HD uint4 unscaleVector(uint4 v, float inv, uint32_t &bad) {
  return make_uint4(Op::word(v.x, inv, bad), Op::word(v.y, inv, bad),
                    Op::word(v.z, inv, bad), Op::word(v.w, inv, bad));
}

/// Blocks loop over the work items; within an item, the elements before the
/// first 16-byte boundary and after the last one are done one by one (at
/// most one per thread), the rest with 16-byte accesses, four in flight per
/// thread. Without `Write` (inv_scale == 1) nothing is stored: x * 1 == x
/// for every non-NaN x, and NaNs keep their bits, as on the CPU.
template <typename Op, bool Write>
AMP_HD uint32_t checkUnscaleItems(const CheckItem *items, int64_t numItems,
                                  float inv) {
  constexpr int64_t kBlock = kCheckBlockSize;
  constexpr int64_t kPerVector = 16 / Op::kElementBytes;
  constexpr int kUnroll = 4;
  const int64_t tid = threadIndex();
  uint32_t bad = 0;
  for (int64_t item = blockIndex(); item < numItems; item += gridSize()) {
    const CheckItem work = load(&items[item]);
    const uint64_t address = work.address;
    const int64_t count = work.count;
    char *base = reinterpret_cast<char *>(address);
    // Table creation checked that address is a multiple of the element size.
    int64_t head =
        static_cast<int64_t>((16u - (address & 15u)) & 15u) / Op::kElementBytes;
    if (head > count)
      head = count;
    const int64_t numVectors = (count - head) / kPerVector;
    const int64_t tailStart = head + numVectors * kPerVector;
    // head < kPerVector and count - tailStart < kPerVector (<= kBlock).
    if (tid < head)
      unscaleScalar<Op, Write>(base, tid, inv, bad);
    if (tailStart + tid < count)
      unscaleScalar<Op, Write>(base, tailStart + tid, inv, bad);
    uint4 *vectors = reinterpret_cast<uint4 *>(base + head * Op::kElementBytes);
    int64_t i = tid;
    for (; i + (kUnroll - 1) * kBlock < numVectors; i += kUnroll * kBlock) {
      uint4 v[kUnroll];
      AMP_UNROLL
      for (int u = 0; u < kUnroll; ++u)
        v[u] = load(&vectors[i + u * kBlock]);
      AMP_UNROLL
      for (int u = 0; u < kUnroll; ++u) {
        uint4 y = unscaleVector<Op>(v[u], inv, bad);
        if (Write)
          store(&vectors[i + u * kBlock], y);
      }
    }
    for (; i < numVectors; i += kBlock) {
      uint4 y = unscaleVector<Op>(load(&vectors[i]), inv, bad);
      if (Write)
        store(&vectors[i], y);
    }
  }
  return bad;
}

/// The kernels amp_ls_check_unscale_{f32,f16,bf16}. One store of 1.0f per
/// block that saw a non-finite result (idempotent, no atomics; found_inf is
/// only ever set here, cleared by BeginStep). An invalid inverse scale (NaN,
/// Inf, <= 0) sets found_inf and writes nothing: the value is only known
/// here, so the call cannot reject it.
template <typename Op>
AMP_HD void checkUnscale(const CheckItem *items, int64_t numItems,
                         const float *invScale, float *foundInf) {
  const float inv = load(invScale);
  if (!isValidInverseScale(inv)) {
    // Uniform across the block: every thread returns before any barrier.
    if (blockIndex() == 0 && threadIndex() == 0)
      store(foundInf, 1.0f);
    return;
  }
  uint32_t bad = inv == 1.0f
                     ? checkUnscaleItems<Op, false>(items, numItems, inv)
                     : checkUnscaleItems<Op, true>(items, numItems, inv);
  if (syncthreadsOr(static_cast<int>(bad)) && threadIndex() == 0)
    store(foundInf, 1.0f);
}

//===----------------------------------------------------------------------===//
// Check finite and unscale of one buffer
//===----------------------------------------------------------------------===//

/// Element `i` of `in` to element `i` of `out`: the unscaled value with
/// `Scale`, else the input bits unchanged; nothing is stored without
/// `Write`.
template <typename Op, bool Scale, bool Write>
AMP_HD void bufferScalar(const char *in, char *out, int64_t i, float inv,
                         uint32_t &bad) {
  if (Op::kElementBytes == 4) {
    uint32_t x = load(reinterpret_cast<const uint32_t *>(in) + i);
    uint32_t y = Op::word(x, inv, bad);
    if (Write)
      store(reinterpret_cast<uint32_t *>(out) + i, Scale ? y : x);
  } else {
    // The upper half is 0 (finite) and dropped.
    uint32_t x = load(reinterpret_cast<const unsigned short *>(in) + i);
    uint32_t y = Op::word(x, inv, bad);
    if (Write)
      store(reinterpret_cast<unsigned short *>(out) + i,
            static_cast<unsigned short>(Scale ? y : x));
  }
}

/// The whole grid strides over the buffer. When `in` and `out` have the same
/// offset from a 16-byte boundary, the elements before the first boundary
/// and after the last one are done one by one (fewer than a vector's worth
/// each, by the first threads of the grid) and the rest with 16-byte
/// accesses, four in flight per thread, as in checkUnscaleItems; otherwise
/// every element is done one by one. `in` == `out` is fine: each element is
/// read before it is written, by the same thread.
/// `block` of `numBlocks` (the whole grid for one buffer, a slice of it for
/// a table entry).
template <typename Op, bool Scale, bool Write>
AMP_HD uint32_t unscaleBufferRange(const char *in, char *out, int64_t numel,
                                   float inv, int64_t block,
                                   int64_t numBlocks) {
  constexpr int64_t kPerVector = 16 / Op::kElementBytes;
  constexpr int kUnroll = 4;
  const int64_t thread = block * blockSize() + threadIndex();
  const int64_t stride = numBlocks * blockSize();
  const uint64_t inAddress = reinterpret_cast<uint64_t>(in);
  const uint64_t outAddress = reinterpret_cast<uint64_t>(out);
  uint32_t bad = 0;
  int64_t head = 0, numVectors = 0;
  if (((inAddress ^ outAddress) & 15u) == 0) {
    // The host checked that both are multiples of the element size.
    head = static_cast<int64_t>((16u - (inAddress & 15u)) & 15u) /
           Op::kElementBytes;
    if (head > numel)
      head = numel;
    numVectors = (numel - head) / kPerVector;
  }
  const int64_t tailStart = head + numVectors * kPerVector;
  if (thread < head)
    bufferScalar<Op, Scale, Write>(in, out, thread, inv, bad);
  for (int64_t i = tailStart + thread; i < numel; i += stride)
    bufferScalar<Op, Scale, Write>(in, out, i, inv, bad);
  const uint4 *src =
      reinterpret_cast<const uint4 *>(in + head * Op::kElementBytes);
  uint4 *dst = reinterpret_cast<uint4 *>(out + head * Op::kElementBytes);
  int64_t i = thread;
  for (; i + (kUnroll - 1) * stride < numVectors; i += kUnroll * stride) {
    uint4 v[kUnroll];
    AMP_UNROLL
    for (int u = 0; u < kUnroll; ++u)
      v[u] = load(&src[i + u * stride]);
    AMP_UNROLL
    for (int u = 0; u < kUnroll; ++u) {
      uint4 y = unscaleVector<Op>(v[u], inv, bad);
      if (Write)
        store(&dst[i + u * stride], Scale ? y : v[u]);
    }
  }
  for (; i < numVectors; i += stride) {
    uint4 v = load(&src[i]);
    uint4 y = unscaleVector<Op>(v, inv, bad);
    if (Write)
      store(&dst[i], Scale ? y : v);
  }
  return bad;
}

/// One buffer (or table entry), `inv` valid, as block `block` of
/// `numBlocks`: the multiplication-free cases as described below.
template <typename Op>
AMP_HD uint32_t unscaleBufferBlock(const void *in, void *out, int64_t numel,
                                   float inv, int64_t block,
                                   int64_t numBlocks) {
  const char *src = static_cast<const char *>(in);
  char *dst = static_cast<char *>(out);
  return inv != 1.0f ? unscaleBufferRange<Op, true, true>(src, dst, numel, inv,
                                                          block, numBlocks)
         : src != dst
             ? unscaleBufferRange<Op, false, true>(src, dst, numel, inv, block,
                                                   numBlocks)
             : unscaleBufferRange<Op, false, false>(src, dst, numel, inv, block,
                                                    numBlocks);
}

/// The kernels amp_ls_unscale_buffer_{f32,f16,bf16}. With inv_scale == 1
/// nothing is multiplied, exactly like the CPU: in place, nothing is stored
/// (x * 1 == x for every non-NaN x, and NaNs keep their bits, signalling
/// ones included); out of place, the bits are copied. One store of 1 per
/// block that saw a non-finite result (no atomics; the flag is never
/// cleared here). An invalid inverse scale (NaN, Inf, <= 0) sets the flag
/// and writes nothing else, as on the CPU (ampCpuCheckFiniteAndUnscaleBuffer).
template <typename Op>
AMP_HD void unscaleBuffer(const void *in, void *out, int64_t numel,
                          const float *invScale, uint8_t *foundInf) {
  const float inv = load(invScale);
  if (!isValidInverseScale(inv)) {
    // Uniform across the block: every thread returns before any barrier.
    if (blockIndex() == 0 && threadIndex() == 0)
      store(foundInf, uint8_t(1));
    return;
  }
  uint32_t bad =
      unscaleBufferBlock<Op>(in, out, numel, inv, blockIndex(), gridSize());
  if (syncthreadsOr(static_cast<int>(bad)) && threadIndex() == 0)
    store(foundInf, uint8_t(1));
}

/// The entry of a table kernel's `block`: the last i < count with
/// firstBlock[i] <= block (uniform across the block).
AMP_HD int tableEntry(const int32_t *firstBlock, int count, int32_t block) {
  int lo = 0, hi = count - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (firstBlock[mid] <= block)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/// The kernel amp_ls_unscale_buffers: every entry of `table` in one launch
/// (ampGpuCheckFiniteAndUnscaleBuffers). Block b works on the entry whose
/// [firstBlock[i], firstBlock[i+1]) holds b, exactly as the one-buffer
/// kernel would with that many blocks. An invalid inverse scale sets the
/// flag (block 0) and writes nothing. `table` is the kernel parameter
/// itself, not device memory.
AMP_HD void unscaleBuffers(const BufferTable &table) {
  const float inv = load(reinterpret_cast<const float *>(table.invScale));
  uint8_t *foundInf = reinterpret_cast<uint8_t *>(table.foundInf);
  if (!isValidInverseScale(inv)) {
    if (blockIndex() == 0 && threadIndex() == 0)
      store(foundInf, uint8_t(1));
    return;
  }
  const int32_t block = static_cast<int32_t>(blockIndex());
  const int i = tableEntry(table.firstBlock, table.count, block);
  const void *in = reinterpret_cast<const void *>(table.in[i]);
  void *out = reinterpret_cast<void *>(table.out[i]);
  const int64_t local = block - table.firstBlock[i];
  const int64_t blocks = table.firstBlock[i + 1] - table.firstBlock[i];
  uint32_t bad = 0;
  switch (table.dtype[i]) {
  case AMP_DTYPE_F16:
    bad = unscaleBufferBlock<UnscaleF16>(in, out, table.numel[i], inv, local,
                                         blocks);
    break;
  case AMP_DTYPE_BF16:
    bad = unscaleBufferBlock<UnscaleBF16>(in, out, table.numel[i], inv, local,
                                          blocks);
    break;
  default:
    bad = unscaleBufferBlock<UnscaleF32>(in, out, table.numel[i], inv, local,
                                         blocks);
    break;
  }
  if (syncthreadsOr(static_cast<int>(bad)) && threadIndex() == 0)
    store(foundInf, uint8_t(1));
}

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

/// Per-launch constants of an optimizer step (t = record->t + 1), computed
/// exactly as ampOptimizerStep does: in double, rounded to float once.
struct StepConstants {
  float lr, weightDecay;
  float momentum, oneMinusDampening;
  bool nesterov;
  bool firstStep; // t == 1: Momentum sets its velocity to d.
  float decay;    // AdamW: 1 - lr * wd.
  float beta1, oneMinusBeta1, beta2, oneMinusBeta2;
  float stepSize;      // lr / (1 - beta1^t)
  float biasCorr2Sqrt; // sqrt(1 - beta2^t)
  float eps;
};

AMP_HD StepConstants stepConstants(const AmpOptimizerConfig &c,
                                   const OptStepRecord &record) {
  StepConstants k;
  const double lr = c.lr, wd = c.weight_decay;
  const double beta1 = c.beta1, beta2 = c.beta2;
  k.lr = c.lr;
  // AdamW decays p instead of adding wd * p to g.
  k.weightDecay = c.kind == AMP_OPTIMIZER_ADAMW ? 0.0f : c.weight_decay;
  k.momentum = c.momentum;
  k.oneMinusDampening =
      static_cast<float>(1.0 - static_cast<double>(c.dampening));
  k.nesterov = c.nesterov != 0;
  k.firstStep = record.t + 1 == 1;
  k.decay = static_cast<float>(1.0 - lr * wd);
  k.beta1 = c.beta1;
  k.beta2 = c.beta2;
  k.oneMinusBeta1 = static_cast<float>(1.0 - beta1);
  k.oneMinusBeta2 = static_cast<float>(1.0 - beta2);
  const double beta1Power = record.beta1Pow * beta1;
  const double beta2Power = record.beta2Pow * beta2;
  k.stepSize = static_cast<float>(lr / (1.0 - beta1Power));
  k.biasCorr2Sqrt = static_cast<float>(sqrtDouble(1.0 - beta2Power));
  k.eps = c.eps;
  return k;
}

/// The fp32 update of one element, the same operations in the same order
/// as Optimizers.cpp (each rounded: no FMA contraction). `s0`/`s1` are the
/// state values (the ones a kind does not use are ignored).
template <int Kind>
AMP_HD void updateElement(const StepConstants &k, float &p, float g, float &s0,
                          float &s1) {
  if (Kind == AMP_OPTIMIZER_SGD) {
    float d = faddRn(g, fmulRn(k.weightDecay, p));
    p = fsubRn(p, fmulRn(k.lr, d));
  } else if (Kind == AMP_OPTIMIZER_MOMENTUM) {
    float d = faddRn(g, fmulRn(k.weightDecay, p));
    float buf = k.firstStep ? d
                            : faddRn(fmulRn(k.momentum, s0),
                                     fmulRn(k.oneMinusDampening, d));
    s0 = buf;
    d = k.nesterov ? faddRn(d, fmulRn(k.momentum, buf)) : buf;
    p = fsubRn(p, fmulRn(k.lr, d));
  } else {
    if (Kind == AMP_OPTIMIZER_ADAMW)
      p = fmulRn(p, k.decay);
    else
      g = faddRn(g, fmulRn(k.weightDecay, p));
    float m = faddRn(fmulRn(k.beta1, s0), fmulRn(k.oneMinusBeta1, g));
    float v =
        faddRn(fmulRn(k.beta2, s1), fmulRn(fmulRn(k.oneMinusBeta2, g), g));
    s0 = m;
    s1 = v;
    float denom = faddRn(fdivRn(fsqrtRn(v), k.biasCorr2Sqrt), k.eps);
    p = fsubRn(p, fdivRn(fmulRn(k.stepSize, m), denom));
  }
}

template <int Kind> struct KindTraits {
  static constexpr bool kState0 = Kind != AMP_OPTIMIZER_SGD;
  static constexpr bool kState1 =
      Kind == AMP_OPTIMIZER_ADAM || Kind == AMP_OPTIMIZER_ADAMW;
};

AMP_HD float loadGrad(const OptTensor &t, int64_t i, float inv) {
  float g;
  if (t.gradType == AMP_DTYPE_F32)
    g = load(reinterpret_cast<const float *>(t.grad) + i);
  else if (t.gradType == AMP_DTYPE_F16)
    g = f16ToF32(load(reinterpret_cast<const unsigned short *>(t.grad) + i));
  else
    g = bf16ToF32(load(reinterpret_cast<const unsigned short *>(t.grad) + i));
  return fmulRn(g, inv);
}

AMP_HD void loadGrad4(const OptTensor &t, int64_t i, float inv, float g[4]) {
  if (t.gradType == AMP_DTYPE_F32) {
    float4 v = load(reinterpret_cast<const float4 *>(t.grad) + i / 4);
    g[0] = v.x, g[1] = v.y, g[2] = v.z, g[3] = v.w;
  } else {
    uint2 v = load(reinterpret_cast<const uint2 *>(t.grad) + i / 4);
    if (t.gradType == AMP_DTYPE_F16) {
      g[0] = f16ToF32(v.x & 0xffffu), g[1] = f16ToF32(v.x >> 16);
      g[2] = f16ToF32(v.y & 0xffffu), g[3] = f16ToF32(v.y >> 16);
    } else {
      g[0] = bf16ToF32(v.x & 0xffffu), g[1] = uintAsFloat(v.x & 0xffff0000u);
      g[2] = bf16ToF32(v.y & 0xffffu), g[3] = uintAsFloat(v.y & 0xffff0000u);
    }
  }
  AMP_UNROLL
  for (int j = 0; j < 4; ++j)
    g[j] = fmulRn(g[j], inv);
}

AMP_HD void storeLowp(const OptTensor &t, int64_t i, float p) {
  if (t.lowpType == kNoLowp)
    return;
  if (t.lowpType == AMP_DTYPE_F32) {
    store(reinterpret_cast<float *>(t.lowp) + i, p);
    return;
  }
  uint32_t bits =
      t.lowpType == AMP_DTYPE_F16 ? packF16x2(p, 0.0f) : packBF16x2(p, 0.0f);
  store(reinterpret_cast<unsigned short *>(t.lowp) + i,
        static_cast<unsigned short>(bits));
}

AMP_HD void storeLowp4(const OptTensor &t, int64_t i, const float p[4]) {
  if (t.lowpType == kNoLowp)
    return;
  if (t.lowpType == AMP_DTYPE_F32) {
    store(reinterpret_cast<float4 *>(t.lowp) + i / 4,
          make_float4(p[0], p[1], p[2], p[3]));
    return;
  }
  uint2 v = t.lowpType == AMP_DTYPE_F16
                ? make_uint2(packF16x2(p[0], p[1]), packF16x2(p[2], p[3]))
                : make_uint2(packBF16x2(p[0], p[1]), packBF16x2(p[2], p[3]));
  store(reinterpret_cast<uint2 *>(t.lowp) + i / 4, v);
}

/// A found_inf that is set, or an inverse scale that is not finite and > 0
/// (the unscale rule; the CPU optimizer rejects such a value on the host):
/// the step is skipped.
AMP_HD bool skipStep(const float *foundInf, const float *invScale) {
  return (foundInf && load(foundInf) != 0.0f) ||
         (invScale && !isValidInverseScale(load(invScale)));
}

/// Where the update of one parameter writes: its master and state (device
/// addresses; each equal to OptTensor's for an update in place).
struct OptOutputs {
  uint64_t master, state0, state1;
};

/// The update of elements [start, end) of one parameter by the threads of
/// one block, reading `t` and writing `out`: 4 at a time where every
/// pointer allows (`vectorized`), then one at a time.
template <int Kind>
AMP_HD void updateRange(const OptTensor &t, const OptOutputs &out,
                        bool vectorized, int64_t start, int64_t end, float inv,
                        const StepConstants &k) {
  using Traits = KindTraits<Kind>;
  const int64_t tid = threadIndex();
  constexpr int64_t kBlock = kOptBlockSize;
  const float *master = reinterpret_cast<const float *>(t.master);
  const float *state0 = reinterpret_cast<const float *>(t.state0);
  const float *state1 = reinterpret_cast<const float *>(t.state1);
  float *masterOut = reinterpret_cast<float *>(out.master);
  float *state0Out = reinterpret_cast<float *>(out.state0);
  float *state1Out = reinterpret_cast<float *>(out.state1);
  int64_t scalarStart = start;
  if (vectorized) {
    // start is a multiple of 4 and every pointer is aligned for 4 elements.
    const int64_t vectorEnd = start + ((end - start) & ~int64_t(3));
    for (int64_t i = start + 4 * tid; i < vectorEnd; i += 4 * kBlock) {
      float g[4], p[4], s0[4] = {0, 0, 0, 0}, s1[4] = {0, 0, 0, 0};
      loadGrad4(t, i, inv, g);
      float4 pv = load(reinterpret_cast<const float4 *>(master) + i / 4);
      p[0] = pv.x, p[1] = pv.y, p[2] = pv.z, p[3] = pv.w;
      if (Traits::kState0) {
        float4 v = load(reinterpret_cast<const float4 *>(state0) + i / 4);
        s0[0] = v.x, s0[1] = v.y, s0[2] = v.z, s0[3] = v.w;
      }
      if (Traits::kState1) {
        float4 v = load(reinterpret_cast<const float4 *>(state1) + i / 4);
        s1[0] = v.x, s1[1] = v.y, s1[2] = v.z, s1[3] = v.w;
      }
      AMP_UNROLL
      for (int j = 0; j < 4; ++j)
        updateElement<Kind>(k, p[j], g[j], s0[j], s1[j]);
      store(reinterpret_cast<float4 *>(masterOut) + i / 4,
            make_float4(p[0], p[1], p[2], p[3]));
      if (Traits::kState0)
        store(reinterpret_cast<float4 *>(state0Out) + i / 4,
              make_float4(s0[0], s0[1], s0[2], s0[3]));
      if (Traits::kState1)
        store(reinterpret_cast<float4 *>(state1Out) + i / 4,
              make_float4(s1[0], s1[1], s1[2], s1[3]));
      storeLowp4(t, i, p);
    }
    scalarStart = vectorEnd;
  }
  for (int64_t i = scalarStart + tid; i < end; i += kBlock) {
    float g = loadGrad(t, i, inv);
    float p = load(master + i);
    float s0 = Traits::kState0 ? load(state0 + i) : 0.0f;
    float s1 = Traits::kState1 ? load(state1 + i) : 0.0f;
    updateElement<Kind>(k, p, g, s0, s1);
    store(masterOut + i, p);
    if (Traits::kState0)
      store(state0Out + i, s0);
    if (Traits::kState1)
      store(state1Out + i, s1);
    storeLowp(t, i, p);
  }
}

/// The kernels amp_opt_{sgd,momentum,adam,adamw}.
template <int Kind>
AMP_HD void optimizerStep(const OptTensor *tensors, const OptItem *items,
                          int64_t numItems, const OptStepRecord *record,
                          const float *foundInf, const float *invScale,
                          const AmpOptimizerConfig &config) {
  // The two-phase rule: nothing is read or written on a skipped step.
  if (skipStep(foundInf, invScale))
    return;
  const float inv = invScale ? load(invScale) : 1.0f;
  const StepConstants k = stepConstants(config, load(record));
  for (int64_t item = blockIndex(); item < numItems; item += gridSize()) {
    const OptItem work = load(&items[item]);
    const OptTensor t = load(&tensors[work.tensor]);
    const int64_t start = work.start;
    const int64_t end = t.numel - start < kOptChunkElements
                            ? t.numel
                            : start + kOptChunkElements;
    updateRange<Kind>(t, OptOutputs{t.master, t.state0, t.state1},
                      t.vectorized != 0, start, end, inv, k);
  }
}

/// beta^t in double by binary powering (the same bits on every device).
AMP_HD double powerOf(double beta, int64_t t) {
  double result = 1.0;
  for (; t > 0; t >>= 1, beta *= beta)
    if (t & 1)
      result *= beta;
  return result;
}

/// The kernel amp_opt_update_buffers: the optimizer update of a compiled
/// step (ampGpuOptimizerUpdateBuffers). Block b works on the entry whose
/// [firstBlock[i], firstBlock[i+1]) holds b and takes its chunks b, b +
/// blocks, ... `table` is the kernel parameter itself, not device memory.
/// The gradients are already unscaled; the step count and the settings come
/// from the table, t = *step + 1.
/// The copy of elements [start, end) of the values `keep` names (master,
/// state0, state1) to their destinations, where a destination is not its
/// value's own buffer: a skipped step's values, and a state that the kind
/// does not update (Momentum 0 is plain SGD).
AMP_HD void keepRange(const OptTensor &t, const OptOutputs &out, int64_t start,
                      int64_t end, const bool keep[3]) {
  const uint64_t from[3] = {t.master, t.state0, t.state1};
  const uint64_t to[3] = {out.master, out.state0, out.state1};
  for (int a = 0; a < 3; ++a) {
    if (!keep[a] || from[a] == 0 || from[a] == to[a])
      continue;
    const float *src = reinterpret_cast<const float *>(from[a]);
    float *dst = reinterpret_cast<float *>(to[a]);
    for (int64_t i = start + threadIndex(); i < end; i += kOptBlockSize)
      store(dst + i, load(src + i));
  }
}

template <int Kind>
AMP_HD void optimizerUpdateBuffers(const OptBufferTable &table) {
  // A skipped step reads no gradient and changes no value: a destination
  // that is not its value's own buffer receives a copy.
  const bool skipped = load(reinterpret_cast<const uint8_t *>(table.skip)) != 0;
  const int64_t before = load(reinterpret_cast<const int32_t *>(table.step));
  OptStepRecord record;
  record.t = before;
  record.beta1Pow = powerOf(table.config.beta1, before);
  record.beta2Pow = powerOf(table.config.beta2, before);
  const StepConstants k = stepConstants(table.config, record);
  const int32_t block = static_cast<int32_t>(blockIndex());
  const int i = tableEntry(table.firstBlock, table.count, block);
  OptTensor t;
  t.master = table.param[i];
  t.lowp = 0;
  t.grad = table.grad[i];
  t.state0 = table.state0[i];
  t.state1 = table.state1[i];
  t.numel = table.numel[i];
  t.lowpType = kNoLowp;
  t.gradType = table.gradType[i];
  t.vectorized = 0;
  t.reserved = 0;
  const OptOutputs out{table.paramOut[i], table.state0Out[i],
                       table.state1Out[i]};
  // 4 elements at a time where every pointer is 16-byte aligned (the
  // gradient: 4 of its elements).
  const uint64_t gradAlign = t.gradType == AMP_DTYPE_F32 ? 16 : 8;
  const bool vectorized =
      ((t.master | t.state0 | t.state1 | out.master | out.state0 | out.state1) %
           16 ==
       0) &&
      t.grad % gradAlign == 0;
  const int64_t local = block - table.firstBlock[i];
  const int64_t blocks = table.firstBlock[i + 1] - table.firstBlock[i];
  for (int64_t start = local * kOptChunkElements; start < t.numel;
       start += blocks * kOptChunkElements) {
    const int64_t end = t.numel - start < kOptChunkElements
                            ? t.numel
                            : start + kOptChunkElements;
    if (skipped) {
      const bool all[3] = {true, true, true};
      keepRange(t, out, start, end, all);
      continue;
    }
    updateRange<Kind>(t, out, vectorized, start, end, 1.0f, k);
    const bool unused[3] = {false, !KindTraits<Kind>::kState0,
                            !KindTraits<Kind>::kState1};
    keepRange(t, out, start, end, unused);
  }
}

/// amp_opt_update_buffers over the kinds (uniform across the launch).
AMP_HD void optimizerUpdateTable(const OptBufferTable &table) {
  switch (table.config.kind) {
  case AMP_OPTIMIZER_SGD:
    optimizerUpdateBuffers<AMP_OPTIMIZER_SGD>(table);
    break;
  case AMP_OPTIMIZER_MOMENTUM:
    optimizerUpdateBuffers<AMP_OPTIMIZER_MOMENTUM>(table);
    break;
  case AMP_OPTIMIZER_ADAM:
    optimizerUpdateBuffers<AMP_OPTIMIZER_ADAM>(table);
    break;
  default:
    optimizerUpdateBuffers<AMP_OPTIMIZER_ADAMW>(table);
    break;
  }
}

//===----------------------------------------------------------------------===//
// The FP8 GEMM's output pass
//===----------------------------------------------------------------------===//

/// Element `index` of an f32, f16 or bf16 array, as f32 (exact).
AMP_HD float loadAsF32(const char *base, int32_t type, int64_t index) {
  if (type == AMP_DTYPE_F32)
    return uintAsFloat(load(reinterpret_cast<const uint32_t *>(base) + index));
  uint32_t h = load(reinterpret_cast<const unsigned short *>(base) + index);
  return type == AMP_DTYPE_BF16 ? bf16ToF32(h) : f16ToF32(h);
}

/// Element `index` of an f32, f16 or bf16 array = `x`, rounded to nearest
/// even (ampF32ToF16 / ampF32ToBF16, NaNs included).
AMP_HD void storeFromF32(char *base, int32_t type, int64_t index, float x) {
  if (type == AMP_DTYPE_F32) {
    store(reinterpret_cast<uint32_t *>(base) + index, floatAsUint(x));
    return;
  }
  uint32_t h =
      type == AMP_DTYPE_BF16 ? packBF16x2(x, 0.0f) : packF16x2(x, 0.0f);
  store(reinterpret_cast<unsigned short *>(base) + index,
        static_cast<unsigned short>(h & 0xffffu));
}

/// *p = max(*p, value) over the values of every thread of the launch: one
/// atomic per warp of its warp's largest on the GPU (every lane must call
/// it), a plain read-modify-write in the simulator, which runs a kernel's
/// threads one at a time.
AMP_HD void atomicMaxOfThreads(uint32_t *p, uint32_t value) {
#ifdef __CUDA_ARCH__
#if __CUDA_ARCH__ >= 800
  value = __reduce_max_sync(0xffffffffu, value);
#else
  for (int offset = 16; offset > 0; offset /= 2) {
    uint32_t other = __shfl_xor_sync(0xffffffffu, value, offset);
    value = other > value ? other : value;
  }
#endif
  if ((threadIdx.x & 31u) == 0)
    atomicMax(reinterpret_cast<unsigned *>(p), value);
#else
  if (value > load(p))
    store(p, value);
#endif
}

/// The kernel amp_f8_matrix_pass (LossScalingAbi.h): blocks take rows (of
/// every matrix of the batch) in a grid-stride loop, their threads the
/// columns. The amax compares the bits of |x|: for f32 values without sign
/// the unsigned order is the numeric one, and every NaN is above +Inf, so a
/// NaN wins as in the CPU reference (cpu::ScaledGemm).
AMP_HD void matrixPass(const MatrixPass &pass) {
  const char *src = reinterpret_cast<const char *>(pass.src);
  char *dst = reinterpret_cast<char *>(pass.dst);
  const int64_t rows = pass.batch * pass.rows;
  uint32_t largest = 0;
  for (int64_t row = blockIndex(); row < rows; row += gridSize()) {
    // Strides are not read for a batch of 1 (matrix 0 only).
    int64_t matrix = row / pass.rows, i = row % pass.rows;
    int64_t srcRow = (matrix ? matrix * pass.srcStride : 0) + i * pass.srcLd;
    int64_t dstRow = (matrix ? matrix * pass.dstStride : 0) + i * pass.dstLd;
    for (int64_t j = threadIndex(); j < pass.cols; j += blockSize()) {
      float x = loadAsF32(src, pass.srcType, srcRow + j);
      uint32_t magnitude = floatAsUint(x) & 0x7fffffffu;
      largest = magnitude > largest ? magnitude : largest;
      if (dst)
        storeFromF32(dst, pass.dstType, dstRow + j, x);
    }
  }
  if (pass.amax)
    atomicMaxOfThreads(reinterpret_cast<uint32_t *>(pass.amax), largest);
}

//===----------------------------------------------------------------------===//
// The one-thread kernels
//===----------------------------------------------------------------------===//

/// The kernel amp_ls_update: the scaler's state machine (LossScalerState.h,
/// the host scaler's code) on the device-resident block.
AMP_HD void updateScaler(ScalerBlock *blockPtr) {
  ScalerBlock block = load(blockPtr);
  updateLossScalerState(block.state, block.config, block.foundInf != 0.0f);
  store(&blockPtr->state, block.state);
}

/// The kernel amp_opt_commit: t += 1 and the powers times beta, unless the
/// step was skipped.
AMP_HD void commitStep(OptStepRecord *recordPtr, const float *foundInf,
                       const float *invScale, double beta1, double beta2) {
  if (skipStep(foundInf, invScale))
    return;
  OptStepRecord record = load(recordPtr);
  record.t += 1;
  record.beta1Pow = record.beta1Pow * beta1;
  record.beta2Pow = record.beta2Pow * beta2;
  store(recordPtr, record);
}

} // namespace kernel
} // namespace gpuls
} // namespace rt
} // namespace amp

#endif // AMP_RUNTIME_CUDA_LOSSSCALINGKERNELS_H
