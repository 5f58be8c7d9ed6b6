//===- OptimizerTest.cpp - CPU master-weight optimizer tests --------------===//
//
// Part of amp-mlir. SGD, Momentum, Adam and AdamW on fp32 master weights
// against independent fp64 implementations of the update rules, for every
// gradient and working-copy type; bit-exact working copies; exact reading of
// f16/bf16 gradients; inv_scale folding; skip semantics; the first-step,
// dampening and Nesterov rules of Momentum; decoupled AdamW decay; why
// master weights exist; and argument validation.
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/AmpRuntime.h"

#include "../lib/InlineConvert.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using amp::rt::bitsFloat;
using amp::rt::floatBits;

bool contains(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

struct OptimizerDeleter {
  void operator()(AmpOptimizer *opt) const { ampOptimizerDestroy(opt); }
};
using OptimizerPtr = std::unique_ptr<AmpOptimizer, OptimizerDeleter>;

OptimizerPtr makeOptimizer(const AmpOptimizerConfig &cfg) {
  OptimizerPtr opt(ampOptimizerCreate(&cfg));
  EXPECT_NE(opt, nullptr) << ampLastError();
  return opt;
}

AmpOptimizerConfig defaultConfig(int32_t kind) {
  AmpOptimizerConfig cfg;
  EXPECT_EQ(ampOptimizerConfigDefault(kind, &cfg), 0) << ampLastError();
  return cfg;
}

const char *kindName(int32_t kind) {
  switch (kind) {
  case AMP_OPTIMIZER_SGD:
    return "SGD";
  case AMP_OPTIMIZER_MOMENTUM:
    return "Momentum";
  case AMP_OPTIMIZER_ADAM:
    return "Adam";
  default:
    return "AdamW";
  }
}

/// Exact value of an element stored in an AmpDType encoding.
float decode(int32_t type, uint32_t bits) {
  switch (type) {
  case AMP_DTYPE_F32:
    return bitsFloat(bits);
  case AMP_DTYPE_F16:
    return ampF16ToF32(static_cast<uint16_t>(bits));
  default:
    return ampBF16ToF32(static_cast<uint16_t>(bits));
  }
}

/// Round-to-nearest-even encoding of `value` (f32: its bits).
uint32_t encode(int32_t type, float value) {
  switch (type) {
  case AMP_DTYPE_F32:
    return floatBits(value);
  case AMP_DTYPE_F16:
    return ampF32ToF16(value);
  default:
    return ampF32ToBF16(value);
  }
}

/// Kinds of working copy: none (fp32 parameter, its own master) or a type.
constexpr int32_t kNoLowp = -1;

/// One parameter tensor with its buffers, in the layout AmpOptimizerParam
/// points into.
struct Tensor {
  int32_t lowpType; // kNoLowp or an AmpDType.
  int32_t gradType;
  std::vector<float> master, state0, state1;
  std::vector<float> gradF32, lowpF32;
  std::vector<uint16_t> gradBits, lowpBits;

  Tensor(size_t numel, int32_t lowpType, int32_t gradType)
      : lowpType(lowpType), gradType(gradType), master(numel, 0.0f),
        state0(numel, 0.0f), state1(numel, 0.0f) {
    if (gradType == AMP_DTYPE_F32)
      gradF32.assign(numel, 0.0f);
    else
      gradBits.assign(numel, 0);
    if (lowpType == AMP_DTYPE_F32)
      lowpF32.assign(numel, 0.0f);
    else if (lowpType != kNoLowp)
      lowpBits.assign(numel, 0);
  }

  size_t size() const { return master.size(); }

  AmpOptimizerParam param() {
    AmpOptimizerParam p;
    p.master = master.data();
    p.lowp = lowpType == kNoLowp         ? nullptr
             : lowpType == AMP_DTYPE_F32 ? static_cast<void *>(lowpF32.data())
                                         : static_cast<void *>(lowpBits.data());
    p.lowp_type = lowpType == kNoLowp ? AMP_DTYPE_F32 : lowpType;
    p.grad = gradType == AMP_DTYPE_F32
                 ? static_cast<const void *>(gradF32.data())
                 : static_cast<const void *>(gradBits.data());
    p.grad_type = gradType;
    p.state0 = state0.data();
    p.state1 = state1.data();
    p.numel = static_cast<int64_t>(size());
    return p;
  }

  /// Stores `value` rounded to the gradient type.
  void setGrad(size_t i, float value) {
    if (gradType == AMP_DTYPE_F32)
      gradF32[i] = value;
    else
      gradBits[i] = static_cast<uint16_t>(encode(gradType, value));
  }
  /// The stored gradient, exactly.
  float grad(size_t i) const {
    return gradType == AMP_DTYPE_F32 ? gradF32[i]
                                     : decode(gradType, gradBits[i]);
  }
  /// Bits of the working copy (f32: the float's bits).
  uint32_t lowpAt(size_t i) const {
    return lowpType == AMP_DTYPE_F32 ? floatBits(lowpF32[i]) : lowpBits[i];
  }

  /// Every byte the optimizer could touch, in one blob.
  std::vector<unsigned char> snapshot() const {
    std::vector<unsigned char> bytes;
    auto append = [&](const void *data, size_t size) {
      const auto *begin = static_cast<const unsigned char *>(data);
      bytes.insert(bytes.end(), begin, begin + size);
    };
    append(master.data(), master.size() * sizeof(float));
    append(state0.data(), state0.size() * sizeof(float));
    append(state1.data(), state1.size() * sizeof(float));
    append(gradF32.data(), gradF32.size() * sizeof(float));
    append(lowpF32.data(), lowpF32.size() * sizeof(float));
    append(gradBits.data(), gradBits.size() * sizeof(uint16_t));
    append(lowpBits.data(), lowpBits.size() * sizeof(uint16_t));
    return bytes;
  }
};

bool sameBytes(const std::vector<unsigned char> &a,
               const std::vector<unsigned char> &b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

std::vector<AmpOptimizerParam> paramsOf(std::vector<Tensor> &tensors) {
  std::vector<AmpOptimizerParam> params;
  for (Tensor &t : tensors)
    params.push_back(t.param());
  return params;
}

int step(AmpOptimizer *opt, std::vector<Tensor> &tensors, float invScale = 1.0f,
         int foundInf = 0) {
  std::vector<AmpOptimizerParam> params = paramsOf(tensors);
  return ampOptimizerStep(opt, params.data(),
                          static_cast<int64_t>(params.size()), invScale,
                          foundInf);
}

/// Masters with magnitude in [0.5, 1] and random sign, so that relative
/// errors stay meaningful over a few steps; working copies set to RNE.
void initMasters(std::vector<Tensor> &tensors, std::mt19937 &rng) {
  std::uniform_real_distribution<float> magnitude(0.5f, 1.0f);
  std::bernoulli_distribution negative(0.5);
  for (Tensor &t : tensors)
    for (size_t i = 0; i < t.size(); ++i) {
      t.master[i] = negative(rng) ? -magnitude(rng) : magnitude(rng);
      if (t.lowpType == AMP_DTYPE_F32)
        t.lowpF32[i] = t.master[i];
      else if (t.lowpType != kNoLowp)
        t.lowpBits[i] = static_cast<uint16_t>(encode(t.lowpType, t.master[i]));
    }
}

/// Gradients uniform in [-scale, scale], rounded to the gradient type.
void randomGrads(std::vector<Tensor> &tensors, std::mt19937 &rng, float scale) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (Tensor &t : tensors)
    for (size_t i = 0; i < t.size(); ++i)
      t.setGrad(i, dist(rng) * scale);
}

/// Working copies must be RNE(master) bit for bit (f32: a copy).
void expectLowpIsRoundedMaster(const std::vector<Tensor> &tensors) {
  for (const Tensor &t : tensors) {
    if (t.lowpType == kNoLowp)
      continue;
    size_t mismatches = 0;
    for (size_t i = 0; i < t.size(); ++i) {
      uint32_t expected = encode(t.lowpType, t.master[i]);
      if (t.lowpAt(i) != expected && mismatches++ < 5)
        ADD_FAILURE() << "lowp type " << t.lowpType << " element " << i
                      << ": got 0x" << std::hex << t.lowpAt(i)
                      << ", expected 0x" << expected << " for master "
                      << std::hexfloat << t.master[i];
    }
    EXPECT_EQ(mismatches, 0u) << "lowp type " << t.lowpType;
  }
}

//===----------------------------------------------------------------------===//
// fp64 reference
//===----------------------------------------------------------------------===//

/// The update rules (loss-scaling research notes, section 4.3) in double,
/// written independently of the implementation (PyTorch-style formulas,
/// powers by std::pow, no hoisting).
struct Reference {
  struct State {
    std::vector<double> p, s0, s1;
  };
  AmpOptimizerConfig cfg;
  int64_t t = 0;
  std::vector<State> states;

  Reference(const AmpOptimizerConfig &cfg, const std::vector<Tensor> &tensors)
      : cfg(cfg) {
    for (const Tensor &tensor : tensors) {
      State s;
      s.p.assign(tensor.master.begin(), tensor.master.end());
      s.s0.assign(tensor.size(), 0.0);
      s.s1.assign(tensor.size(), 0.0);
      states.push_back(s);
    }
  }

  void step(const std::vector<Tensor> &tensors, double invScale) {
    ++t;
    const double lr = cfg.lr, wd = cfg.weight_decay, mu = cfg.momentum,
                 damp = cfg.dampening, b1 = cfg.beta1, b2 = cfg.beta2,
                 eps = cfg.eps;
    for (size_t k = 0; k < tensors.size(); ++k) {
      State &s = states[k];
      for (size_t i = 0; i < s.p.size(); ++i) {
        double g = static_cast<double>(tensors[k].grad(i)) * invScale;
        double &p = s.p[i];
        switch (cfg.kind) {
        case AMP_OPTIMIZER_SGD:
          p -= lr * (g + wd * p);
          break;
        case AMP_OPTIMIZER_MOMENTUM: {
          double d = g + wd * p;
          if (mu != 0.0) {
            double &buf = s.s0[i];
            buf = t == 1 ? d : mu * buf + (1.0 - damp) * d;
            d = cfg.nesterov ? d + mu * buf : buf;
          }
          p -= lr * d;
          break;
        }
        default: {
          if (cfg.kind == AMP_OPTIMIZER_ADAMW)
            p *= 1.0 - lr * wd;
          else
            g += wd * p;
          double &m = s.s0[i], &v = s.s1[i];
          m = b1 * m + (1.0 - b1) * g;
          v = b2 * v + (1.0 - b2) * g * g;
          double mHat = m / (1.0 - std::pow(b1, static_cast<double>(t)));
          double vHat = v / (1.0 - std::pow(b2, static_cast<double>(t)));
          p -= lr * mHat / (std::sqrt(vHat) + eps);
          break;
        }
        }
      }
    }
  }
};

/// |got - ref| <= tol * max(|ref|, floor).
void expectClose(const std::vector<float> &got, const std::vector<double> &ref,
                 double tol, double floor, const char *what) {
  double worst = 0.0;
  size_t worstIndex = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double error = std::fabs(static_cast<double>(got[i]) - ref[i]) /
                   std::max(std::fabs(ref[i]), floor);
    if (!(error <= worst)) {
      worst = error;
      worstIndex = i;
    }
  }
  EXPECT_LE(worst, tol) << what << "[" << worstIndex << "]: got "
                        << got[worstIndex] << ", reference " << ref[worstIndex];
}

