//===- CpuReference.cpp - the CPU twins of the library calls --------------===//
//
// Part of amp-mlir. The CPU twins of the library calls (LibraryCalls.def):
// ampCpuGemm, ampCpuConv2d and its gradients (ampCpuConv2dBackwardData,
// ampCpuConv2dBackwardFilter), grouped convolutions included, the attention
// and its gradients (ampCpuAttention, ampCpuAttentionBackward) are
// straightforward loops on host pointers.
// Products are accumulated in double and rounded once to the output type
// (for f16/bf16 via a round-to-odd float, so that double -> float -> half
// does not round twice).
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "LibraryCallEntries.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

using namespace amp::rt;

namespace {
double loadElement(const void *base, int32_t type, int64_t index) {
  switch (type) {
  case AMP_DTYPE_F32:
    return static_cast<const float *>(base)[index];
  case AMP_DTYPE_F16:
    return ampF16ToF32(static_cast<const uint16_t *>(base)[index]);
  case AMP_DTYPE_F8E4M3FN:
  case AMP_DTYPE_F8E5M2:
    return float8ToF32(base, type, index);
  default:
    return ampBF16ToF32(static_cast<const uint16_t *>(base)[index]);
  }
}

/// double -> float rounding to odd: with >= 2 more bits than the final
/// 11/8-bit significand, a following round-to-nearest-even is exact.
float toFloatRoundToOdd(double value) {
  float rounded = static_cast<float>(value);
  if (std::isnan(value) || std::isinf(rounded) ||
      static_cast<double>(rounded) == value)
    return rounded;
  uint32_t bits;
  std::memcpy(&bits, &rounded, sizeof(bits));
  if ((bits & 1u) == 0)
    rounded = std::nextafter(
        rounded, static_cast<double>(rounded) > value ? -INFINITY : INFINITY);
  return rounded;
}

void storeElement(void *base, int32_t type, int64_t index, double value) {
  switch (type) {
  case AMP_DTYPE_F32:
    static_cast<float *>(base)[index] = static_cast<float>(value);
    return;
  case AMP_DTYPE_F16:
    static_cast<uint16_t *>(base)[index] =
        ampF32ToF16(toFloatRoundToOdd(value));
    return;
  default:
    static_cast<uint16_t *>(base)[index] =
        ampF32ToBF16(toFloatRoundToOdd(value));
    return;
  }
}

} // namespace

