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
// Checkpoint blob (version 1, 84 bytes, every field little-endian, written
// field by field with the helpers of StateBlob.h, as the loss scaler's):
//
//   offset size
//        0    8  magic "AMPOPTM\0"
//        8    4  uint32 version (kOptimizerBlobVersion)
//       12    4  uint32 total size of the blob in bytes
//       16   36  config: kind (i32), lr, weight_decay, momentum, dampening
//                (f32 bits), nesterov (i32), beta1, beta2, eps (f32 bits)
//       52   24  state: t (i64), beta1^t, beta2^t (f64 bits)
//       76    8  uint64 FNV-1a (64-bit) of bytes [0, 76)
//
// The parameters and their state0/state1 buffers are not in it (they are
// the caller's). The GPU optimizer writes and reads the same blob.
//
//===----------------------------------------------------------------------===//

#include "InlineConvert.h"
#include "Internal.h"
#include "LibraryCallEntries.h"
#include "OptimizerState.h"
#include "StateBlob.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <new>
#include <vector>

using namespace amp::rt;

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

/// A buffer of one parameter in a call, for the cross-parameter check.
struct ParamRange {
  uintptr_t begin, end;
  int64_t param;
  const char *name;
  bool written;
};

/// Different parameters of one call must not share memory that the step
/// writes (master, lowp, state0, state1): the same parameter twice would be
/// updated twice. Only gradients, which are read, may be shared. Sorts by
/// start address and keeps the furthest-reaching range seen so far (any, and
/// written), so a conflict is found in O(n log n).
bool checkDisjointParams(const char *call, std::vector<ParamRange> &ranges) {
  // Stable: ties keep the parameters' order, so the message is deterministic.
  std::stable_sort(ranges.begin(), ranges.end(),
                   [](const ParamRange &a, const ParamRange &b) {
                     return a.begin < b.begin;
                   });
  const ParamRange *reachAny = nullptr, *reachWritten = nullptr;
  for (const ParamRange &r : ranges) {
    const ParamRange *other = r.written ? reachAny : reachWritten;
    if (other && r.begin < other->end)
      return setError(call,
                      "params[%lld].%s and params[%lld].%s overlap (a "
                      "parameter may appear only once per call, and "
                      "parameters may share only gradients)",
                      static_cast<long long>(other->param), other->name,
                      static_cast<long long>(r.param), r.name);
    if (!reachAny || r.end > reachAny->end)
      reachAny = &r;
    if (r.written && (!reachWritten || r.end > reachWritten->end))
      reachWritten = &r;
  }
  return true;
}
} // namespace

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

