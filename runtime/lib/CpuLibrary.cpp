//===- CpuLibrary.cpp - the CPU pipeline's contractions -------------------===//
//
// Part of amp-mlir. The calls only the CPU pipeline makes
// (AMP_CPU_LIBRARY_CALL rows of LibraryCalls.def): ampCpuLibraryGemm, the
// GEMM of the CPU pipeline's matmuls and batch matmuls, and
// ampCpuLibraryConv2d, its 2-D convolutions, computed by the runtime's own
// GEMM (WideningGemm.cpp) or the host's CBLAS (OpenBLAS by default; the
// choice and its measurements are in docs/performance.md).
//
// The library is opened with dlopen on first use, as the GPU side opens
// cuBLAS and cuDNN: libamp_runtime has no link dependency on it, so a copy
// of the runtime (the GPU kit, a wheel, an amp-compile'd module's
// directory) loads on a machine without it, and the calls then run as plain
// loops. The candidates are AMP_CPU_BLAS (a path, or none/off/0/loops)
// else the libraries CMake found when the runtime was configured
// (AMP_RUNTIME_CPU_BLAS_LIBRARIES, separated by ':'), the first that loads
// and has cblas_sgemm.
//
// On x86-64 CPUs with AVX2, FMA and F16C the GEMM is the runtime's own
// (WideningGemm.cpp), for every type: its packing reads f16/bf16 operands
// in place, widening them exactly to f32, and it sums in one order on
// every such CPU. Elsewhere (or with AMP_CPU_GEMM=blas) f16/bf16 operands
// are widened exactly to f32 into scratch buffers (F16C's vcvtph2ps where
// the CPU has it; bf16 is a shift) for the library's f32 GEMM. Either way
// a 16-bit C is rounded once (RNE) from the f32 result. With at most 4
// rows (a decoder's token), where the product is bound by the bytes of B,
// a 16-bit B is read in place by fewRowsGemm, widened in registers
// (AMP_CPU_NO_FEW_ROWS=1 turns it off, for comparison).
//
// ampCpuLibraryConv2d, the CPU pipeline's 2-D convolutions, is the same f32
// GEMM on a column buffer (im2col): for NCHW, per image, a (c*kh*kw) x
// (oh*ow) matrix whose row (c, r, s) holds the input pixels that filter tap
// (r, s) of channel c meets at each output pixel (zero where the window
// leaves the input), multiplied from the left by the F x (c*kh*kw) filter;
// for NHWC, per image, an (oh*ow) x (kh*kw*c) matrix, one row per output
// pixel, multiplied from the right by the filter (HWCF: (kh*kw*c) x F; FHWC:
// F x (kh*kw*c), transposed). The packing widens f16/bf16 to f32 on the
// way. A 1x1 convolution with unit strides and no padding reads the input
// in place (f32) or widened, without gathering. A grouped convolution is
// one such GEMM per group and image, over the group's input channels, with
// the group's rows of the filter (or, HWCF, its columns: a strided view)
// into the group's rows (NCHW) or columns (NHWC, strided) of y. A
// depthwise one (one input channel per group) runs the direct kernels of
// "Depthwise convolutions" below instead.
//
//===----------------------------------------------------------------------===//

#include "InlineConvert.h"
#include "Internal.h"
#include "LibraryCallEntries.h"
#include "WideningGemm.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <string>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define AMP_HAVE_F16C_PATH 1
#endif

#ifndef AMP_RUNTIME_CPU_BLAS_LIBRARIES
#define AMP_RUNTIME_CPU_BLAS_LIBRARIES ""
#endif

using namespace amp::rt;

namespace {
//===----------------------------------------------------------------------===//
// The library
//===----------------------------------------------------------------------===//

// CBLAS's enums and cblas_sgemm (LP64: int sizes), as every CBLAS has them.
enum { kRowMajor = 101, kNoTrans = 111, kTrans = 112 };
using SgemmFn = void (*)(int order, int transA, int transB, int m, int n,
                         int k, float alpha, const float *a, int lda,
                         const float *b, int ldb, float beta, float *c,
                         int ldc);

struct CpuBlas {
  SgemmFn sgemm = nullptr;
  std::string name = "loops";
};

bool isOff(const char *value) {
  std::string v(value);
  return v.empty() || v == "0" || v == "none" || v == "off" ||
         v == "loops" || v == "false";
}

/// OpenBLAS picks its kernels from the CPU's model when it loads, and one
/// that does not know the CPU runs its SSE3 kernels ("Prescott"): Debian's
/// 0.3.21 does so on Intel's Emerald Rapids, 8x slower than its AVX-512
/// kernels there (docs/performance.md). Unless the user chose
/// (OPENBLAS_CORETYPE set), name the kernels from the CPU's features
/// instead: SkylakeX with AVX-512 (F, BW, DQ, VL), else Haswell with AVX2
/// and FMA; the kernels OpenBLAS uses for sgemm on every newer core.
void chooseOpenBlasCore() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (std::getenv("OPENBLAS_CORETYPE"))
    return;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    setenv("OPENBLAS_CORETYPE", "SkylakeX", /*overwrite=*/0);
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    setenv("OPENBLAS_CORETYPE", "Haswell", /*overwrite=*/0);
#endif
}

CpuBlas loadBlas() {
  CpuBlas blas;
  std::vector<std::string> candidates;
  if (const char *env = std::getenv("AMP_CPU_BLAS")) {
    if (isOff(env))
      return blas;
    candidates.push_back(env);
  } else {
    std::string list = AMP_RUNTIME_CPU_BLAS_LIBRARIES;
    size_t start = 0;
    while (start < list.size()) {
      size_t end = list.find(':', start);
      if (end == std::string::npos)
        end = list.size();
      if (end > start)
        candidates.push_back(list.substr(start, end - start));
      start = end + 1;
    }
  }
  chooseOpenBlasCore();
  for (const std::string &path : candidates) {
    void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      continue;
    if (auto sgemm = reinterpret_cast<SgemmFn>(dlsym(handle, "cblas_sgemm"))) {
      blas.sgemm = sgemm;
      blas.name = path;
      return blas; // Kept open for the life of the process.
    }
    dlclose(handle);
  }
  return blas;
}

const CpuBlas &getBlas() {
  static const CpuBlas blas = loadBlas();
  return blas;
}

//===----------------------------------------------------------------------===//
// Conversions of whole rows
//===----------------------------------------------------------------------===//

#ifdef AMP_HAVE_F16C_PATH
__attribute__((target("avx,f16c"))) void widenF16F16c(const uint16_t *src,
                                                      float *dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(dst + i,
                     _mm256_cvtph_ps(_mm_loadu_si128(
                         reinterpret_cast<const __m128i *>(src + i))));
  for (; i < n; ++i)
    dst[i] = f16ToF32(src[i]);
}

__attribute__((target("avx,f16c"))) void narrowF16F16c(const float *src,
                                                       uint16_t *dst,
                                                       int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(src + i),
                                     _MM_FROUND_TO_NEAREST_INT |
                                         _MM_FROUND_NO_EXC));
  for (; i < n; ++i)
    dst[i] = f32ToF16(src[i]);
}

