//===- GpuLossScaling.cpp - device loss scaler, tables and optimizers -----===//
//
// Part of amp-mlir. The host half of the GPU entry points of
// AmpLossScaling.h, written once against the device operations of
// GpuLossScalingDevice.h, which the CUDA runtime (GpuLossScalingCuda.cpp)
// and the GPU simulator (sim/SimLossScaling.cpp) each define:
//
// * a scaler is one device allocation holding its LossScalerState, its
//   configuration and found_inf (cuda/LossScalingAbi.h), so the scale,
//   1/scale and found_inf pointers are stable for the scaler's lifetime;
// * tensor tables and optimizer parameter tables are uploaded once, with a
//   work list of (tensor, chunk) pieces, so that one launch covers every
//   tensor and no step uploads anything;
// * everything is queued in order and nothing synchronises the host except
//   GetStats, SaveState and GetStep.
//
// The kernels are cuda/LossScaling.cu's (their bodies: LossScalingKernels.h).
// Errors set ampLastError() and are returned, never passed to the error
// handler, except in ampGpuCheckFiniteAndUnscaleBuffer(s) (entry points for
// compiled code, void like ampGpuGemm), which raise them.
//
//===----------------------------------------------------------------------===//

#include "GpuLossScalingDevice.h"
#include "Internal.h"
#include "LibraryCallEntries.h"
#include "LossScalerState.h"
#include "OptimizerState.h"

#include "../cuda/LossScalingAbi.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

using namespace amp::rt;
using namespace amp::rt::gpuls;

//===----------------------------------------------------------------------===//
// Handles
//===----------------------------------------------------------------------===//

struct AmpGpuLossScaler {
  static constexpr uint32_t kMagic = 0x414d5053U; // "AMPS"
  uint32_t magic = kMagic;
  DevicePtr block = 0;        // ScalerBlock
  AmpLossScalerConfig config; // Host mirror of block->config.
};

struct AmpGpuTensorTable {
  static constexpr uint32_t kMagic = 0x414d5054U; // "AMPT"
  uint32_t magic = kMagic;
  int32_t dtype = 0;
  int64_t numItems = 0;
  DevicePtr items = 0; // CheckItem[numItems]; 0 when empty.
};

struct AmpGpuOptimizer {
  static constexpr uint32_t kMagic = 0x414d504fU; // "AMPO"
  uint32_t magic = kMagic;
  AmpOptimizerConfig config; // Passed to every launch by value.
  bool hasVelocity = false;  // The tables hold state0 (Momentum, Adam).
  int64_t numItems = 0;
  DevicePtr memory = 0;  // Record, then tensors, then items.
  DevicePtr record = 0;  // OptStepRecord
  DevicePtr tensors = 0; // OptTensor[]
  DevicePtr items = 0;   // OptItem[numItems]
};

namespace {

//===----------------------------------------------------------------------===//
// Handle checks
//===----------------------------------------------------------------------===//

bool checkScaler(const char *call, const AmpGpuLossScaler *scaler) {
  if (!scaler)
    return setError(call, "null scaler");
  if (scaler->magic != AmpGpuLossScaler::kMagic)
    return setError(call, "invalid scaler handle %p",
                    static_cast<const void *>(scaler));
  return true;
}

bool checkTable(const char *call, const AmpGpuTensorTable *table) {
  if (!table)
    return setError(call, "null tensor table");
  if (table->magic != AmpGpuTensorTable::kMagic)
    return setError(call, "invalid tensor table handle %p",
                    static_cast<const void *>(table));
  return true;
}

bool checkOptimizer(const char *call, const AmpGpuOptimizer *opt) {
  if (!opt)
    return setError(call, "null optimizer");
  if (opt->magic != AmpGpuOptimizer::kMagic)
    return setError(call, "invalid optimizer handle %p",
                    static_cast<const void *>(opt));
  return true;
}

DevicePtr foundInfAddress(const AmpGpuLossScaler *scaler) {
  return scaler->block + offsetof(ScalerBlock, foundInf);
}

DevicePtr invScaleAddress(const AmpGpuLossScaler *scaler) {
  return scaler->block + offsetof(ScalerBlock, state) +
         offsetof(LossScalerState, invScale);
}

bool readState(const char *call, const AmpGpuLossScaler *scaler,
               LossScalerState *state) {
  return device::download(call, state,
                          scaler->block + offsetof(ScalerBlock, state),
                          sizeof(LossScalerState));
}

bool isValidDType(int32_t type) {
  return type == AMP_DTYPE_F32 || type == AMP_DTYPE_F16 ||
         type == AMP_DTYPE_BF16;
}

/// Elements per chunk and chunks of a tensor (numel >= 0).
int64_t chunksOf(int64_t numel, int64_t chunk) {
  return numel / chunk + (numel % chunk != 0 ? 1 : 0);
}

/// Re-sets `why` (a "<call>: reason" message saved before a cleanup call
/// that may have overwritten it) as the last error.
void restoreError(const char *call, const std::string &why) {
  size_t prefix = std::strlen(call) + 2;
  setError(call, "%s",
           why.compare(0, prefix - 2, call) == 0 && why.size() >= prefix
               ? why.c_str() + prefix
               : why.c_str());
}

/// Largest numel accepted: keeps numel * 4 bytes and address arithmetic far
/// from overflow (2^56 bytes is beyond any device).
constexpr int64_t kMaxNumel = int64_t(1) << 54;

} // namespace

