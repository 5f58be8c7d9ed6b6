//===- ArgCheck.cpp - argument validation of the library calls ------------===//
//
// Part of amp-mlir. Validation of ampGpuGemm/ampGpuConv2d arguments (and of
// their CPU references), done before any driver use so that bad calls get a
// precise message even on machines without a GPU; the argument checks
// (check(), Internal.h) of the GEMM, convolution and attention (forward and
// backward) and constant library calls.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>

using namespace amp::rt;

namespace {
bool validType(int32_t type) { return dtypeSize(type) != 0; }

bool fitsInt32(int64_t value) { return value >= 0 && value <= INT32_MAX; }

/// The operand types of an FP8 GEMM or convolution (`what`; an input is
/// FP8): both inputs FP8, not both E5M2 (cuBLASLt has no E5M2 x E5M2
/// kernel), an f32 output, or with `lowOutput` (the scaled GEMM) also bf16
/// or f16.
bool checkFloat8Operands(const char *call, const char *what,
                         const char *const (&names)[3],
                         const int32_t (&types)[3],
                         const void *const (&pointers)[3],
                         bool lowOutput = false) {
  if (!isFloat8(types[0]) || !isFloat8(types[1]))
    return setError(call,
                    "an FP8 %s takes FP8 %s and %s (got %s and %s): widen "
                    "the other operand or quantize it",
                    what, names[0], names[1], dtypeName(types[0]),
                    dtypeName(types[1]));
  if (types[0] == AMP_DTYPE_F8E5M2 && types[1] == AMP_DTYPE_F8E5M2)
    return setError(call, "f8E5M2 x f8E5M2 is unsupported (cuBLASLt's FP8 "
                          "GEMMs take E4M3 x E4M3, E4M3 x E5M2 or E5M2 x "
                          "E4M3)");
  bool low = types[2] == AMP_DTYPE_BF16 || types[2] == AMP_DTYPE_F16;
  if (types[2] != AMP_DTYPE_F32 && !(lowOutput && low))
    return setError(call, "an FP8 %s writes an f32%s %s (got %sType %s)", what,
                    lowOutput ? ", bf16 or f16" : "", names[2], names[2],
                    dtypeName(types[2]));
  for (int i = 0; i < 3; ++i)
    if (!pointers[i])
      return setError(call, "null %s pointer", names[i]);
  return true;
}

/// cuBLASLt's rules for FP8 (sm_89 and later): the "TN" layout (A m x k
/// row-major, B stored n x k: in column-major terms A transposed and B not),
/// k and n multiples of 16, leading dimensions and batch strides multiples
/// of 16 bytes, 16-byte aligned pointers.
bool checkFloat8Layout(const char *call, const GemmArgs &g) {
  if (g.transA != 0 || g.transB != 1)
    return setError(call,
                    "an FP8 GEMM on the GPU takes A as m x k and B stored "
                    "n x k (transA = 0, transB = 1: cuBLASLt's TN layout), "
                    "got transA = %" PRId32 ", transB = %" PRId32,
                    g.transA, g.transB);
  if (g.k % 16 != 0 || g.n % 16 != 0)
    return setError(call,
                    "an FP8 GEMM on the GPU needs k and n multiples of 16 "
                    "(got k = %" PRId64 ", n = %" PRId64 ")",
                    g.k, g.n);
  // ldc and strideC in elements of C: 16 bytes are 4 f32 or 8 bf16/f16.
  int64_t cBlock = 16 / static_cast<int64_t>(dtypeSize(g.cType));
  if (g.lda % 16 != 0 || g.ldb % 16 != 0 || g.ldc % cBlock != 0)
    return setError(call,
                    "an FP8 GEMM on the GPU needs lda and ldb multiples of 16 "
                    "and ldc of %" PRId64 " (16 bytes of %s; got %" PRId64
                    ", %" PRId64 ", %" PRId64 ")",
                    cBlock, dtypeName(g.cType), g.lda, g.ldb, g.ldc);
  if (g.batch > 1 &&
      (g.strideA % 16 != 0 || g.strideB % 16 != 0 || g.strideC % cBlock != 0))
    return setError(call, "an FP8 GEMM on the GPU needs batch strides of "
                          "whole 16-byte blocks");
  const struct {
    const char *name;
    const void *pointer;
  } pointers[] = {{"a", g.a}, {"b", g.b}, {"c", g.c}};
  for (const auto &p : pointers)
    if (reinterpret_cast<uintptr_t>(p.pointer) % 16 != 0)
      return setError(call,
                      "an FP8 GEMM on the GPU needs 16-byte aligned "
                      "operands (%s = %p)",
                      p.name, p.pointer);
  return true;
}

/// The operands of an (in0, in1) -> out library call: valid element types,
/// both inputs of one type, the output f32 or that type, no null pointer.
bool checkOperands(const char *call, const char *const (&names)[3],
                   const char *const (&typeNames)[3], const int32_t (&types)[3],
                   const void *const (&pointers)[3]) {
  for (int i = 0; i < 3; ++i)
    if (!validType(types[i]))
      return setError(call,
                      "invalid %s %" PRId32 " (expected 0=f32, 1=f16, "
                      "2=bf16%s)",
                      typeNames[i], types[i],
                      isFloat8(types[i])
                          ? "; FP8 is for the GEMM and the CPU's convolution"
                          : "");
  if (types[0] != types[1])
    return setError(call, "%s and %s must have the same type (got %s and %s)",
                    names[0], names[1], dtypeName(types[0]),
                    dtypeName(types[1]));
  if (types[2] != AMP_DTYPE_F32 && types[2] != types[0])
    return setError(call,
                    "unsupported type combination %s x %s -> %s (%s must be "
                    "f32 or the type of %s and %s)",
                    dtypeName(types[0]), dtypeName(types[1]),
                    dtypeName(types[2]), names[2], names[0], names[1]);
  for (int i = 0; i < 3; ++i)
    if (!pointers[i])
      return setError(call, "null %s pointer", names[i]);
  return true;
}
} // namespace

