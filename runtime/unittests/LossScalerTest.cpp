//===- LossScalerTest.cpp - host dynamic loss scaler tests ----------------===//
//
// Part of amp-mlir. The presets against the research tables, the test
// vectors of shared/research/loss_scaling.md section 3.5 for every preset,
// the edge cases of the state machine (cap, floor, Inf, static scaling),
// configuration validation and the checkpoint blob.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "amp/runtime/AmpRuntime.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

constexpr float kSmallestNormal = 1.17549435e-38f;

AmpLossScalerConfig preset(const char *name) {
  AmpLossScalerConfig config;
  std::memset(&config, 0xab, sizeof(config));
  EXPECT_EQ(ampLossScalerConfigPreset(name, &config), 0) << ampLastError();
  return config;
}

/// RAII owner of a scaler.
struct Scaler {
  AmpLossScaler *s;
  explicit Scaler(const AmpLossScalerConfig *config)
      : s(ampLossScalerCreate(config)) {}
  explicit Scaler(const AmpLossScalerConfig &config) : Scaler(&config) {}
  ~Scaler() { ampLossScalerDestroy(s); }
  Scaler(const Scaler &) = delete;
  Scaler &operator=(const Scaler &) = delete;
  AmpLossScaler *get() const { return s; }
  float scale() const { return ampLossScalerGetScale(s); }
  int update(bool overflow) { return ampLossScalerUpdate(s, overflow); }
  AmpLossScalerStats stats() const {
    AmpLossScalerStats out;
    std::memset(&out, 0, sizeof(out));
    EXPECT_EQ(ampLossScalerGetStats(s, &out), 0);
    return out;
  }
  AmpLossScalerConfig config() const {
    AmpLossScalerConfig out;
    std::memset(&out, 0, sizeof(out));
    EXPECT_EQ(ampLossScalerGetConfig(s, &out), 0);
    return out;
  }
  std::vector<unsigned char> save() const {
    size_t size = ampLossScalerSaveState(s, nullptr, 0);
    std::vector<unsigned char> blob(size);
    EXPECT_EQ(ampLossScalerSaveState(s, blob.data(), blob.size()), size);
    return blob;
  }
};

bool sameConfig(const AmpLossScalerConfig &a, const AmpLossScalerConfig &b) {
  return a.init_scale == b.init_scale && a.growth_factor == b.growth_factor &&
         a.backoff_factor == b.backoff_factor &&
         a.growth_interval == b.growth_interval &&
         a.backoff_interval == b.backoff_interval &&
         a.hysteresis == b.hysteresis &&
         a.consecutive_hysteresis == b.consecutive_hysteresis &&
         a.min_scale == b.min_scale && a.max_scale == b.max_scale &&
         a.dynamic == b.dynamic;
}

bool sameStats(const AmpLossScalerStats &a, const AmpLossScalerStats &b) {
  return a.scale == b.scale && a.good_steps == b.good_steps &&
         a.bad_steps == b.bad_steps && a.hysteresis == b.hysteresis &&
         a.steps == b.steps && a.skipped_steps == b.skipped_steps &&
         a.overflows_at_min_scale == b.overflows_at_min_scale;
}

//===----------------------------------------------------------------------===//
// Presets
//===----------------------------------------------------------------------===//

TEST(LossScalerPreset, FieldValues) {
  AmpLossScalerConfig c = preset("pytorch");
  EXPECT_EQ(c.init_scale, 65536.0f);
  EXPECT_EQ(c.growth_factor, 2.0f);
  EXPECT_EQ(c.backoff_factor, 0.5f);
  EXPECT_EQ(c.growth_interval, 2000);
  EXPECT_EQ(c.backoff_interval, 1);
  EXPECT_EQ(c.hysteresis, 1);
  EXPECT_EQ(c.consecutive_hysteresis, 0);
  EXPECT_EQ(c.min_scale, 0.0f);
  EXPECT_EQ(c.max_scale, 0.0f);
  EXPECT_EQ(c.dynamic, 1);

  c = preset("paddle");
  EXPECT_EQ(c.init_scale, 65536.0f);
  EXPECT_EQ(c.growth_interval, 2000);
  EXPECT_EQ(c.backoff_factor, 0.5f);
  EXPECT_EQ(c.backoff_interval, 1);
  EXPECT_EQ(c.min_scale, 0.0f);
  EXPECT_EQ(c.dynamic, 1);

  c = preset("paddle-static");
  EXPECT_EQ(c.init_scale, 32768.0f);
  EXPECT_EQ(c.growth_factor, 2.0f);
  EXPECT_EQ(c.backoff_factor, 0.8f);
  EXPECT_EQ(c.growth_interval, 1000);
  EXPECT_EQ(c.backoff_interval, 2);
  EXPECT_EQ(c.hysteresis, 1);
  EXPECT_EQ(c.min_scale, 1.0f);
  EXPECT_EQ(c.max_scale, 0.0f);
  EXPECT_EQ(c.dynamic, 1);

  c = preset("deepspeed");
  EXPECT_EQ(c.init_scale, 65536.0f);
  EXPECT_EQ(c.growth_interval, 1000);
  EXPECT_EQ(c.backoff_factor, 0.5f);
  EXPECT_EQ(c.backoff_interval, 1);
  EXPECT_EQ(c.hysteresis, 2);
  EXPECT_EQ(c.consecutive_hysteresis, 0);
  EXPECT_EQ(c.min_scale, 1.0f);
  EXPECT_EQ(c.max_scale, 0.0f);

  c = preset("megatron");
  EXPECT_EQ(c.init_scale, 4294967296.0f);
  EXPECT_EQ(c.growth_interval, 1000);
  EXPECT_EQ(c.hysteresis, 2);
  EXPECT_EQ(c.min_scale, 1.0f);
  EXPECT_EQ(c.max_scale, 0.0f);

  c = preset("apex");
  EXPECT_EQ(c.init_scale, 65536.0f);
  EXPECT_EQ(c.growth_interval, 2000);
  EXPECT_EQ(c.hysteresis, 1);
  EXPECT_EQ(c.min_scale, 0.0f);
  EXPECT_EQ(c.max_scale, 16777216.0f);

  c = preset("colossalai");
  EXPECT_EQ(c.init_scale, 65536.0f);
  EXPECT_EQ(c.growth_interval, 1000);
  EXPECT_EQ(c.hysteresis, 2);
  EXPECT_EQ(c.min_scale, 1.0f);
  EXPECT_EQ(c.max_scale, 4294967296.0f);

  c = preset("bf16");
  EXPECT_EQ(c.init_scale, 1.0f);
  EXPECT_EQ(c.dynamic, 0);
  AmpLossScalerConfig none = preset("none");
  EXPECT_TRUE(sameConfig(c, none));
}