extern "C" {

//===----------------------------------------------------------------------===//
// Scaler
//===----------------------------------------------------------------------===//

AmpGpuLossScaler *ampGpuLossScalerCreate(const AmpLossScalerConfig *cfg) {
  const char *call = "ampGpuLossScalerCreate";
  AmpLossScalerConfig config;
  if (!resolveLossScalerConfig(call, cfg, config))
    return nullptr;
  if (!device::ready(call))
    return nullptr;
  auto *scaler = new (std::nothrow) AmpGpuLossScaler;
  if (!scaler) {
    setError(call, "out of memory");
    return nullptr;
  }
  scaler->config = config;
  ScalerBlock host;
  std::memset(&host, 0, sizeof(host));
  host.state = initialLossScalerState(config);
  host.config = config;
  host.foundInf = 0.0f;
  if (!device::allocate(call, sizeof(ScalerBlock), &scaler->block)) {
    delete scaler;
    return nullptr;
  }
  if (!device::upload(call, scaler->block, &host, sizeof(host))) {
    std::string why = ampLastError();
    device::release(call, scaler->block);
    restoreError(call, why);
    delete scaler;
    return nullptr;
  }
  return scaler;
}

void ampGpuLossScalerDestroy(AmpGpuLossScaler *scaler) {
  const char *call = "ampGpuLossScalerDestroy";
  if (!scaler || !checkScaler(call, scaler))
    return;
  device::release(call, scaler->block);
  scaler->magic = 0;
  delete scaler;
}

float *ampGpuLossScalerScalePtr(AmpGpuLossScaler *scaler) {
  if (!checkScaler("ampGpuLossScalerScalePtr", scaler))
    return nullptr;
  return reinterpret_cast<float *>(scaler->block +
                                   offsetof(ScalerBlock, state) +
                                   offsetof(LossScalerState, scale));
}

float *ampGpuLossScalerInvScalePtr(AmpGpuLossScaler *scaler) {
  if (!checkScaler("ampGpuLossScalerInvScalePtr", scaler))
    return nullptr;
  return reinterpret_cast<float *>(invScaleAddress(scaler));
}

float *ampGpuLossScalerFoundInfPtr(AmpGpuLossScaler *scaler) {
  if (!checkScaler("ampGpuLossScalerFoundInfPtr", scaler))
    return nullptr;
  return reinterpret_cast<float *>(foundInfAddress(scaler));
}

int ampGpuLossScalerBeginStep(AmpGpuLossScaler *scaler) {
  const char *call = "ampGpuLossScalerBeginStep";
  if (!checkScaler(call, scaler))
    return 1;
  return device::zero32(call, foundInfAddress(scaler)) ? 0 : 1;
}

int ampGpuLossScalerUpdate(AmpGpuLossScaler *scaler) {
  const char *call = "ampGpuLossScalerUpdate";
  if (!checkScaler(call, scaler))
    return 1;
  DevicePtr block = scaler->block;
  void *params[] = {&block};
  return device::launch(call, kUpdate, 1, 1, params) ? 0 : 1;
}

int ampGpuLossScalerGetStats(AmpGpuLossScaler *scaler,
                             AmpLossScalerStats *out) {
  const char *call = "ampGpuLossScalerGetStats";
  if (!checkScaler(call, scaler))
    return 1;
  if (!out) {
    setError(call, "null output");
    return 1;
  }
  LossScalerState state;
  if (!readState(call, scaler, &state))
    return 1;
  out->scale = state.scale;
  out->good_steps = state.goodSteps;
  out->bad_steps = state.badSteps;
  out->hysteresis = state.hysteresis;
  out->steps = state.steps;
  out->skipped_steps = state.skippedSteps;
  out->overflows_at_min_scale = state.overflowsAtMinScale;
  return 0;
}

size_t ampGpuLossScalerSaveState(AmpGpuLossScaler *scaler, void *buffer,
                                 size_t capacity) {
  const char *call = "ampGpuLossScalerSaveState";
  if (!checkScaler(call, scaler))
    return 0;
  size_t size = lossScalerBlobSize();
  if (!buffer || capacity < size)
    return size; // A size query: nothing to read back.
  LossScalerState state;
  if (!readState(call, scaler, &state))
    return 0;
  return saveLossScalerBlob(scaler->config, state, buffer, capacity);
}

int ampGpuLossScalerLoadState(AmpGpuLossScaler *scaler, const void *blob,
                              size_t size) {
  const char *call = "ampGpuLossScalerLoadState";
  if (!checkScaler(call, scaler))
    return 1;
  AmpLossScalerConfig config;
  LossScalerState state;
  if (!loadLossScalerBlob(call, blob, size, config, state))
    return 1;
  // State and config are contiguous at the start of the block; found_inf
  // is left alone.
  ScalerBlock host;
  std::memset(&host, 0, sizeof(host));
  host.state = state;
  host.config = config;
  if (!device::upload(call, scaler->block, &host,
                      offsetof(ScalerBlock, foundInf)))
    return 1;
  scaler->config = config;
  return 0;
}

//===----------------------------------------------------------------------===//
// Tensor tables and check-finite-and-unscale
//===----------------------------------------------------------------------===//

AmpGpuTensorTable *ampGpuTensorTableCreate(void *const *devicePtrs,
                                           const int64_t *numels, int64_t count,
                                           int32_t dtype) {
  const char *call = "ampGpuTensorTableCreate";
  if (count < 0) {
    setError(call, "negative tensor count %lld", static_cast<long long>(count));
    return nullptr;
  }
  if (count > 0 && (!devicePtrs || !numels)) {
    setError(call, "null %s with %lld tensors",
             devicePtrs ? "numels" : "devicePtrs",
             static_cast<long long>(count));
    return nullptr;
  }
  if (!isValidDType(dtype)) {
    setError(call, "unsupported dtype %s (expected f32, f16 or bf16)",
             dtypeName(dtype));
    return nullptr;
  }
  const size_t elementSize = dtypeSize(dtype);
  const int64_t chunk = kCheckChunkBytes / static_cast<int64_t>(elementSize);
  int64_t numItems = 0;
  for (int64_t i = 0; i < count; ++i) {
    int64_t numel = numels[i];
    uintptr_t address = reinterpret_cast<uintptr_t>(devicePtrs[i]);
    if (numel < 0 || numel > kMaxNumel) {
      setError(call, "tensor %lld: invalid numel %lld",
               static_cast<long long>(i), static_cast<long long>(numel));
      return nullptr;
    }
    if (numel == 0)
      continue;
    if (!address) {
      setError(call, "tensor %lld: null pointer with numel %lld",
               static_cast<long long>(i), static_cast<long long>(numel));
      return nullptr;
    }
    if (address % elementSize != 0) {
      setError(call,
               "tensor %lld: pointer %p is not aligned to its %zu-byte "
               "%s elements",
               static_cast<long long>(i), devicePtrs[i], elementSize,
               dtypeName(dtype));
      return nullptr;
    }
    char what[32];
    std::snprintf(what, sizeof(what), "tensor %lld", static_cast<long long>(i));
    if (!device::checkRange(call, what, devicePtrs[i],
                            static_cast<uint64_t>(numel) * elementSize))
      return nullptr;
    numItems += chunksOf(numel, chunk);
  }
  if (!device::ready(call))
    return nullptr;
  auto *table = new (std::nothrow) AmpGpuTensorTable;
  if (!table) {
    setError(call, "out of memory");
    return nullptr;
  }
  table->dtype = dtype;
  table->numItems = numItems;
  if (numItems == 0)
    return table; // Nothing to launch, ever.
  std::vector<CheckItem> items;
  items.reserve(static_cast<size_t>(numItems));
  for (int64_t i = 0; i < count; ++i) {
    uint64_t address = reinterpret_cast<uintptr_t>(devicePtrs[i]);
    for (int64_t start = 0; start < numels[i]; start += chunk)
      items.push_back({address + static_cast<uint64_t>(start) * elementSize,
                       std::min(chunk, numels[i] - start)});
  }
  size_t bytes = items.size() * sizeof(CheckItem);
  if (!device::allocate(call, bytes, &table->items)) {
    delete table;
    return nullptr;
  }
  if (!device::upload(call, table->items, items.data(), bytes)) {
    std::string why = ampLastError();
    device::release(call, table->items);
    restoreError(call, why);
    delete table;
    return nullptr;
  }
  return table;
}

void ampGpuTensorTableDestroy(AmpGpuTensorTable *table) {
  const char *call = "ampGpuTensorTableDestroy";
  if (!table || !checkTable(call, table))
    return;
  device::release(call, table->items);
  table->magic = 0;
  delete table;
}

int ampGpuCheckFiniteAndUnscale(AmpGpuLossScaler *scaler,
                                const AmpGpuTensorTable *table) {
  const char *call = "ampGpuCheckFiniteAndUnscale";
  if (!checkScaler(call, scaler) || !checkTable(call, table))
    return 1;
  if (table->numItems == 0)
    return 0; // No zero-size launch.
  KernelId id = table->dtype == AMP_DTYPE_F32   ? kCheckF32
                : table->dtype == AMP_DTYPE_F16 ? kCheckF16
                                                : kCheckBF16;
  DevicePtr items = table->items;
  int64_t numItems = table->numItems;
  DevicePtr invScale = invScaleAddress(scaler);
  DevicePtr foundInf = foundInfAddress(scaler);
  void *params[] = {&items, &numItems, &invScale, &foundInf};
  return device::launch(call, id, numItems, kCheckBlockSize, params) ? 0 : 1;
}

} // extern "C"

