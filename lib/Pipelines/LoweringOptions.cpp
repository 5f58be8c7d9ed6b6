//===- LoweringOptions.cpp - the lowerings' options, typed ----------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Pipelines/LoweringOptions.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

using namespace mlir;
using namespace mlir::amp;

//===----------------------------------------------------------------------===//
// The types
//===----------------------------------------------------------------------===//

std::optional<GpuChip> GpuChip::parse(StringRef text) {
  SmallVector<StringRef> matches;
  if (!llvm::Regex("^sm_([0-9]+)(a?)$").match(text, &matches))
    return std::nullopt;
  GpuChip chip;
  if (matches[1].getAsInteger(10, chip.computeCapability))
    return std::nullopt;
  chip.archSpecific = !matches[2].empty();
  return chip;
}

std::string GpuChip::str() const {
  return "sm_" + std::to_string(computeCapability) + (archSpecific ? "a" : "");
}

std::optional<PtxVersion> PtxVersion::parse(StringRef text) {
  PtxVersion ptx;
  if (text.empty())
    return ptx;
  if (!text.consume_front("+ptx") || text.empty() ||
      !llvm::all_of(text, llvm::isDigit) ||
      text.getAsInteger(10, ptx.version) || ptx.version == 0)
    return std::nullopt;
  return ptx;
}

std::string PtxVersion::str() const {
  return version == 0 ? std::string() : "+ptx" + std::to_string(version);
}

LogicalResult LoweringOptionTraits<GpuChip>::parse(StringRef name,
                                                   const std::string &text,
                                                   GpuChip &chip,
                                                   std::string &error) {
  std::optional<GpuChip> parsed = GpuChip::parse(text);
  if (!parsed) {
    error = (name + " '" + text + "' is not of the form sm_<N>[a]").str();
    return failure();
  }
  chip = *parsed;
  return success();
}

LogicalResult LoweringOptionTraits<PtxVersion>::parse(StringRef name,
                                                      const std::string &text,
                                                      PtxVersion &ptx,
                                                      std::string &error) {
  std::optional<PtxVersion> parsed = PtxVersion::parse(text);
  if (!parsed) {
    error = (name + " must be of the form +ptx<N>, got '" + text + "'").str();
    return failure();
  }
  ptx = *parsed;
  return success();
}

LogicalResult LoweringOptionTraits<KernelFormat>::parse(StringRef,
                                                        const std::string &text,
                                                        KernelFormat &format,
                                                        std::string &error) {
  std::optional<KernelFormat> parsed = parseOptionValue<KernelFormat>(text);
  if (!parsed) {
    error = getInvalidValueMessage<KernelFormat>(text);
    return failure();
  }
  format = *parsed;
  return success();
}

//===----------------------------------------------------------------------===//
// Typed
//===----------------------------------------------------------------------===//

unsigned mlir::amp::getPtxVersion(const GpuLoweringOptions &options) {
  if (options.features.version != 0)
    return options.features.version;
  if (options.chip.computeCapability >= 120)
    return 87;
  if (options.chip.computeCapability >= 100)
    return 86;
  return 80;
}

unsigned mlir::amp::getSmCount(const GpuLoweringOptions &options) {
  if (options.smCount != 0)
    return options.smCount;
  // The largest part of each compute capability.
  switch (options.chip.computeCapability) {
  case 75: // TITAN RTX
    return 72;
  case 80: // A100
    return 108;
  case 86: // RTX A6000, A40, RTX 3090 Ti
    return 84;
  case 87: // Jetson AGX Orin
    return 16;
  case 89: // L40S
    return 142;
  case 90: // H100 SXM, H200
    return 132;
  case 100: // B200
    return 148;
  case 103: // B300
    return 160;
  case 120: // RTX PRO 6000 Blackwell
    return 188;
  default:
    return 0;
  }
}