TEST(LossScalerPreset, AllValid) {
  for (const char *name : {"pytorch", "paddle", "paddle-static", "deepspeed",
                           "megatron", "apex", "colossalai", "bf16", "none"}) {
    AmpLossScalerConfig c = preset(name);
    EXPECT_EQ(ampLossScalerConfigValidate(&c), 0) << name << ampLastError();
  }
}

TEST(LossScalerPreset, Unknown) {
  AmpLossScalerConfig c = preset("pytorch");
  AmpLossScalerConfig before = c;
  EXPECT_NE(ampLossScalerConfigPreset("tensorflow", &c), 0);
  EXPECT_NE(std::string(ampLastError()).find("unknown preset \"tensorflow\""),
            std::string::npos)
      << ampLastError();
  EXPECT_TRUE(sameConfig(c, before));
  EXPECT_NE(ampLossScalerConfigPreset("", &c), 0);
  EXPECT_NE(ampLossScalerConfigPreset("PyTorch", &c), 0); // Case-sensitive.
  EXPECT_NE(ampLossScalerConfigPreset(nullptr, &c), 0);
  EXPECT_NE(ampLossScalerConfigPreset("pytorch", nullptr), 0);
  EXPECT_TRUE(sameConfig(c, before));
}

TEST(LossScalerPreset, NullConfigIsPytorch) {
  Scaler s(nullptr);
  ASSERT_NE(s.get(), nullptr) << ampLastError();
  EXPECT_TRUE(sameConfig(s.config(), preset("pytorch")));
  EXPECT_EQ(s.scale(), 65536.0f);
  EXPECT_EQ(ampLossScalerGetInvScale(s.get()), 1.0f / 65536.0f);
}

//===----------------------------------------------------------------------===//
// Research test vectors (section 3.5)
//===----------------------------------------------------------------------===//

// I = overflow, C = clean.
const bool kFlags[13] = {true, true, false, false, false, true, false,
                         true, true, true,  false, false, false};
const bool kApplied[13] = {false, false, true,  true, true, false, true,
                           false, false, false, true, true, true};

const float kPytorch[13] = {512, 256, 256, 256, 512, 256, 256,
                            128, 64,  32,  32,  32,  64};
const float kHysteresis[13] = {1024, 512, 512, 512, 1024, 1024, 1024,
                               512,  256, 128, 128, 128,  256};
const float kConsecutive[13] = {1024, 512, 512, 512, 1024, 1024, 1024,
                                1024, 512, 256, 256, 256,  512};

/// The Paddle legacy column, computed in fp32 like the scaler.
std::vector<float> paddleLegacy() {
  float s1 = 1024.0f * 0.8f;
  float s2 = s1 * 2.0f;
  float s3 = s2 * 0.8f;
  float s4 = s3 * 2.0f;
  return {1024, s1, s1, s1, s2, s2, s2, s2, s3, s3, s3, s3, s4};
}

void expectTrajectory(AmpLossScalerConfig config, const float *expected,
                      const char *what) {
  config.init_scale = 1024.0f;
  config.growth_interval = 3;
  Scaler s(config);
  ASSERT_NE(s.get(), nullptr) << what << ": " << ampLastError();
  for (int step = 0; step < 13; ++step) {
    int applied = s.update(kFlags[step]);
    EXPECT_EQ(applied, kApplied[step] ? 1 : 0) << what << ", step " << step + 1;
    EXPECT_EQ(s.scale(), expected[step]) << what << ", step " << step + 1;
    EXPECT_EQ(ampLossScalerGetInvScale(s.get()),
              static_cast<float>(1.0 / static_cast<double>(expected[step])))
        << what << ", step " << step + 1;
  }
  AmpLossScalerStats stats = s.stats();
  EXPECT_EQ(stats.steps, 13) << what;
  EXPECT_EQ(stats.skipped_steps, 6) << what;
  EXPECT_EQ(stats.overflows_at_min_scale, 0) << what;
  EXPECT_EQ(stats.scale, expected[12]) << what;
}

