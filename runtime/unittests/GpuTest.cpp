//===- GpuTest.cpp - GPU tests of amp_runtime (skip without a GPU) --------===//
//
// Part of amp-mlir. cuBLAS GEMM and cuDNN convolution against the CPU
// references, and a PTX kernel launched through the mgpu* ABI exactly as
// MLIR-generated code does it (mgpuModuleLoadJIT, mgpuModuleGetFunction,
// mgpuLaunchKernel on the mgpuStreamCreate stream). Every test skips when
// ampGpuAvailable() is 0.
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/AmpRuntime.h"
#include "amp/runtime/MgpuAbi.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

/// Every test: skip without a GPU; no error may reach the error handler.
class Gpu : public amp_test::GpuTestBase {};

size_t elementSize(AmpDType type) { return type == AMP_DTYPE_F32 ? 4 : 2; }

/// Host data in one AmpDType encoding plus a device copy.
struct Buffer {
  AmpDType type;
  size_t count;
  std::vector<unsigned char> host;
  void *device = nullptr;

  Buffer(AmpDType type, size_t count)
      : type(type), count(count), host(count * elementSize(type)) {
    device = mgpuMemAlloc(host.size(), nullptr, false);
  }
  ~Buffer() { mgpuMemFree(device, nullptr); }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;

  float get(size_t i) const {
    if (type == AMP_DTYPE_F32) {
      float value;
      std::memcpy(&value, &host[i * 4], 4);
      return value;
    }
    uint16_t bits;
    std::memcpy(&bits, &host[i * 2], 2);
    return type == AMP_DTYPE_F16 ? ampF16ToF32(bits) : ampBF16ToF32(bits);
  }
  void set(size_t i, float value) {
    if (type == AMP_DTYPE_F32) {
      std::memcpy(&host[i * 4], &value, 4);
      return;
    }
    uint16_t bits =
        type == AMP_DTYPE_F16 ? ampF32ToF16(value) : ampF32ToBF16(value);
    std::memcpy(&host[i * 2], &bits, 2);
  }
  void fillRandom(std::mt19937 &rng) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (size_t i = 0; i < count; ++i)
      set(i, dist(rng));
  }
  void upload() {
    mgpuMemcpy(device, host.data(), host.size(), nullptr);
    mgpuStreamSynchronize(nullptr);
  }
  void download() {
    mgpuMemcpy(host.data(), device, host.size(), nullptr);
    mgpuStreamSynchronize(nullptr);
  }
};

/// |gpu - cpu| <= atol + rtol * |cpu| for every element.
void expectClose(const Buffer &gpu, const Buffer &cpu, float atol, float rtol) {
  size_t bad = 0;
  for (size_t i = 0; i < cpu.count; ++i) {
    float want = cpu.get(i), got = gpu.get(i);
    if (!(std::fabs(got - want) <= atol + rtol * std::fabs(want)) && bad++ < 10)
      ADD_FAILURE() << "element " << i << ": gpu " << got << " vs cpu " << want;
  }
  EXPECT_EQ(bad, 0u);
}

struct GemmCase {
  int transA, transB;
  int64_t batch, m, n, k;
  AmpDType inType, outType;
  float beta;
};

void checkGemm(const GemmCase &g) {
  SCOPED_TRACE(testing::Message()
               << "transA=" << g.transA << " transB=" << g.transB
               << " batch=" << g.batch << " m=" << g.m << " n=" << g.n
               << " k=" << g.k << " in=" << g.inType << " out=" << g.outType
               << " beta=" << g.beta);
  int64_t lda = g.transA ? g.m : g.k, ldb = g.transB ? g.k : g.n, ldc = g.n;
  int64_t strideA = g.m * g.k, strideB = g.k * g.n, strideC = g.m * g.n;
  std::mt19937 rng(42);
  Buffer a(g.inType, g.batch * strideA), b(g.inType, g.batch * strideB),
      c(g.outType, g.batch * strideC), ref(g.outType, g.batch * strideC);
  a.fillRandom(rng);
  b.fillRandom(rng);
  c.fillRandom(rng);
  ref.host = c.host;
  a.upload();
  b.upload();
  c.upload();
  ampGpuGemm(g.transA, g.transB, g.batch, g.m, g.n, g.k, a.device, g.inType,
             lda, strideA, b.device, g.inType, ldb, strideB, c.device,
             g.outType, ldc, strideC, g.beta);
  ampGpuSynchronize();
  c.download();
  ampCpuGemm(g.transA, g.transB, g.batch, g.m, g.n, g.k, a.host.data(),
             g.inType, lda, strideA, b.host.data(), g.inType, ldb, strideB,
             ref.host.data(), g.outType, ldc, strideC, g.beta);
  float atol = 1e-4f * std::sqrt(static_cast<float>(g.k));
  float rtol = g.outType == AMP_DTYPE_F32   ? 1e-4f
               : g.outType == AMP_DTYPE_F16 ? 2e-3f
                                            : 1.6e-2f;
  if (g.outType != AMP_DTYPE_F32)
    atol = 1e-2f;
  expectClose(c, ref, atol, rtol);
}