/// bf16 <-> f32 eight at a time (AVX2): the exact widening is a shift; the
/// narrowing rounds to nearest even as f32ToBF16 does, a NaN kept quiet.
__attribute__((target("avx2"))) void widenBF16Avx2(const uint16_t *src,
                                                   float *dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(dst + i,
                     _mm256_castsi256_ps(_mm256_slli_epi32(
                         _mm256_cvtepu16_epi32(_mm_loadu_si128(
                             reinterpret_cast<const __m128i *>(src + i))),
                         16)));
  for (; i < n; ++i)
    dst[i] = bf16ToF32(src[i]);
}

__attribute__((target("avx2"))) void narrowBF16Avx2(const float *src,
                                                    uint16_t *dst, int64_t n) {
  const __m256i lsb = _mm256_set1_epi32(1), bias = _mm256_set1_epi32(0x7fff);
  const __m256i absMask = _mm256_set1_epi32(0x7fffffff);
  const __m256i inf = _mm256_set1_epi32(0x7f800000);
  const __m256i quiet = _mm256_set1_epi32(0x0040);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i bits = _mm256_castps_si256(_mm256_loadu_ps(src + i));
    __m256i odd = _mm256_and_si256(_mm256_srli_epi32(bits, 16), lsb);
    __m256i rounded = _mm256_srli_epi32(
        _mm256_add_epi32(_mm256_add_epi32(bits, bias), odd), 16);
    __m256i nan = _mm256_or_si256(_mm256_srli_epi32(bits, 16), quiet);
    __m256i isNan = _mm256_cmpgt_epi32(_mm256_and_si256(bits, absMask), inf);
    __m256i result = _mm256_blendv_epi8(rounded, nan, isNan);
    // 32-bit lanes holding 16-bit values: pack (within 128-bit halves),
    // then put the halves' results in order.
    __m256i packed = _mm256_packus_epi32(result, result);
    packed = _mm256_permute4x64_epi64(packed, 0x08);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + i),
                     _mm256_castsi256_si128(packed));
  }
  for (; i < n; ++i)
    dst[i] = f32ToBF16(src[i]);
}

bool haveAvx2() {
  static const bool have = __builtin_cpu_supports("avx2");
  return have;
}

bool haveF16c() {
  static const bool have = __builtin_cpu_supports("f16c") &&
                           __builtin_cpu_supports("avx");
  return have;
}
#endif

/// dst[0, n) = the f32 values of `n` elements of `type` at src.
void widen(const void *src, int32_t type, float *dst, int64_t n) {
  if (type == AMP_DTYPE_F32) {
    std::memcpy(dst, src, n * sizeof(float));
    return;
  }
  if (isFloat8(type)) {
    for (int64_t i = 0; i < n; ++i)
      dst[i] = float8ToF32(src, type, i);
    return;
  }
  auto *bits = static_cast<const uint16_t *>(src);
  if (type == AMP_DTYPE_BF16) {
#ifdef AMP_HAVE_F16C_PATH
    if (haveAvx2())
      return widenBF16Avx2(bits, dst, n);
#endif
    for (int64_t i = 0; i < n; ++i)
      dst[i] = bf16ToF32(bits[i]);
    return;
  }
#ifdef AMP_HAVE_F16C_PATH
  if (haveF16c())
    return widenF16F16c(bits, dst, n);
#endif
  for (int64_t i = 0; i < n; ++i)
    dst[i] = f16ToF32(bits[i]);
}

/// `n` elements of `type` at dst = src rounded to nearest even.
void narrow(const float *src, int32_t type, void *dst, int64_t n) {
  if (type == AMP_DTYPE_F32) {
    std::memcpy(dst, src, n * sizeof(float));
    return;
  }
  auto *bits = static_cast<uint16_t *>(dst);
  if (type == AMP_DTYPE_BF16) {
#ifdef AMP_HAVE_F16C_PATH
    if (haveAvx2())
      return narrowBF16Avx2(src, bits, n);
#endif
    for (int64_t i = 0; i < n; ++i)
      bits[i] = f32ToBF16(src[i]);
    return;
  }
#ifdef AMP_HAVE_F16C_PATH
  if (haveF16c())
    return narrowF16F16c(src, bits, n);
#endif
  for (int64_t i = 0; i < n; ++i)
    bits[i] = f32ToF16(src[i]);
}

/// The address of element `index` of a buffer of `type`.
const char *at(const void *base, int32_t type, int64_t index) {
  return static_cast<const char *>(base) + index * gemmElementSize(type);
}

/// A dense f32 copy of the rows x cols matrix of `type` at `base` (row
/// stride `ld` elements) in `scratch`.
const float *widenMatrix(const void *base, int32_t type, int64_t rows,
                         int64_t cols, int64_t ld, std::vector<float> &scratch) {
  scratch.resize(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    widen(at(base, type, r * ld), type, scratch.data() + r * cols, cols);
  return scratch.data();
}

//===----------------------------------------------------------------------===//
// The f32 GEMM without a library
//===----------------------------------------------------------------------===//

/// C = op(A) op(B) + beta C on f32 row-major operands, accumulated in f32:
/// row by row, each row of op(B) scaled into the row of C (the inner loop
/// over n vectorises). op(B) must not be transposed.
void loopSgemm(bool transA, int64_t m, int64_t n, int64_t k, const float *a,
               int64_t lda, const float *b, int64_t ldb, float beta, float *c,
               int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    float *row = c + i * ldc;
    if (beta == 0.0f)
      std::fill(row, row + n, 0.0f);
    else if (beta != 1.0f)
      for (int64_t j = 0; j < n; ++j)
        row[j] *= beta;
    for (int64_t p = 0; p < k; ++p) {
      float scale = transA ? a[p * lda + i] : a[i * lda + p];
      const float *brow = b + p * ldb;
      for (int64_t j = 0; j < n; ++j)
        row[j] += scale * brow[j];
    }
  }
}

bool fitsInt(int64_t value) { return value <= INT_MAX; }

/// C = op(A) op(B) + beta C on f32 row-major operands: the library's
/// cblas_sgemm, else (none, or sizes beyond int) loopSgemm.
void f32Gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
             const float *a, int64_t lda, const float *b, int64_t ldb,
             float beta, float *c, int64_t ldc) {
  const CpuBlas &blas = getBlas();
  if (blas.sgemm && k > 0 && fitsInt(m) && fitsInt(n) && fitsInt(k) &&
      fitsInt(lda) && fitsInt(ldb) && fitsInt(ldc)) {
    blas.sgemm(kRowMajor, transA ? kTrans : kNoTrans,
               transB ? kTrans : kNoTrans, static_cast<int>(m),
               static_cast<int>(n), static_cast<int>(k), 1.0f, a,
               static_cast<int>(lda), b, static_cast<int>(ldb), beta, c,
               static_cast<int>(ldc));
  } else if (transB) {
    // The loops read op(B) by rows: transpose it once.
    std::vector<float> transposed(static_cast<size_t>(k * n));
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p)
        transposed[p * n + j] = b[j * ldb + p];
    loopSgemm(transA, m, n, k, a, lda, transposed.data(), n, beta, c, ldc);
  } else {
    loopSgemm(transA, m, n, k, a, lda, b, ldb, beta, c, ldc);
  }
}