double maxAbs(const std::vector<double> &values) {
  double result = 0.0;
  for (double v : values)
    result = std::max(result, std::fabs(v));
  return result;
}

/// Runs `steps` steps of `cfg` on one tensor per working-copy kind (none,
/// f32, f16, bf16; odd sizes, one empty) with gradients of `gradType`
/// uniform in [-scale, scale] and inv_scale = 1/scale, against Reference.
void runAgainstReference(const AmpOptimizerConfig &cfg, int32_t gradType,
                         float scale, int steps = 10) {
  SCOPED_TRACE(testing::Message() << kindName(cfg.kind) << " grad type "
                                  << gradType << " scale " << scale);
  std::mt19937 rng(20240611u + static_cast<unsigned>(cfg.kind) * 7u +
                   static_cast<unsigned>(gradType));
  std::vector<Tensor> tensors;
  tensors.emplace_back(1003, kNoLowp, gradType);
  tensors.emplace_back(517, AMP_DTYPE_F32, gradType);
  tensors.emplace_back(1003, AMP_DTYPE_F16, gradType);
  tensors.emplace_back(0, AMP_DTYPE_F16, gradType);
  tensors.emplace_back(261, AMP_DTYPE_BF16, gradType);
  initMasters(tensors, rng);
  Reference ref(cfg, tensors);
  OptimizerPtr opt = makeOptimizer(cfg);
  ASSERT_NE(opt, nullptr);
  float invScale = static_cast<float>(1.0 / scale);

  for (int s = 1; s <= steps; ++s) {
    randomGrads(tensors, rng, scale);
    ASSERT_EQ(step(opt.get(), tensors, invScale), 1) << ampLastError();
    ref.step(tensors, invScale);
    EXPECT_EQ(ampOptimizerGetStep(opt.get()), s);
    expectLowpIsRoundedMaster(tensors);
  }
  for (size_t k = 0; k < tensors.size(); ++k) {
    SCOPED_TRACE(testing::Message() << "tensor " << k);
    // Weights are O(1): a relative bound with a floor of 0.1. Storing the
    // master in fp32 costs up to 2^-24 relative per step; the rest (the
    // fp32 update arithmetic) stays below 4e-7 here. 10 steps: 1e-6.
    double masterTol = steps * 0x1p-24 + 4e-7;
    expectClose(tensors[k].master, ref.states[k].p, masterTol, 0.1, "master");
    bool hasVelocity =
        cfg.kind == AMP_OPTIMIZER_MOMENTUM && cfg.momentum != 0.0f;
    bool isAdam =
        cfg.kind == AMP_OPTIMIZER_ADAM || cfg.kind == AMP_OPTIMIZER_ADAMW;
    // States can cancel towards 0: relative to the tensor's largest state.
    if (hasVelocity || isAdam)
      expectClose(tensors[k].state0, ref.states[k].s0, 2e-6,
                  maxAbs(ref.states[k].s0), "state0");
    if (isAdam)
      expectClose(tensors[k].state1, ref.states[k].s1, 2e-6,
                  maxAbs(ref.states[k].s1), "state1");
    if (!hasVelocity && !isAdam) {
      for (float x : tensors[k].state0)
        ASSERT_EQ(x, 0.0f) << "unused state0 written";
    }
  }
}

/// The configurations every reference/skip/scale test runs.
std::vector<AmpOptimizerConfig> testConfigs() {
  std::vector<AmpOptimizerConfig> configs;
  AmpOptimizerConfig c = defaultConfig(AMP_OPTIMIZER_SGD);
  c.lr = 0.02f;
  c.weight_decay = 0.01f;
  configs.push_back(c);
  c.weight_decay = 0.0f;
  configs.push_back(c);

  c = defaultConfig(AMP_OPTIMIZER_MOMENTUM);
  c.lr = 0.005f;
  c.weight_decay = 0.01f;
  configs.push_back(c); // mu 0.9.
  c.dampening = 0.3f;
  configs.push_back(c);
  c.dampening = 0.0f;
  c.nesterov = 1;
  c.momentum = 0.8f;
  configs.push_back(c);
  c.nesterov = 0;
  c.momentum = 0.0f; // Plain SGD.
  configs.push_back(c);

  c = defaultConfig(AMP_OPTIMIZER_ADAM);
  c.lr = 0.01f;
  c.weight_decay = 0.01f;
  configs.push_back(c);
  c.beta1 = 0.8f;
  c.beta2 = 0.99f;
  c.eps = 1e-3f;
  c.weight_decay = 0.0f;
  configs.push_back(c);

  c = defaultConfig(AMP_OPTIMIZER_ADAMW);
  c.lr = 0.01f;
  c.weight_decay = 0.1f;
  configs.push_back(c);
  c.beta1 = 0.0f; // No first moment: bias correction 1.
  configs.push_back(c);
  return configs;
}

//===----------------------------------------------------------------------===//
// Configuration
//===----------------------------------------------------------------------===//

TEST(OptimizerConfig, Defaults) {
  for (int32_t kind = AMP_OPTIMIZER_SGD; kind <= AMP_OPTIMIZER_ADAMW; ++kind) {
    SCOPED_TRACE(kindName(kind));
    AmpOptimizerConfig c = defaultConfig(kind);
    EXPECT_EQ(c.kind, kind);
    EXPECT_EQ(c.lr, 1e-3f);
    EXPECT_EQ(c.weight_decay, kind == AMP_OPTIMIZER_ADAMW ? 1e-2f : 0.0f);
    EXPECT_EQ(c.momentum, kind == AMP_OPTIMIZER_MOMENTUM ? 0.9f : 0.0f);
    EXPECT_EQ(c.dampening, 0.0f);
    EXPECT_EQ(c.nesterov, 0);
    EXPECT_EQ(c.beta1, 0.9f);
    EXPECT_EQ(c.beta2, 0.999f);
    EXPECT_EQ(c.eps, 1e-8f);
    OptimizerPtr opt = makeOptimizer(c);
    EXPECT_EQ(ampOptimizerGetStep(opt.get()), 0);
  }
}

TEST(OptimizerConfig, DefaultRejectsBadArguments) {
  AmpOptimizerConfig c = defaultConfig(AMP_OPTIMIZER_ADAM);
  AmpOptimizerConfig before = c;
  EXPECT_NE(ampOptimizerConfigDefault(4, &c), 0);
  EXPECT_TRUE(contains(ampLastError(), "ampOptimizerConfigDefault: kind"))
      << ampLastError();
  EXPECT_NE(ampOptimizerConfigDefault(-1, &c), 0);
  EXPECT_EQ(std::memcmp(&c, &before, sizeof(c)), 0) << "out changed";
  EXPECT_NE(ampOptimizerConfigDefault(AMP_OPTIMIZER_SGD, nullptr), 0);
}

struct BadConfig {
  int32_t kind;
  void (*mutate)(AmpOptimizerConfig &);
  const char *message;
};

TEST(OptimizerConfig, InvalidConfigsAreRejected) {
  const BadConfig cases[] = {
      {AMP_OPTIMIZER_SGD, [](AmpOptimizerConfig &c) { c.kind = 4; },
       "ampOptimizerCreate: kind must be 0 (SGD), 1 (Momentum), 2 (Adam) or "
       "3 (AdamW), got 4"},
      {AMP_OPTIMIZER_SGD, [](AmpOptimizerConfig &c) { c.kind = -1; },
       "ampOptimizerCreate: kind must be"},
      {AMP_OPTIMIZER_SGD, [](AmpOptimizerConfig &c) { c.lr = -1.0f; },
       "ampOptimizerCreate: lr must be finite and >= 0, got -1"},
      {AMP_OPTIMIZER_ADAM,
       [](AmpOptimizerConfig &c) {
         c.lr = std::numeric_limits<float>::quiet_NaN();
       },
       "ampOptimizerCreate: lr must be finite and >= 0"},
      {AMP_OPTIMIZER_MOMENTUM,
       [](AmpOptimizerConfig &c) {
         c.lr = std::numeric_limits<float>::infinity();
       },
       "ampOptimizerCreate: lr must be finite and >= 0"},
      {AMP_OPTIMIZER_SGD, [](AmpOptimizerConfig &c) { c.weight_decay = -0.5f; },
       "ampOptimizerCreate: weight_decay must be finite and >= 0, got -0.5"},
      {AMP_OPTIMIZER_ADAMW,
       [](AmpOptimizerConfig &c) {
         c.weight_decay = std::numeric_limits<float>::infinity();
       },
       "ampOptimizerCreate: weight_decay must be finite and >= 0"},
      {AMP_OPTIMIZER_MOMENTUM, [](AmpOptimizerConfig &c) { c.momentum = 1.0f; },
       "ampOptimizerCreate: momentum must be in [0, 1), got 1"},
      {AMP_OPTIMIZER_MOMENTUM,
       [](AmpOptimizerConfig &c) { c.momentum = -0.25f; },
       "ampOptimizerCreate: momentum must be in [0, 1), got -0.25"},
      {AMP_OPTIMIZER_MOMENTUM,
       [](AmpOptimizerConfig &c) {
         c.momentum = std::numeric_limits<float>::quiet_NaN();
       },
       "ampOptimizerCreate: momentum must be in [0, 1)"},
      {AMP_OPTIMIZER_MOMENTUM,
       [](AmpOptimizerConfig &c) { c.dampening = 1.5f; },
       "ampOptimizerCreate: dampening must be in [0, 1], got 1.5"},
      {AMP_OPTIMIZER_MOMENTUM,
       [](AmpOptimizerConfig &c) { c.dampening = -0.25f; },
       "ampOptimizerCreate: dampening must be in [0, 1]"},
      {AMP_OPTIMIZER_MOMENTUM,
       [](AmpOptimizerConfig &c) {
         c.nesterov = 1;
         c.momentum = 0.0f;
       },
       "ampOptimizerCreate: nesterov requires momentum > 0 and dampening == "
       "0"},
      {AMP_OPTIMIZER_MOMENTUM,
       [](AmpOptimizerConfig &c) {
         c.nesterov = 1;
         c.dampening = 0.5f;
       },
       "ampOptimizerCreate: nesterov requires momentum > 0 and dampening == "
       "0, got momentum 0.9 and dampening 0.5"},
      {AMP_OPTIMIZER_ADAM, [](AmpOptimizerConfig &c) { c.beta1 = 1.0f; },
       "ampOptimizerCreate: beta1 must be in [0, 1), got 1"},
      {AMP_OPTIMIZER_ADAMW, [](AmpOptimizerConfig &c) { c.beta1 = -0.5f; },
       "ampOptimizerCreate: beta1 must be in [0, 1), got -0.5"},
      {AMP_OPTIMIZER_ADAM, [](AmpOptimizerConfig &c) { c.beta2 = 1.0f; },
       "ampOptimizerCreate: beta2 must be in [0, 1), got 1"},
      {AMP_OPTIMIZER_ADAMW,
       [](AmpOptimizerConfig &c) {
         c.beta2 = std::numeric_limits<float>::quiet_NaN();
       },
       "ampOptimizerCreate: beta2 must be in [0, 1)"},
      {AMP_OPTIMIZER_ADAM, [](AmpOptimizerConfig &c) { c.eps = 0.0f; },
       "ampOptimizerCreate: eps must be finite and > 0, got 0"},
      {AMP_OPTIMIZER_ADAMW, [](AmpOptimizerConfig &c) { c.eps = -1e-8f; },
       "ampOptimizerCreate: eps must be finite and > 0"},
      {AMP_OPTIMIZER_ADAM,
       [](AmpOptimizerConfig &c) {
         c.eps = std::numeric_limits<float>::infinity();
       },
       "ampOptimizerCreate: eps must be finite and > 0"},
  };
  for (const BadConfig &bad : cases) {
    SCOPED_TRACE(bad.message);
    AmpOptimizerConfig c = defaultConfig(bad.kind);
    bad.mutate(c);
    ampClearError();
    AmpOptimizer *opt = ampOptimizerCreate(&c);
    EXPECT_EQ(opt, nullptr);
    ampOptimizerDestroy(opt);
    EXPECT_TRUE(contains(ampLastError(), bad.message)) << ampLastError();
  }
  ampClearError();
  EXPECT_EQ(ampOptimizerCreate(nullptr), nullptr);
  EXPECT_TRUE(contains(ampLastError(), "ampOptimizerCreate")) << ampLastError();
}

