//===- GpuContractTest.cpp - the library calls' contracts, checked alone --===//
//
// Part of amp-mlir. ampGpuGemm, ampGpuConv2d and its gradients
// (ampGpuConv2dBackwardData/Filter) against plain loops written here,
// independently of the runtime (no ampCpu* reference, no runtime
// conversion: 16-bit values are produced and rounded with the compiler's
// _Float16/__bf16 or by hand). What the lowering relies on and no other
// test exercises:
//
//  - sub-view leading dimensions (lda > k, ldb > n, ldc > n, operands that
//    start inside a larger buffer), with every transpose, beta 0 and 1, and
//    the elements of C outside the view left alone;
//  - strided-batched GEMM with gaps between the batch matrices;
//  - the f16/bf16 -> f32 widening GEMM and 16-bit outputs, accumulating in
//    f32 (integer data: exact sums that an f16 accumulator would miss);
//  - the HWCF -> KRSC filter transform of NHWC convolutions, with unequal
//    kernel sides, strides and dilations, and NCHW beside it;
//  - cuDNN's algorithm choice by heuristics and by exhaustive search (with
//    its workspace) giving the same results, forward and backward;
//  - the gradients of NCHW convolutions (data and filter) with strides,
//    paddings, dilations, windows that miss rows, beta 0 (NaN outputs) and
//    1, 16-bit inputs widened for an f32 output or kept for a 16-bit one;
//  - the scaled FP8 GEMM (cuBLASLt): E4M3 x E5M2 codes written here, the
//    two scale pointers, the D amax and a bf16 D of exact values, with
//    sub-view leading dimensions and a batch; the D amax of every output
//    type (f32, bf16, f16), beta 0 and 1, which cuBLASLt does not compute
//    for a non-FP8 D (AMAX_D_POINTER is refused: an H200 answered
//    CUBLAS_STATUS_INVALID_VALUE), taken by the runtime's own kernel from
//    the f32 values before their rounding, a NaN included;
//  - cuDNN's fused attention, forward (out and stats against a softmax
//    written here) and backward (dq, dk and dv against its gradients in
//    double), q, k, v and the gradients strided in one projection-shaped
//    buffer, with causal and broadcast masks, queries and keys of
//    different lengths;
//  - bf16 before sm_80 refused with a clear error (run with
//    AMP_RUNTIME_COMPUTE_CAPABILITY=75; skipped otherwise).
//
// Under the GPU simulator (the binary run with libamp_runtime_gpusim.so in
// place of libamp_runtime.so, as the GPU kit's --sim does) the same tests
// run against the simulator's CPU references, and the simulator checks
// each operand's extent, from lda/ldb/ldc and the batch strides, against
// its own allocation records: an operand that reaches past its buffer is
// reported (GemmOperandPastItsBufferIsReported).
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/AmpRuntime.h"
#include "amp/runtime/MgpuAbi.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <random>
#include <string>
#include <vector>

namespace {

std::vector<std::string> gErrors;

void recordError(const char *message) { gErrors.push_back(message); }

bool underSimulator() {
  return dlsym(RTLD_DEFAULT, "ampSimGetStats") != nullptr;
}

class Contract : public ::testing::Test {
protected:
  void SetUp() override {
    ampSetErrorHandler(recordError);
    gErrors.clear();
    if (!ampGpuAvailable())
      GTEST_SKIP() << "no GPU: " << ampLastError();
    gErrors.clear();
  }
  void TearDown() override {
    EXPECT_TRUE(gErrors.empty())
        << "runtime error: " << (gErrors.empty() ? "" : gErrors.front());
  }
};

//===----------------------------------------------------------------------===//
// Element types, independently of the runtime
//===----------------------------------------------------------------------===//

uint16_t toHalfBits(float value) {
  _Float16 half = static_cast<_Float16>(value);
  uint16_t bits;
  std::memcpy(&bits, &half, 2);
  return bits;
}
float fromHalfBits(uint16_t bits) {
  _Float16 half;
  std::memcpy(&half, &bits, 2);
  return static_cast<float>(half);
}
/// bf16 is the top half of an f32: round to nearest even by hand.
uint16_t toBf16Bits(float value) {
  uint32_t word;
  std::memcpy(&word, &value, 4);
  if (std::isnan(value))
    return static_cast<uint16_t>((word >> 16) | 0x40);
  word += 0x7fff + ((word >> 16) & 1);
  return static_cast<uint16_t>(word >> 16);
}
float fromBf16Bits(uint16_t bits) {
  uint32_t word = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &word, 4);
  return value;
}

size_t bytesOf(int32_t type) { return type == AMP_DTYPE_F32 ? 4 : 2; }

/// Host values (as float) in `type`'s encoding, and a device copy.
struct DeviceArray {
  int32_t type;
  std::vector<float> values; // exactly representable in `type`
  void *device = nullptr;

  DeviceArray(int32_t type, size_t count) : type(type), values(count, 0.0f) {
    device = mgpuMemAlloc(count * bytesOf(type), nullptr, false);
  }
  ~DeviceArray() { mgpuMemFree(device, nullptr); }
  DeviceArray(const DeviceArray &) = delete;
  DeviceArray &operator=(const DeviceArray &) = delete;

  void upload() {
    std::vector<unsigned char> raw(values.size() * bytesOf(type));
    for (size_t i = 0; i < values.size(); ++i) {
      if (type == AMP_DTYPE_F32) {
        std::memcpy(&raw[i * 4], &values[i], 4);
      } else {
        uint16_t bits = type == AMP_DTYPE_F16 ? toHalfBits(values[i])
                                              : toBf16Bits(values[i]);
        std::memcpy(&raw[i * 2], &bits, 2);
      }
    }
    mgpuMemcpy(device, raw.data(), raw.size(), nullptr);
    mgpuStreamSynchronize(nullptr);
  }
  std::vector<float> download() const {
    std::vector<unsigned char> raw(values.size() * bytesOf(type));
    mgpuMemcpy(raw.data(), device, raw.size(), nullptr);
    mgpuStreamSynchronize(nullptr);
    std::vector<float> result(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      if (type == AMP_DTYPE_F32) {
        std::memcpy(&result[i], &raw[i * 4], 4);
      } else {
        uint16_t bits;
        std::memcpy(&bits, &raw[i * 2], 2);
        result[i] =
            type == AMP_DTYPE_F16 ? fromHalfBits(bits) : fromBf16Bits(bits);
      }
    }
    return result;
  }
  /// Small integers in [-range, range]: products and sums are exact in f32
  /// (and f16/bf16 hold them exactly).
  void fillIntegers(std::mt19937 &random, int range) {
    std::uniform_int_distribution<int> pick(-range, range);
    for (float &value : values)
      value = static_cast<float>(pick(random));
  }
  char *at(size_t element) const {
    return static_cast<char *>(device) + element * bytesOf(type);
  }
};

float roundTo(int32_t type, double value) {
  if (type == AMP_DTYPE_F32)
    return static_cast<float>(value);
  if (type == AMP_DTYPE_F16)
    return static_cast<float>(static_cast<_Float16>(value));
  return fromBf16Bits(toBf16Bits(static_cast<float>(value)));
}

//===----------------------------------------------------------------------===//
// GEMM
//===----------------------------------------------------------------------===//

struct GemmCase {
  bool transA, transB;
  int64_t batch, m, n, k;
  int64_t lda, ldb, ldc;
  int64_t strideA, strideB, strideC;
  int64_t offsetA, offsetB, offsetC; // where the views start
  int32_t aType, cType;
  float beta;
};

/// A GEMM of packed operands (leading dimensions and batch strides their
/// rows' and matrices' sizes; A not transposed), beta 0.
GemmCase packedGemm(int64_t batch, int64_t m, int64_t n, int64_t k, bool transB,
                    int32_t aType, int32_t cType) {
  GemmCase g{};
  g.transB = transB;
  g.batch = batch;
  g.m = m;
  g.n = n;
  g.k = k;
  g.lda = k;
  g.ldb = transB ? k : n;
  g.ldc = n;
  g.strideA = m * k;
  g.strideB = k * n;
  g.strideC = m * n;
  g.aType = aType;
  g.cType = cType;
  return g;
}

/// Runs `g` on integer data and compares every element of C's buffer: the
/// view with the plain loop, the rest unchanged.
void checkGemm(const GemmCase &g, unsigned seed) {
  SCOPED_TRACE("transA " + std::to_string(g.transA) + " transB " +
               std::to_string(g.transB) + " batch " + std::to_string(g.batch) +
               " beta " + std::to_string(g.beta));
  int64_t aRows = g.transA ? g.k : g.m, bRows = g.transB ? g.n : g.k;
  int64_t aCols = g.transA ? g.m : g.k, bCols = g.transB ? g.k : g.n;
  ASSERT_GE(g.lda, aCols);
  ASSERT_GE(g.ldb, bCols);
  ASSERT_GE(g.ldc, g.n);
  auto extent = [&](int64_t offset, int64_t stride, int64_t rows, int64_t ld,
                    int64_t cols) {
    return offset + (g.batch - 1) * stride + (rows - 1) * ld + cols +
           7; // and a tail nothing may touch
  };
  std::mt19937 random(seed);
  DeviceArray a(g.aType, extent(g.offsetA, g.strideA, aRows, g.lda, aCols));
  DeviceArray b(g.aType, extent(g.offsetB, g.strideB, bRows, g.ldb, bCols));
  DeviceArray c(g.cType, extent(g.offsetC, g.strideC, g.m, g.ldc, g.n));
  a.fillIntegers(random, 3);
  b.fillIntegers(random, 3);
  c.fillIntegers(random, 5);
  a.upload();
  b.upload();
  c.upload();
  ampGpuGemm(g.transA, g.transB, g.batch, g.m, g.n, g.k, a.at(g.offsetA),
             g.aType, g.lda, g.strideA, b.at(g.offsetB), g.aType, g.ldb,
             g.strideB, c.at(g.offsetC), g.cType, g.ldc, g.strideC, g.beta);
  mgpuStreamSynchronize(nullptr);
  ASSERT_TRUE(gErrors.empty()) << gErrors.front();

  std::vector<float> expected = c.values;
  for (int64_t batch = 0; batch < g.batch; ++batch)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < g.k; ++p) {
          int64_t aIndex = g.offsetA + batch * g.strideA +
                           (g.transA ? p * g.lda + i : i * g.lda + p);
          int64_t bIndex = g.offsetB + batch * g.strideB +
                           (g.transB ? j * g.ldb + p : p * g.ldb + j);
          sum += static_cast<double>(a.values[aIndex]) * b.values[bIndex];
        }
        int64_t cIndex = g.offsetC + batch * g.strideC + i * g.ldc + j;
        sum += g.beta * static_cast<double>(c.values[cIndex]);
        expected[cIndex] = roundTo(g.cType, sum);
      }
  std::vector<float> actual = c.download();
  int64_t wrong = 0;
  for (size_t i = 0; i < actual.size(); ++i)
    if (actual[i] != expected[i] && wrong++ < 5)
      ADD_FAILURE() << "C element " << i << ": " << actual[i] << ", expected "
                    << expected[i];
  EXPECT_EQ(wrong, 0) << "elements of C's buffer that differ";
}

TEST_F(Contract, GemmSubViewLeadingDimensions) {
  unsigned seed = 1;
  for (bool transA : {false, true})
    for (bool transB : {false, true})
      for (float beta : {0.0f, 1.0f}) {
        GemmCase g{};
        g.transA = transA;
        g.transB = transB;
        g.batch = 1;
        g.m = 13;
        g.n = 11;
        g.k = 17;
        // Views of 40-wide buffers, starting at row 2, column 3.
        g.lda = g.ldb = g.ldc = 40;
        g.offsetA = g.offsetB = g.offsetC = 2 * 40 + 3;
        g.aType = AMP_DTYPE_F32;
        g.cType = AMP_DTYPE_F32;
        g.beta = beta;
        checkGemm(g, seed++);
      }
}

TEST_F(Contract, GemmStridedBatchedWithGaps) {
  GemmCase g{};
  g.batch = 5;
  g.m = 9;
  g.n = 12;
  g.k = 33;
  g.lda = g.k + 2;
  g.transB = true; // B is n x k, ldb >= k
  g.ldb = g.k + 1;
  g.ldc = g.n;
  g.strideA = g.m * g.lda + 17; // gaps between the batch matrices
  g.strideB = g.n * g.ldb + 5;
  g.strideC = g.m * g.ldc + 3;
  g.aType = AMP_DTYPE_F16;
  g.cType = AMP_DTYPE_F32;
  g.beta = 0;
  checkGemm(g, 11);
  g.offsetA = 4;
  g.offsetC = 1;
  g.beta = 1;
  checkGemm(g, 12);
}

TEST_F(Contract, GemmWideningAccumulatesInF32) {
  // k = 4096 products of integers in [-3, 3]: sums up to 36864, exact in f32
  // and beyond f16's integers (2048), so an f16 accumulator would be off.
  for (int32_t type : {AMP_DTYPE_F16, AMP_DTYPE_BF16}) {
    if (type == AMP_DTYPE_BF16 && ampGpuComputeCapability() != 0 &&
        ampGpuComputeCapability() < 80)
      continue; // Refused there (Bf16RefusedBeforeSm80).
    GemmCase g = packedGemm(2, 8, 24, 4096, false, type, AMP_DTYPE_F32);
    checkGemm(g, 21 + type);
    // And a 16-bit output: the exact f32 sum rounded once.
    g.cType = type;
    checkGemm(g, 31 + type);
  }
}