bool amp::rt::validateOptimizerConfig(const char *call,
                                      const AmpOptimizerConfig &cfg,
                                      const char *prefix) {
  if (cfg.kind < AMP_OPTIMIZER_SGD || cfg.kind > AMP_OPTIMIZER_ADAMW)
    return setError(call,
                    "%skind must be 0 (SGD), 1 (Momentum), 2 (Adam) or 3 "
                    "(AdamW), got %d",
                    prefix, static_cast<int>(cfg.kind));
  if (!(std::isfinite(cfg.lr) && cfg.lr >= 0.0f))
    return setError(call, "%slr must be finite and >= 0, got %g", prefix,
                    static_cast<double>(cfg.lr));
  if (!(std::isfinite(cfg.weight_decay) && cfg.weight_decay >= 0.0f))
    return setError(call, "%sweight_decay must be finite and >= 0, got %g",
                    prefix, static_cast<double>(cfg.weight_decay));
  if (cfg.kind == AMP_OPTIMIZER_MOMENTUM) {
    if (!inHalfOpenUnit(cfg.momentum))
      return setError(call, "%smomentum must be in [0, 1), got %g", prefix,
                      static_cast<double>(cfg.momentum));
    if (!(cfg.dampening >= 0.0f && cfg.dampening <= 1.0f))
      return setError(call, "%sdampening must be in [0, 1], got %g", prefix,
                      static_cast<double>(cfg.dampening));
    if (cfg.nesterov && !(cfg.momentum > 0.0f && cfg.dampening == 0.0f))
      return setError(call,
                      "%snesterov requires momentum > 0 and dampening == 0, "
                      "got momentum %g and dampening %g",
                      prefix, static_cast<double>(cfg.momentum),
                      static_cast<double>(cfg.dampening));
  }
  if (isAdam(cfg)) {
    if (!inHalfOpenUnit(cfg.beta1))
      return setError(call, "%sbeta1 must be in [0, 1), got %g", prefix,
                      static_cast<double>(cfg.beta1));
    if (!inHalfOpenUnit(cfg.beta2))
      return setError(call, "%sbeta2 must be in [0, 1), got %g", prefix,
                      static_cast<double>(cfg.beta2));
    if (!(std::isfinite(cfg.eps) && cfg.eps > 0.0f))
      return setError(call, "%seps must be finite and > 0, got %g", prefix,
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
  std::vector<ParamRange> all;
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
    // Every buffer aligned to its elements (as the unscale entry points and
    // the GPU optimizer require).
    for (int a = 0; a < used; ++a) {
      size_t elementSize =
          static_cast<size_t>(ranges[a].end - ranges[a].begin) /
          static_cast<size_t>(p.numel);
      if (ranges[a].begin % elementSize != 0)
        return setError(call,
                        "params[%lld].%s = %p is not aligned to its "
                        "%zu-byte elements",
                        index, ranges[a].name,
                        reinterpret_cast<const void *>(ranges[a].begin),
                        elementSize);
    }
    for (int a = 0; a < used; ++a)
      for (int b = a + 1; b < used; ++b)
        if (ranges[a].begin < ranges[b].end && ranges[b].begin < ranges[a].end)
          return setError(call, "params[%lld].%s and params[%lld].%s overlap",
                          index, ranges[a].name, index, ranges[b].name);
    for (int a = 0; a < used; ++a)
      all.push_back({ranges[a].begin, ranges[a].end, i, ranges[a].name,
                     std::strcmp(ranges[a].name, "grad") != 0});
  }
  return checkDisjointParams(call, all);
}

//===----------------------------------------------------------------------===//
// Checkpoint blob
//===----------------------------------------------------------------------===//

namespace {
constexpr unsigned char kBlobMagic[8] = {'A', 'M', 'P', 'O', 'P', 'T', 'M', 0};
constexpr size_t kBlobConfigSize = 9 * 4;
constexpr size_t kBlobStateSize = 3 * 8;
constexpr size_t kBlobChecksumOffset =
    blob::kHeaderSize + kBlobConfigSize + kBlobStateSize;
constexpr size_t kBlobSize = kBlobChecksumOffset + blob::kChecksumSize;

/// Checks that `s` is a step state an optimizer with `cfg` (valid) can
/// reach; on failure sets "<call>: <reason>" and returns false.
bool checkStepState(const char *call, const AmpOptimizerConfig &cfg,
                    const OptimizerStepState &s) {
  const char *prefix = "inconsistent state in blob: ";
  if (s.t < 0)
    return setError(call, "%sstep count t must be >= 0, got %lld", prefix,
                    static_cast<long long>(s.t));
  struct Power {
    const char *name, *betaName;
    double value;
    float beta;
  };
  const Power powers[] = {{"beta1^t", "beta1", s.beta1Pow, cfg.beta1},
                          {"beta2^t", "beta2", s.beta2Pow, cfg.beta2}};
  for (const Power &p : powers) {
    if (!(std::isfinite(p.value) && p.value >= 0.0 && p.value <= 1.0))
      return setError(call, "%s%s must be finite and in [0, 1], got %g", prefix,
                      p.name, p.value);
    if (s.t == 0 && p.value != 1.0)
      return setError(call, "%s%s must be 1 at step 0, got %g", prefix, p.name,
                      p.value);
    // beta^t <= beta for t >= 1 (each step multiplies by beta < 1, and the
    // rounded products never exceed beta).
    if (isAdam(cfg) && s.t > 0 && p.value > static_cast<double>(p.beta))
      return setError(call, "%s%s = %g exceeds %s = %g at step %lld", prefix,
                      p.name, p.value, p.betaName, static_cast<double>(p.beta),
                      static_cast<long long>(s.t));
  }
  return true;
}
} // namespace

const char *amp::rt::optimizerKindName(int32_t kind) {
  switch (kind) {
  case AMP_OPTIMIZER_SGD:
    return "SGD";
  case AMP_OPTIMIZER_MOMENTUM:
    return "Momentum";
  case AMP_OPTIMIZER_ADAM:
    return "Adam";
  case AMP_OPTIMIZER_ADAMW:
    return "AdamW";
  default:
    return "<invalid kind>";
  }
}

size_t amp::rt::optimizerBlobSize() { return kBlobSize; }

size_t amp::rt::saveOptimizerBlob(const AmpOptimizerConfig &c,
                                  const OptimizerStepState &s, void *buffer,
                                  size_t capacity) {
  if (!buffer || capacity < kBlobSize)
    return kBlobSize;
  unsigned char bytes[kBlobSize];
  blob::Writer w(bytes);
  w.header(kBlobMagic, kOptimizerBlobVersion, kBlobSize);
  w.i32(c.kind);
  w.f32(c.lr);
  w.f32(c.weight_decay);
  w.f32(c.momentum);
  w.f32(c.dampening);
  w.i32(c.nesterov);
  w.f32(c.beta1);
  w.f32(c.beta2);
  w.f32(c.eps);
  w.i64(s.t);
  w.f64(s.beta1Pow);
  w.f64(s.beta2Pow);
  blob::seal(bytes, kBlobSize);
  std::memcpy(buffer, bytes, kBlobSize);
  return kBlobSize;
}

bool amp::rt::loadOptimizerBlob(const char *call, const void *blob, size_t size,
                                int32_t kind, AmpOptimizerConfig &config,
                                OptimizerStepState &state) {
  if (!blob::checkFraming(call, blob, size, kBlobMagic, "an optimizer state",
                          kOptimizerBlobVersion, kBlobSize))
    return false;
  blob::Reader r(static_cast<const unsigned char *>(blob) + blob::kHeaderSize);
  AmpOptimizerConfig c;
  c.kind = r.i32();
  c.lr = r.f32();
  c.weight_decay = r.f32();
  c.momentum = r.f32();
  c.dampening = r.f32();
  c.nesterov = r.i32();
  c.beta1 = r.f32();
  c.beta2 = r.f32();
  c.eps = r.f32();
  OptimizerStepState s;
  s.t = r.i64();
  s.beta1Pow = r.f64();
  s.beta2Pow = r.f64();
  // A valid kind that is not ours: the parameters were set up (and, on the
  // GPU, their tables built) for this optimizer's kind.
  if (c.kind != kind && c.kind >= AMP_OPTIMIZER_SGD &&
      c.kind <= AMP_OPTIMIZER_ADAMW)
    return setError(call,
                    "optimizer kind mismatch: the blob holds the state of "
                    "%s (kind %d), this optimizer is %s (kind %d); load it "
                    "into an optimizer created with kind %d",
                    optimizerKindName(c.kind), static_cast<int>(c.kind),
                    optimizerKindName(kind), static_cast<int>(kind),
                    static_cast<int>(c.kind));
  if (!validateOptimizerConfig(call, c, "invalid config in blob: "))
    return false;
  if (!checkStepState(call, c, s))
    return false;
  config = c;
  state = s;
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

} // extern "C"

namespace {
/// One applied step of `opt` (arguments checked): t += 1, the powers advance
/// (Adam, AdamW), every parameter is updated.
void applyStep(AmpOptimizer &optimizer, const AmpOptimizerParam *params,
               int64_t count, float inv_scale) {
  AmpOptimizer *opt = &optimizer;
  const AmpOptimizerConfig &cfg = opt->config;

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
}
} // namespace

extern "C" {

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
  applyStep(*opt, params, count, inv_scale);
  return 1;
}

size_t ampOptimizerSaveState(const AmpOptimizer *opt, void *buffer,
                             size_t capacity) {
  if (!opt) {
    setError("ampOptimizerSaveState", "optimizer is NULL");
    return 0;
  }
  OptimizerStepState state{opt->step, opt->beta1Power, opt->beta2Power};
  return saveOptimizerBlob(opt->config, state, buffer, capacity);
}

int ampOptimizerLoadState(AmpOptimizer *opt, const void *blob, size_t size) {
  const char *call = "ampOptimizerLoadState";
  if (!opt)
    return !setError(call, "optimizer is NULL");
  AmpOptimizerConfig config;
  OptimizerStepState state;
  if (!loadOptimizerBlob(call, blob, size, opt->config.kind, config, state))
    return 1;
  opt->config = config;
  opt->step = state.t;
  opt->beta1Power = state.beta1Pow;
  opt->beta2Power = state.beta2Pow;
  return 0;
}

} // extern "C"

