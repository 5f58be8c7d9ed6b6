//===- GpuLossScalingTest.cpp - GPU loss scaler, unscale and optimizers ---===//
//
// Part of amp-mlir. The device-resident loss scaler, the multi-tensor
// check-finite-and-unscale kernel and the master-weight optimizer kernels
// against their CPU counterparts: the update kernel follows the host state
// machine step by step for every preset, unscaling is bit-identical to
// ampCheckFiniteAndUnscale* (Inf/NaN payloads, odd sizes, misaligned
// tensors, 1000+ tensors in one table), the one-buffer entry point for
// compiled code (ampGpuCheckFiniteAndUnscaleBuffer) is bit-identical to its
// CPU twin in place and out of place with a byte flag that accumulates,
// optimizers match ampOptimizerStep and leave every byte alone on a skipped
// step, checkpoints move between the GPU and the host scaler and between the
// GPU and the CPU optimizer, and learning-rate schedules reach the optimizer
// kernels. Every GPU test skips when ampGpuAvailable() is 0; without a GPU
// one test checks that the entry points fail with clear messages instead.
//
// Built twice: AmpRuntimeGpuTests against libamp_runtime.so (the CUDA
// kernels, on a GPU), and AmpGpuSimLossScalingTests (AMP_TEST_GPU_SIM)
// against the GPU simulator, which runs the same kernels' code
// (cuda/LossScalingKernels.h) on the CPU, so that these tests run in CI.
// There every test also checks that it freed all the device memory it
// allocated, and the Sim* tests check what the simulator adds: its
// counters, the refusal of memory that is not on the device, and the GPU's
// NaN arithmetic.
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/AmpRuntime.h"
#include "amp/runtime/MgpuAbi.h"
#if AMP_TEST_GPU_SIM
#include "amp/runtime/AmpGpuSim.h"
#endif

#include "../lib/LossScalerState.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

bool contains(const std::string &haystack, const char *needle) {
  return haystack.find(needle) != std::string::npos;
}

#if AMP_TEST_GPU_SIM
AmpSimStats simStats() {
  AmpSimStats stats;
  ampSimGetStats(&stats);
  return stats;
}
#endif

/// Every test: skip without a GPU; no error may reach the error handler. In
/// the simulator also: every device allocation the test made (handles'
/// Destroy included) is freed at its end.
class GpuLossScaling : public amp_test::GpuTestBase {
#if AMP_TEST_GPU_SIM
protected:
  void SetUp() override {
    GpuTestBase::SetUp();
    liveBefore = simStats().liveBuffers;
  }
  void TearDown() override {
    EXPECT_EQ(simStats().liveBuffers, liveBefore)
        << "device allocations left live";
    GpuTestBase::TearDown();
  }
  int64_t liveBefore = 0;
#endif
};

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

size_t elementSize(int32_t type) { return type == AMP_DTYPE_F32 ? 4 : 2; }

/// Device bytes freed at scope exit, with synchronous copies.
struct DeviceMemory {
  void *ptr = nullptr;
  size_t bytes = 0;
  explicit DeviceMemory(size_t bytes) : bytes(bytes) {
    ptr = mgpuMemAlloc(bytes ? bytes : 1, nullptr, false);
  }
  ~DeviceMemory() { mgpuMemFree(ptr, nullptr); }
  DeviceMemory(const DeviceMemory &) = delete;
  DeviceMemory &operator=(const DeviceMemory &) = delete;

  char *at(size_t offset) const { return static_cast<char *>(ptr) + offset; }
  void upload(const void *src, size_t n, size_t offset = 0) {
    mgpuMemcpy(at(offset), const_cast<void *>(src), n, nullptr);
    mgpuStreamSynchronize(nullptr);
  }
  void download(void *dst, size_t n, size_t offset = 0) const {
    mgpuMemcpy(dst, at(offset), n, nullptr);
    mgpuStreamSynchronize(nullptr);
  }
};

float readDevice(const float *ptr) {
  float value = 0.0f;
  mgpuMemcpy(&value, const_cast<float *>(ptr), sizeof(value), nullptr);
  mgpuStreamSynchronize(nullptr);
  return value;
}

void writeDevice(float *ptr, float value) {
  mgpuMemcpy(ptr, &value, sizeof(value), nullptr);
  mgpuStreamSynchronize(nullptr);
}

AmpLossScalerConfig preset(const char *name) {
  AmpLossScalerConfig cfg;
  std::memset(&cfg, 0, sizeof(cfg));
  EXPECT_EQ(ampLossScalerConfigPreset(name, &cfg), 0) << name;
  return cfg;
}

/// A scaler with a constant scale (no Update is run on it).
AmpLossScalerConfig staticScale(float scale) {
  AmpLossScalerConfig cfg = preset("pytorch");
  cfg.init_scale = scale;
  cfg.dynamic = 0;
  return cfg;
}

void expectStats(const AmpLossScalerStats &got,
                 const amp::rt::LossScalerState &want, const char *what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(bitsOf(got.scale), bitsOf(want.scale))
      << got.scale << " vs " << want.scale;
  EXPECT_EQ(got.good_steps, want.goodSteps);
  EXPECT_EQ(got.bad_steps, want.badSteps);
  EXPECT_EQ(got.hysteresis, want.hysteresis);
  EXPECT_EQ(got.steps, want.steps);
  EXPECT_EQ(got.skipped_steps, want.skippedSteps);
  EXPECT_EQ(got.overflows_at_min_scale, want.overflowsAtMinScale);
}

void expectSameStats(const AmpLossScalerStats &a, const AmpLossScalerStats &b) {
  EXPECT_EQ(bitsOf(a.scale), bitsOf(b.scale)) << a.scale << " vs " << b.scale;
  EXPECT_EQ(a.good_steps, b.good_steps);
  EXPECT_EQ(a.bad_steps, b.bad_steps);
  EXPECT_EQ(a.hysteresis, b.hysteresis);
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.skipped_steps, b.skipped_steps);
  EXPECT_EQ(a.overflows_at_min_scale, b.overflows_at_min_scale);
}

//===----------------------------------------------------------------------===//
// Without a GPU
//===----------------------------------------------------------------------===//

#if !AMP_TEST_GPU_SIM // The simulator is always available.
TEST(GpuLossScalingNoGpu, EntryPointsFailWithClearMessages) {
  if (ampGpuAvailable())
    GTEST_SKIP() << "a GPU is available (covered by the GpuLossScaling tests)";
  amp_test::GpuTestBase::errors().clear();
  ampSetErrorHandler(amp_test::GpuTestBase::recordingHandler);
  ampClearError();
  EXPECT_EQ(ampGpuLossScalerCreate(nullptr), nullptr);
  std::string message = ampLastError();
  EXPECT_TRUE(contains(message, "ampGpuLossScalerCreate: ")) << message;
  AmpLossScalerConfig cfg = preset("deepspeed");
  EXPECT_EQ(ampGpuLossScalerCreate(&cfg), nullptr);

  int64_t numel = 4;
  void *fake = reinterpret_cast<void *>(uintptr_t(0x10000));
  EXPECT_EQ(ampGpuTensorTableCreate(&fake, &numel, 1, AMP_DTYPE_F32), nullptr);
  message = ampLastError();
  EXPECT_TRUE(contains(message, "ampGpuTensorTableCreate: ")) << message;

  AmpOptimizerConfig opt;
  ASSERT_EQ(ampOptimizerConfigDefault(AMP_OPTIMIZER_ADAM, &opt), 0);
  EXPECT_EQ(ampGpuOptimizerCreate(&opt, nullptr, 0), nullptr);
  message = ampLastError();
  EXPECT_TRUE(contains(message, "ampGpuOptimizerCreate: ")) << message;

  // Null handles are reported, not crashed on.
  EXPECT_NE(ampGpuLossScalerBeginStep(nullptr), 0);
  EXPECT_NE(ampGpuLossScalerUpdate(nullptr), 0);
  EXPECT_NE(ampGpuCheckFiniteAndUnscale(nullptr, nullptr), 0);
  EXPECT_NE(ampGpuOptimizerStep(nullptr, nullptr, nullptr), 0);
  EXPECT_EQ(ampGpuOptimizerGetStep(nullptr), -1);
  EXPECT_EQ(ampGpuLossScalerSaveState(nullptr, nullptr, 0), 0u);
  EXPECT_EQ(ampGpuLossScalerScalePtr(nullptr), nullptr);

  // Optimizer checkpoints and schedules fail cleanly, even with a valid
  // blob (saved by a CPU optimizer).
  AmpOptimizer *cpu = ampOptimizerCreate(&opt);
  ASSERT_NE(cpu, nullptr) << ampLastError();
  std::vector<unsigned char> blob(ampOptimizerSaveState(cpu, nullptr, 0));
  ASSERT_EQ(ampOptimizerSaveState(cpu, blob.data(), blob.size()), blob.size());
  ampOptimizerDestroy(cpu);
  std::vector<unsigned char> out(blob.size(), 0xab);
  ampClearError();
  EXPECT_EQ(ampGpuOptimizerSaveState(nullptr, out.data(), out.size()), 0u);
  EXPECT_TRUE(contains(ampLastError(), "ampGpuOptimizerSaveState: "))
      << ampLastError();
  EXPECT_TRUE(std::all_of(out.begin(), out.end(),
                          [](unsigned char b) { return b == 0xab; }));
  EXPECT_EQ(ampGpuOptimizerSaveState(nullptr, nullptr, 0), 0u);
  ampClearError();
  EXPECT_NE(ampGpuOptimizerLoadState(nullptr, blob.data(), blob.size()), 0);
  EXPECT_TRUE(contains(ampLastError(), "ampGpuOptimizerLoadState: "))
      << ampLastError();
  ampClearError();
  EXPECT_NE(ampGpuOptimizerSetLearningRate(nullptr, 0.1f), 0);
  EXPECT_TRUE(contains(ampLastError(), "ampGpuOptimizerSetLearningRate: "))
      << ampLastError();
  ampGpuLossScalerDestroy(nullptr);
  ampGpuTensorTableDestroy(nullptr);
  ampGpuOptimizerDestroy(nullptr);
  ampSetErrorHandler(nullptr);
  EXPECT_TRUE(amp_test::GpuTestBase::errors().empty())
      << amp_test::GpuTestBase::errors().front();
}
#endif

//===----------------------------------------------------------------------===//
// The update kernel
//===----------------------------------------------------------------------===//

std::vector<std::pair<std::string, AmpLossScalerConfig>> updateConfigs() {
  std::vector<std::pair<std::string, AmpLossScalerConfig>> configs;
  for (const char *name : {"pytorch", "paddle", "paddle-static", "deepspeed",
                           "megatron", "apex", "colossalai", "bf16"}) {
    AmpLossScalerConfig cfg = preset(name);
    configs.push_back({name, cfg});
    // Short windows so that random sequences grow and back off often.
    cfg.growth_interval = std::min(cfg.growth_interval, 3);
    configs.push_back({std::string(name) + "/interval3", cfg});
  }
  AmpLossScalerConfig cfg = preset("deepspeed");
  cfg.growth_interval = 2;
  cfg.hysteresis = 3;
  cfg.consecutive_hysteresis = 1;
  configs.push_back({"deepspeed/consecutive", cfg});
  cfg = preset("paddle-static");
  cfg.growth_interval = 2;
  cfg.backoff_interval = 3;
  cfg.max_scale = 1e6f;
  configs.push_back({"paddle-static/capped", cfg});
  // Growth must stop short of Inf; back-off must stop at the smallest normal.
  cfg = preset("pytorch");
  cfg.init_scale = 0x1p120f;
  cfg.growth_factor = 16.0f;
  cfg.growth_interval = 1;
  configs.push_back({"growth-to-inf", cfg});
  cfg = preset("pytorch");
  cfg.init_scale = 1e-36f;
  cfg.backoff_factor = 0.25f;
  cfg.growth_interval = 5;
  configs.push_back({"backoff-to-zero", cfg});
  cfg = preset("pytorch");
  cfg.init_scale = 3.0f;
  cfg.growth_factor = 1.5f;
  cfg.backoff_factor = 0.3f;
  cfg.growth_interval = 2;
  cfg.min_scale = 0.5f;
  configs.push_back({"non-power-of-two", cfg});
  cfg = staticScale(1024.0f);
  configs.push_back({"static", cfg});
  return configs;
}

TEST_F(GpuLossScaling, UpdateKernelFollowsHostStateMachine) {
  std::mt19937 rng(1234);
  for (const auto &[name, cfg] : updateConfigs()) {
    for (double overflowRate : {0.05, 0.4, 0.9}) {
      SCOPED_TRACE(testing::Message()
                   << name << " overflow rate " << overflowRate);
      AmpGpuLossScaler *gpu = ampGpuLossScalerCreate(&cfg);
      ASSERT_NE(gpu, nullptr) << ampLastError();
      AmpLossScaler *host = ampLossScalerCreate(&cfg);
      ASSERT_NE(host, nullptr) << ampLastError();
      amp::rt::LossScalerState state = amp::rt::initialLossScalerState(cfg);
      std::bernoulli_distribution overflow(overflowRate);
      std::uniform_int_distribution<int> flagKind(0, 2);
      for (int step = 0; step < 120; ++step) {
        bool found = overflow(rng);
        ASSERT_EQ(ampGpuLossScalerBeginStep(gpu), 0) << ampLastError();
        if (found) // Any nonzero value (NaN too) is an overflow.
          writeDevice(ampGpuLossScalerFoundInfPtr(gpu),
                      std::array<float, 3>{1.0f, 2.5f, NAN}[flagKind(rng)]);
        ASSERT_EQ(ampGpuLossScalerUpdate(gpu), 0) << ampLastError();
        bool applied = amp::rt::updateLossScalerState(state, cfg, found);
        EXPECT_EQ(ampLossScalerUpdate(host, found ? 1 : 0), applied ? 1 : 0);
        AmpLossScalerStats gpuStats, hostStats;
        ASSERT_EQ(ampGpuLossScalerGetStats(gpu, &gpuStats), 0)
            << ampLastError();
        ASSERT_EQ(ampLossScalerGetStats(host, &hostStats), 0);
        expectStats(gpuStats, state, "gpu vs state machine");
        expectSameStats(gpuStats, hostStats);
        EXPECT_EQ(bitsOf(readDevice(ampGpuLossScalerScalePtr(gpu))),
                  bitsOf(state.scale));
        EXPECT_EQ(bitsOf(readDevice(ampGpuLossScalerInvScalePtr(gpu))),
                  bitsOf(state.invScale));
        EXPECT_EQ(bitsOf(state.invScale),
                  bitsOf(ampLossScalerGetInvScale(host)));
        if (testing::Test::HasFailure())
          FAIL() << "first difference at step " << step;
      }
      ampLossScalerDestroy(host);
      ampGpuLossScalerDestroy(gpu);
    }
  }
}

