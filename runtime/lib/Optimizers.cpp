//===- Optimizers.cpp - CPU optimizers with fp32 master weights -----------===//
//
// Part of amp-mlir. SGD, Momentum (PyTorch semantics), Adam (L2 coupled) and
// AdamW (decoupled decay) on fp32 master weights and fp32 state, with the
// semantics of Apex O2 / Paddle multi_precision. Each parameter tensor is
// updated in one pass: the gradient is read in its own type and multiplied
// by inv_scale, master and state are updated in fp32, and the low-precision
// working copy is written as the round-to-nearest-even of the new master.
// A step with found_inf != 0 reads and writes nothing and does not advance
// the step count or the Adam bias-correction powers.
//
// The per-element loops are templates over the update rule, the gradient
// type and the working-copy type, with every per-step scalar hoisted, so
// that they contain no calls and no data-dependent branches and vectorise.
// (Adam's sqrt needs -fno-math-errno for that; without it GCC keeps a
// scalar errno check around each sqrt. The results are identical.)
//
//===----------------------------------------------------------------------===//

#include "InlineConvert.h"
#include "Internal.h"

#include <cmath>
#include <cstdint>
#include <new>

using namespace amp::rt;

namespace amp {
namespace rt {
/// Checks `cfg` for ampOptimizerCreate / ampGpuOptimizerCreate. Only the
/// fields the kind uses are checked (SGD: lr, weight_decay; Momentum: also
/// momentum, dampening, nesterov; Adam/AdamW: also beta1, beta2, eps). On
/// failure sets "<call>: <field> ..." and returns false.
bool validateOptimizerConfig(const char *call, const AmpOptimizerConfig &cfg);
/// Checks the parameters of one optimizer step under `cfg`: sizes, types,
/// the pointers the kind needs, inv_scale, and that the buffers of one
/// parameter do not overlap. On failure sets "<call>: ..." and returns false.
bool validateOptimizerParams(const char *call, const AmpOptimizerConfig &cfg,
                             const AmpOptimizerParam *params, int64_t count,
                             float invScale);
} // namespace rt
} // namespace amp

struct AmpOptimizer {
  AmpOptimizerConfig config;
  /// Applied steps so far.
  int64_t step = 0;
  /// beta1^step and beta2^step, advanced by one multiplication per applied
  /// step (as Paddle's beta-pow accumulators).
  double beta1Power = 1.0;
  double beta2Power = 1.0;
};