TEST_F(Contract, GemmOperandPastItsBufferIsReported) {
  if (!underSimulator())
    GTEST_SKIP() << "the simulator's check (a GPU reads past the buffer "
                    "silently)";
  // A is 8 x 16 with lda 20: its last row ends at 7 * 20 + 16 = 156
  // elements, but the buffer holds 150.
  void *a = mgpuMemAlloc(150 * 4, nullptr, false);
  void *b = mgpuMemAlloc(16 * 4 * 4, nullptr, false);
  void *c = mgpuMemAlloc(8 * 4 * 4, nullptr, false);
  ampGpuGemm(0, 0, 1, 8, 4, 16, a, AMP_DTYPE_F32, 20, 0, b, AMP_DTYPE_F32, 4, 0,
             c, AMP_DTYPE_F32, 4, 0, 0.0f);
  ASSERT_FALSE(gErrors.empty()) << "the simulator accepted A past its buffer";
  EXPECT_NE(gErrors.front().find("ampGpuGemm"), std::string::npos)
      << gErrors.front();
  gErrors.clear();
  mgpuMemFree(a, nullptr);
  mgpuMemFree(b, nullptr);
  mgpuMemFree(c, nullptr);
}

/// ampGpuGemmEpilogue (cuBLASLt's BIAS, RELU_BIAS, GELU_BIAS, GELU_AUX_BIAS
/// and DGELU epilogues on the GPU; the ReLU mask's pair below) of `g` (offsets
/// 0) on integer data: C = act(op(A) op(B) + beta * R + bias), R being a
/// separate addend where `separate`, else C in place, against the plain loop
/// rounded once; the addend is left as it was; GELU_AUX_BIAS's aux output is
/// the GELU's input rounded once (exactly: integers); DGELU (no bias)
/// multiplies the sum by the GELU's derivative at its aux input, which it
/// leaves as it was.
void checkGemmEpilogue(const GemmCase &g, int32_t epilogue, bool separate,
                       unsigned seed) {
  SCOPED_TRACE("epilogue " + std::to_string(epilogue) + " separate " +
               std::to_string(separate) + " transA " +
               std::to_string(g.transA) + " transB " +
               std::to_string(g.transB) + " batch " + std::to_string(g.batch) +
               " beta " + std::to_string(g.beta) + " types " +
               std::to_string(g.aType) + " -> " + std::to_string(g.cType));
  int64_t aRows = g.transA ? g.k : g.m, bRows = g.transB ? g.n : g.k;
  int64_t aCols = g.transA ? g.m : g.k, bCols = g.transB ? g.k : g.n;
  auto extent = [&](int64_t stride, int64_t rows, int64_t ld, int64_t cols) {
    return (g.batch - 1) * stride + (rows - 1) * ld + cols;
  };
  std::mt19937 random(seed);
  DeviceArray a(g.aType, extent(g.strideA, aRows, g.lda, aCols));
  DeviceArray b(g.aType, extent(g.strideB, bRows, g.ldb, bCols));
  DeviceArray c(g.cType, extent(g.strideC, g.m, g.ldc, g.n));
  DeviceArray r(g.cType, c.values.size());
  DeviceArray bias(g.cType, g.n);
  DeviceArray aux(g.cType, c.values.size());
  for (DeviceArray *array : {&a, &b, &c, &r, &bias, &aux}) {
    array->fillIntegers(random, 3);
    array->upload();
  }
  bool auxOutput = epilogue == AMP_GEMM_EPILOGUE_GELU_AUX_BIAS;
  bool dgelu = epilogue == AMP_GEMM_EPILOGUE_DGELU;
  ampGpuGemmEpilogue(
      g.transA, g.transB, g.batch, g.m, g.n, g.k, a.device, g.aType, g.lda,
      g.strideA, b.device, g.aType, g.ldb, g.strideB, c.device, g.cType, g.ldc,
      g.strideC, g.beta, epilogue, dgelu ? nullptr : bias.device,
      separate ? r.device : nullptr, auxOutput || dgelu ? aux.device : nullptr);
  mgpuStreamSynchronize(nullptr);
  ASSERT_TRUE(gErrors.empty()) << gErrors.front();
  const std::vector<float> &addend = separate ? r.values : c.values;
  std::vector<float> expected = c.values, expectedAux = aux.values;
  for (int64_t batch = 0; batch < g.batch; ++batch)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        double sum = dgelu ? 0.0 : bias.values[j];
        for (int64_t p = 0; p < g.k; ++p)
          sum += static_cast<double>(
                     a.values[batch * g.strideA +
                              (g.transA ? p * g.lda + i : i * g.lda + p)]) *
                 b.values[batch * g.strideB +
                          (g.transB ? j * g.ldb + p : p * g.ldb + j)];
        int64_t cIndex = batch * g.strideC + i * g.ldc + j;
        if (g.beta != 0.0f)
          sum += g.beta * static_cast<double>(addend[cIndex]);
        if (epilogue == AMP_GEMM_EPILOGUE_RELU_BIAS && sum < 0)
          sum = 0;
        if (auxOutput)
          expectedAux[cIndex] = roundTo(g.cType, sum);
        if (dgelu) {
          double x = aux.values[cIndex], k = 0.044715,
                 s = 0.79788456080286535588;
          double t = std::tanh(s * (x + k * x * x * x));
          sum *= 0.5 * (1.0 + t) +
                 0.5 * x * (1.0 - t * t) * s * (1.0 + 3.0 * k * x * x);
        }
        if (epilogue == AMP_GEMM_EPILOGUE_GELU_BIAS || auxOutput)
          sum = 0.5 * sum *
                (1.0 + std::tanh(0.79788456080286535588 *
                                 (sum + 0.044715 * sum * sum * sum)));
        expected[cIndex] = roundTo(g.cType, sum);
      }
  std::vector<float> actual = c.download();
  // GELU's tanh is cuBLASLt's own on the GPU: within a rounding of the
  // output type (an f32 tanh's error, and a 16-bit result's rounding that
  // may go the other way); the rest is exact.
  double ulp = epilogue != AMP_GEMM_EPILOGUE_GELU_BIAS && !auxOutput && !dgelu
                   ? 0.0
               : g.cType == AMP_DTYPE_F32 ? 1e-6
               : g.cType == AMP_DTYPE_F16 ? 1.0 / 1024
                                          : 1.0 / 128;
  int64_t wrong = 0, negative = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    negative += expected[i] < 0;
    if (std::fabs(double(actual[i]) - expected[i]) >
            ulp * (std::fabs(expected[i]) + 1e-3) &&
        wrong++ < 5)
      ADD_FAILURE() << "C element " << i << ": " << actual[i] << ", expected "
                    << expected[i];
  }
  EXPECT_EQ(wrong, 0) << "elements of C's buffer that differ";
  if (epilogue == AMP_GEMM_EPILOGUE_BIAS) {
    EXPECT_GT(negative, 0) << "no negative sum: the ReLU would go unseen";
  }
  EXPECT_EQ(r.download(), r.values) << "the addend was written";
  EXPECT_EQ(aux.download(), expectedAux)
      << (auxOutput ? "the GELU's input" : "aux was written");
}

TEST_F(Contract, GemmEpiloguesAddTheBiasAndTheAddendBeforeTheActivation) {
  unsigned seed = 41;
  // The GEMM's layouts and a batch, with f32 data.
  for (bool transA : {false, true})
    for (bool transB : {false, true})
      for (int64_t batch : {1, 3}) {
        GemmCase g{};
        g.transA = transA;
        g.transB = transB;
        g.batch = batch;
        g.m = 13;
        g.n = 11;
        g.k = 17;
        g.lda = transA ? g.m + 1 : g.k + 2;
        g.ldb = transB ? g.k + 3 : g.n;
        g.ldc = g.n + 1;
        g.strideA = (transA ? g.k : g.m) * g.lda + 5;
        g.strideB = (transB ? g.n : g.k) * g.ldb;
        g.strideC = g.m * g.ldc + 2;
        g.aType = g.cType = AMP_DTYPE_F32;
        g.beta = 0.0f;
        checkGemmEpilogue(g, AMP_GEMM_EPILOGUE_BIAS, false, seed++);
      }
  // The epilogues, the addend and the output types of 16-bit operands.
  for (int32_t type : {AMP_DTYPE_F16, AMP_DTYPE_BF16}) {
    if (type == AMP_DTYPE_BF16 && ampGpuComputeCapability() != 0 &&
        ampGpuComputeCapability() < 80)
      continue; // Refused there (Bf16RefusedBeforeSm80).
    for (int32_t cType : {type, int32_t(AMP_DTYPE_F32)})
      for (int32_t epilogue :
           {AMP_GEMM_EPILOGUE_BIAS, AMP_GEMM_EPILOGUE_RELU_BIAS,
            AMP_GEMM_EPILOGUE_GELU_BIAS, AMP_GEMM_EPILOGUE_GELU_AUX_BIAS,
            AMP_GEMM_EPILOGUE_DGELU})
        for (bool separate : {false, true})
          for (float beta : {0.0f, 1.0f}) {
            GemmCase g = packedGemm(2, 16, 24, 32, true, type, cType);
            g.beta = beta;
            checkGemmEpilogue(g, epilogue, separate, seed++);
          }
  }
}

/// cuBLASLt's ReLU training pair on `g` (beta 0, as the compiler calls
/// it): RELU_AUX_BIAS writes relu(op(A) op(B) + bias) and the ReLU mask
/// (ampGemmReluMaskBytes, its layout the library's own); DRELU with another
/// A and B and that mask writes their product where the first sum was
/// positive and 0 where not, leaving the mask as it was. The bias holds
/// halves (k + 0.5), so no sum is 0 (the mask's sign at 0 is not
/// specified) and every sum is exact in f32.
void checkReluMaskEpilogues(const GemmCase &g, unsigned seed) {
  SCOPED_TRACE("transB " + std::to_string(g.transB) + " batch " +
               std::to_string(g.batch) + " m " + std::to_string(g.m) + " n " +
               std::to_string(g.n) + " types " + std::to_string(g.aType) +
               " -> " + std::to_string(g.cType));
  int64_t bRows = g.transB ? g.n : g.k, bCols = g.transB ? g.k : g.n;
  auto extent = [&](int64_t stride, int64_t rows, int64_t ld, int64_t cols) {
    return (g.batch - 1) * stride + (rows - 1) * ld + cols;
  };
  std::mt19937 random(seed);
  DeviceArray a(g.aType, extent(g.strideA, g.m, g.lda, g.k));
  DeviceArray b(g.aType, extent(g.strideB, bRows, g.ldb, bCols));
  DeviceArray dy(g.aType, a.values.size());
  DeviceArray w(g.aType, b.values.size());
  DeviceArray h(g.cType, extent(g.strideC, g.m, g.ldc, g.n));
  DeviceArray dx(g.cType, h.values.size());
  DeviceArray bias(g.cType, g.n);
  for (DeviceArray *array : {&a, &b, &dy, &w, &h, &dx, &bias})
    array->fillIntegers(random, 3);
  for (float &value : bias.values)
    value += 0.5f;
  for (DeviceArray *array : {&a, &b, &dy, &w, &h, &dx, &bias})
    array->upload();
  int64_t maskBytes = ampGemmReluMaskBytes(g.batch, g.m, g.n);
  void *mask = mgpuMemAlloc(maskBytes, nullptr, false);
  auto gemm = [&](const DeviceArray &lhs, const DeviceArray &rhs,
                  DeviceArray &out, int32_t epilogue, const void *biasPointer) {
    ampGpuGemmEpilogue(0, g.transB, g.batch, g.m, g.n, g.k, lhs.device, g.aType,
                       g.lda, g.strideA, rhs.device, g.aType, g.ldb, g.strideB,
                       out.device, g.cType, g.ldc, g.strideC, 0.0f, epilogue,
                       biasPointer, nullptr, mask);
    mgpuStreamSynchronize(nullptr);
  };
  gemm(a, b, h, AMP_GEMM_EPILOGUE_RELU_AUX_BIAS, bias.device);
  ASSERT_TRUE(gErrors.empty()) << gErrors.front();
  std::vector<unsigned char> written(maskBytes);
  mgpuMemcpy(written.data(), mask, maskBytes, nullptr);
  gemm(dy, w, dx, AMP_GEMM_EPILOGUE_DRELU, nullptr);
  ASSERT_TRUE(gErrors.empty()) << gErrors.front();
  std::vector<unsigned char> after(maskBytes);
  mgpuMemcpy(after.data(), mask, maskBytes, nullptr);
  mgpuStreamSynchronize(nullptr);
  mgpuMemFree(mask, nullptr);
  EXPECT_EQ(after, written) << "DRELU wrote its mask";
  std::vector<float> expectedH = h.values, expectedDx = dx.values;
  int64_t positive = 0, negative = 0;
  for (int64_t batch = 0; batch < g.batch; ++batch)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        double sum = bias.values[j], grad = 0.0;
        for (int64_t p = 0; p < g.k; ++p) {
          int64_t aIndex = batch * g.strideA + i * g.lda + p;
          int64_t bIndex =
              batch * g.strideB + (g.transB ? j * g.ldb + p : p * g.ldb + j);
          sum += static_cast<double>(a.values[aIndex]) * b.values[bIndex];
          grad += static_cast<double>(dy.values[aIndex]) * w.values[bIndex];
        }
        int64_t cIndex = batch * g.strideC + i * g.ldc + j;
        positive += sum > 0;
        negative += sum < 0;
        expectedH[cIndex] = roundTo(g.cType, sum > 0 ? sum : 0.0);
        expectedDx[cIndex] = roundTo(g.cType, sum > 0 ? grad : 0.0);
      }
  EXPECT_GT(positive, 0) << "no positive sum: the mask would go unseen";
  EXPECT_GT(negative, 0) << "no negative sum: the mask would go unseen";
  EXPECT_EQ(h.download(), expectedH) << "RELU_AUX_BIAS's C";
  EXPECT_EQ(dx.download(), expectedDx) << "DRELU's C";
}

