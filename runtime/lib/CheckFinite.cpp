//===- CheckFinite.cpp - CPU check-finite-and-unscale ---------------------===//
//
// Part of amp-mlir. ampCheckFiniteAndUnscale{F32,F16,BF16,ToF32}: one pass
// over each gradient tensor that multiplies every element by
// inv = float(1.0 / double(scale)), rounds back to the element type (round to
// nearest even, NaN stays a quiet NaN) and ORs a non-finite flag of the
// RESULT. The loops have no data-dependent branch and no early exit: the flag
// is accumulated with bitwise operations on the exponent bits, so the
// compiler vectorises them and the pass runs at memory bandwidth.
//
// The rule of every unscale entry point (docs/runtime-api.md): the call
// rejects its arguments, or it reports found_inf for any non-finite value it
// reads or writes. The inverse scale is validated first (finite and > 0: a
// host scale must be >= FLT_MIN, as the loss scaler's configuration requires,
// so that 1/scale is finite), and for such an inverse a non-finite input
// always gives a non-finite result (Inf * inv = Inf, NaN stays NaN), so
// testing the results covers the inputs too, and also catches finite inputs
// that overflow (a scale < 1, or an f16 result above 65504).
//
// On x86-64 with AVX2 and F16C (checked once at run time), f16 and bf16 use
// intrinsics kernels and f32 the portable loops compiled for AVX2. The
// portable kernels (fixed-size blocks that auto-vectorise, with branch-free
// exact conversions) give bit-identical results, subnormal f16 results
// included (VCVTPS2PH with _MM_FROUND_TO_NEAREST_INT is exact RNE); they
// serve other architectures and older x86 CPUs. Setting
// AMP_RUNTIME_CPU_SIMD=0 in the environment forces them (read at every
// call; the tests use it to compare both paths).
//
// With scale == 1 the in-place variants only check: x * 1 rounds back to x
// for every finite and infinite x, so nothing is written (a NaN keeps its
// bits, signalling or not).
//
// ampCpuCheckFiniteAndUnscaleBuffer, the CPU twin of the GPU entry point for
// compiled code, runs the same in-place kernels: directly when in == out,
// else on L1-sized chunks first copied from in to out, so that its results
// are those of ampCheckFiniteAndUnscale{F32,F16,BF16} in every case.
//
//===----------------------------------------------------------------------===//

#include "InlineConvert.h"
#include "Internal.h"
#include "LibraryCallEntries.h"
#include "LossScalerState.h"

#include <cmath>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define AMP_CHECKFINITE_X86 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define AMP_CHECKFINITE_X86 0
#endif

using namespace amp::rt;

namespace {

/// Elements per block of the portable kernels: a constant trip count that
/// the vectoriser handles without a cost-model veto even at -O2.
constexpr int64_t kBlock = 64;

//===----------------------------------------------------------------------===//
// Non-finite tests (the conversions are in InlineConvert.h)
//===----------------------------------------------------------------------===//

/// 1 if the binary32 `bits` is Inf or NaN, else 0.
inline uint32_t nonFiniteF32(uint32_t bits) {
  return (bits & 0x7f800000u) == 0x7f800000u;
}

/// 1 if the binary16 / bfloat16 `bits` is Inf or NaN, else 0.
inline uint32_t nonFiniteF16(uint16_t bits) {
  return (bits & 0x7c00u) == 0x7c00u;
}
inline uint32_t nonFiniteBF16(uint16_t bits) {
  return (bits & 0x7f80u) == 0x7f80u;
}

//===----------------------------------------------------------------------===//
// Portable kernels: fixed-size blocks plus a scalar tail. Each returns a
// nonzero value if any input element is not finite.
//===----------------------------------------------------------------------===//

/// Runs `op(i)` for i in [0, n) in blocks of kBlock and ORs the results. The
/// x86-64 f32 kernels below are the same loops inlined into functions with
/// target("avx2"), which the compiler then vectorises 8 lanes wide.
template <typename Op> inline uint32_t forBlocks(int64_t n, Op op) {
  uint32_t bad = 0;
  int64_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    uint32_t blockBad = 0;
    for (int64_t j = 0; j < kBlock; ++j)
      blockBad |= op(i + j);
    bad |= blockBad;
  }
  for (; i < n; ++i)
    bad |= op(i);
  return bad;
}