namespace {
//===----------------------------------------------------------------------===//
// Element types (conversions from InlineConvert.h)
//===----------------------------------------------------------------------===//

/// Gradient encodings: `Storage` and an exact conversion to float.
struct GradF32 {
  using Storage = float;
  static float load(float value) { return value; }
};
struct GradF16 {
  using Storage = uint16_t;
  static float load(uint16_t bits) { return f16ToF32(bits); }
};
struct GradBF16 {
  using Storage = uint16_t;
  static float load(uint16_t bits) { return bf16ToF32(bits); }
};

/// Working-copy encodings: `Storage` and the rounding from the master.
struct LowpNone {
  static constexpr bool kPresent = false;
  using Storage = float; // Unused.
  static float store(float value) { return value; }
};
struct LowpF32 {
  static constexpr bool kPresent = true;
  using Storage = float;
  static float store(float value) { return value; }
};
struct LowpF16 {
  static constexpr bool kPresent = true;
  using Storage = uint16_t;
  static uint16_t store(float value) { return f32ToF16(value); }
};
struct LowpBF16 {
  static constexpr bool kPresent = true;
  using Storage = uint16_t;
  static uint16_t store(float value) { return f32ToBF16(value); }
};

//===----------------------------------------------------------------------===//
// Update rules: per-step scalars plus the per-element update in fp32
//===----------------------------------------------------------------------===//

/// p -= lr * (g + wd * p).
struct SgdRule {
  float lr, weightDecay;
  float apply(float g, float p, float *, float *, int64_t) const {
    float d = g + weightDecay * p;
    return p - lr * d;
  }
};

/// PyTorch SGD with momentum: the first step sets the velocity to d.
template <bool FirstStep, bool Nesterov> struct MomentumRule {
  float lr, weightDecay, momentum, oneMinusDampening;
  float apply(float g, float p, float *velocity, float *, int64_t i) const {
    float d = g + weightDecay * p;
    float buf = FirstStep ? d : momentum * velocity[i] + oneMinusDampening * d;
    velocity[i] = buf;
    d = Nesterov ? d + momentum * buf : buf;
    return p - lr * d;
  }
};

/// Adam (Decoupled = false: wd * p added to g) and AdamW (Decoupled = true:
/// p *= 1 - lr * wd first).
template <bool Decoupled> struct AdamRule {
  float weightDecay; // Adam: the L2 coefficient.
  float decay;       // AdamW: 1 - lr * wd.
  float beta1, oneMinusBeta1, beta2, oneMinusBeta2;
  float stepSize;      // lr / (1 - beta1^t).
  float biasCorr2Sqrt; // sqrt(1 - beta2^t).
  float eps;
  float apply(float g, float p, float *m, float *v, int64_t i) const {
    if (Decoupled)
      p = p * decay;
    else
      g = g + weightDecay * p;
    float mNew = beta1 * m[i] + oneMinusBeta1 * g;
    float vNew = beta2 * v[i] + oneMinusBeta2 * g * g;
    m[i] = mNew;
    v[i] = vNew;
    float denom = std::sqrt(vNew) / biasCorr2Sqrt + eps;
    return p - stepSize * mNew / denom;
  }
};

/// The one pass over a tensor. The buffers of one parameter never overlap
/// (checked by validateOptimizerParams).
template <typename Rule, typename Grad, typename Lowp>
void updateTensor(const Rule &rule, float *__restrict master,
                  const typename Grad::Storage *__restrict grad,
                  typename Lowp::Storage *__restrict lowp,
                  float *__restrict state0, float *__restrict state1,
                  int64_t numel, float invScale) {
  for (int64_t i = 0; i < numel; ++i) {
    float g = Grad::load(grad[i]) * invScale;
    float p = rule.apply(g, master[i], state0, state1, i);
    master[i] = p;
    if constexpr (Lowp::kPresent)
      lowp[i] = Lowp::store(p);
  }
}

template <typename Rule, typename Grad>
void dispatchLowp(const Rule &rule, const AmpOptimizerParam &param,
                  float invScale) {
  auto *grad = static_cast<const typename Grad::Storage *>(param.grad);
  if (!param.lowp) {
    updateTensor<Rule, Grad, LowpNone>(rule, param.master, grad, nullptr,
                                       param.state0, param.state1, param.numel,
                                       invScale);
    return;
  }
  switch (param.lowp_type) {
  case AMP_DTYPE_F32:
    updateTensor<Rule, Grad, LowpF32>(
        rule, param.master, grad, static_cast<float *>(param.lowp),
        param.state0, param.state1, param.numel, invScale);
    return;
  case AMP_DTYPE_F16:
    updateTensor<Rule, Grad, LowpF16>(
        rule, param.master, grad, static_cast<uint16_t *>(param.lowp),
        param.state0, param.state1, param.numel, invScale);
    return;
  default:
    updateTensor<Rule, Grad, LowpBF16>(
        rule, param.master, grad, static_cast<uint16_t *>(param.lowp),
        param.state0, param.state1, param.numel, invScale);
    return;
  }
}

template <typename Rule>
void updateAll(const Rule &rule, const AmpOptimizerParam *params, int64_t count,
               float invScale) {
  for (int64_t i = 0; i < count; ++i) {
    const AmpOptimizerParam &param = params[i];
    if (param.numel == 0)
      continue;
    switch (param.grad_type) {
    case AMP_DTYPE_F32:
      dispatchLowp<Rule, GradF32>(rule, param, invScale);
      break;
    case AMP_DTYPE_F16:
      dispatchLowp<Rule, GradF16>(rule, param, invScale);
      break;
    default:
      dispatchLowp<Rule, GradBF16>(rule, param, invScale);
      break;
    }
  }
}

template <bool FirstStep>
void updateMomentum(const MomentumRule<FirstStep, false> &plain, bool nesterov,
                    const AmpOptimizerParam *params, int64_t count,
                    float invScale) {
  if (!nesterov) {
    updateAll(plain, params, count, invScale);
    return;
  }
  MomentumRule<FirstStep, true> rule{plain.lr, plain.weightDecay,
                                     plain.momentum, plain.oneMinusDampening};
  updateAll(rule, params, count, invScale);
}

//===----------------------------------------------------------------------===//
// Validation helpers
//===----------------------------------------------------------------------===//

bool inHalfOpenUnit(float x) { return x >= 0.0f && x < 1.0f; }

bool usesVelocity(const AmpOptimizerConfig &cfg) {
  return cfg.kind == AMP_OPTIMIZER_MOMENTUM && cfg.momentum > 0.0f;
}

bool isAdam(const AmpOptimizerConfig &cfg) {
  return cfg.kind == AMP_OPTIMIZER_ADAM || cfg.kind == AMP_OPTIMIZER_ADAMW;
}

bool validDType(int32_t type) { return dtypeSize(type) != 0; }

struct Range {
  const char *name;
  uintptr_t begin, end;
};
} // namespace

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