namespace {
/// validateGemm and validateScaledGemm: `scaled` takes FP8 operands (with
/// cuBLASLt's rules on the GPU), else FP8 is refused.
bool validateGemmImpl(const char *call, const GemmArgs &g, bool forCuBlas,
                      bool scaled) {
  if (g.transA != 0 && g.transA != 1)
    return setError(call, "transA must be 0 or 1 (got %" PRId32 ")", g.transA);
  if (g.transB != 0 && g.transB != 1)
    return setError(call, "transB must be 0 or 1 (got %" PRId32 ")", g.transB);
  const struct {
    const char *name;
    int64_t value;
  } sizes[] = {{"batch", g.batch}, {"m", g.m}, {"n", g.n}, {"k", g.k}};
  for (const auto &size : sizes)
    if (size.value <= 0)
      return setError(call, "invalid %s = %" PRId64 " (must be > 0)", size.name,
                      size.value);
  bool float8 = isFloat8(g.aType) || isFloat8(g.bType);
  if (float8 && !scaled)
    return setError(call,
                    "FP8 operands (%s x %s) go through the scaled GEMM, "
                    "ampGpuScaledGemm / ampCpuScaledGemm",
                    dtypeName(g.aType), dtypeName(g.bType));
  if (scaled
          ? !checkFloat8Operands(call, "GEMM", {"a", "b", "c"},
                                 {g.aType, g.bType, g.cType}, {g.a, g.b, g.c},
                                 /*lowOutput=*/true)
          : !checkOperands(call, {"a", "b", "c"}, {"aType", "bType", "cType"},
                           {g.aType, g.bType, g.cType}, {g.a, g.b, g.c}))
    return false;

  int64_t aRow = g.transA ? g.m : g.k;
  int64_t bRow = g.transB ? g.k : g.n;
  if (g.lda < aRow)
    return setError(call,
                    "lda = %" PRId64 " is smaller than the row length "
                    "%" PRId64 " of %s",
                    g.lda, aRow,
                    g.transA ? "A (stored k x m, transA)" : "A (m x k)");
  if (g.ldb < bRow)
    return setError(call,
                    "ldb = %" PRId64 " is smaller than the row length "
                    "%" PRId64 " of %s",
                    g.ldb, bRow,
                    g.transB ? "B (stored n x k, transB)" : "B (k x n)");
  if (g.ldc < g.n)
    return setError(call, "ldc = %" PRId64 " is smaller than n = %" PRId64,
                    g.ldc, g.n);
  if (g.batch > 1) {
    if (g.strideA < 0 || g.strideB < 0)
      return setError(call,
                      "negative batch stride (strideA = %" PRId64
                      ", strideB = %" PRId64 ")",
                      g.strideA, g.strideB);
    int64_t cExtent = (g.m - 1) * g.ldc + g.n;
    if (g.strideC < cExtent)
      return setError(call,
                      "strideC = %" PRId64 " makes the %" PRId64
                      " outputs overlap (need >= %" PRId64 ")",
                      g.strideC, g.batch, cExtent);
  }
  if (forCuBlas) {
    const struct {
      const char *name;
      int64_t value;
    } ints[] = {{"batch", g.batch}, {"m", g.m},     {"n", g.n},    {"k", g.k},
                {"lda", g.lda},     {"ldb", g.ldb}, {"ldc", g.ldc}};
    for (const auto &v : ints)
      if (!fitsInt32(v.value))
        return setError(call,
                        "%s = %" PRId64 " does not fit in int32 "
                        "(cuBLAS limit)",
                        v.name, v.value);
    if (scaled && !checkFloat8Layout(call, g))
      return false;
  }
  return true;
}
} // namespace

bool amp::rt::validateGemm(const char *call, const GemmArgs &g,
                           bool forCuBlas) {
  return validateGemmImpl(call, g, forCuBlas, /*scaled=*/false);
}

/// The GEMM part of a call whose first parameters are Gemm's.
template <typename Args> static GemmArgs gemmPart(const Args &e) {
  return GemmArgs{e.transA, e.transB, e.batch,   e.m,       e.n,
                  e.k,      e.a,      e.aType,   e.lda,     e.strideA,
                  e.b,      e.bType,  e.ldb,     e.strideB, e.c,
                  e.cType,  e.ldc,    e.strideC, e.beta};
}

GemmArgs amp::rt::getGemmArgs(const ScaledGemmArgs &s) { return gemmPart(s); }

ScaledGemmArgs amp::rt::getScaledGemmArgs(const GemmArgs &g,
                                          const float *aScale,
                                          const float *bScale, float *dAmax) {
  return ScaledGemmArgs{
      g.transA, g.transB,  g.batch, g.m,     g.n,    g.k,       g.a, g.aType,
      g.lda,    g.strideA, g.b,     g.bType, g.ldb,  g.strideB, g.c, g.cType,
      g.ldc,    g.strideC, g.beta,  aScale,  bScale, dAmax};
}

