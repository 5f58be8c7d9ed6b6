//===- SimEstimate.cpp - the simulator's roofline estimate ----------------===//
//
// Part of amp-mlir. The records of what ran (kernels, library calls, copies:
// bytes, FLOPs, launches) and the time they would take on a chip of
// SimChips.def: per launch, max(bytes / bandwidth, FLOPs / peak) plus a
// launch cost, library calls at a fixed fraction of that roofline. The
// estimate of every chip is added up at each call (the max is per launch,
// so it cannot be taken of the totals afterwards).
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/AmpGpuSim.h"

#include "../lib/Internal.h"
#include "SimState.h"

#include <algorithm>
#include <cstring>
#include <string>

using namespace amp;
using namespace amp::sim;
using amp::rt::raiseError;

static_assert(static_cast<int>(Peak::Fp32) == AMP_SIM_PEAK_FP32 &&
                  static_cast<int>(Peak::Tf32) == AMP_SIM_PEAK_TF32 &&
                  static_cast<int>(Peak::F16) == AMP_SIM_PEAK_F16 &&
                  static_cast<int>(Peak::Fp8) == AMP_SIM_PEAK_FP8,
              "AmpSimPeak numbers sim::Peak");

namespace {

#define AMP_SIM_MODEL_CONSTANTS(LAUNCH, EFFICIENCY)                            \
  constexpr double kLaunchSeconds = LAUNCH;                                    \
  constexpr double kLibraryEfficiency = EFFICIENCY;
#define AMP_SIM_CHIP(...)
#include "amp/runtime/SimChips.def"
#undef AMP_SIM_CHIP
#undef AMP_SIM_MODEL_CONSTANTS

const AmpSimChip kChipTable[kChips] = {
#define AMP_SIM_CHIP(ID, NAME, DESCRIPTION, BANDWIDTH, FP32, TF32, F16, FP8,   \
                     HOST)                                                     \
  {NAME, DESCRIPTION, BANDWIDTH, FP32,           TF32,                         \
   F16,  FP8,         HOST,      kLaunchSeconds, kLibraryEfficiency},
#include "amp/runtime/SimChips.def"
};

const std::string &chipNames() {
  static const std::string names = [] {
    std::string text;
    for (const AmpSimChip &chip : kChipTable)
      text += (text.empty() ? "" : ", ") + std::string(chip.name);
    return text;
  }();
  return names;
}

/// The index of `name` in the table, or -1 after reporting the error.
int findChip(const char *name) {
  for (int i = 0; i < kChips; ++i)
    if (name && std::strcmp(name, kChipTable[i].name) == 0)
      return i;
  raiseError("ampSimEstimate", "unknown chip '%s' (known: %s)",
             name ? name : "(null)", chipNames().c_str());
  return -1;
}

double peakOf(const AmpSimChip &chip, Peak peak) {
  switch (peak) {
  case Peak::Fp32:
    return chip.fp32Flops;
  case Peak::Tf32:
    return chip.tf32Flops;
  case Peak::F16:
    return chip.f16Flops;
  case Peak::Fp8:
    return chip.fp8Flops;
  }
  return chip.fp32Flops;
}

/// One launch's time on `chip`: max(memory, compute) plus the launch cost;
/// a library call's at the chip's library efficiency.
struct Cost {
  double memory = 0, compute = 0, launch = 0, seconds = 0;
};

Cost estimateWork(const AmpSimChip &chip, const Work &work) {
  Cost cost;
  double efficiency = work.library ? chip.libraryEfficiency : 1.0;
  cost.memory =
      std::max(double(work.bytesRead + work.bytesWritten) / chip.bandwidth,
               double(work.hostBytes) / chip.hostBandwidth) /
      efficiency;
  cost.compute = double(work.flops) / peakOf(chip, work.peak) / efficiency;
  cost.launch = chip.launchSeconds;
  cost.seconds = std::max(cost.memory, cost.compute) + cost.launch;
  return cost;
}

void addTo(AmpSimEstimate &sum, int32_t kind, double seconds) {
  sum.seconds += seconds;
  (kind == AMP_SIM_RECORD_KERNEL    ? sum.kernelSeconds
   : kind == AMP_SIM_RECORD_LIBRARY ? sum.librarySeconds
                                    : sum.copySeconds) += seconds;
}

} // namespace

void sim::record(int32_t kind, const std::string &name,
                 const std::vector<Work> &parts, const LaunchInfo *launch) {
  DeviceState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto [it, inserted] = s.recordIndex.try_emplace(name, s.records.size());
  if (inserted) {
    s.records.emplace_back();
    s.records.back().name = name;
    s.records.back().kind = kind;
  }
  Record &r = s.records[it->second];
  ++r.calls;
  if (kind != AMP_SIM_RECORD_COPY)
    r.launches += static_cast<int64_t>(parts.size());
  if (launch) {
    std::copy(launch->grid, launch->grid + 3, r.launch.grid);
    std::copy(launch->block, launch->block + 3, r.launch.block);
    r.launch.threads += launch->threads;
    for (int w = 0; w < AMP_SIM_ACCESS_WIDTHS; ++w) {
      r.launch.loads[w] += launch->loads[w];
      r.launch.stores[w] += launch->stores[w];
    }
  }
  for (const Work &work : parts) {
    r.total.bytesRead += work.bytesRead;
    r.total.bytesWritten += work.bytesWritten;
    r.total.flops += work.flops;
    r.total.hostBytes += work.hostBytes;
    switch (kind) {
    case AMP_SIM_RECORD_KERNEL:
      s.stats.kernelBytesRead += work.bytesRead;
      s.stats.kernelBytesWritten += work.bytesWritten;
      s.stats.kernelFlops += work.flops;
      break;
    case AMP_SIM_RECORD_LIBRARY:
      s.stats.libraryBytes += work.bytesRead + work.bytesWritten;
      s.stats.libraryFlops += work.flops;
      break;
    default:
      s.stats.copyBytes += work.bytesRead + work.bytesWritten;
      s.stats.hostBytes += work.hostBytes;
      break;
    }
    for (int c = 0; c < kChips; ++c) {
      Cost cost = estimateWork(kChipTable[c], work);
      r.memorySeconds[c] += cost.memory;
      r.computeSeconds[c] += cost.compute;
      r.launchSeconds[c] += cost.launch;
      r.seconds[c] += cost.seconds;
    }
    s.launches.push_back({static_cast<int64_t>(it->second), kind, work});
  }
}