inline uint32_t unscaleF32Portable(float *p, int64_t n, float inv) {
  return forBlocks(n, [=](int64_t i) {
    float y = p[i] * inv;
    p[i] = y;
    return nonFiniteF32(floatBits(y));
  });
}

inline uint32_t checkF32Portable(const float *p, int64_t n) {
  return forBlocks(n, [=](int64_t i) { return nonFiniteF32(floatBits(p[i])); });
}

inline uint32_t check16Portable(const uint16_t *p, int64_t n, uint16_t mask) {
  return forBlocks(n, [=](int64_t i) {
    return static_cast<uint32_t>((p[i] & mask) == mask);
  });
}

inline uint32_t unscaleF16Portable(uint16_t *p, int64_t n, float inv) {
  return forBlocks(n, [=](int64_t i) {
    uint16_t y = f32ToF16(f16ToF32(p[i]) * inv);
    p[i] = y;
    return nonFiniteF16(y);
  });
}

inline uint32_t unscaleBF16Portable(uint16_t *p, int64_t n, float inv) {
  return forBlocks(n, [=](int64_t i) {
    uint16_t y = f32ToBF16(bf16ToF32(p[i]) * inv);
    p[i] = y;
    return nonFiniteBF16(y);
  });
}

inline uint32_t f32ToF32Portable(const float *src, float *dst, int64_t n,
                                 float inv) {
  // src may equal dst: each element is read before it is written.
  return forBlocks(n, [=](int64_t i) {
    float y = src[i] * inv;
    dst[i] = y;
    return nonFiniteF32(floatBits(y));
  });
}

inline uint32_t f16ToF32Portable(const uint16_t *src, float *dst, int64_t n,
                                 float inv) {
  return forBlocks(n, [=](int64_t i) {
    float y = f16ToF32(src[i]) * inv;
    dst[i] = y;
    return nonFiniteF32(floatBits(y));
  });
}

inline uint32_t bf16ToF32Portable(const uint16_t *src, float *dst, int64_t n,
                                  float inv) {
  return forBlocks(n, [=](int64_t i) {
    float y = bf16ToF32(src[i]) * inv;
    dst[i] = y;
    return nonFiniteF32(floatBits(y));
  });
}

//===----------------------------------------------------------------------===//
// x86-64 AVX2 (+F16C) kernels
//===----------------------------------------------------------------------===//

#if AMP_CHECKFINITE_X86
#define AMP_AVX2 __attribute__((target("avx2")))
#define AMP_AVX2_F16C __attribute__((target("avx2,f16c")))

bool cpuHasAvx2F16c() {
  static const bool has = [] {
    __builtin_cpu_init();
    // __builtin_cpu_supports("avx2") also checks that the OS saves the YMM
    // registers. Older clangs do not know "f16c" there: read CPUID leaf 1.
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C);
    return __builtin_cpu_supports("avx2") && f16c;
  }();
  return has;
}

// The f32 kernels are the portable loops compiled for AVX2 (8 lanes).
AMP_AVX2 uint32_t unscaleF32Avx2(float *p, int64_t n, float inv) {
  return forBlocks(n, [=](int64_t i) {
    float y = p[i] * inv;
    p[i] = y;
    return nonFiniteF32(floatBits(y));
  });
}

AMP_AVX2 uint32_t checkF32Avx2(const float *p, int64_t n) {
  return forBlocks(n, [=](int64_t i) { return nonFiniteF32(floatBits(p[i])); });
}

AMP_AVX2 uint32_t check16Avx2(const uint16_t *p, int64_t n, uint16_t mask) {
  return forBlocks(n, [=](int64_t i) {
    return static_cast<uint32_t>((p[i] & mask) == mask);
  });
}

AMP_AVX2 uint32_t f32ToF32Avx2(const float *src, float *dst, int64_t n,
                               float inv) {
  return forBlocks(n, [=](int64_t i) {
    float y = src[i] * inv;
    dst[i] = y;
    return nonFiniteF32(floatBits(y));
  });
}