namespace {
/// What a GEMM adds after its product (GemmEpilogue): bias[j] (cType, or
/// none) on column j, then the activation (an AmpGemmEpilogue's; 0: none);
/// beta scales `addend` (C's layout) in place of C where it is not null;
/// `aux` (C's layout), where not null, gets the activation's input, or for
/// DGELU gives the values the GELU's derivative is taken at; for
/// RELU_AUX_BIAS and DRELU it is the ReLU mask (AmpRuntime.h's layout),
/// written or read.
struct ReferenceEpilogue {
  const void *bias = nullptr;
  int32_t activation = 0;
  const void *addend = nullptr;
  void *aux = nullptr;
};

/// GELU's tanh approximation (cuBLASLt's GELU), in double.
double geluTanh(double x) {
  const double sqrt2OverPi = 0.79788456080286535588;
  return 0.5 * x * (1.0 + std::tanh(sqrt2OverPi * (x + 0.044715 * x * x * x)));
}

/// The derivative of geluTanh, in double (ATen's gelu_backward formula).
double geluTanhGrad(double x) {
  const double sqrt2OverPi = 0.79788456080286535588, kappa = 0.044715;
  double t = std::tanh(sqrt2OverPi * (x + kappa * x * x * x));
  return 0.5 * (1.0 + t) +
         0.5 * x * (1.0 - t * t) * sqrt2OverPi * (1.0 + 3.0 * kappa * x * x);
}

/// C = act(scale * op(A) op(B) + beta * C + bias), each element's products
/// summed in double, scaled, and rounded once to cType; `amax`, if not
/// null, gets the largest |value| in f32 before that rounding (NaN
/// propagates).
void referenceGemm(const GemmArgs &g, float scale, float *amax,
                   ReferenceEpilogue epilogue = {}) {
  float largest = 0.0f;
  for (int64_t batch = 0; batch < g.batch; ++batch) {
    int64_t aBase = batch * g.strideA, bBase = batch * g.strideB,
            cBase = batch * g.strideC;
    for (int64_t i = 0; i < g.m; ++i) {
      for (int64_t j = 0; j < g.n; ++j) {
        double acc = 0.0;
        for (int64_t p = 0; p < g.k; ++p) {
          int64_t aIndex = g.transA ? p * g.lda + i : i * g.lda + p;
          int64_t bIndex = g.transB ? j * g.ldb + p : p * g.ldb + j;
          acc += loadElement(g.a, g.aType, aBase + aIndex) *
                 loadElement(g.b, g.bType, bBase + bIndex);
        }
        acc *= static_cast<double>(scale);
        int64_t cIndex = cBase + i * g.ldc + j;
        if (g.beta != 0.0f)
          acc += static_cast<double>(g.beta) *
                 loadElement(epilogue.addend ? epilogue.addend : g.c, g.cType,
                             cIndex);
        if (epilogue.bias)
          acc += loadElement(epilogue.bias, g.cType, j);
        bool mask = epilogueAuxIsReluMask(epilogue.activation);
        uint8_t *maskByte = nullptr, maskBit = uint8_t(1u << (j % 8));
        if (mask)
          maskByte = static_cast<uint8_t *>(epilogue.aux) +
                     (batch * g.m + i) * (ampGemmReluMaskRowBits(g.n) / 8) +
                     j / 8;
        if (epilogue.activation == AMP_GEMM_EPILOGUE_DGELU)
          acc *= geluTanhGrad(loadElement(epilogue.aux, g.cType, cIndex));
        else if (epilogue.activation == AMP_GEMM_EPILOGUE_DRELU)
          acc = (*maskByte & maskBit) ? acc : 0.0;
        else if (mask)
          *maskByte = acc > 0.0 ? uint8_t(*maskByte | maskBit)
                                : uint8_t(*maskByte & ~maskBit);
        else if (epilogue.aux)
          storeElement(epilogue.aux, g.cType, cIndex, acc);
        if ((epilogue.activation == AMP_GEMM_EPILOGUE_RELU_BIAS ||
             epilogue.activation == AMP_GEMM_EPILOGUE_RELU_AUX_BIAS) &&
            acc < 0.0)
          acc = 0.0;
        else if (epilogue.activation == AMP_GEMM_EPILOGUE_GELU_BIAS ||
                 epilogue.activation == AMP_GEMM_EPILOGUE_GELU_AUX_BIAS)
          acc = geluTanh(acc);
        float magnitude = std::fabs(static_cast<float>(acc));
        if (!(magnitude <= largest) && !std::isnan(largest))
          largest = magnitude;
        storeElement(g.c, g.cType, cIndex, acc);
      }
    }
  }
  if (amax)
    *amax = largest;
}
} // namespace

bool amp::rt::cpu::Gemm(const char *, const GemmArgs &g, NoResult &) {
  referenceGemm(g, 1.0f, nullptr);
  return true;
}

bool amp::rt::cpu::GemmEpilogue(const char *, const GemmEpilogueArgs &e,
                                NoResult &) {
  referenceGemm(getGemmArgs(e), 1.0f, nullptr,
                {e.bias, e.epilogue, e.addend, e.aux});
  return true;
}

bool amp::rt::cpu::GemmBiasGrad(const char *, const GemmBiasGradArgs &e,
                                NoResult &) {
  GemmArgs g = getGemmArgs(e);
  referenceGemm(g, 1.0f, nullptr);
  // The column sums of A (k x m) or B (k x n, row-major), in double,
  // rounded once.
  bool ofA = e.operand == AMP_GEMM_BIAS_GRAD_A;
  const void *operand = ofA ? g.a : g.b;
  int32_t type = ofA ? g.aType : g.bType;
  int64_t ld = ofA ? g.lda : g.ldb;
  int64_t count = getBiasGradElements(e);
  for (int64_t j = 0; j < count; ++j) {
    double sum = 0.0;
    for (int64_t l = 0; l < g.k; ++l)
      sum += loadElement(operand, type, l * ld + j);
    storeElement(e.biasGrad, g.cType, j, sum);
  }
  return true;
}

