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
      const AmpSimChip &chip = kChipTable[c];
      double efficiency = work.library ? chip.libraryEfficiency : 1.0;
      double memory =
          std::max(double(work.bytesRead + work.bytesWritten) / chip.bandwidth,
                   double(work.hostBytes) / chip.hostBandwidth);
      double compute = double(work.flops) / peakOf(chip, work.peak);
      memory /= efficiency;
      compute /= efficiency;
      r.memorySeconds[c] += memory;
      r.computeSeconds[c] += compute;
      r.launchSeconds[c] += chip.launchSeconds;
      r.seconds[c] += std::max(memory, compute) + chip.launchSeconds;
    }
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
    double seconds = r.seconds[c];
    sum.seconds += seconds;
    (r.kind == AMP_SIM_RECORD_KERNEL    ? sum.kernelSeconds
     : r.kind == AMP_SIM_RECORD_LIBRARY ? sum.librarySeconds
                                        : sum.copySeconds) += seconds;
    sum.launches += r.launches;
  }
  if (total)
    *total = sum;
  return 0;
}