LogicalResult
mlir::amp::verifyGpuLoweringOptions(const GpuLoweringOptions &options,
                                    std::string &error) {
  if (options.chip.computeCapability < 75) {
    error = "chip '" + options.chip.str() +
            "' is older than sm_75, which CUDA 13's ptxas no longer supports";
    return failure();
  }
  // ptxas and fatbinary are needed unless stopping at PTX; libdevice (for
  // math functions) always.
  SmallString<128> ptxas(options.toolkit);
  llvm::sys::path::append(ptxas, "bin", "ptxas");
  if (!options.simulate && options.format != KernelFormat::Isa &&
      !llvm::sys::fs::can_execute(ptxas)) {
    error = "no ptxas at '" + std::string(ptxas) +
            "': set toolkit= to a CUDA toolkit root, or use format=isa";
    return failure();
  }
  if (options.blockSize == 0 || options.blockSize > 1024) {
    error = "block-size must be in [1, 1024]";
    return failure();
  }
  // PTX's widest global access is 16 bytes (ld.global.v4.b32).
  if (options.vectorBytes != 0 && options.vectorBytes != 4 &&
      options.vectorBytes != 8 && options.vectorBytes != 16) {
    error = "vector-bytes must be 0 (no vectorisation), 4, 8 or 16";
    return failure();
  }
  if (options.vectorsPerThread == 0 || options.vectorsPerThread > 16) {
    error = "vectors-per-thread must be in [1, 16]";
    return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Textual
//===----------------------------------------------------------------------===//

/// The rounding's text: empty is none.
template <typename Text>
static LogicalResult bindRounding(const LoweringOptionsBase<Text> &text,
                                  std::optional<RoundingMode> &rounding,
                                  std::string &error) {
  if (text.rounding.empty())
    return success();
  std::optional<RoundingMode> mode =
      parseOptionValue<RoundingMode>(text.rounding);
  if (!mode) {
    error = getInvalidValueMessage<RoundingMode>(text.rounding);
    return failure();
  }
  rounding = mode;
  return success();
}

#define AMP_BIND_LOWERING_OPTION(FIELD, NAME, TYPE, DEFAULT, HELP)             \
  if (failed(LoweringOptionTraits<TYPE>::parse(NAME, text.FIELD.getValue(),    \
                                               options.FIELD, error)))         \
    return failure();

LogicalResult mlir::amp::bindLoweringOptions(const LowerToCpuOptions &text,
                                             CpuLoweringOptions &options,
                                             std::string &error) {
#define AMP_CPU_LOWERING_OPTION AMP_BIND_LOWERING_OPTION
#include "amp/Pipelines/LoweringOptions.def"
  return bindRounding(text, options.rounding, error);
}

LogicalResult mlir::amp::bindLoweringOptions(const LowerToGpuOptions &text,
                                             GpuLoweringOptions &options,
                                             std::string &error) {
#define AMP_GPU_LOWERING_OPTION AMP_BIND_LOWERING_OPTION
#include "amp/Pipelines/LoweringOptions.def"
  return bindRounding(text, options.rounding, error);
}

#undef AMP_BIND_LOWERING_OPTION

template <typename Text, typename Typed>
static LogicalResult parseText(StringRef text, Typed &options,
                               std::string &error) {
  Text parsed;
  std::string parseErrors;
  llvm::raw_string_ostream errorStream(parseErrors);
  if (failed(parsed.parseFromString(text, errorStream))) {
    error = "invalid options '" + text.str() + "'";
    if (!parseErrors.empty())
      error += ": " + StringRef(parseErrors).trim().str();
    return failure();
  }
  return bindLoweringOptions(parsed, options, error);
}

LogicalResult mlir::amp::parseLoweringOptions(StringRef text,
                                              CpuLoweringOptions &options,
                                              std::string &error) {
  return parseText<LowerToCpuOptions>(text, options, error);
}

LogicalResult mlir::amp::parseLoweringOptions(StringRef text,
                                              GpuLoweringOptions &options,
                                              std::string &error) {
  return parseText<LowerToGpuOptions>(text, options, error);
}

//===----------------------------------------------------------------------===//
// By name
//===----------------------------------------------------------------------===//

#define AMP_LOWERING_OPTION_INFO(FIELD, NAME, TYPE, DEFAULT, HELP)             \
  {NAME, LoweringOptionTraits<TYPE>::kind},

ArrayRef<OptionInfo> mlir::amp::getCpuLoweringOptionInfos() {
  static const OptionInfo infos[] = {
#define AMP_CPU_LOWERING_OPTION AMP_LOWERING_OPTION_INFO
#include "amp/Pipelines/LoweringOptions.def"
  };
  return infos;
}

ArrayRef<OptionInfo> mlir::amp::getGpuLoweringOptionInfos() {
  static const OptionInfo infos[] = {
#define AMP_GPU_LOWERING_OPTION AMP_LOWERING_OPTION_INFO
#include "amp/Pipelines/LoweringOptions.def"
  };
  return infos;
}

#undef AMP_LOWERING_OPTION_INFO

/// Sets `field` from a value of its kind; a string is read as T's form.
template <typename T>
static LogicalResult assignOption(StringRef name, T &field,
                                  const OptionValue &value,
                                  std::string &error) {
  using Traits = LoweringOptionTraits<T>;
  return assignOptionValue<Traits::kind>(
      name, field, value, error, [&](const auto &text) {
        return Traits::parse(name, text, field, error);
      });
}

#define AMP_SET_LOWERING_OPTION(FIELD, NAME, TYPE, DEFAULT, HELP)              \
  if (name == NAME)                                                            \
    return assignOption(name, options.FIELD, value, error);

LogicalResult mlir::amp::setLoweringOption(CpuLoweringOptions &options,
                                           StringRef name,
                                           const OptionValue &value,
                                           std::string &error) {
#define AMP_CPU_LOWERING_OPTION AMP_SET_LOWERING_OPTION
#include "amp/Pipelines/LoweringOptions.def"
  error = getUnknownOptionMessage(name, "the CPU lowering",
                                  getCpuLoweringOptionInfos());
  return failure();
}

LogicalResult mlir::amp::setLoweringOption(GpuLoweringOptions &options,
                                           StringRef name,
                                           const OptionValue &value,
                                           std::string &error) {
#define AMP_GPU_LOWERING_OPTION AMP_SET_LOWERING_OPTION
#include "amp/Pipelines/LoweringOptions.def"
  error = getUnknownOptionMessage(name, "the GPU lowering",
                                  getGpuLoweringOptionInfos());
  return failure();
}

#undef AMP_SET_LOWERING_OPTION