TEST_F(Contract, ReluMaskEpiloguesPassTheSignToTheBackward) {
  unsigned seed = 73;
  for (int32_t type : {AMP_DTYPE_F16, AMP_DTYPE_BF16}) {
    if (type == AMP_DTYPE_BF16 && ampGpuComputeCapability() != 0 &&
        ampGpuComputeCapability() < 80)
      continue; // Refused there (Bf16RefusedBeforeSm80).
    for (int32_t cType : {type, int32_t(AMP_DTYPE_F32)})
      for (bool transB : {false, true})
        // n of 24 (a mask row of 128 bits, mostly padding) and 136 (two).
        for (int64_t n : {24, 136}) {
          checkReluMaskEpilogues(
              packedGemm(transB ? 2 : 1, 16, n, 32, transB, type, cType),
              seed++);
        }
  }
}

TEST_F(Contract, GemmEpilogueChecksItsArguments) {
  void *a = mgpuMemAlloc(16 * 4, nullptr, false);
  void *c = mgpuMemAlloc(16 * 4, nullptr, false);
  void *bias = mgpuMemAlloc(4 * 4, nullptr, false);
  void *aux = mgpuMemAlloc(16 * 4, nullptr, false);
  auto call = [&](int32_t epilogue, const void *biasPointer, const void *addend,
                  void *auxPointer = nullptr) {
    gErrors.clear();
    ampGpuGemmEpilogue(0, 0, 1, 4, 4, 4, a, AMP_DTYPE_F32, 4, 0, a,
                       AMP_DTYPE_F32, 4, 0, c, AMP_DTYPE_F32, 4, 0, 1.0f,
                       epilogue, biasPointer, addend, auxPointer);
    mgpuStreamSynchronize(nullptr);
    return gErrors.empty() ? std::string() : gErrors.front();
  };
  for (int32_t invalid : {0, 8})
    EXPECT_NE(call(invalid, bias, nullptr)
                  .find("ampGpuGemmEpilogue: invalid epilogue " +
                        std::to_string(invalid) +
                        " (expected 1 = AMP_GEMM_EPILOGUE_BIAS, 2"),
              std::string::npos);
  // aux: written by GELU_AUX_BIAS and RELU_AUX_BIAS and read by DGELU and
  // DRELU only, in a buffer other than C's; the gradients add no bias; a
  // ReLU mask is aligned to 16 bytes.
  EXPECT_NE(call(AMP_GEMM_EPILOGUE_GELU_BIAS, bias, nullptr, aux)
                .find("only AMP_GEMM_EPILOGUE_GELU_AUX_BIAS, "
                      "AMP_GEMM_EPILOGUE_DGELU, "
                      "AMP_GEMM_EPILOGUE_RELU_AUX_BIAS and "
                      "AMP_GEMM_EPILOGUE_DRELU use aux"),
            std::string::npos);
  EXPECT_NE(call(AMP_GEMM_EPILOGUE_DGELU, bias, nullptr, aux)
                .find("with epilogue 5 (a gradient, which adds no bias"),
            std::string::npos);
  EXPECT_NE(call(AMP_GEMM_EPILOGUE_DRELU, bias, nullptr, aux)
                .find("with epilogue 7 (a gradient, which adds no bias"),
            std::string::npos);
  EXPECT_NE(call(AMP_GEMM_EPILOGUE_RELU_AUX_BIAS, bias, nullptr)
                .find("writes the ReLU mask there"),
            std::string::npos);
  EXPECT_NE(call(AMP_GEMM_EPILOGUE_DRELU, nullptr, nullptr,
                 static_cast<char *>(aux) + 4)
                .find("(a ReLU mask) is not aligned to 16 bytes"),
            std::string::npos);
  EXPECT_EQ(call(AMP_GEMM_EPILOGUE_RELU_AUX_BIAS, bias, nullptr, aux), "");
  EXPECT_NE(call(AMP_GEMM_EPILOGUE_DGELU, nullptr, nullptr)
                .find("reads the GELU's input there"),
            std::string::npos);
  EXPECT_EQ(call(AMP_GEMM_EPILOGUE_DGELU, nullptr, nullptr, aux), "");
  EXPECT_NE(call(AMP_GEMM_EPILOGUE_GELU_AUX_BIAS, bias, nullptr)
                .find("ampGpuGemmEpilogue: aux = "),
            std::string::npos);
  EXPECT_NE(call(AMP_GEMM_EPILOGUE_GELU_AUX_BIAS, bias, nullptr, c)
                .find("a buffer other than C's"),
            std::string::npos);
  EXPECT_NE(call(AMP_GEMM_EPILOGUE_GELU_AUX_BIAS, bias, nullptr,
                 static_cast<char *>(aux) + 2)
                .find("is not aligned to its f32 (cType)"),
            std::string::npos);
  EXPECT_NE(call(AMP_GEMM_EPILOGUE_BIAS, nullptr, nullptr)
                .find("ampGpuGemmEpilogue: bias is NULL"),
            std::string::npos);
  EXPECT_NE(call(AMP_GEMM_EPILOGUE_BIAS, static_cast<char *>(bias) + 2, nullptr)
                .find("is not aligned to its f32 (cType)"),
            std::string::npos);
  EXPECT_NE(call(AMP_GEMM_EPILOGUE_BIAS, bias, static_cast<char *>(c) + 1)
                .find("ampGpuGemmEpilogue: addend = "),
            std::string::npos);
  EXPECT_EQ(call(AMP_GEMM_EPILOGUE_RELU_BIAS, bias, nullptr), "");
  gErrors.clear();
  for (void *pointer : {a, c, bias, aux})
    mgpuMemFree(pointer, nullptr);
}

/// ampGpuGemmBiasGrad (cuBLASLt's BGRADA or BGRADB epilogue on the GPU)
/// of `g` (batch 1; B not transposed for the bias gradient of B, A
/// transposed for A's) on integer data: C = op(A) op(B) + beta C against
/// the plain loop, and the bias gradient, the operand's column sums over k,
/// exact (integers), written over a buffer that held other values.
void checkGemmBiasGrad(const GemmCase &g, int32_t operand, unsigned seed) {
  SCOPED_TRACE("operand " + std::to_string(operand) + " transA " +
               std::to_string(g.transA) + " transB " +
               std::to_string(g.transB) + " beta " + std::to_string(g.beta) +
               " types " + std::to_string(g.aType) + " -> " +
               std::to_string(g.cType) + " k " + std::to_string(g.k));
  int64_t aRows = g.transA ? g.k : g.m, aCols = g.transA ? g.m : g.k;
  int64_t bRows = g.transB ? g.n : g.k, bCols = g.transB ? g.k : g.n;
  bool ofA = operand == AMP_GEMM_BIAS_GRAD_A;
  int64_t sums = ofA ? g.m : g.n;
  std::mt19937 random(seed);
  DeviceArray a(g.aType, (aRows - 1) * g.lda + aCols);
  DeviceArray b(g.aType, (bRows - 1) * g.ldb + bCols);
  DeviceArray c(g.cType, (g.m - 1) * g.ldc + g.n);
  DeviceArray biasGrad(g.cType, sums);
  for (DeviceArray *array : {&a, &b, &c, &biasGrad}) {
    array->fillIntegers(random, 3);
    array->upload();
  }
  ampGpuGemmBiasGrad(g.transA, g.transB, 1, g.m, g.n, g.k, a.device, g.aType,
                     g.lda, 0, b.device, g.aType, g.ldb, 0, c.device, g.cType,
                     g.ldc, 0, g.beta, operand, biasGrad.device);
  mgpuStreamSynchronize(nullptr);
  ASSERT_TRUE(gErrors.empty()) << gErrors.front();
  std::vector<float> expected = c.values;
  for (int64_t i = 0; i < g.m; ++i)
    for (int64_t j = 0; j < g.n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < g.k; ++p)
        sum += static_cast<double>(
                   a.values[g.transA ? p * g.lda + i : i * g.lda + p]) *
               b.values[g.transB ? j * g.ldb + p : p * g.ldb + j];
      int64_t cIndex = i * g.ldc + j;
      sum += g.beta * static_cast<double>(c.values[cIndex]);
      expected[cIndex] = roundTo(g.cType, sum);
    }
  EXPECT_EQ(c.download(), expected) << "C";
  std::vector<float> columnSums(sums);
  const std::vector<float> &summed = ofA ? a.values : b.values;
  int64_t ld = ofA ? g.lda : g.ldb;
  for (int64_t j = 0; j < sums; ++j) {
    double sum = 0;
    for (int64_t p = 0; p < g.k; ++p)
      sum += summed[p * ld + j];
    columnSums[j] = roundTo(g.cType, sum);
  }
  EXPECT_EQ(biasGrad.download(), columnSums) << "the bias gradient";
}

TEST_F(Contract, GemmBiasGradSumsTheColumnsOfItsOperand) {
  unsigned seed = 61;
  // Weight gradients of both layer forms, X^T dY (B's sums; A transposed)
  // and dY^T X (A's sums; B not transposed, as torch.nn.Linear's), and the
  // other transposes each operand allows, f32, f16 and bf16 operands into
  // f32 (the masters' gradients) or their own type; k up to 1024 rows of dY
  // (sums up to 3072: exact in f32, and in f16). m and n differ, so a sum
  // of the wrong operand has the wrong length.
  for (int32_t type : {AMP_DTYPE_F32, AMP_DTYPE_F16, AMP_DTYPE_BF16}) {
    if (type == AMP_DTYPE_BF16 && ampGpuComputeCapability() != 0 &&
        ampGpuComputeCapability() < 80)
      continue; // Refused there (Bf16RefusedBeforeSm80).
    for (int32_t cType : {int32_t(AMP_DTYPE_F32), type})
      for (int32_t operand : {AMP_GEMM_BIAS_GRAD_A, AMP_GEMM_BIAS_GRAD_B})
        for (bool other : {true, false})
          for (int64_t k : {int64_t(64), int64_t(1024)}) {
            if (type == AMP_DTYPE_BF16 && cType == type && k > 64)
              continue; // Sums beyond bf16's integers (256) round.
            GemmCase g{};
            bool ofA = operand == AMP_GEMM_BIAS_GRAD_A;
            // The summed operand stored k rows; the other as `other` says.
            g.transA = ofA ? true : other;
            g.transB = ofA ? !other : false;
            g.batch = 1;
            g.m = 24;
            g.n = 40;
            g.k = k;
            g.lda = (g.transA ? g.m : g.k) + (ofA ? 8 : 0);
            g.ldb = (g.transB ? g.k : g.n) + (ofA ? 0 : 8);
            g.ldc = g.n;
            g.aType = type;
            g.cType = cType;
            g.beta = other ? 0.0f : 1.0f;
            checkGemmBiasGrad(g, operand, seed++);
          }
  }
}