bool amp::rt::cpu::ScaledGemm(const char *, const ScaledGemmArgs &s,
                              NoResult &) {
  // The scale in f32 (cuBLASLt's compute type), applied to the exact sum.
  referenceGemm(getGemmArgs(s),
                (s.aScale ? *s.aScale : 1.0f) * (s.bScale ? *s.bScale : 1.0f),
                s.dAmax);
  return true;
}

namespace {
/// Where element (n, c, y, x) of a convolution's input, (f, c', r, s) of its
/// filter (c' < c/groups) and (n, f, y, x) of its output lie in `v`'s
/// layout (AmpConvLayout).
struct ConvIndex {
  explicit ConvIndex(const ConvArgs &v)
      : v(v), nchw(v.layout == AMP_CONV_NCHW_FCHW),
        fhwc(v.layout == AMP_CONV_NHWC_FHWC), groupC(v.c / v.groups) {}
  int64_t x(int64_t n, int64_t c, int64_t y, int64_t x) const {
    return nchw ? ((n * v.c + c) * v.h + y) * v.w + x
                : ((n * v.h + y) * v.w + x) * v.c + c;
  }
  int64_t w(int64_t f, int64_t c, int64_t r, int64_t s) const {
    return nchw   ? ((f * groupC + c) * v.kh + r) * v.kw + s
           : fhwc ? ((f * v.kh + r) * v.kw + s) * groupC + c
                  : ((r * v.kw + s) * groupC + c) * v.f + f;
  }
  int64_t y(int64_t n, int64_t f, int64_t y, int64_t x) const {
    return nchw ? ((n * v.f + f) * v.oh + y) * v.ow + x
                : ((n * v.oh + y) * v.ow + x) * v.f + f;
  }
  ConvArgs v; // A copy: a backward call's forward view is a temporary.
  bool nchw, fhwc;
  int64_t groupC;
};
} // namespace

namespace {
/// The sum of output element (n, f, oy, ox) of the convolution `v` in
/// double (groups: output channel f reads its group's input channels).
double convSum(const ConvArgs &v, const ConvIndex &at, int64_t n, int64_t f,
               int64_t oy, int64_t ox) {
  const int64_t groupC = v.c / v.groups, groupF = v.f / v.groups;
  int64_t firstC = (f / groupF) * groupC;
  double acc = 0.0;
  for (int64_t r = 0; r < v.kh; ++r) {
    int64_t iy = oy * v.strideH - v.padTop + r * v.dilH;
    if (iy < 0 || iy >= v.h)
      continue;
    for (int64_t s = 0; s < v.kw; ++s) {
      int64_t ix = ox * v.strideW - v.padLeft + s * v.dilW;
      if (ix < 0 || ix >= v.w)
        continue;
      for (int64_t c = 0; c < groupC; ++c)
        acc += loadElement(v.x, v.xType, at.x(n, firstC + c, iy, ix)) *
               loadElement(v.wt, v.wType, at.w(f, c, r, s));
    }
  }
  return acc;
}

/// Each output element (n, f, oy, ox) of `v`, its index in y and the sum.
template <typename Visit>
void forEachConvOutput(const ConvArgs &v, Visit visit) {
  ConvIndex at(v);
  for (int64_t n = 0; n < v.n; ++n)
    for (int64_t f = 0; f < v.f; ++f)
      for (int64_t oy = 0; oy < v.oh; ++oy)
        for (int64_t ox = 0; ox < v.ow; ++ox)
          visit(f, at.y(n, f, oy, ox), convSum(v, at, n, f, oy, ox));
}
} // namespace

bool amp::rt::cpu::Conv(const char *, const ConvArgs &v, NoResult &) {
  forEachConvOutput(v, [&](int64_t, int64_t out, double acc) {
    if (v.beta != 0.0f)
      acc += static_cast<double>(v.beta) * loadElement(v.y, v.yType, out);
    storeElement(v.y, v.yType, out, acc);
  });
  return true;
}