TEST_F(Gpu, GemmF16ToF32AllTransposes) {
  for (int transA = 0; transA < 2; ++transA)
    for (int transB = 0; transB < 2; ++transB)
      checkGemm(
          {transA, transB, 1, 64, 48, 80, AMP_DTYPE_F16, AMP_DTYPE_F32, 0.0f});
}

TEST_F(Gpu, GemmBF16ToF32Batched) {
  checkGemm({0, 0, 3, 32, 40, 24, AMP_DTYPE_BF16, AMP_DTYPE_F32, 0.0f});
  checkGemm({1, 1, 2, 17, 9, 33, AMP_DTYPE_BF16, AMP_DTYPE_F32, 1.0f});
}

TEST_F(Gpu, GemmF32) {
  checkGemm({0, 1, 1, 31, 29, 37, AMP_DTYPE_F32, AMP_DTYPE_F32, 1.0f});
  checkGemm({1, 0, 4, 16, 16, 16, AMP_DTYPE_F32, AMP_DTYPE_F32, 0.5f});
}

TEST_F(Gpu, GemmSixteenBitOutputs) {
  checkGemm({0, 0, 2, 32, 32, 32, AMP_DTYPE_F16, AMP_DTYPE_F16, 1.0f});
  checkGemm({0, 1, 1, 32, 16, 64, AMP_DTYPE_BF16, AMP_DTYPE_BF16, 0.0f});
}

// The compiler's epilogue form: f16/bf16 output with f32 compute, so 4096
// products of ones give 4096 (a 16-bit accumulator stops at 2048 or 256).
TEST_F(Gpu, GemmSixteenBitOutputAccumulatesInF32) {
  for (AmpDType type : {AMP_DTYPE_F16, AMP_DTYPE_BF16}) {
    Buffer a(type, 4096), b(type, 4096), c(type, 1);
    for (size_t i = 0; i < 4096; ++i) {
      a.set(i, 1.0f);
      b.set(i, 1.0f);
    }
    a.upload();
    b.upload();
    ampGpuGemm(0, 0, 1, 1, 1, 4096, a.device, type, 4096, 0, b.device, type, 1,
               0, c.device, type, 1, 0, 0.0f);
    ampGpuSynchronize();
    c.download();
    EXPECT_EQ(c.get(0), 4096.0f) << "type " << type;
  }
}

struct ConvCase {
  int layout;
  int64_t n, c, h, w, f, kh, kw, pad, stride, dil;
  AmpDType inType, outType;
  float beta;
};

void checkConv(const ConvCase &v) {
  SCOPED_TRACE(testing::Message() << "layout=" << v.layout << " pad=" << v.pad
                                  << " stride=" << v.stride << " dil=" << v.dil
                                  << " in=" << v.inType << " out=" << v.outType
                                  << " beta=" << v.beta);
  int64_t oh = (v.h + 2 * v.pad - v.dil * (v.kh - 1) - 1) / v.stride + 1;
  int64_t ow = (v.w + 2 * v.pad - v.dil * (v.kw - 1) - 1) / v.stride + 1;
  std::mt19937 rng(5);
  Buffer x(v.inType, v.n * v.c * v.h * v.w),
      wt(v.inType, v.f * v.c * v.kh * v.kw), y(v.outType, v.n * v.f * oh * ow),
      ref(v.outType, v.n * v.f * oh * ow);
  x.fillRandom(rng);
  wt.fillRandom(rng);
  y.fillRandom(rng);
  ref.host = y.host;
  x.upload();
  wt.upload();
  y.upload();
  ampGpuConv2d(v.layout, v.n, v.c, v.h, v.w, v.f, v.kh, v.kw, oh, ow, v.pad,
               v.pad, v.stride, v.stride, v.dil, v.dil, 1, x.device, v.inType,
               wt.device, v.inType, y.device, v.outType, v.beta);
  ampGpuSynchronize();
  y.download();
  ampCpuConv2d(v.layout, v.n, v.c, v.h, v.w, v.f, v.kh, v.kw, oh, ow, v.pad,
               v.pad, v.stride, v.stride, v.dil, v.dil, 1, x.host.data(),
               v.inType, wt.host.data(), v.inType, ref.host.data(), v.outType,
               v.beta);
  // An f32 output is computed in f32 (16-bit inputs widened exactly); only a
  // 16-bit output is rounded to 16 bits.
  bool sixteen = v.outType != AMP_DTYPE_F32;
  expectClose(y, ref, sixteen ? 2e-2f : 1e-3f, sixteen ? 1e-2f : 1e-4f);
}