//===----------------------------------------------------------------------===//
// Check finite and unscale of one buffer (compiled code)
//===----------------------------------------------------------------------===//

/// Blocks the one-buffer kernel uses for one buffer (the same split for a
/// table entry): one thread per work item of a pass, 16-byte vectors when in
/// and out share their offset from a 16-byte boundary (as the kernel
/// decides), else elements; at most kBufferBlocksPerSm per multiprocessor.
static int64_t bufferBlocks(const void *in, const void *out, int64_t numel,
                            int32_t dtype) {
  const int64_t elementSize = static_cast<int64_t>(dtypeSize(dtype));
  const uintptr_t inAddress = reinterpret_cast<uintptr_t>(in);
  const uintptr_t outAddress = reinterpret_cast<uintptr_t>(out);
  const int64_t items = ((inAddress ^ outAddress) & 15u) == 0
                            ? chunksOf(numel, 16 / elementSize)
                            : numel;
  const int multiprocessors = device::multiprocessors();
  const int64_t cap =
      multiprocessors > 0 ? kBufferBlocksPerSm * multiprocessors : 65535;
  return std::max<int64_t>(1, std::min(chunksOf(items, kBufferBlockSize), cap));
}

/// ampGpuCheckFiniteAndUnscaleBuffer (arguments checked on the host, numel
/// > 0): one launch.
bool amp::rt::gpuls::unscaleBuffer(const char *call,
                                   const UnscaleBufferArgs &u) {
  if (!device::ready(call))
    return false;
  int64_t numel = u.numel;
  const int64_t grid = bufferBlocks(u.in, u.out, numel, u.dtype);
  KernelId id = u.dtype == AMP_DTYPE_F32   ? kBufferF32
                : u.dtype == AMP_DTYPE_F16 ? kBufferF16
                                           : kBufferBF16;
  DevicePtr inPtr = reinterpret_cast<DevicePtr>(u.in);
  DevicePtr outPtr = reinterpret_cast<DevicePtr>(u.out);
  DevicePtr invPtr = reinterpret_cast<DevicePtr>(u.invScale);
  DevicePtr foundPtr = reinterpret_cast<DevicePtr>(u.foundInf);
  void *params[] = {&inPtr, &outPtr, &numel, &invPtr, &foundPtr};
  return device::launch(call, id, grid, kBufferBlockSize, params);
}