TEST(LossScalerVectors, PytorchLike) {
  for (const char *name : {"pytorch", "paddle", "apex"})
    expectTrajectory(preset(name), kPytorch, name);
}

TEST(LossScalerVectors, PaddleLegacy) {
  std::vector<float> expected = paddleLegacy();
  EXPECT_EQ(expected[1], 819.2f);
  EXPECT_EQ(expected[4], 1638.4f);
  // fp32 rounding accumulates: the research table's decimals agree to
  // within a few ulps only.
  EXPECT_FLOAT_EQ(expected[8], 1310.72f);
  EXPECT_FLOAT_EQ(expected[12], 2621.44f);
  expectTrajectory(preset("paddle-static"), expected.data(), "paddle-static");
}

TEST(LossScalerVectors, Hysteresis) {
  for (const char *name : {"deepspeed", "megatron", "colossalai"})
    expectTrajectory(preset(name), kHysteresis, name);
}

TEST(LossScalerVectors, ConsecutiveHysteresis) {
  // DeepSpeed with consecutive_hysteresis, and Apex's
  // update_scale_hysteresis kernel (H=2, consecutive).
  AmpLossScalerConfig ds = preset("deepspeed");
  ds.consecutive_hysteresis = 1;
  expectTrajectory(ds, kConsecutive, "deepspeed consecutive");
  AmpLossScalerConfig apex = preset("apex");
  apex.hysteresis = 2;
  apex.consecutive_hysteresis = 1;
  expectTrajectory(apex, kConsecutive, "apex hysteresis kernel");
}

TEST(LossScalerVectors, Bf16StaysOne) {
  Scaler s(preset("bf16"));
  ASSERT_NE(s.get(), nullptr);
  for (int step = 0; step < 13; ++step) {
    EXPECT_EQ(s.update(kFlags[step]), kApplied[step] ? 1 : 0);
    EXPECT_EQ(s.scale(), 1.0f);
    EXPECT_EQ(ampLossScalerGetInvScale(s.get()), 1.0f);
  }
  for (int step = 0; step < 5000; ++step)
    EXPECT_EQ(s.update(false), 1);
  EXPECT_EQ(s.scale(), 1.0f);
  EXPECT_EQ(s.update(true), 0);
  EXPECT_EQ(s.scale(), 1.0f);
  AmpLossScalerStats stats = s.stats();
  EXPECT_EQ(stats.steps, 13 + 5000 + 1);
  EXPECT_EQ(stats.skipped_steps, 7);
}

//===----------------------------------------------------------------------===//
// Edge cases of the state machine
//===----------------------------------------------------------------------===//

TEST(LossScalerEdges, StaticScalerKeepsScaleButSkips) {
  AmpLossScalerConfig c = preset("pytorch");
  c.dynamic = 0;
  c.init_scale = 128.0f;
  c.growth_interval = 1;
  Scaler s(c);
  ASSERT_NE(s.get(), nullptr);
  for (int step = 0; step < 10; ++step) {
    EXPECT_EQ(s.update(step % 3 == 0), step % 3 == 0 ? 0 : 1);
    EXPECT_EQ(s.scale(), 128.0f);
  }
  AmpLossScalerStats stats = s.stats();
  EXPECT_EQ(stats.steps, 10);
  EXPECT_EQ(stats.skipped_steps, 4);
  EXPECT_EQ(stats.good_steps, 0);
}

TEST(LossScalerEdges, GrowthCappedAtMaxScale) {
  AmpLossScalerConfig c = preset("apex");
  c.init_scale = 0x1p22f;
  c.growth_interval = 1;
  Scaler s(c);
  ASSERT_NE(s.get(), nullptr);
  EXPECT_EQ(s.update(false), 1);
  EXPECT_EQ(s.scale(), 0x1p23f);
  EXPECT_EQ(s.update(false), 1);
  EXPECT_EQ(s.scale(), 0x1p24f);
  EXPECT_EQ(s.update(false), 1);
  EXPECT_EQ(s.scale(), 0x1p24f);

  // A cap that is not a power-of-two multiple of the scale.
  c = preset("pytorch");
  c.init_scale = 3.0f;
  c.max_scale = 10.0f;
  c.growth_interval = 1;
  Scaler t(c);
  ASSERT_NE(t.get(), nullptr);
  t.update(false);
  EXPECT_EQ(t.scale(), 6.0f);
  t.update(false);
  EXPECT_EQ(t.scale(), 10.0f);
  t.update(false);
  EXPECT_EQ(t.scale(), 10.0f);
}

TEST(LossScalerEdges, NeverGrowsToInf) {
  AmpLossScalerConfig c = preset("pytorch");
  c.growth_interval = 1;
  c.init_scale = 0x1p126f;
  Scaler s(c);
  ASSERT_NE(s.get(), nullptr);
  s.update(false);
  EXPECT_EQ(s.scale(), 0x1p127f);
  for (int step = 0; step < 10; ++step) {
    EXPECT_EQ(s.update(false), 1);
    EXPECT_EQ(s.scale(), 0x1p127f);
    EXPECT_TRUE(std::isfinite(ampLossScalerGetInvScale(s.get())));
  }
  c.init_scale = FLT_MAX;
  c.growth_factor = 1.5f;
  Scaler t(c);
  ASSERT_NE(t.get(), nullptr);
  t.update(false);
  EXPECT_EQ(t.scale(), FLT_MAX);
  EXPECT_EQ(ampLossScalerGetInvScale(t.get()),
            static_cast<float>(1.0 / static_cast<double>(FLT_MAX)));
}