TEST(OptimizerConfig, BoundaryValuesAreAccepted) {
  AmpOptimizerConfig c = defaultConfig(AMP_OPTIMIZER_MOMENTUM);
  c.lr = 0.0f;
  c.momentum = 0.0f;
  c.dampening = 1.0f;
  makeOptimizer(c);
  c = defaultConfig(AMP_OPTIMIZER_ADAM);
  c.beta1 = 0.0f;
  c.beta2 = 0.0f;
  c.eps = std::numeric_limits<float>::denorm_min();
  makeOptimizer(c);
  // Only the fields a kind uses are checked: SGD ignores Adam's betas.
  c = defaultConfig(AMP_OPTIMIZER_SGD);
  c.beta2 = 1.0f;
  c.eps = 0.0f;
  c.momentum = 2.0f;
  c.nesterov = 1;
  makeOptimizer(c);
}

//===----------------------------------------------------------------------===//
// Step count and learning rate
//===----------------------------------------------------------------------===//

TEST(OptimizerStep, GetStepAndSetLearningRate) {
  EXPECT_EQ(ampOptimizerGetStep(nullptr), -1);
  EXPECT_NE(ampOptimizerSetLearningRate(nullptr, 0.1f), 0);

  AmpOptimizerConfig c = defaultConfig(AMP_OPTIMIZER_SGD);
  c.lr = 0.5f;
  OptimizerPtr opt = makeOptimizer(c);
  std::vector<Tensor> tensors;
  tensors.emplace_back(1, kNoLowp, AMP_DTYPE_F32);
  tensors[0].master[0] = 1.0f;
  tensors[0].gradF32[0] = 1.0f;

  EXPECT_EQ(step(opt.get(), tensors), 1);
  EXPECT_EQ(tensors[0].master[0], 0.5f);
  EXPECT_EQ(ampOptimizerGetStep(opt.get()), 1);

  EXPECT_EQ(ampOptimizerSetLearningRate(opt.get(), 0.25f), 0);
  EXPECT_EQ(step(opt.get(), tensors), 1);
  EXPECT_EQ(tensors[0].master[0], 0.25f);
  EXPECT_EQ(ampOptimizerGetStep(opt.get()), 2);

  // Invalid learning rates are rejected and leave the old one in place.
  for (float bad : {-1.0f, std::numeric_limits<float>::quiet_NaN(),
                    std::numeric_limits<float>::infinity()}) {
    EXPECT_NE(ampOptimizerSetLearningRate(opt.get(), bad), 0);
    EXPECT_TRUE(contains(ampLastError(),
                         "ampOptimizerSetLearningRate: lr must be finite"))
        << ampLastError();
  }
  EXPECT_EQ(step(opt.get(), tensors), 1);
  EXPECT_EQ(tensors[0].master[0], 0.0f);

  // A skipped step and a rejected step do not count; an empty one does.
  EXPECT_EQ(step(opt.get(), tensors, 1.0f, /*foundInf=*/1), 0);
  EXPECT_EQ(ampOptimizerGetStep(opt.get()), 3);
  EXPECT_EQ(step(opt.get(), tensors, 0.0f), -1);
  EXPECT_EQ(ampOptimizerGetStep(opt.get()), 3);
  EXPECT_EQ(ampOptimizerStep(opt.get(), nullptr, 0, 1.0f, 0), 1);
  EXPECT_EQ(ampOptimizerGetStep(opt.get()), 4);
  ampOptimizerDestroy(nullptr);
}

TEST(OptimizerStep, LearningRateChangeReachesAdamWDecay) {
  AmpOptimizerConfig c = defaultConfig(AMP_OPTIMIZER_ADAMW);
  c.weight_decay = 0.5f;
  OptimizerPtr opt = makeOptimizer(c);
  std::vector<Tensor> tensors;
  tensors.emplace_back(1, kNoLowp, AMP_DTYPE_F32);
  tensors[0].master[0] = 1.0f;
  tensors[0].gradF32[0] = 0.0f; // Only the decay moves p.
  ASSERT_EQ(ampOptimizerSetLearningRate(opt.get(), 0.5f), 0);
  ASSERT_EQ(step(opt.get(), tensors), 1);
  EXPECT_EQ(tensors[0].master[0], 0.75f); // 1 * (1 - 0.5 * 0.5).
}

//===----------------------------------------------------------------------===//
// Against the fp64 reference
//===----------------------------------------------------------------------===//

TEST(OptimizerReference, AllKindsAllTypes) {
  for (const AmpOptimizerConfig &c : testConfigs())
    for (int32_t gradType : {AMP_DTYPE_F32, AMP_DTYPE_F16, AMP_DTYPE_BF16})
      runAgainstReference(c, gradType, /*scale=*/1.0f);
}

TEST(OptimizerReference, ScaledGradients) {
  // Gradients as a scaler leaves them (x S), unscaled inside the step; a
  // non-power-of-two scale is rounded once in g * inv_scale.
  for (const AmpOptimizerConfig &c : testConfigs()) {
    runAgainstReference(c, AMP_DTYPE_F16, 1024.0f);
    runAgainstReference(c, AMP_DTYPE_F32, 3.0f);
  }
}

TEST(OptimizerReference, ManySteps) {
  // 100 Adam steps: bias-correction powers from repeated multiplication
  // agree with std::pow.
  AmpOptimizerConfig c = defaultConfig(AMP_OPTIMIZER_ADAM);
  c.lr = 1e-3f;
  runAgainstReference(c, AMP_DTYPE_F32, 1.0f, 100);
}

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// SGD with lr 1, wd 0 on zero masters: master = 0 - 1 * g, which is -g
/// exactly; a direct view of how the gradient was read.
OptimizerPtr makeIdentitySgd() {
  AmpOptimizerConfig c = defaultConfig(AMP_OPTIMIZER_SGD);
  c.lr = 1.0f;
  c.weight_decay = 0.0f;
  return makeOptimizer(c);
}

TEST(OptimizerGrad, HalfAndBFloatGradientsAreReadExactly) {
  for (int32_t gradType : {AMP_DTYPE_F16, AMP_DTYPE_BF16}) {
    SCOPED_TRACE(testing::Message() << "grad type " << gradType);
    std::vector<Tensor> tensors;
    tensors.emplace_back(65536, kNoLowp, gradType);
    Tensor &t = tensors[0];
    for (uint32_t bits = 0; bits < 65536; ++bits)
      t.gradBits[bits] = static_cast<uint16_t>(bits);
    OptimizerPtr opt = makeIdentitySgd();
    ASSERT_EQ(step(opt.get(), tensors), 1) << ampLastError();
    size_t mismatches = 0;
    for (uint32_t bits = 0; bits < 65536; ++bits) {
      float g = decode(gradType, bits);
      float expected = 0.0f - g;
      bool ok = std::isnan(g)
                    ? std::isnan(t.master[bits])
                    : floatBits(t.master[bits]) == floatBits(expected);
      if (!ok && mismatches++ < 5)
        ADD_FAILURE() << "bits 0x" << std::hex << bits << ": got "
                      << std::hexfloat << t.master[bits] << ", expected "
                      << expected;
    }
    EXPECT_EQ(mismatches, 0u);
  }
}