TEST_F(GpuLossScaling, ResearchTestVectors) {
  // loss_scaling.md section 3.5: init 1024, growth_interval 3.
  const char flags[] = "IICCCICIIICCC";
  struct Case {
    int hysteresis, consecutive;
    float expected[13];
  } cases[] = {
      {1, 0, {512, 256, 256, 256, 512, 256, 256, 128, 64, 32, 32, 32, 64}},
      {2,
       0,
       {1024, 512, 512, 512, 1024, 1024, 1024, 512, 256, 128, 128, 128, 256}},
      {2,
       1,
       {1024, 512, 512, 512, 1024, 1024, 1024, 1024, 512, 256, 256, 256, 512}},
  };
  for (const Case &c : cases) {
    AmpLossScalerConfig cfg = preset("pytorch");
    cfg.init_scale = 1024.0f;
    cfg.growth_interval = 3;
    cfg.hysteresis = c.hysteresis;
    cfg.consecutive_hysteresis = c.consecutive;
    AmpGpuLossScaler *gpu = ampGpuLossScalerCreate(&cfg);
    ASSERT_NE(gpu, nullptr) << ampLastError();
    for (int step = 0; step < 13; ++step) {
      ASSERT_EQ(ampGpuLossScalerBeginStep(gpu), 0);
      if (flags[step] == 'I')
        writeDevice(ampGpuLossScalerFoundInfPtr(gpu), 1.0f);
      ASSERT_EQ(ampGpuLossScalerUpdate(gpu), 0);
    }
    // Replay with a read after each step.
    ampGpuLossScalerDestroy(gpu);
    gpu = ampGpuLossScalerCreate(&cfg);
    for (int step = 0; step < 13; ++step) {
      ampGpuLossScalerBeginStep(gpu);
      if (flags[step] == 'I')
        writeDevice(ampGpuLossScalerFoundInfPtr(gpu), 1.0f);
      ampGpuLossScalerUpdate(gpu);
      EXPECT_EQ(readDevice(ampGpuLossScalerScalePtr(gpu)), c.expected[step])
          << "hysteresis " << c.hysteresis << " step " << step + 1;
    }
    AmpLossScalerStats stats;
    ASSERT_EQ(ampGpuLossScalerGetStats(gpu, &stats), 0);
    EXPECT_EQ(stats.steps, 13);
    EXPECT_EQ(stats.skipped_steps, 6);
    ampGpuLossScalerDestroy(gpu);
  }
}

//===----------------------------------------------------------------------===//
// Check finite and unscale
//===----------------------------------------------------------------------===//

/// Tensors of one dtype laid out in one arena (host mirror + device copy)
/// with gaps of 0..gapMax elements between them, so that starts are
/// misaligned in every way; the gaps must come back untouched.
struct Arena {
  int32_t dtype;
  std::vector<size_t> offsets; // In elements.
  std::vector<int64_t> numels;
  std::vector<unsigned char> host;
  std::unique_ptr<DeviceMemory> device;

  Arena(int32_t dtype, const std::vector<int64_t> &sizes, std::mt19937 &rng,
        int gapMax = 9)
      : dtype(dtype), numels(sizes) {
    std::uniform_int_distribution<int> gap(0, gapMax);
    size_t next = 0;
    for (int64_t n : sizes) {
      next += gap(rng);
      offsets.push_back(next);
      next += static_cast<size_t>(n);
    }
    next += 8;
    host.resize(next * elementSize(dtype));
    std::uniform_int_distribution<uint32_t> bits;
    for (size_t i = 0; i < host.size(); i += 4) {
      uint32_t word = bits(rng);
      std::memcpy(&host[i], &word, std::min<size_t>(4, host.size() - i));
    }
    device = std::make_unique<DeviceMemory>(host.size());
  }

  size_t esize() const { return elementSize(dtype); }

  uint32_t get(size_t element) const {
    uint32_t value = 0;
    std::memcpy(&value, &host[element * esize()], esize());
    return value;
  }
  void set(size_t element, uint32_t value) {
    std::memcpy(&host[element * esize()], &value, esize());
  }

  bool nonFinite(uint32_t v) const {
    switch (dtype) {
    case AMP_DTYPE_F32:
      return (v & 0x7f800000u) == 0x7f800000u;
    case AMP_DTYPE_F16:
      return (v & 0x7c00u) == 0x7c00u;
    default:
      return (v & 0x7f80u) == 0x7f80u;
    }
  }

  /// Replaces every Inf/NaN of tensor `t` by a finite value.
  void makeFinite(size_t t) {
    for (int64_t i = 0; i < numels[t]; ++i)
      if (nonFinite(get(offsets[t] + i)))
        // Clears the top exponent bit (bit 30 of f32, 14 of f16/bf16).
        set(offsets[t] + i,
            get(offsets[t] + i) &
                (dtype == AMP_DTYPE_F32 ? 0xbfffffffu : 0xbfffu));
  }

  /// Puts one special value (Inf, quiet/signalling NaN with payloads) at a
  /// random element of tensor `t`.
  void plantSpecial(size_t t, std::mt19937 &rng) {
    static const uint32_t f32[] = {0x7f800000u, 0xff800000u, 0x7fc00000u,
                                   0xffc12345u, 0x7f800001u, 0x7fa00005u};
    static const uint32_t f16[] = {0x7c00u, 0xfc00u, 0x7e00u,
                                   0xfe3du, 0x7c01u, 0x7d55u};
    static const uint32_t bf16[] = {0x7f80u, 0xff80u, 0x7fc0u,
                                    0xffc5u, 0x7f81u, 0x7fa3u};
    std::uniform_int_distribution<int> which(0, 5);
    std::uniform_int_distribution<int64_t> where(0, numels[t] - 1);
    const uint32_t *table = dtype == AMP_DTYPE_F32   ? f32
                            : dtype == AMP_DTYPE_F16 ? f16
                                                     : bf16;
    set(offsets[t] + where(rng), table[which(rng)]);
  }

  std::vector<void *> devicePtrs() const {
    std::vector<void *> ptrs;
    for (size_t t = 0; t < offsets.size(); ++t)
      ptrs.push_back(numels[t] ? device->at(offsets[t] * esize()) : nullptr);
    return ptrs;
  }
  std::vector<void *> hostPtrs(std::vector<unsigned char> &copy) const {
    std::vector<void *> ptrs;
    for (size_t t = 0; t < offsets.size(); ++t)
      ptrs.push_back(copy.data() + offsets[t] * esize());
    return ptrs;
  }
};

int cpuUnscale(int32_t dtype, std::vector<void *> &ptrs,
               const std::vector<int64_t> &numels, float scale) {
  int64_t count = static_cast<int64_t>(ptrs.size());
  switch (dtype) {
  case AMP_DTYPE_F32:
    return ampCheckFiniteAndUnscaleF32(
        reinterpret_cast<float *const *>(ptrs.data()), numels.data(), count,
        scale);
  case AMP_DTYPE_F16:
    return ampCheckFiniteAndUnscaleF16(
        reinterpret_cast<uint16_t *const *>(ptrs.data()), numels.data(), count,
        scale);
  default:
    return ampCheckFiniteAndUnscaleBF16(
        reinterpret_cast<uint16_t *const *>(ptrs.data()), numels.data(), count,
        scale);
  }
}

/// Unscales `arena` on the GPU and on the CPU and compares every byte of
/// the arena (gaps included) and the flag.
void checkAgainstCpu(Arena &arena, float scale) {
  SCOPED_TRACE(testing::Message()
               << "dtype " << arena.dtype << ", scale " << scale << ", "
               << arena.numels.size() << " tensors");
  arena.device->upload(arena.host.data(), arena.host.size());
  AmpLossScalerConfig cfg = staticScale(scale);
  AmpGpuLossScaler *scaler = ampGpuLossScalerCreate(&cfg);
  ASSERT_NE(scaler, nullptr) << ampLastError();
  std::vector<void *> ptrs = arena.devicePtrs();
  AmpGpuTensorTable *table =
      ampGpuTensorTableCreate(ptrs.data(), arena.numels.data(),
                              static_cast<int64_t>(ptrs.size()), arena.dtype);
  ASSERT_NE(table, nullptr) << ampLastError();
  ASSERT_EQ(ampGpuLossScalerBeginStep(scaler), 0);
  ASSERT_EQ(ampGpuCheckFiniteAndUnscale(scaler, table), 0) << ampLastError();
  float found = readDevice(ampGpuLossScalerFoundInfPtr(scaler));
  std::vector<unsigned char> gpu(arena.host.size());
  arena.device->download(gpu.data(), gpu.size());

  std::vector<unsigned char> cpu = arena.host;
  std::vector<void *> hostPtrs = arena.hostPtrs(cpu);
  int cpuFound = cpuUnscale(arena.dtype, hostPtrs, arena.numels, scale);
  ASSERT_GE(cpuFound, 0) << ampLastError();
  EXPECT_TRUE(found == 0.0f || found == 1.0f) << found;
  EXPECT_EQ(found != 0.0f, cpuFound == 1);

  size_t es = arena.esize(), bad = 0;
  for (size_t e = 0; e * es < cpu.size(); ++e) {
    if (std::memcmp(&gpu[e * es], &cpu[e * es], es) == 0)
      continue;
    uint32_t g = 0, c = 0, in = arena.get(e);
    std::memcpy(&g, &gpu[e * es], es);
    std::memcpy(&c, &cpu[e * es], es);
    if (bad++ < 10)
      ADD_FAILURE() << "element " << e << ": input 0x" << std::hex << in
                    << " gpu 0x" << g << " cpu 0x" << c;
  }
  EXPECT_EQ(bad, 0u);
  ampGpuTensorTableDestroy(table);
  ampGpuLossScalerDestroy(scaler);
}

const int64_t kChunkF32 = 16384, kChunk16 = 32768; // cuda/LossScalingAbi.h

std::vector<int64_t> oddSizes(int32_t dtype) {
  int64_t chunk = dtype == AMP_DTYPE_F32 ? kChunkF32 : kChunk16;
  return {1,      2,  3,    4,         5,     7,         8,
          9,      15, 16,   17,        31,    33,        63,
          64,     65, 127,  255,       256,   257,       1000,
          4095,   0,  4097, chunk - 1, chunk, chunk + 1, 3 * chunk + 5,
          100003, 0,  11};
}

TEST_F(GpuLossScaling, UnscaleMatchesCpuBitForBit) {
  std::mt19937 rng(7);
  for (int32_t dtype : {AMP_DTYPE_F32, AMP_DTYPE_F16, AMP_DTYPE_BF16}) {
    for (float scale : {65536.0f, 3.0f, 0.125f, 1.0f, 1e-30f}) {
      // All finite, then Inf/NaN in a few tensors, then raw random bits
      // (Inf and NaN anywhere).
      for (int variant = 0; variant < 3; ++variant) {
        Arena arena(dtype, oddSizes(dtype), rng);
        if (variant < 2)
          for (size_t t = 0; t < arena.numels.size(); ++t)
            arena.makeFinite(t);
        if (variant == 1)
          for (size_t t : {size_t(0), size_t(13), size_t(28)})
            arena.plantSpecial(t, rng);
        checkAgainstCpu(arena, scale);
      }
    }
  }
}

TEST_F(GpuLossScaling, UnscaleManyTensorsInOneLaunch) {
  std::mt19937 rng(11);
  for (int32_t dtype : {AMP_DTYPE_F32, AMP_DTYPE_F16, AMP_DTYPE_BF16}) {
    std::vector<int64_t> sizes;
    std::uniform_int_distribution<int64_t> small(1, 300);
    for (int i = 0; i < 1000; ++i)
      sizes.push_back(small(rng));
    for (int64_t large : {int64_t(1) << 20, int64_t(2000003), int64_t(300001)})
      sizes.push_back(large);
    for (int variant = 0; variant < 3; ++variant) {
      Arena arena(dtype, sizes, rng, /*gapMax=*/3);
      for (size_t t = 0; t < sizes.size(); ++t)
        arena.makeFinite(t);
      if (variant == 1)
        arena.plantSpecial(777, rng); // One bad element among 1003 tensors.
      if (variant == 2)
        arena.plantSpecial(1001, rng);
      checkAgainstCpu(arena, 1024.0f);
    }
  }
}

TEST_F(GpuLossScaling, FoundInfStaysSetAcrossTablesUntilBeginStep) {
  std::mt19937 rng(3);
  Arena a(AMP_DTYPE_F32, {1000, 17}, rng), b(AMP_DTYPE_F16, {4096, 3}, rng),
      c(AMP_DTYPE_BF16, {77}, rng);
  for (Arena *arena : {&a, &b, &c})
    for (size_t t = 0; t < arena->numels.size(); ++t)
      arena->makeFinite(t);
  b.plantSpecial(0, rng);
  AmpLossScalerConfig cfg = preset("pytorch");
  AmpGpuLossScaler *scaler = ampGpuLossScalerCreate(&cfg);
  ASSERT_NE(scaler, nullptr) << ampLastError();
  std::vector<AmpGpuTensorTable *> tables;
  for (Arena *arena : {&a, &b, &c}) {
    arena->device->upload(arena->host.data(), arena->host.size());
    std::vector<void *> ptrs = arena->devicePtrs();
    tables.push_back(ampGpuTensorTableCreate(ptrs.data(), arena->numels.data(),
                                             static_cast<int64_t>(ptrs.size()),
                                             arena->dtype));
    ASSERT_NE(tables.back(), nullptr) << ampLastError();
  }
  float *found = ampGpuLossScalerFoundInfPtr(scaler);
  ASSERT_EQ(ampGpuLossScalerBeginStep(scaler), 0);
  ASSERT_EQ(ampGpuCheckFiniteAndUnscale(scaler, tables[0]), 0);
  EXPECT_EQ(readDevice(found), 0.0f);
  ASSERT_EQ(ampGpuCheckFiniteAndUnscale(scaler, tables[1]), 0);
  EXPECT_EQ(readDevice(found), 1.0f);
  ASSERT_EQ(ampGpuCheckFiniteAndUnscale(scaler, tables[2]), 0);
  EXPECT_EQ(readDevice(found), 1.0f) << "a clean table cleared found_inf";
  ASSERT_EQ(ampGpuLossScalerUpdate(scaler), 0);
  AmpLossScalerStats stats;
  ASSERT_EQ(ampGpuLossScalerGetStats(scaler, &stats), 0);
  EXPECT_EQ(stats.skipped_steps, 1);
  EXPECT_EQ(stats.scale, 32768.0f);
  ASSERT_EQ(ampGpuLossScalerBeginStep(scaler), 0);
  EXPECT_EQ(readDevice(found), 0.0f);
  ASSERT_EQ(ampGpuCheckFiniteAndUnscale(scaler, tables[2]), 0);
  EXPECT_EQ(readDevice(found), 0.0f);
  for (AmpGpuTensorTable *table : tables)
    ampGpuTensorTableDestroy(table);
  ampGpuLossScalerDestroy(scaler);
}