TEST_F(Contract, GemmBiasGradChecksItsArguments) {
  void *a = mgpuMemAlloc(16 * 4, nullptr, false);
  void *c = mgpuMemAlloc(16 * 4, nullptr, false);
  void *grad = mgpuMemAlloc(4 * 4, nullptr, false);
  auto call = [&](int64_t batch, int32_t transA, int32_t transB,
                  int32_t operand, void *biasGrad) {
    gErrors.clear();
    int64_t stride = batch > 1 ? 16 : 0; // A valid batch otherwise.
    ampGpuGemmBiasGrad(transA, transB, batch, 4, 4, 4, a, AMP_DTYPE_F32, 4,
                       stride, a, AMP_DTYPE_F32, 4, stride, c, AMP_DTYPE_F32, 4,
                       stride, 0.0f, operand, biasGrad);
    mgpuStreamSynchronize(nullptr);
    return gErrors.empty() ? std::string() : gErrors.front();
  };
  const int32_t ofA = AMP_GEMM_BIAS_GRAD_A, ofB = AMP_GEMM_BIAS_GRAD_B;
  EXPECT_NE(call(2, 0, 0, ofB, grad)
                .find("ampGpuGemmBiasGrad: batch = 2: the bias "
                      "gradient is that of one GEMM"),
            std::string::npos);
  EXPECT_NE(call(1, 0, 1, ofB, grad).find("ampGpuGemmBiasGrad: transB = 1"),
            std::string::npos);
  EXPECT_NE(call(1, 0, 0, ofA, grad)
                .find("ampGpuGemmBiasGrad: transA = 0: the bias gradient of "
                      "A is the column sums of A stored k x m"),
            std::string::npos);
  for (int32_t operand : {0, 3})
    EXPECT_NE(call(1, 1, 0, operand, grad)
                  .find("ampGpuGemmBiasGrad: invalid operand " +
                        std::to_string(operand)),
              std::string::npos);
  EXPECT_NE(call(1, 0, 0, ofB, nullptr)
                .find("ampGpuGemmBiasGrad: biasGrad is NULL (the call writes "
                      "n = 4"),
            std::string::npos);
  EXPECT_NE(call(1, 1, 0, ofA, nullptr)
                .find("ampGpuGemmBiasGrad: biasGrad is NULL (the call writes "
                      "m = 4"),
            std::string::npos);
  EXPECT_NE(call(1, 0, 0, ofB, static_cast<char *>(grad) + 2)
                .find("is not aligned to its f32 (cType)"),
            std::string::npos);
  EXPECT_EQ(call(1, 0, 0, ofB, grad), "");
  EXPECT_EQ(call(1, 1, 0, ofA, grad), "");
  EXPECT_EQ(call(1, 1, 0, ofB, grad), "");
  gErrors.clear();
  for (void *pointer : {a, c, grad})
    mgpuMemFree(pointer, nullptr);
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

struct AttentionCase {
  int64_t batch, heads, seqQ, seqKV, headDim;
  int32_t type;
  bool causal;
  /// 0: no bias; 1: one mask for every batch and head (1 x 1 x sq x skv);
  /// 2: one per batch, broadcast over the heads (b x 1 x sq x skv).
  int biasKind;
  /// The forward writes stats (the backward always needs them).
  bool stats;
};

std::string describe(const AttentionCase &g) {
  return "type " + std::to_string(g.type) + " causal " +
         std::to_string(g.causal) + " bias " + std::to_string(g.biasKind) +
         " sq " + std::to_string(g.seqQ) + " skv " + std::to_string(g.seqKV);
}

/// The inputs of an attention case, random values of its type: q, k and v
/// where a projection leaves them (one b x s x 3 x h x d buffer, s the
/// longer of the two sequences, as GPT-2's c_attn: the strides of a
/// (batch, sequence, head, dim) view), the bias (a padding mask on the
/// last two keys of batch 1 and small values) and the softmax of their
/// scores, written here in double.
struct AttentionInputs {
  const AttentionCase &g;
  int64_t seqMax, row;
  float scale;
  DeviceArray qkv, bias;

  AttentionInputs(const AttentionCase &g, std::mt19937 &random)
      : g(g), seqMax(std::max(g.seqQ, g.seqKV)), row(3 * g.heads * g.headDim),
        scale(1.0f / std::sqrt(static_cast<float>(g.headDim))),
        qkv(g.type, g.batch * seqMax * row),
        bias(g.type, (g.biasKind == 2 ? g.batch : 1) * g.seqQ * g.seqKV) {
    std::uniform_real_distribution<float> pick(-1.0f, 1.0f);
    for (float &value : qkv.values)
      value = roundTo(g.type, pick(random));
    for (int64_t i = 0; i < int64_t(bias.values.size()); ++i) {
      int64_t key = i % g.seqKV, batch = i / (g.seqQ * g.seqKV);
      bias.values[i] = batch == 1 && key >= g.seqKV - 2
                           ? -INFINITY
                           : roundTo(g.type, 0.5f * pick(random));
    }
    qkv.upload();
    bias.upload();
  }

  /// Element e of row s of head h of batch n of q (part 0), k (1) or v (2),
  /// in this buffer's layout: q, k and v or their gradients.
  int64_t index(int part, int64_t n, int64_t s, int64_t h, int64_t e) const {
    return n * seqMax * row + s * row + (part * g.heads + h) * g.headDim + e;
  }
  double value(int part, int64_t n, int64_t s, int64_t h, int64_t e) const {
    return qkv.values[index(part, n, s, h, e)];
  }
  /// The (batch, head, sequence) strides of q, k and v in their buffer.
  int64_t strideB() const { return seqMax * row; }
  int64_t strideH() const { return g.headDim; }
  int64_t strideS() const { return row; }
  void *biasPointer() const { return g.biasKind ? bias.device : nullptr; }
  int64_t biasStrideB() const { return g.biasKind == 2 ? g.seqQ * g.seqKV : 0; }

  /// Row i of head h of batch n: p[j] = exp(S[j] - largest), returning
  /// largest and sum (the softmax is p / sum).
  void softmaxRow(int64_t n, int64_t h, int64_t i, std::vector<double> &p,
                  double &largest, double &sum) const {
    largest = -INFINITY;
    for (int64_t j = 0; j < g.seqKV; ++j) {
      double dot = 0.0;
      for (int64_t e = 0; e < g.headDim; ++e)
        dot += value(0, n, i, h, e) * value(1, n, j, h, e);
      double score = scale * dot;
      if (g.biasKind)
        score += bias.values[(g.biasKind == 2 ? n : 0) * g.seqQ * g.seqKV +
                             i * g.seqKV + j];
      if (g.causal && j > i)
        score = -INFINITY;
      p[j] = score;
      largest = std::max(largest, score);
    }
    sum = 0.0;
    for (int64_t j = 0; j < g.seqKV; ++j)
      sum += (p[j] = std::exp(p[j] - largest));
  }

  /// ampGpuAttention of these inputs into `out` (b x s x h x d) and
  /// `stats` (NULL: none).
  void runForward(const DeviceArray &out, float *stats) const {
    int64_t h = g.heads, d = g.headDim;
    ampGpuAttention(g.batch, h, g.seqQ, g.seqKV, d, g.type, qkv.at(0),
                    strideB(), strideH(), strideS(), qkv.at(h * d), strideB(),
                    strideH(), strideS(), qkv.at(2 * h * d), strideB(),
                    strideH(), strideS(), out.device, g.seqQ * h * d, d, h * d,
                    biasPointer(), biasStrideB(), 0, g.seqKV, stats, scale,
                    g.causal);
  }
};

/// ampGpuAttention (cuDNN's fused attention on the GPU) of `g`, out written
/// as b x s x h x d, against the softmax written here in double: out within
/// two roundings of its type (cuDNN's f32 sums and exp), stats (the rows'
/// log-sum-exp) within 1e-3.
void checkAttention(const AttentionCase &g, unsigned seed) {
  SCOPED_TRACE(describe(g));
  int64_t b = g.batch, h = g.heads, d = g.headDim;
  std::mt19937 random(seed);
  AttentionInputs in(g, random);
  DeviceArray out(g.type, b * g.seqQ * h * d);
  std::vector<float> statsValues(b * h * g.seqQ, 0.0f);
  void *stats =
      g.stats ? mgpuMemAlloc(statsValues.size() * 4, nullptr, false) : nullptr;
  in.runForward(out, static_cast<float *>(stats));
  mgpuStreamSynchronize(nullptr);
  ASSERT_TRUE(gErrors.empty()) << gErrors.front();
  std::vector<float> actual = out.download();
  if (stats) {
    mgpuMemcpy(statsValues.data(), stats, statsValues.size() * 4, nullptr);
    mgpuStreamSynchronize(nullptr);
    mgpuMemFree(stats, nullptr);
  }
  double ulp = g.type == AMP_DTYPE_F16 ? 1.0 / 1024 : 1.0 / 128;
  int64_t wrong = 0;
  std::vector<double> p(g.seqKV);
  for (int64_t n = 0; n < b; ++n)
    for (int64_t head = 0; head < h; ++head)
      for (int64_t i = 0; i < g.seqQ; ++i) {
        double largest, sum;
        in.softmaxRow(n, head, i, p, largest, sum);
        for (int64_t e = 0; e < d; ++e) {
          double acc = 0.0;
          for (int64_t j = 0; j < g.seqKV; ++j)
            acc += p[j] * in.value(2, n, j, head, e);
          double expected = acc / sum;
          float got = actual[((n * g.seqQ + i) * h + head) * d + e];
          if (std::fabs(got - expected) >
                  2 * ulp * (std::fabs(expected) + 0.25) &&
              wrong++ < 5)
            ADD_FAILURE() << "out[" << n << "," << i << "," << head << "," << e
                          << "] = " << got << ", expected " << expected;
        }
        if (g.stats) {
          double expected = largest + std::log(sum);
          float got = statsValues[(n * h + head) * g.seqQ + i];
          if (std::fabs(got - expected) > 1e-3 * (std::fabs(expected) + 1) &&
              wrong++ < 5)
            ADD_FAILURE() << "stats[" << n << "," << head << "," << i
                          << "] = " << got << ", expected " << expected;
        }
      }
  EXPECT_EQ(wrong, 0) << "elements that differ";
}

TEST_F(Contract, AttentionReadsStridedHeadsAndMasks) {
  unsigned seed = 7;
  for (int32_t type : {AMP_DTYPE_F16, AMP_DTYPE_BF16}) {
    if (type == AMP_DTYPE_BF16 && ampGpuComputeCapability() != 0 &&
        ampGpuComputeCapability() < 80)
      continue;
    for (bool causal : {false, true})
      for (int biasKind : {0, 1, 2})
        checkAttention({2, 3, 40, 40, 64, type, causal, biasKind,
                        /*stats=*/biasKind != 1},
                       seed++);
    // Queries and keys of different lengths (no causal mask), a small head.
    checkAttention({2, 2, 24, 56, 32, type, false, 2, true}, seed++);
  }
}

TEST_F(Contract, AttentionChecksItsArguments) {
  void *buffer = mgpuMemAlloc(4096, nullptr, false);
  auto call = [&](int32_t type, int64_t headDim, int64_t strideS, const void *q,
                  int32_t causal) {
    gErrors.clear();
    ampGpuAttention(1, 1, 4, 4, headDim, type, q, 0, 0, strideS, buffer, 0, 0,
                    strideS, buffer, 0, 0, strideS, buffer, 0, 0, strideS,
                    nullptr, 0, 0, 0, nullptr, 1.0f, causal);
    mgpuStreamSynchronize(nullptr);
    return gErrors.empty() ? std::string() : gErrors.front();
  };
  EXPECT_NE(call(AMP_DTYPE_F32, 16, 16, buffer, 0)
                .find("ampGpuAttention: invalid dtype f32 (expected f16 or "
                      "bf16: cuDNN's fused attention)"),
            std::string::npos);
  EXPECT_NE(call(AMP_DTYPE_F16, 12, 16, buffer, 0)
                .find("headDim = 12 is not a multiple of 8 up to 128"),
            std::string::npos);
  EXPECT_NE(call(AMP_DTYPE_F16, 16, 20, buffer, 0)
                .find("q's sequence stride 20 is not a multiple of 8"),
            std::string::npos);
  EXPECT_NE(call(AMP_DTYPE_F16, 16, 16, nullptr, 0).find("q is NULL"),
            std::string::npos);
  EXPECT_NE(call(AMP_DTYPE_F16, 16, 16, buffer, 2)
                .find("invalid causal = 2 (expected 0 or 1)"),
            std::string::npos);
  gErrors.clear();
  mgpuMemFree(buffer, nullptr);
}

/// ampGpuAttentionBackward of `g` after ampGpuAttention (its out and
/// stats): dOut dense (b x h x s x d), dq, dk and dv written where a
/// projection's gradient goes (one b x s x 3 x h x d buffer, as q, k and v
/// are read), against the gradients of the softmax written here in double
/// from the same rounded inputs, independent of out and stats:
///   P = softmax(S), dV = P^T dOut, dP = dOut V^T,
///   D[i] = sum_j P[i,j] dP[i,j] (= dOut[i,:].out[i,:] for the exact out),
///   dS = P o (dP - D), dQ = scale dS K, dK = scale dS^T Q.
/// Each element within 2u (u = 2^-10 for f16, 2^-7 for bf16: one ulp at 1)
/// of itself plus the largest |element| of its tensor. The one rounding of
/// the result is u/2 of the element. cuDNN (and the CPU twin) compute D
/// from the forward's rounded out, whose rounding (u/2 of each element)
/// moves every dS of its row by P * dOut.(out - exact out): through dq and
/// dk a fraction of u of the gradient's scale (the CPU twin's worst element
/// here is 0.33u (|ref| + max|ref|)). A flash-attention kernel may also
/// round P and dS to the 16-bit type for its tensor-core products (u/2 of
/// each term, summed over a row or column: about u/2 of the gradient's
/// scale), and sums in f32 with an f32 log-sum-exp and exp (far below u).
/// A missing scale, a transposed product, a dropped D or a mask not applied
/// is off by the gradient's scale, hundreds of times the bound for f16 and
/// dozens for bf16. The buffer is filled with 3 first: rows past a sequence
/// keep it (nothing written outside the views) and the views must not add
/// to it (overwritten, not accumulated).
void checkAttentionBackward(const AttentionCase &g, unsigned seed) {
  SCOPED_TRACE(describe(g));
  int64_t b = g.batch, h = g.heads, d = g.headDim, sq = g.seqQ, skv = g.seqKV;
  std::mt19937 random(seed);
  AttentionInputs in(g, random);
  DeviceArray out(g.type, b * sq * h * d), dOut(g.type, b * h * sq * d);
  std::uniform_real_distribution<float> pick(-1.0f, 1.0f);
  for (float &value : dOut.values)
    value = roundTo(g.type, pick(random));
  dOut.upload();
  const float kUnwritten = 3.0f;
  DeviceArray grads(g.type, in.qkv.values.size());
  std::fill(grads.values.begin(), grads.values.end(), kUnwritten);
  grads.upload();
  float *stats = static_cast<float *>(
      mgpuMemAlloc(b * h * sq * sizeof(float), nullptr, false));
  in.runForward(out, stats);
  ampGpuAttentionBackward(
      b, h, sq, skv, d, g.type, in.qkv.at(0), in.strideB(), in.strideH(),
      in.strideS(), in.qkv.at(h * d), in.strideB(), in.strideH(), in.strideS(),
      in.qkv.at(2 * h * d), in.strideB(), in.strideH(), in.strideS(),
      out.device, sq * h * d, d, h * d, dOut.device, h * sq * d, sq * d, d,
      stats, grads.at(0), in.strideB(), in.strideH(), in.strideS(),
      grads.at(h * d), in.strideB(), in.strideH(), in.strideS(),
      grads.at(2 * h * d), in.strideB(), in.strideH(), in.strideS(),
      in.biasPointer(), in.biasStrideB(), 0, skv, in.scale, g.causal);
  mgpuStreamSynchronize(nullptr);
  mgpuMemFree(stats, nullptr);
  ASSERT_TRUE(gErrors.empty()) << gErrors.front();
  std::vector<float> actual = grads.download();

  // The reference gradients, in the buffer's layout (kUnwritten outside
  // the views).
  std::vector<double> expected(actual.size(), kUnwritten);
  auto gradOf = [&](int part, int64_t n, int64_t s, int64_t head,
                    int64_t e) -> double & {
    return expected[in.index(part, n, s, head, e)];
  };
  auto dOutOf = [&](int64_t n, int64_t head, int64_t i, int64_t e) {
    return double(dOut.values[((n * h + head) * sq + i) * d + e]);
  };
  std::vector<double> p(sq * skv), ds(sq * skv), row(skv);
  for (int64_t n = 0; n < b; ++n) {
    for (int64_t head = 0; head < h; ++head) {
      for (int64_t i = 0; i < sq; ++i) {
        double largest, sum;
        in.softmaxRow(n, head, i, row, largest, sum);
        double rowDot = 0.0; // D[i]
        for (int64_t j = 0; j < skv; ++j) {
          p[i * skv + j] = row[j] / sum;
          double dp = 0.0;
          for (int64_t e = 0; e < d; ++e)
            dp += dOutOf(n, head, i, e) * in.value(2, n, j, head, e);
          ds[i * skv + j] = dp;
          rowDot += p[i * skv + j] * dp;
        }
        for (int64_t j = 0; j < skv; ++j)
          ds[i * skv + j] = p[i * skv + j] * (ds[i * skv + j] - rowDot);
      }
      for (int64_t e = 0; e < d; ++e) {
        for (int64_t i = 0; i < sq; ++i) {
          double acc = 0.0;
          for (int64_t j = 0; j < skv; ++j)
            acc += ds[i * skv + j] * in.value(1, n, j, head, e);
          gradOf(0, n, i, head, e) = in.scale * acc;
        }
        for (int64_t j = 0; j < skv; ++j) {
          double dk = 0.0, dv = 0.0;
          for (int64_t i = 0; i < sq; ++i) {
            dk += ds[i * skv + j] * in.value(0, n, i, head, e);
            dv += p[i * skv + j] * dOutOf(n, head, i, e);
          }
          gradOf(1, n, j, head, e) = in.scale * dk;
          gradOf(2, n, j, head, e) = dv;
        }
      }
    }
  }
  double ulp = g.type == AMP_DTYPE_F16 ? 1.0 / 1024 : 1.0 / 128;
  static const char *const kNames[] = {"dq", "dk", "dv"};
  double largest[3] = {0.0, 0.0, 0.0};
  auto partOf = [&](size_t index) { return int(index % in.row / (h * d)); };
  for (size_t i = 0; i < expected.size(); ++i)
    if (expected[i] != kUnwritten)
      largest[partOf(i)] = std::max(largest[partOf(i)], std::fabs(expected[i]));
  int64_t wrong = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    int part = partOf(i);
    double bound = 2 * ulp * (std::fabs(expected[i]) + largest[part]);
    if (!(std::fabs(actual[i] - expected[i]) <= bound) && wrong++ < 8)
      ADD_FAILURE() << kNames[part] << " element " << i << " (row "
                    << i % in.strideB() / in.row << ") = " << actual[i]
                    << ", expected " << expected[i] << " (largest "
                    << largest[part] << ")";
  }
  EXPECT_EQ(wrong, 0) << "elements that differ";
}