/// f32 values around every rounding boundary of f16 and bf16 plus a sweep
/// of the whole bit space.
std::vector<float> roundingTestValues() {
  std::vector<uint32_t> bits;
  for (uint32_t i = 0; i < (1u << 20); ++i)
    bits.push_back(i * 4099u + (i >> 7)); // Strided sweep of all patterns.
  const uint32_t mantissas[] = {0x000000, 0x000001, 0x000fff, 0x001000,
                                0x001001, 0x002000, 0x003000, 0x007fff,
                                0x008000, 0x008001, 0x018000, 0x3ff000,
                                0x7fe000, 0x7ff000, 0x7fffff, 0x400000};
  for (uint32_t exponent = 0; exponent < 256; ++exponent)
    for (uint32_t mantissa : mantissas)
      for (uint32_t sign : {0u, 0x80000000u})
        for (int32_t delta : {-1, 0, 1})
          bits.push_back(sign | ((exponent << 23) + mantissa + delta));
  for (uint32_t special :
       {0x477fefffu, 0x477ff000u, 0x477ff001u, 0x387fffffu, 0x38800000u,
        0x33000000u, 0x33000001u, 0x32ffffffu, 0x7f800000u, 0x7f800001u,
        0x7fc00000u, 0x7fffffffu, 0x7f7fffffu, 0x7f7f8000u, 0x7f7f7fffu})
    for (uint32_t sign : {0u, 0x80000000u})
      bits.push_back(sign | special);
  std::vector<float> values;
  for (uint32_t b : bits)
    values.push_back(bitsFloat(b));
  return values;
}

TEST(OptimizerLowp, WorkingCopyIsRoundToNearestEvenOfMaster) {
  std::vector<float> values = roundingTestValues();
  for (int32_t lowpType : {AMP_DTYPE_F32, AMP_DTYPE_F16, AMP_DTYPE_BF16}) {
    SCOPED_TRACE(testing::Message() << "lowp type " << lowpType);
    std::vector<Tensor> tensors;
    tensors.emplace_back(values.size(), lowpType, AMP_DTYPE_F32);
    Tensor &t = tensors[0];
    for (size_t i = 0; i < values.size(); ++i)
      t.gradF32[i] = -values[i]; // Master becomes values[i].
    OptimizerPtr opt = makeIdentitySgd();
    ASSERT_EQ(step(opt.get(), tensors), 1) << ampLastError();
    size_t wrongMasters = 0;
    for (size_t i = 0; i < values.size(); ++i)
      if (!std::isnan(values[i]) && values[i] != 0.0f &&
          floatBits(t.master[i]) != floatBits(values[i]))
        ++wrongMasters;
    EXPECT_EQ(wrongMasters, 0u);
    expectLowpIsRoundedMaster(tensors);
  }
}

//===----------------------------------------------------------------------===//
// inv_scale folding
//===----------------------------------------------------------------------===//

TEST(OptimizerInvScale, PowerOfTwoScaleIsExact) {
  // Gradients x 1024 with inv_scale 1/1024 give bit-identical results to
  // the unscaled gradients (x 1024 and x 2^-10 are exact here).
  for (const AmpOptimizerConfig &c : testConfigs())
    for (int32_t gradType : {AMP_DTYPE_F32, AMP_DTYPE_F16, AMP_DTYPE_BF16}) {
      SCOPED_TRACE(testing::Message()
                   << kindName(c.kind) << " grad type " << gradType);
      std::mt19937 rng(77);
      std::vector<Tensor> plain, scaled;
      plain.emplace_back(301, AMP_DTYPE_F16, gradType);
      plain.emplace_back(64, kNoLowp, gradType);
      initMasters(plain, rng);
      scaled = plain;
      OptimizerPtr optPlain = makeOptimizer(c), optScaled = makeOptimizer(c);
      for (int s = 0; s < 5; ++s) {
        randomGrads(plain, rng, 1.0f);
        for (size_t k = 0; k < plain.size(); ++k)
          for (size_t i = 0; i < plain[k].size(); ++i) {
            float g = plain[k].grad(i);
            scaled[k].setGrad(i, g * 1024.0f);
            ASSERT_EQ(scaled[k].grad(i), g * 1024.0f) << "not exact";
          }
        ASSERT_EQ(step(optPlain.get(), plain, 1.0f), 1);
        ASSERT_EQ(step(optScaled.get(), scaled, 1.0f / 1024.0f), 1);
      }
      for (size_t k = 0; k < plain.size(); ++k) {
        // Everything but the gradients themselves is identical.
        EXPECT_EQ(std::memcmp(plain[k].master.data(), scaled[k].master.data(),
                              plain[k].size() * sizeof(float)),
                  0);
        EXPECT_EQ(plain[k].state0, scaled[k].state0);
        EXPECT_EQ(plain[k].state1, scaled[k].state1);
        EXPECT_EQ(plain[k].lowpBits, scaled[k].lowpBits);
      }
    }
}

//===----------------------------------------------------------------------===//
// Skipped steps
//===----------------------------------------------------------------------===//

TEST(OptimizerSkip, SkippedStepChangesNothingAndIsInvisibleLater) {
  for (const AmpOptimizerConfig &c : testConfigs())
    for (int skipAt : {0, 2}) { // Before the first step and mid-run.
      SCOPED_TRACE(testing::Message()
                   << kindName(c.kind) << " skip before step " << skipAt + 1);
      std::mt19937 rng(99);
      std::vector<Tensor> withSkip;
      withSkip.emplace_back(257, AMP_DTYPE_F16, AMP_DTYPE_F16);
      withSkip.emplace_back(33, AMP_DTYPE_BF16, AMP_DTYPE_F32);
      withSkip.emplace_back(40, kNoLowp, AMP_DTYPE_BF16);
      initMasters(withSkip, rng);
      std::vector<Tensor> without = withSkip;
      OptimizerPtr optSkip = makeOptimizer(c), optPlain = makeOptimizer(c);
      const float invScale = 0.5f;
      for (int s = 0; s < 5; ++s) {
        if (s == skipAt) {
          // Overflowing gradients: some Inf/NaN, the rest huge.
          for (Tensor &t : withSkip)
            for (size_t i = 0; i < t.size(); ++i)
              t.setGrad(i, i % 3 == 0 ? INFINITY : i % 3 == 1 ? NAN : 1e30f);
          std::vector<std::vector<unsigned char>> before;
          for (const Tensor &t : withSkip)
            before.push_back(t.snapshot());
          int64_t stepBefore = ampOptimizerGetStep(optSkip.get());
          ASSERT_EQ(step(optSkip.get(), withSkip, invScale, /*foundInf=*/1), 0);
          ASSERT_EQ(step(optSkip.get(), withSkip, invScale, /*foundInf=*/-7),
                    0); // Any nonzero value skips.
          EXPECT_EQ(ampOptimizerGetStep(optSkip.get()), stepBefore);
          for (size_t k = 0; k < withSkip.size(); ++k)
            EXPECT_TRUE(sameBytes(before[k], withSkip[k].snapshot()))
                << "tensor " << k << " changed by a skipped step";
        }
        randomGrads(withSkip, rng, 2.0f);
        for (size_t k = 0; k < withSkip.size(); ++k) {
          without[k].gradF32 = withSkip[k].gradF32;
          without[k].gradBits = withSkip[k].gradBits;
        }
        ASSERT_EQ(step(optSkip.get(), withSkip, invScale), 1);
        ASSERT_EQ(step(optPlain.get(), without, invScale), 1);
      }
      EXPECT_EQ(ampOptimizerGetStep(optSkip.get()), 5);
      EXPECT_EQ(ampOptimizerGetStep(optPlain.get()), 5);
      for (size_t k = 0; k < withSkip.size(); ++k)
        EXPECT_TRUE(sameBytes(withSkip[k].snapshot(), without[k].snapshot()))
            << "tensor " << k << " differs from the run without the skip";
    }
}

//===----------------------------------------------------------------------===//
// Momentum semantics (dyadic values: every operation is exact)
//===----------------------------------------------------------------------===//

struct Scalar {
  std::vector<Tensor> tensors;
  Scalar(float p) {
    tensors.emplace_back(1, kNoLowp, AMP_DTYPE_F32);
    tensors[0].master[0] = p;
  }
  float &p() { return tensors[0].master[0]; }
  float &velocity() { return tensors[0].state0[0]; }
  float &m() { return tensors[0].state0[0]; }
  float &v() { return tensors[0].state1[0]; }
  int step(AmpOptimizer *opt, float g) {
    tensors[0].gradF32[0] = g;
    return ::step(opt, tensors);
  }
};

AmpOptimizerConfig momentumConfig(float mu, float dampening, int nesterov) {
  AmpOptimizerConfig c = defaultConfig(AMP_OPTIMIZER_MOMENTUM);
  c.lr = 0.5f;
  c.weight_decay = 0.25f;
  c.momentum = mu;
  c.dampening = dampening;
  c.nesterov = nesterov;
  return c;
}

TEST(OptimizerMomentum, FirstStepSetsVelocityToTheUndampenedUpdate) {
  OptimizerPtr opt = makeOptimizer(momentumConfig(0.5f, 0.5f, 0));
  Scalar s(1.0f);
  s.velocity() = 123.0f; // Not read on the first step.
  ASSERT_EQ(s.step(opt.get(), 0.5f), 1);
  // d = 0.5 + 0.25 * 1 = 0.75; buf = d (not dampened); p = 1 - 0.5 * 0.75.
  EXPECT_EQ(s.velocity(), 0.75f);
  EXPECT_EQ(s.p(), 0.625f);
  ASSERT_EQ(s.step(opt.get(), 0.25f), 1);
  // d = 0.25 + 0.25 * 0.625 = 0.40625; buf = 0.5 * 0.75 + 0.5 * d.
  EXPECT_EQ(s.velocity(), 0.578125f);
  EXPECT_EQ(s.p(), 0.625f - 0.5f * 0.578125f);
}

TEST(OptimizerMomentum, Nesterov) {
  OptimizerPtr opt = makeOptimizer(momentumConfig(0.5f, 0.0f, 1));
  Scalar s(1.0f);
  ASSERT_EQ(s.step(opt.get(), 0.5f), 1);
  // d = 0.75, buf = 0.75, d' = d + 0.5 * buf = 1.125, p = 1 - 0.5625.
  EXPECT_EQ(s.velocity(), 0.75f);
  EXPECT_EQ(s.p(), 0.4375f);
  ASSERT_EQ(s.step(opt.get(), 0.25f), 1);
  // d = 0.25 + 0.25 * 0.4375 = 0.359375; buf = 0.375 + d = 0.734375;
  // d' = d + 0.5 * buf = 0.7265625; p = 0.4375 - 0.36328125.
  EXPECT_EQ(s.velocity(), 0.734375f);
  EXPECT_EQ(s.p(), 0.07421875f);
}

TEST(OptimizerMomentum, Dampening) {
  // dampening 1: after the first step the new gradient no longer enters the
  // velocity, which only decays.
  OptimizerPtr opt = makeOptimizer(momentumConfig(0.5f, 1.0f, 0));
  Scalar s(1.0f);
  ASSERT_EQ(s.step(opt.get(), 0.5f), 1);
  EXPECT_EQ(s.velocity(), 0.75f);
  ASSERT_EQ(s.step(opt.get(), 100.0f), 1);
  EXPECT_EQ(s.velocity(), 0.375f);
  EXPECT_EQ(s.p(), 0.625f - 0.1875f);
}