TEST_F(GpuLossScaling, EmptyTablesAndArgumentErrors) {
  AmpLossScalerConfig cfg = preset("pytorch");
  AmpGpuLossScaler *scaler = ampGpuLossScalerCreate(&cfg);
  ASSERT_NE(scaler, nullptr) << ampLastError();
  AmpGpuTensorTable *empty = ampGpuTensorTableCreate(nullptr, nullptr, 0, 1);
  ASSERT_NE(empty, nullptr) << ampLastError();
  void *nulls[2] = {nullptr, nullptr};
  int64_t zeros[2] = {0, 0};
  AmpGpuTensorTable *zeroSized =
      ampGpuTensorTableCreate(nulls, zeros, 2, AMP_DTYPE_BF16);
  ASSERT_NE(zeroSized, nullptr) << ampLastError();
  ASSERT_EQ(ampGpuLossScalerBeginStep(scaler), 0);
  EXPECT_EQ(ampGpuCheckFiniteAndUnscale(scaler, empty), 0);
  EXPECT_EQ(ampGpuCheckFiniteAndUnscale(scaler, zeroSized), 0);
  EXPECT_EQ(readDevice(ampGpuLossScalerFoundInfPtr(scaler)), 0.0f);

  DeviceMemory memory(64);
  void *misaligned[1] = {memory.at(2)};
  int64_t four[1] = {4};
  ampClearError();
  EXPECT_EQ(ampGpuTensorTableCreate(misaligned, four, 1, AMP_DTYPE_F32),
            nullptr);
  EXPECT_TRUE(contains(ampLastError(), "ampGpuTensorTableCreate: tensor 0"))
      << ampLastError();
  EXPECT_EQ(ampGpuTensorTableCreate(nulls, four, 1, AMP_DTYPE_F16), nullptr);
  EXPECT_TRUE(contains(ampLastError(), "null pointer")) << ampLastError();
  EXPECT_EQ(ampGpuTensorTableCreate(misaligned, four, 1, 7), nullptr);
  EXPECT_TRUE(contains(ampLastError(), "dtype")) << ampLastError();
  int64_t negative[1] = {-1};
  EXPECT_EQ(ampGpuTensorTableCreate(misaligned, negative, 1, AMP_DTYPE_F16),
            nullptr);
  EXPECT_EQ(ampGpuTensorTableCreate(misaligned, four, -1, AMP_DTYPE_F16),
            nullptr);
  EXPECT_NE(ampGpuCheckFiniteAndUnscale(scaler, nullptr), 0);
  EXPECT_NE(ampGpuCheckFiniteAndUnscale(nullptr, empty), 0);

  AmpLossScalerConfig invalid = cfg;
  invalid.growth_factor = 0.5f;
  EXPECT_EQ(ampGpuLossScalerCreate(&invalid), nullptr);
  EXPECT_TRUE(contains(ampLastError(), "ampGpuLossScalerCreate: "))
      << ampLastError();
  EXPECT_TRUE(contains(ampLastError(), "growth_factor")) << ampLastError();

  ampGpuTensorTableDestroy(zeroSized);
  ampGpuTensorTableDestroy(empty);
  ampGpuLossScalerDestroy(scaler);
}

//===----------------------------------------------------------------------===//
// One buffer: ampGpuCheckFiniteAndUnscaleBuffer against its CPU twin
//===----------------------------------------------------------------------===//

/// The found_inf byte of both twins inside 16 bytes of guard values (device
/// and host mirror), so that a store to any other byte shows up.
struct TwinFlags {
  static constexpr size_t kAt = 5;
  DeviceMemory device{16};
  std::array<unsigned char, 16> host;

  void reset(unsigned char value) {
    host.fill(0x5a);
    host[kAt] = value;
    device.upload(host.data(), host.size());
  }
  uint8_t *devicePtr() { return reinterpret_cast<uint8_t *>(device.at(kAt)); }
  uint8_t *hostPtr() { return &host[kAt]; }
  /// The device bytes equal the host ones; returns the device flag.
  unsigned char expectSame() {
    std::array<unsigned char, 16> got;
    device.download(got.data(), got.size());
    EXPECT_EQ(got, host) << "flag: gpu " << int(got[kAt]) << ", cpu "
                         << int(host[kAt]);
    return got[kAt];
  }
};

/// Random elements (raw bits), finite unless `raw`, with one planted Inf/NaN
/// (quiet or signalling, payloads) at a random element of [first, last) if
/// `plant`.
std::vector<unsigned char> bufferBytes(int32_t dtype, size_t count,
                                       std::mt19937 &rng, bool raw, bool plant,
                                       size_t first, size_t last) {
  const size_t es = elementSize(dtype);
  std::vector<unsigned char> bytes(count * es);
  std::uniform_int_distribution<uint32_t> bits;
  for (size_t i = 0; i < count; ++i) {
    uint32_t word = bits(rng);
    if (!raw)
      word &= dtype == AMP_DTYPE_F32 ? 0xbfffffffu : 0xbfffu;
    std::memcpy(&bytes[i * es], &word, es);
  }
  if (plant && last > first) {
    static const uint32_t f32[] = {0x7f800000u, 0xff800000u, 0x7fc00000u,
                                   0xffc12345u, 0x7f800001u, 0x7fa00005u};
    static const uint32_t f16[] = {0x7c00u, 0xfc00u, 0x7e00u,
                                   0xfe3du, 0x7c01u, 0x7d55u};
    static const uint32_t bf16[] = {0x7f80u, 0xff80u, 0x7fc0u,
                                    0xffc5u, 0x7f81u, 0x7fa3u};
    const uint32_t *table = dtype == AMP_DTYPE_F32   ? f32
                            : dtype == AMP_DTYPE_F16 ? f16
                                                     : bf16;
    std::uniform_int_distribution<size_t> where(first, last - 1);
    std::uniform_int_distribution<int> which(0, 5);
    std::memcpy(&bytes[where(rng) * es], &table[which(rng)], es);
  }
  return bytes;
}

/// Reports the first differing elements of two byte buffers.
void expectSameBytes(const std::vector<unsigned char> &gpu,
                     const std::vector<unsigned char> &cpu,
                     const std::vector<unsigned char> &input, size_t es,
                     const char *what) {
  ASSERT_EQ(gpu.size(), cpu.size());
  size_t bad = 0;
  for (size_t e = 0; e * es < cpu.size(); ++e) {
    if (std::memcmp(&gpu[e * es], &cpu[e * es], es) == 0)
      continue;
    uint32_t g = 0, c = 0, in = 0;
    std::memcpy(&g, &gpu[e * es], es);
    std::memcpy(&c, &cpu[e * es], es);
    if (e * es < input.size())
      std::memcpy(&in, &input[e * es], es);
    if (bad++ < 10)
      ADD_FAILURE() << what << " element " << e << ": input 0x" << std::hex
                    << in << " gpu 0x" << g << " cpu 0x" << c;
  }
  EXPECT_EQ(bad, 0u) << what;
}

/// One call of both twins on the same bytes. `in` starts `inOffset`
/// elements into its allocation; out of place, `out` starts `outOffset`
/// elements into another one (allocations are at least 16-byte aligned), so
/// the offsets choose the misalignments. Every byte of both allocations (guards
/// included) and of the flag block is compared afterwards. The flags are
/// not reset here.
void runBufferTwins(int32_t dtype, int64_t numel, size_t inOffset, bool inPlace,
                    size_t outOffset, const std::vector<unsigned char> &inBytes,
                    std::mt19937 &rng, float inv, const float *deviceInv,
                    TwinFlags &flags) {
  SCOPED_TRACE(testing::Message()
               << "dtype " << dtype << ", numel " << numel << ", inv " << inv
               << ", in offset " << inOffset
               << (inPlace ? std::string(", in place")
                           : ", out offset " + std::to_string(outOffset)));
  const size_t es = elementSize(dtype);
  DeviceMemory inDevice(inBytes.size());
  inDevice.upload(inBytes.data(), inBytes.size());
  std::vector<unsigned char> outBytes;
  std::unique_ptr<DeviceMemory> outDevice;
  if (!inPlace) {
    outBytes = bufferBytes(dtype, outOffset + numel + 5, rng, /*raw=*/true,
                           false, 0, 0);
    outDevice = std::make_unique<DeviceMemory>(outBytes.size());
    outDevice->upload(outBytes.data(), outBytes.size());
  }
  const void *gpuIn = inDevice.at(inOffset * es);
  void *gpuOut =
      inPlace ? inDevice.at(inOffset * es) : outDevice->at(outOffset * es);
  ampGpuCheckFiniteAndUnscaleBuffer(gpuIn, gpuOut, numel, dtype, deviceInv,
                                    flags.devicePtr());

  std::vector<unsigned char> cpuIn = inBytes, cpuOut = outBytes;
  void *cpuOutPtr =
      inPlace ? cpuIn.data() + inOffset * es : cpuOut.data() + outOffset * es;
  ampCpuCheckFiniteAndUnscaleBuffer(cpuIn.data() + inOffset * es, cpuOutPtr,
                                    numel, dtype, &inv, flags.hostPtr());

  std::vector<unsigned char> gpuInBytes(inBytes.size());
  inDevice.download(gpuInBytes.data(), gpuInBytes.size());
  expectSameBytes(gpuInBytes, cpuIn, inBytes, es, "in");
  if (!inPlace) {
    std::vector<unsigned char> gpuOutBytes(outBytes.size());
    outDevice->download(gpuOutBytes.data(), gpuOutBytes.size());
    std::vector<unsigned char> shifted(inBytes.begin() + inOffset * es,
                                       inBytes.end());
    shifted.insert(shifted.begin(), outOffset * es, 0);
    expectSameBytes(gpuOutBytes, cpuOut, shifted, es, "out");
  }
  flags.expectSame();
}

/// Element offsets of in (and out) in their allocations: aligned, misaligned
/// by the same amount (the 16-byte path after a scalar head), and misaligned
/// differently (the element-wise path).
struct OffsetCase {
  size_t in;
  bool inPlace;
  size_t out;
};
const OffsetCase kOffsetCases[] = {
    {0, true, 0},  {1, true, 0},  {3, true, 0},  {7, true, 0},
    {0, false, 0}, {1, false, 1}, {3, false, 3}, {1, false, 5},
    {1, false, 9}, {2, false, 5}, {3, false, 0}, {0, false, 7},
};
constexpr size_t kNumOffsetCases = sizeof(kOffsetCases) / sizeof(OffsetCase);

TEST_F(GpuLossScaling, BufferEntryMatchesCpuTwinBitForBit) {
  std::mt19937 rng(23);
  const int64_t smallSizes[] = {1,  2,  3,   4,   5,    7,    8,
                                9,  15, 16,  17,  31,   33,   63,
                                64, 65, 255, 257, 1000, 4097, 65537};
  const int64_t largeSizes[] = {(int64_t(1) << 20) + 3, 3000017};
  // 1/65536, 1/3 (not a power of two), > 1, and 1 (no multiply: in place
  // nothing is written, NaN bits are kept).
  const float invs[] = {1.0f / 65536.0f, static_cast<float>(1.0 / 3.0), 8.0f,
                        1.0f};
  DeviceMemory invDevice(sizeof(float));
  TwinFlags flags;
  for (int32_t dtype : {AMP_DTYPE_F32, AMP_DTYPE_F16, AMP_DTYPE_BF16}) {
    for (float inv : invs) {
      invDevice.upload(&inv, sizeof(inv));
      const float *deviceInv = static_cast<const float *>(invDevice.ptr);
      auto group = [&](int64_t numel, size_t sizeIndex, bool all) {
        // One group of calls accumulates into the flag: all finite, then
        // one with an Inf/NaN (the flag becomes 1), then finite ones and
        // one of raw random bits (it stays 1).
        flags.reset(0);
        const size_t plantAt = sizeIndex % kNumOffsetCases;
        for (size_t k = 0; k < kNumOffsetCases; ++k) {
          if (!all && k % 4 != plantAt % 4)
            continue;
          const OffsetCase &c = kOffsetCases[k];
          bool plant = k == plantAt || (!all && k == plantAt % 4);
          bool raw = k == (plantAt + 6) % kNumOffsetCases;
          size_t count = c.in + static_cast<size_t>(numel) + 5;
          std::vector<unsigned char> input =
              bufferBytes(dtype, count, rng, raw, plant, c.in, c.in + numel);
          unsigned char before = flags.host[TwinFlags::kAt];
          runBufferTwins(dtype, numel, c.in, c.inPlace, c.out, input, rng, inv,
                         deviceInv, flags);
          const unsigned char after = flags.host[TwinFlags::kAt];
          if (plant || before == 1) {
            EXPECT_EQ(after, 1) << "flag not set or cleared";
          } else if (!raw) {
            EXPECT_EQ(after, 0);
          }
        }
      };
      for (size_t i = 0; i < sizeof(smallSizes) / sizeof(int64_t); ++i)
        group(smallSizes[i], i, /*all=*/true);
      for (size_t i = 0; i < sizeof(largeSizes) / sizeof(int64_t); ++i)
        group(largeSizes[i], i, /*all=*/false);
    }
  }
}