/// All-ones 32-bit lanes where the float is Inf or NaN (exponent all ones).
AMP_AVX2 inline __m256i nonFiniteF32x8(__m256 x) {
  const __m256i mask = _mm256_set1_epi32(0x7f800000);
  return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_castps_si256(x), mask),
                            mask);
}

/// All-ones 16-bit lanes where (h & mask) == mask (exponent all ones).
AMP_AVX2 inline __m128i nonFinite16x8(__m128i h, __m128i mask) {
  return _mm_cmpeq_epi16(_mm_and_si128(h, mask), mask);
}

/// Eight floats -> eight binary16 values (RNE) in a register. The empty asm
/// keeps the compiler from folding the following store into VCVTPS2PH,
/// whose memory-destination form is several times slower on AMD Zen.
AMP_AVX2_F16C inline __m128i toF16x8(__m256 x) {
  __m128i h = _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT);
  __asm__("" : "+x"(h));
  return h;
}

AMP_AVX2_F16C uint32_t unscaleF16Avx2(uint16_t *p, int64_t n, float inv) {
  const __m128i mask = _mm_set1_epi16(0x7c00);
  const __m256 vinv = _mm256_set1_ps(inv);
  __m128i bad = _mm_setzero_si128();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i h0 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + i));
    __m128i h1 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + i + 8));
    __m128i y0 = toF16x8(_mm256_mul_ps(_mm256_cvtph_ps(h0), vinv));
    __m128i y1 = toF16x8(_mm256_mul_ps(_mm256_cvtph_ps(h1), vinv));
    bad = _mm_or_si128(bad, nonFinite16x8(y0, mask));
    bad = _mm_or_si128(bad, nonFinite16x8(y1, mask));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(p + i), y0);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(p + i + 8), y1);
  }
  uint32_t result = _mm_movemask_epi8(bad) != 0;
  // Tail of 0..15 elements through the same instructions on a padded copy
  // (the zero padding stays zero: 0 * inv is 0 for a valid inv).
  if (i < n) {
    alignas(16) uint16_t tmp[16] = {0};
    int64_t rest = n - i;
    std::memcpy(tmp, p + i, rest * sizeof(uint16_t));
    for (int k = 0; k < 16; k += 8) {
      __m128i h = _mm_load_si128(reinterpret_cast<const __m128i *>(tmp + k));
      __m128i y = toF16x8(_mm256_mul_ps(_mm256_cvtph_ps(h), vinv));
      result |= _mm_movemask_epi8(nonFinite16x8(y, mask)) != 0;
      _mm_store_si128(reinterpret_cast<__m128i *>(tmp + k), y);
    }
    std::memcpy(p + i, tmp, rest * sizeof(uint16_t));
  }
  return result;
}

AMP_AVX2_F16C uint32_t f16ToF32Avx2(const uint16_t *src, float *dst, int64_t n,
                                    float inv) {
  const __m256 vinv = _mm256_set1_ps(inv);
  __m256i bad = _mm256_setzero_si256();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i h0 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i));
    __m128i h1 =
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i + 8));
    __m256 y0 = _mm256_mul_ps(_mm256_cvtph_ps(h0), vinv);
    __m256 y1 = _mm256_mul_ps(_mm256_cvtph_ps(h1), vinv);
    bad = _mm256_or_si256(bad, nonFiniteF32x8(y0));
    bad = _mm256_or_si256(bad, nonFiniteF32x8(y1));
    _mm256_storeu_ps(dst + i, y0);
    _mm256_storeu_ps(dst + i + 8, y1);
  }
  uint32_t result = _mm256_movemask_epi8(bad) != 0;
  if (i < n) {
    alignas(16) uint16_t tmp[16] = {0};
    alignas(32) float out[16];
    int64_t rest = n - i;
    std::memcpy(tmp, src + i, rest * sizeof(uint16_t));
    for (int k = 0; k < 16; k += 8) {
      __m128i h = _mm_load_si128(reinterpret_cast<const __m128i *>(tmp + k));
      __m256 y = _mm256_mul_ps(_mm256_cvtph_ps(h), vinv);
      result |= _mm256_movemask_epi8(nonFiniteF32x8(y)) != 0;
      _mm256_store_ps(out + k, y);
    }
    std::memcpy(dst + i, out, rest * sizeof(float));
  }
  return result;
}