TEST_F(Gpu, ConvF16ToF32BothLayouts) {
  for (int layout : {0, 1}) {
    checkConv({layout, 2, 8, 12, 10, 16, 3, 3, 1, 1, 1, AMP_DTYPE_F16,
               AMP_DTYPE_F32, 0.0f});
    checkConv({layout, 1, 4, 11, 13, 8, 3, 2, 2, 2, 2, AMP_DTYPE_F16,
               AMP_DTYPE_F32, 1.0f});
  }
}

TEST_F(Gpu, ConvF32AndSameTypeOutputs) {
  for (int layout : {0, 1}) {
    checkConv({layout, 1, 3, 9, 9, 4, 3, 3, 1, 2, 1, AMP_DTYPE_F32,
               AMP_DTYPE_F32, 1.0f});
    checkConv({layout, 2, 8, 8, 8, 8, 3, 3, 1, 1, 1, AMP_DTYPE_F16,
               AMP_DTYPE_F16, 0.0f});
  }
}

TEST_F(Gpu, ConvSixteenBitOutputAccumulatesInF32) {
  for (int layout : {0, 1}) {
    Buffer x(AMP_DTYPE_F16, 4096), wt(AMP_DTYPE_F16, 4096), y(AMP_DTYPE_F16, 1);
    for (size_t i = 0; i < 4096; ++i) {
      x.set(i, 1.0f);
      wt.set(i, 1.0f);
    }
    x.upload();
    wt.upload();
    ampGpuConv2d(layout, 1, 4096, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1,
                 x.device, AMP_DTYPE_F16, wt.device, AMP_DTYPE_F16, y.device,
                 AMP_DTYPE_F16, 0.0f);
    ampGpuSynchronize();
    y.download();
    EXPECT_EQ(y.get(0), 4096.0f) << "layout " << layout;
  }
}

// Issue #16: f16/bf16 inputs with an f32 output whose values exceed the f16
// range (65504) and need more than bf16's 8 significant bits. A 16-bit
// intermediate output would give Inf (f16) or an error of up to 2^-9
// relative (bf16); the f32 path matches the CPU reference to f32 rounding.
TEST_F(Gpu, ConvSixteenBitToF32KeepsF32RangeAndPrecision) {
  for (AmpDType in : {AMP_DTYPE_F16, AMP_DTYPE_BF16})
    for (int layout : {0, 1})
      for (float beta : {0.0f, 1.0f}) {
        SCOPED_TRACE(testing::Message() << "in=" << in << " layout=" << layout
                                        << " beta=" << beta);
        const int64_t n = 1, c = 16, h = 5, w = 5, f = 4, kh = 3, kw = 3;
        const int64_t oh = 5, ow = 5; // pad 1, stride 1
        Buffer x(in, n * c * h * w), wt(in, f * c * kh * kw),
            y(AMP_DTYPE_F32, n * f * oh * ow),
            ref(AMP_DTYPE_F32, n * f * oh * ow);
        std::mt19937 rng(11);
        // Values in [96, 160) with exact 16-bit encodings: products around
        // 10^4, sums of up to 144 products near 2 * 10^6, well above 65504,
        // with low-order bits that bf16 cannot hold.
        std::uniform_int_distribution<int> dist(96 * 8, 160 * 8 - 1);
        for (size_t i = 0; i < x.count; ++i)
          x.set(i, dist(rng) / 8.0f);
        for (size_t i = 0; i < wt.count; ++i)
          wt.set(i, dist(rng) / 8.0f);
        for (size_t i = 0; i < y.count; ++i)
          y.set(i, 70000.0f + static_cast<float>(i));
        ref.host = y.host;
        x.upload();
        wt.upload();
        y.upload();
        ampGpuConv2d(layout, n, c, h, w, f, kh, kw, oh, ow, 1, 1, 1, 1, 1, 1, 1,
                     x.device, in, wt.device, in, y.device, AMP_DTYPE_F32,
                     beta);
        ampGpuSynchronize();
        y.download();
        ampCpuConv2d(layout, n, c, h, w, f, kh, kw, oh, ow, 1, 1, 1, 1, 1, 1, 1,
                     x.host.data(), in, wt.host.data(), in, ref.host.data(),
                     AMP_DTYPE_F32, beta);
        float largest = 0.0f;
        for (size_t i = 0; i < ref.count; ++i)
          largest = std::max(largest, ref.get(i));
        ASSERT_GT(largest, 65504.0f * 4);
        for (size_t i = 0; i < y.count; ++i)
          ASSERT_TRUE(std::isfinite(y.get(i))) << "element " << i;
        // f32 accumulation in another order: a few f32 ulps of the sum.
        expectClose(y, ref, 0.0f, 2e-5f);
      }
}