TEST_F(GpuLossScaling, InvalidInverseScaleOrOverflowSetsFoundInf) {
  // The rule of every unscale entry point: found_inf for any non-finite
  // value read or written. An inverse scale that is not finite and > 0 sets
  // the flag and writes nothing (as the CPU twin, compared byte for byte);
  // finite inputs whose result overflows (inv = 2) set it too.
  std::mt19937 rng(37);
  DeviceMemory invDevice(sizeof(float));
  TwinFlags flags;
  for (float inv : {NAN, INFINITY, -INFINITY, 0.0f, -1.0f, 2.0f}) {
    invDevice.upload(&inv, sizeof(inv));
    const float *deviceInv = static_cast<const float *>(invDevice.ptr);
    for (int32_t dtype : {AMP_DTYPE_F32, AMP_DTYPE_F16, AMP_DTYPE_BF16}) {
      for (int64_t numel : {int64_t(1), int64_t(33), int64_t(70001)}) {
        std::vector<unsigned char> input =
            bufferBytes(dtype, static_cast<size_t>(numel) + 6, rng,
                        /*raw=*/false, /*plant=*/false, 0, 0);
        // The largest finite value at the last element: overflows with 2.
        const uint32_t largest = dtype == AMP_DTYPE_F32   ? 0x7f7fffffu
                                 : dtype == AMP_DTYPE_F16 ? 0x7bffu
                                                          : 0x7f7fu;
        const size_t es = elementSize(dtype);
        std::memcpy(&input[(3 + numel - 1) * es], &largest, es);
        for (const OffsetCase &c : {kOffsetCases[1], kOffsetCases[5]}) {
          flags.reset(0);
          runBufferTwins(dtype, numel, 3, c.inPlace, c.out, input, rng, inv,
                         deviceInv, flags);
          EXPECT_EQ(flags.host[TwinFlags::kAt], 1) << "inv " << inv;
        }
      }
    }
  }
  // The table entry point with an invalid 1/scale on the device: found_inf
  // is set and the tensor keeps its bytes.
  AmpGpuLossScaler *scaler = ampGpuLossScalerCreate(nullptr);
  ASSERT_NE(scaler, nullptr) << ampLastError();
  std::vector<float> host = {1.0f, -2.0f, 3.0f, 4.0f};
  DeviceMemory data(host.size() * sizeof(float));
  data.upload(host.data(), host.size() * sizeof(float));
  void *ptrs[1] = {data.ptr};
  int64_t numels[1] = {4};
  AmpGpuTensorTable *table =
      ampGpuTensorTableCreate(ptrs, numels, 1, AMP_DTYPE_F32);
  ASSERT_NE(table, nullptr) << ampLastError();
  for (float inv : {NAN, INFINITY, 0.0f, -0.5f}) {
    writeDevice(ampGpuLossScalerInvScalePtr(scaler), inv);
    ASSERT_EQ(ampGpuLossScalerBeginStep(scaler), 0);
    ASSERT_EQ(ampGpuCheckFiniteAndUnscale(scaler, table), 0);
    EXPECT_NE(readDevice(ampGpuLossScalerFoundInfPtr(scaler)), 0.0f) << inv;
    std::vector<float> back(4);
    data.download(back.data(), back.size() * sizeof(float));
    EXPECT_EQ(back, host) << inv;
  }
  // Valid, but the result overflows: 2 * FLT_MAX.
  host[2] = FLT_MAX;
  data.upload(host.data(), host.size() * sizeof(float));
  writeDevice(ampGpuLossScalerInvScalePtr(scaler), 2.0f);
  ASSERT_EQ(ampGpuLossScalerBeginStep(scaler), 0);
  ASSERT_EQ(ampGpuCheckFiniteAndUnscale(scaler, table), 0);
  EXPECT_NE(readDevice(ampGpuLossScalerFoundInfPtr(scaler)), 0.0f);
  ampGpuTensorTableDestroy(table);
  ampGpuLossScalerDestroy(scaler);
}

TEST_F(GpuLossScaling, BufferFlagAccumulatesOverCallsWithoutSync) {
  // Several gradients of different types OR into one flag, all enqueued
  // before anything is read back; a clean buffer never clears it.
  std::mt19937 rng(29);
  const float inv = 0.125f;
  DeviceMemory invDevice(sizeof(float));
  invDevice.upload(&inv, sizeof(inv));
  const float *deviceInv = static_cast<const float *>(invDevice.ptr);
  struct Grad {
    int32_t dtype;
    int64_t numel;
    bool plant;
  };
  const Grad grads[] = {{AMP_DTYPE_F32, 1001, false},
                        {AMP_DTYPE_F16, 77, false},
                        {AMP_DTYPE_BF16, 40000, true},
                        {AMP_DTYPE_F32, 3, false},
                        {AMP_DTYPE_F16, 100003, false}};
  for (bool withInf : {false, true}) {
    TwinFlags flags;
    flags.reset(0);
    std::vector<std::vector<unsigned char>> host;
    std::vector<std::unique_ptr<DeviceMemory>> device;
    for (size_t g = 0; g < 5; ++g) {
      const Grad &grad = grads[g];
      bool plant = withInf && grad.plant;
      host.push_back(bufferBytes(grad.dtype, grad.numel, rng, false, plant, 0,
                                 grad.numel));
      device.push_back(std::make_unique<DeviceMemory>(host.back().size()));
      device.back()->upload(host.back().data(), host.back().size());
    }
    std::vector<std::vector<unsigned char>> cpu = host;
    for (size_t g = 0; g < 5; ++g) {
      ampGpuCheckFiniteAndUnscaleBuffer(device[g]->ptr, device[g]->ptr,
                                        grads[g].numel, grads[g].dtype,
                                        deviceInv, flags.devicePtr());
      ampCpuCheckFiniteAndUnscaleBuffer(cpu[g].data(), cpu[g].data(),
                                        grads[g].numel, grads[g].dtype, &inv,
                                        flags.hostPtr());
    }
    EXPECT_EQ(flags.expectSame(), withInf ? 1 : 0);
    for (size_t g = 0; g < 5; ++g) {
      std::vector<unsigned char> gpu(cpu[g].size());
      device[g]->download(gpu.data(), gpu.size());
      expectSameBytes(gpu, cpu[g], host[g], elementSize(grads[g].dtype),
                      "gradient");
    }
  }
  // A flag that is already set stays set after clean buffers.
  TwinFlags flags;
  flags.reset(1);
  std::vector<unsigned char> clean =
      bufferBytes(AMP_DTYPE_F16, 999, rng, false, false, 0, 0);
  DeviceMemory cleanDevice(clean.size());
  cleanDevice.upload(clean.data(), clean.size());
  for (int i = 0; i < 3; ++i)
    ampGpuCheckFiniteAndUnscaleBuffer(cleanDevice.ptr, cleanDevice.ptr, 999,
                                      AMP_DTYPE_F16, deviceInv,
                                      flags.devicePtr());
  EXPECT_EQ(flags.expectSame(), 1);
  // numel 0 launches nothing.
  ampGpuCheckFiniteAndUnscaleBuffer(nullptr, nullptr, 0, AMP_DTYPE_F32, nullptr,
                                    nullptr);
}

TEST_F(GpuLossScaling, BuffersTableIsBitIdenticalToItsCpuTwin) {
  // ampGpuCheckFiniteAndUnscaleBuffers (one launch for every gradient, what
  // --lower-to-gpu emits) against ampCpuCheckFiniteAndUnscaleBuffers: mixed
  // types, in place and out of place, an empty entry, more entries than one
  // launch holds (96), with and without a planted Inf, and invalid scales.
  std::mt19937 rng(41);
  for (float inv : {0.125f, 1.0f, NAN, 0.0f}) {
    for (bool withInf : {false, true}) {
      SCOPED_TRACE(testing::Message() << "inv " << inv << " inf " << withInf);
      DeviceMemory invDevice(sizeof(float));
      invDevice.upload(&inv, sizeof(inv));
      const int count = 100; // Two launches.
      std::vector<std::vector<unsigned char>> host, cpuIn, cpuOut;
      std::vector<std::unique_ptr<DeviceMemory>> devIn, devOut;
      std::vector<const void *> gpuIns, cpuIns;
      std::vector<void *> gpuOuts, cpuOuts;
      std::vector<int64_t> numels;
      std::vector<int32_t> dtypes;
      for (int i = 0; i < count; ++i) {
        int32_t dtype = i % 3 == 0   ? AMP_DTYPE_F32
                        : i % 3 == 1 ? AMP_DTYPE_F16
                                     : AMP_DTYPE_BF16;
        int64_t numel = i == 7 ? 0 : (i == 50 ? 70001 : 1 + (i * 37) % 613);
        bool plant = withInf && i == 98;
        host.push_back(
            bufferBytes(dtype, numel, rng, false, plant, 0, numel));
        numels.push_back(numel);
        dtypes.push_back(dtype);
      }
      cpuIn = host;
      cpuOut = host;
      for (int i = 0; i < count; ++i) {
        bool outOfPlace = i % 2 == 1;
        size_t bytes = std::max<size_t>(host[i].size(), 16);
        devIn.push_back(std::make_unique<DeviceMemory>(bytes));
        devIn.back()->upload(host[i].data(), host[i].size());
        devOut.push_back(std::make_unique<DeviceMemory>(bytes));
        devOut.back()->upload(host[i].data(), host[i].size());
        gpuIns.push_back(devIn.back()->ptr);
        gpuOuts.push_back(outOfPlace ? devOut.back()->ptr : devIn.back()->ptr);
        cpuIns.push_back(cpuIn[i].data());
        cpuOuts.push_back(outOfPlace ? cpuOut[i].data() : cpuIn[i].data());
      }
      TwinFlags flags;
      flags.reset(0);
      ampGpuCheckFiniteAndUnscaleBuffers(
          count, gpuIns.data(), gpuOuts.data(), numels.data(), dtypes.data(),
          static_cast<const float *>(invDevice.ptr), flags.devicePtr());
      ampCpuCheckFiniteAndUnscaleBuffers(count, cpuIns.data(), cpuOuts.data(),
                                         numels.data(), dtypes.data(), &inv,
                                         flags.hostPtr());
      bool valid = std::isfinite(inv) && inv > 0.0f;
      EXPECT_EQ(flags.expectSame(), (withInf || !valid) ? 1 : 0);
      for (int i = 0; i < count; ++i) {
        std::vector<unsigned char> gpuIn(host[i].size()),
            gpuOut(host[i].size());
        devIn[i]->download(gpuIn.data(), gpuIn.size());
        devOut[i]->download(gpuOut.data(), gpuOut.size());
        expectSameBytes(gpuIn, cpuIn[i], host[i], elementSize(dtypes[i]),
                        "in");
        expectSameBytes(gpuOut, cpuOut[i], host[i], elementSize(dtypes[i]),
                        "out");
      }
    }
  }
}

TEST(GpuLossScalingBuffer, ArgumentErrorsReachTheHandler) {
  // Checked on the host before any GPU use: the same with or without one.
  amp_test::GpuTestBase::errors().clear();
  ampSetErrorHandler(amp_test::GpuTestBase::recordingHandler);
  alignas(16) static uint16_t data[16];
  const float *inv = reinterpret_cast<const float *>(&data[8]);
  uint8_t *flag = reinterpret_cast<uint8_t *>(&data[12]);
  ampGpuCheckFiniteAndUnscaleBuffer(data, data, 4, 3, inv, flag);
  ampGpuCheckFiniteAndUnscaleBuffer(data, data, -4, AMP_DTYPE_F16, inv, flag);
  ampGpuCheckFiniteAndUnscaleBuffer(nullptr, data, 4, AMP_DTYPE_F16, inv, flag);
  ampGpuCheckFiniteAndUnscaleBuffer(data, data, 4, AMP_DTYPE_F16, inv, nullptr);
  ampGpuCheckFiniteAndUnscaleBuffer(data, data + 1, 4, AMP_DTYPE_F16, inv,
                                    flag);
  ampGpuCheckFiniteAndUnscaleBuffer(data + 1, data + 6, 2, AMP_DTYPE_F32, inv,
                                    flag);
  ampGpuCheckFiniteAndUnscaleBuffer(nullptr, nullptr, 0, AMP_DTYPE_F16, nullptr,
                                    nullptr); // Nothing to do.
  ampSetErrorHandler(nullptr);
  const char *expected[] = {
      "dtype must be F32, F16 or BF16, got 3",
      "numel must be in [0, 2^54], got -4",
      "in is NULL with numel 4",
      "foundInf is NULL with numel 4",
      "overlap",
      "is not aligned to its 4-byte f32 elements",
  };
  ASSERT_EQ(amp_test::GpuTestBase::errors().size(),
            sizeof(expected) / sizeof(expected[0]));
  for (size_t i = 0; i < amp_test::GpuTestBase::errors().size(); ++i) {
    EXPECT_TRUE(contains(amp_test::GpuTestBase::errors()[i],
                         "ampGpuCheckFiniteAndUnscaleBuffer: "))
        << amp_test::GpuTestBase::errors()[i];
    EXPECT_TRUE(contains(amp_test::GpuTestBase::errors()[i], expected[i]))
        << amp_test::GpuTestBase::errors()[i];
  }
}

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

/// One parameter's buffers in a shared arena (byte offsets; misalign adds
/// one element to the start of the named buffer).
struct ParamLayout {
  int64_t numel;
  int32_t gradType;
  int32_t lowpType; // -1: no lowp.
  bool misalignMaster, misalignGrad;
};

struct OptimizerFixture {
  std::vector<ParamLayout> layout;
  struct Offsets {
    size_t master, lowp, grad, state0, state1;
  };
  std::vector<Offsets> offsets;
  std::vector<unsigned char> host;
  std::unique_ptr<DeviceMemory> device;

  explicit OptimizerFixture(const std::vector<ParamLayout> &layout)
      : layout(layout) {
    size_t next = 0;
    auto place = [&](int64_t numel, size_t esize, bool misalign) {
      next = (next + 255) & ~size_t(255);
      if (misalign)
        next += esize;
      size_t at = next;
      next += static_cast<size_t>(numel) * esize;
      return at;
    };
    for (const ParamLayout &p : layout) {
      Offsets o;
      o.master = place(p.numel, 4, p.misalignMaster);
      o.lowp =
          place(p.numel, p.lowpType < 0 ? 4 : elementSize(p.lowpType), false);
      o.grad = place(p.numel, elementSize(p.gradType), p.misalignGrad);
      o.state0 = place(p.numel, 4, false);
      o.state1 = place(p.numel, 4, false);
      offsets.push_back(o);
    }
    host.assign(next + 256, 0);
    device = std::make_unique<DeviceMemory>(host.size());
  }

  float *f32(std::vector<unsigned char> &bytes, size_t offset) {
    return reinterpret_cast<float *>(bytes.data() + offset);
  }
  uint16_t *u16(std::vector<unsigned char> &bytes, size_t offset) {
    return reinterpret_cast<uint16_t *>(bytes.data() + offset);
  }

  void storeValue(size_t offset, int32_t type, int64_t i, float value) {
    if (type == AMP_DTYPE_F32)
      f32(host, offset)[i] = value;
    else
      u16(host, offset)[i] =
          type == AMP_DTYPE_F16 ? ampF32ToF16(value) : ampF32ToBF16(value);
  }