TEST(LossScalerEdges, FloorAtMinScale) {
  AmpLossScalerConfig c = preset("deepspeed");
  c.init_scale = 4.0f;
  Scaler s(c);
  ASSERT_NE(s.get(), nullptr);
  // H=2: the first overflow is absorbed, then every overflow backs off.
  const float expected[] = {4, 2, 1, 1, 1, 1};
  const int64_t atMin[] = {0, 0, 0, 1, 2, 3};
  for (int step = 0; step < 6; ++step) {
    EXPECT_EQ(s.update(true), 0);
    EXPECT_EQ(s.scale(), expected[step]) << "step " << step + 1;
    EXPECT_EQ(s.stats().overflows_at_min_scale, atMin[step])
        << "step " << step + 1;
  }
  // A floor that is not on the back-off grid.
  c = preset("paddle-static");
  c.init_scale = 2.0f;
  c.min_scale = 1.5f;
  c.backoff_interval = 1;
  Scaler t(c);
  ASSERT_NE(t.get(), nullptr);
  t.update(true);
  EXPECT_EQ(t.scale(), 1.6f);
  t.update(true);
  EXPECT_EQ(t.scale(), 1.5f);
  t.update(true);
  EXPECT_EQ(t.scale(), 1.5f);
  EXPECT_EQ(t.stats().overflows_at_min_scale, 1);
}

TEST(LossScalerEdges, NoFloorNeverReachesZero) {
  for (float backoff : {0.5f, 0.8f, 0.001f}) {
    AmpLossScalerConfig c = preset("pytorch");
    c.init_scale = 1.0f;
    c.backoff_factor = backoff;
    Scaler s(c);
    ASSERT_NE(s.get(), nullptr);
    float previous = s.scale();
    for (int step = 0; step < 400; ++step) {
      EXPECT_EQ(s.update(true), 0);
      float scale = s.scale();
      ASSERT_GE(scale, kSmallestNormal) << "backoff " << backoff;
      ASSERT_LE(scale, previous);
      float inv = ampLossScalerGetInvScale(s.get());
      ASSERT_TRUE(std::isfinite(inv)) << "backoff " << backoff;
      ASSERT_GT(inv, 0.0f);
      previous = scale;
    }
    EXPECT_LT(s.scale(), 1e-30f);
    EXPECT_EQ(s.stats().overflows_at_min_scale, 0);
  }
  // Halving from 1 stops exactly at the smallest normal float.
  AmpLossScalerConfig c = preset("pytorch");
  c.init_scale = 1.0f;
  Scaler s(c);
  for (int step = 0; step < 300; ++step)
    s.update(true);
  EXPECT_EQ(s.scale(), kSmallestNormal);
  EXPECT_EQ(ampLossScalerGetInvScale(s.get()), 0x1p126f);
  // And grows back.
  c.growth_interval = 1;
  Scaler t(c);
  for (int step = 0; step < 300; ++step)
    t.update(true);
  t.update(false);
  EXPECT_EQ(t.scale(), 2.0f * kSmallestNormal);
}

TEST(LossScalerEdges, StatsCounters) {
  AmpLossScalerConfig c = preset("paddle-static");
  c.init_scale = 1024.0f;
  c.growth_interval = 3;
  Scaler s(c);
  ASSERT_NE(s.get(), nullptr);
  AmpLossScalerStats st = s.stats();
  EXPECT_EQ(st.scale, 1024.0f);
  EXPECT_EQ(st.good_steps, 0);
  EXPECT_EQ(st.bad_steps, 0);
  EXPECT_EQ(st.hysteresis, 1);
  EXPECT_EQ(st.steps, 0);
  EXPECT_EQ(st.skipped_steps, 0);
  s.update(true);
  st = s.stats();
  EXPECT_EQ(st.bad_steps, 1);
  EXPECT_EQ(st.hysteresis, 0);
  EXPECT_EQ(st.steps, 1);
  EXPECT_EQ(st.skipped_steps, 1);
  s.update(false);
  s.update(false);
  st = s.stats();
  EXPECT_EQ(st.good_steps, 2);
  EXPECT_EQ(st.bad_steps, 0);
  EXPECT_EQ(st.steps, 3);
  EXPECT_EQ(st.skipped_steps, 1);
  s.update(false); // Growth: refills the hysteresis.
  st = s.stats();
  EXPECT_EQ(st.good_steps, 0);
  EXPECT_EQ(st.hysteresis, 1);
  EXPECT_EQ(st.scale, 2048.0f);

  AmpLossScalerConfig d = preset("deepspeed");
  d.init_scale = 1.0f;
  Scaler t(d);
  for (int step = 0; step < 5; ++step)
    t.update(true);
  st = t.stats();
  EXPECT_EQ(st.steps, 5);
  EXPECT_EQ(st.skipped_steps, 5);
  EXPECT_EQ(st.overflows_at_min_scale, 4); // The first one was absorbed.
  EXPECT_EQ(st.hysteresis, 0);
}

