//===- LoweringOptions.h - the lowerings' options, typed ---------*- C++
//-*-===//
//
// Part of amp-mlir. The options of --lower-to-cpu and --lower-to-gpu, each
// declared once in LoweringOptions.def, in three forms made from that
// declaration:
// - typed (CpuLoweringOptions, GpuLoweringOptions): what the pipelines are
//   built from, and what the driver (amp/Runner) carries;
// - textual (LowerToCpuOptions, LowerToGpuOptions): the pipelines' syntax
//   ("chip=sm_80 format=isa") for amp-opt and the tools' --cpu-options and
//   --gpu-options, read into the typed form once (bindLoweringOptions);
// - by name with a typed value (setLoweringOption): the C API's setters.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_PIPELINES_LOWERINGOPTIONS_H
#define AMP_PIPELINES_LOWERINGOPTIONS_H

#include "amp/Dialect/Amp/Transforms/Options.h"
#include "amp/Pipelines/OptionValue.h"

#include "mlir/Pass/PassOptions.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
namespace amp {

//===----------------------------------------------------------------------===//
// The types of the options
//===----------------------------------------------------------------------===//

/// An NVIDIA GPU architecture: sm_<computeCapability>, with "a" for its
/// architecture-specific features (sm_90a).
struct GpuChip {
  int computeCapability = 90;
  bool archSpecific = false;

  /// "sm_90a" and the like; none for anything else.
  static std::optional<GpuChip> parse(llvm::StringRef text);
  std::string str() const;
};

/// A PTX ISA version, written +ptx<N> (+ptx80: 80); 0, written as nothing:
/// the lowest version that supports the chip (getPtxVersion).
struct PtxVersion {
  unsigned version = 0;