extern "C" int ampSimGetChip(const char *name, AmpSimChip *chip) {
  int index = findChip(name);
  if (index < 0)
    return 1;
  if (chip)
    *chip = kChipTable[index];
  return 0;
}

extern "C" const char *ampSimChipNames(void) { return chipNames().c_str(); }

static void fillRecord(const Record &r, int c, AmpSimRecord &out) {
  out = AmpSimRecord();
  std::strncpy(out.name, r.name.c_str(), sizeof(out.name) - 1);
  out.kind = r.kind;
  out.calls = r.calls;
  out.launches = r.launches;
  out.threads = r.launch.threads;
  std::copy(r.launch.grid, r.launch.grid + 3, out.grid);
  std::copy(r.launch.block, r.launch.block + 3, out.block);
  out.bytesRead = r.total.bytesRead;
  out.bytesWritten = r.total.bytesWritten;
  out.hostBytes = r.total.hostBytes;
  out.flops = r.total.flops;
  std::copy(r.launch.loads, r.launch.loads + AMP_SIM_ACCESS_WIDTHS, out.loads);
  std::copy(r.launch.stores, r.launch.stores + AMP_SIM_ACCESS_WIDTHS,
            out.stores);
  out.seconds = r.seconds[c];
  double roofline = std::max(r.memorySeconds[c], r.computeSeconds[c]);
  out.bound = r.launchSeconds[c] > roofline              ? AMP_SIM_BOUND_LAUNCH
              : r.computeSeconds[c] > r.memorySeconds[c] ? AMP_SIM_BOUND_COMPUTE
                                                         : AMP_SIM_BOUND_MEMORY;
}

extern "C" int64_t ampSimGetRecords(const char *chip, AmpSimRecord *records,
                                    int64_t capacity) {
  int c = findChip(chip);
  if (c < 0)
    return -1;
  DeviceState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  int64_t count = static_cast<int64_t>(s.records.size());
  for (int64_t i = 0; i < count && i < capacity && records; ++i)
    fillRecord(s.records[i], c, records[i]);
  return count;
}

extern "C" int ampSimEstimate(const char *chip, AmpSimEstimate *total) {
  int c = findChip(chip);
  if (c < 0)
    return 1;
  AmpSimEstimate sum = {};
  DeviceState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (const Record &r : s.records) {
    addTo(sum, r.kind, r.seconds[c]);
    sum.launches += r.launches;
  }
  if (total)
    *total = sum;
  return 0;
}

extern "C" int64_t ampSimGetLaunches(AmpSimLaunch *launches, int64_t capacity) {
  DeviceState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  int64_t count = static_cast<int64_t>(s.launches.size());
  for (int64_t i = 0; i < count && i < capacity && launches; ++i) {
    const LaunchEntry &entry = s.launches[i];
    AmpSimLaunch &out = launches[i];
    out = AmpSimLaunch();
    out.record = entry.record;
    out.kind = entry.kind;
    out.peak = static_cast<int32_t>(entry.work.peak);
    out.library = entry.work.library ? 1 : 0;
    out.bytesRead = entry.work.bytesRead;
    out.bytesWritten = entry.work.bytesWritten;
    out.hostBytes = entry.work.hostBytes;
    out.flops = entry.work.flops;
  }
  return count;
}

extern "C" int ampSimEstimateLaunches(const char *chip,
                                      const AmpSimLaunch *launches,
                                      int64_t count, AmpSimEstimate *total) {
  int c = findChip(chip);
  if (c < 0)
    return 1;
  AmpSimEstimate sum = {};
  for (int64_t i = 0; i < count; ++i) {
    const AmpSimLaunch &launch = launches[i];
    if (launch.peak < AMP_SIM_PEAK_FP32 || launch.peak > AMP_SIM_PEAK_FP8 ||
        launch.kind < AMP_SIM_RECORD_KERNEL ||
        launch.kind > AMP_SIM_RECORD_COPY || launch.bytesRead < 0 ||
        launch.bytesWritten < 0 || launch.hostBytes < 0 || launch.flops < 0) {
      raiseError("ampSimEstimateLaunches",
                 "launch #%lld: kind %d, peak %d or a negative count is not "
                 "a launch",
                 static_cast<long long>(i), launch.kind, launch.peak);
      return 1;
    }
    Work work;
    work.bytesRead = launch.bytesRead;
    work.bytesWritten = launch.bytesWritten;
    work.hostBytes = launch.hostBytes;
    work.flops = launch.flops;
    work.peak = static_cast<Peak>(launch.peak);
    work.library = launch.library != 0;
    addTo(sum, launch.kind, estimateWork(kChipTable[c], work).seconds);
    if (launch.kind != AMP_SIM_RECORD_COPY)
      ++sum.launches;
  }
  if (total)
    *total = sum;
  return 0;
}

extern "C" void ampSimSetCountOnly(int countOnly) {
  state().countOnly.store(countOnly != 0);
}