TEST(LossScalerEdges, NullScaler) {
  EXPECT_TRUE(std::isnan(ampLossScalerGetScale(nullptr)));
  EXPECT_TRUE(std::isnan(ampLossScalerGetInvScale(nullptr)));
  EXPECT_EQ(ampLossScalerUpdate(nullptr, 0), -1);
  EXPECT_EQ(ampLossScalerUpdate(nullptr, 1), -1);
  AmpLossScalerStats stats;
  AmpLossScalerConfig config;
  EXPECT_NE(ampLossScalerGetStats(nullptr, &stats), 0);
  EXPECT_NE(ampLossScalerGetConfig(nullptr, &config), 0);
  EXPECT_EQ(ampLossScalerSaveState(nullptr, nullptr, 0), 0u);
  unsigned char blob[8] = {0};
  EXPECT_NE(ampLossScalerLoadState(nullptr, blob, sizeof(blob)), 0);
  ampLossScalerDestroy(nullptr);
  Scaler s(nullptr);
  EXPECT_NE(ampLossScalerGetStats(s.get(), nullptr), 0);
  EXPECT_NE(ampLossScalerGetConfig(s.get(), nullptr), 0);
  // None of these calls the error handler.
  EXPECT_EQ(amp_test::captureHandlerMessage(
                [] { EXPECT_EQ(ampLossScalerUpdate(nullptr, 0), -1); }),
            "");
}

TEST(LossScalerEdges, FoundInfIsAnyNonzero) {
  Scaler s(nullptr);
  EXPECT_EQ(ampLossScalerUpdate(s.get(), 7), 0);
  EXPECT_EQ(ampLossScalerUpdate(s.get(), -1), 0);
  EXPECT_EQ(s.scale(), 16384.0f);
}