//===----------------------------------------------------------------------===//
// Few rows: 16-bit B read in place
//===----------------------------------------------------------------------===//

// With a few rows of A (a decoder's one token, a GEMV), the product reads
// each element of B once and does 2*m flops with it: it is bound by the
// bytes of B. Widening B into f32 scratch first, then letting the library
// read that, moves 2 + 4 + 4 bytes per element where an f32 model moves 4,
// so storing the weights low would make it slower. These kernels read B's
// 16-bit elements where they are, widen them in registers (F16C's
// vcvtph2ps, or a shift for bf16) and accumulate in f32 with FMA: 2 bytes
// per element. No CBLAS has f16/bf16 operands with f32 accumulation on
// AVX2 (OpenBLAS's sbgemm needs AVX-512 BF16 to be fast, BLIS 0.9's mixed
// precision covers s/d/c/z only), so they are written here.

constexpr int64_t kFewRows = 4;

#ifdef AMP_HAVE_F16C_PATH
bool haveAvx2Fma() {
  static const bool have = __builtin_cpu_supports("avx2") &&
                           __builtin_cpu_supports("fma") &&
                           __builtin_cpu_supports("f16c");
  return have;
}

/// 8 consecutive 16-bit elements of `type` at `p`, widened.
__attribute__((target("avx2,fma,f16c"))) inline __m256 load8(const uint16_t *p,
                                                             int32_t type) {
  __m128i bits = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
  if (type == AMP_DTYPE_BF16)
    return _mm256_castsi256_ps(
        _mm256_slli_epi32(_mm256_cvtepu16_epi32(bits), 16));
  return _mm256_cvtph_ps(bits);
}

__attribute__((target("avx2,fma,f16c"))) inline float hsum(__m256 v) {
  __m128 x = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  x = _mm_add_ps(x, _mm_movehl_ps(x, x));
  x = _mm_add_ss(x, _mm_shuffle_ps(x, x, 1));
  return _mm_cvtss_f32(x);
}

/// The scalar value of element `i` of 16-bit `type` at `p`.
inline float scalar16(const uint16_t *p, int32_t type, int64_t i) {
  return type == AMP_DTYPE_BF16 ? bf16ToF32(p[i]) : f16ToF32(p[i]);
}

/// C = A B^T + beta C for m <= kFewRows: A m x k f32 (lda), B n x k of
/// 16-bit `type` (ldb), C m x n f32 (ldc). Each row of B is a dot product
/// with each row of A.
template <int M>
__attribute__((target("avx2,fma,f16c"))) void
fewRowsTransB(int64_t n, int64_t k, const float *a, int64_t lda,
              const uint16_t *b, int64_t ldb, int32_t type, float beta,
              float *c, int64_t ldc) {
  int64_t k8 = k & ~int64_t(7), k16 = k & ~int64_t(15);
  for (int64_t j = 0; j < n; ++j) {
    const uint16_t *row = b + j * ldb;
    // Two accumulators per row, so that the FMAs' latency overlaps.
    __m256 acc[M], odd[M];
    for (int i = 0; i < M; ++i)
      acc[i] = odd[i] = _mm256_setzero_ps();
    int64_t p = 0;
    for (; p < k16; p += 16) {
      __m256 w0 = load8(row + p, type), w1 = load8(row + p + 8, type);
      for (int i = 0; i < M; ++i) {
        acc[i] = _mm256_fmadd_ps(_mm256_loadu_ps(a + i * lda + p), w0, acc[i]);
        odd[i] =
            _mm256_fmadd_ps(_mm256_loadu_ps(a + i * lda + p + 8), w1, odd[i]);
      }
    }
    for (; p < k8; p += 8) {
      __m256 w = load8(row + p, type);
      for (int i = 0; i < M; ++i)
        acc[i] = _mm256_fmadd_ps(_mm256_loadu_ps(a + i * lda + p), w, acc[i]);
    }
    for (int i = 0; i < M; ++i) {
      float sum = hsum(_mm256_add_ps(acc[i], odd[i]));
      for (int64_t p = k8; p < k; ++p)
        sum += a[i * lda + p] * scalar16(row, type, p);
      float *out = c + i * ldc + j;
      *out = beta == 0.0f ? sum : sum + beta * *out;
    }
  }
}

/// C = A B + beta C for m <= kFewRows: A m x k f32 (lda), B k x n of
/// 16-bit `type` (ldb), C m x n f32 (ldc). Row p of B, scaled by A[i, p],
/// is added to row i of C, 16 columns at a time in registers.
template <int M>
__attribute__((target("avx2,fma,f16c"))) void
fewRowsNoTransB(int64_t n, int64_t k, const float *a, int64_t lda,
                const uint16_t *b, int64_t ldb, int32_t type, float beta,
                float *c, int64_t ldc) {
  int64_t n16 = n & ~int64_t(15);
  for (int64_t j = 0; j < n16; j += 16) {
    __m256 acc[M][2];
    for (int i = 0; i < M; ++i)
      acc[i][0] = acc[i][1] = _mm256_setzero_ps();
    for (int64_t p = 0; p < k; ++p) {
      const uint16_t *row = b + p * ldb + j;
      __m256 w0 = load8(row, type), w1 = load8(row + 8, type);
      for (int i = 0; i < M; ++i) {
        __m256 x = _mm256_broadcast_ss(a + i * lda + p);
        acc[i][0] = _mm256_fmadd_ps(x, w0, acc[i][0]);
        acc[i][1] = _mm256_fmadd_ps(x, w1, acc[i][1]);
      }
    }
    for (int i = 0; i < M; ++i) {
      float *out = c + i * ldc + j;
      if (beta != 0.0f) {
        __m256 scale = _mm256_set1_ps(beta);
        acc[i][0] = _mm256_fmadd_ps(scale, _mm256_loadu_ps(out), acc[i][0]);
        acc[i][1] = _mm256_fmadd_ps(scale, _mm256_loadu_ps(out + 8), acc[i][1]);
      }
      _mm256_storeu_ps(out, acc[i][0]);
      _mm256_storeu_ps(out + 8, acc[i][1]);
    }
  }
  for (int64_t j = n16; j < n; ++j)
    for (int i = 0; i < M; ++i) {
      float sum = 0.0f;
      for (int64_t p = 0; p < k; ++p)
        sum += a[i * lda + p] * scalar16(b + p * ldb, type, j);
      float *out = c + i * ldc + j;
      *out = beta == 0.0f ? sum : sum + beta * *out;
    }
}

template <int M>
void fewRows(bool transB, int64_t n, int64_t k, const float *a, int64_t lda,
             const uint16_t *b, int64_t ldb, int32_t type, float beta, float *c,
             int64_t ldc) {
  if (transB)
    fewRowsTransB<M>(n, k, a, lda, b, ldb, type, beta, c, ldc);
  else
    fewRowsNoTransB<M>(n, k, a, lda, b, ldb, type, beta, c, ldc);
}
#endif