/// Eight bfloat16 values -> eight floats.
AMP_AVX2 inline __m256 bf16x8ToF32(__m128i h) {
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

/// Rounds the floats in `x` to bfloat16 (RNE), the result in the HIGH half
/// of each 32-bit lane (the low half is garbage). There is no NaN case:
/// every NaN this file multiplies out has a zero low half (a quieted
/// bfloat16 input, or the default NaN 0xffc00000 of 0 * Inf), so the
/// rounding addend cannot carry out of it and the quiet NaN comes through
/// as is, like f32ToBF16's NaN branch.
AMP_AVX2 inline __m256i roundToBF16High(__m256 x) {
  const __m256i oddBit = _mm256_set1_epi32(0x10000);
  const __m256i bias = _mm256_set1_epi32(0x7fff);
  __m256i bits = _mm256_castps_si256(x);
  __m256i odd = _mm256_srli_epi32(_mm256_and_si256(bits, oddBit), 16);
  return _mm256_add_epi32(bits, _mm256_add_epi32(bias, odd));
}

/// Sixteen bfloat16 values are non-finite where (h & 0x7fff) >= 0x7f80:
/// accumulate the running maximum of h & 0x7fff and test it once at the end.
AMP_AVX2 inline __m256i maxAbsBF16(__m256i acc, __m256i h) {
  return _mm256_max_epu16(acc, _mm256_and_si256(h, _mm256_set1_epi16(0x7fff)));
}

AMP_AVX2 inline uint32_t anyNonFiniteBF16(__m256i maxAbs) {
  const __m256i inf = _mm256_set1_epi16(0x7f80);
  __m256i ge = _mm256_cmpeq_epi16(_mm256_max_epu16(maxAbs, inf), maxAbs);
  return _mm256_movemask_epi8(ge) != 0;
}

AMP_AVX2 uint32_t unscaleBF16Avx2(uint16_t *p, int64_t n, float inv) {
  const __m256i highHalf = _mm256_set1_epi32(static_cast<int>(0xffff0000u));
  const __m256 vinv = _mm256_set1_ps(inv);
  __m256i maxAbs = _mm256_setzero_si256();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + i));
    // Seen as 32-bit lanes, h << 16 holds the floats of the even elements
    // and h & 0xffff0000 those of the odd ones; after rounding, the even
    // results go back to the low halves and the odd ones stay high.
    __m256 even = _mm256_castsi256_ps(_mm256_slli_epi32(h, 16));
    __m256 odd = _mm256_castsi256_ps(_mm256_and_si256(h, highHalf));
    __m256i evenR = roundToBF16High(_mm256_mul_ps(even, vinv));
    __m256i oddR = roundToBF16High(_mm256_mul_ps(odd, vinv));
    __m256i out = _mm256_blend_epi16(_mm256_srli_epi32(evenR, 16), oddR, 0xaa);
    maxAbs = maxAbsBF16(maxAbs, out);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(p + i), out);
  }
  uint32_t result = anyNonFiniteBF16(maxAbs);
  if (i < n)
    result |= unscaleBF16Portable(p + i, n - i, inv);
  return result;
}

AMP_AVX2 uint32_t bf16ToF32Avx2(const uint16_t *src, float *dst, int64_t n,
                                float inv) {
  const __m256 vinv = _mm256_set1_ps(inv);
  __m256i bad = _mm256_setzero_si256();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i h0 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i));
    __m128i h1 =
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i + 8));
    __m256 y0 = _mm256_mul_ps(bf16x8ToF32(h0), vinv);
    __m256 y1 = _mm256_mul_ps(bf16x8ToF32(h1), vinv);
    bad = _mm256_or_si256(bad, nonFiniteF32x8(y0));
    bad = _mm256_or_si256(bad, nonFiniteF32x8(y1));
    _mm256_storeu_ps(dst + i, y0);
    _mm256_storeu_ps(dst + i + 8, y1);
  }
  uint32_t result = _mm256_movemask_epi8(bad) != 0;
  if (i < n)
    result |= bf16ToF32Portable(src + i, dst + i, n - i, inv);
  return result;
}
#endif // AMP_CHECKFINITE_X86

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