  /// "" or "+ptx<N>"; none for anything else.
  static std::optional<PtxVersion> parse(llvm::StringRef text);
  std::string str() const;
};

/// The format of the kernels' binaries.
enum class KernelFormat { Fatbin, Isa, Bin };
AMP_OPTION_SPELLINGS(KernelFormat, "format", false,
                     {KernelFormat::Fatbin, "fatbin"},
                     {KernelFormat::Isa, "isa"}, {KernelFormat::Bin, "bin"})

/// How an option of type T is written in the pipelines' syntax (`Text`, the
/// type of its textual option), read from it and printed back (for the
/// textual option's default), and what a typed setter takes (`kind`).
template <typename T> struct LoweringOptionTraits;

template <typename T> struct SameTextTraits {
  using Text = T;
  static const T &print(const T &value) { return value; }
  static LogicalResult parse(llvm::StringRef, const Text &text, T &value,
                             std::string &) {
    value = text;
    return success();
  }
};
template <> struct LoweringOptionTraits<bool> : SameTextTraits<bool> {
  static constexpr OptionKind kind = OptionKind::Bool;
};
template <> struct LoweringOptionTraits<int64_t> : SameTextTraits<int64_t> {
  static constexpr OptionKind kind = OptionKind::Integer;
};
template <> struct LoweringOptionTraits<unsigned> : SameTextTraits<unsigned> {
  static constexpr OptionKind kind = OptionKind::Integer;
};
template <>
struct LoweringOptionTraits<std::string> : SameTextTraits<std::string> {
  static constexpr OptionKind kind = OptionKind::String;
};

/// The typed options whose text is a string of their own form.
template <typename T> struct ParsedTextTraits {
  using Text = std::string;
  static constexpr OptionKind kind = OptionKind::String;
};
template <> struct LoweringOptionTraits<GpuChip> : ParsedTextTraits<GpuChip> {
  static std::string print(const GpuChip &chip) { return chip.str(); }
  static LogicalResult parse(llvm::StringRef name, const std::string &text,
                             GpuChip &chip, std::string &error);
};
template <>
struct LoweringOptionTraits<PtxVersion> : ParsedTextTraits<PtxVersion> {
  static std::string print(const PtxVersion &ptx) { return ptx.str(); }
  static LogicalResult parse(llvm::StringRef name, const std::string &text,
                             PtxVersion &ptx, std::string &error);
};
template <>
struct LoweringOptionTraits<KernelFormat> : ParsedTextTraits<KernelFormat> {
  static std::string print(KernelFormat format) {
    return stringifyOptionValue(format).str();
  }
  static LogicalResult parse(llvm::StringRef name, const std::string &text,
                             KernelFormat &format, std::string &error);
};

//===----------------------------------------------------------------------===//
// Typed
//===----------------------------------------------------------------------===//

/// Every option of --lower-to-cpu, typed (LoweringOptions.def).
struct CpuLoweringOptions {
#define AMP_CPU_LOWERING_OPTION(FIELD, NAME, TYPE, DEFAULT, HELP)              \
  TYPE FIELD = DEFAULT;
#include "amp/Pipelines/LoweringOptions.def"
  /// How low-precision values are rounded; none: the module's amp.rounding,
  /// else once (the rounding passes resolve it at the module).
  std::optional<RoundingMode> rounding;
};

/// Every option of --lower-to-gpu, typed (LoweringOptions.def).
struct GpuLoweringOptions {
#define AMP_GPU_LOWERING_OPTION(FIELD, NAME, TYPE, DEFAULT, HELP)              \
  TYPE FIELD = DEFAULT;
#include "amp/Pipelines/LoweringOptions.def"
  /// As CpuLoweringOptions::rounding.
  std::optional<RoundingMode> rounding;
};

/// The PTX version the kernels are compiled for: `options.features`, else
/// the lowest that supports the chip (PTX 8.0 covers sm_75 to sm_90a;
/// Blackwell needs 8.6 for sm_100/101 and 8.7 for sm_120).
unsigned getPtxVersion(const GpuLoweringOptions &options);

/// The streaming multiprocessors the vectorised kernels' grids are sized
/// to: `options.smCount`, else the most of any part of the chip (sm_80: 108,
/// an A100; sm_90: 132, an H100 SXM or H200; sm_100: 148, a B200; ...), as
/// a grid sized for more SMs than a part has runs in waves, nearly as fast,
/// where one sized for fewer leaves SMs idle; 0 (no limit) for a chip not
/// listed.
unsigned getSmCount(const GpuLoweringOptions &options);

/// Checks what each value's type does not: the chip is one CUDA 13 compiles
/// for, ptxas is in the toolkit (unless the kernels stop at PTX or are
/// simulated), block-size, vector-bytes and vectors-per-thread are in
/// range. Failure with a
/// message in `error` otherwise.
LogicalResult verifyGpuLoweringOptions(const GpuLoweringOptions &options,
                                       std::string &error);

//===----------------------------------------------------------------------===//
// Textual: the pipelines' syntax
//===----------------------------------------------------------------------===//

/// What both textual forms have: the rounding, as text (empty: the
/// module's amp.rounding, else once).
template <typename Derived>
struct LoweringOptionsBase : public PassPipelineOptions<Derived> {
  detail::PassOptions::Option<std::string> rounding{
      *this, "rounding",
      llvm::cl::desc("How low-precision values are rounded: once (where "
                     "stored; f32 inside each loop nest), per-op (after "
                     "every low op), or empty: the module's amp.rounding, "
                     "else once"),
      llvm::cl::init("")};
};

#define AMP_TEXTUAL_LOWERING_OPTION(FIELD, NAME, TYPE, DEFAULT, HELP)          \
  PassOptions::Option<LoweringOptionTraits<TYPE>::Text> FIELD{                 \
      *this, NAME, llvm::cl::desc(HELP),                                       \
      llvm::cl::init(LoweringOptionTraits<TYPE>::print(DEFAULT))};

/// The options of --lower-to-cpu, as text.
struct LowerToCpuOptions : public LoweringOptionsBase<LowerToCpuOptions> {
#define AMP_CPU_LOWERING_OPTION AMP_TEXTUAL_LOWERING_OPTION
#include "amp/Pipelines/LoweringOptions.def"
};

/// The options of --lower-to-gpu, as text.
struct LowerToGpuOptions : public LoweringOptionsBase<LowerToGpuOptions> {
#define AMP_GPU_LOWERING_OPTION AMP_TEXTUAL_LOWERING_OPTION
#include "amp/Pipelines/LoweringOptions.def"
};

#undef AMP_TEXTUAL_LOWERING_OPTION

/// Reads the textual options into the typed ones, each value parsed once;
/// failure with a message in `error` ("format must be fatbin, isa or bin,
/// got 'x'"). What the values' types do not check is left to
/// verifyGpuLoweringOptions, when the pipeline is built: the target may
/// still set `simulate`.
LogicalResult bindLoweringOptions(const LowerToCpuOptions &text,
                                  CpuLoweringOptions &options,
                                  std::string &error);
LogicalResult bindLoweringOptions(const LowerToGpuOptions &text,
                                  GpuLoweringOptions &options,
                                  std::string &error);

/// Parses options in the pipelines' syntax ("libraries=false") into
/// `options`, as bindLoweringOptions; `error` has the parser's message.
LogicalResult parseLoweringOptions(llvm::StringRef text,
                                   CpuLoweringOptions &options,
                                   std::string &error);
LogicalResult parseLoweringOptions(llvm::StringRef text,
                                   GpuLoweringOptions &options,
                                   std::string &error);

//===----------------------------------------------------------------------===//
// By name, with a typed value: the C API's setters
//===----------------------------------------------------------------------===//

/// The options of --lower-to-cpu and of --lower-to-gpu, in declaration
/// order.
llvm::ArrayRef<OptionInfo> getCpuLoweringOptionInfos();
llvm::ArrayRef<OptionInfo> getGpuLoweringOptionInfos();

/// Sets option `name` of `options` to `value`; failure with a message in
/// `error` for an unknown name, a value of another kind, or one out of the
/// option's range or form.
LogicalResult setLoweringOption(CpuLoweringOptions &options,
                                llvm::StringRef name, const OptionValue &value,
                                std::string &error);
LogicalResult setLoweringOption(GpuLoweringOptions &options,
                                llvm::StringRef name, const OptionValue &value,
                                std::string &error);

} // namespace amp
} // namespace mlir

#endif // AMP_PIPELINES_LOWERINGOPTIONS_H