/// Whether fewRowsGemm computes `g`: a 16-bit B, A not transposed, 1 to
/// kFewRows rows, k > 0, and a CPU with AVX2, FMA and F16C (unless
/// AMP_CPU_NO_FEW_ROWS is set: the widening path, for comparison).
bool readsBInPlace(const GemmArgs &g) {
#ifdef AMP_HAVE_F16C_PATH
  static const bool have = haveAvx2Fma() && !std::getenv("AMP_CPU_NO_FEW_ROWS");
  return have && (g.bType == AMP_DTYPE_F16 || g.bType == AMP_DTYPE_BF16) &&
         !g.transA && g.m >= 1 && g.m <= kFewRows && g.k > 0;
#else
  (void)g;
  return false;
#endif
}

/// C = A op(B) + beta C with B of 16-bit `type` read in place, for a GEMM
/// readsBInPlace accepts. A is dense f32 (lda).
void fewRowsGemm(bool transB, int64_t m, int64_t n, int64_t k, const float *a,
                 int64_t lda, const void *b, int64_t ldb, int32_t type,
                 float beta, float *c, int64_t ldc) {
#ifdef AMP_HAVE_F16C_PATH
  auto *bits = static_cast<const uint16_t *>(b);
  switch (m) {
  case 1:
    return fewRows<1>(transB, n, k, a, lda, bits, ldb, type, beta, c, ldc);
  case 2:
    return fewRows<2>(transB, n, k, a, lda, bits, ldb, type, beta, c, ldc);
  case 3:
    return fewRows<3>(transB, n, k, a, lda, bits, ldb, type, beta, c, ldc);
  default:
    return fewRows<4>(transB, n, k, a, lda, bits, ldb, type, beta, c, ldc);
  }
#else
  (void)transB, (void)m, (void)n, (void)k, (void)a, (void)lda, (void)b;
  (void)ldb, (void)type, (void)beta, (void)c, (void)ldc;
#endif
}

/// Whether wideningGemm computes a GEMM of depth `k`: k > 0 and a CPU it
/// has a micro-kernel for (AMP_CPU_GEMM=blas: the library's f32 GEMM,
/// 16-bit operands widened into scratch first). It computes f32 operands
/// too, so that every level sums in the same order on every such CPU.
bool usesOwnGemm(int64_t k) {
  return k > 0 && cpu::wideningGemmKernel() != nullptr;
}

struct Scratch {
  std::vector<float> a, b, c;
};

/// The f32 value of element `index` of a buffer of `type`.
inline float loadF32(const void *base, int32_t type, int64_t index) {
  if (type == AMP_DTYPE_F32)
    return static_cast<const float *>(base)[index];
  if (isFloat8(type))
    return float8ToF32(base, type, index);
  uint16_t bits = static_cast<const uint16_t *>(base)[index];
  return type == AMP_DTYPE_BF16 ? bf16ToF32(bits) : f16ToF32(bits);
}

/// The column buffer of image `image` of an NCHW convolution over the
/// `channels` input channels from `firstChannel` (one group's): row
/// (ci, r, s) of (channels*kh*kw) x (oh*ow) holds
/// x[image, firstChannel + ci, iy, ix] at output pixel (oy, ox), with
/// iy = oy*strideH - padTop + r*dilH (likewise ix), and 0 where that is
/// outside the input.
void packNchw(const ConvArgs &v, int64_t image, int64_t firstChannel,
              int64_t channels, float *col) {
  int64_t plane = v.h * v.w, pixels = v.oh * v.ow;
  const char *x = at(v.x, v.xType, (image * v.c + firstChannel) * plane);
  for (int64_t ci = 0; ci < channels; ++ci) {
    const char *channel = at(x, v.xType, ci * plane);
    for (int64_t r = 0; r < v.kh; ++r) {
      for (int64_t s = 0; s < v.kw; ++s) {
        float *row = col + ((ci * v.kh + r) * v.kw + s) * pixels;
        // The output columns whose ix is inside: [oxBegin, oxEnd).
        int64_t offset = s * v.dilW - v.padLeft;
        int64_t oxBegin =
            offset >= 0 ? 0 : (-offset + v.strideW - 1) / v.strideW;
        int64_t oxEnd =
            v.w - offset <= 0
                ? 0
                : std::min(v.ow, (v.w - offset - 1) / v.strideW + 1);
        oxBegin = std::min(oxBegin, oxEnd);
        for (int64_t oy = 0; oy < v.oh; ++oy) {
          float *out = row + oy * v.ow;
          int64_t iy = oy * v.strideH - v.padTop + r * v.dilH;
          if (iy < 0 || iy >= v.h) {
            std::fill(out, out + v.ow, 0.0f);
            continue;
          }
          std::fill(out, out + oxBegin, 0.0f);
          std::fill(out + oxEnd, out + v.ow, 0.0f);
          int64_t base = iy * v.w + offset;
          if (v.strideW == 1) {
            widen(at(channel, v.xType, base + oxBegin), v.xType, out + oxBegin,
                  oxEnd - oxBegin);
            continue;
          }
          for (int64_t ox = oxBegin; ox < oxEnd; ++ox)
            out[ox] = loadF32(channel, v.xType, base + ox * v.strideW);
        }
      }
    }
  }
}