/// ampGpuCheckFiniteAndUnscaleBuffers (arguments checked on the host; the
/// host arrays are read before this returns).
bool amp::rt::gpuls::unscaleBuffers(const char *call,
                                    const UnscaleBuffersArgs &u) {
  const int64_t count = u.count;
  const void *const *ins = u.ins;
  void *const *outs = u.outs;
  const int64_t *numels = u.numels;
  const int32_t *dtypes = u.dtypes;
  bool ready = false;
  // The table travels as a kernel parameter (no upload, no staging buffer
  // to keep alive): one launch per kBufferTableEntries non-empty entries.
  BufferTable table{};
  table.invScale = reinterpret_cast<uint64_t>(u.invScale);
  table.foundInf = reinterpret_cast<uint64_t>(u.foundInf);
  auto flush = [&]() -> bool {
    if (table.count == 0)
      return true;
    void *params[] = {&table};
    bool ok = device::launch(call, kBufferTable, table.firstBlock[table.count],
                             kBufferBlockSize, params);
    table.count = 0;
    return ok;
  };
  for (int64_t i = 0; i < count; ++i) {
    if (numels[i] == 0)
      continue; // No work, as for one buffer.
    if (!ready && !(ready = device::ready(call)))
      return false;
    int64_t blocks = bufferBlocks(ins[i], outs[i], numels[i], dtypes[i]);
    int32_t first = table.firstBlock[table.count];
    // Flush before the grid passes what one launch (or an int32) holds.
    if (table.count == kBufferTableEntries ||
        first + blocks > kMaxGridBlocks) {
      if (!flush())
        return false;
      first = 0;
    }
    int32_t k = table.count;
    table.in[k] = reinterpret_cast<uint64_t>(ins[i]);
    table.out[k] = reinterpret_cast<uint64_t>(outs[i]);
    table.numel[k] = numels[i];
    table.dtype[k] = dtypes[i];
    table.firstBlock[k] = first;
    table.firstBlock[k + 1] = first + static_cast<int32_t>(blocks);
    table.count = k + 1;
  }
  return flush();
}

