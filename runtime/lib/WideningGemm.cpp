//===- WideningGemm.cpp - a packed f32 GEMM that widens 16-bit operands
//----===//
//
// Part of amp-mlir. The blocking of Goto and van de Geijn ("Anatomy of
// high-performance matrix multiplication", 2008), as BLIS and OpenBLAS
// have it: B is copied one KC x NC panel at a time into NR-column slivers,
// A one MC x KC block at a time into MR-row slivers, and a register-tiled
// micro-kernel multiplies a sliver of each into an MR x NR tile of C with
// FMA. The copies are where f16/bf16 are widened to f32 (F16C's vcvtph2ps,
// or a shift for bf16): every 16-bit element is read once, from where it
// is, which is what a CBLAS cannot do (it packs f32 only, so 16-bit
// operands had to be widened into scratch first and then packed again).
// No CPU BLAS of Debian has f16/bf16 operands with f32 accumulation on
// AVX2 or on AVX-512 without BF16 (docs/performance.md), hence this file.
//
// Two micro-kernels: 6 x 16 for AVX2 (12 of the 16 ymm registers hold the
// tile) and 8 x 32 for AVX-512F (16 of the 32 zmm registers). Edge tiles
// are padded with zeros in the copies and written through a local tile.
//
//===----------------------------------------------------------------------===//

#include "WideningGemm.h"

#include "InlineConvert.h"
#include "amp/runtime/AmpRuntime.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define AMP_HAVE_WIDENING_GEMM 1
#endif

using namespace amp::rt;

#ifdef AMP_HAVE_WIDENING_GEMM
namespace {

#define AMP_TARGET_AVX2 __attribute__((target("avx2,fma,f16c")))
#define AMP_TARGET_AVX512 __attribute__((target("avx512f,avx2,fma,f16c")))

/// Element `i` of a buffer of `Type`, as f32.
template <int32_t Type>
AMP_TARGET_AVX2 inline float element(const void *base, int64_t i) {
  if constexpr (Type == AMP_DTYPE_F32) {
    return static_cast<const float *>(base)[i];
  } else {
    uint16_t bits = static_cast<const uint16_t *>(base)[i];
    if constexpr (Type == AMP_DTYPE_BF16)
      return bitsFloat(static_cast<uint32_t>(bits) << 16);
    else
      return _cvtsh_ss(bits);
  }
}

/// Elements [i, i + 8) of a buffer of `Type`, as f32.
template <int32_t Type>
AMP_TARGET_AVX2 inline __m256 load8(const void *base, int64_t i) {
  if constexpr (Type == AMP_DTYPE_F32) {
    return _mm256_loadu_ps(static_cast<const float *>(base) + i);
  } else {
    __m128i bits = _mm_loadu_si128(reinterpret_cast<const __m128i *>(
        static_cast<const uint16_t *>(base) + i));
    if constexpr (Type == AMP_DTYPE_BF16)
      return _mm256_castsi256_ps(
          _mm256_slli_epi32(_mm256_cvtepu16_epi32(bits), 16));
    else
      return _mm256_cvtph_ps(bits);
  }
}

/// The bytes of an element of `Type`.
template <int32_t Type> constexpr int64_t elementSize() {
  return Type == AMP_DTYPE_F32 ? 4 : 2;
}

/// Transposes the 8 x 8 block in rows r[0..8).
AMP_TARGET_AVX2 inline void transpose8(__m256 r[8]) {
  __m256 t[8], u[8];
#pragma GCC unroll 8
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
#pragma GCC unroll 8
  for (int i = 0; i < 8; i += 4) {
    u[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xee);
    u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xee);
  }
#pragma GCC unroll 8
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
    r[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
  }
}