/// The column buffer of image `image` of an NHWC convolution over the
/// `channels` input channels from `firstChannel`: row (oy, ox) of
/// (oh*ow) x (kh*kw*channels) holds, at (r, s, ci),
/// x[image, iy, ix, firstChannel + ci] (0 outside the input).
void packNhwc(const ConvArgs &v, int64_t image, int64_t firstChannel,
              int64_t channels, float *col) {
  int64_t k = v.kh * v.kw * channels;
  const char *x = at(v.x, v.xType, image * v.h * v.w * v.c + firstChannel);
  for (int64_t oy = 0; oy < v.oh; ++oy) {
    for (int64_t ox = 0; ox < v.ow; ++ox) {
      float *row = col + (oy * v.ow + ox) * k;
      for (int64_t r = 0; r < v.kh; ++r) {
        int64_t iy = oy * v.strideH - v.padTop + r * v.dilH;
        for (int64_t s = 0; s < v.kw; ++s) {
          int64_t ix = ox * v.strideW - v.padLeft + s * v.dilW;
          float *out = row + (r * v.kw + s) * channels;
          if (iy < 0 || iy >= v.h || ix < 0 || ix >= v.w)
            std::fill(out, out + channels, 0.0f);
          else
            widen(at(x, v.xType, (iy * v.w + ix) * v.c), v.xType, out,
                  channels);
        }
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Depthwise convolutions
//===----------------------------------------------------------------------===//

// The kernels are written once, inlined into a generic and an AVX2 + FMA
// version (the compiler vectorises each for its target).
#if defined(__GNUC__) || defined(__clang__)
#define AMP_DEPTHWISE_INLINE inline __attribute__((always_inline))
#else
#define AMP_DEPTHWISE_INLINE inline
#endif

// A depthwise convolution (one input channel per group: groups == c, each
// input channel g feeding the `multiplier` = f/c output channels
// [g*multiplier, (g+1)*multiplier)) does kh*kw multiply-adds per output
// element: as per-group GEMMs it is c GEMMs of multiplier x (kh*kw) by
// (kh*kw) x (oh*ow), each behind an im2col that writes kh*kw copies of the
// input, which costs more than the arithmetic (3x to 100x slower than the
// kernels below, see docs/performance.md). The direct kernels copy the
// input once, widened exactly to f32, into rows with zero columns on both
// sides (the padding: every tap then reads inside the copy, and no loop
// has an edge case), accumulate in f32, each output element's taps in the
// order (r, s), with FMA on CPUs with AVX2 and FMA (a plain multiply and
// add elsewhere), then round once (RNE) into a 16-bit y as the GEMM path
// does:
//  - NCHW: channel by channel and output row by output row, into an f32
//    row of accumulators (ow rounded up to a multiple of 8): each window
//    row adds its kw taps, summed in registers for kw = 3, 5 or 7 at
//    stride 1 or 2 (addWindowRow), else tap by tap (addScaled); the loop
//    over output columns is the one the compiler vectorises;
//  - NHWC: output pixel by output pixel, into f accumulators kept
//    multiplier-major (m*c + g for output channel g*multiplier + m), so
//    that for every m the loop over input channels, the one vectorised,
//    is unit-stride in the input pixel and the filter (addWindowPixel,
//    addProducts).

/// acc[i] += weight * src[i * stride] for i in [0, count).
template <bool kFma>
AMP_DEPTHWISE_INLINE void addScaled(float *__restrict acc,
                                    const float *__restrict src, int64_t stride,
                                    float weight, int64_t count) {
  if (stride == 1) {
    for (int64_t i = 0; i < count; ++i)
      acc[i] = kFma ? __builtin_fmaf(weight, src[i], acc[i])
                    : acc[i] + weight * src[i];
  } else {
    for (int64_t i = 0; i < count; ++i)
      acc[i] = kFma ? __builtin_fmaf(weight, src[i * stride], acc[i])
                    : acc[i] + weight * src[i * stride];
  }
}

/// acc[ox] += sum over s < KW of weights[s] * row[ox * STRIDE + s * dilW]
/// for ox in [0, count), the KW products added one by one in order (as KW
/// calls of addScaled would): one window row of a depthwise convolution at
/// stride 1 or 2, its KW taps summed in registers.
template <bool kFma, int KW, int STRIDE>
AMP_DEPTHWISE_INLINE void
addWindowRow(float *__restrict acc, const float *__restrict row,
             const float *__restrict weights, int64_t dilW, int64_t count) {
  float w[KW];
  for (int s = 0; s < KW; ++s)
    w[s] = weights[s];
  for (int64_t ox = 0; ox < count; ++ox) {
    float sum = acc[ox];
    for (int s = 0; s < KW; ++s)
      sum = kFma ? __builtin_fmaf(w[s], row[ox * STRIDE + s * dilW], sum)
                 : sum + w[s] * row[ox * STRIDE + s * dilW];
    acc[ox] = sum;
  }
}

/// addWindowRow for kw = 3, 5 or 7 at stride 1 or 2 (true), else false
/// (nothing added).
template <bool kFma>
AMP_DEPTHWISE_INLINE bool
addWindowRowUnrolled(float *acc, const float *row, const float *weights,
                     int64_t kw, int64_t strideW, int64_t dilW, int64_t count) {
#define AMP_DEPTHWISE_CASE(KW, STRIDE)                                         \
  if (kw == KW && strideW == STRIDE) {                                         \
    addWindowRow<kFma, KW, STRIDE>(acc, row, weights, dilW, count);            \
    return true;                                                               \
  }
  AMP_DEPTHWISE_CASE(3, 1)
  AMP_DEPTHWISE_CASE(5, 1)
  AMP_DEPTHWISE_CASE(7, 1)
  AMP_DEPTHWISE_CASE(3, 2)
  AMP_DEPTHWISE_CASE(5, 2)
  AMP_DEPTHWISE_CASE(7, 2)
#undef AMP_DEPTHWISE_CASE
  return false;
}

/// acc[g] += sum over s < KW of weights[s * weightStride + g] *
/// pixels[s * pixelStride + g] for g in [0, count), the KW products added
/// one by one in order (as KW calls of addProducts would): one window row
/// of an NHWC depthwise convolution at one output pixel, summed in
/// registers.
template <bool kFma, int KW>
AMP_DEPTHWISE_INLINE void
addWindowPixel(float *__restrict acc, const float *__restrict pixels,
               int64_t pixelStride, const float *__restrict weights,
               int64_t weightStride, int64_t count) {
  for (int64_t g = 0; g < count; ++g) {
    float sum = acc[g];
    for (int s = 0; s < KW; ++s)
      sum = kFma ? __builtin_fmaf(weights[s * weightStride + g],
                                  pixels[s * pixelStride + g], sum)
                 : sum + weights[s * weightStride + g] *
                             pixels[s * pixelStride + g];
    acc[g] = sum;
  }
}

/// acc[i] += weights[i] * src[i] for i in [0, count).
template <bool kFma>
AMP_DEPTHWISE_INLINE void
addProducts(float *__restrict acc, const float *__restrict weights,
            const float *__restrict src, int64_t count) {
  for (int64_t i = 0; i < count; ++i)
    acc[i] = kFma ? __builtin_fmaf(weights[i], src[i], acc[i])
                  : acc[i] + weights[i] * src[i];
}

/// out[i] = acc[i] + beta * out[i] for `count` f32 values into `count`
/// elements of `type` at `out` (rounded once, RNE, if 16-bit; the old
/// values are not read when beta == 0).
void storeRow(const float *acc, int64_t count, float beta, int32_t type,
              void *out, std::vector<float> &scratch) {
  if (beta == 0.0f && type == AMP_DTYPE_F32) {
    std::memcpy(out, acc, count * sizeof(float));
    return;
  }
  scratch.resize(static_cast<size_t>(count));
  float *row = scratch.data();
  if (beta != 0.0f) {
    widen(out, type, row, count);
    for (int64_t i = 0; i < count; ++i)
      row[i] = acc[i] + beta * row[i];
  } else {
    std::copy(acc, acc + count, row);
  }
  narrow(row, type, out, count);
}

/// The scratch of the depthwise kernels, kept between calls on a thread.
struct DepthwiseScratch {
  std::vector<float> taps, input, acc, row, permuted;
};

/// The filter of a depthwise convolution as f32 taps: tap (r, s) of output
/// channel k at taps[k*kh*kw + r*kw + s] (`channelMajor`, for NCHW) or at
/// taps[(r*kw + s)*f + m*c + g] with k = g*multiplier + m (for NHWC).
void widenDepthwiseTaps(const ConvArgs &v, bool channelMajor,
                        std::vector<float> &taps) {
  int64_t window = v.kh * v.kw, multiplier = v.f / v.c;
  taps.resize(static_cast<size_t>(v.f * window));
  for (int64_t k = 0; k < v.f; ++k) {
    int64_t g = k / multiplier, m = k % multiplier;
    for (int64_t tap = 0; tap < window; ++tap) {
      // FCHW and FHWC with one input channel are both (k, r, s); HWCF is
      // (r, s, k).
      int64_t from =
          v.layout == AMP_CONV_NHWC_HWCF ? tap * v.f + k : k * window + tap;
      int64_t to = channelMajor ? k * window + tap : tap * v.f + m * v.c + g;
      taps[static_cast<size_t>(to)] = loadF32(v.wt, v.wType, from);
    }
  }
}

/// The depthwise convolution of image `image` of NCHW `v`.
template <bool kFma>
AMP_DEPTHWISE_INLINE void depthwiseNchwImage(const ConvArgs &v, int64_t image,
                                             DepthwiseScratch &scratch) {
  int64_t plane = v.h * v.w, window = v.kh * v.kw, multiplier = v.f / v.c;
  // Each input row is copied (widened) between zero columns: padLeft on
  // the left, as many as the last tap of the last output column needs on
  // the right, so that every tap's loop runs over all output columns,
  // rounded up to a multiple of 8 (no edge cases, no scalar tails).
  int64_t columns = (v.ow + 7) / 8 * 8;
  int64_t width = std::max(v.padLeft + v.w,
                           (columns - 1) * v.strideW + (v.kw - 1) * v.dilW + 1);
  scratch.input.resize(static_cast<size_t>(v.h * width));
  scratch.acc.resize(static_cast<size_t>(columns));
  float *padded = scratch.input.data(), *acc = scratch.acc.data();
  const float *taps = scratch.taps.data();
  for (int64_t g = 0; g < v.c; ++g) {
    const char *source = at(v.x, v.xType, (image * v.c + g) * plane);
    for (int64_t iy = 0; iy < v.h; ++iy) {
      float *row = padded + iy * width;
      std::fill(row, row + v.padLeft, 0.0f);
      widen(at(source, v.xType, iy * v.w), v.xType, row + v.padLeft, v.w);
      std::fill(row + v.padLeft + v.w, row + width, 0.0f);
    }
    for (int64_t m = 0; m < multiplier; ++m) {
      int64_t k = g * multiplier + m;
      const float *weights = taps + k * window;
      char *output =
          const_cast<char *>(at(v.y, v.yType, (image * v.f + k) * v.oh * v.ow));
      for (int64_t oy = 0; oy < v.oh; ++oy) {
        std::fill(acc, acc + columns, 0.0f);
        for (int64_t r = 0; r < v.kh; ++r) {
          int64_t iy = oy * v.strideH - v.padTop + r * v.dilH;
          if (iy < 0 || iy >= v.h)
            continue;
          // Output column ox, tap s: padded column ox*strideW + s*dilW.
          const float *row = padded + iy * width;
          const float *rowWeights = weights + r * v.kw;
          if (!addWindowRowUnrolled<kFma>(acc, row, rowWeights, v.kw, v.strideW,
                                          v.dilW, columns))
            for (int64_t s = 0; s < v.kw; ++s)
              addScaled<kFma>(acc, row + s * v.dilW, v.strideW, rowWeights[s],
                              columns);
        }
        storeRow(acc, v.ow, v.beta, v.yType,
                 const_cast<char *>(at(output, v.yType, oy * v.ow)),
                 scratch.row);
      }
    }
  }
}

/// The depthwise convolution of image `image` of NHWC `v` (either filter
/// layout).
template <bool kFma>
AMP_DEPTHWISE_INLINE void depthwiseNhwcImage(const ConvArgs &v, int64_t image,
                                             DepthwiseScratch &scratch) {
  int64_t multiplier = v.f / v.c;
  // The image as f32 with zero pixels around its rows, as for NCHW: output
  // pixel ox, tap s reads padded pixel ox*strideW + s*dilW of the row.
  int64_t width = std::max(v.padLeft + v.w,
                           (v.ow - 1) * v.strideW + (v.kw - 1) * v.dilW + 1);
  int64_t rowSize = width * v.c;
  scratch.input.resize(static_cast<size_t>(v.h * rowSize));
  float *padded = scratch.input.data();
  const char *source = at(v.x, v.xType, image * v.h * v.w * v.c);
  for (int64_t iy = 0; iy < v.h; ++iy) {
    float *row = padded + iy * rowSize;
    std::fill(row, row + v.padLeft * v.c, 0.0f);
    widen(at(source, v.xType, iy * v.w * v.c), v.xType, row + v.padLeft * v.c,
          v.w * v.c);
    std::fill(row + (v.padLeft + v.w) * v.c, row + rowSize, 0.0f);
  }
  scratch.acc.resize(static_cast<size_t>(v.f));
  scratch.permuted.resize(static_cast<size_t>(v.f));
  float *acc = scratch.acc.data();
  const float *taps = scratch.taps.data();
  int64_t pixelStride = v.dilW * v.c;
  for (int64_t oy = 0; oy < v.oh; ++oy) {
    for (int64_t ox = 0; ox < v.ow; ++ox) {
      std::fill(acc, acc + v.f, 0.0f);
      for (int64_t r = 0; r < v.kh; ++r) {
        int64_t iy = oy * v.strideH - v.padTop + r * v.dilH;
        if (iy < 0 || iy >= v.h)
          continue;
        const float *pixels = padded + iy * rowSize + ox * v.strideW * v.c;
        for (int64_t m = 0; m < multiplier; ++m) {
          // Tap (r, s) of output channel g*multiplier + m at
          // taps[(r*kw + s)*f + m*c + g].
          const float *weights = taps + r * v.kw * v.f + m * v.c;
          float *sums = acc + m * v.c;
          if (v.kw == 7)
            addWindowPixel<kFma, 7>(sums, pixels, pixelStride, weights, v.f,
                                    v.c);
          else if (v.kw == 5)
            addWindowPixel<kFma, 5>(sums, pixels, pixelStride, weights, v.f,
                                    v.c);
          else if (v.kw == 3)
            addWindowPixel<kFma, 3>(sums, pixels, pixelStride, weights, v.f,
                                    v.c);
          else
            for (int64_t s = 0; s < v.kw; ++s)
              addProducts<kFma>(sums, weights + s * v.f,
                                pixels + s * pixelStride, v.c);
        }
      }
      // Back to output channel order, k = g*multiplier + m.
      const float *values = acc;
      if (multiplier > 1) {
        for (int64_t g = 0; g < v.c; ++g)
          for (int64_t m = 0; m < multiplier; ++m)
            scratch.permuted[g * multiplier + m] = acc[m * v.c + g];
        values = scratch.permuted.data();
      }
      storeRow(values, v.f, v.beta, v.yType,
               const_cast<char *>(
                   at(v.y, v.yType, ((image * v.oh + oy) * v.ow + ox) * v.f)),
               scratch.row);
    }
  }
}

void depthwiseImagePlain(const ConvArgs &v, int64_t image,
                         DepthwiseScratch &scratch) {
  if (v.layout == AMP_CONV_NCHW_FCHW)
    depthwiseNchwImage<false>(v, image, scratch);
  else
    depthwiseNhwcImage<false>(v, image, scratch);
}

#ifdef AMP_HAVE_F16C_PATH
__attribute__((target("avx2,fma"))) void
depthwiseImageFma(const ConvArgs &v, int64_t image, DepthwiseScratch &scratch) {
  if (v.layout == AMP_CONV_NCHW_FCHW)
    depthwiseNchwImage<true>(v, image, scratch);
  else
    depthwiseNhwcImage<true>(v, image, scratch);
}
#endif

/// Whether LibraryConv computes `v` with the depthwise kernels: one input
/// channel per group, unless AMP_CPU_NO_DIRECT_DEPTHWISE is set (read at
/// every call: the per-group GEMMs, for comparison).
bool usesDepthwiseKernels(const ConvArgs &v) {
  if (v.c != v.groups)
    return false;
  const char *off = std::getenv("AMP_CPU_NO_DIRECT_DEPTHWISE");
  return !off || isOff(off);
}

/// The depthwise convolution `v` (usesDepthwiseKernels), every image.
void depthwiseConv(const ConvArgs &v) {
  thread_local DepthwiseScratch scratch;
  widenDepthwiseTaps(v, /*channelMajor=*/v.layout == AMP_CONV_NCHW_FCHW,
                     scratch.taps);
#ifdef AMP_HAVE_F16C_PATH
  if (haveAvx2Fma()) {
    for (int64_t image = 0; image < v.n; ++image)
      depthwiseImageFma(v, image, scratch);
    return;
  }
#endif
  for (int64_t image = 0; image < v.n; ++image)
    depthwiseImagePlain(v, image, scratch);
}
} // namespace

extern "C" const char *ampCpuLibraryName(void) {
  return getBlas().name.c_str();
}

extern "C" const char *ampCpuGemmKernel(void) {
  const char *kernel = cpu::wideningGemmKernel();
  return kernel ? kernel : "blas";
}

namespace {
/// The f32 product op(A_i) op(B_i) + beta * C_i of batch `i` of `g` into
/// the f32 matrix `c` (ldc): the runtime's GEMM or the library's, the
/// operands widened as each needs. `c` holds C_i (as f32) if beta != 0.
void f32Product(const GemmArgs &g, int64_t i, Scratch &scratch, float *c,
                int64_t ldc, float beta) {
  bool transA = g.transA != 0, transB = g.transB != 0;
  // op(A): stored m x k (k x m if transposed); op(B): k x n (n x k).
  const void *aBase = at(g.a, g.aType, i * g.strideA);
  const void *bBase = at(g.b, g.bType, i * g.strideB);
  int64_t aRows = transA ? g.k : g.m, aCols = transA ? g.m : g.k;
  int64_t bRows = transB ? g.n : g.k, bCols = transB ? g.k : g.n;
  const float *a = static_cast<const float *>(aBase);
  const float *b = static_cast<const float *>(bBase);
  int64_t lda = g.lda, ldb = g.ldb;
  // Where it runs, the runtime's GEMM reads A and B in place
  // (wideningGemm), widening 16-bit operands in its packing; the library
  // needs them widened into scratch here. FP8 operands are widened into
  // scratch (exactly, by a table) for either GEMM.
  bool float8 = isFloat8(g.aType) || isFloat8(g.bType);
  bool ownGemm = !float8 && !readsBInPlace(g) && usesOwnGemm(g.k);
  if (g.aType != AMP_DTYPE_F32 && !ownGemm) {
    a = widenMatrix(aBase, g.aType, aRows, aCols, g.lda, scratch.a);
    lda = aCols;
  }
  // With a few rows, a 16-bit B is read in place (fewRowsGemm).
  bool bInPlace = !float8 && readsBInPlace(g);
  if (g.bType != AMP_DTYPE_F32 && !bInPlace && !ownGemm) {
    b = widenMatrix(bBase, g.bType, bRows, bCols, g.ldb, scratch.b);
    ldb = bCols;
  }
  if (bInPlace)
    fewRowsGemm(transB, g.m, g.n, g.k, a, lda, bBase, g.ldb, g.bType, beta, c,
                ldc);
  else if (ownGemm)
    cpu::wideningGemm(transA, transB, g.m, g.n, g.k, aBase, g.aType, g.lda,
                      bBase, g.bType, g.ldb, beta, c, ldc);
  else
    f32Gemm(transA, transB, g.m, g.n, g.k, a, lda, b, ldb, beta, c, ldc);
}
} // namespace

CallCheck amp::rt::cpu::checkLibraryGemm(const char *call, const GemmArgs &g) {
  return isEmptyGemm(g) ? checkEmptyGemm(call, g, /*onGpu=*/false)
                        : check(call, g, /*onGpu=*/false);
}

CallCheck amp::rt::cpu::checkLibraryScaledGemm(const char *call,
                                               const ScaledGemmArgs &s) {
  return isEmptyGemm(getGemmArgs(s))
             ? checkEmptyScaledGemm(call, s, /*onGpu=*/false)
             : check(call, s, /*onGpu=*/false);
}

bool amp::rt::cpu::LibraryGemm(const char *, const GemmArgs &g, NoResult &) {
  // Kept between calls on a thread: a model's GEMMs reuse them instead of
  // faulting in fresh pages every call.
  thread_local Scratch scratch;
  for (int64_t batch = 0; batch < g.batch; ++batch) {
    void *cBase = const_cast<char *>(at(g.c, g.cType, batch * g.strideC));
    float *c = static_cast<float *>(cBase);
    int64_t ldc = g.ldc;
    if (g.cType != AMP_DTYPE_F32) {
      // The f32 result, rounded once into C below.
      scratch.c.resize(static_cast<size_t>(g.m * g.n));
      c = scratch.c.data();
      ldc = g.n;
      if (g.beta != 0.0f)
        for (int64_t i = 0; i < g.m; ++i)
          widen(at(cBase, g.cType, i * g.ldc), g.cType, c + i * g.n, g.n);
    }
    f32Product(g, batch, scratch, c, ldc, g.beta);
    if (g.cType != AMP_DTYPE_F32)
      for (int64_t i = 0; i < g.m; ++i)
        narrow(c + i * g.n, g.cType,
               const_cast<char *>(at(cBase, g.cType, i * g.ldc)), g.n);
  }
  return true;
}

bool amp::rt::cpu::LibraryScaledGemm(const char *, const ScaledGemmArgs &s,
                                     NoResult &) {
  thread_local Scratch scratch;
  thread_local std::vector<float> row;
  GemmArgs g = getGemmArgs(s);
  // The scale in f32, as cuBLASLt's compute type and compiled code have it.
  float scale = (s.aScale ? *s.aScale : 1.0f) * (s.bScale ? *s.bScale : 1.0f);
  float amax = 0.0f;
  row.resize(static_cast<size_t>(g.n));
  for (int64_t batch = 0; batch < g.batch; ++batch) {
    // The f32 product P, then D = P * scale + beta * C rounded once.
    scratch.c.resize(static_cast<size_t>(g.m * g.n));
    float *product = scratch.c.data();
    f32Product(g, batch, scratch, product, g.n, 0.0f);
    char *cBase = const_cast<char *>(at(g.c, g.cType, batch * g.strideC));
    for (int64_t i = 0; i < g.m; ++i) {
      char *cRow = const_cast<char *>(at(cBase, g.cType, i * g.ldc));
      if (g.beta != 0.0f)
        widen(cRow, g.cType, row.data(), g.n);
      for (int64_t j = 0; j < g.n; ++j) {
        float value = product[i * g.n + j] * scale;
        if (g.beta != 0.0f)
          value += g.beta * row[j];
        row[j] = value;
        // NaN propagates (std::max would drop it).
        float magnitude = std::fabs(value);
        if (!(magnitude <= amax) && !std::isnan(amax))
          amax = magnitude;
      }
      if (g.cType == AMP_DTYPE_F32)
        std::memcpy(cRow, row.data(), g.n * sizeof(float));
      else
        narrow(row.data(), g.cType, cRow, g.n);
    }
  }
  if (s.dAmax)
    *s.dAmax = amax;
  return true;
}

CallCheck amp::rt::cpu::checkLibraryConv(const char *call, const ConvArgs &v) {
  // A batch of 0 (a dynamic one), which ampCpuConv2d rejects.
  return v.n == 0 ? checkEmptyConvBatch(call, v, /*onGpu=*/false)
                  : check(call, v, /*onGpu=*/false);
}

bool amp::rt::cpu::LibraryConv(const char *, const ConvArgs &v, NoResult &) {
  if (usesDepthwiseKernels(v)) {
    depthwiseConv(v);
    return true;
  }
  thread_local Scratch scratch;
  thread_local std::vector<float> col;
  bool nchw = v.layout == AMP_CONV_NCHW_FCHW;
  bool fhwc = v.layout == AMP_CONV_NHWC_FHWC;
  // Group g convolves the groupC input channels from g*groupC into the
  // groupF output channels from g*groupF: one GEMM of depth k per group
  // and image, on strided views of the filter and y where the layout
  // interleaves the groups (NHWC's y, HWCF's filter).
  int64_t groupC = v.c / v.groups, groupF = v.f / v.groups;
  int64_t k = groupC * v.kh * v.kw, pixels = v.oh * v.ow;
  // The filter as an f32 matrix: f x k (NCHW/FCHW, NHWC/FHWC; group g's
  // rows from g*groupF) or k x f (NHWC/HWCF; its columns from g*groupF),
  // dense in both layouts.
  // The filter is read in place by wideningGemm where it runs (widened in
  // its packing if 16-bit), else widened once per call for the library.
  // FP8 operands are widened (exactly, by a table) for the f32 GEMM.
  bool ownGemm = !isFloat8(v.xType) && !isFloat8(v.wType) && usesOwnGemm(k);
  const float *wt = static_cast<const float *>(v.wt);
  if (v.wType != AMP_DTYPE_F32 && !ownGemm)
    wt = widenMatrix(v.wt, v.wType, 1, v.f * k, v.f * k, scratch.b);
  int32_t wType = ownGemm ? v.wType : int32_t(AMP_DTYPE_F32);
  const void *filter = ownGemm ? v.wt : wt;
  // op(A) op(B) of the column buffer and the filter, widening in the
  // packing (wideningGemm) or with f32 operands (f32Gemm).
  auto gemm = [&](bool transB, int64_t m, int64_t n, const void *a,
                  int32_t aType, int64_t lda, const void *b, int32_t bType,
                  int64_t ldb, float *y, int64_t ldy) {
    if (ownGemm)
      cpu::wideningGemm(false, transB, m, n, k, a, aType, lda, b, bType, ldb,
                        v.beta, y, ldy);
    else
      f32Gemm(false, transB, m, n, k, static_cast<const float *>(a), lda,
              static_cast<const float *>(b), ldb, v.beta, y, ldy);
  };
  // A 1x1 window at unit strides without padding: the input is its own
  // column buffer (c x h*w per image for NCHW, h*w x c for NHWC; a group's
  // is its channels' rows, or columns).
  bool direct = v.kh == 1 && v.kw == 1 && v.strideH == 1 && v.strideW == 1 &&
                v.padTop == 0 && v.padLeft == 0 && v.oh == v.h && v.ow == v.w;
  bool inPlace = direct && (v.xType == AMP_DTYPE_F32 || ownGemm);
  int64_t inputImage = v.c * v.h * v.w, outputImage = v.f * pixels;
  for (int64_t image = 0; image < v.n; ++image) {
    // The image's input as the 1x1 convolution reads it: where it is
    // (widened in the packing if 16-bit), or widened once.
    const void *input = at(v.x, v.xType, image * inputImage);
    int32_t inputType = v.xType;
    if (direct && !inPlace) {
      col.resize(static_cast<size_t>(inputImage));
      widen(input, v.xType, col.data(), inputImage);
      input = col.data();
      inputType = AMP_DTYPE_F32;
    }
    void *yBase = const_cast<char *>(at(v.y, v.yType, image * outputImage));
    float *y = static_cast<float *>(yBase);
    if (v.yType != AMP_DTYPE_F32) {
      // The f32 result, rounded once into y below.
      scratch.c.resize(static_cast<size_t>(outputImage));
      y = scratch.c.data();
      if (v.beta != 0.0f)
        widen(yBase, v.yType, y, outputImage);
    }
    for (int64_t g = 0; g < v.groups; ++g) {
      const void *columns;
      int32_t columnsType = AMP_DTYPE_F32;
      if (direct) {
        columns = at(input, inputType, nchw ? g * groupC * pixels : g * groupC);
        columnsType = inputType;
      } else {
        col.resize(static_cast<size_t>(k * pixels));
        if (nchw)
          packNchw(v, image, g * groupC, groupC, col.data());
        else
          packNhwc(v, image, g * groupC, groupC, col.data());
        columns = col.data();
      }
      if (nchw) // y_g (groupF x pixels) = wt_g (groupF x k) * columns.
        gemm(false, groupF, pixels, at(filter, wType, g * groupF * k), wType, k,
             columns, columnsType, pixels, y + g * groupF * pixels, pixels);
      else // y_g (pixels x groupF, ld f) = columns (pixels x k) * wt_g
           // (k x groupF, ld f; or groupF x k for FHWC).
        gemm(fhwc, pixels, groupF, columns, columnsType, direct ? v.c : k,
             at(filter, wType, fhwc ? g * groupF * k : g * groupF), wType,
             fhwc ? k : v.f, y + g * groupF, v.f);
    }
    if (v.yType != AMP_DTYPE_F32)
      narrow(y, v.yType, yBase, outputImage);
  }
  return true;
}

// Every CPU-only call of LibraryCalls.def (ampCpuLibraryGemm,
// ampCpuLibraryScaledGemm, ampCpuLibraryConv2d).
#define AMP_LIBRARY_CALL(STEM, GPU_NAME, CPU_NAME, RESULT, PARAMS)
#define AMP_CPU_LIBRARY_CALL(STEM, CPU_NAME, ARGS, RESULT, PARAMS)             \
  AMP_CPU_LIBRARY_CALL_ENTRY(CPU_NAME, STEM, ARGS, RESULT, PARAMS)
#include "amp/runtime/LibraryCalls.def"