bool amp::rt::cpu::ConvEpilogue(const char *, const ConvEpilogueArgs &e,
                                NoResult &) {
  ConvArgs v = getConvArgs(e);
  bool relu = e.epilogue == AMP_CONV_EPILOGUE_SCALE_BIAS_RELU;
  forEachConvOutput(v, [&](int64_t f, int64_t out, double acc) {
    if (e.scale)
      acc *= static_cast<double>(e.scale[f]);
    if (e.bias)
      acc += static_cast<double>(e.bias[f]);
    if (e.residual)
      acc += loadElement(e.residual, e.yType, out);
    // The ReLU as the IR's select(x > 0 unordered, x, 0): -0 becomes 0 and
    // NaN stays NaN.
    if (relu && acc <= 0.0)
      acc = 0.0;
    storeElement(v.y, v.yType, out, acc);
  });
  return true;
}

// The backward convolutions (NCHW/FCHW or NHWC/FHWC, checked): each output
// element
// is one sum over the terms of the definition (LibraryCalls.def), in double,
// plus beta times the old value (not read when beta is 0), rounded once.
// With groups, input channel c meets only the output channels of its group
// (through the filter's channel c % groupC), and dw's channel c' is input
// channel c' of the output channel's group.

bool amp::rt::cpu::ConvBackwardData(const char *, const ConvBackwardDataArgs &v,
                                    NoResult &) {
  const int64_t groupC = v.c / v.groups, groupF = v.f / v.groups;
  ConvIndex at(getConvArgs(v));
  for (int64_t n = 0; n < v.n; ++n) {
    for (int64_t c = 0; c < v.c; ++c) {
      int64_t firstF = (c / groupC) * groupF, filterC = c % groupC;
      for (int64_t iy = 0; iy < v.h; ++iy) {
        for (int64_t ix = 0; ix < v.w; ++ix) {
          double acc = 0.0;
          // The output rows oy with oy*strideH - padTop + r*dilH == iy.
          for (int64_t r = 0; r < v.kh; ++r) {
            int64_t rowOffset = iy + v.padTop - r * v.dilH;
            if (rowOffset < 0 || rowOffset % v.strideH != 0 ||
                rowOffset / v.strideH >= v.oh)
              continue;
            int64_t oy = rowOffset / v.strideH;
            for (int64_t s = 0; s < v.kw; ++s) {
              int64_t colOffset = ix + v.padLeft - s * v.dilW;
              if (colOffset < 0 || colOffset % v.strideW != 0 ||
                  colOffset / v.strideW >= v.ow)
                continue;
              int64_t ox = colOffset / v.strideW;
              for (int64_t f = firstF; f < firstF + groupF; ++f)
                acc += loadElement(v.dy, v.dyType, at.y(n, f, oy, ox)) *
                       loadElement(v.wt, v.wType, at.w(f, filterC, r, s));
            }
          }
          int64_t out = at.x(n, c, iy, ix);
          if (v.beta != 0.0f)
            acc +=
                static_cast<double>(v.beta) * loadElement(v.dx, v.dxType, out);
          storeElement(v.dx, v.dxType, out, acc);
        }
      }
    }
  }
  return true;
}

bool amp::rt::cpu::ConvBackwardFilter(const char *,
                                      const ConvBackwardFilterArgs &v,
                                      NoResult &) {
  const int64_t groupC = v.c / v.groups, groupF = v.f / v.groups;
  ConvIndex at(getConvArgs(v));
  for (int64_t f = 0; f < v.f; ++f) {
    int64_t firstC = (f / groupF) * groupC;
    for (int64_t c = 0; c < groupC; ++c) {
      for (int64_t r = 0; r < v.kh; ++r) {
        for (int64_t s = 0; s < v.kw; ++s) {
          double acc = 0.0;
          for (int64_t n = 0; n < v.n; ++n) {
            for (int64_t oy = 0; oy < v.oh; ++oy) {
              int64_t iy = oy * v.strideH - v.padTop + r * v.dilH;
              if (iy < 0 || iy >= v.h)
                continue;
              for (int64_t ox = 0; ox < v.ow; ++ox) {
                int64_t ix = ox * v.strideW - v.padLeft + s * v.dilW;
                if (ix < 0 || ix >= v.w)
                  continue;
                acc += loadElement(v.x, v.xType, at.x(n, firstC + c, iy, ix)) *
                       loadElement(v.dy, v.dyType, at.y(n, f, oy, ox));
              }
            }
          }
          int64_t out = at.w(f, c, r, s);
          if (v.beta != 0.0f)
            acc +=
                static_cast<double>(v.beta) * loadElement(v.dw, v.dwType, out);
          storeElement(v.dw, v.dwType, out, acc);
        }
      }
    }
  }
  return true;
}