bool amp::rt::validateOptimizerConfig(const char *call,
                                      const AmpOptimizerConfig &cfg) {
  if (cfg.kind < AMP_OPTIMIZER_SGD || cfg.kind > AMP_OPTIMIZER_ADAMW)
    return setError(call,
                    "kind must be 0 (SGD), 1 (Momentum), 2 (Adam) or 3 "
                    "(AdamW), got %d",
                    static_cast<int>(cfg.kind));
  if (!(std::isfinite(cfg.lr) && cfg.lr >= 0.0f))
    return setError(call, "lr must be finite and >= 0, got %g",
                    static_cast<double>(cfg.lr));
  if (!(std::isfinite(cfg.weight_decay) && cfg.weight_decay >= 0.0f))
    return setError(call, "weight_decay must be finite and >= 0, got %g",
                    static_cast<double>(cfg.weight_decay));
  if (cfg.kind == AMP_OPTIMIZER_MOMENTUM) {
    if (!inHalfOpenUnit(cfg.momentum))
      return setError(call, "momentum must be in [0, 1), got %g",
                      static_cast<double>(cfg.momentum));
    if (!(cfg.dampening >= 0.0f && cfg.dampening <= 1.0f))
      return setError(call, "dampening must be in [0, 1], got %g",
                      static_cast<double>(cfg.dampening));
    if (cfg.nesterov && !(cfg.momentum > 0.0f && cfg.dampening == 0.0f))
      return setError(call,
                      "nesterov requires momentum > 0 and dampening == 0, "
                      "got momentum %g and dampening %g",
                      static_cast<double>(cfg.momentum),
                      static_cast<double>(cfg.dampening));
  }
  if (isAdam(cfg)) {
    if (!inHalfOpenUnit(cfg.beta1))
      return setError(call, "beta1 must be in [0, 1), got %g",
                      static_cast<double>(cfg.beta1));
    if (!inHalfOpenUnit(cfg.beta2))
      return setError(call, "beta2 must be in [0, 1), got %g",
                      static_cast<double>(cfg.beta2));
    if (!(std::isfinite(cfg.eps) && cfg.eps > 0.0f))
      return setError(call, "eps must be finite and > 0, got %g",
                      static_cast<double>(cfg.eps));
  }
  return true;
}