TEST_F(Gpu, ConvExhaustiveSearch) {
  ampGpuSetConvExhaustiveSearch(1);
  checkConv(
      {1, 1, 8, 10, 10, 8, 3, 3, 1, 1, 1, AMP_DTYPE_F16, AMP_DTYPE_F32, 1.0f});
  ampGpuSetConvExhaustiveSearch(0);
}

// Adds 1.0f to each of n floats; checked with ptxas for sm_80 and sm_90.
const char kAddOnePtx[] = R"(
.version 8.0
.target sm_80
.address_size 64

.visible .entry amp_add_one(
    .param .u64 amp_add_one_param_0,
    .param .u32 amp_add_one_param_1
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<5>;

    ld.param.u64 %rd1, [amp_add_one_param_0];
    ld.param.u32 %r2, [amp_add_one_param_1];
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %tid.x;
    mad.lo.s32 %r1, %r3, %r4, %r5;
    setp.ge.u32 %p1, %r1, %r2;
    @%p1 bra $L_done;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.f32 %f1, [%rd4];
    add.f32 %f2, %f1, 0f3F800000;
    st.global.f32 [%rd4], %f2;
$L_done:
    ret;
}
)";

TEST_F(Gpu, PtxKernelThroughMgpuAbi) {
  void *module = mgpuModuleLoadJIT(const_cast<char *>(kAddOnePtx), 2);
  ASSERT_NE(module, nullptr);
  void *function = mgpuModuleGetFunction(module, "amp_add_one");
  ASSERT_NE(function, nullptr);
  EXPECT_EQ(mgpuModuleGetFunction(module, "amp_add_one"), function); // Cached.

  const uint32_t n = 1000;
  std::vector<float> host(n);
  for (uint32_t i = 0; i < n; ++i)
    host[i] = static_cast<float>(i);
  void *stream = mgpuStreamCreate();
  void *device = mgpuMemAlloc(n * sizeof(float), stream, false);
  ASSERT_NE(device, nullptr);
  mgpuMemcpy(device, host.data(), n * sizeof(float), stream);
  uint32_t count = n;
  void *params[] = {&device, &count};
  mgpuLaunchKernel(function, (n + 127) / 128, 1, 1, 128, 1, 1, 0, stream,
                   params, nullptr, 2);
  void *event = mgpuEventCreate();
  mgpuEventRecord(event, stream);
  mgpuStreamWaitEvent(stream, event);
  mgpuMemcpy(host.data(), device, n * sizeof(float), stream);
  mgpuStreamSynchronize(stream);
  mgpuEventSynchronize(event);
  mgpuEventDestroy(event);
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(host[i], static_cast<float>(i) + 1.0f) << i;
  mgpuMemFree(device, stream);
  mgpuStreamDestroy(stream);
  mgpuModuleUnload(module);
}

TEST_F(Gpu, MemsetManagedAndHostRegister) {
  void *stream = mgpuStreamCreate();
  const size_t n = 256;
  auto *words = static_cast<uint32_t *>(mgpuMemAlloc(n * 4, stream, true));
  ASSERT_NE(words, nullptr);
  mgpuMemset32(words, 0xdeadbeefu, n, stream);
  mgpuStreamSynchronize(stream);
  for (size_t i = 0; i < n; ++i) // Managed memory is host-accessible.
    ASSERT_EQ(words[i], 0xdeadbeefu);
  mgpuMemset16(words, 0x1234, 2 * n, stream);
  mgpuStreamSynchronize(stream);
  ASSERT_EQ(words[7], 0x12341234u);
  mgpuMemFree(words, stream);

  // A 2-D memref descriptor {alloc, aligned, offset, sizes[2], strides[2]}.
  std::vector<float> data(64, 0.0f);
  struct {
    float *allocated, *aligned;
    int64_t offset, sizes[2], strides[2];
  } memref = {data.data(), data.data(), 0, {8, 8}, {8, 1}};
  mgpuMemHostRegisterMemRef(2, &memref, sizeof(float));
  mgpuMemHostUnregisterMemRef(2, &memref, sizeof(float));
  char name[256];
  EXPECT_EQ(ampGpuDeviceName(name, sizeof(name)), 0);
  EXPECT_STRNE(name, "");
}

} // namespace