TEST_F(Contract, AttentionBackwardMatchesTheGradients) {
  unsigned seed = 101;
  for (int32_t type : {AMP_DTYPE_F16, AMP_DTYPE_BF16}) {
    if (type == AMP_DTYPE_BF16 && ampGpuComputeCapability() != 0 &&
        ampGpuComputeCapability() < 80)
      continue;
    for (bool causal : {false, true})
      for (int biasKind : {0, 1, 2})
        checkAttentionBackward({2, 3, 40, 40, 64, type, causal, biasKind,
                                /*stats=*/true},
                               seed++);
    // Queries and keys of different lengths, a small head: without a mask,
    // and causal (the keys past the last query get no gradient: dk and dv
    // are written as zeros there).
    checkAttentionBackward({2, 2, 24, 56, 32, type, false, 2, true}, seed++);
    checkAttentionBackward({2, 2, 24, 56, 32, type, true, 1, true}, seed++);
  }
}

TEST_F(Contract, AttentionBackwardChecksItsArguments) {
  void *buffer = mgpuMemAlloc(4096, nullptr, false);
  const float *stats =
      static_cast<const float *>(mgpuMemAlloc(64, nullptr, false));
  // Every sequence stride 16 but dv's.
  auto call = [&](int32_t type, int64_t seq, int64_t headDim, int64_t dvStrideS,
                  const float *statsPointer) {
    gErrors.clear();
    ampGpuAttentionBackward(1, 1, seq, seq, headDim, type, buffer, 0, 0, 16,
                            buffer, 0, 0, 16, buffer, 0, 0, 16, buffer, 0, 0,
                            16, buffer, 0, 0, 16, statsPointer, buffer, 0, 0,
                            16, buffer, 0, 0, 16, buffer, 0, 0, dvStrideS,
                            nullptr, 0, 0, 0, 1.0f, 0);
    mgpuStreamSynchronize(nullptr);
    return gErrors.empty() ? std::string() : gErrors.front();
  };
  EXPECT_NE(call(AMP_DTYPE_F32, 4, 16, 16, stats)
                .find("ampGpuAttentionBackward: invalid dtype f32 (expected "
                      "f16 or bf16: cuDNN's fused attention)"),
            std::string::npos);
  EXPECT_NE(call(AMP_DTYPE_F16, 4, 12, 16, stats)
                .find("ampGpuAttentionBackward: headDim = 12 is not a "
                      "multiple of 8 up to 128"),
            std::string::npos);
  EXPECT_NE(call(AMP_DTYPE_F16, 4, 16, 16, nullptr)
                .find("ampGpuAttentionBackward: stats is NULL"),
            std::string::npos);
  EXPECT_NE(call(AMP_DTYPE_F16, 4, 16, 16, stats + 1)
                .find("ampGpuAttentionBackward: stats = "),
            std::string::npos);
  EXPECT_NE(call(AMP_DTYPE_F16, 4, 16, 20, stats)
                .find("ampGpuAttentionBackward: dv's sequence stride 20 is "
                      "not a multiple of 8 elements"),
            std::string::npos);
  EXPECT_NE(call(AMP_DTYPE_F16, 1, 16, 16, stats)
                .find("ampGpuAttentionBackward: seqQ = seqKV = 1 is "
                      "unsupported"),
            std::string::npos);
  gErrors.clear();
  mgpuMemFree(buffer, nullptr);
  mgpuMemFree(const_cast<float *>(stats), nullptr);
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

struct ConvCase {
  int32_t layout;
  int64_t n, c, h, w, f, kh, kw, pad_h, pad_w, stride_h, stride_w, dil_h, dil_w;
  int32_t xType, yType;
  float beta;
  /// Each group: c/groups input channels into f/groups outputs; the filter
  /// has c/groups channels.
  int64_t groups = 1;
  int64_t outH() const {
    return (h + 2 * pad_h - dil_h * (kh - 1) - 1) / stride_h + 1;
  }
  int64_t outW() const {
    return (w + 2 * pad_w - dil_w * (kw - 1) - 1) / stride_w + 1;
  }
};

/// Where element (n, c, y, x) of `g`'s input, (f, c', r, s) of its filter
/// (c' < c/groups) and (n, f, y, x) of its output lie in its layout: NCHW/
/// FCHW, NHWC/HWCF (which the runtime turns into cuDNN's KRSC) or NHWC/FHWC
/// (KRSC itself).
struct ConvIndex {
  explicit ConvIndex(const ConvCase &g)
      : g(g), nchw(g.layout == AMP_CONV_NCHW_FCHW),
        hwcf(g.layout == AMP_CONV_NHWC_HWCF), groupC(g.c / g.groups),
        oh(g.outH()), ow(g.outW()) {}
  int64_t x(int64_t n, int64_t c, int64_t y, int64_t x) const {
    return nchw ? ((n * g.c + c) * g.h + y) * g.w + x
                : ((n * g.h + y) * g.w + x) * g.c + c;
  }
  int64_t w(int64_t f, int64_t c, int64_t r, int64_t s) const {
    return nchw   ? ((f * groupC + c) * g.kh + r) * g.kw + s
           : hwcf ? ((r * g.kw + s) * groupC + c) * g.f + f
                  : ((f * g.kh + r) * g.kw + s) * groupC + c;
  }
  int64_t y(int64_t n, int64_t f, int64_t y, int64_t x) const {
    return nchw ? ((n * g.f + f) * oh + y) * ow + x
                : ((n * oh + y) * ow + x) * g.f + f;
  }
  const ConvCase &g;
  bool nchw, hwcf;
  int64_t groupC, oh, ow;
};

/// Output element (n, f, oy, ox) of `g`'s convolution of `x` by `wt` (in
/// `g.layout`'s index order, groups included) by the definition, in double,
/// and the sum of its terms' magnitudes in `magnitude`.
double convReference(const ConvCase &g, const ConvIndex &at,
                     const std::vector<float> &x, const std::vector<float> &wt,
                     int64_t n, int64_t f, int64_t oy, int64_t ox,
                     double &magnitude) {
  int64_t groupC = g.c / g.groups, groupF = g.f / g.groups;
  double sum = 0;
  magnitude = 0;
  // Filter channel c of f: input channel c of f's group.
  for (int64_t c = 0; c < groupC; ++c)
    for (int64_t r = 0; r < g.kh; ++r)
      for (int64_t s = 0; s < g.kw; ++s) {
        int64_t iy = oy * g.stride_h - g.pad_h + r * g.dil_h;
        int64_t ix = ox * g.stride_w - g.pad_w + s * g.dil_w;
        if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w)
          continue;
        int64_t channel = (f / groupF) * groupC + c;
        double term = static_cast<double>(x[at.x(n, channel, iy, ix)]) *
                      wt[at.w(f, c, r, s)];
        sum += term;
        magnitude += std::fabs(term);
      }
  return sum;
}

/// Whether a convolution's output `actual` (of `yType`) is its exact value
/// `sum`, rounded to yType, within a tolerance relative to `magnitude`, the
/// sum of its terms' magnitudes: for an f32 output a few f32 roundings of
/// the terms' scale; for a 16-bit one a rounding of the result plus that.
bool isConvOutputNear(int32_t yType, float actual, double sum,
                      double magnitude) {
  double unit = yType == AMP_DTYPE_F32   ? 0x1p-20
                : yType == AMP_DTYPE_F16 ? 0x1p-10
                                         : 0x1p-7;
  double tolerance = unit * (std::fabs(sum) + 1) + 0x1p-18 * magnitude;
  return std::fabs(actual - roundTo(yType, sum)) <= tolerance;
}