  /// Random masters (with their rounded working copies), zero state.
  void initialise(std::mt19937 &rng) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (size_t k = 0; k < layout.size(); ++k)
      for (int64_t i = 0; i < layout[k].numel; ++i) {
        float p = dist(rng);
        f32(host, offsets[k].master)[i] = p;
        if (layout[k].lowpType >= 0)
          storeValue(offsets[k].lowp, layout[k].lowpType, i, p);
      }
  }

  /// New gradients (times `gradScale`), in host and device memory.
  void newGradients(std::mt19937 &rng, float gradScale) {
    std::normal_distribution<float> dist(0.0f, 0.5f);
    for (size_t k = 0; k < layout.size(); ++k)
      for (int64_t i = 0; i < layout[k].numel; ++i)
        storeValue(offsets[k].grad, layout[k].gradType, i,
                   dist(rng) * gradScale);
  }

  /// The host gradients into `cpu` (the CPU's copy of the arena) and into
  /// device memory: the same gradients on both sides.
  void shareGradients(std::vector<unsigned char> &cpu) {
    for (size_t k = 0; k < layout.size(); ++k) {
      const Offsets &o = offsets[k];
      size_t bytes = layout[k].numel * elementSize(layout[k].gradType);
      std::memcpy(&cpu[o.grad], &host[o.grad], bytes);
      if (bytes)
        device->upload(&host[o.grad], bytes, o.grad);
    }
  }

  std::vector<AmpOptimizerParam> params(unsigned char *base) {
    std::vector<AmpOptimizerParam> out;
    for (size_t k = 0; k < layout.size(); ++k) {
      const ParamLayout &p = layout[k];
      const Offsets &o = offsets[k];
      AmpOptimizerParam param;
      std::memset(&param, 0, sizeof(param));
      bool empty = p.numel == 0;
      param.master =
          empty ? nullptr : reinterpret_cast<float *>(base + o.master);
      param.lowp = empty || p.lowpType < 0 ? nullptr : base + o.lowp;
      param.lowp_type = p.lowpType < 0 ? AMP_DTYPE_F16 : p.lowpType;
      param.grad = empty ? nullptr : base + o.grad;
      param.grad_type = p.gradType;
      param.state0 =
          empty ? nullptr : reinterpret_cast<float *>(base + o.state0);
      param.state1 =
          empty ? nullptr : reinterpret_cast<float *>(base + o.state1);
      param.numel = p.numel;
      out.push_back(param);
    }
    return out;
  }

  int64_t ulps(float a, float b) {
    if (bitsOf(a) == bitsOf(b))
      return 0;
    if (std::isnan(a) || std::isnan(b))
      return INT64_MAX;
    auto ordered = [](float x) {
      int32_t i;
      std::memcpy(&i, &x, 4);
      return i < 0 ? int64_t(INT32_MIN) - i : int64_t(i);
    };
    return std::llabs(ordered(a) - ordered(b));
  }

  /// Compares the GPU bytes with the CPU bytes: masters and states within
  /// one ulp (bit-identical unless the CPU library contracts into FMAs),
  /// working copies bit-identical where the masters are.
  void compare(std::vector<unsigned char> &gpu, std::vector<unsigned char> &cpu,
               bool usesState0, bool usesState1) {
    int64_t inexact = 0, maxUlps = 0, lowpBad = 0;
    for (size_t k = 0; k < layout.size(); ++k) {
      const ParamLayout &p = layout[k];
      const Offsets &o = offsets[k];
      for (int64_t i = 0; i < p.numel; ++i) {
        float gm = f32(gpu, o.master)[i], cm = f32(cpu, o.master)[i];
        int64_t d = ulps(gm, cm);
        if (usesState0)
          d = std::max(d, ulps(f32(gpu, o.state0)[i], f32(cpu, o.state0)[i]));
        if (usesState1)
          d = std::max(d, ulps(f32(gpu, o.state1)[i], f32(cpu, o.state1)[i]));
        maxUlps = std::max(maxUlps, d);
        if (d != 0 && inexact++ < 5)
          ADD_FAILURE_AT(__FILE__, __LINE__)
              << "param " << k << " element " << i << ": master gpu " << gm
              << " cpu " << cm << " (" << d << " ulp incl. state)";
        if (p.lowpType >= 0 && bitsOf(gm) == bitsOf(cm)) {
          size_t es = elementSize(p.lowpType);
          if (std::memcmp(&gpu[o.lowp + i * es], &cpu[o.lowp + i * es], es))
            ++lowpBad;
        }
      }
    }
    EXPECT_LE(maxUlps, 1);
#if !defined(__FMA__)
    EXPECT_EQ(inexact, 0) << "max " << maxUlps << " ulp";
    // Everything else too: gradients, unused buffers, the gaps between.
    EXPECT_TRUE(gpu == cpu) << "bytes outside the updated buffers differ";
#endif
    EXPECT_EQ(lowpBad, 0);
  }
};

std::vector<ParamLayout> optimizerLayout() {
  const int64_t chunk = 16384; // kOptChunkElements
  return {
      {1000, AMP_DTYPE_F16, AMP_DTYPE_F16, false, false},
      {1027, AMP_DTYPE_BF16, AMP_DTYPE_BF16, false, false},
      {777, AMP_DTYPE_F32, -1, false, false},
      {33, AMP_DTYPE_F32, AMP_DTYPE_F16, true, false}, // Scalar path.
      {0, AMP_DTYPE_F16, AMP_DTYPE_F16, false, false}, // Empty.
      {2 * chunk + 5, AMP_DTYPE_F16, AMP_DTYPE_F32, false, false},
      {5, AMP_DTYPE_BF16, AMP_DTYPE_BF16, false, true}, // Scalar path.
      {3, AMP_DTYPE_F16, AMP_DTYPE_BF16, false, false},
  };
}

struct OptimizerCase {
  const char *name;
  AmpOptimizerConfig cfg;
};

std::vector<OptimizerCase> optimizerCases() {
  std::vector<OptimizerCase> cases;
  AmpOptimizerConfig cfg;
  ampOptimizerConfigDefault(AMP_OPTIMIZER_SGD, &cfg);
  cfg.lr = 0.05f;
  cfg.weight_decay = 0.01f;
  cases.push_back({"sgd", cfg});
  ampOptimizerConfigDefault(AMP_OPTIMIZER_MOMENTUM, &cfg);
  cfg.lr = 0.02f;
  cfg.dampening = 0.1f;
  cfg.weight_decay = 1e-3f;
  cases.push_back({"momentum", cfg});
  cfg.dampening = 0.0f;
  cfg.nesterov = 1;
  cases.push_back({"nesterov", cfg});
  cfg.nesterov = 0;
  cfg.momentum = 0.0f;
  cases.push_back({"momentum-0", cfg});
  ampOptimizerConfigDefault(AMP_OPTIMIZER_ADAM, &cfg);
  cfg.lr = 3e-3f;
  cfg.weight_decay = 0.01f;
  cases.push_back({"adam", cfg});
  ampOptimizerConfigDefault(AMP_OPTIMIZER_ADAMW, &cfg);
  cfg.lr = 1e-2f;
  cfg.weight_decay = 0.1f;
  cfg.beta2 = 0.95f;
  cases.push_back({"adamw", cfg});
  return cases;
}

TEST_F(GpuLossScaling, OptimizersMatchCpuAndSkipLeavesEveryByte) {
  const float kScale = 1024.0f, kInv = 1.0f / 1024.0f;
  for (const OptimizerCase &c : optimizerCases()) {
    SCOPED_TRACE(c.name);
    std::mt19937 rng(99);
    OptimizerFixture fx(optimizerLayout());
    fx.initialise(rng);
    std::vector<unsigned char> cpu = fx.host;
    fx.device->upload(fx.host.data(), fx.host.size());
    std::vector<AmpOptimizerParam> gpuParams =
        fx.params(static_cast<unsigned char *>(fx.device->ptr));
    AmpGpuOptimizer *gpu = ampGpuOptimizerCreate(
        &c.cfg, gpuParams.data(), static_cast<int64_t>(gpuParams.size()));
    ASSERT_NE(gpu, nullptr) << ampLastError();
    AmpOptimizer *host = ampOptimizerCreate(&c.cfg);
    ASSERT_NE(host, nullptr) << ampLastError();
    AmpLossScalerConfig scalerCfg = staticScale(kScale);
    AmpGpuLossScaler *scaler = ampGpuLossScalerCreate(&scalerCfg);
    ASSERT_NE(scaler, nullptr) << ampLastError();
    float *foundInf = ampGpuLossScalerFoundInfPtr(scaler);
    const float *invScale = ampGpuLossScalerInvScalePtr(scaler);
    bool usesState0 =
        c.cfg.kind != AMP_OPTIMIZER_SGD &&
        !(c.cfg.kind == AMP_OPTIMIZER_MOMENTUM && c.cfg.momentum == 0.0f);
    bool usesState1 = c.cfg.kind >= AMP_OPTIMIZER_ADAM;

    // Steps: scaled grads with the scaler's inv_scale and found_inf,
    // unscaled grads with NULL pointers, and two skipped steps.
    enum Mode { kScaled, kUnscaled, kSkipped };
    const Mode modes[] = {kScaled, kScaled,  kSkipped, kUnscaled,
                          kScaled, kSkipped, kScaled,  kUnscaled};
    for (Mode mode : modes) {
      fx.newGradients(rng, mode == kUnscaled ? 1.0f : kScale);
      // Same gradients on both sides; the CPU copy keeps its own state.
      fx.shareGradients(cpu);
      std::vector<unsigned char> before(fx.host.size());
      fx.device->download(before.data(), before.size());
      int64_t stepBefore = ampGpuOptimizerGetStep(gpu);
      ASSERT_EQ(ampGpuLossScalerBeginStep(scaler), 0);
      if (mode == kSkipped)
        writeDevice(foundInf, 1.0f);
      int rc = mode == kUnscaled ? ampGpuOptimizerStep(gpu, nullptr, nullptr)
                                 : ampGpuOptimizerStep(gpu, foundInf, invScale);
      ASSERT_EQ(rc, 0) << ampLastError();
      std::vector<unsigned char> after(fx.host.size());
      fx.device->download(after.data(), after.size());

      std::vector<AmpOptimizerParam> cpuParams = fx.params(cpu.data());
      int applied = ampOptimizerStep(
          host, cpuParams.data(), static_cast<int64_t>(cpuParams.size()),
          mode == kUnscaled ? 1.0f : kInv, mode == kSkipped ? 1 : 0);
      ASSERT_EQ(applied, mode == kSkipped ? 0 : 1) << ampLastError();
      EXPECT_EQ(ampGpuOptimizerGetStep(gpu), ampOptimizerGetStep(host));
      if (mode == kSkipped) {
        EXPECT_EQ(ampGpuOptimizerGetStep(gpu), stepBefore);
        EXPECT_TRUE(before == after) << "a skipped step wrote device memory";
      }
      fx.compare(after, cpu, usesState0, usesState1);
      if (testing::Test::HasFailure())
        break;
    }
    EXPECT_EQ(ampGpuOptimizerGetStep(gpu), 6);
    ampGpuLossScalerDestroy(scaler);
    ampOptimizerDestroy(host);
    ampGpuOptimizerDestroy(gpu);
  }
}

/// The table of ampGpu/ampCpuOptimizerUpdateBuffers for the fixture's
/// parameters: current values in the arena at `from`, destinations in the
/// arena at `to` (the same one: in place), gradients in the arena at
/// `grads`; the arrays the compiled step fills.
struct UpdateTable {
  std::vector<const float *> params, state0, state1;
  std::vector<float *> paramsOut, state0Out, state1Out;
  std::vector<const void *> grads;
  std::vector<int32_t> gradTypes;
  std::vector<int64_t> numels;

  UpdateTable(OptimizerFixture &fx, unsigned char *from, unsigned char *to,
              unsigned char *gradBase) {
    std::vector<AmpOptimizerParam> current = fx.params(from);
    std::vector<AmpOptimizerParam> next = fx.params(to);
    std::vector<AmpOptimizerParam> gradients = fx.params(gradBase);
    for (size_t k = 0; k < current.size(); ++k) {
      params.push_back(current[k].master);
      state0.push_back(current[k].state0);
      state1.push_back(current[k].state1);
      paramsOut.push_back(next[k].master);
      state0Out.push_back(next[k].state0);
      state1Out.push_back(next[k].state1);
      grads.push_back(gradients[k].grad);
      gradTypes.push_back(current[k].grad_type);
      numels.push_back(current[k].numel);
    }
  }

  /// One call of `fn` (the GPU entry point or its CPU twin).
  template <typename Fn>
  void call(Fn fn, const AmpOptimizerConfig &c, const int32_t *step,
            const uint8_t *skip) {
    fn(static_cast<int64_t>(params.size()), params.data(), paramsOut.data(),
       grads.data(), gradTypes.data(), state0.data(), state0Out.data(),
       state1.data(), state1Out.data(), numels.data(), c.kind, c.lr,
       c.weight_decay, c.momentum, c.dampening, c.nesterov, c.beta1, c.beta2,
       c.eps, step, skip);
  }
};

TEST_F(GpuLossScaling, OptimizerUpdateBuffersMatchesItsCpuTwin) {
  // ampGpuOptimizerUpdateBuffers (the optimizer of a compiled training
  // step, one launch per 48 parameters) against ampCpuOptimizerUpdateBuffers:
  // every kind, the fixture's layouts repeated past one launch (72 entries,
  // misaligned and empty ones among them), steps read on the device, in
  // place and into fresh destinations (two arenas in turn, as compiled
  // steps return new buffers), and skipped steps: in place they leave every
  // byte, into fresh destinations they copy every value.
  std::vector<ParamLayout> layout;
  for (int r = 0; r < 9; ++r)
    for (const ParamLayout &p : optimizerLayout())
      layout.push_back(p);
  for (bool inPlace : {true, false}) {
    for (const OptimizerCase &c : optimizerCases()) {
      SCOPED_TRACE(testing::Message()
                   << c.name << (inPlace ? " in place" : " fresh"));
      std::mt19937 rng(7);
      OptimizerFixture a(layout), b(layout);
      a.initialise(rng);
      std::vector<unsigned char> cpuA = a.host, cpuB(b.host.size(), 0xff);
      a.device->upload(a.host.data(), a.host.size());
      b.device->upload(cpuB.data(), cpuB.size());
      auto *gpuA = static_cast<unsigned char *>(a.device->ptr);
      auto *gpuB = static_cast<unsigned char *>(b.device->ptr);
      DeviceMemory stepDevice(16), skipDevice(16);
      bool usesState0 =
          c.cfg.kind != AMP_OPTIMIZER_SGD &&
          !(c.cfg.kind == AMP_OPTIMIZER_MOMENTUM && c.cfg.momentum == 0.0f);
      bool usesState1 = c.cfg.kind >= AMP_OPTIMIZER_ADAM;
      bool keepsState0 = c.cfg.kind != AMP_OPTIMIZER_SGD;
      int32_t step = 0; // Updates applied before, as compiled steps count.
      bool fromA = true;
      for (bool skip : {false, false, true, false, true, false}) {
        OptimizerFixture &src = fromA ? a : b;
        OptimizerFixture &dst = inPlace ? src : fromA ? b : a;
        std::vector<unsigned char> &cpuSrc = fromA ? cpuA : cpuB;
        std::vector<unsigned char> &cpuDst = inPlace ? cpuSrc
                                             : fromA ? cpuB
                                                     : cpuA;
        unsigned char *gpuSrc = fromA ? gpuA : gpuB;
        unsigned char *gpuDst = inPlace ? gpuSrc : fromA ? gpuB : gpuA;
        // New gradients, in arena a on both sides.
        a.newGradients(rng, 1.0f);
        a.shareGradients(cpuA);
        uint8_t flag = skip ? 1 : 0;
        stepDevice.upload(&step, sizeof(step));
        skipDevice.upload(&flag, 1);
        std::vector<unsigned char> before(src.host.size());
        src.device->download(before.data(), before.size());
        UpdateTable(a, gpuSrc, gpuDst, gpuA)
            .call(ampGpuOptimizerUpdateBuffers, c.cfg,
                  static_cast<const int32_t *>(stepDevice.ptr),
                  static_cast<const uint8_t *>(skipDevice.ptr));
        UpdateTable(a, cpuSrc.data(), cpuDst.data(), cpuA.data())
            .call(ampCpuOptimizerUpdateBuffers, c.cfg, &step, &flag);
        ASSERT_TRUE(amp_test::GpuTestBase::errors().empty())
            << amp_test::GpuTestBase::errors().front();
        std::vector<unsigned char> after(dst.host.size()),
            source(src.host.size());
        dst.device->download(after.data(), after.size());
        src.device->download(source.data(), source.size());
        if (!inPlace) {
          EXPECT_TRUE(source == before) << "the current values changed";
        }
        if (skip && inPlace) {
          EXPECT_TRUE(before == after) << "a skipped step wrote device memory";
        }
        if (skip && !inPlace) { // Every value copied to its destination.
          for (size_t k = 0; k < layout.size(); ++k) {
            const auto &o = a.offsets[k];
            size_t bytes = layout[k].numel * sizeof(float);
            EXPECT_EQ(std::memcmp(&after[o.master], &before[o.master], bytes),
                      0);
            if (keepsState0) {
              EXPECT_EQ(std::memcmp(&after[o.state0], &before[o.state0], bytes),
                        0);
            }
            if (usesState1) {
              EXPECT_EQ(std::memcmp(&after[o.state1], &before[o.state1], bytes),
                        0);
            }
          }
        }
        if (!skip)
          ++step;
        // The call never writes the step count.
        int32_t stepAfter = -1;
        stepDevice.download(&stepAfter, sizeof(stepAfter));
        EXPECT_EQ(stepAfter, skip ? step : step - 1);
        a.compare(after, cpuDst, keepsState0 || usesState0, usesState1);
        if (testing::Test::HasFailure())
          break;
        if (!inPlace)
          fromA = !fromA;
      }
    }
  }
}