bool amp::rt::validateScaledGemm(const char *call, const ScaledGemmArgs &s,
                                 bool forCuBlasLt) {
  if (!validateGemmImpl(call, getGemmArgs(s), forCuBlasLt, /*scaled=*/true))
    return false;
  const struct {
    const char *name;
    const void *pointer;
  } scalars[] = {
      {"aScale", s.aScale}, {"bScale", s.bScale}, {"dAmax", s.dAmax}};
  for (const auto &scalar : scalars)
    if (reinterpret_cast<uintptr_t>(scalar.pointer) % alignof(float) != 0)
      return setError(call, "%s = %p is not aligned to its f32", scalar.name,
                      scalar.pointer);
  return true;
}

GemmArgs amp::rt::getGemmArgs(const GemmEpilogueArgs &e) { return gemmPart(e); }

GemmArgs amp::rt::getGemmArgs(const GemmBiasGradArgs &e) { return gemmPart(e); }

int64_t amp::rt::getBiasGradElements(const GemmBiasGradArgs &e) {
  return e.operand == AMP_GEMM_BIAS_GRAD_A ? e.m : e.n;
}

uint64_t amp::rt::getEpilogueAuxBytes(const GemmEpilogueArgs &e) {
  if (!epilogueUsesAux(e.epilogue) || e.m <= 0 || e.n <= 0 || e.batch <= 0)
    return 0;
  if (epilogueAuxIsReluMask(e.epilogue))
    return static_cast<uint64_t>(ampGemmReluMaskBytes(e.batch, e.m, e.n));
  return getMatrixSpan(e.batch, e.m, e.n, e.ldc, e.strideC) *
         dtypeSize(e.cType);
}

namespace {
/// The epilogue, the bias, the addend and the aux buffer of `e`: an
/// AmpGemmEpilogue; an aux buffer for the aux epilogues only; and where
/// n > 0 a non-NULL bias (but for the gradients, which take none), an
/// addend (or NULL) aligned to their element (cType), and the aux buffer
/// aligned to its element, or to 16 bytes for a ReLU mask.
bool checkEpilogue(const char *call, const GemmEpilogueArgs &e) {
  if (e.epilogue < AMP_GEMM_EPILOGUE_BIAS ||
      e.epilogue > AMP_GEMM_EPILOGUE_DRELU)
    return setError(
        call,
        "invalid epilogue %" PRId32 " (expected %d = "
        "AMP_GEMM_EPILOGUE_BIAS, %d = AMP_GEMM_EPILOGUE_RELU_BIAS, "
        "%d = AMP_GEMM_EPILOGUE_GELU_BIAS, %d = "
        "AMP_GEMM_EPILOGUE_GELU_AUX_BIAS, %d = AMP_GEMM_EPILOGUE_DGELU, %d = "
        "AMP_GEMM_EPILOGUE_RELU_AUX_BIAS or %d = AMP_GEMM_EPILOGUE_DRELU)",
        e.epilogue, AMP_GEMM_EPILOGUE_BIAS, AMP_GEMM_EPILOGUE_RELU_BIAS,
        AMP_GEMM_EPILOGUE_GELU_BIAS, AMP_GEMM_EPILOGUE_GELU_AUX_BIAS,
        AMP_GEMM_EPILOGUE_DGELU, AMP_GEMM_EPILOGUE_RELU_AUX_BIAS,
        AMP_GEMM_EPILOGUE_DRELU);
  bool usesAux = epilogueUsesAux(e.epilogue);
  bool biased = epilogueAddsBias(e.epilogue);
  bool mask = epilogueAuxIsReluMask(e.epilogue);
  if (!usesAux && e.aux)
    return setError(call,
                    "aux = %p with epilogue %" PRId32 " (only "
                    "AMP_GEMM_EPILOGUE_GELU_AUX_BIAS, AMP_GEMM_EPILOGUE_DGELU, "
                    "AMP_GEMM_EPILOGUE_RELU_AUX_BIAS and "
                    "AMP_GEMM_EPILOGUE_DRELU use aux; pass NULL)",
                    e.aux, e.epilogue);
  if (!biased && e.bias)
    return setError(call,
                    "bias = %p with epilogue %" PRId32 " (a gradient, which "
                    "adds no bias; pass NULL)",
                    e.bias, e.epilogue);
  if (e.n == 0)
    return true;
  if (usesAux && (!e.aux || e.aux == e.c))
    return setError(call,
                    "aux = %p (epilogue %" PRId32 " %s the %s there: a "
                    "buffer other than C's)",
                    e.aux, e.epilogue, biased ? "writes" : "reads",
                    mask ? "ReLU mask" : "GELU's input");
  if (mask && reinterpret_cast<uintptr_t>(e.aux) % 16 != 0)
    return setError(call, "aux = %p (a ReLU mask) is not aligned to 16 bytes",
                    e.aux);
  if (!mask && reinterpret_cast<uintptr_t>(e.aux) % dtypeSize(e.cType) != 0)
    return setError(call, "aux = %p is not aligned to its %s (cType)", e.aux,
                    dtypeName(e.cType));
  if (biased && !e.bias)
    return setError(
        call, "bias is NULL (the epilogue adds n = %" PRId64 " bias elements)",
        e.n);
  if (reinterpret_cast<uintptr_t>(e.bias) % dtypeSize(e.cType) != 0)
    return setError(call, "bias = %p is not aligned to its %s (cType)", e.bias,
                    dtypeName(e.cType));
  if (reinterpret_cast<uintptr_t>(e.addend) % dtypeSize(e.cType) != 0)
    return setError(call, "addend = %p is not aligned to its %s (cType)",
                    e.addend, dtypeName(e.cType));
  return true;
}
} // namespace