TEST(OptimizerMomentum, ZeroMomentumIsSgdWithoutState) {
  AmpOptimizerConfig mc = momentumConfig(0.0f, 0.0f, 0);
  AmpOptimizerConfig sc = defaultConfig(AMP_OPTIMIZER_SGD);
  sc.lr = mc.lr;
  sc.weight_decay = mc.weight_decay;
  OptimizerPtr mopt = makeOptimizer(mc), sopt = makeOptimizer(sc);
  std::mt19937 rng(5);
  std::vector<Tensor> a;
  a.emplace_back(100, AMP_DTYPE_BF16, AMP_DTYPE_F16);
  initMasters(a, rng);
  std::vector<Tensor> b = a;
  for (int s = 0; s < 3; ++s) {
    randomGrads(a, rng, 1.0f);
    b[0].gradBits = a[0].gradBits;
    std::vector<AmpOptimizerParam> pa = paramsOf(a);
    pa[0].state0 = nullptr; // Not needed without momentum.
    pa[0].state1 = nullptr;
    ASSERT_EQ(ampOptimizerStep(mopt.get(), pa.data(), 1, 1.0f, 0), 1)
        << ampLastError();
    ASSERT_EQ(step(sopt.get(), b), 1);
  }
  EXPECT_TRUE(sameBytes(a[0].snapshot(), b[0].snapshot()));
}

//===----------------------------------------------------------------------===//
// AdamW: decoupled decay
//===----------------------------------------------------------------------===//

TEST(OptimizerAdamW, DecayIsDecoupledFromTheMoments) {
  const float lr = 0.01f, wd = 0.1f;
  AmpOptimizerConfig adamw = defaultConfig(AMP_OPTIMIZER_ADAMW);
  adamw.lr = lr;
  adamw.weight_decay = wd;
  AmpOptimizerConfig adamL2 = defaultConfig(AMP_OPTIMIZER_ADAM);
  adamL2.lr = lr;
  adamL2.weight_decay = wd;
  AmpOptimizerConfig adamPlain = adamL2;
  adamPlain.weight_decay = 0.0f;
  OptimizerPtr optW = makeOptimizer(adamw), optL2 = makeOptimizer(adamL2),
               optPlain = makeOptimizer(adamPlain);

  std::mt19937 rng(11);
  std::vector<Tensor> w;
  w.emplace_back(500, AMP_DTYPE_F16, AMP_DTYPE_F32);
  initMasters(w, rng);
  std::vector<Tensor> l2 = w, manual = w;
  const float decay = static_cast<float>(1.0 - double(lr) * double(wd));
  for (int s = 0; s < 10; ++s) {
    randomGrads(w, rng, 1.0f);
    l2[0].gradF32 = manual[0].gradF32 = w[0].gradF32;
    ASSERT_EQ(step(optW.get(), w), 1);
    ASSERT_EQ(step(optL2.get(), l2), 1);
    // AdamW == p *= 1 - lr * wd, then Adam without weight decay.
    for (float &p : manual[0].master)
      p *= decay;
    ASSERT_EQ(step(optPlain.get(), manual), 1);
  }
  EXPECT_TRUE(sameBytes(w[0].snapshot(), manual[0].snapshot()));
  // The moments of AdamW never see the decay; Adam's L2 term enters them.
  EXPECT_EQ(w[0].state0, manual[0].state0);
  EXPECT_NE(w[0].state0, l2[0].state0);
  double maxDiff = 0.0;
  for (size_t i = 0; i < w[0].size(); ++i)
    maxDiff = std::max(
        maxDiff, std::fabs(double(w[0].master[i]) - double(l2[0].master[i])));
  EXPECT_GT(maxDiff, 1e-3);
}

TEST(OptimizerAdam, FirstStepMovesEachWeightByLearningRate) {
  // At t = 1, m_hat = g and v_hat = g^2: the step is lr * sign(g) (up to eps).
  AmpOptimizerConfig c = defaultConfig(AMP_OPTIMIZER_ADAM);
  c.lr = 0.125f;
  OptimizerPtr opt = makeOptimizer(c);
  Scalar s(1.0f);
  ASSERT_EQ(s.step(opt.get(), -3.0f), 1);
  EXPECT_NEAR(s.p(), 1.125f, 1e-6f);
  // 1 - beta with the fp32 betas 0.9f and 0.999f.
  EXPECT_FLOAT_EQ(s.m(), static_cast<float>((1.0 - double(c.beta1)) * -3.0));
  EXPECT_FLOAT_EQ(s.v(), static_cast<float>((1.0 - double(c.beta2)) * 9.0));
}

//===----------------------------------------------------------------------===//
// Why master weights: updates below half an ulp of the working copy
//===----------------------------------------------------------------------===//

TEST(OptimizerMasterWeights, TinyUpdatesAccumulateInTheMaster) {
  struct Case {
    int32_t type;
    float update; // Below half an ulp of the type at 1.0.
    int steps;    // Until the master is 1 + ulp.
    uint32_t one, onePlusUlp;
  };
  const Case cases[] = {
      {AMP_DTYPE_F16, 0x1p-14f, 16, 0x3c00, 0x3c01}, // ulp(1) = 2^-10.
      {AMP_DTYPE_BF16, 0x1p-10f, 8, 0x3f80, 0x3f81}, // ulp(1) = 2^-7.
  };
  for (const Case &cs : cases) {
    SCOPED_TRACE(testing::Message() << "type " << cs.type);
    OptimizerPtr opt = makeIdentitySgd();
    std::vector<Tensor> tensors;
    tensors.emplace_back(1, cs.type, cs.type); // Low-precision gradient too.
    Tensor &t = tensors[0];
    t.master[0] = 1.0f;
    t.lowpBits[0] = static_cast<uint16_t>(cs.one);
    t.setGrad(0, -cs.update);
    ASSERT_EQ(t.grad(0), -cs.update);
    uint32_t lowpOnly = cs.one; // The same updates applied to lowp alone.
    for (int s = 1; s <= cs.steps; ++s) {
      ASSERT_EQ(step(opt.get(), tensors), 1);
      EXPECT_EQ(t.master[0], 1.0f + s * cs.update);
      // Rounds back to 1 until past the halfway point (the tie at exactly
      // half an ulp goes to even, i.e. to 1).
      bool pastHalf = s * cs.update > 0.5f * cs.steps * cs.update;
      EXPECT_EQ(t.lowpBits[0], pastHalf ? cs.onePlusUlp : cs.one)
          << "step " << s;
      lowpOnly = encode(cs.type, decode(cs.type, lowpOnly) + cs.update);
    }
    EXPECT_EQ(t.master[0], decode(cs.type, cs.onePlusUlp));
    EXPECT_EQ(t.lowpBits[0], cs.onePlusUlp);
    EXPECT_EQ(lowpOnly, cs.one) << "low-precision-only training lost them";
  }
}

//===----------------------------------------------------------------------===//
// Invalid arguments
//===----------------------------------------------------------------------===//

struct BadParams {
  const char *message;
  void (*mutate)(AmpOptimizerParam &, float &invScale);
};

TEST(OptimizerStep, InvalidParamsWriteNothing) {
  const BadParams cases[] = {
      {"params[1].numel must be >= 0, got -1",
       [](AmpOptimizerParam &p, float &) { p.numel = -1; }},
      {"params[1].master is NULL",
       [](AmpOptimizerParam &p, float &) { p.master = nullptr; }},
      {"params[1].grad is NULL",
       [](AmpOptimizerParam &p, float &) { p.grad = nullptr; }},
      {"params[1].lowp_type must be an AmpDType",
       [](AmpOptimizerParam &p, float &) { p.lowp_type = 3; }},
      {"params[1].lowp_type must be an AmpDType",
       [](AmpOptimizerParam &p, float &) { p.lowp_type = -1; }},
      {"params[1].grad_type must be an AmpDType (0 f32, 1 f16, 2 bf16), got 7",
       [](AmpOptimizerParam &p, float &) { p.grad_type = 7; }},
      {"params[1].state0 is NULL",
       [](AmpOptimizerParam &p, float &) { p.state0 = nullptr; }},
      {"params[1].state1 is NULL",
       [](AmpOptimizerParam &p, float &) { p.state1 = nullptr; }},
      {"params[1].state0 and params[1].state1 overlap",
       [](AmpOptimizerParam &p, float &) { p.state1 = p.state0 + 1; }},
      {"params[1].master and params[1].lowp overlap",
       [](AmpOptimizerParam &p, float &) {
         p.lowp = p.master;
         p.lowp_type = AMP_DTYPE_F32;
       }},
      {"params[1].master and params[1].grad overlap",
       [](AmpOptimizerParam &p, float &) {
         p.grad = p.master;
         p.grad_type = AMP_DTYPE_F32;
       }},
      {"inv_scale must be finite and > 0, got 0",
       [](AmpOptimizerParam &, float &s) { s = 0.0f; }},
      {"inv_scale must be finite and > 0, got -1",
       [](AmpOptimizerParam &, float &s) { s = -1.0f; }},
      {"inv_scale must be finite and > 0",
       [](AmpOptimizerParam &, float &s) { s = NAN; }},
      {"inv_scale must be finite and > 0",
       [](AmpOptimizerParam &, float &s) { s = INFINITY; }},
  };
  AmpOptimizerConfig c = defaultConfig(AMP_OPTIMIZER_ADAM);
  OptimizerPtr opt = makeOptimizer(c);
  std::mt19937 rng(3);
  std::vector<Tensor> tensors;
  tensors.emplace_back(50, AMP_DTYPE_F16, AMP_DTYPE_F32); // Valid.
  tensors.emplace_back(50, AMP_DTYPE_BF16, AMP_DTYPE_F16);
  initMasters(tensors, rng);
  randomGrads(tensors, rng, 1.0f);
  ASSERT_EQ(step(opt.get(), tensors), 1);
  randomGrads(tensors, rng, 1.0f);
  std::vector<std::vector<unsigned char>> before;
  for (const Tensor &t : tensors)
    before.push_back(t.snapshot());

  for (const BadParams &bad : cases)
    for (int foundInf : {0, 1}) { // Validation comes before the skip.
      SCOPED_TRACE(testing::Message()
                   << bad.message << " found_inf " << foundInf);
      std::vector<AmpOptimizerParam> params = paramsOf(tensors);
      float invScale = 1.0f;
      bad.mutate(params[1], invScale);
      ampClearError();
      EXPECT_EQ(
          ampOptimizerStep(opt.get(), params.data(), 2, invScale, foundInf),
          -1);
      EXPECT_TRUE(contains(ampLastError(),
                           std::string("ampOptimizerStep: ") + bad.message))
          << ampLastError();
      EXPECT_EQ(ampOptimizerGetStep(opt.get()), 1);
      for (size_t k = 0; k < tensors.size(); ++k)
        EXPECT_TRUE(sameBytes(before[k], tensors[k].snapshot()))
            << "tensor " << k << " written";
    }

  std::vector<AmpOptimizerParam> params = paramsOf(tensors);
  EXPECT_EQ(ampOptimizerStep(opt.get(), params.data(), -1, 1.0f, 0), -1);
  EXPECT_TRUE(contains(ampLastError(), "ampOptimizerStep: count"))
      << ampLastError();
  EXPECT_EQ(ampOptimizerStep(opt.get(), nullptr, 2, 1.0f, 0), -1);
  EXPECT_TRUE(contains(ampLastError(), "ampOptimizerStep: params is NULL"))
      << ampLastError();
  EXPECT_EQ(ampOptimizerStep(nullptr, params.data(), 2, 1.0f, 0), -1);
  EXPECT_TRUE(contains(ampLastError(), "ampOptimizerStep: optimizer is NULL"))
      << ampLastError();
  EXPECT_EQ(ampOptimizerGetStep(opt.get()), 1);
  for (size_t k = 0; k < tensors.size(); ++k)
    EXPECT_TRUE(sameBytes(before[k], tensors[k].snapshot()));
}