TEST(GpuLossScalingBuffer, OptimizerUpdateArgumentErrorsReachTheHandler) {
  // Checked on the host before any GPU use: the same with or without one,
  // and the same for the CPU twin.
  alignas(16) static float data[64];
  const float *params[] = {&data[0]};
  float *paramsOut[] = {&data[0]};
  float *overlapping[] = {&data[2]};
  const void *grads[] = {&data[8]};
  int32_t types[] = {AMP_DTYPE_F32};
  const float *state0[] = {&data[16]};
  float *state0Out[] = {&data[16]};
  float *misaligned[] = {reinterpret_cast<float *>(
      reinterpret_cast<unsigned char *>(&data[24]) + 2)};
  int64_t numels[] = {4};
  int32_t badTypes[] = {7};
  const int32_t *step = reinterpret_cast<const int32_t *>(&data[32]);
  const uint8_t *skip = reinterpret_cast<const uint8_t *>(&data[36]);
  for (auto *fn :
       {ampGpuOptimizerUpdateBuffers, ampCpuOptimizerUpdateBuffers}) {
    amp_test::GpuTestBase::errors().clear();
    ampSetErrorHandler(amp_test::GpuTestBase::recordingHandler);
    auto sgd = [&](int64_t count, float *const *out, const int32_t *gradTypes,
                   float lr, const uint8_t *flag) {
      fn(count, params, out, grads, gradTypes, nullptr, nullptr, nullptr,
         nullptr, numels, AMP_OPTIMIZER_SGD, lr, 0, 0, 0, 0, 0.9f, 0.999f,
         1e-8f, step, flag);
    };
    fn(1, params, paramsOut, grads, types, state0, state0Out, nullptr, nullptr,
       numels, 9, 0.1f, 0, 0, 0, 0, 0.9f, 0.999f, 1e-8f, step, skip);
    sgd(-1, paramsOut, types, 0.1f, skip);
    fn(1, params, paramsOut, grads, types, state0, state0Out, nullptr, nullptr,
       numels, AMP_OPTIMIZER_ADAM, 1e-3f, 0, 0, 0, 0, 0.9f, 0.999f, 1e-8f, step,
       skip);
    sgd(1, paramsOut, types, -0.1f, skip);
    sgd(1, paramsOut, badTypes, 0.1f, skip);
    fn(1, params, paramsOut, grads, types, state0, misaligned, nullptr, nullptr,
       numels, AMP_OPTIMIZER_MOMENTUM, 0.1f, 0, 0.9f, 0, 0, 0.9f, 0.999f, 1e-8f,
       step, skip);
    sgd(1, overlapping, types, 0.1f, skip);
    sgd(1, paramsOut, types, 0.1f, nullptr);
    fn(0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
       nullptr, nullptr, AMP_OPTIMIZER_SGD, 0.1f, 0, 0, 0, 0, 0.9f, 0.999f,
       1e-8f, nullptr, nullptr); // Nothing to do.
    ampSetErrorHandler(nullptr);
    const char *expected[] = {
        "kind",
        "count must be >= 0, got -1",
        "state1 is NULL with count 1 (Adam)",
        "lr",
        "params[0].grad_type must be an AmpDType",
        "params[0].state0",
        "params[0] and its destination overlap",
        "skip is NULL with count 1",
    };
    const std::vector<std::string> &errors = amp_test::GpuTestBase::errors();
    ASSERT_EQ(errors.size(), sizeof(expected) / sizeof(expected[0]));
    const char *name = fn == ampGpuOptimizerUpdateBuffers
                           ? "ampGpuOptimizerUpdateBuffers: "
                           : "ampCpuOptimizerUpdateBuffers: ";
    for (size_t i = 0; i < errors.size(); ++i) {
      EXPECT_TRUE(contains(errors[i], name)) << errors[i];
      EXPECT_TRUE(contains(errors[i], expected[i])) << errors[i];
    }
  }
}

TEST_F(GpuLossScaling, OptimizerWithoutParamsStillCountsSteps) {
  AmpOptimizerConfig cfg;
  ampOptimizerConfigDefault(AMP_OPTIMIZER_ADAMW, &cfg);
  AmpGpuOptimizer *opt = ampGpuOptimizerCreate(&cfg, nullptr, 0);
  ASSERT_NE(opt, nullptr) << ampLastError();
  AmpLossScalerConfig scalerCfg = preset("pytorch");
  AmpGpuLossScaler *scaler = ampGpuLossScalerCreate(&scalerCfg);
  ASSERT_NE(scaler, nullptr);
  float *found = ampGpuLossScalerFoundInfPtr(scaler);
  ASSERT_EQ(ampGpuLossScalerBeginStep(scaler), 0);
  ASSERT_EQ(ampGpuOptimizerStep(opt, found, nullptr), 0);
  EXPECT_EQ(ampGpuOptimizerGetStep(opt), 1);
  writeDevice(found, 1.0f);
  ASSERT_EQ(ampGpuOptimizerStep(opt, found, nullptr), 0);
  EXPECT_EQ(ampGpuOptimizerGetStep(opt), 1);
  ASSERT_EQ(ampGpuOptimizerStep(opt, nullptr, nullptr), 0);
  EXPECT_EQ(ampGpuOptimizerGetStep(opt), 2);
  // An inverse scale that is not finite and > 0 skips the step too (the
  // unscale rule); a valid one does not.
  writeDevice(found, 0.0f);
  DeviceMemory invDevice(sizeof(float));
  const float *inv = static_cast<const float *>(invDevice.ptr);
  for (float bad : {NAN, INFINITY, 0.0f, -1.0f}) {
    invDevice.upload(&bad, sizeof(bad));
    ASSERT_EQ(ampGpuOptimizerStep(opt, found, inv), 0);
    EXPECT_EQ(ampGpuOptimizerGetStep(opt), 2) << "inv_scale " << bad;
  }
  float good = 0.5f;
  invDevice.upload(&good, sizeof(good));
  ASSERT_EQ(ampGpuOptimizerStep(opt, found, inv), 0);
  EXPECT_EQ(ampGpuOptimizerGetStep(opt), 3);

  // Argument errors come back as NULL with the CPU optimizer's reasons.
  AmpOptimizerConfig bad = cfg;
  bad.beta1 = 1.5f;
  ampClearError();
  EXPECT_EQ(ampGpuOptimizerCreate(&bad, nullptr, 0), nullptr);
  EXPECT_TRUE(contains(ampLastError(), "ampGpuOptimizerCreate: beta1"))
      << ampLastError();
  AmpOptimizerParam param;
  std::memset(&param, 0, sizeof(param));
  param.numel = 8;
  param.grad_type = AMP_DTYPE_F16;
  param.lowp_type = AMP_DTYPE_F16;
  EXPECT_EQ(ampGpuOptimizerCreate(&cfg, &param, 1), nullptr);
  EXPECT_TRUE(contains(ampLastError(), "master")) << ampLastError();
  DeviceMemory memory(1024);
  param.master = reinterpret_cast<float *>(memory.at(2)); // Misaligned.
  param.grad = memory.at(256);
  param.state0 = reinterpret_cast<float *>(memory.at(512));
  param.state1 = reinterpret_cast<float *>(memory.at(768));
  EXPECT_EQ(ampGpuOptimizerCreate(&cfg, &param, 1), nullptr);
  EXPECT_TRUE(contains(ampLastError(), "aligned")) << ampLastError();
  EXPECT_NE(ampGpuOptimizerStep(nullptr, nullptr, nullptr), 0);
  EXPECT_EQ(ampGpuOptimizerGetStep(nullptr), -1);
  ampGpuLossScalerDestroy(scaler);
  ampGpuOptimizerDestroy(opt);
}

//===----------------------------------------------------------------------===//
// Optimizer checkpoints and learning-rate schedules
//===----------------------------------------------------------------------===//

bool usesState0(const AmpOptimizerConfig &cfg) {
  return cfg.kind != AMP_OPTIMIZER_SGD &&
         !(cfg.kind == AMP_OPTIMIZER_MOMENTUM && cfg.momentum == 0.0f);
}

bool usesState1(const AmpOptimizerConfig &cfg) {
  return cfg.kind >= AMP_OPTIMIZER_ADAM;
}

/// New (unscaled) gradients on both sides, then one step of the GPU
/// optimizer on the device arena (found_inf set when `skip`) and of the CPU
/// one on `cpu`, compared byte for byte under `cfg`'s state use.
void stepBoth(OptimizerFixture &fx, std::vector<unsigned char> &cpu,
              AmpGpuOptimizer *gpu, AmpOptimizer *host,
              AmpGpuLossScaler *scaler, std::mt19937 &rng, bool skip,
              const AmpOptimizerConfig &cfg) {
  fx.newGradients(rng, 1.0f);
  fx.shareGradients(cpu);
  float *foundInf = ampGpuLossScalerFoundInfPtr(scaler);
  ASSERT_EQ(ampGpuLossScalerBeginStep(scaler), 0) << ampLastError();
  if (skip)
    writeDevice(foundInf, 1.0f);
  ASSERT_EQ(ampGpuOptimizerStep(gpu, foundInf, nullptr), 0) << ampLastError();
  std::vector<AmpOptimizerParam> cpuParams = fx.params(cpu.data());
  ASSERT_EQ(ampOptimizerStep(host, cpuParams.data(),
                             static_cast<int64_t>(cpuParams.size()), 1.0f,
                             skip ? 1 : 0),
            skip ? 0 : 1)
      << ampLastError();
  EXPECT_EQ(ampGpuOptimizerGetStep(gpu), ampOptimizerGetStep(host));
  std::vector<unsigned char> after(fx.host.size());
  fx.device->download(after.data(), after.size());
  fx.compare(after, cpu, usesState0(cfg), usesState1(cfg));
}

std::vector<unsigned char> saveGpuOptimizer(AmpGpuOptimizer *opt) {
  size_t size = ampGpuOptimizerSaveState(opt, nullptr, 0);
  std::vector<unsigned char> blob(size);
  EXPECT_EQ(ampGpuOptimizerSaveState(opt, blob.data(), blob.size()), size)
      << ampLastError();
  return blob;
}

std::vector<unsigned char> saveCpuOptimizer(const AmpOptimizer *opt) {
  size_t size = ampOptimizerSaveState(opt, nullptr, 0);
  std::vector<unsigned char> blob(size);
  EXPECT_EQ(ampOptimizerSaveState(opt, blob.data(), blob.size()), size)
      << ampLastError();
  return blob;
}

/// `cfg` with every field it uses changed (same kind, and momentum > 0 for
/// Momentum so that the tables hold velocity buffers).
AmpOptimizerConfig otherConfig(const AmpOptimizerConfig &cfg) {
  AmpOptimizerConfig other = cfg;
  other.lr = 0.5f;
  other.weight_decay = 0.25f;
  if (other.kind == AMP_OPTIMIZER_MOMENTUM)
    other.momentum = 0.5f;
  other.beta1 = 0.5f;
  other.beta2 = 0.6f;
  return other;
}

TEST_F(GpuLossScaling, OptimizerCheckpointsMoveBetweenGpuAndCpu) {
  for (const OptimizerCase &c : optimizerCases()) {
    SCOPED_TRACE(c.name);
    std::mt19937 rng(41);
    OptimizerFixture fx(optimizerLayout());
    fx.initialise(rng);
    std::vector<unsigned char> cpu = fx.host;
    fx.device->upload(fx.host.data(), fx.host.size());
    std::vector<AmpOptimizerParam> gpuParams =
        fx.params(static_cast<unsigned char *>(fx.device->ptr));
    const int64_t count = static_cast<int64_t>(gpuParams.size());
    AmpGpuOptimizer *gpu =
        ampGpuOptimizerCreate(&c.cfg, gpuParams.data(), count);
    ASSERT_NE(gpu, nullptr) << ampLastError();
    AmpOptimizer *host = ampOptimizerCreate(&c.cfg);
    ASSERT_NE(host, nullptr) << ampLastError();
    AmpLossScalerConfig scalerCfg = staticScale(1.0f);
    AmpGpuLossScaler *scaler = ampGpuLossScalerCreate(&scalerCfg);
    ASSERT_NE(scaler, nullptr) << ampLastError();
    for (bool skip : {false, true, false, false}) {
      stepBoth(fx, cpu, gpu, host, scaler, rng, skip, c.cfg);
      ASSERT_FALSE(testing::Test::HasFailure());
    }

    // Same history, same blob: the GPU's step record matches the CPU's t
    // and powers bit for bit.
    size_t size = ampGpuOptimizerSaveState(gpu, nullptr, 0);
    EXPECT_EQ(size, ampOptimizerSaveState(host, nullptr, 0));
    std::vector<unsigned char> gpuBlob = saveGpuOptimizer(gpu);
    std::vector<unsigned char> hostBlob = saveCpuOptimizer(host);
    EXPECT_TRUE(gpuBlob == hostBlob) << "GPU and CPU blobs differ";

    // GPU -> CPU: a fresh CPU optimizer (another config) loads the GPU blob
    // and continues from the device buffers.
    AmpOptimizerConfig other = otherConfig(c.cfg);
    AmpOptimizer *host2 = ampOptimizerCreate(&other);
    ASSERT_NE(host2, nullptr) << ampLastError();
    ASSERT_EQ(ampOptimizerLoadState(host2, gpuBlob.data(), gpuBlob.size()), 0)
        << ampLastError();
    EXPECT_EQ(ampOptimizerGetStep(host2), 3);
    std::vector<unsigned char> cpu2(fx.host.size());
    fx.device->download(cpu2.data(), cpu2.size());

    // CPU -> GPU: a fresh GPU optimizer over the same device buffers
    // (another config) loads the CPU blob.
    ampGpuOptimizerDestroy(gpu);
    AmpGpuOptimizer *gpu2 =
        ampGpuOptimizerCreate(&other, gpuParams.data(), count);
    ASSERT_NE(gpu2, nullptr) << ampLastError();
    EXPECT_EQ(ampGpuOptimizerGetStep(gpu2), 0);
    ASSERT_EQ(ampGpuOptimizerLoadState(gpu2, hostBlob.data(), hostBlob.size()),
              0)
        << ampLastError();
    EXPECT_EQ(ampGpuOptimizerGetStep(gpu2), 3);
    EXPECT_TRUE(saveGpuOptimizer(gpu2) == hostBlob);

    // Both continue (the loaded configurations are in force, under a
    // learning-rate schedule) and stay identical.
    int s = 0;
    for (bool skip : {false, false, true, false}) {
      float lr = c.cfg.lr / static_cast<float>(2 + s++);
      ASSERT_EQ(ampGpuOptimizerSetLearningRate(gpu2, lr), 0) << ampLastError();
      ASSERT_EQ(ampOptimizerSetLearningRate(host2, lr), 0) << ampLastError();
      stepBoth(fx, cpu2, gpu2, host2, scaler, rng, skip, c.cfg);
      ASSERT_FALSE(testing::Test::HasFailure());
    }
    EXPECT_EQ(ampGpuOptimizerGetStep(gpu2), 6);
    EXPECT_TRUE(saveGpuOptimizer(gpu2) == saveCpuOptimizer(host2));

    ampGpuLossScalerDestroy(scaler);
    ampOptimizerDestroy(host2);
    ampOptimizerDestroy(host);
    ampGpuOptimizerDestroy(gpu2);
  }
}