/// Whether to use the AVX2/F16C kernels for this call.
bool useSimd() {
#if AMP_CHECKFINITE_X86
  return cpuHasAvx2F16c() && envFlag("AMP_RUNTIME_CPU_SIMD", true);
#else
  return false;
#endif
}

enum class Kind { F32, F16, BF16 };

uint32_t unscaleInPlace(Kind kind, void *data, int64_t n, float inv,
                        bool simd) {
  (void)simd;
  if (inv == 1.0f) {
    // Check only: x * 1 rounds back to x (see the file comment).
    switch (kind) {
    case Kind::F32:
#if AMP_CHECKFINITE_X86
      if (simd)
        return checkF32Avx2(static_cast<const float *>(data), n);
#endif
      return checkF32Portable(static_cast<const float *>(data), n);
    case Kind::F16:
    case Kind::BF16: {
      uint16_t mask = kind == Kind::F16 ? 0x7c00 : 0x7f80;
#if AMP_CHECKFINITE_X86
      if (simd)
        return check16Avx2(static_cast<const uint16_t *>(data), n, mask);
#endif
      return check16Portable(static_cast<const uint16_t *>(data), n, mask);
    }
    }
  }
  switch (kind) {
  case Kind::F32:
#if AMP_CHECKFINITE_X86
    if (simd)
      return unscaleF32Avx2(static_cast<float *>(data), n, inv);
#endif
    return unscaleF32Portable(static_cast<float *>(data), n, inv);
  case Kind::F16:
#if AMP_CHECKFINITE_X86
    if (simd)
      return unscaleF16Avx2(static_cast<uint16_t *>(data), n, inv);
#endif
    return unscaleF16Portable(static_cast<uint16_t *>(data), n, inv);
  case Kind::BF16:
#if AMP_CHECKFINITE_X86
    if (simd)
      return unscaleBF16Avx2(static_cast<uint16_t *>(data), n, inv);
#endif
    return unscaleBF16Portable(static_cast<uint16_t *>(data), n, inv);
  }
  return 0;
}

uint32_t unscaleToF32(int32_t srcType, const void *src, float *dst, int64_t n,
                      float inv, bool simd) {
  (void)simd;
  switch (srcType) {
  case AMP_DTYPE_F32:
#if AMP_CHECKFINITE_X86
    if (simd)
      return f32ToF32Avx2(static_cast<const float *>(src), dst, n, inv);
#endif
    return f32ToF32Portable(static_cast<const float *>(src), dst, n, inv);
  case AMP_DTYPE_F16:
#if AMP_CHECKFINITE_X86
    if (simd)
      return f16ToF32Avx2(static_cast<const uint16_t *>(src), dst, n, inv);
#endif
    return f16ToF32Portable(static_cast<const uint16_t *>(src), dst, n, inv);
  default:
#if AMP_CHECKFINITE_X86
    if (simd)
      return bf16ToF32Avx2(static_cast<const uint16_t *>(src), dst, n, inv);
#endif
    return bf16ToF32Portable(static_cast<const uint16_t *>(src), dst, n, inv);
  }
}

//===----------------------------------------------------------------------===//
// Argument checks (nothing is read or written before they all pass)
//===----------------------------------------------------------------------===//

bool checkCommon(const char *call, const void *tensors, const char *tensorsName,
                 const int64_t *numels, int64_t count, float scale) {
  if (!std::isfinite(scale) || !(scale > 0.0f))
    return setError(call, "scale must be finite and > 0, got %g",
                    static_cast<double>(scale));
  if (scale < kSmallestScale)
    return setError(call,
                    "scale must be >= %g (the smallest normal float, as for "
                    "the loss scaler, so that 1/scale is finite), got %g",
                    static_cast<double>(kSmallestScale),
                    static_cast<double>(scale));
  if (count < 0)
    return setError(call, "count must be >= 0, got %lld",
                    static_cast<long long>(count));
  if (count > 0 && !tensors)
    return setError(call, "%s is NULL with count %lld", tensorsName,
                    static_cast<long long>(count));
  if (count > 0 && !numels)
    return setError(call, "numels is NULL with count %lld",
                    static_cast<long long>(count));
  for (int64_t i = 0; i < count; ++i)
    if (numels[i] < 0)
      return setError(call, "numels[%lld] must be >= 0, got %lld",
                      static_cast<long long>(i),
                      static_cast<long long>(numels[i]));
  return true;
}