/// Copies the `rows` x `cols` block of a matrix of `Type` whose element
/// (i, p) is at i * rowStride + p * colStride into `Width`-row slivers,
/// each `cols` columns of `Width` floats: out[s * cols * Width + p * Width
/// + r] = element (s * Width + r, p), zero past the last row. This is the
/// copy of A (rows i, columns p) and, with the roles exchanged, of B (rows
/// j, columns p).
template <int32_t Type, int Width>
AMP_TARGET_AVX2 void pack(const void *base, int64_t rowStride,
                          int64_t colStride, int64_t rows, int64_t cols,
                          float *out) {
  for (int64_t s = 0; s < rows; s += Width, out += cols * Width) {
    int64_t valid = std::min<int64_t>(Width, rows - s);
    if (colStride == 1 && valid == Width && Width % 8 == 0) {
      // Each row contiguous in p: 8 x 8 blocks, widened and transposed in
      // registers.
      // Eight rows at a time, each read from start to end (eight streams
      // that the hardware prefetcher follows).
      int64_t cols8 = cols & ~int64_t(7);
      for (int r0 = 0; r0 < Width; r0 += 8) {
        const void *rows8 = static_cast<const char *>(base) +
                            (s + r0) * rowStride * elementSize<Type>();
        for (int64_t p = 0; p < cols8; p += 8) {
          __m256 block[8];
#pragma GCC unroll 8
          for (int r = 0; r < 8; ++r)
            block[r] = load8<Type>(rows8, r * rowStride + p);
          transpose8(block);
#pragma GCC unroll 8
          for (int q = 0; q < 8; ++q)
            _mm256_storeu_ps(out + (p + q) * Width + r0, block[q]);
        }
      }
      for (int64_t p = cols8; p < cols; ++p)
        for (int r = 0; r < Width; ++r)
          out[p * Width + r] = element<Type>(base, (s + r) * rowStride + p);
      continue;
    }
    if (rowStride == 1 && valid == Width && Width % 8 == 0) {
      // Each column contiguous in the rows: 8 at a time.
      for (int64_t p = 0; p < cols; ++p)
        for (int r = 0; r < Width; r += 8)
          _mm256_storeu_ps(out + p * Width + r,
                           load8<Type>(base, p * colStride + s + r));
      continue;
    }
    for (int64_t r = 0; r < valid; ++r)
      for (int64_t p = 0; p < cols; ++p)
        out[p * Width + r] =
            element<Type>(base, (s + r) * rowStride + p * colStride);
    for (int64_t r = valid; r < Width; ++r)
      for (int64_t p = 0; p < cols; ++p)
        out[p * Width + r] = 0.0f;
  }
}

using PackFn = void (*)(const void *, int64_t, int64_t, int64_t, int64_t,
                        float *);

template <int Width> PackFn packFor(int32_t type) {
  switch (type) {
  case AMP_DTYPE_F16:
    return pack<AMP_DTYPE_F16, Width>;
  case AMP_DTYPE_BF16:
    return pack<AMP_DTYPE_BF16, Width>;
  default:
    return pack<AMP_DTYPE_F32, Width>;
  }
}