TEST_F(GpuLossScaling, OptimizerCheckpointRejectionsChangeNothing) {
  AmpOptimizerConfig adam;
  ampOptimizerConfigDefault(AMP_OPTIMIZER_ADAM, &adam);
  AmpGpuOptimizer *opt = ampGpuOptimizerCreate(&adam, nullptr, 0);
  ASSERT_NE(opt, nullptr) << ampLastError();
  ASSERT_EQ(ampGpuOptimizerStep(opt, nullptr, nullptr), 0);
  ASSERT_EQ(ampGpuOptimizerStep(opt, nullptr, nullptr), 0);
  const std::vector<unsigned char> before = saveGpuOptimizer(opt);
  ASSERT_FALSE(before.empty());

  auto expectRejected = [&](AmpGpuOptimizer *target,
                            const std::vector<unsigned char> &blob, size_t size,
                            const char *fragment) {
    std::vector<unsigned char> was = saveGpuOptimizer(target);
    int64_t step = ampGpuOptimizerGetStep(target);
    ampClearError();
    EXPECT_NE(ampGpuOptimizerLoadState(target, blob.data(), size), 0)
        << fragment;
    std::string message = ampLastError();
    EXPECT_TRUE(contains(message, "ampGpuOptimizerLoadState: ")) << message;
    EXPECT_TRUE(contains(message, fragment)) << message;
    EXPECT_EQ(ampGpuOptimizerGetStep(target), step) << fragment;
    EXPECT_TRUE(saveGpuOptimizer(target) == was) << fragment;
  };

  std::vector<unsigned char> good = before;
  expectRejected(opt, good, good.size() - 1, "truncated");
  std::vector<unsigned char> corrupt = good;
  corrupt[corrupt.size() / 2] ^= 0x10;
  expectRejected(opt, corrupt, corrupt.size(), "checksum mismatch");
  std::vector<unsigned char> newer = good;
  newer[8] = 2; // Version 2 (the checksum is checked after the version).
  expectRejected(opt, newer, newer.size(), "newer");

  // Another kind (from the CPU).
  AmpOptimizerConfig sgd;
  ampOptimizerConfigDefault(AMP_OPTIMIZER_SGD, &sgd);
  AmpOptimizer *cpuSgd = ampOptimizerCreate(&sgd);
  ASSERT_NE(cpuSgd, nullptr);
  ASSERT_EQ(ampOptimizerStep(cpuSgd, nullptr, 0, 1.0f, 0), 1);
  std::vector<unsigned char> sgdBlob = saveCpuOptimizer(cpuSgd);
  ampOptimizerDestroy(cpuSgd);
  expectRejected(opt, sgdBlob, sgdBlob.size(), "optimizer kind mismatch");
  EXPECT_EQ(ampGpuOptimizerGetStep(opt), 2);

  // Momentum > 0 into an optimizer created with momentum 0 (no velocity
  // pointers in its tables) is refused; momentum 0 into one with velocity
  // buffers is fine.
  AmpOptimizerConfig momentum;
  ampOptimizerConfigDefault(AMP_OPTIMIZER_MOMENTUM, &momentum);
  AmpOptimizerConfig plain = momentum;
  plain.momentum = 0.0f;
  AmpOptimizer *cpuMomentum = ampOptimizerCreate(&momentum);
  AmpOptimizer *cpuPlain = ampOptimizerCreate(&plain);
  ASSERT_NE(cpuMomentum, nullptr);
  ASSERT_NE(cpuPlain, nullptr);
  std::vector<unsigned char> momentumBlob = saveCpuOptimizer(cpuMomentum);
  std::vector<unsigned char> plainBlob = saveCpuOptimizer(cpuPlain);
  ampOptimizerDestroy(cpuMomentum);
  ampOptimizerDestroy(cpuPlain);
  AmpGpuOptimizer *noVelocity = ampGpuOptimizerCreate(&plain, nullptr, 0);
  ASSERT_NE(noVelocity, nullptr) << ampLastError();
  expectRejected(noVelocity, momentumBlob, momentumBlob.size(),
                 "created with momentum 0");
  EXPECT_EQ(
      ampGpuOptimizerLoadState(noVelocity, plainBlob.data(), plainBlob.size()),
      0)
      << ampLastError();
  AmpGpuOptimizer *withVelocity = ampGpuOptimizerCreate(&momentum, nullptr, 0);
  ASSERT_NE(withVelocity, nullptr) << ampLastError();
  EXPECT_EQ(ampGpuOptimizerLoadState(withVelocity, plainBlob.data(),
                                     plainBlob.size()),
            0)
      << ampLastError();
  EXPECT_EQ(ampGpuOptimizerLoadState(withVelocity, momentumBlob.data(),
                                     momentumBlob.size()),
            0)
      << ampLastError();

  // Too small a buffer: the size, nothing written. Invalid handles.
  std::vector<unsigned char> small(before.size() - 1, 0xab);
  EXPECT_EQ(ampGpuOptimizerSaveState(opt, small.data(), small.size()),
            before.size());
  EXPECT_TRUE(std::all_of(small.begin(), small.end(),
                          [](unsigned char b) { return b == 0xab; }));
  EXPECT_EQ(ampGpuOptimizerSaveState(nullptr, nullptr, 0), 0u);
  EXPECT_NE(ampGpuOptimizerLoadState(nullptr, good.data(), good.size()), 0);
  EXPECT_TRUE(saveGpuOptimizer(opt) == before);

  ampGpuOptimizerDestroy(withVelocity);
  ampGpuOptimizerDestroy(noVelocity);
  ampGpuOptimizerDestroy(opt);
}

TEST_F(GpuLossScaling, OptimizerSetLearningRateMatchesCpu) {
  for (const OptimizerCase &c : optimizerCases()) {
    SCOPED_TRACE(c.name);
    std::mt19937 rng(17);
    OptimizerFixture fx(optimizerLayout());
    fx.initialise(rng);
    std::vector<unsigned char> cpu = fx.host;
    fx.device->upload(fx.host.data(), fx.host.size());
    std::vector<AmpOptimizerParam> gpuParams =
        fx.params(static_cast<unsigned char *>(fx.device->ptr));
    AmpGpuOptimizer *gpu = ampGpuOptimizerCreate(
        &c.cfg, gpuParams.data(), static_cast<int64_t>(gpuParams.size()));
    ASSERT_NE(gpu, nullptr) << ampLastError();
    AmpOptimizer *host = ampOptimizerCreate(&c.cfg);
    ASSERT_NE(host, nullptr) << ampLastError();
    AmpLossScalerConfig scalerCfg = staticScale(1.0f);
    AmpGpuLossScaler *scaler = ampGpuLossScalerCreate(&scalerCfg);
    ASSERT_NE(scaler, nullptr) << ampLastError();
    // Warm-up, a skipped step, decay, and a rate of 0 (AdamW: no decay).
    const float factors[] = {0.25f, 0.5f, 1.0f, 1.0f, 0.5f, 0.0f, 0.125f};
    for (int s = 0; s < 7; ++s) {
      float lr = c.cfg.lr * factors[s];
      ASSERT_EQ(ampGpuOptimizerSetLearningRate(gpu, lr), 0) << ampLastError();
      ASSERT_EQ(ampOptimizerSetLearningRate(host, lr), 0);
      stepBoth(fx, cpu, gpu, host, scaler, rng, /*skip=*/s == 3, c.cfg);
      ASSERT_FALSE(testing::Test::HasFailure()) << "step " << s;
    }
    // Invalid rates are refused and the last one stays in force.
    for (float bad : {-1.0f, NAN, INFINITY}) {
      ampClearError();
      EXPECT_NE(ampGpuOptimizerSetLearningRate(gpu, bad), 0);
      EXPECT_TRUE(contains(ampLastError(),
                           "ampGpuOptimizerSetLearningRate: lr must be "
                           "finite and >= 0"))
          << ampLastError();
    }
    stepBoth(fx, cpu, gpu, host, scaler, rng, false, c.cfg);
    EXPECT_TRUE(saveGpuOptimizer(gpu) == saveCpuOptimizer(host));
    ampGpuLossScalerDestroy(scaler);
    ampOptimizerDestroy(host);
    ampGpuOptimizerDestroy(gpu);
  }
  EXPECT_NE(ampGpuOptimizerSetLearningRate(nullptr, 0.1f), 0);
  EXPECT_TRUE(contains(ampLastError(), "null optimizer")) << ampLastError();
}

//===----------------------------------------------------------------------===//
// Checkpoints
//===----------------------------------------------------------------------===//

void runSteps(AmpGpuLossScaler *gpu, AmpLossScaler *host,
              const std::vector<bool> &flags) {
  for (bool found : flags) {
    if (gpu) {
      ampGpuLossScalerBeginStep(gpu);
      if (found)
        writeDevice(ampGpuLossScalerFoundInfPtr(gpu), 1.0f);
      ampGpuLossScalerUpdate(gpu);
    }
    if (host)
      ampLossScalerUpdate(host, found ? 1 : 0);
  }
}

TEST_F(GpuLossScaling, CheckpointsMoveBetweenGpuAndHost) {
  std::mt19937 rng(5);
  std::bernoulli_distribution overflow(0.3);
  auto flags = [&](int n) {
    std::vector<bool> out;
    for (int i = 0; i < n; ++i)
      out.push_back(overflow(rng));
    return out;
  };
  AmpLossScalerConfig cfg = preset("deepspeed");
  cfg.growth_interval = 3;
  AmpGpuLossScaler *gpu = ampGpuLossScalerCreate(&cfg);
  ASSERT_NE(gpu, nullptr) << ampLastError();
  runSteps(gpu, nullptr, flags(25));

  size_t size = ampGpuLossScalerSaveState(gpu, nullptr, 0);
  ASSERT_GT(size, 0u);
  AmpLossScaler *probe = ampLossScalerCreate(nullptr);
  EXPECT_EQ(ampLossScalerSaveState(probe, nullptr, 0), size);
  ampLossScalerDestroy(probe);
  std::vector<unsigned char> blob(size);
  ASSERT_EQ(ampGpuLossScalerSaveState(gpu, blob.data(), blob.size()), size)
      << ampLastError();

  // GPU -> host: same counters, same future.
  AmpLossScaler *host = ampLossScalerCreate(nullptr);
  ASSERT_EQ(ampLossScalerLoadState(host, blob.data(), blob.size()), 0)
      << ampLastError();
  AmpLossScalerStats gpuStats, hostStats;
  ASSERT_EQ(ampGpuLossScalerGetStats(gpu, &gpuStats), 0);
  ASSERT_EQ(ampLossScalerGetStats(host, &hostStats), 0);
  expectSameStats(gpuStats, hostStats);
  std::vector<bool> more = flags(30);
  runSteps(gpu, host, more);
  ASSERT_EQ(ampGpuLossScalerGetStats(gpu, &gpuStats), 0);
  ASSERT_EQ(ampLossScalerGetStats(host, &hostStats), 0);
  expectSameStats(gpuStats, hostStats);
  AmpLossScalerConfig hostCfg;
  ASSERT_EQ(ampLossScalerGetConfig(host, &hostCfg), 0);
  EXPECT_EQ(std::memcmp(&hostCfg, &cfg, sizeof(cfg)), 0);

  // Host -> a GPU scaler created with another preset.
  runSteps(nullptr, host, flags(7));
  std::vector<unsigned char> hostBlob(size);
  ASSERT_EQ(ampLossScalerSaveState(host, hostBlob.data(), hostBlob.size()),
            size);
  AmpLossScalerConfig other = preset("apex");
  AmpGpuLossScaler *gpu2 = ampGpuLossScalerCreate(&other);
  ASSERT_NE(gpu2, nullptr);
  ASSERT_EQ(ampGpuLossScalerLoadState(gpu2, hostBlob.data(), hostBlob.size()),
            0)
      << ampLastError();
  ASSERT_EQ(ampGpuLossScalerGetStats(gpu2, &gpuStats), 0);
  ASSERT_EQ(ampLossScalerGetStats(host, &hostStats), 0);
  expectSameStats(gpuStats, hostStats);
  EXPECT_EQ(readDevice(ampGpuLossScalerScalePtr(gpu2)), hostStats.scale);
  EXPECT_EQ(readDevice(ampGpuLossScalerInvScalePtr(gpu2)),
            ampLossScalerGetInvScale(host));
  more = flags(30); // The loaded config (deepspeed/interval 3) is in force.
  runSteps(gpu2, host, more);
  ASSERT_EQ(ampGpuLossScalerGetStats(gpu2, &gpuStats), 0);
  ASSERT_EQ(ampLossScalerGetStats(host, &hostStats), 0);
  expectSameStats(gpuStats, hostStats);

  // A corrupt or truncated blob is rejected and changes nothing.
  std::vector<unsigned char> corrupt = hostBlob;
  corrupt[corrupt.size() / 2] ^= 0x40;
  AmpLossScalerStats beforeStats;
  ASSERT_EQ(ampGpuLossScalerGetStats(gpu2, &beforeStats), 0);
  ampClearError();
  EXPECT_NE(ampGpuLossScalerLoadState(gpu2, corrupt.data(), corrupt.size()), 0);
  EXPECT_TRUE(contains(ampLastError(), "ampGpuLossScalerLoadState: "))
      << ampLastError();
  EXPECT_NE(ampGpuLossScalerLoadState(gpu2, hostBlob.data(), size - 1), 0);
  ASSERT_EQ(ampGpuLossScalerGetStats(gpu2, &gpuStats), 0);
  expectSameStats(gpuStats, beforeStats);
  // Too small a buffer: the size, nothing written.
  std::vector<unsigned char> small(size - 1, 0xab);
  EXPECT_EQ(ampGpuLossScalerSaveState(gpu2, small.data(), small.size()), size);
  EXPECT_TRUE(std::all_of(small.begin(), small.end(),
                          [](unsigned char b) { return b == 0xab; }));

  ampLossScalerDestroy(host);
  ampGpuLossScalerDestroy(gpu2);
  ampGpuLossScalerDestroy(gpu);
}