TEST(OptimizerStep, RepeatedOrOverlappingParamsWriteNothing) {
  // The same parameter twice in one call would be updated twice; parameters
  // that share written memory likewise. Both are rejected before anything
  // is read or written, on the CPU and by ampGpuOptimizerCreate (the same
  // validation, run before any driver use).
  struct Case {
    const char *what;
    void (*mutate)(std::vector<AmpOptimizerParam> &);
    std::vector<const char *> fragments;
  };
  const Case cases[] = {
      {"the same parameter twice",
       [](std::vector<AmpOptimizerParam> &p) { p[1] = p[0]; },
       {"params[0].", "params[1].",
        "overlap (a parameter may appear only "
        "once per call"}},
      {"a parameter listed again at the end",
       [](std::vector<AmpOptimizerParam> &p) { p.push_back(p[0]); },
       {"params[0].", "params[2].", "overlap"}},
      {"a master inside another parameter's moment",
       [](std::vector<AmpOptimizerParam> &p) {
         p[1].master = p[0].state0 + 10;
         p[1].numel = 20;
       },
       {"params[0].state0 and params[1].master overlap"}},
      {"a gradient that is another parameter's master",
       [](std::vector<AmpOptimizerParam> &p) {
         p[1].grad = p[0].master;
         p[1].grad_type = AMP_DTYPE_F32;
       },
       {"params[0].master and params[1].grad overlap"}},
      {"a misaligned master",
       [](std::vector<AmpOptimizerParam> &p) {
         p[1].master = reinterpret_cast<float *>(
             reinterpret_cast<char *>(p[1].master) + 2);
         p[1].numel -= 1;
       },
       {"params[1].master = ", "is not aligned to its 4-byte elements"}},
  };
  AmpOptimizerConfig c = defaultConfig(AMP_OPTIMIZER_ADAM);
  OptimizerPtr opt = makeOptimizer(c);
  std::mt19937 rng(5);
  std::vector<Tensor> tensors;
  tensors.emplace_back(50, AMP_DTYPE_F16, AMP_DTYPE_F32);
  tensors.emplace_back(50, AMP_DTYPE_BF16, AMP_DTYPE_F32);
  initMasters(tensors, rng);
  randomGrads(tensors, rng, 1.0f);
  std::vector<std::vector<unsigned char>> before;
  for (const Tensor &t : tensors)
    before.push_back(t.snapshot());
  for (const Case &bad : cases) {
    SCOPED_TRACE(bad.what);
    std::vector<AmpOptimizerParam> params = paramsOf(tensors);
    bad.mutate(params);
    const int64_t count = static_cast<int64_t>(params.size());
    ampClearError();
    EXPECT_EQ(ampOptimizerStep(opt.get(), params.data(), count, 1.0f, 0), -1);
    std::string message = ampLastError();
    EXPECT_TRUE(contains(message, "ampOptimizerStep: ")) << message;
    for (const char *fragment : bad.fragments)
      EXPECT_TRUE(contains(message, fragment)) << message;
    EXPECT_EQ(ampOptimizerGetStep(opt.get()), 0);
    for (size_t k = 0; k < tensors.size(); ++k)
      EXPECT_TRUE(sameBytes(before[k], tensors[k].snapshot()))
          << "tensor " << k << " written";
    ampClearError();
    EXPECT_EQ(ampGpuOptimizerCreate(&c, params.data(), count), nullptr);
    message = ampLastError();
    EXPECT_TRUE(contains(message, "ampGpuOptimizerCreate: ")) << message;
    for (const char *fragment : bad.fragments)
      EXPECT_TRUE(contains(message, fragment)) << message;
  }
  // Parameters may share a gradient (it is only read): both are updated
  // from it, exactly as with two copies of it.
  std::vector<Tensor> copies = tensors;
  copies[1].gradF32 = copies[0].gradF32;
  std::vector<AmpOptimizerParam> shared = paramsOf(tensors);
  shared[1].grad = shared[0].grad;
  OptimizerPtr other = makeOptimizer(c);
  ASSERT_EQ(ampOptimizerStep(opt.get(), shared.data(), 2, 1.0f, 0), 1)
      << ampLastError();
  ASSERT_EQ(step(other.get(), copies), 1) << ampLastError();
  for (size_t k = 0; k < tensors.size(); ++k) {
    EXPECT_EQ(tensors[k].master, copies[k].master) << k;
    EXPECT_EQ(tensors[k].state0, copies[k].state0) << k;
  }
}

TEST(OptimizerStep, StateRequirementsFollowTheKind) {
  auto tryStep = [](AmpOptimizerConfig c, bool state0, bool state1) {
    OptimizerPtr opt = makeOptimizer(c);
    std::vector<Tensor> tensors;
    tensors.emplace_back(4, AMP_DTYPE_F16, AMP_DTYPE_F32);
    std::vector<AmpOptimizerParam> params = paramsOf(tensors);
    if (!state0)
      params[0].state0 = nullptr;
    if (!state1)
      params[0].state1 = nullptr;
    return ampOptimizerStep(opt.get(), params.data(), 1, 1.0f, 0);
  };
  AmpOptimizerConfig sgd = defaultConfig(AMP_OPTIMIZER_SGD);
  AmpOptimizerConfig momentum = defaultConfig(AMP_OPTIMIZER_MOMENTUM);
  AmpOptimizerConfig adamw = defaultConfig(AMP_OPTIMIZER_ADAMW);
  EXPECT_EQ(tryStep(sgd, false, false), 1);
  EXPECT_EQ(tryStep(momentum, true, false), 1);
  EXPECT_EQ(tryStep(momentum, false, true), -1);
  EXPECT_TRUE(contains(ampLastError(), "params[0].state0 is NULL"))
      << ampLastError();
  EXPECT_EQ(tryStep(adamw, true, false), -1);
  EXPECT_TRUE(contains(ampLastError(), "params[0].state1 is NULL"))
      << ampLastError();
  EXPECT_EQ(tryStep(adamw, false, true), -1);

  // Empty tensors need no pointers at all.
  OptimizerPtr opt = makeOptimizer(adamw);
  AmpOptimizerParam empty = {};
  empty.lowp_type = AMP_DTYPE_F16;
  empty.grad_type = AMP_DTYPE_BF16;
  EXPECT_EQ(ampOptimizerStep(opt.get(), &empty, 1, 1.0f, 0), 1)
      << ampLastError();
  EXPECT_EQ(ampOptimizerGetStep(opt.get()), 1);
}

//===----------------------------------------------------------------------===//
// Checkpoints (ampOptimizerSaveState / LoadState)
//===----------------------------------------------------------------------===//

constexpr size_t kOptimizerBlobSize = 84;

std::vector<unsigned char> saveBlob(const AmpOptimizer *opt) {
  size_t size = ampOptimizerSaveState(opt, nullptr, 0);
  std::vector<unsigned char> blob(size);
  EXPECT_EQ(ampOptimizerSaveState(opt, blob.data(), blob.size()), size)
      << ampLastError();
  return blob;
}

uint64_t getLE(const std::vector<unsigned char> &blob, size_t offset,
               int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i)
    v |= static_cast<uint64_t>(blob[offset + i]) << (8 * i);
  return v;
}

void putLE(std::vector<unsigned char> &blob, size_t offset, uint64_t value,
           int bytes) {
  if (offset + static_cast<size_t>(bytes) > blob.size()) {
    ADD_FAILURE() << "putLE past the end of a " << blob.size() << "-byte blob";
    return;
  }
  for (int i = 0; i < bytes; ++i)
    blob[offset + i] = static_cast<unsigned char>(value >> (8 * i));
}