TEST(LossScalerEdges, SetGrowthTracker) {
  AmpLossScalerConfig c = preset("pytorch");
  c.growth_interval = 4;
  Scaler a(c);
  for (int step = 0; step < 3; ++step)
    a.update(false);
  // A scaler given the same counter grows at the same update.
  Scaler b(c);
  ASSERT_EQ(ampLossScalerSetGrowthTracker(b.get(), a.stats().good_steps), 0)
      << ampLastError();
  EXPECT_EQ(b.stats().good_steps, 3);
  a.update(false);
  b.update(false);
  EXPECT_EQ(a.scale(), 2.0f * c.init_scale);
  EXPECT_EQ(b.scale(), a.scale());
  EXPECT_EQ(b.stats().good_steps, 0);

  // Out of range: rejected, the scaler unchanged.
  for (int32_t count : {-1, 4, 100}) {
    ampClearError();
    EXPECT_NE(ampLossScalerSetGrowthTracker(b.get(), count), 0);
    EXPECT_EQ(std::string(ampLastError()),
              "ampLossScalerSetGrowthTracker: good_steps " +
                  std::to_string(count) + " is outside [0, growth_interval 4)");
    EXPECT_EQ(b.stats().good_steps, 0);
  }
  EXPECT_NE(ampLossScalerSetGrowthTracker(nullptr, 0), 0);
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

struct InvalidCase {
  const char *what;
  std::function<void(AmpLossScalerConfig &)> mutate;
  const char *message; // After "<call>: ".
};

TEST(LossScalerValidate, EveryRule) {
  const InvalidCase cases[] = {
      {"init 0", [](auto &c) { c.init_scale = 0.0f; },
       "init_scale must be finite and > 0, got 0"},
      {"init -1", [](auto &c) { c.init_scale = -1.0f; },
       "init_scale must be finite and > 0, got -1"},
      {"init inf", [](auto &c) { c.init_scale = INFINITY; },
       "init_scale must be finite and > 0, got inf"},
      {"init nan", [](auto &c) { c.init_scale = NAN; },
       "init_scale must be finite and > 0, got nan"},
      {"init subnormal", [](auto &c) { c.init_scale = 1e-40f; },
       "init_scale must be >= 1.17549e-38"},
      {"growth 1", [](auto &c) { c.growth_factor = 1.0f; },
       "growth_factor must be finite and > 1, got 1"},
      {"growth 0.5", [](auto &c) { c.growth_factor = 0.5f; },
       "growth_factor must be finite and > 1, got 0.5"},
      {"growth inf", [](auto &c) { c.growth_factor = INFINITY; },
       "growth_factor must be finite and > 1, got inf"},
      {"growth nan", [](auto &c) { c.growth_factor = NAN; },
       "growth_factor must be finite and > 1, got nan"},
      {"backoff 0", [](auto &c) { c.backoff_factor = 0.0f; },
       "backoff_factor must be in (0, 1), got 0"},
      {"backoff 1", [](auto &c) { c.backoff_factor = 1.0f; },
       "backoff_factor must be in (0, 1), got 1"},
      {"backoff -0.5", [](auto &c) { c.backoff_factor = -0.5f; },
       "backoff_factor must be in (0, 1), got -0.5"},
      {"backoff nan", [](auto &c) { c.backoff_factor = NAN; },
       "backoff_factor must be in (0, 1), got nan"},
      {"growth_interval 0", [](auto &c) { c.growth_interval = 0; },
       "growth_interval must be >= 1, got 0"},
      {"growth_interval -3", [](auto &c) { c.growth_interval = -3; },
       "growth_interval must be >= 1, got -3"},
      {"backoff_interval 0", [](auto &c) { c.backoff_interval = 0; },
       "backoff_interval must be >= 1, got 0"},
      {"hysteresis 0", [](auto &c) { c.hysteresis = 0; },
       "hysteresis must be >= 1, got 0"},
      {"min -1", [](auto &c) { c.min_scale = -1.0f; },
       "min_scale must be finite and >= 0 (0 = no floor), got -1"},
      {"min inf", [](auto &c) { c.min_scale = INFINITY; },
       "min_scale must be finite and >= 0 (0 = no floor), got inf"},
      {"min nan", [](auto &c) { c.min_scale = NAN; },
       "min_scale must be finite and >= 0 (0 = no floor), got nan"},
      {"max -2", [](auto &c) { c.max_scale = -2.0f; },
       "max_scale must be finite and >= 0 (0 = no cap), got -2"},
      {"max inf", [](auto &c) { c.max_scale = INFINITY; },
       "max_scale must be finite and >= 0 (0 = no cap), got inf"},
      {"min > max",
       [](auto &c) {
         c.min_scale = 8.0f;
         c.max_scale = 4.0f;
         c.init_scale = 4.0f;
       },
       "min_scale (8) must be <= max_scale (4)"},
      {"init < min",
       [](auto &c) {
         c.init_scale = 0.5f;
         c.min_scale = 1.0f;
       },
       "init_scale (0.5) must be >= min_scale (1)"},
      {"init > max",
       [](auto &c) {
         c.init_scale = 65536.0f;
         c.max_scale = 1024.0f;
       },
       "init_scale (65536) must be <= max_scale (1024)"},
  };
  for (const InvalidCase &test : cases) {
    AmpLossScalerConfig c = preset("pytorch");
    test.mutate(c);
    ampClearError();
    EXPECT_EQ(ampLossScalerCreate(&c), nullptr) << test.what;
    EXPECT_EQ(
        std::string(ampLastError())
            .rfind(std::string("ampLossScalerCreate: ") + test.message, 0),
        0u)
        << test.what << ": " << ampLastError();
    ampClearError();
    EXPECT_NE(ampLossScalerConfigValidate(&c), 0) << test.what;
    EXPECT_EQ(
        std::string(ampLastError())
            .rfind(std::string("ampLossScalerConfigValidate: ") + test.message,
                   0),
        0u)
        << test.what << ": " << ampLastError();
  }
}

TEST(LossScalerValidate, ExactMessage) {
  AmpLossScalerConfig c = preset("pytorch");
  c.growth_factor = 1.0f;
  EXPECT_EQ(ampLossScalerCreate(&c), nullptr);
  EXPECT_STREQ(ampLastError(),
               "ampLossScalerCreate: growth_factor must be finite and > 1, "
               "got 1");
}

TEST(LossScalerValidate, NullAndBoundaries) {
  EXPECT_NE(ampLossScalerConfigValidate(nullptr), 0);
  EXPECT_STREQ(ampLastError(), "ampLossScalerConfigValidate: config is NULL");
  // Boundaries that are valid.
  AmpLossScalerConfig c = preset("pytorch");
  c.init_scale = kSmallestNormal;
  c.growth_interval = 1;
  c.min_scale = kSmallestNormal;
  c.max_scale = kSmallestNormal;
  EXPECT_EQ(ampLossScalerConfigValidate(&c), 0) << ampLastError();
  c = preset("pytorch");
  c.init_scale = FLT_MAX;
  c.growth_factor = FLT_MAX;
  c.backoff_factor = 0x1p-149f;
  EXPECT_EQ(ampLossScalerConfigValidate(&c), 0) << ampLastError();
  c = preset("apex");
  c.init_scale = c.max_scale;
  EXPECT_EQ(ampLossScalerConfigValidate(&c), 0) << ampLastError();
  // dynamic = 0 configs are validated too.
  c = preset("bf16");
  c.growth_factor = 1.0f;
  EXPECT_NE(ampLossScalerConfigValidate(&c), 0);
}

//===----------------------------------------------------------------------===//
// Checkpoint blob
//===----------------------------------------------------------------------===//

uint64_t fnv1a64(const unsigned char *data, size_t size) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < size; ++i) {
    hash ^= data[i];
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

void putLE(std::vector<unsigned char> &blob, size_t offset, uint64_t value,
           int bytes) {
  for (int i = 0; i < bytes; ++i)
    blob[offset + i] = static_cast<unsigned char>(value >> (8 * i));
}

uint64_t getLE(const std::vector<unsigned char> &blob, size_t offset,
               int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i)
    value |= static_cast<uint64_t>(blob[offset + i]) << (8 * i);
  return value;
}

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

void reseal(std::vector<unsigned char> &blob) {
  size_t body = blob.size() - 8;
  putLE(blob, body, fnv1a64(blob.data(), body), 8);
}

/// A scaler in the middle of a trajectory.
std::vector<unsigned char> midRunBlob(Scaler &s) {
  for (int step = 0; step < 9; ++step)
    s.update(kFlags[step]);
  return s.save();
}

AmpLossScalerConfig testConfig() {
  AmpLossScalerConfig c = preset("deepspeed");
  c.init_scale = 1024.0f;
  c.growth_interval = 3;
  c.backoff_interval = 2;
  return c;
}