namespace {
/// Row i of the scores of one (batch, head) of an attention, forward or
/// backward (the fields they share), in double: scale * q.k + bias, -inf
/// past the diagonal when causal. Returns the largest.
template <typename Args>
double referenceAttentionScores(const Args &a, int64_t b, int64_t h, int64_t i,
                                std::vector<double> &scores) {
  int64_t qBase = b * a.qStrideB + h * a.qStrideH + i * a.qStrideS;
  double largest = -INFINITY;
  for (int64_t j = 0; j < a.seqKV; ++j) {
    double score = -INFINITY;
    if (!a.causal || j <= i) {
      int64_t kBase = b * a.kStrideB + h * a.kStrideH + j * a.kStrideS;
      double dot = 0.0;
      for (int64_t d = 0; d < a.headDim; ++d)
        dot += loadElement(a.q, a.dtype, qBase + d) *
               loadElement(a.k, a.dtype, kBase + d);
      score = static_cast<double>(a.scale) * dot;
      if (a.bias)
        score += loadElement(a.bias, a.dtype,
                             b * a.biasStrideB + h * a.biasStrideH +
                                 i * a.biasStrideS + j);
    }
    scores[j] = score;
    largest = std::max(largest, score);
  }
  return largest;
}

/// Row i of one (batch, head) of an attention: its scores, their softmax,
/// the weighted sum of v rounded once into out, and the row's log-sum-exp.
void referenceAttentionRow(const AttentionArgs &a, int64_t b, int64_t h,
                           int64_t i, std::vector<double> &scores) {
  double largest = referenceAttentionScores(a, b, h, i, scores);
  double sum = 0.0;
  for (int64_t j = 0; j < a.seqKV; ++j) {
    // All -inf: exp(NaN) keeps the row NaN, as PyTorch's math attention.
    scores[j] = std::exp(scores[j] - largest);
    sum += scores[j];
  }
  int64_t outBase = b * a.outStrideB + h * a.outStrideH + i * a.outStrideS;
  for (int64_t d = 0; d < a.headDim; ++d) {
    double acc = 0.0;
    for (int64_t j = 0; j < a.seqKV; ++j)
      acc += scores[j] *
             loadElement(a.v, a.dtype,
                         b * a.vStrideB + h * a.vStrideH + j * a.vStrideS + d);
    storeElement(a.out, a.dtype, outBase + d, acc / sum);
  }
  if (a.stats)
    a.stats[(b * a.heads + h) * a.seqQ + i] =
        static_cast<float>(largest + std::log(sum));
}

/// One (batch, head) of a strided attention tensor: `rows` rows of
/// `headDim` elements, `strideS` apart from element `base`.
struct AttentionRows {
  int64_t base, strideS, rows, headDim;
};

/// The rows of `at` in `data` of `type`, widened to double (rows x headDim).
std::vector<double> loadAttentionRows(const void *data, int32_t type,
                                      const AttentionRows &at) {
  std::vector<double> values(static_cast<size_t>(at.rows * at.headDim));
  for (int64_t s = 0; s < at.rows; ++s)
    for (int64_t d = 0; d < at.headDim; ++d)
      values[s * at.headDim + d] =
          loadElement(data, type, at.base + s * at.strideS + d);
  return values;
}

/// `values` (rows x headDim) times `factor`, rounded once into the rows of
/// `at` in `data`.
void storeAttentionRows(void *data, int32_t type, const AttentionRows &at,
                        const std::vector<double> &values, double factor) {
  for (int64_t s = 0; s < at.rows; ++s)
    for (int64_t d = 0; d < at.headDim; ++d)
      storeElement(data, type, at.base + s * at.strideS + d,
                   factor * values[s * at.headDim + d]);
}
} // namespace

bool amp::rt::cpu::Attention(const char *, const AttentionArgs &a, NoResult &) {
  std::vector<double> scores(static_cast<size_t>(a.seqKV));
  for (int64_t b = 0; b < a.batch; ++b)
    for (int64_t h = 0; h < a.heads; ++h)
      for (int64_t i = 0; i < a.seqQ; ++i)
        referenceAttentionRow(a, b, h, i, scores);
  return true;
}

