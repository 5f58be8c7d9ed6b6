//===- LossScaling.cu - loss-scaling and master-weight kernels ------------===//
//
// Part of amp-mlir. The device side of the GPU loss scaler and optimizers
// (host side: lib/GpuLossScaling.cpp; layouts: LossScalingAbi.h):
//
//   amp_ls_update                 <<<1,1>>> the scaler state machine
//   amp_ls_check_unscale_{f32,f16,bf16}
//                                 x *= inv_scale in place over a work list of
//                                 (tensor, chunk) pieces, found_inf on any
//                                 non-finite result or an invalid inv_scale
//   amp_ls_unscale_buffer_{f32,f16,bf16}
//                                 out = in * inv_scale over one buffer (in
//                                 place or not), found_inf a byte; the entry
//                                 point for compiled code
//   amp_opt_{sgd,momentum,adam,adamw}
//                                 fp32 master update + low-precision copy
//   amp_opt_commit                <<<1,1>>> advances t and beta^t unless the
//                                 step was skipped
//
// Built by nvcc into a fatbin (sm_80/sm_90 SASS + compute_90 PTX) that is
// embedded in libamp_runtime.so and loaded with cuModuleLoadDataEx. Compiled
// with --fmad=false and IEEE division/sqrt so that every result is the same
// fp32 operation sequence as the CPU code (no contraction into FMAs).
//
// Results are bit-identical to the CPU entry points, NaN payloads included:
// a NaN input x gives the quiet NaN that x86 produces for x * inv_scale
// (payload kept) and Convert.cpp then rounds (f16: h | 0x200, bf16:
// h | 0x40), fixed up after the hardware conversion, which would return
// the canonical NaN.
//
//===----------------------------------------------------------------------===//

#include "LossScalingAbi.h"

#include "amp/runtime/AmpRuntime.h"

using namespace amp::rt;
using namespace amp::rt::gpuls;

namespace {

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

/// The binary16 in the low 16 bits of `h` as fp32 (exact).
__device__ __forceinline__ float f16ToF32(uint32_t h) {
  unsigned short bits = static_cast<unsigned short>(h);
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(bits));
  return f;
}

/// The bfloat16 in the low 16 bits of `h` as fp32 (exact).
__device__ __forceinline__ float bf16ToF32(uint32_t h) {
  return __uint_as_float(h << 16);
}

/// Convert.cpp's NaN encodings (quietened, top payload bits kept).
__device__ __forceinline__ uint32_t f16NaN(uint32_t f) {
  return ((f >> 16) & 0x8000u) | 0x7e00u | ((f >> 13) & 0x3ffu);
}
__device__ __forceinline__ uint32_t bf16NaN(uint32_t f) {
  return (f >> 16) | 0x0040u;
}
__device__ __forceinline__ bool isNaNBits(uint32_t f) {
  return (f & 0x7fffffffu) > 0x7f800000u;
}

/// {lo, hi} rounded to nearest even into one f16x2 word (lo in bits 0-15).
/// Non-NaN values round exactly like ampF32ToF16 (subnormals, overflow to
/// Inf); NaNs give the hardware's canonical NaN and are fixed by callers.
__device__ __forceinline__ uint32_t packF16x2Raw(float lo, float hi) {
  uint32_t d;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
  return d;
}
__device__ __forceinline__ uint32_t packBF16x2Raw(float lo, float hi) {
  uint32_t d;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
  return d;
}

/// Exact ampF32ToF16 / ampF32ToBF16 of two values, NaNs included.
__device__ __forceinline__ uint32_t packF16x2(float lo, float hi) {
  uint32_t d = packF16x2Raw(lo, hi);
  uint32_t lb = __float_as_uint(lo), hb = __float_as_uint(hi);
  if (isNaNBits(lb))
    d = (d & 0xffff0000u) | f16NaN(lb);
  if (isNaNBits(hb))
    d = (d & 0x0000ffffu) | (f16NaN(hb) << 16);
  return d;
}
__device__ __forceinline__ uint32_t packBF16x2(float lo, float hi) {
  uint32_t d = packBF16x2Raw(lo, hi);
  uint32_t lb = __float_as_uint(lo), hb = __float_as_uint(hi);
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
  __device__ __forceinline__ static uint32_t word(uint32_t x, float inv,
                                                  uint32_t &bad) {
    uint32_t abs = x & 0x7fffffffu;
    uint32_t y = __float_as_uint(__fmul_rn(__uint_as_float(x), inv));
    // x86 keeps the NaN operand's payload (quietened); the GPU would not.
    y = abs > 0x7f800000u ? (x | 0x00400000u) : y;
    bad |= (y & 0x7f800000u) == 0x7f800000u ? 1u : 0u;
    return y;
  }
};