bool amp::rt::validateOptimizerParams(const char *call,
                                      const AmpOptimizerConfig &cfg,
                                      const AmpOptimizerParam *params,
                                      int64_t count, float invScale) {
  if (count < 0)
    return setError(call, "count must be >= 0, got %lld",
                    static_cast<long long>(count));
  if (count > 0 && !params)
    return setError(call, "params is NULL with count %lld",
                    static_cast<long long>(count));
  if (!(std::isfinite(invScale) && invScale > 0.0f))
    return setError(call, "inv_scale must be finite and > 0, got %g",
                    static_cast<double>(invScale));
  bool needState0 = usesVelocity(cfg) || isAdam(cfg);
  bool needState1 = isAdam(cfg);
  for (int64_t i = 0; i < count; ++i) {
    const AmpOptimizerParam &p = params[i];
    long long index = static_cast<long long>(i);
    if (p.numel < 0)
      return setError(call, "params[%lld].numel must be >= 0, got %lld", index,
                      static_cast<long long>(p.numel));
    if (!validDType(p.lowp_type))
      return setError(call,
                      "params[%lld].lowp_type must be an AmpDType (0 f32, "
                      "1 f16, 2 bf16), got %d",
                      index, static_cast<int>(p.lowp_type));
    if (!validDType(p.grad_type))
      return setError(call,
                      "params[%lld].grad_type must be an AmpDType (0 f32, "
                      "1 f16, 2 bf16), got %d",
                      index, static_cast<int>(p.grad_type));
    if (p.numel == 0)
      continue;
    // Byte sizes below must not overflow.
    if (p.numel > INT64_MAX / 8)
      return setError(call, "params[%lld].numel %lld is too large", index,
                      static_cast<long long>(p.numel));
    if (!p.master)
      return setError(call, "params[%lld].master is NULL (numel %lld)", index,
                      static_cast<long long>(p.numel));
    if (!p.grad)
      return setError(call, "params[%lld].grad is NULL (numel %lld)", index,
                      static_cast<long long>(p.numel));
    if (needState0 && !p.state0)
      return setError(call,
                      "params[%lld].state0 is NULL but the optimizer needs "
                      "it (%s)",
                      index, isAdam(cfg) ? "m" : "the momentum velocity");
    if (needState1 && !p.state1)
      return setError(call,
                      "params[%lld].state1 is NULL but the optimizer needs "
                      "it (v)",
                      index);

    // The buffers of one parameter must be disjoint (the update loop reads
    // and writes them as independent arrays).
    Range ranges[5];
    int used = 0;
    auto add = [&](const char *name, const void *ptr, size_t elementSize) {
      uintptr_t begin = reinterpret_cast<uintptr_t>(ptr);
      ranges[used++] = {name, begin,
                        begin + static_cast<uintptr_t>(p.numel) * elementSize};
    };
    add("master", p.master, sizeof(float));
    add("grad", p.grad, dtypeSize(p.grad_type));
    if (p.lowp)
      add("lowp", p.lowp, dtypeSize(p.lowp_type));
    if (needState0)
      add("state0", p.state0, sizeof(float));
    if (needState1)
      add("state1", p.state1, sizeof(float));
    for (int a = 0; a < used; ++a)
      for (int b = a + 1; b < used; ++b)
        if (ranges[a].begin < ranges[b].end && ranges[b].begin < ranges[a].end)
          return setError(call, "params[%lld].%s and params[%lld].%s overlap",
                          index, ranges[a].name, index, ranges[b].name);
  }
  return true;
}

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