/// y = conv(x, wt) + beta y in `g.layout`'s index order, by the definition;
/// compares with a tolerance relative to the sum of |terms| (cuDNN may pick
/// Winograd or FFT algorithms, which round intermediate values).
void checkConv(const ConvCase &g, unsigned seed) {
  int64_t oh = g.outH(), ow = g.outW();
  int64_t groupC = g.c / g.groups;
  ConvIndex at(g);
  std::mt19937 random(seed);
  DeviceArray x(g.xType, g.n * g.c * g.h * g.w);
  DeviceArray wt(g.xType, g.f * groupC * g.kh * g.kw);
  DeviceArray y(g.yType, g.n * g.f * oh * ow);
  x.fillIntegers(random, 3);
  wt.fillIntegers(random, 2);
  y.fillIntegers(random, 4);
  x.upload();
  wt.upload();
  y.upload();
  ampGpuConv2d(g.layout, g.n, g.c, g.h, g.w, g.f, g.kh, g.kw, oh, ow, g.pad_h,
               g.pad_w, g.stride_h, g.stride_w, g.dil_h, g.dil_w, g.groups,
               x.device, g.xType, wt.device, g.xType, y.device, g.yType,
               g.beta);
  mgpuStreamSynchronize(nullptr);
  ASSERT_TRUE(gErrors.empty()) << gErrors.front();
  std::vector<float> actual = y.download();
  int64_t wrong = 0;
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t f = 0; f < g.f; ++f)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          double magnitude;
          double sum = convReference(g, at, x.values, wt.values, n, f, oy, ox,
                                     magnitude);
          int64_t index = at.y(n, f, oy, ox);
          sum += g.beta * static_cast<double>(y.values[index]);
          magnitude += std::fabs(g.beta * y.values[index]);
          if (!isConvOutputNear(g.yType, actual[index], sum, magnitude) &&
              wrong++ < 5)
            ADD_FAILURE() << "y[" << n << "," << f << "," << oy << "," << ox
                          << "] = " << actual[index] << ", expected "
                          << roundTo(g.yType, sum);
        }
  EXPECT_EQ(wrong, 0) << "outputs that differ";
}

TEST_F(Contract, ConvNhwcFilterTransform) {
  for (int32_t type : {AMP_DTYPE_F32, AMP_DTYPE_F16}) {
    // Unequal kernel sides, channels and strides, a dilation: a filter read
    // in the wrong order (HWCF as KRSC, or C and F swapped) shows.
    ConvCase g{
        AMP_CONV_NHWC_HWCF, 2,   3, 9, 7, 5, 3, 2, 1, 1, 2, 1, 1, 2, type,
        AMP_DTYPE_F32,      0.0f};
    checkConv(g, 41 + type);
    g.beta = 1.0f;
    checkConv(g, 51 + type);
    g.yType = type;
    g.beta = 0.0f;
    checkConv(g, 61 + type);
  }
}

TEST_F(Contract, ConvNchwBesideNhwc) {
  ConvCase g{AMP_CONV_NCHW_FCHW,
             2,
             4,
             10,
             8,
             6,
             2,
             3,
             1,
             1,
             1,
             2,
             2,
             1,
             AMP_DTYPE_F16,
             AMP_DTYPE_F32,
             0.0f};
  checkConv(g, 71);
  g.xType = AMP_DTYPE_F32;
  checkConv(g, 72);
}

TEST_F(Contract, ConvAlgorithmChoiceAndWorkspace) {
  // Big enough that cuDNN's faster algorithms (which need a workspace) are
  // candidates: heuristics, then exhaustive search, then heuristics again
  // (a cached choice per shape), each against the loop.
  ConvCase g{AMP_CONV_NHWC_HWCF,
             4,
             32,
             20,
             20,
             48,
             3,
             3,
             1,
             1,
             1,
             1,
             1,
             1,
             AMP_DTYPE_F16,
             AMP_DTYPE_F32,
             0.0f};
  ampGpuSetConvExhaustiveSearch(0);
  checkConv(g, 81);
  ampGpuSetConvExhaustiveSearch(1);
  checkConv(g, 82);
  g.layout = AMP_CONV_NCHW_FCHW;
  checkConv(g, 83);
  g.yType = AMP_DTYPE_F16;
  checkConv(g, 84);
  ampGpuSetConvExhaustiveSearch(0);
  checkConv(g, 85);
}

//===----------------------------------------------------------------------===//
// Convolution gradients
//===----------------------------------------------------------------------===//

/// Both gradients of the NCHW convolution `g` (dx from dy and wt, dw from x
/// and dy, each plus beta times its old value; NaN there when beta is 0)
/// against the definition: every term of the forward convolution scattered
/// into the elements of dx and dw it contributes to. Integer data, so that
/// the sums are exact.
void checkConvBackward(const ConvCase &g, unsigned seed) {
  ASSERT_NE(g.layout, AMP_CONV_NHWC_HWCF);
  ConvIndex at(g);
  SCOPED_TRACE("layout " + std::to_string(g.layout) + " types " +
               std::to_string(g.xType) + " -> " + std::to_string(g.yType) +
               " beta " + std::to_string(g.beta));
  int64_t oh = g.outH(), ow = g.outW();
  int64_t groupC = g.c / g.groups, groupF = g.f / g.groups;
  std::mt19937 random(seed);
  DeviceArray x(g.xType, g.n * g.c * g.h * g.w);
  DeviceArray wt(g.xType, g.f * groupC * g.kh * g.kw);
  DeviceArray dy(g.xType, g.n * g.f * oh * ow);
  DeviceArray dx(g.yType, x.values.size()), dw(g.yType, wt.values.size());
  x.fillIntegers(random, 3);
  wt.fillIntegers(random, 2);
  dy.fillIntegers(random, 2);
  dx.fillIntegers(random, 4);
  dw.fillIntegers(random, 4);
  const std::vector<float> dxBefore = dx.values, dwBefore = dw.values;
  if (g.beta == 0.0f) {
    std::fill(dx.values.begin(), dx.values.end(), NAN);
    std::fill(dw.values.begin(), dw.values.end(), NAN);
  }
  for (DeviceArray *array : {&x, &wt, &dy, &dx, &dw})
    array->upload();
  ampGpuConv2dBackwardData(g.layout, g.n, g.c, g.h, g.w, g.f, g.kh, g.kw, oh,
                           ow, g.pad_h, g.pad_w, g.stride_h, g.stride_w,
                           g.dil_h, g.dil_w, g.groups, dy.device, g.xType,
                           wt.device, g.xType, dx.device, g.yType, g.beta);
  ampGpuConv2dBackwardFilter(g.layout, g.n, g.c, g.h, g.w, g.f, g.kh, g.kw, oh,
                             ow, g.pad_h, g.pad_w, g.stride_h, g.stride_w,
                             g.dil_h, g.dil_w, g.groups, x.device, g.xType,
                             dy.device, g.xType, dw.device, g.yType, g.beta);
  mgpuStreamSynchronize(nullptr);
  ASSERT_TRUE(gErrors.empty()) << gErrors.front();
  std::vector<double> dxSum(dx.values.size(), 0), dwSum(dw.values.size(), 0),
      dxMagnitude(dxSum.size(), 0), dwMagnitude(dwSum.size(), 0);
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t f = 0; f < g.f; ++f)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox)
          for (int64_t c = 0; c < groupC; ++c)
            for (int64_t r = 0; r < g.kh; ++r)
              for (int64_t s = 0; s < g.kw; ++s) {
                int64_t iy = oy * g.stride_h - g.pad_h + r * g.dil_h;
                int64_t ix = ox * g.stride_w - g.pad_w + s * g.dil_w;
                if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w)
                  continue;
                // Filter channel c of f: input channel c of f's group.
                int64_t channel = (f / groupF) * groupC + c;
                size_t xi = at.x(n, channel, iy, ix);
                size_t wi = at.w(f, c, r, s);
                double grad = dy.values[at.y(n, f, oy, ox)];
                dxSum[xi] += grad * wt.values[wi];
                dxMagnitude[xi] += std::fabs(grad * wt.values[wi]);
                dwSum[wi] += grad * x.values[xi];
                dwMagnitude[wi] += std::fabs(grad * x.values[xi]);
              }
  // As checkConv: f32 output, a few f32 roundings of the terms' scale;
  // 16-bit, one rounding of the result plus that.
  double unit = g.yType == AMP_DTYPE_F32   ? 0x1p-20
                : g.yType == AMP_DTYPE_F16 ? 0x1p-10
                                           : 0x1p-7;
  auto compare = [&](const char *what, const std::vector<float> &actual,
                     const std::vector<float> &before,
                     const std::vector<double> &sum,
                     const std::vector<double> &magnitude) {
    int64_t wrong = 0;
    for (size_t i = 0; i < actual.size(); ++i) {
      double total = sum[i] + (g.beta != 0.0f ? g.beta * before[i] : 0.0);
      double expected = roundTo(g.yType, total);
      double tolerance =
          unit * (std::fabs(total) + 1) +
          0x1p-18 * (magnitude[i] + std::fabs(g.beta * before[i]));
      if (!(std::fabs(actual[i] - expected) <= tolerance) && wrong++ < 5)
        ADD_FAILURE() << what << "[" << i << "] = " << actual[i]
                      << ", expected " << expected;
    }
    EXPECT_EQ(wrong, 0) << what << ": outputs that differ";
  };
  compare("dx", dx.download(), dxBefore, dxSum, dxMagnitude);
  compare("dw", dw.download(), dwBefore, dwSum, dwMagnitude);
}

/// Whether bf16 can run here (sm_80 and later, or the simulator).
bool hasBf16() {
  int capability = ampGpuComputeCapability();
  return capability == 0 || capability >= 80;
}

TEST_F(Contract, ConvBackwardTypesAndBeta) {
  // Unequal kernel sides, strides and dilations, padding 1: a filter or
  // gradient read in the wrong order shows. f32, f16 and bf16 inputs into
  // an f32 output (the 16-bit ones widened) and into their own type.
  ConvCase g{AMP_CONV_NCHW_FCHW,
             2,
             3,
             9,
             7,
             5,
             3,
             2,
             1,
             1,
             2,
             1,
             1,
             2,
             AMP_DTYPE_F32,
             AMP_DTYPE_F32,
             0.0f};
  unsigned seed = 91;
  for (int32_t type : {AMP_DTYPE_F32, AMP_DTYPE_F16, AMP_DTYPE_BF16}) {
    if (type == AMP_DTYPE_BF16 && !hasBf16())
      continue;
    for (int32_t out : {int32_t(AMP_DTYPE_F32), type}) {
      for (float beta : {0.0f, 1.0f}) {
        g.xType = type;
        g.yType = out;
        g.beta = beta;
        checkConvBackward(g, seed++);
      }
      if (out == type)
        break; // f32 -> f32 once
    }
  }
}

TEST_F(Contract, ConvBackwardWindowsThatMissRows) {
  // Stride 3 over a 2x2 kernel: rows and columns 2 and 5 of x are under no
  // window (their dx is beta times the old value).
  ConvCase g{AMP_CONV_NCHW_FCHW,
             2,
             2,
             8,
             8,
             3,
             2,
             2,
             0,
             0,
             3,
             3,
             1,
             1,
             AMP_DTYPE_F16,
             AMP_DTYPE_F32,
             1.0f};
  checkConvBackward(g, 101);
  g.beta = 0.0f;
  g.pad_h = g.pad_w = 2;
  g.dil_h = 2;
  checkConvBackward(g, 102);
}

TEST_F(Contract, ConvBackwardAlgorithmChoiceAndWorkspace) {
  // Big enough that cuDNN's faster algorithms (which need a workspace) are
  // candidates: heuristics, then exhaustive search, then heuristics again
  // (a cached choice per shape), each against the definition.
  ConvCase g{AMP_CONV_NCHW_FCHW,
             4,
             32,
             20,
             20,
             48,
             3,
             3,
             1,
             1,
             1,
             1,
             1,
             1,
             AMP_DTYPE_F16,
             AMP_DTYPE_F32,
             0.0f};
  ampGpuSetConvExhaustiveSearch(0);
  checkConvBackward(g, 111);
  ampGpuSetConvExhaustiveSearch(1);
  checkConvBackward(g, 112);
  g.yType = AMP_DTYPE_F16;
  checkConvBackward(g, 113);
  g.xType = g.yType = AMP_DTYPE_F32;
  checkConvBackward(g, 114);
  ampGpuSetConvExhaustiveSearch(0);
  checkConvBackward(g, 115);
}

TEST_F(Contract, GroupedAndDepthwiseConvolutions) {
  // Two groups (c = 6, f = 4), and depthwise ones (groups = c) with
  // channel multipliers 1 and 2: the filter of c/groups channels, in both
  // layouts (NHWC: the HWCF -> KRSC transform of c/groups channels), and
  // both gradients; heuristics and exhaustive search.
  for (int exhaustive : {0, 1}) {
    ampGpuSetConvExhaustiveSearch(exhaustive);
    unsigned seed = 121 + 20 * exhaustive;
    for (int32_t layout : {AMP_CONV_NCHW_FCHW, AMP_CONV_NHWC_HWCF})
      for (int32_t type : {AMP_DTYPE_F32, AMP_DTYPE_F16}) {
        ConvCase grouped{layout, 2, 6, 9, 7, 4,    3,    2,   1,
                         1,      2, 1, 1, 2, type, type, 1.0f};
        grouped.groups = 2;
        checkConv(grouped, seed++);
        ConvCase depthwise{layout, 2, 8, 12, 12, 8, 7,    7,
                           3,      3, 1, 1,  1,  1, type, AMP_DTYPE_F32,
                           0.0f};
        depthwise.groups = 8;
        checkConv(depthwise, seed++);
        depthwise.f = 16;
        depthwise.stride_h = depthwise.stride_w = 2;
        depthwise.kh = depthwise.kw = 3;
        depthwise.pad_h = depthwise.pad_w = 1;
        checkConv(depthwise, seed++);
        if (layout != AMP_CONV_NCHW_FCHW)
          continue;
        checkConvBackward(grouped, seed++);
        depthwise.beta = 1.0f;
        checkConvBackward(depthwise, seed++);
      }
  }
  ampGpuSetConvExhaustiveSearch(0);
}