/// Non-NULL and aligned to the `dtype` elements, for every tensor with
/// elements (the rule of the buffer entry points, validateUnscaleBuffer).
template <typename T>
bool checkPointers(const char *call, const char *name, T *const *ptrs,
                   const int64_t *numels, int64_t count, int32_t dtype) {
  const size_t size = dtypeSize(dtype);
  for (int64_t i = 0; i < count; ++i) {
    if (numels[i] == 0)
      continue;
    if (!ptrs[i])
      return setError(call, "%s[%lld] is NULL with numel %lld", name,
                      static_cast<long long>(i),
                      static_cast<long long>(numels[i]));
    if (reinterpret_cast<uintptr_t>(ptrs[i]) % size != 0)
      return setError(call,
                      "%s[%lld] = %p is not aligned to its %zu-byte %s "
                      "elements",
                      name, static_cast<long long>(i),
                      static_cast<const void *>(ptrs[i]), size,
                      dtypeName(dtype));
  }
  return true;
}

int32_t dtypeOf(Kind kind) {
  return kind == Kind::F32   ? AMP_DTYPE_F32
         : kind == Kind::F16 ? AMP_DTYPE_F16
                             : AMP_DTYPE_BF16;
}

int checkFiniteAndUnscale(const char *call, Kind kind, void *const *tensors,
                          const int64_t *numels, int64_t count, float scale) {
  if (!checkCommon(call, tensors, "tensors", numels, count, scale) ||
      !checkPointers(call, "tensors", tensors, numels, count, dtypeOf(kind)))
    return -1;
  float inv = static_cast<float>(1.0 / static_cast<double>(scale));
  bool simd = useSimd();
  uint32_t bad = 0;
  for (int64_t i = 0; i < count; ++i)
    if (numels[i] > 0)
      bad |= unscaleInPlace(kind, tensors[i], numels[i], inv, simd);
  return bad ? 1 : 0;
}

/// Bytes per chunk of the out-of-place buffer path: copied, then unscaled in
/// place while it is still in L1. A multiple of 16 elements of every type
/// (the SIMD kernels' step), so only the last chunk has a tail.
constexpr int64_t kBufferChunkBytes = 16 * 1024;

/// Largest numel of the buffer entry points (as the GPU tables): keeps byte
/// counts and address arithmetic far from overflow.
constexpr int64_t kMaxBufferNumel = int64_t(1) << 54;

} // namespace

bool amp::rt::validateUnscaleBuffer(const char *call, const void *in,
                                    const void *out, int64_t numel,
                                    int32_t dtype, const float *invScale,
                                    const uint8_t *foundInf) {
  if (dtype != AMP_DTYPE_F32 && dtype != AMP_DTYPE_F16 &&
      dtype != AMP_DTYPE_BF16)
    return setError(call, "dtype must be F32, F16 or BF16, got %d",
                    static_cast<int>(dtype));
  if (numel < 0 || numel > kMaxBufferNumel)
    return setError(call, "numel must be in [0, 2^54], got %lld",
                    static_cast<long long>(numel));
  if (numel == 0)
    return true; // Nothing is touched: the pointers may be anything.
  const struct {
    const void *ptr;
    const char *name;
  } pointers[] = {
      {in, "in"}, {out, "out"}, {invScale, "invScale"}, {foundInf, "foundInf"}};
  for (const auto &p : pointers)
    if (!p.ptr)
      return setError(call, "%s is NULL with numel %lld", p.name,
                      static_cast<long long>(numel));
  const size_t size = dtypeSize(dtype);
  const uintptr_t inBegin = reinterpret_cast<uintptr_t>(in);
  const uintptr_t outBegin = reinterpret_cast<uintptr_t>(out);
  if (inBegin % size != 0 || outBegin % size != 0)
    return setError(call, "%s = %p is not aligned to its %zu-byte %s elements",
                    inBegin % size != 0 ? "in" : "out",
                    inBegin % size != 0 ? in : out, size, dtypeName(dtype));
  if (reinterpret_cast<uintptr_t>(invScale) % alignof(float) != 0)
    return setError(call, "invScale = %p is not aligned to 4 bytes",
                    static_cast<const void *>(invScale));
  const uintptr_t bytes = static_cast<uintptr_t>(numel) * size;
  if (inBegin != outBegin && inBegin < outBegin + bytes &&
      outBegin < inBegin + bytes)
    return setError(call,
                    "in = %p and out = %p overlap (%lld %s elements): they "
                    "must be equal or disjoint",
                    in, out, static_cast<long long>(numel), dtypeName(dtype));
  return true;
}