struct UnscaleF16 {
  static constexpr int kElementBytes = 2;
  __device__ __forceinline__ static uint32_t word(uint32_t w, float inv,
                                                  uint32_t &bad) {
    uint32_t y = packF16x2Raw(__fmul_rn(f16ToF32(w & 0xffffu), inv),
                              __fmul_rn(f16ToF32(w >> 16), inv));
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
  __device__ __forceinline__ static uint32_t word(uint32_t w, float inv,
                                                  uint32_t &bad) {
    uint32_t y =
        packBF16x2Raw(__fmul_rn(bf16ToF32(w & 0xffffu), inv),
                      __fmul_rn(__uint_as_float(w & 0xffff0000u), inv));
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
__device__ __forceinline__ void unscaleScalar(char *base, int64_t i, float inv,
                                              uint32_t &bad) {
  if (Op::kElementBytes == 4) {
    uint32_t *p = reinterpret_cast<uint32_t *>(base) + i;
    uint32_t y = Op::word(*p, inv, bad);
    if (Write)
      *p = y;
  } else {
    // The upper half is 0 (finite) and dropped.
    unsigned short *p = reinterpret_cast<unsigned short *>(base) + i;
    uint32_t y = Op::word(*p, inv, bad);
    if (Write)
      *p = static_cast<unsigned short>(y);
  }
}

template <typename Op>
__device__ __forceinline__ uint4 unscaleVector(uint4 v, float inv,
                                               uint32_t &bad) {
  return make_uint4(Op::word(v.x, inv, bad), Op::word(v.y, inv, bad),
                    Op::word(v.z, inv, bad), Op::word(v.w, inv, bad));
}

/// Blocks loop over the work items; within an item, the elements before the
/// first 16-byte boundary and after the last one are done one by one (at
/// most one per thread), the rest with 16-byte accesses, four in flight per
/// thread. Without `Write` (inv_scale == 1) nothing is stored: x * 1 == x
/// for every non-NaN x, and NaNs keep their bits, as on the CPU.
template <typename Op, bool Write>
__device__ __forceinline__ uint32_t checkUnscaleItems(const CheckItem *items,
                                                      int64_t numItems,
                                                      float inv) {
  constexpr int64_t kBlock = kCheckBlockSize;
  constexpr int64_t kPerVector = 16 / Op::kElementBytes;
  constexpr int kUnroll = 4;
  const int64_t tid = threadIdx.x;
  uint32_t bad = 0;
  for (int64_t item = blockIdx.x; item < numItems; item += gridDim.x) {
    const uint64_t address = items[item].address;
    const int64_t count = items[item].count;
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
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        v[u] = vectors[i + u * kBlock];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        uint4 y = unscaleVector<Op>(v[u], inv, bad);
        if (Write)
          vectors[i + u * kBlock] = y;
      }
    }
    for (; i < numVectors; i += kBlock) {
      uint4 y = unscaleVector<Op>(vectors[i], inv, bad);
      if (Write)
        vectors[i] = y;
    }
  }
  return bad;
}

/// One store of 1.0f per block that saw a non-finite result (idempotent, no
/// atomics; found_inf is only ever set here, cleared by BeginStep). An
/// invalid inverse scale (NaN, Inf, <= 0) sets found_inf and writes nothing:
/// the value is only known here, so the call cannot reject it.
template <typename Op>
__device__ __forceinline__ void
checkUnscale(const CheckItem *items, int64_t numItems, const float *invScale,
             float *foundInf) {
  const float inv = *invScale;
  if (!isValidInverseScale(inv)) {
    // Uniform across the block: every thread returns before any barrier.
    if (blockIdx.x == 0 && threadIdx.x == 0)
      *foundInf = 1.0f;
    return;
  }
  uint32_t bad = inv == 1.0f
                     ? checkUnscaleItems<Op, false>(items, numItems, inv)
                     : checkUnscaleItems<Op, true>(items, numItems, inv);
  if (__syncthreads_or(static_cast<int>(bad)) && threadIdx.x == 0)
    *foundInf = 1.0f;
}

//===----------------------------------------------------------------------===//
// Check finite and unscale of one buffer
//===----------------------------------------------------------------------===//

/// Element `i` of `in` to element `i` of `out`: the unscaled value with
/// `Scale`, else the input bits unchanged; nothing is stored without
/// `Write`.
template <typename Op, bool Scale, bool Write>
__device__ __forceinline__ void
bufferScalar(const char *in, char *out, int64_t i, float inv, uint32_t &bad) {
  if (Op::kElementBytes == 4) {
    uint32_t x = reinterpret_cast<const uint32_t *>(in)[i];
    uint32_t y = Op::word(x, inv, bad);
    if (Write)
      reinterpret_cast<uint32_t *>(out)[i] = Scale ? y : x;
  } else {
    // The upper half is 0 (finite) and dropped.
    uint32_t x = reinterpret_cast<const unsigned short *>(in)[i];
    uint32_t y = Op::word(x, inv, bad);
    if (Write)
      reinterpret_cast<unsigned short *>(out)[i] =
          static_cast<unsigned short>(Scale ? y : x);
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
__device__ __forceinline__ uint32_t
unscaleBufferRange(const char *in, char *out, int64_t numel, float inv,
                   int64_t block, int64_t numBlocks) {
  constexpr int64_t kPerVector = 16 / Op::kElementBytes;
  constexpr int kUnroll = 4;
  const int64_t thread = block * blockDim.x + threadIdx.x;
  const int64_t stride = numBlocks * blockDim.x;
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
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      v[u] = src[i + u * stride];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      uint4 y = unscaleVector<Op>(v[u], inv, bad);
      if (Write)
        dst[i + u * stride] = Scale ? y : v[u];
    }
  }
  for (; i < numVectors; i += stride) {
    uint4 v = src[i];
    uint4 y = unscaleVector<Op>(v, inv, bad);
    if (Write)
      dst[i] = Scale ? y : v;
  }
  return bad;
}

/// One buffer (or table entry), `inv` valid, as block `block` of
/// `numBlocks`: the multiplication-free cases as described below.
template <typename Op>
__device__ __forceinline__ uint32_t unscaleBufferBlock(const void *in,
                                                       void *out, int64_t numel,
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

/// With inv_scale == 1 nothing is multiplied, exactly like the CPU: in
/// place, nothing is stored (x * 1 == x for every non-NaN x, and NaNs keep
/// their bits, signalling ones included); out of place, the bits are
/// copied. One store of 1 per block that saw a non-finite result (no
/// atomics; the flag is never cleared here). An invalid inverse scale (NaN,
/// Inf, <= 0) sets the flag and writes nothing else, as on the CPU
/// (ampCpuCheckFiniteAndUnscaleBuffer).
template <typename Op>
__device__ __forceinline__ void
unscaleBuffer(const void *in, void *out, int64_t numel, const float *invScale,
              uint8_t *foundInf) {
  const float inv = *invScale;
  if (!isValidInverseScale(inv)) {
    // Uniform across the block: every thread returns before any barrier.
    if (blockIdx.x == 0 && threadIdx.x == 0)
      *foundInf = 1;
    return;
  }
  uint32_t bad = unscaleBufferBlock<Op>(in, out, numel, inv, blockIdx.x,
                                        gridDim.x);
  if (__syncthreads_or(static_cast<int>(bad)) && threadIdx.x == 0)
    *foundInf = 1;
}

/// Every entry of `table` in one launch (ampGpuCheckFiniteAndUnscaleBuffers):
/// block b works on the entry whose [firstBlock[i], firstBlock[i+1]) holds b,
/// exactly as the one-buffer kernel would with that many blocks. An invalid
/// inverse scale sets the flag (block 0) and writes nothing.
__device__ __forceinline__ void unscaleBuffers(const BufferTable &table) {
  const float inv = *reinterpret_cast<const float *>(table.invScale);
  uint8_t *foundInf = reinterpret_cast<uint8_t *>(table.foundInf);
  if (!isValidInverseScale(inv)) {
    if (blockIdx.x == 0 && threadIdx.x == 0)
      *foundInf = 1;
    return;
  }
  // The entry of this block: the last i with firstBlock[i] <= blockIdx.x
  // (uniform across the block).
  const int32_t block = static_cast<int32_t>(blockIdx.x);
  int lo = 0, hi = table.count - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (table.firstBlock[mid] <= block)
      lo = mid;
    else
      hi = mid - 1;
  }
  const int i = lo;
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
  if (__syncthreads_or(static_cast<int>(bad)) && threadIdx.x == 0)
    *foundInf = 1;
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

__device__ __forceinline__ StepConstants
stepConstants(const AmpOptimizerConfig &c, const OptStepRecord *record) {
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
  k.firstStep = record->t + 1 == 1;
  k.decay = static_cast<float>(1.0 - lr * wd);
  k.beta1 = c.beta1;
  k.beta2 = c.beta2;
  k.oneMinusBeta1 = static_cast<float>(1.0 - beta1);
  k.oneMinusBeta2 = static_cast<float>(1.0 - beta2);
  const double beta1Power = record->beta1Pow * beta1;
  const double beta2Power = record->beta2Pow * beta2;
  k.stepSize = static_cast<float>(lr / (1.0 - beta1Power));
  k.biasCorr2Sqrt = static_cast<float>(sqrt(1.0 - beta2Power));
  k.eps = c.eps;
  return k;
}

/// The fp32 update of one element, the same operations in the same order
/// as Optimizers.cpp (each rounded: no FMA contraction). `s0`/`s1` are the
/// state values (the ones a kind does not use are ignored).
template <int Kind>
__device__ __forceinline__ void updateElement(const StepConstants &k, float &p,
                                              float g, float &s0, float &s1) {
  if (Kind == AMP_OPTIMIZER_SGD) {
    float d = __fadd_rn(g, __fmul_rn(k.weightDecay, p));
    p = __fsub_rn(p, __fmul_rn(k.lr, d));
  } else if (Kind == AMP_OPTIMIZER_MOMENTUM) {
    float d = __fadd_rn(g, __fmul_rn(k.weightDecay, p));
    float buf = k.firstStep ? d
                            : __fadd_rn(__fmul_rn(k.momentum, s0),
                                        __fmul_rn(k.oneMinusDampening, d));
    s0 = buf;
    d = k.nesterov ? __fadd_rn(d, __fmul_rn(k.momentum, buf)) : buf;
    p = __fsub_rn(p, __fmul_rn(k.lr, d));
  } else {
    if (Kind == AMP_OPTIMIZER_ADAMW)
      p = __fmul_rn(p, k.decay);
    else
      g = __fadd_rn(g, __fmul_rn(k.weightDecay, p));
    float m = __fadd_rn(__fmul_rn(k.beta1, s0), __fmul_rn(k.oneMinusBeta1, g));
    float v = __fadd_rn(__fmul_rn(k.beta2, s1),
                        __fmul_rn(__fmul_rn(k.oneMinusBeta2, g), g));
    s0 = m;
    s1 = v;
    float denom = __fadd_rn(__fdiv_rn(__fsqrt_rn(v), k.biasCorr2Sqrt), k.eps);
    p = __fsub_rn(p, __fdiv_rn(__fmul_rn(k.stepSize, m), denom));
  }
}

template <int Kind> struct KindTraits {
  static constexpr bool kState0 = Kind != AMP_OPTIMIZER_SGD;
  static constexpr bool kState1 =
      Kind == AMP_OPTIMIZER_ADAM || Kind == AMP_OPTIMIZER_ADAMW;
};

__device__ __forceinline__ float loadGrad(const OptTensor &t, int64_t i,
                                          float inv) {
  float g;
  if (t.gradType == AMP_DTYPE_F32)
    g = reinterpret_cast<const float *>(t.grad)[i];
  else if (t.gradType == AMP_DTYPE_F16)
    g = f16ToF32(reinterpret_cast<const unsigned short *>(t.grad)[i]);
  else
    g = bf16ToF32(reinterpret_cast<const unsigned short *>(t.grad)[i]);
  return __fmul_rn(g, inv);
}

__device__ __forceinline__ void loadGrad4(const OptTensor &t, int64_t i,
                                          float inv, float g[4]) {
  if (t.gradType == AMP_DTYPE_F32) {
    float4 v = reinterpret_cast<const float4 *>(t.grad)[i / 4];
    g[0] = v.x, g[1] = v.y, g[2] = v.z, g[3] = v.w;
  } else {
    uint2 v = reinterpret_cast<const uint2 *>(t.grad)[i / 4];
    if (t.gradType == AMP_DTYPE_F16) {
      g[0] = f16ToF32(v.x & 0xffffu), g[1] = f16ToF32(v.x >> 16);
      g[2] = f16ToF32(v.y & 0xffffu), g[3] = f16ToF32(v.y >> 16);
    } else {
      g[0] = bf16ToF32(v.x & 0xffffu),
      g[1] = __uint_as_float(v.x & 0xffff0000u);
      g[2] = bf16ToF32(v.y & 0xffffu),
      g[3] = __uint_as_float(v.y & 0xffff0000u);
    }
  }
#pragma unroll
  for (int j = 0; j < 4; ++j)
    g[j] = __fmul_rn(g[j], inv);
}

__device__ __forceinline__ void storeLowp(const OptTensor &t, int64_t i,
                                          float p) {
  if (t.lowpType == kNoLowp)
    return;
  if (t.lowpType == AMP_DTYPE_F32) {
    reinterpret_cast<float *>(t.lowp)[i] = p;
    return;
  }
  uint32_t bits =
      t.lowpType == AMP_DTYPE_F16 ? packF16x2(p, 0.0f) : packBF16x2(p, 0.0f);
  reinterpret_cast<unsigned short *>(t.lowp)[i] =
      static_cast<unsigned short>(bits);
}

__device__ __forceinline__ void storeLowp4(const OptTensor &t, int64_t i,
                                           const float p[4]) {
  if (t.lowpType == kNoLowp)
    return;
  if (t.lowpType == AMP_DTYPE_F32) {
    reinterpret_cast<float4 *>(t.lowp)[i / 4] =
        make_float4(p[0], p[1], p[2], p[3]);
    return;
  }
  uint2 v = t.lowpType == AMP_DTYPE_F16
                ? make_uint2(packF16x2(p[0], p[1]), packF16x2(p[2], p[3]))
                : make_uint2(packBF16x2(p[0], p[1]), packBF16x2(p[2], p[3]));
  reinterpret_cast<uint2 *>(t.lowp)[i / 4] = v;
}

template <int Kind>
__device__ __forceinline__ void
optimizerStep(const OptTensor *tensors, const OptItem *items, int64_t numItems,
              const OptStepRecord *record, const float *foundInf,
              const float *invScale, const AmpOptimizerConfig &config) {
  // The two-phase rule: nothing is read or written on a skipped step. An
  // inverse scale that is not finite and > 0 skips it too (the unscale
  // rule; the CPU optimizer rejects such a value on the host).
  if ((foundInf && *foundInf != 0.0f) ||
      (invScale && !isValidInverseScale(*invScale)))
    return;
  using Traits = KindTraits<Kind>;
  const float inv = invScale ? *invScale : 1.0f;
  const StepConstants k = stepConstants(config, record);
  const int64_t tid = threadIdx.x;
  constexpr int64_t kBlock = kOptBlockSize;
  for (int64_t item = blockIdx.x; item < numItems; item += gridDim.x) {
    const OptTensor t = tensors[items[item].tensor];
    const int64_t start = items[item].start;
    int64_t end = t.numel - start < kOptChunkElements
                      ? t.numel
                      : start + kOptChunkElements;
    float *master = reinterpret_cast<float *>(t.master);
    float *state0 = reinterpret_cast<float *>(t.state0);
    float *state1 = reinterpret_cast<float *>(t.state1);
    int64_t scalarStart = start;
    if (t.vectorized) {
      // start is a multiple of 4 and every pointer is aligned for 4 elements.
      const int64_t vectorEnd = start + ((end - start) & ~int64_t(3));
      for (int64_t i = start + 4 * tid; i < vectorEnd; i += 4 * kBlock) {
        float g[4], p[4], s0[4] = {0, 0, 0, 0}, s1[4] = {0, 0, 0, 0};
        loadGrad4(t, i, inv, g);
        float4 pv = reinterpret_cast<const float4 *>(master)[i / 4];
        p[0] = pv.x, p[1] = pv.y, p[2] = pv.z, p[3] = pv.w;
        if (Traits::kState0) {
          float4 v = reinterpret_cast<const float4 *>(state0)[i / 4];
          s0[0] = v.x, s0[1] = v.y, s0[2] = v.z, s0[3] = v.w;
        }
        if (Traits::kState1) {
          float4 v = reinterpret_cast<const float4 *>(state1)[i / 4];
          s1[0] = v.x, s1[1] = v.y, s1[2] = v.z, s1[3] = v.w;
        }
#pragma unroll
        for (int j = 0; j < 4; ++j)
          updateElement<Kind>(k, p[j], g[j], s0[j], s1[j]);
        reinterpret_cast<float4 *>(master)[i / 4] =
            make_float4(p[0], p[1], p[2], p[3]);
        if (Traits::kState0)
          reinterpret_cast<float4 *>(state0)[i / 4] =
              make_float4(s0[0], s0[1], s0[2], s0[3]);
        if (Traits::kState1)
          reinterpret_cast<float4 *>(state1)[i / 4] =
              make_float4(s1[0], s1[1], s1[2], s1[3]);
        storeLowp4(t, i, p);
      }
      scalarStart = vectorEnd;
    }
    for (int64_t i = scalarStart + tid; i < end; i += kBlock) {
      float g = loadGrad(t, i, inv);
      float p = master[i];
      float s0 = Traits::kState0 ? state0[i] : 0.0f;
      float s1 = Traits::kState1 ? state1[i] : 0.0f;
      updateElement<Kind>(k, p, g, s0, s1);
      master[i] = p;
      if (Traits::kState0)
        state0[i] = s0;
      if (Traits::kState1)
        state1[i] = s1;
      storeLowp(t, i, p);
    }
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

extern "C" __global__ void __launch_bounds__(1)
    amp_ls_update(ScalerBlock *block) {
  updateLossScalerState(block->state, block->config, block->foundInf != 0.0f);
}

extern "C" __global__ void __launch_bounds__(kCheckBlockSize)
    amp_ls_check_unscale_f32(const CheckItem *items, int64_t numItems,
                             const float *invScale, float *foundInf) {
  checkUnscale<UnscaleF32>(items, numItems, invScale, foundInf);
}

extern "C" __global__ void __launch_bounds__(kCheckBlockSize)
    amp_ls_check_unscale_f16(const CheckItem *items, int64_t numItems,
                             const float *invScale, float *foundInf) {
  checkUnscale<UnscaleF16>(items, numItems, invScale, foundInf);
}

extern "C" __global__ void __launch_bounds__(kCheckBlockSize)
    amp_ls_check_unscale_bf16(const CheckItem *items, int64_t numItems,
                              const float *invScale, float *foundInf) {
  checkUnscale<UnscaleBF16>(items, numItems, invScale, foundInf);
}

extern "C" __global__ void __launch_bounds__(kBufferBlockSize)
    amp_ls_unscale_buffer_f32(const void *in, void *out, int64_t numel,
                              const float *invScale, uint8_t *foundInf) {
  unscaleBuffer<UnscaleF32>(in, out, numel, invScale, foundInf);
}

extern "C" __global__ void __launch_bounds__(kBufferBlockSize)
    amp_ls_unscale_buffer_f16(const void *in, void *out, int64_t numel,
                              const float *invScale, uint8_t *foundInf) {
  unscaleBuffer<UnscaleF16>(in, out, numel, invScale, foundInf);
}

extern "C" __global__ void __launch_bounds__(kBufferBlockSize)
    amp_ls_unscale_buffer_bf16(const void *in, void *out, int64_t numel,
                               const float *invScale, uint8_t *foundInf) {
  unscaleBuffer<UnscaleBF16>(in, out, numel, invScale, foundInf);
}

extern "C" __global__ void __launch_bounds__(kBufferBlockSize)
    amp_ls_unscale_buffers(const BufferTable table) {
  unscaleBuffers(table);
}

#define AMP_OPTIMIZER_KERNEL(name, kind)                                       \
  extern "C" __global__ void __launch_bounds__(kOptBlockSize)                  \
      name(const OptTensor *tensors, const OptItem *items, int64_t numItems,   \
           const OptStepRecord *record, const float *foundInf,                 \
           const float *invScale, AmpOptimizerConfig config) {                 \
    optimizerStep<kind>(tensors, items, numItems, record, foundInf, invScale,  \
                        config);                                               \
  }
AMP_OPTIMIZER_KERNEL(amp_opt_sgd, AMP_OPTIMIZER_SGD)
AMP_OPTIMIZER_KERNEL(amp_opt_momentum, AMP_OPTIMIZER_MOMENTUM)
AMP_OPTIMIZER_KERNEL(amp_opt_adam, AMP_OPTIMIZER_ADAM)
AMP_OPTIMIZER_KERNEL(amp_opt_adamw, AMP_OPTIMIZER_ADAMW)
#undef AMP_OPTIMIZER_KERNEL

extern "C" __global__ void __launch_bounds__(1)
    amp_opt_commit(OptStepRecord *record, const float *foundInf,
                   const float *invScale, double beta1, double beta2) {
  if ((foundInf && *foundInf != 0.0f) ||
      (invScale && !isValidInverseScale(*invScale)))
    return;
  record->t += 1;
  record->beta1Pow = record->beta1Pow * beta1;
  record->beta2Pow = record->beta2Pow * beta2;
}