/// ampGpuConv2dEpilogue of `g` (groups 1, beta unused) on integer data:
/// y = act(conv * scale[f] + bias[f] + residual) against the definition,
/// with scale in {-1, 0.5, 1, 2} (exact), a bias and a residual of small
/// integers, each present as the flags say; the tolerance is checkConv's.
/// `mayRefuse`: cuDNN may have no engine for the graph (NCHW): then the
/// call's error must be the fused convolution's, and nothing is compared.
void checkConvEpilogue(const ConvCase &g, int32_t epilogue, bool withScale,
                       bool withBias, bool withResidual, unsigned seed,
                       bool mayRefuse = false) {
  SCOPED_TRACE("layout " + std::to_string(g.layout) + " types " +
               std::to_string(g.xType) + " -> " + std::to_string(g.yType) +
               " epilogue " + std::to_string(epilogue) + " scale " +
               std::to_string(withScale) + " bias " + std::to_string(withBias) +
               " residual " + std::to_string(withResidual));
  int64_t oh = g.outH(), ow = g.outW();
  ConvIndex at(g);
  std::mt19937 random(seed);
  DeviceArray x(g.xType, g.n * g.c * g.h * g.w);
  DeviceArray wt(g.xType, g.f * g.c * g.kh * g.kw);
  DeviceArray y(g.yType, g.n * g.f * oh * ow);
  DeviceArray residual(g.yType, g.n * g.f * oh * ow);
  DeviceArray scale(AMP_DTYPE_F32, g.f), bias(AMP_DTYPE_F32, g.f);
  x.fillIntegers(random, 3);
  wt.fillIntegers(random, 2);
  y.fillIntegers(random, 4); // Overwritten, never read.
  residual.fillIntegers(random, 4);
  bias.fillIntegers(random, 8);
  const float scales[] = {-1.0f, 0.5f, 1.0f, 2.0f};
  for (float &value : scale.values)
    value = scales[random() % 4];
  for (DeviceArray *array : {&x, &wt, &y, &residual, &scale, &bias})
    array->upload();
  ampGpuConv2dEpilogue(
      g.layout, g.n, g.c, g.h, g.w, g.f, g.kh, g.kw, oh, ow, g.pad_h, g.pad_w,
      g.stride_h, g.stride_w, g.dil_h, g.dil_w, 1, x.device, g.xType, wt.device,
      g.xType, y.device, g.yType, epilogue,
      withScale ? static_cast<const float *>(scale.device) : nullptr,
      withBias ? static_cast<const float *>(bias.device) : nullptr,
      withResidual ? residual.device : nullptr);
  mgpuStreamSynchronize(nullptr);
  if (mayRefuse && !gErrors.empty()) {
    EXPECT_NE(
        gErrors.front().find("ampGpuConv2dEpilogue: cuDNN fused convolution: "),
        std::string::npos)
        << gErrors.front();
    gErrors.clear();
    return;
  }
  ASSERT_TRUE(gErrors.empty()) << gErrors.front();
  std::vector<float> actual = y.download();
  int64_t wrong = 0;
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t f = 0; f < g.f; ++f)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          double magnitude;
          double sum = convReference(g, at, x.values, wt.values, n, f, oy, ox,
                                     magnitude);
          int64_t index = at.y(n, f, oy, ox);
          if (withScale) {
            sum *= scale.values[f];
            magnitude *= std::fabs(scale.values[f]);
          }
          if (withBias)
            sum += bias.values[f];
          if (withResidual)
            sum += residual.values[index];
          if (epilogue == AMP_CONV_EPILOGUE_SCALE_BIAS_RELU && sum < 0)
            sum = 0;
          if (!isConvOutputNear(g.yType, actual[index], sum, magnitude) &&
              wrong++ < 5)
            ADD_FAILURE() << "y[" << n << "," << f << "," << oy << "," << ox
                          << "] = " << actual[index] << ", expected "
                          << roundTo(g.yType, sum);
        }
  EXPECT_EQ(wrong, 0) << "outputs that differ";
}

TEST_F(Contract, ConvEpilogueScalesBiasesAddsAndRectifies) {
  // NHWC/FHWC (amp-channels-last's form, which cuDNN's fusion engines take):
  // ResNet's conv-BN-ReLU (scale, bias, ReLU) and conv-BN-add-ReLU (with
  // the residual), a bias alone, and a scale alone without the ReLU;
  // 16-bit io into its own type and into f32, and f32. Unequal sides,
  // strides and a dilation; channels multiples of 8 (Tensor Cores).
  unsigned seed = 301;
  for (int32_t type : {AMP_DTYPE_F16, AMP_DTYPE_BF16, AMP_DTYPE_F32}) {
    if (type == AMP_DTYPE_BF16 && !hasBf16())
      continue;
    for (int32_t yType : {type, int32_t(AMP_DTYPE_F32)}) {
      if (type == AMP_DTYPE_F32 && yType != type)
        continue;
      ConvCase g{AMP_CONV_NHWC_FHWC,
                 2,
                 8,
                 9,
                 7,
                 16,
                 3,
                 3,
                 1,
                 1,
                 2,
                 1,
                 1,
                 1,
                 type,
                 yType,
                 0.0f};
      const int32_t relu = AMP_CONV_EPILOGUE_SCALE_BIAS_RELU,
                    plain = AMP_CONV_EPILOGUE_SCALE_BIAS;
      checkConvEpilogue(g, relu, true, true, false, seed++);
      checkConvEpilogue(g, relu, true, true, true, seed++);
      checkConvEpilogue(g, plain, false, true, false, seed++);
      checkConvEpilogue(g, plain, true, false, true, seed++);
      ConvCase dilated = g;
      dilated.kh = 1;
      dilated.stride_h = 1;
      dilated.dil_w = 2;
      checkConvEpilogue(dilated, relu, true, true, true, seed++);
    }
  }
}

TEST_F(Contract, ConvEpilogueNchw) {
  // NCHW/FCHW: the same graph on NCHW tensors, for which cuDNN may have no
  // fusion engine (then the call says so; the compiler emits this call for
  // NHWC only). In the simulator, computed.
  for (int32_t type : {AMP_DTYPE_F16, AMP_DTYPE_F32}) {
    ConvCase g{AMP_CONV_NCHW_FCHW,
               2,
               8,
               6,
               6,
               8,
               3,
               3,
               1,
               1,
               1,
               1,
               1,
               1,
               type,
               type,
               0.0f};
    checkConvEpilogue(g, AMP_CONV_EPILOGUE_SCALE_BIAS_RELU, true, true, true,
                      331 + type, /*mayRefuse=*/ampGpuComputeCapability() != 0);
  }
}

TEST_F(Contract, ConvEpilogueChecksItsArguments) {
  void *x = mgpuMemAlloc(64 * 4, nullptr, false);
  void *y = mgpuMemAlloc(64 * 4, nullptr, false);
  void *r = mgpuMemAlloc(64 * 4, nullptr, false);
  void *v = mgpuMemAlloc(8 * 4, nullptr, false);
  // A 1 x 2 x 2 x 2 input, a 1x1 filter of 2 channels into 2.
  auto call = [&](int32_t layout, int64_t groups, int32_t type,
                  int32_t epilogue, const void *scale, const void *residual) {
    gErrors.clear();
    ampGpuConv2dEpilogue(layout, 1, 2, 2, 2, 2, 1, 1, 2, 2, 0, 0, 1, 1, 1, 1,
                         groups, x, type, x, type, y, AMP_DTYPE_F32, epilogue,
                         static_cast<const float *>(scale),
                         static_cast<const float *>(v), residual);
    mgpuStreamSynchronize(nullptr);
    return gErrors.empty() ? std::string() : gErrors.front();
  };
  const int32_t nhwc = AMP_CONV_NHWC_FHWC, f32 = AMP_DTYPE_F32,
                relu = AMP_CONV_EPILOGUE_SCALE_BIAS_RELU;
  EXPECT_NE(call(nhwc, 1, f32, 0, v, r)
                .find("ampGpuConv2dEpilogue: invalid epilogue 0 (expected 1 = "
                      "AMP_CONV_EPILOGUE_SCALE_BIAS"),
            std::string::npos);
  EXPECT_NE(call(AMP_CONV_NHWC_HWCF, 1, f32, relu, v, r)
                .find("ampGpuConv2dEpilogue: layout 1 is unsupported"),
            std::string::npos);
  EXPECT_NE(call(nhwc, 2, f32, relu, v, r)
                .find("ampGpuConv2dEpilogue: groups = 2: the convolution with "
                      "an epilogue is ungrouped"),
            std::string::npos);
  EXPECT_NE(call(nhwc, 1, AMP_DTYPE_F8E4M3FN, relu, v, r)
                .find("ampGpuConv2dEpilogue: x and wt are f8E4M3FN"),
            std::string::npos);
  EXPECT_NE(call(nhwc, 1, f32, relu, static_cast<char *>(v) + 2, r)
                .find("ampGpuConv2dEpilogue: scale = "),
            std::string::npos);
  EXPECT_NE(call(nhwc, 1, f32, relu, v, y)
                .find("ampGpuConv2dEpilogue: residual is y"),
            std::string::npos);
  EXPECT_NE(call(nhwc, 1, f32, relu, v, static_cast<char *>(r) + 2)
                .find("is not aligned to its f32 (yType)"),
            std::string::npos);
  gErrors.clear();
  for (void *pointer : {x, y, r, v})
    mgpuMemFree(pointer, nullptr);
}

TEST_F(Contract, ConvChannelsLast) {
  // NHWC/FHWC, amp-channels-last's form: cuDNN's NHWC tensors and KRSC
  // filter read as they are, forward and both gradients. Unequal sides,
  // strides and a dilation (a filter read as HWCF, or C and F swapped,
  // shows), f32 and 16-bit inputs into f32 and their own type, two groups.
  unsigned seed = 161;
  for (int32_t type : {AMP_DTYPE_F32, AMP_DTYPE_F16, AMP_DTYPE_BF16}) {
    if (type == AMP_DTYPE_BF16 && !hasBf16())
      continue;
    ConvCase g{
        AMP_CONV_NHWC_FHWC, 2,   3, 9, 7, 5, 3, 2, 1, 1, 2, 1, 1, 2, type,
        AMP_DTYPE_F32,      0.0f};
    checkConv(g, seed++);
    checkConvBackward(g, seed++);
    g.yType = type;
    g.beta = 1.0f;
    checkConv(g, seed++);
    checkConvBackward(g, seed++);
    ConvCase grouped{AMP_CONV_NHWC_FHWC,
                     2,
                     6,
                     8,
                     8,
                     4,
                     3,
                     3,
                     1,
                     1,
                     1,
                     1,
                     1,
                     1,
                     type,
                     type,
                     0.0f};
    grouped.groups = 2;
    checkConv(grouped, seed++);
    checkConvBackward(grouped, seed++);
  }
}

//===----------------------------------------------------------------------===//
// Architecture
//===----------------------------------------------------------------------===//

/// The FP8 code of a small integer in [-2, 2]: E4M3 (bias 7) or E5M2
/// (bias 15), written out here.
uint8_t float8Code(int value, bool e5m2) {
  static const uint8_t e4m3[] = {0xc0, 0xb8, 0x00, 0x38, 0x40};
  static const uint8_t e5[] = {0xc0, 0xbc, 0x00, 0x3c, 0x40};
  return (e5m2 ? e5 : e4m3)[value + 2];
}