bool amp::rt::validateUnscaleBuffers(const char *call, int64_t count,
                                     const void *const *ins, void *const *outs,
                                     const int64_t *numels,
                                     const int32_t *dtypes,
                                     const float *invScale,
                                     const uint8_t *foundInf) {
  if (count < 0)
    return setError(call, "count must be >= 0, got %lld",
                    static_cast<long long>(count));
  if (count == 0)
    return true;
  if (!ins || !outs || !numels || !dtypes)
    return setError(call, "%s is NULL with count %lld",
                    !ins    ? "ins"
                    : !outs ? "outs"
                    : !numels ? "numels"
                              : "dtypes",
                    static_cast<long long>(count));
  for (int64_t i = 0; i < count; ++i)
    if (!validateUnscaleBuffer(call, ins[i], outs[i], numels[i], dtypes[i],
                               invScale, foundInf))
      return appendError(" (table entry %lld of %lld)",
                         static_cast<long long>(i),
                         static_cast<long long>(count));
  return true;
}

namespace {
/// The work of ampCpuCheckFiniteAndUnscaleBuffer on a validated buffer with
/// a valid inverse scale; nonzero if a result is not finite.
uint32_t unscaleBufferCpu(const void *in, void *out, int64_t numel,
                          int32_t dtype, float inv, bool simd) {
  if (numel == 0)
    return 0;
  const Kind kind = dtype == AMP_DTYPE_F32   ? Kind::F32
                    : dtype == AMP_DTYPE_F16 ? Kind::F16
                                             : Kind::BF16;
  if (in == out)
    return unscaleInPlace(kind, out, numel, inv, simd);
  uint32_t bad = 0;
  const int64_t size = static_cast<int64_t>(dtypeSize(dtype));
  const int64_t chunk = kBufferChunkBytes / size;
  const char *src = static_cast<const char *>(in);
  char *dst = static_cast<char *>(out);
  for (int64_t start = 0; start < numel; start += chunk) {
    int64_t n = numel - start < chunk ? numel - start : chunk;
    std::memcpy(dst + start * size, src + start * size,
                static_cast<size_t>(n * size));
    bad |= unscaleInPlace(kind, dst + start * size, n, inv, simd);
  }
  return bad;
}
} // namespace

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