namespace {
/// The sizes, strides, dilations (> 0) and padding (>= 0) of a convolution.
bool checkConvGeometry(const char *call, const ConvArgs &v) {
  const struct {
    const char *name;
    int64_t value;
  } positive[] = {{"n", v.n},
                  {"c", v.c},
                  {"h", v.h},
                  {"w", v.w},
                  {"f", v.f},
                  {"kh", v.kh},
                  {"kw", v.kw},
                  {"oh", v.oh},
                  {"ow", v.ow},
                  {"strideH", v.strideH},
                  {"strideW", v.strideW},
                  {"dilH", v.dilH},
                  {"dilW", v.dilW},
                  {"groups", v.groups}};
  for (const auto &size : positive)
    if (size.value <= 0)
      return setError(call, "invalid %s = %" PRId64 " (must be > 0)", size.name,
                      size.value);
  if (v.padTop < 0 || v.padLeft < 0)
    return setError(
        call, "negative padding (padTop = %" PRId64 ", padLeft = %" PRId64 ")",
        v.padTop, v.padLeft);
  // Each group convolves c/groups input channels into f/groups outputs.
  if (v.c % v.groups != 0 || v.f % v.groups != 0)
    return setError(call,
                    "%s = %" PRId64 " is not a multiple of groups = %" PRId64
                    " (a grouped convolution needs c and f divisible by "
                    "groups; got c = %" PRId64 ", f = %" PRId64 ")",
                    v.c % v.groups != 0 ? "c" : "f",
                    v.c % v.groups != 0 ? v.c : v.f, v.groups, v.c, v.f);
  return true;
}

/// cuDNN's limits on a valid geometry: int32 sizes and symmetric padding.
bool checkCudnnGeometry(const char *call, const ConvArgs &v) {
  const struct {
    const char *name;
    int64_t value;
  } ints[] = {{"n", v.n},
              {"c", v.c},
              {"h", v.h},
              {"w", v.w},
              {"f", v.f},
              {"kh", v.kh},
              {"kw", v.kw},
              {"padTop", v.padTop},
              {"padLeft", v.padLeft},
              {"strideH", v.strideH},
              {"strideW", v.strideW},
              {"dilH", v.dilH},
              {"dilW", v.dilW},
              {"groups", v.groups}};
  for (const auto &size : ints)
    if (!fitsInt32(size.value))
      return setError(call,
                      "%s = %" PRId64 " does not fit in int32 (cuDNN "
                      "limit)",
                      size.name, size.value);
  // cuDNN's legacy API only knows symmetric padding: recompute the output
  // size it would produce and insist that it is the caller's.
  int64_t spanH = v.h + 2 * v.padTop - v.dilH * (v.kh - 1) - 1;
  int64_t spanW = v.w + 2 * v.padLeft - v.dilW * (v.kw - 1) - 1;
  int64_t expectH = spanH < 0 ? 0 : spanH / v.strideH + 1;
  int64_t expectW = spanW < 0 ? 0 : spanW / v.strideW + 1;
  if (expectH != v.oh || expectW != v.ow)
    return setError(
        call,
        "output %" PRId64 "x%" PRId64 " is not what symmetric padding gives "
        "(h + 2*padTop - dilH*(kh-1) - 1)/strideH + 1 = %" PRId64
        ", (w + 2*padLeft - dilW*(kw-1) - 1)/strideW + 1 = %" PRId64
        " with h=%" PRId64 " w=%" PRId64 " kh=%" PRId64 " kw=%" PRId64
        " padTop=%" PRId64 " padLeft=%" PRId64 " stride=%" PRId64 "x%" PRId64
        " dilation=%" PRId64 "x%" PRId64 "); asymmetric padding is "
        "unsupported by the cuDNN path (pad the input explicitly)",
        v.oh, v.ow, expectH, expectW, v.h, v.w, v.kh, v.kw, v.padTop, v.padLeft,
        v.strideH, v.strideW, v.dilH, v.dilW);
  return true;
}
} // namespace

bool amp::rt::validateConv(const char *call, const ConvArgs &v, bool forCuDnn) {
  if (v.layout != AMP_CONV_NCHW_FCHW && v.layout != AMP_CONV_NHWC_HWCF &&
      v.layout != AMP_CONV_NHWC_FHWC)
    return setError(call,
                    "invalid layout %" PRId32 " (expected 0 = NCHW/FCHW, "
                    "1 = NHWC/HWCF or 2 = NHWC/FHWC)",
                    v.layout);
  if (!checkConvGeometry(call, v))
    return false;
  if (isFloat8(v.xType) || isFloat8(v.wType)) {
    // The CPU calls widen FP8 exactly; cuDNN's legacy API has none.
    if (forCuDnn)
      return setError(call, "an FP8 convolution is for the CPU calls only "
                            "(cuDNN's legacy API has no FP8 convolution)");
    if (!checkFloat8Operands(call, "convolution", {"x", "wt", "y"},
                             {v.xType, v.wType, v.yType}, {v.x, v.wt, v.y}))
      return false;
  } else if (!checkOperands(call, {"x", "wt", "y"}, {"xType", "wType", "yType"},
                            {v.xType, v.wType, v.yType}, {v.x, v.wt, v.y})) {
    return false;
  }
  return !forCuDnn || checkCudnnGeometry(call, v);
}

CallCheck amp::rt::check(const char *call, const GemmArgs &args, bool onGpu) {
  // On the GPU an empty batch, m or n is a dynamic size that came out empty:
  // the rest must be valid; nothing is read or written. ampCpuGemm, the
  // reference, takes positive sizes only.
  if (onGpu && isEmptyGemm(args))
    return checkEmptyGemm(call, args, /*onGpu=*/true);
  return validateGemm(call, args, /*forCuBlas=*/onGpu) ? CallCheck::Work
                                                       : CallCheck::Invalid;
}