#if AMP_TEST_GPU_SIM
//===----------------------------------------------------------------------===//
// What the simulator adds
//===----------------------------------------------------------------------===//

/// The AmpSimStats counters that differ between `after` and `before`.
struct StatsDelta {
  int64_t allocations, launches, threads, libraryCalls, copies,
      synchronizations;
};
StatsDelta delta(const AmpSimStats &after, const AmpSimStats &before) {
  return {after.allocations - before.allocations,
          after.launches - before.launches,
          after.threads - before.threads,
          after.libraryCalls - before.libraryCalls,
          after.copies - before.copies,
          after.synchronizations - before.synchronizations};
}

TEST_F(GpuLossScaling, SimCountsEveryLaunchAndAStepNeverSynchronizes) {
  // Three f16 gradients in one allocation: 4 + 1 + 2 chunks of 32768
  // elements (64 KiB), one block each.
  const int64_t numels[3] = {100000, 3, 40000};
  DeviceMemory grads((100000 + 8 + 40000) * 2);
  std::vector<uint16_t> ones(grads.bytes / 2, 0x3c00); // 1.0
  grads.upload(ones.data(), grads.bytes);
  void *ptrs[3] = {grads.at(0), grads.at(100000 * 2), grads.at(100008 * 2)};
  // SGD on an fp32 master of 20000 + 5 elements: 2 + 1 chunks of 16384.
  DeviceMemory params(4 * 20008 * 4);
  std::vector<float> zeros(params.bytes / 4, 0.0f);
  params.upload(zeros.data(), params.bytes);
  AmpOptimizerParam p[2];
  std::memset(p, 0, sizeof(p));
  for (int i = 0; i < 2; ++i) {
    p[i].numel = i == 0 ? 20000 : 5;
    size_t base = i == 0 ? 0 : 20000 * 4;
    p[i].master = reinterpret_cast<float *>(params.at(base));
    p[i].grad = params.at(base + 20008 * 4);
    p[i].grad_type = AMP_DTYPE_F32;
    p[i].lowp = params.at(base + 2 * 20008 * 4);
    p[i].lowp_type = AMP_DTYPE_F32;
  }
  AmpOptimizerConfig sgd;
  ASSERT_EQ(ampOptimizerConfigDefault(AMP_OPTIMIZER_SGD, &sgd), 0);
  AmpLossScalerConfig cfg = preset("pytorch");
  AmpGpuLossScaler *scaler = ampGpuLossScalerCreate(&cfg);
  AmpGpuTensorTable *table =
      ampGpuTensorTableCreate(ptrs, numels, 3, AMP_DTYPE_F16);
  AmpGpuOptimizer *opt = ampGpuOptimizerCreate(&sgd, p, 2);
  ASSERT_TRUE(scaler && table && opt) << ampLastError();

  // One step: BeginStep (a store), the unscale (one launch, a block per
  // chunk), the optimizer (its kernel, a block per chunk, and the one-thread
  // commit), the scaler's update (one thread). Nothing waits for the device.
  AmpSimStats before = simStats();
  ASSERT_EQ(ampGpuLossScalerBeginStep(scaler), 0);
  ASSERT_EQ(ampGpuCheckFiniteAndUnscale(scaler, table), 0);
  ASSERT_EQ(ampGpuOptimizerStep(opt, ampGpuLossScalerFoundInfPtr(scaler),
                                ampGpuLossScalerInvScalePtr(scaler)),
            0);
  ASSERT_EQ(ampGpuLossScalerUpdate(scaler), 0);
  StatsDelta step = delta(simStats(), before);
  EXPECT_EQ(step.launches, 4);
  EXPECT_EQ(step.threads, 7 * 256 + 3 * 256 + 1 + 1);
  EXPECT_EQ(step.synchronizations, 0);
  EXPECT_EQ(step.copies, 1);
  EXPECT_EQ(step.allocations, 0);
  EXPECT_EQ(step.libraryCalls, 0);
  // The unscale ran: 1 / 65536 in every element.
  std::vector<uint16_t> back(ones.size());
  grads.download(back.data(), grads.bytes);
  EXPECT_EQ(back[0], ampF32ToF16(1.0f / 65536.0f));
  EXPECT_EQ(back[100008 + 39999], ampF32ToF16(1.0f / 65536.0f));

  // Reading the state back waits for the device.
  before = simStats();
  AmpLossScalerStats stats;
  ASSERT_EQ(ampGpuLossScalerGetStats(scaler, &stats), 0);
  EXPECT_EQ(stats.steps, 1);
  EXPECT_EQ(ampGpuOptimizerGetStep(opt), 1);
  StatsDelta reads = delta(simStats(), before);
  EXPECT_EQ(reads.synchronizations, 2);
  EXPECT_EQ(reads.launches, 0);

  // The library calls of compiled code launch the same kernels: one per
  // buffer (at most 4 multiprocessors x 4 blocks of 256 threads here), one
  // per 96 entries of a table.
  DeviceMemory inv(sizeof(float));
  float half = 0.5f;
  inv.upload(&half, sizeof(half));
  TwinFlags flag;
  flag.reset(0);
  before = simStats();
  ampGpuCheckFiniteAndUnscaleBuffer(grads.ptr, grads.ptr, 100000, AMP_DTYPE_F16,
                                    static_cast<const float *>(inv.ptr),
                                    flag.devicePtr());
  StatsDelta one = delta(simStats(), before);
  EXPECT_EQ(one.libraryCalls, 1);
  EXPECT_EQ(one.launches, 1);
  EXPECT_EQ(one.threads, 16 * 256);
  std::vector<const void *> ins(100, grads.ptr);
  std::vector<void *> outs(100, grads.ptr);
  std::vector<int64_t> sizes(100, 8);
  std::vector<int32_t> dtypes(100, AMP_DTYPE_F16);
  before = simStats();
  ampGpuCheckFiniteAndUnscaleBuffers(
      100, ins.data(), outs.data(), sizes.data(), dtypes.data(),
      static_cast<const float *>(inv.ptr), flag.devicePtr());
  StatsDelta many = delta(simStats(), before);
  EXPECT_EQ(many.libraryCalls, 1);
  EXPECT_EQ(many.launches, 2);
  EXPECT_EQ(many.threads, 100 * 256);

  ampGpuOptimizerDestroy(opt);
  ampGpuTensorTableDestroy(table);
  ampGpuLossScalerDestroy(scaler);
}

TEST_F(GpuLossScaling, SimRefusesMemoryThatIsNotOnTheDevice) {
  // Host memory, or a range past the end of its allocation, in a table or
  // an optimizer: refused when the handle is created.
  std::vector<float> host(64, 1.0f);
  void *hostPtrs[1] = {host.data()};
  int64_t numel[1] = {64};
  ampClearError();
  EXPECT_EQ(ampGpuTensorTableCreate(hostPtrs, numel, 1, AMP_DTYPE_F32),
            nullptr);
  std::string message = ampLastError();
  EXPECT_TRUE(contains(message, "ampGpuTensorTableCreate: tensor 0: 256 bytes"))
      << message;
  EXPECT_TRUE(contains(message, "device allocation")) << message;
  DeviceMemory small(64);
  void *smallPtrs[1] = {small.ptr};
  int64_t tooMany[1] = {20};
  EXPECT_EQ(ampGpuTensorTableCreate(smallPtrs, tooMany, 1, AMP_DTYPE_F32),
            nullptr);
  message = ampLastError();
  EXPECT_TRUE(contains(message, "tensor 0: 80 bytes at offset 0")) << message;
  EXPECT_TRUE(contains(message, "16 bytes past its end")) << message;

  AmpOptimizerConfig adam;
  ASSERT_EQ(ampOptimizerConfigDefault(AMP_OPTIMIZER_ADAM, &adam), 0);
  DeviceMemory device(4 * 64 * 4);
  AmpOptimizerParam param;
  std::memset(&param, 0, sizeof(param));
  param.numel = 64;
  param.master = reinterpret_cast<float *>(device.at(0));
  param.grad = device.at(256);
  param.grad_type = AMP_DTYPE_F32;
  param.state0 = reinterpret_cast<float *>(device.at(512));
  param.state1 = host.data();
  EXPECT_EQ(ampGpuOptimizerCreate(&adam, &param, 1), nullptr);
  message = ampLastError();
  EXPECT_TRUE(contains(message, "ampGpuOptimizerCreate: params[0].state1: "))
      << message;

  // A tensor freed after the table was made: the kernel's access is
  // reported (kernel, block, thread), the call fails, nothing crashes and
  // nothing reaches the error handler.
  AmpGpuLossScaler *scaler = ampGpuLossScalerCreate(nullptr);
  ASSERT_NE(scaler, nullptr) << ampLastError();
  void *tensor = mgpuMemAlloc(1024, nullptr, false);
  void *tensorPtrs[1] = {tensor};
  int64_t count[1] = {256};
  AmpGpuTensorTable *table =
      ampGpuTensorTableCreate(tensorPtrs, count, 1, AMP_DTYPE_F32);
  ASSERT_NE(table, nullptr) << ampLastError();
  ASSERT_EQ(ampGpuLossScalerBeginStep(scaler), 0);
  ASSERT_EQ(ampGpuCheckFiniteAndUnscale(scaler, table), 0) << ampLastError();
  mgpuMemFree(tensor, nullptr);
  EXPECT_NE(ampGpuCheckFiniteAndUnscale(scaler, table), 0);
  message = ampLastError();
  EXPECT_TRUE(contains(message,
                       "ampGpuCheckFiniteAndUnscale: gpu-sim: kernel "
                       "'loss_scaling::amp_ls_check_unscale_f32', block "
                       "(0,0,0), thread (0,0,0): out-of-bounds load"))
      << message;
  ampGpuTensorTableDestroy(table);

  // Device memory of a handle freed by the caller (the scale pointer is the
  // start of the scaler's block): Destroy says so instead of freeing twice.
  AmpGpuLossScaler *other = ampGpuLossScalerCreate(nullptr);
  ASSERT_NE(other, nullptr) << ampLastError();
  mgpuMemFree(ampGpuLossScalerScalePtr(other), nullptr);
  ampClearError();
  ampGpuLossScalerDestroy(other);
  message = ampLastError();
  EXPECT_TRUE(contains(message, "ampGpuLossScalerDestroy: the handle's device "
                                "memory"))
      << message;
  ampGpuLossScalerDestroy(scaler);
}

TEST_F(GpuLossScaling, SimArithmeticGivesTheGpuCanonicalNaN) {
  // What the simulator models of the GPU: f32 arithmetic keeps no NaN
  // payload (0x7fffffff), where x86 keeps it, quietened. The unscale
  // kernels restore the CPU's NaNs (UnscaleMatchesCpuBitForBit); an
  // optimizer step fed a NaN gradient without found_inf is not fixed up,
  // so there the two differ in the NaN's bits only.
  const uint32_t nanBits = 0x7fa00005u; // Signalling, with a payload.
  float nan;
  std::memcpy(&nan, &nanBits, sizeof(nan));
  float hostValues[3][4] = {
      {1.0f, 2.0f, 3.0f, 4.0f}, {0.5f, nan, 0.25f, 0.125f}, {0, 0, 0, 0}};
  DeviceMemory device(sizeof(hostValues));
  device.upload(hostValues, sizeof(hostValues));
  AmpOptimizerParam param;
  std::memset(&param, 0, sizeof(param));
  param.numel = 4;
  param.master = reinterpret_cast<float *>(device.at(0));
  param.grad = device.at(16);
  param.grad_type = AMP_DTYPE_F32;
  param.lowp = device.at(32);
  param.lowp_type = AMP_DTYPE_F16;
  AmpOptimizerConfig sgd;
  ASSERT_EQ(ampOptimizerConfigDefault(AMP_OPTIMIZER_SGD, &sgd), 0);
  AmpGpuOptimizer *opt = ampGpuOptimizerCreate(&sgd, &param, 1);
  ASSERT_NE(opt, nullptr) << ampLastError();
  ASSERT_EQ(ampGpuOptimizerStep(opt, nullptr, nullptr), 0) << ampLastError();
  float gpu[3][4];
  device.download(gpu, sizeof(gpu));
  ampGpuOptimizerDestroy(opt);

  AmpOptimizer *cpuOpt = ampOptimizerCreate(&sgd);
  ASSERT_NE(cpuOpt, nullptr);
  float cpu[3][4];
  std::memcpy(cpu, hostValues, sizeof(cpu));
  AmpOptimizerParam cpuParam = param;
  cpuParam.master = cpu[0];
  cpuParam.grad = cpu[1];
  cpuParam.lowp = cpu[2];
  ASSERT_EQ(ampOptimizerStep(cpuOpt, &cpuParam, 1, 1.0f, 0), 1)
      << ampLastError();
  ampOptimizerDestroy(cpuOpt);

  EXPECT_EQ(bitsOf(gpu[0][1]), 0x7fffffffu);
  EXPECT_EQ(bitsOf(cpu[0][1]), nanBits | 0x00400000u);
  uint16_t gpuLowp[4], cpuLowp[4];
  std::memcpy(gpuLowp, gpu[2], sizeof(gpuLowp));
  std::memcpy(cpuLowp, cpu[2], sizeof(cpuLowp));
  EXPECT_EQ(gpuLowp[1], 0x7fffu);
  EXPECT_EQ(cpuLowp[1], ampF32ToF16(cpu[0][1]));
  // The other elements agree bit for bit.
  for (int i : {0, 2, 3}) {
    EXPECT_EQ(bitsOf(gpu[0][i]), bitsOf(cpu[0][i])) << i;
    EXPECT_EQ(gpuLowp[i], cpuLowp[i]) << i;
  }
}
#endif // AMP_TEST_GPU_SIM

} // namespace