extern "C" {

int ampCheckFiniteAndUnscaleF32(float *const *tensors, const int64_t *numels,
                                int64_t count, float scale) {
  return checkFiniteAndUnscale("ampCheckFiniteAndUnscaleF32", Kind::F32,
                               reinterpret_cast<void *const *>(tensors), numels,
                               count, scale);
}

int ampCheckFiniteAndUnscaleF16(uint16_t *const *tensors, const int64_t *numels,
                                int64_t count, float scale) {
  return checkFiniteAndUnscale("ampCheckFiniteAndUnscaleF16", Kind::F16,
                               reinterpret_cast<void *const *>(tensors), numels,
                               count, scale);
}

int ampCheckFiniteAndUnscaleBF16(uint16_t *const *tensors,
                                 const int64_t *numels, int64_t count,
                                 float scale) {
  return checkFiniteAndUnscale("ampCheckFiniteAndUnscaleBF16", Kind::BF16,
                               reinterpret_cast<void *const *>(tensors), numels,
                               count, scale);
}

int ampCheckFiniteAndUnscaleToF32(const void *const *src, int32_t srcType,
                                  float *const *dst, const int64_t *numels,
                                  int64_t count, float scale) {
  const char *call = "ampCheckFiniteAndUnscaleToF32";
  if (srcType != AMP_DTYPE_F32 && srcType != AMP_DTYPE_F16 &&
      srcType != AMP_DTYPE_BF16) {
    setError(call, "srcType must be F32, F16 or BF16, got %d",
             static_cast<int>(srcType));
    return -1;
  }
  if (!checkCommon(call, src, "src", numels, count, scale))
    return -1;
  if (count > 0 && !dst) {
    setError(call, "dst is NULL with count %lld",
             static_cast<long long>(count));
    return -1;
  }
  if (!checkPointers(call, "src", src, numels, count, srcType) ||
      !checkPointers(call, "dst", dst, numels, count, AMP_DTYPE_F32))
    return -1;
  size_t srcSize = dtypeSize(srcType);
  for (int64_t i = 0; i < count; ++i) {
    if (numels[i] == 0)
      continue;
    auto srcBegin = reinterpret_cast<uintptr_t>(src[i]);
    auto dstBegin = reinterpret_cast<uintptr_t>(dst[i]);
    uintptr_t srcEnd = srcBegin + static_cast<uintptr_t>(numels[i]) * srcSize;
    uintptr_t dstEnd = dstBegin + static_cast<uintptr_t>(numels[i]) * 4;
    bool overlap = srcBegin < dstEnd && dstBegin < srcEnd;
    if (overlap && !(srcType == AMP_DTYPE_F32 && srcBegin == dstBegin)) {
      setError(call,
               "dst[%lld] overlaps src[%lld] (only an f32 source may be "
               "unscaled in place, with dst == src)",
               static_cast<long long>(i), static_cast<long long>(i));
      return -1;
    }
  }
  float inv = static_cast<float>(1.0 / static_cast<double>(scale));
  bool simd = useSimd();
  uint32_t bad = 0;
  for (int64_t i = 0; i < count; ++i)
    if (numels[i] > 0)
      bad |= unscaleToF32(srcType, src[i], dst[i], numels[i], inv, simd);
  return bad ? 1 : 0;
}

} // extern "C"

//===----------------------------------------------------------------------===//
// The library calls ampGpu/ampCpuCheckFiniteAndUnscaleBuffer(s): their
// argument checks and their CPU twins (LibraryCalls.def)
//===----------------------------------------------------------------------===//

CallCheck amp::rt::check(const char *call, const UnscaleBufferArgs &args,
                         bool) {
  if (!validateUnscaleBuffer(call, args.in, args.out, args.numel, args.dtype,
                             args.invScale, args.foundInf))
    return CallCheck::Invalid;
  return args.numel == 0 ? CallCheck::Nothing : CallCheck::Work;
}

CallCheck amp::rt::check(const char *call, const UnscaleBuffersArgs &args,
                         bool) {
  if (!validateUnscaleBuffers(call, args.count, args.ins, args.outs,
                              args.numels, args.dtypes, args.invScale,
                              args.foundInf))
    return CallCheck::Invalid;
  for (int64_t i = 0; i < args.count; ++i)
    if (args.numels[i] > 0)
      return CallCheck::Work;
  return CallCheck::Nothing; // Nothing is read, as with one empty buffer.
}

bool amp::rt::cpu::UnscaleBuffer(const char *, const UnscaleBufferArgs &args,
                                 NoResult &) {
  // Read once, before anything is written (it may live in any buffer).
  const float inv = *args.invScale;
  if (!isValidInverseScale(inv)) {
    // Not rejected (on the GPU the value is only known on the device, and
    // this is its twin): flagged, and nothing else is written.
    *args.foundInf = 1;
    return true;
  }
  if (unscaleBufferCpu(args.in, args.out, args.numel, args.dtype, inv,
                       useSimd()))
    *args.foundInf = 1;
  return true;
}

bool amp::rt::cpu::UnscaleBuffers(const char *, const UnscaleBuffersArgs &args,
                                  NoResult &) {
  // Read once, before any entry is written, like the one GPU launch.
  const float inv = *args.invScale;
  if (!isValidInverseScale(inv)) {
    *args.foundInf = 1;
    return true;
  }
  const bool simd = useSimd();
  uint32_t bad = 0;
  for (int64_t i = 0; i < args.count; ++i)
    bad |= unscaleBufferCpu(args.ins[i], args.outs[i], args.numels[i],
                            args.dtypes[i], inv, simd);
  if (bad)
    *args.foundInf = 1;
  return true;
}