/// C[0..6, 0..16) (ldc) = the product of a 6-row sliver of A and a
/// 16-column sliver of B over kc, + beta C.
AMP_TARGET_AVX2 void kernelAvx2(int64_t kc, const float *a, const float *b,
                                float *c, int64_t ldc, float beta) {
  __m256 acc[6][2];
#pragma GCC unroll 8
  for (int r = 0; r < 6; ++r)
    acc[r][0] = acc[r][1] = _mm256_setzero_ps();
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p, a += 6, b += 16) {
    __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 8
    for (int r = 0; r < 6; ++r) {
      __m256 x = _mm256_broadcast_ss(a + r);
      acc[r][0] = _mm256_fmadd_ps(x, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(x, b1, acc[r][1]);
    }
  }
  __m256 scale = _mm256_set1_ps(beta);
#pragma GCC unroll 8
  for (int r = 0; r < 6; ++r) {
    float *row = c + r * ldc;
    if (beta != 0.0f) {
      acc[r][0] = _mm256_fmadd_ps(scale, _mm256_loadu_ps(row), acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(scale, _mm256_loadu_ps(row + 8), acc[r][1]);
    }
    _mm256_storeu_ps(row, acc[r][0]);
    _mm256_storeu_ps(row + 8, acc[r][1]);
  }
}

/// C[0..8, 0..32) (ldc) = the product of an 8-row sliver of A and a
/// 32-column sliver of B over kc, + beta C.
AMP_TARGET_AVX512 void kernelAvx512(int64_t kc, const float *a, const float *b,
                                    float *c, int64_t ldc, float beta) {
  __m512 acc[8][2];
#pragma GCC unroll 8
  for (int r = 0; r < 8; ++r)
    acc[r][0] = acc[r][1] = _mm512_setzero_ps();
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p, a += 8, b += 32) {
    __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
#pragma GCC unroll 8
    for (int r = 0; r < 8; ++r) {
      __m512 x = _mm512_set1_ps(a[r]);
      acc[r][0] = _mm512_fmadd_ps(x, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(x, b1, acc[r][1]);
    }
  }
  __m512 scale = _mm512_set1_ps(beta);
#pragma GCC unroll 8
  for (int r = 0; r < 8; ++r) {
    float *row = c + r * ldc;
    if (beta != 0.0f) {
      acc[r][0] = _mm512_fmadd_ps(scale, _mm512_loadu_ps(row), acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(scale, _mm512_loadu_ps(row + 16), acc[r][1]);
    }
    _mm512_storeu_ps(row, acc[r][0]);
    _mm512_storeu_ps(row + 16, acc[r][1]);
  }
}

using KernelFn = void (*)(int64_t, const float *, const float *, float *,
                          int64_t, float);

/// A micro-kernel and the blocking around it: MR x NR tiles, KC-deep
/// slivers (an NR x KC sliver of B stays in L1 while the MR x KC slivers
/// of an MC x KC block of A stream from L2), NC-wide panels of B.
struct Kernel {
  const char *name;
  KernelFn fn;
  int mr, nr;
  int64_t kc, mc, nc;
  PackFn (*packA)(int32_t);
  PackFn (*packB)(int32_t);
};

// The block sizes were chosen by measuring the GEMMs of the CPU benchmark's
// transformers (docs/performance.md): a panel of B wider than 512 (AVX-512)
// or 1024 (AVX2) columns no longer stays in L2 and slowed the 3072-wide
// ones by up to 30%.
const Kernel kAvx2 = {"avx2", kernelAvx2, 6,          16,         256,
                      144,    1024,       packFor<6>, packFor<16>};
const Kernel kAvx512 = {"avx512", kernelAvx512, 8,          32,         256,
                        192,      512,          packFor<8>, packFor<32>};

/// The kernel named `name` ("avx512" or "avx2") if this CPU runs it, else
/// null.
const Kernel *findKernel(const std::string &name) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma") ||
      !__builtin_cpu_supports("f16c"))
    return nullptr;
  if (name == "avx512")
    return __builtin_cpu_supports("avx512f") ? &kAvx512 : nullptr;
  return name == "avx2" ? &kAvx2 : nullptr;
}

const Kernel *selectKernel() {
  const char *choice = std::getenv("AMP_CPU_GEMM");
  std::string wanted = choice ? choice : "";
  if (wanted == "blas" || wanted == "off" || wanted == "0")
    return nullptr;
  if (wanted != "avx2")
    if (const Kernel *widest = findKernel("avx512"))
      return widest;
  return findKernel("avx2");
}

const Kernel *getKernel() {
  static const Kernel *kernel = selectKernel();
  return kernel;
}

struct Buffers {
  std::vector<float> a, b;
};

} // namespace
#endif

const char *amp::rt::cpu::wideningGemmKernel() {
#ifdef AMP_HAVE_WIDENING_GEMM
  const Kernel *kernel = getKernel();
  return kernel ? kernel->name : nullptr;
#else
  return nullptr;
#endif
}