//===----------------------------------------------------------------------===//
// The optimizer update of compiled training steps (LibraryCalls.def)
//===----------------------------------------------------------------------===//

namespace {
/// The configuration of an ampGpu/ampCpuOptimizerUpdateBuffers call.
/// Momentum 0 is plain SGD, as in PyTorch (and ampOptimizerStep): the
/// momentum buffer is neither read nor written.
AmpOptimizerConfig getUpdateConfig(const OptimizerUpdateArgs &u) {
  AmpOptimizerConfig c{};
  c.kind = u.kind;
  c.lr = u.lr;
  c.weight_decay = u.weightDecay;
  c.momentum = u.momentum;
  c.dampening = u.dampening;
  c.nesterov = u.nesterov;
  c.beta1 = u.beta1;
  c.beta2 = u.beta2;
  c.eps = u.eps;
  return c;
}

/// The entries of the table as AmpOptimizerParam on their destinations
/// (the arrays checked): what ampOptimizerStep updates in place, once the
/// current values are copied there.
std::vector<AmpOptimizerParam> getUpdateParams(const OptimizerUpdateArgs &u) {
  std::vector<AmpOptimizerParam> params(static_cast<size_t>(u.count));
  for (int64_t i = 0; i < u.count; ++i) {
    AmpOptimizerParam &p = params[static_cast<size_t>(i)];
    p.master = u.paramsOut[i];
    p.lowp = nullptr;
    p.lowp_type = AMP_DTYPE_F32;
    p.grad = u.grads[i];
    p.grad_type = u.gradTypes[i];
    p.state0 = u.state0Out ? u.state0Out[i] : nullptr;
    p.state1 = u.state1Out ? u.state1Out[i] : nullptr;
    p.numel = u.numels[i];
  }
  return params;
}

/// The current value and the destination of one of entry i's buffers.
struct UpdatePair {
  const char *name;
  const float *from;
  float *to;
};

/// Entry i's pairs: master, state0, state1 (NULL where the arrays are).
std::array<UpdatePair, 3> getUpdatePairs(const OptimizerUpdateArgs &u,
                                         int64_t i) {
  return {{{"params", u.params[i], u.paramsOut[i]},
           {"state0", u.state0 ? u.state0[i] : nullptr,
            u.state0Out ? u.state0Out[i] : nullptr},
           {"state1", u.state1 ? u.state1[i] : nullptr,
            u.state1Out ? u.state1Out[i] : nullptr}}};
}

/// beta^t in double by binary powering (the GPU kernel's powerOf).
double powerOfStep(double beta, int64_t t) {
  double result = 1.0;
  for (; t > 0; t >>= 1, beta *= beta)
    if (t & 1)
      result *= beta;
  return result;
}
} // namespace

