/*===- AotSupport.c - what ahead-of-time compiled libraries link in -------===*\
|*                                                                            *|
|* Part of amp-mlir. amp-compile links this archive into every shared        *|
|* library it writes, so that the library needs neither MLIR's C runner      *|
|* utilities nor a compiler runtime newer than the one it was built with:    *|
|*                                                                            *|
|*  - memrefCopy: the copy of a strided memref that lowered code calls       *|
|*    (slices, tensor.pad), with MLIR's unranked-descriptor signature;       *|
|*  - the f16/bf16 conversion routines LLVM calls where the target CPU has   *|
|*    no conversion instructions (libgcc 12 has no bf16 ones), exact and     *|
|*    rounding to nearest even, as amp-run's JIT defines them.               *|
|*                                                                            *|
|* Everything is hidden: each library keeps its own copy and exports none.   *|
|* On x86-64 and AArch64 a half/bfloat value travels in the low 16 bits of   *|
|* the first vector register, like a float in its low 32 bits, so a float    *|
|* whose low 16 bits are the value is passed the same way.                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define AMP_AOT_HIDDEN __attribute__((visibility("hidden")))

/*===----------------------------------------------------------------------===*
 * memrefCopy
 *===----------------------------------------------------------------------===*/

typedef struct {
  int64_t rank;
  void *descriptor;
} AmpAotUnrankedMemRef;

/* The ranked descriptor: allocated, aligned, offset, sizes[rank],
 * strides[rank]. */
typedef struct {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizesAndStrides[];
} AmpAotRankedMemRef;

AMP_AOT_HIDDEN void memrefCopy(int64_t elementSize, AmpAotUnrankedMemRef *src,
                               AmpAotUnrankedMemRef *dst) {
  const AmpAotRankedMemRef *from = (const AmpAotRankedMemRef *)src->descriptor;
  const AmpAotRankedMemRef *to = (const AmpAotRankedMemRef *)dst->descriptor;
  int64_t rank = src->rank;
  const int64_t *sizes = from->sizesAndStrides;
  const int64_t *fromStrides = from->sizesAndStrides + rank;
  const int64_t *toStrides = to->sizesAndStrides + rank;
  const char *in = from->aligned + from->offset * elementSize;
  char *out = to->aligned + to->offset * elementSize;
  if (rank == 0) {
    memcpy(out, in, (size_t)elementSize);
    return;
  }
  for (int64_t d = 0; d < rank; ++d)
    if (sizes[d] == 0)
      return;
  int64_t *index = (int64_t *)calloc((size_t)rank, sizeof(int64_t));
  if (!index)
    abort();
  for (;;) {
    int64_t fromOffset = 0, toOffset = 0;
    for (int64_t d = 0; d < rank; ++d) {
      fromOffset += index[d] * fromStrides[d];
      toOffset += index[d] * toStrides[d];
    }
    memcpy(out + toOffset * elementSize, in + fromOffset * elementSize,
           (size_t)elementSize);
    int64_t d = rank - 1;
    while (d >= 0 && ++index[d] == sizes[d])
      index[d--] = 0;
    if (d < 0)
      break;
  }
  free(index);
}

/*===----------------------------------------------------------------------===*
 * Conversions
 *===----------------------------------------------------------------------===*/

/* Rounds `value` once, to nearest even, to the binary format with
 * `exponentBits` and `mantissaBits` (f16: 5, 10; bf16: 8, 7); returns its
 * bits. Every float and double is exact in double, and the scaling below is
 * by powers of two, so rint() is the only rounding. */
static uint16_t roundToSmallFloat(double value, int exponentBits,
                                  int mantissaBits) {
  uint16_t sign = signbit(value) ? (uint16_t)(1u << 15) : 0;
  uint16_t exponentMask =
      (uint16_t)(((1u << exponentBits) - 1) << mantissaBits);
  if (isnan(value))
    return sign | exponentMask | (uint16_t)(1u << (mantissaBits - 1));
  double magnitude = fabs(value);
  if (isinf(magnitude))
    return sign | exponentMask;
  if (magnitude == 0)
    return sign;
  int bias = (1 << (exponentBits - 1)) - 1;
  int minExponent = 1 - bias, maxExponent = bias;
  int exponent;
  frexp(magnitude, &exponent);
  exponent -= 1; /* magnitude in [2^exponent, 2^(exponent+1)) */
  if (exponent < minExponent)
    exponent = minExponent; /* subnormal: the quantum of the smallest normal */
  double quanta = rint(ldexp(magnitude, mantissaBits - exponent));
  if (quanta >= ldexp(1.0, mantissaBits + 1)) {
    quanta = ldexp(quanta, -1); /* rounded up to the next binade (exact) */
    exponent += 1;
  }
  if (exponent > maxExponent)
    return sign | exponentMask;
  uint32_t mantissaWithOne = (uint32_t)quanta;
  if (mantissaWithOne < (1u << mantissaBits)) /* subnormal */
    return sign | (uint16_t)mantissaWithOne;
  return sign | (uint16_t)((uint32_t)(exponent + bias) << mantissaBits) |
         (uint16_t)(mantissaWithOne - (1u << mantissaBits));
}

static double decodeHalf(uint16_t bits) {
  int exponent = (bits >> 10) & 0x1f;
  int mantissa = bits & 0x3ff;
  double magnitude;
  if (exponent == 0x1f)
    magnitude = mantissa ? NAN : INFINITY;
  else if (exponent == 0)
    magnitude = ldexp((double)mantissa, -24);
  else
    magnitude = ldexp((double)(mantissa | 0x400), exponent - 25);
  return (bits & 0x8000) ? -magnitude : magnitude;
}

static float packBits(uint16_t bits) {
  uint32_t word = bits;
  float packed;
  memcpy(&packed, &word, sizeof(packed));
  return packed;
}

static uint16_t unpackBits(float packed) {
  uint32_t word;
  memcpy(&word, &packed, sizeof(word));
  return (uint16_t)(word & 0xffff);
}

AMP_AOT_HIDDEN float __truncsfhf2(float value) {
  return packBits(roundToSmallFloat(value, 5, 10));
}
AMP_AOT_HIDDEN float __truncdfhf2(double value) {
  return packBits(roundToSmallFloat(value, 5, 10));
}
AMP_AOT_HIDDEN float __extendhfsf2(float packed) {
  return (float)decodeHalf(unpackBits(packed));
}
AMP_AOT_HIDDEN double __extendhfdf2(float packed) {
  return decodeHalf(unpackBits(packed));
}
AMP_AOT_HIDDEN float __gnu_h2f_ieee(float packed) {
  return (float)decodeHalf(unpackBits(packed));
}
AMP_AOT_HIDDEN float __gnu_f2h_ieee(float value) {
  return packBits(roundToSmallFloat(value, 5, 10));
}
AMP_AOT_HIDDEN float __truncsfbf2(float value) {
  return packBits(roundToSmallFloat(value, 8, 7));
}
AMP_AOT_HIDDEN float __truncdfbf2(double value) {
  return packBits(roundToSmallFloat(value, 8, 7));
}