// The backward, per (batch, head), in double, from the given out and stats
// (LibraryCalls.def): P[i,j] = exp(S[i,j] - stats[i]) (0 past the diagonal
// when causal), D[i] = dOut[i,:].out[i,:], dS = P (dOut[i,:].v[j,:] - D[i]);
// dv += P dOut, dq += dS k and dk += dS q, each sum rounded once (dq and dk
// times the scale).
bool amp::rt::cpu::AttentionBackward(const char *,
                                     const AttentionBackwardArgs &a,
                                     NoResult &) {
  const int64_t dim = a.headDim;
  const double scale = static_cast<double>(a.scale);
  std::vector<double> scores(static_cast<size_t>(a.seqKV));
  for (int64_t b = 0; b < a.batch; ++b) {
    for (int64_t h = 0; h < a.heads; ++h) {
      auto rows = [&](int64_t strideB, int64_t strideH, int64_t strideS,
                      int64_t seq) {
        return AttentionRows{b * strideB + h * strideH, strideS, seq, dim};
      };
      AttentionRows qAt = rows(a.qStrideB, a.qStrideH, a.qStrideS, a.seqQ),
                    kAt = rows(a.kStrideB, a.kStrideH, a.kStrideS, a.seqKV);
      std::vector<double> q = loadAttentionRows(a.q, a.dtype, qAt),
                          k = loadAttentionRows(a.k, a.dtype, kAt);
      std::vector<double> v = loadAttentionRows(
          a.v, a.dtype, rows(a.vStrideB, a.vStrideH, a.vStrideS, a.seqKV));
      std::vector<double> out = loadAttentionRows(
          a.out, a.dtype,
          rows(a.outStrideB, a.outStrideH, a.outStrideS, a.seqQ));
      std::vector<double> dOut = loadAttentionRows(
          a.dOut, a.dtype,
          rows(a.dOutStrideB, a.dOutStrideH, a.dOutStrideS, a.seqQ));
      std::vector<double> dq(q.size(), 0.0), dk(k.size(), 0.0),
          dv(k.size(), 0.0);
      for (int64_t i = 0; i < a.seqQ; ++i) {
        referenceAttentionScores(a, b, h, i, scores);
        double stat = a.stats[(b * a.heads + h) * a.seqQ + i];
        const double *dOutRow = &dOut[i * dim];
        double rowDot = 0.0;
        for (int64_t d = 0; d < dim; ++d)
          rowDot += dOutRow[d] * out[i * dim + d];
        for (int64_t j = 0; j < a.seqKV; ++j) {
          if (a.causal && j > i)
            continue; // P = 0.
          double p = std::exp(scores[j] - stat);
          double dp = 0.0;
          for (int64_t d = 0; d < dim; ++d) {
            dv[j * dim + d] += p * dOutRow[d];
            dp += dOutRow[d] * v[j * dim + d];
          }
          double ds = p * (dp - rowDot);
          for (int64_t d = 0; d < dim; ++d) {
            dq[i * dim + d] += ds * k[j * dim + d];
            dk[j * dim + d] += ds * q[i * dim + d];
          }
        }
      }
      storeAttentionRows(a.dq, a.dtype,
                         rows(a.dqStrideB, a.dqStrideH, a.dqStrideS, a.seqQ),
                         dq, scale);
      storeAttentionRows(a.dk, a.dtype,
                         rows(a.dkStrideB, a.dkStrideH, a.dkStrideS, a.seqKV),
                         dk, scale);
      storeAttentionRows(a.dv, a.dtype,
                         rows(a.dvStrideB, a.dvStrideH, a.dvStrideS, a.seqKV),
                         dv, 1.0);
    }
  }
  return true;
}

bool amp::rt::cpu::Constant(const char *, const ConstantArgs &args,
                            void *&result) {
  // Already in host memory.
  result = const_cast<void *>(args.hostPtr);
  return true;
}

// Every CPU twin of LibraryCalls.def (ampCpuGemm, ..., ampAllReduce).
#define AMP_LIBRARY_CALL(STEM, GPU_NAME, CPU_NAME, RESULT, PARAMS)             \
  AMP_LIBRARY_CALL_ENTRY(CPU_NAME, STEM, RESULT, PARAMS, /*onGpu=*/false,      \
                         ::amp::rt::cpu::STEM)
#include "amp/runtime/LibraryCalls.def"