CallCheck amp::rt::check(const char *call, const ScaledGemmArgs &args,
                         bool onGpu) {
  if (onGpu && isEmptyGemm(getGemmArgs(args)))
    return checkEmptyScaledGemm(call, args, /*onGpu=*/true);
  return validateScaledGemm(call, args, /*forCuBlasLt=*/onGpu)
             ? CallCheck::Work
             : CallCheck::Invalid;
}

CallCheck amp::rt::check(const char *call, const GemmBiasGradArgs &args,
                         bool onGpu) {
  // The GEMM's checks as ampGpuGemm's, then the bias gradient's.
  CallCheck gemm = check(call, getGemmArgs(args), onGpu);
  if (gemm == CallCheck::Invalid)
    return gemm;
  if (args.batch != 1) {
    setError(call,
             "batch = %" PRId64 ": the bias gradient is that of one "
             "GEMM (batch 1)",
             args.batch);
    return CallCheck::Invalid;
  }
  bool ofA = args.operand == AMP_GEMM_BIAS_GRAD_A;
  if (!ofA && args.operand != AMP_GEMM_BIAS_GRAD_B) {
    setError(call,
             "invalid operand %" PRId32 " (expected %d = "
             "AMP_GEMM_BIAS_GRAD_A or %d = AMP_GEMM_BIAS_GRAD_B)",
             args.operand, AMP_GEMM_BIAS_GRAD_A, AMP_GEMM_BIAS_GRAD_B);
    return CallCheck::Invalid;
  }
  if (ofA ? !args.transA : args.transB) {
    setError(call,
             ofA ? "transA = %" PRId32 ": the bias gradient of A is the "
                   "column sums of A stored k x m (transA 1)"
                 : "transB = %" PRId32 ": the bias gradient of B is the "
                   "column sums of B stored k x n (transB 0)",
             ofA ? args.transA : args.transB);
    return CallCheck::Invalid;
  }
  int64_t elements = getBiasGradElements(args);
  if (elements > 0 && !args.biasGrad) {
    setError(call,
             "biasGrad is NULL (the call writes %s = %" PRId64
             " bias gradient elements)",
             ofA ? "m" : "n", elements);
    return CallCheck::Invalid;
  }
  if (reinterpret_cast<uintptr_t>(args.biasGrad) % dtypeSize(args.cType)) {
    setError(call, "biasGrad = %p is not aligned to its %s (cType)",
             args.biasGrad, dtypeName(args.cType));
    return CallCheck::Invalid;
  }
  return gemm;
}

CallCheck amp::rt::check(const char *call, const GemmEpilogueArgs &args,
                         bool onGpu) {
  // The GEMM's checks (an empty one included) as ampGpuGemm's; the
  // epilogue's arguments either way.
  CallCheck gemm = check(call, getGemmArgs(args), onGpu);
  if (gemm == CallCheck::Invalid || !checkEpilogue(call, args))
    return CallCheck::Invalid;
  return gemm;
}

bool amp::rt::isEmptyGemm(const GemmArgs &g) {
  bool empty = g.batch == 0 || g.m == 0 || g.n == 0 || g.k == 0;
  bool negative = g.batch < 0 || g.m < 0 || g.n < 0 || g.k < 0;
  return empty && !negative;
}

namespace {
/// `g` with size 1 where a size is 0, so that everything else is still
/// checked; the pointers of empty operands need not be there.
GemmArgs getEmptyGemmProbe(const GemmArgs &g) {
  // Aligned as the FP8 GEMM's checks want its operands (16 bytes).
  alignas(16) static const float dummy[4] = {};
  auto atLeastOne = [](int64_t size) { return size == 0 ? int64_t(1) : size; };
  GemmArgs probe = g;
  probe.batch = atLeastOne(g.batch);
  probe.m = atLeastOne(g.m);
  probe.n = atLeastOne(g.n);
  probe.k = atLeastOne(g.k);
  // A leading dimension is raised only where its row length was 0: the
  // others are checked as given.
  if ((g.transA ? g.m : g.k) == 0)
    probe.lda = std::max(g.lda, int64_t(1));
  if ((g.transB ? g.k : g.n) == 0)
    probe.ldb = std::max(g.ldb, int64_t(1));
  if (g.n == 0)
    probe.ldc = std::max(g.ldc, int64_t(1));
  if (g.m == 0 || g.n == 0)
    probe.strideC = std::max(g.strideC, (probe.m - 1) * probe.ldc + probe.n);
  if (g.batch == 0 || g.m == 0 || g.k == 0)
    probe.a = probe.a ? probe.a : dummy;
  if (g.batch == 0 || g.n == 0 || g.k == 0)
    probe.b = probe.b ? probe.b : dummy;
  if (g.batch == 0 || g.m == 0 || g.n == 0)
    probe.c = probe.c ? probe.c : const_cast<float *>(dummy);
  return probe;
}

/// After a valid probe: k == 0 (with an output) still makes C = beta * C,
/// which the GPU's calls do not take.
CallCheck getEmptyGemmWork(const char *call, const GemmArgs &g, bool onGpu) {
  if (g.batch == 0 || g.m == 0 || g.n == 0)
    return CallCheck::Nothing;
  if (onGpu) {
    setError(call, "invalid k = 0 (must be > 0)");
    return CallCheck::Invalid;
  }
  return CallCheck::Work;
}
} // namespace