CallCheck amp::rt::check(const char *call, const OptimizerUpdateArgs &u, bool) {
  if (u.count < 0)
    return setError(call, "count must be >= 0, got %lld",
                    static_cast<long long>(u.count)),
           CallCheck::Invalid;
  if (u.count == 0)
    return CallCheck::Nothing;
  const AmpOptimizerConfig cfg = getUpdateConfig(u);
  if (!validateOptimizerConfig(call, cfg))
    return CallCheck::Invalid;
  const bool needState0 = usesVelocity(cfg) || isAdam(cfg);
  const bool needState1 = isAdam(cfg);
  const char *missing = !u.params                    ? "params"
                        : !u.paramsOut               ? "paramsOut"
                        : !u.grads                   ? "grads"
                        : !u.gradTypes               ? "gradTypes"
                        : !u.numels                  ? "numels"
                        : needState0 && !u.state0    ? "state0"
                        : needState0 && !u.state0Out ? "state0Out"
                        : needState1 && !u.state1    ? "state1"
                        : needState1 && !u.state1Out ? "state1Out"
                        : !u.step                    ? "step"
                        : !u.skip                    ? "skip"
                                                     : nullptr;
  if (missing) {
    setError(call, "%s is NULL with count %lld (%s)", missing,
             static_cast<long long>(u.count), optimizerKindName(cfg.kind));
    return CallCheck::Invalid;
  }
  // The arrays are host memory: read here, the buffers they name are not.
  std::vector<AmpOptimizerParam> params = getUpdateParams(u);
  if (!validateOptimizerParams(call, cfg, params.data(), u.count, 1.0f))
    return CallCheck::Invalid;
  // Each current value: present and aligned, and its destination's own
  // buffer or disjoint from it.
  // State the kind does not update is still copied to its destination
  // where both are given (Momentum 0 keeps its buffer).
  const bool used[3] = {true, needState0 || u.state0, needState1 || u.state1};
  for (int64_t i = 0; i < u.count; ++i) {
    if (u.numels[i] == 0)
      continue;
    uintptr_t bytes = static_cast<uintptr_t>(u.numels[i]) * sizeof(float);
    std::array<UpdatePair, 3> pairs = getUpdatePairs(u, i);
    for (int k = 0; k < 3; ++k) {
      if (!used[k])
        continue;
      const UpdatePair &pair = pairs[k];
      uintptr_t from = reinterpret_cast<uintptr_t>(pair.from);
      uintptr_t to = reinterpret_cast<uintptr_t>(pair.to);
      long long index = static_cast<long long>(i);
      for (uintptr_t address : {from, to})
        if (!address || address % alignof(float)) {
          setError(call, "%s%s[%lld] = %p is %s (numel %lld)", pair.name,
                   address == from ? "" : "Out", index,
                   reinterpret_cast<const void *>(address),
                   address ? "not aligned to its 4-byte elements" : "NULL",
                   static_cast<long long>(u.numels[i]));
          return CallCheck::Invalid;
        }
      if (from != to && from < to + bytes && to < from + bytes) {
        setError(call,
                 "%s[%lld] and its destination overlap: they must be the "
                 "same buffer or disjoint",
                 pair.name, index);
        return CallCheck::Invalid;
      }
    }
  }
  for (const AmpOptimizerParam &p : params)
    if (p.numel > 0)
      return CallCheck::Work;
  return CallCheck::Nothing;
}

bool amp::rt::cpu::OptimizerUpdate(const char *, const OptimizerUpdateArgs &u,
                                   NoResult &) {
  // The current values to their destinations (where they are not the same
  // buffer): all a skipped step does, and where the update runs in place.
  for (int64_t i = 0; i < u.count; ++i)
    for (const UpdatePair &pair : getUpdatePairs(u, i))
      if (pair.from && pair.to && pair.from != pair.to && u.numels[i] > 0)
        std::memcpy(pair.to, pair.from,
                    static_cast<size_t>(u.numels[i]) * sizeof(float));
  if (*u.skip != 0)
    return true; // No gradient is read on a skipped step.
  AmpOptimizer optimizer;
  optimizer.config = getUpdateConfig(u);
  optimizer.step = *u.step;
  if (isAdam(optimizer.config)) {
    optimizer.beta1Power = powerOfStep(optimizer.config.beta1, optimizer.step);
    optimizer.beta2Power = powerOfStep(optimizer.config.beta2, optimizer.step);
  }
  std::vector<AmpOptimizerParam> params = getUpdateParams(u);
  applyStep(optimizer, params.data(), u.count, 1.0f);
  return true;
}