uint64_t doubleBits(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

uint64_t fnv1a64(const unsigned char *data, size_t size) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < size; ++i) {
    hash ^= data[i];
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

/// Recomputes the checksum after an edit.
void reseal(std::vector<unsigned char> &blob) {
  putLE(blob, blob.size() - 8, fnv1a64(blob.data(), blob.size() - 8), 8);
}

/// Tensors of every working-copy kind for the checkpoint tests.
std::vector<Tensor> checkpointTensors(std::mt19937 &rng) {
  std::vector<Tensor> tensors;
  tensors.emplace_back(129, AMP_DTYPE_F16, AMP_DTYPE_F16);
  tensors.emplace_back(33, AMP_DTYPE_BF16, AMP_DTYPE_F32);
  tensors.emplace_back(40, kNoLowp, AMP_DTYPE_BF16);
  tensors.emplace_back(17, AMP_DTYPE_F32, AMP_DTYPE_F32);
  initMasters(tensors, rng);
  return tensors;
}

/// A learning-rate schedule: warm-up then decay.
float scheduledLr(float base, int step) {
  return step < 3 ? base * static_cast<float>(step + 1) / 3.0f
                  : base / static_cast<float>(step - 1);
}

/// A config of the same kind as `c` with every other field different, so
/// that a load visibly replaces the configuration.
AmpOptimizerConfig otherConfigOfKind(const AmpOptimizerConfig &c) {
  AmpOptimizerConfig o = defaultConfig(c.kind);
  o.lr = 0.125f;
  o.weight_decay = 0.5f;
  if (c.kind == AMP_OPTIMIZER_MOMENTUM) {
    o.momentum = c.momentum == 0.0f ? 0.5f : 0.0f;
    o.dampening = 0.5f;
  }
  o.beta1 = 0.5f;
  o.beta2 = 0.75f;
  o.eps = 0.25f;
  return o;
}

TEST(OptimizerCheckpoint, NullAndSizeQuery) {
  unsigned char blob[kOptimizerBlobSize] = {};
  ampClearError();
  EXPECT_EQ(ampOptimizerSaveState(nullptr, blob, sizeof(blob)), 0u);
  EXPECT_TRUE(contains(ampLastError(), "ampOptimizerSaveState: optimizer is "
                                       "NULL"))
      << ampLastError();
  EXPECT_NE(ampOptimizerLoadState(nullptr, blob, sizeof(blob)), 0);
  EXPECT_TRUE(contains(ampLastError(), "ampOptimizerLoadState: optimizer is "
                                       "NULL"))
      << ampLastError();

  OptimizerPtr opt = makeOptimizer(defaultConfig(AMP_OPTIMIZER_ADAM));
  EXPECT_EQ(ampOptimizerSaveState(opt.get(), nullptr, 0), kOptimizerBlobSize);
  EXPECT_EQ(ampOptimizerSaveState(opt.get(), nullptr, 1000),
            kOptimizerBlobSize);
  std::vector<unsigned char> small(kOptimizerBlobSize - 1, 0x5a);
  EXPECT_EQ(ampOptimizerSaveState(opt.get(), small.data(), small.size()),
            kOptimizerBlobSize);
  for (unsigned char byte : small)
    EXPECT_EQ(byte, 0x5a); // Not written.
  std::vector<unsigned char> large(200, 0x5a);
  EXPECT_EQ(ampOptimizerSaveState(opt.get(), large.data(), large.size()),
            kOptimizerBlobSize);
  EXPECT_EQ(large[kOptimizerBlobSize], 0x5a);
  EXPECT_NE(large[0], 0x5a);
}

TEST(OptimizerCheckpoint, Layout) {
  AmpOptimizerConfig c = defaultConfig(AMP_OPTIMIZER_ADAMW);
  c.lr = 0.01f;
  c.beta1 = 0.8f;
  c.beta2 = 0.95f;
  OptimizerPtr opt = makeOptimizer(c);
  std::mt19937 rng(3);
  std::vector<Tensor> tensors = checkpointTensors(rng);
  for (int s = 0; s < 3; ++s) {
    randomGrads(tensors, rng, 1.0f);
    ASSERT_EQ(step(opt.get(), tensors), 1);
  }
  ASSERT_EQ(step(opt.get(), tensors, 1.0f, /*foundInf=*/1), 0);
  ASSERT_EQ(ampOptimizerSetLearningRate(opt.get(), 0.004f), 0);
  std::vector<unsigned char> blob = saveBlob(opt.get());
  ASSERT_EQ(blob.size(), kOptimizerBlobSize);
  EXPECT_EQ(std::memcmp(blob.data(), "AMPOPTM", 8), 0);
  EXPECT_EQ(getLE(blob, 8, 4), 1u);
  EXPECT_EQ(getLE(blob, 12, 4), kOptimizerBlobSize);
  EXPECT_EQ(getLE(blob, 16, 4), static_cast<uint32_t>(AMP_OPTIMIZER_ADAMW));
  EXPECT_EQ(getLE(blob, 20, 4), floatBits(0.004f)); // The scheduled lr.
  EXPECT_EQ(getLE(blob, 24, 4), floatBits(c.weight_decay));
  EXPECT_EQ(getLE(blob, 28, 4), floatBits(c.momentum));
  EXPECT_EQ(getLE(blob, 32, 4), floatBits(c.dampening));
  EXPECT_EQ(getLE(blob, 36, 4), static_cast<uint32_t>(c.nesterov));
  EXPECT_EQ(getLE(blob, 40, 4), floatBits(0.8f));
  EXPECT_EQ(getLE(blob, 44, 4), floatBits(0.95f));
  EXPECT_EQ(getLE(blob, 48, 4), floatBits(c.eps));
  EXPECT_EQ(getLE(blob, 52, 8), 3u); // The skipped step does not count.
  // The powers: one double product per applied step.
  double b1 = 0.8f, b2 = 0.95f;
  EXPECT_EQ(getLE(blob, 60, 8), doubleBits(1.0 * b1 * b1 * b1));
  EXPECT_EQ(getLE(blob, 68, 8), doubleBits(1.0 * b2 * b2 * b2));
  EXPECT_EQ(getLE(blob, 76, 8), fnv1a64(blob.data(), 76));

  // SGD and Momentum keep their powers at 1.
  for (int32_t kind : {AMP_OPTIMIZER_SGD, AMP_OPTIMIZER_MOMENTUM}) {
    OptimizerPtr plain = makeOptimizer(defaultConfig(kind));
    ASSERT_EQ(step(plain.get(), tensors), 1);
    std::vector<unsigned char> b = saveBlob(plain.get());
    EXPECT_EQ(getLE(b, 52, 8), 1u);
    EXPECT_EQ(getLE(b, 60, 8), doubleBits(1.0));
    EXPECT_EQ(getLE(b, 68, 8), doubleBits(1.0));
  }
  // Deterministic: same history, same bytes.
  OptimizerPtr again = makeOptimizer(c);
  for (int s = 0; s < 3; ++s)
    ASSERT_EQ(step(again.get(), tensors), 1);
  ASSERT_EQ(ampOptimizerSetLearningRate(again.get(), 0.004f), 0);
  EXPECT_EQ(saveBlob(again.get()), blob);
}

TEST(OptimizerCheckpoint, RoundTripContinuesBitForBit) {
  const int kTotal = 9;
  for (const AmpOptimizerConfig &c : testConfigs())
    for (int saveAt : {0, 1, 4}) {
      SCOPED_TRACE(testing::Message()
                   << kindName(c.kind) << " momentum " << c.momentum
                   << " beta1 " << c.beta1 << " saved after step " << saveAt);
      std::mt19937 rng(1234);
      std::vector<Tensor> tensors = checkpointTensors(rng);
      OptimizerPtr straight = makeOptimizer(c);
      std::unique_ptr<std::vector<Tensor>> resumedTensors;
      OptimizerPtr resumed;
      for (int s = 0; s < kTotal; ++s) {
        if (s == saveAt) {
          // Checkpoint: the optimizer's blob plus the caller's buffers,
          // restored into a fresh optimizer of the same kind with another
          // configuration.
          std::vector<unsigned char> blob = saveBlob(straight.get());
          resumedTensors = std::make_unique<std::vector<Tensor>>(tensors);
          resumed = makeOptimizer(otherConfigOfKind(c));
          ASSERT_EQ(
              ampOptimizerLoadState(resumed.get(), blob.data(), blob.size()), 0)
              << ampLastError();
          EXPECT_EQ(ampOptimizerGetStep(resumed.get()),
                    ampOptimizerGetStep(straight.get()));
          EXPECT_EQ(saveBlob(resumed.get()), blob);
        }
        randomGrads(tensors, rng, 4.0f);
        // The first step after a load runs on the restored (scheduled) lr;
        // afterwards the schedule goes on for both.
        if (s != saveAt) {
          float lr = scheduledLr(c.lr, s);
          ASSERT_EQ(ampOptimizerSetLearningRate(straight.get(), lr), 0);
          if (resumed) {
            ASSERT_EQ(ampOptimizerSetLearningRate(resumed.get(), lr), 0);
          }
        }
        bool skip = s == 5;
        ASSERT_EQ(step(straight.get(), tensors, 0.25f, skip), skip ? 0 : 1);
        if (resumed) {
          std::vector<Tensor> &r = *resumedTensors;
          for (size_t k = 0; k < r.size(); ++k) {
            r[k].gradF32 = tensors[k].gradF32;
            r[k].gradBits = tensors[k].gradBits;
          }
          ASSERT_EQ(step(resumed.get(), r, 0.25f, skip), skip ? 0 : 1);
          ASSERT_EQ(ampOptimizerGetStep(resumed.get()),
                    ampOptimizerGetStep(straight.get()));
          for (size_t k = 0; k < r.size(); ++k)
            ASSERT_TRUE(sameBytes(r[k].snapshot(), tensors[k].snapshot()))
                << "tensor " << k << " differs after step " << s;
        }
      }
      ASSERT_TRUE(resumed);
      EXPECT_EQ(ampOptimizerGetStep(straight.get()), kTotal - 1);
      EXPECT_EQ(saveBlob(resumed.get()), saveBlob(straight.get()));
    }
}

/// An Adam optimizer in mid-run, the subject of the rejection tests.
OptimizerPtr midRunAdam() {
  AmpOptimizerConfig c = defaultConfig(AMP_OPTIMIZER_ADAM);
  c.lr = 0.01f;
  c.beta1 = 0.8f;
  c.beta2 = 0.9f;
  OptimizerPtr opt = makeOptimizer(c);
  EXPECT_EQ(ampOptimizerStep(opt.get(), nullptr, 0, 1.0f, 0), 1);
  EXPECT_EQ(ampOptimizerStep(opt.get(), nullptr, 0, 1.0f, 0), 1);
  return opt;
}

/// A blob of another Adam optimizer (different config and step).
std::vector<unsigned char> adamBlob() {
  AmpOptimizerConfig c = defaultConfig(AMP_OPTIMIZER_ADAM);
  c.lr = 0.5f;
  c.beta1 = 0.5f;
  c.beta2 = 0.75f;
  OptimizerPtr opt = makeOptimizer(c);
  for (int s = 0; s < 3; ++s)
    EXPECT_EQ(ampOptimizerStep(opt.get(), nullptr, 0, 1.0f, 0), 1);
  return saveBlob(opt.get());
}

/// Expects that loading `blob` into `opt` fails with a message containing
/// `fragment` and leaves the optimizer unchanged (same blob, same step).
void expectRejectedBy(AmpOptimizer *opt, const std::vector<unsigned char> &blob,
                      const char *fragment, const std::string &what) {
  std::vector<unsigned char> before = saveBlob(opt);
  int64_t step = ampOptimizerGetStep(opt);
  ampClearError();
  EXPECT_NE(ampOptimizerLoadState(opt, blob.data(), blob.size()), 0) << what;
  std::string message = ampLastError();
  EXPECT_EQ(message.rfind("ampOptimizerLoadState: ", 0), 0u)
      << what << ": " << message;
  EXPECT_TRUE(contains(message, fragment)) << what << ": " << message;
  EXPECT_EQ(saveBlob(opt), before) << what;
  EXPECT_EQ(ampOptimizerGetStep(opt), step) << what;
}

void expectRejected(const std::vector<unsigned char> &blob,
                    const char *fragment, const std::string &what) {
  OptimizerPtr opt = midRunAdam();
  expectRejectedBy(opt.get(), blob, fragment, what);
}

TEST(OptimizerCheckpoint, TruncatedRejected) {
  const std::vector<unsigned char> blob = adamBlob();
  for (size_t size = 0; size < blob.size(); ++size)
    expectRejected(
        std::vector<unsigned char>(blob.begin(), blob.begin() + size),
        "truncated", "size " + std::to_string(size));
  std::vector<unsigned char> longer = blob;
  longer.push_back(0);
  expectRejected(longer, "does not match", "one extra byte");
}

TEST(OptimizerCheckpoint, CorruptRejected) {
  const std::vector<unsigned char> blob = adamBlob();
  for (size_t i = 0; i < blob.size(); ++i)
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

TEST(OptimizerCheckpoint, ForeignRejected) {
  std::vector<unsigned char> png = {0x89, 'P',  'N',  'G',
                                    '\r', '\n', 0x1a, '\n'};
  png.resize(kOptimizerBlobSize, 0);
  expectRejected(png, "not an optimizer state blob (bad magic", "png");
  expectRejected(std::vector<unsigned char>(kOptimizerBlobSize, 0), "bad magic",
                 "zeros");
  // A loss-scaler checkpoint is not an optimizer checkpoint.
  AmpLossScaler *scaler = ampLossScalerCreate(nullptr);
  ASSERT_NE(scaler, nullptr);
  std::vector<unsigned char> scalerBlob(
      ampLossScalerSaveState(scaler, nullptr, 0));
  ampLossScalerSaveState(scaler, scalerBlob.data(), scalerBlob.size());
  ampLossScalerDestroy(scaler);
  expectRejected(scalerBlob, "bad magic; expected \"AMPOPTM\"", "scaler");
  // Nor is an optimizer checkpoint a loss-scaler one.
  AmpLossScaler *other = ampLossScalerCreate(nullptr);
  std::vector<unsigned char> optBlob = adamBlob();
  EXPECT_NE(ampLossScalerLoadState(other, optBlob.data(), optBlob.size()), 0);
  EXPECT_TRUE(contains(ampLastError(), "not a loss-scaler state blob"))
      << ampLastError();
  ampLossScalerDestroy(other);

  OptimizerPtr opt = midRunAdam();
  std::vector<unsigned char> before = saveBlob(opt.get());
  EXPECT_NE(ampOptimizerLoadState(opt.get(), nullptr, kOptimizerBlobSize), 0);
  EXPECT_TRUE(contains(ampLastError(), "ampOptimizerLoadState: blob is NULL"))
      << ampLastError();
  EXPECT_EQ(saveBlob(opt.get()), before);
}

TEST(OptimizerCheckpoint, NewerVersionRejected) {
  const std::vector<unsigned char> blob = adamBlob();
  for (uint32_t version : {2u, 100u, 0xffffffffu}) {
    std::vector<unsigned char> newer = blob;
    putLE(newer, 8, version, 4);
    reseal(newer);
    expectRejected(newer, "is newer than this runtime supports",
                   "version " + std::to_string(version));
  }
  // A newer version with another size is rejected for its version first.
  std::vector<unsigned char> bigger = blob;
  bigger.resize(100, 0);
  putLE(bigger, 8, 2, 4);
  putLE(bigger, 12, 100, 4);
  reseal(bigger);
  expectRejected(bigger, "is newer", "version 2, 100 bytes");
  std::vector<unsigned char> zero = blob;
  putLE(zero, 8, 0, 4);
  reseal(zero);
  expectRejected(zero, "invalid blob version 0", "version 0");
}

TEST(OptimizerCheckpoint, KindMismatchRejected) {
  for (int32_t from = AMP_OPTIMIZER_SGD; from <= AMP_OPTIMIZER_ADAMW; ++from)
    for (int32_t to = AMP_OPTIMIZER_SGD; to <= AMP_OPTIMIZER_ADAMW; ++to) {
      OptimizerPtr source = makeOptimizer(defaultConfig(from));
      ASSERT_EQ(ampOptimizerStep(source.get(), nullptr, 0, 1.0f, 0), 1);
      std::vector<unsigned char> blob = saveBlob(source.get());
      OptimizerPtr target = makeOptimizer(defaultConfig(to));
      std::string what = std::string(kindName(from)) + " -> " + kindName(to);
      if (from == to) {
        EXPECT_EQ(ampOptimizerLoadState(target.get(), blob.data(), blob.size()),
                  0)
            << what << ": " << ampLastError();
        continue;
      }
      std::string fragment = "optimizer kind mismatch: the blob holds the "
                             "state of " +
                             std::string(kindName(from)) + " (kind " +
                             std::to_string(from) + "), this optimizer is " +
                             kindName(to);
      expectRejectedBy(target.get(), blob, fragment.c_str(), what);
    }
}

TEST(OptimizerCheckpoint, InvalidContentRejected) {
  const std::vector<unsigned char> blob = adamBlob(); // t = 3, betas .5/.75.
  struct Case {
    size_t offset;
    int bytes;
    uint64_t value;
    const char *fragment;
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const Case cases[] = {
      {16, 4, 7, "invalid config in blob: kind must be 0 (SGD)"},
      {16, 4, 0xffffffffu, "invalid config in blob: kind must be"},
      {20, 4, floatBits(NAN), "invalid config in blob: lr must be finite"},
      {20, 4, floatBits(-1.0f), "invalid config in blob: lr must be"},
      {24, 4, floatBits(INFINITY), "invalid config in blob: weight_decay"},
      {40, 4, floatBits(1.0f), "invalid config in blob: beta1 must be"},
      {44, 4, floatBits(-0.5f), "invalid config in blob: beta2 must be"},
      {48, 4, floatBits(0.0f), "invalid config in blob: eps must be"},
      {52, 8, ~0ull, "inconsistent state in blob: step count t must be >= 0"},
      {52, 8, 0x8000000000000000ull, "step count t must be >= 0"},
      {60, 8, doubleBits(nan), "beta1^t must be finite and in [0, 1]"},
      {60, 8, doubleBits(inf), "beta1^t must be finite"},
      {60, 8, doubleBits(-0.125), "beta1^t must be finite and in [0, 1]"},
      {68, 8, doubleBits(1.5), "beta2^t must be finite and in [0, 1]"},
      {68, 8, doubleBits(-inf), "beta2^t must be finite"},
      {60, 8, doubleBits(0.75), "beta1^t = 0.75 exceeds beta1 = 0.5"},
      {68, 8, doubleBits(1.0), "beta2^t = 1 exceeds beta2 = 0.75"},
      {52, 8, 0, "beta1^t must be 1 at step 0"},
  };
  for (const Case &test : cases) {
    std::vector<unsigned char> bad = blob;
    putLE(bad, test.offset, test.value, test.bytes);
    reseal(bad);
    expectRejected(bad, test.fragment,
                   "offset " + std::to_string(test.offset) + " = " +
                       std::to_string(test.value));
  }
  // Momentum: the relation between nesterov and dampening is checked too.
  AmpOptimizerConfig m = defaultConfig(AMP_OPTIMIZER_MOMENTUM);
  OptimizerPtr source = makeOptimizer(m);
  std::vector<unsigned char> momentumBlob = saveBlob(source.get());
  putLE(momentumBlob, 32, floatBits(0.5f), 4); // dampening
  putLE(momentumBlob, 36, 1, 4);               // nesterov
  reseal(momentumBlob);
  OptimizerPtr target = makeOptimizer(m);
  expectRejectedBy(target.get(), momentumBlob,
                   "invalid config in blob: nesterov requires", "nesterov");
  // Edge values that are valid load: t = 0 with powers 1, powers 0.
  std::vector<unsigned char> fresh = blob;
  putLE(fresh, 52, 0, 8);
  putLE(fresh, 60, doubleBits(1.0), 8);
  putLE(fresh, 68, doubleBits(1.0), 8);
  reseal(fresh);
  OptimizerPtr opt = midRunAdam();
  EXPECT_EQ(ampOptimizerLoadState(opt.get(), fresh.data(), fresh.size()), 0)
      << ampLastError();
  EXPECT_EQ(ampOptimizerGetStep(opt.get()), 0);
  std::vector<unsigned char> underflowed = blob;
  putLE(underflowed, 52, 5000, 8);
  putLE(underflowed, 60, doubleBits(0.0), 8);
  putLE(underflowed, 68, doubleBits(0.0), 8);
  reseal(underflowed);
  EXPECT_EQ(
      ampOptimizerLoadState(opt.get(), underflowed.data(), underflowed.size()),
      0)
      << ampLastError();
  EXPECT_EQ(ampOptimizerGetStep(opt.get()), 5000);
}

TEST(OptimizerCheckpoint, SetLearningRateMatchesCreatingWithThatRate) {
  // Any kind: setting lr before a step is the same as having been created
  // with it, and the rate in force is what a checkpoint records.
  for (const AmpOptimizerConfig &c : testConfigs()) {
    SCOPED_TRACE(kindName(c.kind));
    std::mt19937 rng(77);
    std::vector<Tensor> a = checkpointTensors(rng);
    std::vector<Tensor> b = a;
    AmpOptimizerConfig fast = c;
    fast.lr = c.lr * 3.0f;
    OptimizerPtr scheduled = makeOptimizer(c), created = makeOptimizer(fast);
    ASSERT_EQ(ampOptimizerSetLearningRate(scheduled.get(), fast.lr), 0);
    for (int s = 0; s < 4; ++s) {
      randomGrads(a, rng, 1.0f);
      for (size_t k = 0; k < a.size(); ++k) {
        b[k].gradF32 = a[k].gradF32;
        b[k].gradBits = a[k].gradBits;
      }
      ASSERT_EQ(step(scheduled.get(), a), 1);
      ASSERT_EQ(step(created.get(), b), 1);
      for (size_t k = 0; k < a.size(); ++k)
        ASSERT_TRUE(sameBytes(a[k].snapshot(), b[k].snapshot())) << k;
    }
    EXPECT_EQ(saveBlob(scheduled.get()), saveBlob(created.get()));
  }
}

} // namespace