/// ampGpuOptimizerUpdateBuffers (arguments checked on the host; the host
/// arrays are read before this returns).
bool amp::rt::gpuls::optimizerUpdateBuffers(const char *call,
                                            const OptimizerUpdateArgs &u) {
  bool ready = false;
  // The table and the settings travel as a kernel parameter: one launch per
  // kOptBufferTableEntries non-empty entries.
  OptBufferTable table{};
  // Momentum 0 is plain SGD, as in PyTorch: the buffer is not touched.
  table.config.kind = u.kind == AMP_OPTIMIZER_MOMENTUM && u.momentum == 0.0f
                          ? AMP_OPTIMIZER_SGD
                          : u.kind;
  table.config.lr = u.lr;
  table.config.weight_decay = u.weightDecay;
  table.config.momentum = u.momentum;
  table.config.dampening = u.dampening;
  table.config.nesterov = u.nesterov;
  table.config.beta1 = u.beta1;
  table.config.beta2 = u.beta2;
  table.config.eps = u.eps;
  table.step = reinterpret_cast<uint64_t>(u.step);
  table.skip = reinterpret_cast<uint64_t>(u.skip);
  auto flush = [&]() -> bool {
    if (table.count == 0)
      return true;
    void *params[] = {&table};
    bool ok = device::launch(call, kOptTable, table.firstBlock[table.count],
                             kOptBlockSize, params);
    table.count = 0;
    return ok;
  };
  const int multiprocessors = device::multiprocessors();
  auto pointer = [](const float *const *array, int64_t i) -> uint64_t {
    return array ? reinterpret_cast<uint64_t>(array[i]) : 0;
  };
  for (int64_t i = 0; i < u.count; ++i) {
    if (u.numels[i] == 0)
      continue; // No work.
    if (!ready && !(ready = device::ready(call)))
      return false;
    // One chunk per block, at most kBufferBlocksPerSm blocks per
    // multiprocessor per entry (blocks then take several chunks).
    const int64_t cap =
        multiprocessors > 0 ? kBufferBlocksPerSm * multiprocessors : 65535;
    const int64_t blocks = std::max<int64_t>(
        1, std::min(chunksOf(u.numels[i], kOptChunkElements), cap));
    int32_t first = table.firstBlock[table.count];
    if (table.count == kOptBufferTableEntries ||
        first + blocks > kMaxGridBlocks) {
      if (!flush())
        return false;
      first = 0;
    }
    int32_t k = table.count;
    table.param[k] = reinterpret_cast<uint64_t>(u.params[i]);
    table.paramOut[k] = reinterpret_cast<uint64_t>(u.paramsOut[i]);
    table.grad[k] = reinterpret_cast<uint64_t>(u.grads[i]);
    table.state0[k] = pointer(u.state0, i);
    table.state0Out[k] = pointer(u.state0Out, i);
    table.state1[k] = pointer(u.state1, i);
    table.state1Out[k] = pointer(u.state1Out, i);
    table.numel[k] = u.numels[i];
    table.gradType[k] = u.gradTypes[i];
    table.firstBlock[k] = first;
    table.firstBlock[k + 1] = first + static_cast<int32_t>(blocks);
    table.count = k + 1;
  }
  return flush();
}