TEST(LossScalerBlob, Layout) {
  AmpLossScalerConfig c = testConfig();
  Scaler s(c);
  std::vector<unsigned char> blob = midRunBlob(s);
  ASSERT_EQ(blob.size(), 104u);
  EXPECT_EQ(std::memcmp(blob.data(), "AMPLSCL\0", 8), 0);
  EXPECT_EQ(getLE(blob, 8, 4), 1u);    // Version.
  EXPECT_EQ(getLE(blob, 12, 4), 104u); // Total size.
  EXPECT_EQ(getLE(blob, 16, 4), bitsOf(1024.0f));
  EXPECT_EQ(getLE(blob, 20, 4), bitsOf(2.0f));
  EXPECT_EQ(getLE(blob, 24, 4), bitsOf(0.5f));
  EXPECT_EQ(getLE(blob, 28, 4), 3u);
  EXPECT_EQ(getLE(blob, 32, 4), 2u);
  EXPECT_EQ(getLE(blob, 36, 4), 2u);
  EXPECT_EQ(getLE(blob, 40, 4), 0u);
  EXPECT_EQ(getLE(blob, 44, 4), bitsOf(1.0f));
  EXPECT_EQ(getLE(blob, 48, 4), 0u);
  EXPECT_EQ(getLE(blob, 52, 4), 1u);
  AmpLossScalerStats st = s.stats();
  EXPECT_EQ(getLE(blob, 56, 4), bitsOf(st.scale));
  EXPECT_EQ(getLE(blob, 60, 4), static_cast<uint32_t>(st.good_steps));
  EXPECT_EQ(getLE(blob, 64, 4), static_cast<uint32_t>(st.bad_steps));
  EXPECT_EQ(getLE(blob, 68, 4), static_cast<uint32_t>(st.hysteresis));
  EXPECT_EQ(getLE(blob, 72, 8), 9u);
  EXPECT_EQ(getLE(blob, 80, 8), 5u);
  EXPECT_EQ(getLE(blob, 88, 8), 0u);
  EXPECT_EQ(getLE(blob, 96, 8), fnv1a64(blob.data(), 96));
  // Deterministic: same state, same bytes.
  Scaler t(c);
  EXPECT_EQ(midRunBlob(t), blob);
}

TEST(LossScalerBlob, SizeQuery) {
  Scaler s(nullptr);
  EXPECT_EQ(ampLossScalerSaveState(s.get(), nullptr, 0), 104u);
  EXPECT_EQ(ampLossScalerSaveState(s.get(), nullptr, 1000), 104u);
  std::vector<unsigned char> small(103, 0x5a);
  EXPECT_EQ(ampLossScalerSaveState(s.get(), small.data(), small.size()), 104u);
  for (unsigned char byte : small)
    EXPECT_EQ(byte, 0x5a); // Not written.
  std::vector<unsigned char> large(200, 0x5a);
  EXPECT_EQ(ampLossScalerSaveState(s.get(), large.data(), large.size()), 104u);
  EXPECT_EQ(large[104], 0x5a);
}

TEST(LossScalerBlob, RoundTripContinuesTrajectory) {
  for (bool consecutive : {false, true}) {
    AmpLossScalerConfig c = testConfig();
    c.consecutive_hysteresis = consecutive;
    Scaler a(c);
    std::vector<unsigned char> blob = midRunBlob(a);
    Scaler b(nullptr); // Different config: replaced by the load.
    ASSERT_EQ(ampLossScalerLoadState(b.get(), blob.data(), blob.size()), 0)
        << ampLastError();
    EXPECT_TRUE(sameConfig(a.config(), b.config()));
    EXPECT_TRUE(sameStats(a.stats(), b.stats()));
    EXPECT_EQ(ampLossScalerGetInvScale(a.get()),
              ampLossScalerGetInvScale(b.get()));
    uint32_t rng = 12345;
    for (int step = 0; step < 500; ++step) {
      rng = rng * 1664525u + 1013904223u;
      bool overflow = (rng >> 28) < 5;
      ASSERT_EQ(a.update(overflow), b.update(overflow)) << step;
      ASSERT_TRUE(sameStats(a.stats(), b.stats())) << step;
    }
    EXPECT_EQ(a.save(), b.save());
  }
}

TEST(LossScalerBlob, PresetsRoundTrip) {
  for (const char *name : {"pytorch", "paddle", "paddle-static", "deepspeed",
                           "megatron", "apex", "colossalai", "bf16"}) {
    Scaler a(preset(name));
    a.update(true);
    a.update(false);
    std::vector<unsigned char> blob = a.save();
    Scaler b(nullptr);
    ASSERT_EQ(ampLossScalerLoadState(b.get(), blob.data(), blob.size()), 0)
        << name << ": " << ampLastError();
    EXPECT_TRUE(sameConfig(a.config(), b.config())) << name;
    EXPECT_TRUE(sameStats(a.stats(), b.stats())) << name;
  }
}

/// Expects that loading `blob` fails with a message containing `fragment`
/// and leaves a scaler unchanged.
void expectRejected(const std::vector<unsigned char> &blob,
                    const char *fragment, const std::string &what) {
  AmpLossScalerConfig c = preset("megatron");
  Scaler s(c);
  s.update(true);
  s.update(false);
  AmpLossScalerStats before = s.stats();
  float inv = ampLossScalerGetInvScale(s.get());
  ampClearError();
  EXPECT_NE(ampLossScalerLoadState(s.get(), blob.data(), blob.size()), 0)
      << what;
  std::string message = ampLastError();
  EXPECT_EQ(message.rfind("ampLossScalerLoadState: ", 0), 0u)
      << what << ": " << message;
  EXPECT_NE(message.find(fragment), std::string::npos)
      << what << ": " << message;
  EXPECT_TRUE(sameConfig(s.config(), c)) << what;
  EXPECT_TRUE(sameStats(s.stats(), before)) << what;
  EXPECT_EQ(ampLossScalerGetInvScale(s.get()), inv) << what;
}