TEST_F(Contract, ScaledFloat8GemmScalesAndWritesBf16) {
  int capability = ampGpuComputeCapability();
  if (capability != 0 && capability < 89)
    GTEST_SKIP() << "FP8 GEMMs need sm_89; the device is sm_" << capability;
  // D_i (m x n, bf16, ldc > n) = aScale * bScale * A_i (m x k, E4M3)
  // B_i^T (B_i stored n x k, E5M2: cuBLASLt's TN layout), batch 2, with
  // integer values in [-2, 2]: sums up to 4k = 256 and scales that are
  // powers of two, exact in bf16, so D is exact.
  const int64_t batch = 2, m = 24, n = 32, k = 64;
  const int64_t lda = k + 16, ldb = k + 32, ldc = n + 8;
  const int64_t strideA = m * lda + 16, strideB = n * ldb, strideC = m * ldc;
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> small(-2, 2);
  std::vector<int> aValues(batch * strideA, 0), bValues(batch * strideB, 0);
  std::vector<uint8_t> aCodes(aValues.size()), bCodes(bValues.size());
  for (size_t i = 0; i < aValues.size(); ++i)
    aCodes[i] = float8Code(aValues[i] = small(rng), false);
  for (size_t i = 0; i < bValues.size(); ++i)
    bCodes[i] = float8Code(bValues[i] = small(rng), true);
  void *a = mgpuMemAlloc(aCodes.size(), nullptr, false);
  void *b = mgpuMemAlloc(bCodes.size(), nullptr, false);
  void *d = mgpuMemAlloc(batch * strideC * 2, nullptr, false);
  auto *scalars = static_cast<float *>(mgpuMemAlloc(16, nullptr, false));
  mgpuMemcpy(a, aCodes.data(), aCodes.size(), nullptr);
  mgpuMemcpy(b, bCodes.data(), bCodes.size(), nullptr);
  // D outside the views keeps its bits (0x7fc1, a NaN no result has).
  std::vector<uint16_t> dBits(batch * strideC, 0x7fc1);
  mgpuMemcpy(d, dBits.data(), dBits.size() * 2, nullptr);
  float hostScalars[4] = {0.5f, 0.25f, -1.0f, 0.0f};
  mgpuMemcpy(scalars, hostScalars, sizeof(hostScalars), nullptr);
  ampGpuScaledGemm(0, 1, batch, m, n, k, a, AMP_DTYPE_F8E4M3FN, lda, strideA, b,
                   AMP_DTYPE_F8E5M2, ldb, strideB, d, AMP_DTYPE_BF16, ldc,
                   strideC, 0.0f, scalars, scalars + 1, scalars + 2);
  mgpuStreamSynchronize(nullptr);
  mgpuMemcpy(dBits.data(), d, dBits.size() * 2, nullptr);
  float amax = 0;
  mgpuMemcpy(&amax, scalars + 2, 4, nullptr);
  float wantAmax = 0;
  for (int64_t t = 0; t < batch; ++t)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < ldc; ++j) {
        size_t index = t * strideC + i * ldc + j;
        if (j >= n) {
          EXPECT_EQ(dBits[index], 0x7fc1) << "written outside the view";
          continue;
        }
        int sum = 0;
        for (int64_t p = 0; p < k; ++p)
          sum += aValues[t * strideA + i * lda + p] *
                 bValues[t * strideB + j * ldb + p];
        float want = sum * 0.125f;
        wantAmax = std::max(wantAmax, std::fabs(want));
        EXPECT_EQ(fromBf16Bits(dBits[index]), want)
            << "batch " << t << " (" << i << ", " << j << ")";
      }
  EXPECT_EQ(amax, wantAmax);
  mgpuMemFree(a, nullptr);
  mgpuMemFree(b, nullptr);
  mgpuMemFree(d, nullptr);
  mgpuMemFree(scalars, nullptr);
}

TEST_F(Contract, ScaledFloat8GemmAmaxOfEveryOutputType) {
  int capability = ampGpuComputeCapability();
  if (capability != 0 && capability < 89)
    GTEST_SKIP() << "FP8 GEMMs need sm_89; the device is sm_" << capability;
  // D_i (m x n) = 1.5 * 2 * A_i (m x k, E4M3) B_i^T (B_i stored n x k,
  // E5M2) + beta C_i, values in [-1, 1] but for one row of A and one of B in
  // batch 1 whose product is -683: that D is -2049, exact in f32, which
  // bf16 and f16 both round to -2048 (a tie, to even). Every other |D| is
  // at most 3 * (170 * 2 + 6) + 2. The amax is 2049 whatever D's type: the
  // largest |D| of the f32 values before their rounding.
  const int64_t batch = 2, m = 5, n = 16, k = 176;
  const int64_t lda = k + 16, ldb = k, strideA = m * lda,
                strideB = n * ldb + 32;
  std::mt19937 rng(9);
  std::uniform_int_distribution<int> tiny(-1, 1);
  std::vector<int> aValues(batch * strideA), bValues(batch * strideB);
  for (int &value : aValues)
    value = tiny(rng);
  for (int &value : bValues)
    value = tiny(rng);
  const int64_t wantRow = 2, wantCol = 7;
  for (int64_t p = 0; p < k; ++p) {
    int big = p < 170 ? 2 : p < 173 ? 1 : 0;
    aValues[strideA + wantRow * lda + p] = big;
    bValues[strideB + wantCol * ldb + p] = -big;
  }
  std::vector<uint8_t> aCodes(aValues.size()), bCodes(bValues.size());
  for (size_t i = 0; i < aValues.size(); ++i)
    aCodes[i] = float8Code(aValues[i], false);
  for (size_t i = 0; i < bValues.size(); ++i)
    bCodes[i] = float8Code(bValues[i], true);
  void *a = mgpuMemAlloc(aCodes.size(), nullptr, false);
  void *b = mgpuMemAlloc(bCodes.size(), nullptr, false);
  auto *scalars = static_cast<float *>(mgpuMemAlloc(16, nullptr, false));
  mgpuMemcpy(a, aCodes.data(), aCodes.size(), nullptr);
  mgpuMemcpy(b, bCodes.data(), bCodes.size(), nullptr);
  float hostScalars[3] = {1.5f, 2.0f, -1.0f};
  mgpuMemcpy(scalars, hostScalars, sizeof(hostScalars), nullptr);
  // The exact f32 value of every D without C.
  auto product = [&](int64_t t, int64_t i, int64_t j) {
    int sum = 0;
    for (int64_t p = 0; p < k; ++p)
      sum += aValues[t * strideA + i * lda + p] *
             bValues[t * strideB + j * ldb + p];
    return 3.0f * static_cast<float>(sum);
  };
  ASSERT_EQ(product(1, wantRow, wantCol), -2049.0f);
  for (int32_t cType : {AMP_DTYPE_F32, AMP_DTYPE_BF16, AMP_DTYPE_F16})
    for (float beta : {0.0f, 1.0f}) {
      SCOPED_TRACE(testing::Message()
                   << "cType " << cType << ", beta " << beta);
      // 16 bytes of padding after each row and matrix of C.
      const int64_t pad = 16 / static_cast<int64_t>(bytesOf(cType));
      const int64_t ldc = n + pad, strideC = m * ldc + pad;
      // C: small integers in the view with beta 1 (0 where D is -2049),
      // NaN with beta 0 (not read); a NaN no result has around it.
      DeviceArray c(cType, batch * strideC);
      auto inView = [&](int64_t index) {
        return index % strideC < m * ldc && index % strideC % ldc < n;
      };
      for (int64_t index = 0; index < batch * strideC; ++index)
        c.values[index] = !inView(index) || beta == 0.0f
                              ? NAN
                              : static_cast<float>(index % 5) - 2.0f;
      c.values[strideC + wantRow * ldc + wantCol] = beta == 0.0f ? NAN : 0.0f;
      c.upload();
      std::vector<float> before = c.values;
      mgpuMemcpy(scalars + 2, &hostScalars[2], 4, nullptr);
      ampGpuScaledGemm(0, 1, batch, m, n, k, a, AMP_DTYPE_F8E4M3FN, lda,
                       strideA, b, AMP_DTYPE_F8E5M2, ldb, strideB, c.device,
                       cType, ldc, strideC, beta, scalars, scalars + 1,
                       scalars + 2);
      mgpuStreamSynchronize(nullptr);
      std::vector<float> got = c.download();
      float amax = 0;
      mgpuMemcpy(&amax, scalars + 2, 4, nullptr);
      for (int64_t index = 0; index < batch * strideC; ++index) {
        if (!inView(index)) {
          EXPECT_TRUE(std::isnan(got[index])) << "written outside the view";
          continue;
        }
        int64_t t = index / strideC, i = index % strideC / ldc,
                j = index % strideC % ldc;
        float exact =
            product(t, i, j) + (beta != 0.0f ? beta * before[index] : 0.0f);
        float want = cType == AMP_DTYPE_F32   ? exact
                     : cType == AMP_DTYPE_F16 ? fromHalfBits(toHalfBits(exact))
                                              : fromBf16Bits(toBf16Bits(exact));
        EXPECT_EQ(got[index], want)
            << "batch " << t << " (" << i << ", " << j << ")";
      }
      EXPECT_EQ(got[strideC + wantRow * ldc + wantCol],
                cType == AMP_DTYPE_F32 ? -2049.0f : -2048.0f);
      EXPECT_EQ(amax, 2049.0f);
    }
  // A NaN operand makes D's row NaN, and the amax NaN.
  aCodes[wantRow * lda + 3] = 0x7f; // E4M3FN NaN, batch 0
  mgpuMemcpy(a, aCodes.data(), aCodes.size(), nullptr);
  for (int32_t cType : {AMP_DTYPE_F32, AMP_DTYPE_BF16}) {
    const int64_t ldc = n, strideC = m * ldc;
    DeviceArray c(cType, batch * strideC);
    c.upload();
    ampGpuScaledGemm(0, 1, batch, m, n, k, a, AMP_DTYPE_F8E4M3FN, lda, strideA,
                     b, AMP_DTYPE_F8E5M2, ldb, strideB, c.device, cType, ldc,
                     strideC, 0.0f, scalars, scalars + 1, scalars + 2);
    mgpuStreamSynchronize(nullptr);
    std::vector<float> got = c.download();
    float amax = 0;
    mgpuMemcpy(&amax, scalars + 2, 4, nullptr);
    EXPECT_TRUE(std::isnan(got[wantRow * ldc])) << "cType " << cType;
    EXPECT_TRUE(std::isnan(amax)) << "cType " << cType << ": " << amax;
  }
  mgpuMemFree(a, nullptr);
  mgpuMemFree(b, nullptr);
  mgpuMemFree(scalars, nullptr);
}

/// Before sm_80 cuDNN has no fused attention: both calls say so (not
/// cuDNN's "no execution plan"); amp-fuse-attention makes no call there.
TEST_F(Contract, FusedAttentionRefusedBeforeSm80) {
  int capability = ampGpuComputeCapability();
  if (capability == 0)
    GTEST_SKIP() << "the simulator models no architecture";
  if (capability >= 80)
    GTEST_SKIP() << "the device is sm_" << capability
                 << ": run with AMP_RUNTIME_COMPUTE_CAPABILITY=75";
  DeviceArray x(AMP_DTYPE_F16, 64);
  DeviceArray stats(AMP_DTYPE_F32, 8);
  ampGpuAttention(1, 1, 8, 8, 8, AMP_DTYPE_F16, x.device, 64, 64, 8, x.device,
                  64, 64, 8, x.device, 64, 64, 8, x.device, 64, 64, 8, nullptr,
                  0, 0, 0, static_cast<float *>(stats.device), 1.0f, 0);
  mgpuStreamSynchronize(nullptr);
  ASSERT_EQ(gErrors.size(), 1u)
      << "fused attention accepted on sm_" << capability;
  EXPECT_NE(gErrors[0].find("ampGpuAttention: cuDNN's fused attention needs "
                            "compute capability 8.0 or later"),
            std::string::npos)
      << gErrors[0];
  gErrors.clear();
  ampGpuAttentionBackward(
      1, 1, 8, 8, 8, AMP_DTYPE_F16, x.device, 64, 64, 8, x.device, 64, 64, 8,
      x.device, 64, 64, 8, x.device, 64, 64, 8, x.device, 64, 64, 8,
      static_cast<const float *>(stats.device), x.device, 64, 64, 8, x.device,
      64, 64, 8, x.device, 64, 64, 8, nullptr, 0, 0, 0, 1.0f, 0);
  mgpuStreamSynchronize(nullptr);
  ASSERT_EQ(gErrors.size(), 1u) << "fused attention backward accepted";
  EXPECT_NE(gErrors[0].find("ampGpuAttentionBackward: cuDNN's fused "
                            "attention needs compute capability 8.0"),
            std::string::npos)
      << gErrors[0];
  gErrors.clear();
}

TEST_F(Contract, Bf16RefusedBeforeSm80) {
  int capability = ampGpuComputeCapability();
  if (capability == 0)
    GTEST_SKIP() << "the simulator models no architecture";
  if (capability >= 80)
    GTEST_SKIP() << "the device is sm_" << capability
                 << ": run with AMP_RUNTIME_COMPUTE_CAPABILITY=75";
  DeviceArray a(AMP_DTYPE_BF16, 64), b(AMP_DTYPE_BF16, 64),
      c(AMP_DTYPE_F32, 64);
  ampGpuGemm(0, 0, 1, 8, 8, 8, a.device, AMP_DTYPE_BF16, 8, 0, b.device,
             AMP_DTYPE_BF16, 8, 0, c.device, AMP_DTYPE_F32, 8, 0, 0.0f);
  ASSERT_EQ(gErrors.size(), 1u) << "bf16 GEMM accepted on sm_" << capability;
  EXPECT_NE(gErrors[0].find("ampGpuGemm: bf16 operands need compute "
                            "capability 8.0 or later"),
            std::string::npos)
      << gErrors[0];
  gErrors.clear();
  ampGpuConv2d(AMP_CONV_NCHW_FCHW, 1, 1, 8, 8, 1, 1, 1, 8, 8, 0, 0, 1, 1, 1, 1,
               1, a.device, AMP_DTYPE_BF16, b.device, AMP_DTYPE_BF16, c.device,
               AMP_DTYPE_F32, 0.0f);
  ASSERT_EQ(gErrors.size(), 1u) << "bf16 convolution accepted";
  EXPECT_NE(gErrors[0].find("ampGpuConv2d: bf16 operands need"),
            std::string::npos)
      << gErrors[0];
  gErrors.clear();
  // f16 still runs.
  DeviceArray h(AMP_DTYPE_F16, 64);
  ampGpuGemm(0, 0, 1, 8, 8, 8, h.device, AMP_DTYPE_F16, 8, 0, h.device,
             AMP_DTYPE_F16, 8, 0, c.device, AMP_DTYPE_F32, 8, 0, 0.0f);
  mgpuStreamSynchronize(nullptr);
  EXPECT_TRUE(gErrors.empty()) << gErrors.front();
}

} // namespace