extern "C" {

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

AmpGpuOptimizer *ampGpuOptimizerCreate(const AmpOptimizerConfig *cfg,
                                       const AmpOptimizerParam *params,
                                       int64_t count) {
  const char *call = "ampGpuOptimizerCreate";
  if (!cfg) {
    setError(call, "cfg is NULL");
    return nullptr;
  }
  // The CPU optimizer's rules (Optimizers.cpp), so that both accept the same
  // configurations and parameter lists; the GPU adds alignment checks.
  if (!validateOptimizerConfig(call, *cfg) ||
      !validateOptimizerParams(call, *cfg, params, count, 1.0f))
    return nullptr;
  const int32_t kind = cfg->kind;
  // Momentum 0 is plain SGD and never touches the velocity (as on the CPU).
  const bool plainSgd =
      kind == AMP_OPTIMIZER_SGD ||
      (kind == AMP_OPTIMIZER_MOMENTUM && cfg->momentum == 0.0f);
  const bool needState1 =
      kind == AMP_OPTIMIZER_ADAM || kind == AMP_OPTIMIZER_ADAMW;
  const bool needState0 = !plainSgd;
  std::vector<OptTensor> tensors;
  int64_t numItems = 0;
  for (int64_t i = 0; i < count; ++i) {
    const AmpOptimizerParam &p = params[i];
    long long index = static_cast<long long>(i);
    if (p.numel > kMaxNumel) {
      setError(call, "params[%lld].numel %lld is too large", index,
               static_cast<long long>(p.numel));
      return nullptr;
    }
    if (p.numel == 0)
      continue;
    // Pointers the kernel touches (lowp only when given; unused state
    // pointers are ignored, as on the CPU).
    struct Use {
      const void *ptr;
      const char *name;
      bool used;
      size_t elementSize;
    };
    const Use uses[] = {
        {p.master, "master", true, 4},
        {p.grad, "grad", true, dtypeSize(p.grad_type)},
        {p.state0, "state0", needState0, 4},
        {p.state1, "state1", needState1, 4},
        {p.lowp, "lowp", p.lowp != nullptr, dtypeSize(p.lowp_type)},
    };
    bool vectorized = true;
    for (const Use &use : uses) {
      if (!use.used)
        continue;
      uintptr_t address = reinterpret_cast<uintptr_t>(use.ptr);
      if (!address) {
        setError(call, "params[%lld].%s is NULL (numel %lld)", index, use.name,
                 static_cast<long long>(p.numel));
        return nullptr;
      }
      if (address % use.elementSize != 0) {
        setError(call,
                 "params[%lld].%s = %p is not aligned to its "
                 "%zu-byte elements",
                 index, use.name, use.ptr, use.elementSize);
        return nullptr;
      }
      char what[64];
      std::snprintf(what, sizeof(what), "params[%lld].%s", index, use.name);
      if (!device::checkRange(call, what, use.ptr,
                              static_cast<uint64_t>(p.numel) * use.elementSize))
        return nullptr;
      // 4-element accesses (16 bytes of fp32, 8 of f16/bf16).
      vectorized = vectorized && address % (4 * use.elementSize) == 0;
    }
    OptTensor t;
    std::memset(&t, 0, sizeof(t));
    t.master = reinterpret_cast<uintptr_t>(p.master);
    t.lowp = reinterpret_cast<uintptr_t>(p.lowp);
    t.grad = reinterpret_cast<uintptr_t>(p.grad);
    t.state0 = needState0 ? reinterpret_cast<uintptr_t>(p.state0) : 0;
    t.state1 = needState1 ? reinterpret_cast<uintptr_t>(p.state1) : 0;
    t.numel = p.numel;
    t.lowpType = p.lowp ? p.lowp_type : kNoLowp;
    t.gradType = p.grad_type;
    t.vectorized = vectorized ? 1 : 0;
    tensors.push_back(t);
    numItems += chunksOf(p.numel, kOptChunkElements);
  }
  if (!device::ready(call))
    return nullptr;
  auto *opt = new (std::nothrow) AmpGpuOptimizer;
  if (!opt) {
    setError(call, "out of memory");
    return nullptr;
  }
  opt->config = *cfg;
  opt->hasVelocity = needState0;
  opt->numItems = numItems;
  // One allocation: [record, padded to 64][tensors][items].
  constexpr size_t kRecordBytes = 64;
  const size_t tensorBytes = tensors.size() * sizeof(OptTensor);
  const size_t itemBytes = static_cast<size_t>(numItems) * sizeof(OptItem);
  std::vector<unsigned char> host(kRecordBytes + tensorBytes + itemBytes, 0);
  OptStepRecord record{0, 1.0, 1.0};
  std::memcpy(host.data(), &record, sizeof(record));
  if (tensorBytes)
    std::memcpy(host.data() + kRecordBytes, tensors.data(), tensorBytes);
  auto *items =
      reinterpret_cast<OptItem *>(host.data() + kRecordBytes + tensorBytes);
  int64_t next = 0;
  for (size_t i = 0; i < tensors.size(); ++i)
    for (int64_t start = 0; start < tensors[i].numel;
         start += kOptChunkElements)
      items[next++] = {static_cast<int64_t>(i), start};
  if (!device::allocate(call, host.size(), &opt->memory)) {
    delete opt;
    return nullptr;
  }
  if (!device::upload(call, opt->memory, host.data(), host.size())) {
    std::string why = ampLastError();
    device::release(call, opt->memory);
    restoreError(call, why);
    delete opt;
    return nullptr;
  }
  opt->record = opt->memory;
  opt->tensors = opt->memory + kRecordBytes;
  opt->items = opt->memory + kRecordBytes + tensorBytes;
  return opt;
}

void ampGpuOptimizerDestroy(AmpGpuOptimizer *opt) {
  const char *call = "ampGpuOptimizerDestroy";
  if (!opt || !checkOptimizer(call, opt))
    return;
  device::release(call, opt->memory);
  opt->magic = 0;
  delete opt;
}

int ampGpuOptimizerStep(AmpGpuOptimizer *opt, const float *found_inf,
                        const float *inv_scale) {
  const char *call = "ampGpuOptimizerStep";
  if (!checkOptimizer(call, opt))
    return 1;
  DevicePtr record = opt->record;
  DevicePtr foundInf = reinterpret_cast<DevicePtr>(found_inf);
  DevicePtr invScale = reinterpret_cast<DevicePtr>(inv_scale);
  if (opt->numItems > 0) {
    const AmpOptimizerConfig &c = opt->config;
    KernelId id = c.kind == AMP_OPTIMIZER_ADAM    ? kAdam
                  : c.kind == AMP_OPTIMIZER_ADAMW ? kAdamW
                  : c.kind == AMP_OPTIMIZER_MOMENTUM && c.momentum != 0.0f
                      ? kMomentum
                      : kSgd; // SGD, or Momentum with momentum 0.
    DevicePtr tensors = opt->tensors, items = opt->items;
    int64_t numItems = opt->numItems;
    AmpOptimizerConfig config = opt->config;
    void *params[] = {&tensors,  &items,    &numItems, &record,
                      &foundInf, &invScale, &config};
    if (!device::launch(call, id, numItems, kOptBlockSize, params))
      return 1;
  }
  // Same double products as the step kernel's beta^t. SGD and Momentum
  // have no bias correction: their powers stay 1, as on the CPU, so that
  // both save the same checkpoint.
  const bool adam = opt->config.kind == AMP_OPTIMIZER_ADAM ||
                    opt->config.kind == AMP_OPTIMIZER_ADAMW;
  double beta1 = adam ? static_cast<double>(opt->config.beta1) : 1.0;
  double beta2 = adam ? static_cast<double>(opt->config.beta2) : 1.0;
  void *params[] = {&record, &foundInf, &invScale, &beta1, &beta2};
  return device::launch(call, kCommit, 1, 1, params) ? 0 : 1;
}

int64_t ampGpuOptimizerGetStep(AmpGpuOptimizer *opt) {
  const char *call = "ampGpuOptimizerGetStep";
  if (!checkOptimizer(call, opt))
    return -1;
  OptStepRecord record;
  if (!device::download(call, &record, opt->record, sizeof(record)))
    return -1;
  return record.t;
}

size_t ampGpuOptimizerSaveState(AmpGpuOptimizer *opt, void *buffer,
                                size_t capacity) {
  const char *call = "ampGpuOptimizerSaveState";
  if (!checkOptimizer(call, opt))
    return 0;
  size_t size = optimizerBlobSize();
  if (!buffer || capacity < size)
    return size; // A size query: nothing to read back.
  OptStepRecord record;
  if (!device::download(call, &record, opt->record, sizeof(record)))
    return 0;
  OptimizerStepState state{record.t, record.beta1Pow, record.beta2Pow};
  return saveOptimizerBlob(opt->config, state, buffer, capacity);
}

int ampGpuOptimizerLoadState(AmpGpuOptimizer *opt, const void *blob,
                             size_t size) {
  const char *call = "ampGpuOptimizerLoadState";
  if (!checkOptimizer(call, opt))
    return 1;
  AmpOptimizerConfig config;
  OptimizerStepState state;
  if (!loadOptimizerBlob(call, blob, size, opt->config.kind, config, state))
    return 1;
  // The parameter tables were built for the configuration at creation: an
  // optimizer created with momentum 0 has no velocity pointers to update.
  if (config.kind == AMP_OPTIMIZER_MOMENTUM && config.momentum != 0.0f &&
      !opt->hasVelocity) {
    setError(call,
             "the blob's momentum %g needs velocity buffers (state0), but "
             "this optimizer was created with momentum 0 and has none; "
             "create it with momentum > 0 and state0 buffers to load it",
             static_cast<double>(config.momentum));
    return 1;
  }
  OptStepRecord record{state.t, state.beta1Pow, state.beta2Pow};
  if (!device::upload(call, opt->record, &record, sizeof(record)))
    return 1;
  opt->config = config;
  return 0;
}

int ampGpuOptimizerSetLearningRate(AmpGpuOptimizer *opt, float lr) {
  const char *call = "ampGpuOptimizerSetLearningRate";
  if (!checkOptimizer(call, opt))
    return 1;
  if (!(std::isfinite(lr) && lr >= 0.0f)) {
    setError(call, "lr must be finite and >= 0, got %g",
             static_cast<double>(lr));
    return 1;
  }
  opt->config.lr = lr;
  return 0;
}

} // extern "C"