CallCheck amp::rt::checkEmptyGemm(const char *call, const GemmArgs &args,
                                  bool onGpu) {
  if (!validateGemm(call, getEmptyGemmProbe(args), /*forCuBlas=*/onGpu))
    return CallCheck::Invalid;
  return getEmptyGemmWork(call, args, onGpu);
}

CallCheck amp::rt::checkEmptyScaledGemm(const char *call,
                                        const ScaledGemmArgs &args,
                                        bool onGpu) {
  GemmArgs g = getGemmArgs(args);
  ScaledGemmArgs probe = getScaledGemmArgs(getEmptyGemmProbe(g), args.aScale,
                                           args.bScale, args.dAmax);
  if (!validateScaledGemm(call, probe, /*forCuBlasLt=*/onGpu))
    return CallCheck::Invalid;
  return getEmptyGemmWork(call, g, onGpu);
}

CallCheck amp::rt::check(const char *call, const ConvArgs &args, bool onGpu) {
  // On the GPU a batch of 0 is a dynamic batch that came out empty: the
  // rest must be valid; nothing is read or written. ampCpuConv2d, the
  // reference, takes a positive batch only.
  if (onGpu && args.n == 0)
    return checkEmptyConvBatch(call, args, /*onGpu=*/true);
  return validateConv(call, args, /*forCuDnn=*/onGpu) ? CallCheck::Work
                                                      : CallCheck::Invalid;
}

CallCheck amp::rt::checkEmptyConvBatch(const char *call, const ConvArgs &args,
                                       bool onGpu) {
  // The rest checked with a batch of 1, on pointers that need not be there.
  static const float dummy = 0;
  ConvArgs probe = args;
  probe.n = 1;
  probe.x = args.x ? args.x : &dummy;
  probe.y = args.y ? args.y : const_cast<float *>(&dummy);
  return validateConv(call, probe, /*forCuDnn=*/onGpu) ? CallCheck::Nothing
                                                       : CallCheck::Invalid;
}

ConvArgs amp::rt::getConvArgs(const ConvBackwardDataArgs &d) {
  return ConvArgs{d.layout,  d.n,       d.c,     d.h,    d.w,      d.f,
                  d.kh,      d.kw,      d.oh,    d.ow,   d.padTop, d.padLeft,
                  d.strideH, d.strideW, d.dilH,  d.dilW, d.groups, d.dy,
                  d.dyType,  d.wt,      d.wType, d.dx,   d.dxType, d.beta};
}

ConvArgs amp::rt::getConvArgs(const ConvBackwardFilterArgs &d) {
  return ConvArgs{d.layout,  d.n,       d.c,      d.h,    d.w,      d.f,
                  d.kh,      d.kw,      d.oh,     d.ow,   d.padTop, d.padLeft,
                  d.strideH, d.strideW, d.dilH,   d.dilW, d.groups, d.x,
                  d.xType,   d.dy,      d.dyType, d.dw,   d.dwType, d.beta};
}

ConvArgs amp::rt::getConvArgs(const ConvEpilogueArgs &e) {
  return ConvArgs{e.layout,  e.n,       e.c,     e.h,    e.w,      e.f,
                  e.kh,      e.kw,      e.oh,    e.ow,   e.padTop, e.padLeft,
                  e.strideH, e.strideW, e.dilH,  e.dilW, e.groups, e.x,
                  e.xType,   e.wt,      e.wType, e.y,    e.yType,  0.0f};
}

CallCheck amp::rt::check(const char *call, const ConvEpilogueArgs &args,
                         bool onGpu) {
  // What the epilogue adds to the convolution's checks (a batch of 0 on the
  // GPU included: checkEmptyConvBatch) first.
  if (args.epilogue != AMP_CONV_EPILOGUE_SCALE_BIAS &&
      args.epilogue != AMP_CONV_EPILOGUE_SCALE_BIAS_RELU) {
    setError(call,
             "invalid epilogue %" PRId32 " (expected %d = "
             "AMP_CONV_EPILOGUE_SCALE_BIAS or %d = "
             "AMP_CONV_EPILOGUE_SCALE_BIAS_RELU)",
             args.epilogue, AMP_CONV_EPILOGUE_SCALE_BIAS,
             AMP_CONV_EPILOGUE_SCALE_BIAS_RELU);
    return CallCheck::Invalid;
  }
  if (args.layout != AMP_CONV_NCHW_FCHW && args.layout != AMP_CONV_NHWC_FHWC) {
    setError(call,
             "layout %" PRId32 " is unsupported (the convolution with an "
             "epilogue takes 0 = NCHW/FCHW or 2 = NHWC/FHWC)",
             args.layout);
    return CallCheck::Invalid;
  }
  if (args.groups != 1) {
    setError(call,
             "groups = %" PRId64 ": the convolution with an epilogue is "
             "ungrouped (groups 1)",
             args.groups);
    return CallCheck::Invalid;
  }
  if (isFloat8(args.xType) || isFloat8(args.wType)) {
    setError(call,
             "x and wt are %s and %s: the convolution with an epilogue "
             "takes f32, f16 or bf16 operands",
             dtypeName(args.xType), dtypeName(args.wType));
    return CallCheck::Invalid;
  }
  for (const auto &[name, pointer] :
       {std::pair<const char *, const void *>{"scale", args.scale},
        {"bias", args.bias}})
    if (reinterpret_cast<uintptr_t>(pointer) % alignof(float)) {
      setError(call, "%s = %p is not aligned to its f32", name, pointer);
      return CallCheck::Invalid;
    }
  if (args.residual && args.residual == args.y) {
    setError(call,
             "residual is y (%p): the residual is read from a buffer "
             "other than the output",
             args.residual);
    return CallCheck::Invalid;
  }
  CallCheck conv = check(call, getConvArgs(args), onGpu);
  if (conv == CallCheck::Invalid)
    return conv;
  if (reinterpret_cast<uintptr_t>(args.residual) % dtypeSize(args.yType)) {
    setError(call, "residual = %p is not aligned to its %s (yType)",
             args.residual, dtypeName(args.yType));
    return CallCheck::Invalid;
  }
  return conv;
}