extern "C" {

int ampOptimizerConfigDefault(int32_t kind, AmpOptimizerConfig *out) {
  if (!out)
    return !setError("ampOptimizerConfigDefault", "out is NULL");
  if (kind < AMP_OPTIMIZER_SGD || kind > AMP_OPTIMIZER_ADAMW)
    return !setError("ampOptimizerConfigDefault",
                     "kind must be 0 (SGD), 1 (Momentum), 2 (Adam) or 3 "
                     "(AdamW), got %d",
                     static_cast<int>(kind));
  AmpOptimizerConfig cfg;
  cfg.kind = kind;
  cfg.lr = 1e-3f;
  cfg.weight_decay = kind == AMP_OPTIMIZER_ADAMW ? 1e-2f : 0.0f;
  cfg.momentum = kind == AMP_OPTIMIZER_MOMENTUM ? 0.9f : 0.0f;
  cfg.dampening = 0.0f;
  cfg.nesterov = 0;
  cfg.beta1 = 0.9f;
  cfg.beta2 = 0.999f;
  cfg.eps = 1e-8f;
  *out = cfg;
  return 0;
}

AmpOptimizer *ampOptimizerCreate(const AmpOptimizerConfig *cfg) {
  if (!cfg) {
    setError("ampOptimizerCreate", "cfg is NULL");
    return nullptr;
  }
  if (!validateOptimizerConfig("ampOptimizerCreate", *cfg))
    return nullptr;
  auto *opt = new (std::nothrow) AmpOptimizer;
  if (!opt) {
    setError("ampOptimizerCreate", "out of memory");
    return nullptr;
  }
  opt->config = *cfg;
  return opt;
}

void ampOptimizerDestroy(AmpOptimizer *opt) { delete opt; }

int64_t ampOptimizerGetStep(const AmpOptimizer *opt) {
  return opt ? opt->step : -1;
}

int ampOptimizerSetLearningRate(AmpOptimizer *opt, float lr) {
  if (!opt)
    return !setError("ampOptimizerSetLearningRate", "optimizer is NULL");
  if (!(std::isfinite(lr) && lr >= 0.0f))
    return !setError("ampOptimizerSetLearningRate",
                     "lr must be finite and >= 0, got %g",
                     static_cast<double>(lr));
  opt->config.lr = lr;
  return 0;
}

int ampOptimizerStep(AmpOptimizer *opt, const AmpOptimizerParam *params,
                     int64_t count, float inv_scale, int found_inf) {
  static const char *const kCall = "ampOptimizerStep";
  if (!opt) {
    setError(kCall, "optimizer is NULL");
    return -1;
  }
  const AmpOptimizerConfig &cfg = opt->config;
  if (!validateOptimizerParams(kCall, cfg, params, count, inv_scale))
    return -1;
  if (found_inf)
    return 0;

  int64_t t = opt->step + 1;
  // Per-step scalars: computed in double, rounded to float once.
  auto toFloat = [](double x) { return static_cast<float>(x); };
  double lr = cfg.lr, wd = cfg.weight_decay;
  switch (cfg.kind) {
  case AMP_OPTIMIZER_SGD:
    updateAll(SgdRule{cfg.lr, cfg.weight_decay}, params, count, inv_scale);
    break;
  case AMP_OPTIMIZER_MOMENTUM: {
    if (cfg.momentum == 0.0f) {
      updateAll(SgdRule{cfg.lr, cfg.weight_decay}, params, count, inv_scale);
      break;
    }
    float oneMinusDampening = toFloat(1.0 - double(cfg.dampening));
    bool nesterov = cfg.nesterov != 0;
    if (t == 1)
      updateMomentum(MomentumRule<true, false>{cfg.lr, cfg.weight_decay,
                                               cfg.momentum, oneMinusDampening},
                     nesterov, params, count, inv_scale);
    else
      updateMomentum(MomentumRule<false, false>{cfg.lr, cfg.weight_decay,
                                                cfg.momentum,
                                                oneMinusDampening},
                     nesterov, params, count, inv_scale);
    break;
  }
  default: {
    double beta1 = cfg.beta1, beta2 = cfg.beta2;
    double beta1Power = opt->beta1Power * beta1;
    double beta2Power = opt->beta2Power * beta2;
    float stepSize = toFloat(lr / (1.0 - beta1Power));
    float biasCorr2Sqrt = toFloat(std::sqrt(1.0 - beta2Power));
    float oneMinusBeta1 = toFloat(1.0 - beta1);
    float oneMinusBeta2 = toFloat(1.0 - beta2);
    if (cfg.kind == AMP_OPTIMIZER_ADAM)
      updateAll(AdamRule<false>{cfg.weight_decay, 1.0f, cfg.beta1,
                                oneMinusBeta1, cfg.beta2, oneMinusBeta2,
                                stepSize, biasCorr2Sqrt, cfg.eps},
                params, count, inv_scale);
    else
      updateAll(AdamRule<true>{0.0f, toFloat(1.0 - lr * wd), cfg.beta1,
                               oneMinusBeta1, cfg.beta2, oneMinusBeta2,
                               stepSize, biasCorr2Sqrt, cfg.eps},
                params, count, inv_scale);
    opt->beta1Power = beta1Power;
    opt->beta2Power = beta2Power;
    break;
  }
  }
  opt->step = t;
  return 1;
}

} // extern "C"