TEST(LossScalerBlob, TruncatedRejected) {
  Scaler a(testConfig());
  std::vector<unsigned char> blob = midRunBlob(a);
  for (size_t size = 0; size < blob.size(); ++size)
    expectRejected(
        std::vector<unsigned char>(blob.begin(), blob.begin() + size),
        "truncated", "size " + std::to_string(size));
  std::vector<unsigned char> longer = blob;
  longer.push_back(0);
  expectRejected(longer, "does not match", "one extra byte");
}

TEST(LossScalerBlob, CorruptRejected) {
  Scaler a(testConfig());
  std::vector<unsigned char> blob = midRunBlob(a);
  for (size_t i = 0; i < blob.size(); ++i) {
    for (unsigned char flip : {0x01, 0x80}) {
      std::vector<unsigned char> bad = blob;
      bad[i] ^= flip;
      const char *fragment = i < 8    ? "bad magic"
                             : i < 12 ? "version"
                             : i < 16 ? "header declares"
                                      : "checksum mismatch";
      expectRejected(bad, fragment,
                     "byte " + std::to_string(i) + " ^ " +
                         std::to_string(flip));
    }
  }
}

TEST(LossScalerBlob, ForeignRejected) {
  std::vector<unsigned char> png = {0x89, 'P',  'N',  'G',
                                    '\r', '\n', 0x1a, '\n'};
  png.resize(104, 0);
  expectRejected(png, "bad magic", "png");
  std::vector<unsigned char> zeros(104, 0);
  expectRejected(zeros, "bad magic", "zeros");
  Scaler s(nullptr);
  EXPECT_NE(ampLossScalerLoadState(s.get(), nullptr, 104), 0);
  EXPECT_NE(std::string(ampLastError()).find("NULL"), std::string::npos);
}

TEST(LossScalerBlob, NewerVersionRejected) {
  Scaler a(testConfig());
  std::vector<unsigned char> blob = midRunBlob(a);
  for (uint32_t version : {2u, 100u, 0xffffffffu}) {
    std::vector<unsigned char> newer = blob;
    putLE(newer, 8, version, 4);
    reseal(newer);
    expectRejected(newer, "is newer than this runtime supports",
                   "version " + std::to_string(version));
  }
  // A newer version with another size is rejected for its version first.
  std::vector<unsigned char> bigger = blob;
  bigger.resize(120, 0);
  putLE(bigger, 8, 2, 4);
  putLE(bigger, 12, 120, 4);
  reseal(bigger);
  expectRejected(bigger, "is newer", "version 2, 120 bytes");
  std::vector<unsigned char> zero = blob;
  putLE(zero, 8, 0, 4);
  reseal(zero);
  expectRejected(zero, "invalid blob version 0", "version 0");
}

TEST(LossScalerBlob, InvalidContentRejected) {
  Scaler a(testConfig());
  const std::vector<unsigned char> blob = midRunBlob(a);
  // Each case rewrites one field and reseals the checksum.
  struct Case {
    size_t offset;
    int bytes;
    uint64_t value;
    const char *fragment;
  };
  const Case cases[] = {
      {20, 4, bitsOf(1.0f), "invalid config in blob: growth_factor must be"},
      {16, 4, bitsOf(NAN), "invalid config in blob: init_scale must be"},
      {36, 4, 0, "invalid config in blob: hysteresis must be >= 1"},
      {44, 4, bitsOf(4096.0f),
       "invalid config in blob: init_scale (1024) "
       "must be >= min_scale (4096)"},
      {56, 4, bitsOf(NAN), "inconsistent state in blob: scale must be finite"},
      {56, 4, bitsOf(INFINITY), "inconsistent state in blob: scale must be"},
      {56, 4, bitsOf(0.0f), "inconsistent state in blob: scale must be"},
      {56, 4, bitsOf(-8.0f), "inconsistent state in blob: scale must be"},
      {56, 4, bitsOf(1e-40f), "below the smallest normal float"},
      {56, 4, bitsOf(0.5f), "below min_scale"},
      {60, 4, 3, "good_steps 3 is outside [0, growth_interval 3)"},
      {60, 4, 0xffffffffu, "good_steps -1"},
      {64, 4, 2, "bad_steps 2 is outside [0, backoff_interval 2)"},
      {68, 4, 3, "hysteresis 3 is outside [0, hysteresis 2]"},
      {72, 8, 4, "counters"},     // steps < skipped_steps
      {80, 8, ~0ull, "counters"}, // negative skipped_steps
      {88, 8, 7, "counters"},     // overflows > skipped
  };
  for (const Case &test : cases) {
    std::vector<unsigned char> bad = blob;
    putLE(bad, test.offset, test.value, test.bytes);
    reseal(bad);
    expectRejected(bad, test.fragment, "offset " + std::to_string(test.offset));
  }
  // Max-scale consistency.
  AmpLossScalerConfig c = preset("apex");
  Scaler b(c);
  std::vector<unsigned char> capped = b.save();
  putLE(capped, 56, bitsOf(0x1p25f), 4);
  reseal(capped);
  expectRejected(capped, "above max_scale", "scale above cap");
}

} // namespace