namespace {
/// The checks of a backward convolution, on its forward view (getConvArgs)
/// whose operands are named `names` (inputs, then the output): NCHW/FCHW
/// or NHWC/FHWC (cuDNN's KRSC filter), validateConv's geometry, two inputs of
/// one type in {f32, f16, bf16} and an output of that type or f32, no null
/// pointer; `onGpu` adds cuDNN's limits (int32 sizes, symmetric padding). n ==
/// 0 is an error.
bool validateConvBackward(const char *call, const ConvArgs &v,
                          const char *const (&names)[3],
                          const char *const (&typeNames)[3], bool onGpu) {
  if (v.layout != AMP_CONV_NCHW_FCHW && v.layout != AMP_CONV_NHWC_FHWC)
    return setError(call,
                    "layout %" PRId32 "%s is unsupported (the backward "
                    "convolutions take layout 0 = NCHW/FCHW or 2 = "
                    "NHWC/FHWC)",
                    v.layout,
                    v.layout == AMP_CONV_NHWC_HWCF ? " = NHWC/HWCF" : "");
  if (!checkConvGeometry(call, v))
    return false;
  const int32_t types[3] = {v.xType, v.wType, v.yType};
  for (int i = 0; i < 3; ++i)
    if (isFloat8(types[i]))
      return setError(call,
                      "%s is %s: the backward convolutions take f32, f16 or "
                      "bf16 operands",
                      typeNames[i], dtypeName(types[i]));
  return checkOperands(call, names, typeNames, types, {v.x, v.wt, v.y}) &&
         (!onGpu || checkCudnnGeometry(call, v));
}
} // namespace

CallCheck amp::rt::check(const char *call, const ConvBackwardDataArgs &args,
                         bool onGpu) {
  return validateConvBackward(call, getConvArgs(args), {"dy", "wt", "dx"},
                              {"dyType", "wType", "dxType"}, onGpu)
             ? CallCheck::Work
             : CallCheck::Invalid;
}

CallCheck amp::rt::check(const char *call, const ConvBackwardFilterArgs &args,
                         bool onGpu) {
  return validateConvBackward(call, getConvArgs(args), {"x", "dy", "dw"},
                              {"xType", "dyType", "dwType"}, onGpu)
             ? CallCheck::Work
             : CallCheck::Invalid;
}

CallCheck amp::rt::check(const char *call, const ConstantArgs &args, bool) {
  if (args.bytes < 0 || (args.bytes > 0 && !args.hostPtr)) {
    setError(call, "invalid constant: %lld bytes at %p",
             static_cast<long long>(args.bytes), args.hostPtr);
    return CallCheck::Invalid;
  }
  if (args.bytes > 0 && (!args.slot || reinterpret_cast<uintptr_t>(args.slot) %
                                           alignof(void *))) {
    setError(call,
             "slot = %p: the constant's cache needs a pointer-aligned word "
             "of the module that holds it",
             args.slot);
    return CallCheck::Invalid;
  }
  return args.bytes == 0 ? CallCheck::Nothing : CallCheck::Work;
}

namespace {
/// One strided operand of an attention call: its name, pointer,
/// (batch, head, sequence) strides and sequence length.
struct AttentionOperand {
  const char *name;
  const void *pointer;
  int64_t strides[3];
  int64_t seq;
};

/// An operand's pointer (non-NULL, aligned to its element; on the GPU to 16
/// bytes) and the strides of its dimensions longer than 1 (>= 0; on the
/// GPU multiples of 8 elements, 0 only where `broadcast`), as
/// ampGpuAttention's rules say.
bool checkAttentionOperand(const char *call, const AttentionOperand &op,
                           int64_t batch, int64_t heads, size_t elementSize,
                           bool onGpu, bool broadcast) {
  const int64_t sizes[3] = {batch, heads, op.seq};
  if (!op.pointer)
    return setError(call, "%s is NULL", op.name);
  uintptr_t address = reinterpret_cast<uintptr_t>(op.pointer);
  size_t alignment = onGpu ? 16 : elementSize;
  if (address % alignment != 0)
    return setError(call, "%s = %p is not aligned to %zu bytes", op.name,
                    op.pointer, alignment);
  static const char *const kDims[] = {"batch", "head", "sequence"};
  for (int dim = 0; dim < 3; ++dim) {
    int64_t stride = op.strides[dim];
    if (sizes[dim] == 1)
      continue; // Never stepped over.
    if (stride < 0 || (stride == 0 && !broadcast && onGpu))
      return setError(call, "%s's %s stride %" PRId64 " is %s", op.name,
                      kDims[dim], stride,
                      stride < 0 ? "negative" : "0 (only the bias broadcasts)");
    if (onGpu && stride % 8 != 0)
      return setError(call,
                      "%s's %s stride %" PRId64 " is not a multiple of 8 "
                      "elements (cuDNN's attention)",
                      op.name, kDims[dim], stride);
  }
  return true;
}
} // namespace