#ifdef AMP_HAVE_WIDENING_GEMM
namespace {
void runGemm(const Kernel &kernel, bool transA, bool transB, int64_t m,
             int64_t n, int64_t k, const void *a, int32_t aType, int64_t lda,
             const void *b, int32_t bType, int64_t ldb, float beta, float *c,
             int64_t ldc) {
  // Kept between calls on a thread, as CpuLibrary's scratch.
  thread_local Buffers buffers;
  const int mr = kernel.mr, nr = kernel.nr;
  int64_t kc = std::min(kernel.kc, k);
  int64_t mc = std::min<int64_t>(kernel.mc, (m + mr - 1) / mr * mr);
  int64_t nc = std::min<int64_t>(kernel.nc, (n + nr - 1) / nr * nr);
  buffers.a.resize(static_cast<size_t>(mc * kc));
  buffers.b.resize(static_cast<size_t>(kc * nc));
  float *packedA = buffers.a.data(), *packedB = buffers.b.data();
  PackFn packA = kernel.packA(aType), packB = kernel.packB(bType);
  int64_t aSize = aType == AMP_DTYPE_F32 ? 4 : 2;
  int64_t bSize = bType == AMP_DTYPE_F32 ? 4 : 2;
  // Element (i, p) of op(A) and (p, j) of op(B), as offsets.
  int64_t aRowStride = transA ? 1 : lda, aColStride = transA ? lda : 1;
  int64_t bRowStride = transB ? ldb : 1, bColStride = transB ? 1 : ldb;
  float tile[8 * 32];
  for (int64_t j0 = 0; j0 < n; j0 += nc) {
    int64_t nb = std::min(nc, n - j0);
    for (int64_t p0 = 0; p0 < k; p0 += kc) {
      int64_t kb = std::min(kc, k - p0);
      // The first KC block adds beta C, the others add to it.
      float blockBeta = p0 == 0 ? beta : 1.0f;
      // B's panel: rows j, columns p (op(B) transposed).
      packB(static_cast<const char *>(b) +
                (j0 * bRowStride + p0 * bColStride) * bSize,
            bRowStride, bColStride, nb, kb, packedB);
      for (int64_t i0 = 0; i0 < m; i0 += mc) {
        int64_t mb = std::min(mc, m - i0);
        packA(static_cast<const char *>(a) +
                  (i0 * aRowStride + p0 * aColStride) * aSize,
              aRowStride, aColStride, mb, kb, packedA);
        for (int64_t jr = 0; jr < nb; jr += nr) {
          int64_t cols = std::min<int64_t>(nr, nb - jr);
          const float *slicedB = packedB + jr * kb;
          for (int64_t ir = 0; ir < mb; ir += mr) {
            int64_t rows = std::min<int64_t>(mr, mb - ir);
            const float *slicedA = packedA + ir * kb;
            float *out = c + (i0 + ir) * ldc + j0 + jr;
            if (rows == mr && cols == nr) {
              kernel.fn(kb, slicedA, slicedB, out, ldc, blockBeta);
              continue;
            }
            kernel.fn(kb, slicedA, slicedB, tile, nr, 0.0f);
            for (int64_t r = 0; r < rows; ++r)
              for (int64_t q = 0; q < cols; ++q) {
                // As the micro-kernels add beta C (one FMA), so that a
                // sum has the same bits in an edge tile as in a full one.
                float &target = out[r * ldc + q];
                target = blockBeta == 0.0f
                             ? tile[r * nr + q]
                             : std::fma(blockBeta, target, tile[r * nr + q]);
              }
          }
        }
      }
    }
  }
}
} // namespace
#endif

void amp::rt::cpu::wideningGemm(bool transA, bool transB, int64_t m, int64_t n,
                                int64_t k, const void *a, int32_t aType,
                                int64_t lda, const void *b, int32_t bType,
                                int64_t ldb, float beta, float *c,
                                int64_t ldc) {
#ifdef AMP_HAVE_WIDENING_GEMM
  runGemm(*getKernel(), transA, transB, m, n, k, a, aType, lda, b, bType, ldb,
          beta, c, ldc);
#else
  (void)transA, (void)transB, (void)m, (void)n, (void)k, (void)a, (void)aType;
  (void)lda, (void)b, (void)bType, (void)ldb, (void)beta, (void)c, (void)ldc;
#endif
}

bool amp::rt::cpu::wideningGemmWithKernel(
    const char *name, bool transA, bool transB, int64_t m, int64_t n, int64_t k,
    const void *a, int32_t aType, int64_t lda, const void *b, int32_t bType,
    int64_t ldb, float beta, float *c, int64_t ldc) {
#ifdef AMP_HAVE_WIDENING_GEMM
  const Kernel *kernel = findKernel(name);
  if (!kernel)
    return false;
  runGemm(*kernel, transA, transB, m, n, k, a, aType, lda, b, bType, ldb, beta,
          c, ldc);
  return true;
#else
  (void)name, (void)transA, (void)transB, (void)m, (void)n, (void)k, (void)a;
  (void)aType, (void)lda, (void)b, (void)bType, (void)ldb, (void)beta, (void)c;
  (void)ldc;
  return false;
#endif
}