namespace {
/// The sizes, dtype, headDim, causal and scale of an attention call (the
/// fields that ampGpuAttention and its backward share), as ampGpuAttention's
/// rules say.
template <typename Args>
bool checkAttentionSettings(const char *call, const Args &a, bool onGpu) {
  const int64_t sizes[] = {a.batch, a.heads, a.seqQ, a.seqKV, a.headDim};
  static const char *const kSizes[] = {"batch", "heads", "seqQ", "seqKV",
                                       "headDim"};
  for (int i = 0; i < 5; ++i)
    if (sizes[i] < 1 || (onGpu && !fitsInt32(sizes[i])))
      return setError(call, "invalid %s = %" PRId64 " (expected >= 1%s)",
                      kSizes[i], sizes[i], onGpu ? " and to fit in int32" : "");
  bool half = a.dtype == AMP_DTYPE_F16 || a.dtype == AMP_DTYPE_BF16;
  if (!half && (onGpu || a.dtype != AMP_DTYPE_F32))
    return setError(call, "invalid dtype %s (expected f16 or bf16%s)",
                    validType(a.dtype) ? dtypeName(a.dtype) : "(unknown)",
                    onGpu ? ": cuDNN's fused attention"
                          : ", or f32 on the CPU");
  if (onGpu && (a.headDim % 8 != 0 || a.headDim > 128))
    return setError(call,
                    "headDim = %" PRId64 " is not a multiple of 8 up to 128 "
                    "(cuDNN's fused attention)",
                    a.headDim);
  if (a.causal != 0 && a.causal != 1)
    return setError(call, "invalid causal = %" PRId32 " (expected 0 or 1)",
                    a.causal);
  if (!std::isfinite(a.scale))
    return setError(call, "scale = %g is not finite",
                    static_cast<double>(a.scale));
  return true;
}

/// The strided operands of an attention call (none broadcast), then its
/// bias (NULL: none; its strides may broadcast).
template <typename Args, size_t N>
bool checkAttentionOperands(const char *call, const Args &a,
                            const AttentionOperand (&operands)[N], bool onGpu) {
  size_t size = dtypeSize(a.dtype);
  for (const AttentionOperand &op : operands)
    if (!checkAttentionOperand(call, op, a.batch, a.heads, size, onGpu,
                               /*broadcast=*/false))
      return false;
  return !a.bias ||
         checkAttentionOperand(call,
                               {"bias",
                                a.bias,
                                {a.biasStrideB, a.biasStrideH, a.biasStrideS},
                                a.seqQ},
                               a.batch, a.heads, size, onGpu,
                               /*broadcast=*/true);
}

/// The f32 stats of an attention call: aligned to 4 bytes (16 on the GPU),
/// and not NULL where `required`.
bool checkAttentionStats(const char *call, const float *stats, bool onGpu,
                         bool required) {
  if (required && !stats)
    return setError(call, "stats is NULL (the forward's log-sum-exp, which "
                          "the backward needs)");
  if (reinterpret_cast<uintptr_t>(stats) % (onGpu ? 16 : 4) != 0)
    return setError(call, "stats = %p is not aligned to %d bytes",
                    static_cast<const void *>(stats), onGpu ? 16 : 4);
  return true;
}
} // namespace

CallCheck amp::rt::check(const char *call, const AttentionArgs &a, bool onGpu) {
  const AttentionOperand operands[] = {
      {"q", a.q, {a.qStrideB, a.qStrideH, a.qStrideS}, a.seqQ},
      {"k", a.k, {a.kStrideB, a.kStrideH, a.kStrideS}, a.seqKV},
      {"v", a.v, {a.vStrideB, a.vStrideH, a.vStrideS}, a.seqKV},
      {"out", a.out, {a.outStrideB, a.outStrideH, a.outStrideS}, a.seqQ}};
  return checkAttentionSettings(call, a, onGpu) &&
                 checkAttentionOperands(call, a, operands, onGpu) &&
                 checkAttentionStats(call, a.stats, onGpu, /*required=*/false)
             ? CallCheck::Work
             : CallCheck::Invalid;
}

CallCheck amp::rt::check(const char *call, const AttentionBackwardArgs &a,
                         bool onGpu) {
  if (!checkAttentionSettings(call, a, onGpu))
    return CallCheck::Invalid;
  if (onGpu && a.seqQ == 1 && a.seqKV == 1) {
    setError(call, "seqQ = seqKV = 1 is unsupported (cuDNN's fused attention "
                   "backward)");
    return CallCheck::Invalid;
  }
  const AttentionOperand operands[] = {
      {"q", a.q, {a.qStrideB, a.qStrideH, a.qStrideS}, a.seqQ},
      {"k", a.k, {a.kStrideB, a.kStrideH, a.kStrideS}, a.seqKV},
      {"v", a.v, {a.vStrideB, a.vStrideH, a.vStrideS}, a.seqKV},
      {"out", a.out, {a.outStrideB, a.outStrideH, a.outStrideS}, a.seqQ},
      {"dOut", a.dOut, {a.dOutStrideB, a.dOutStrideH, a.dOutStrideS}, a.seqQ},
      {"dq", a.dq, {a.dqStrideB, a.dqStrideH, a.dqStrideS}, a.seqQ},
      {"dk", a.dk, {a.dkStrideB, a.dkStrideH, a.dkStrideS}, a.seqKV},
      {"dv", a.dv, {a.dvStrideB, a.dvStrideH, a.dvStrideS}, a.seqKV}};
  return checkAttentionOperands(call, a, operands, onGpu) &&
                 checkAttentionStats(call, a.stats, onGpu, /*required=*/true)
             ? CallCheck::Work
             : CallCheck::Invalid;
}
