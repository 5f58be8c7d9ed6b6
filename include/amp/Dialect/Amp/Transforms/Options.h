//===- Options.h - the one options struct of AMP ----------------*- C++ -*-===//
//
// Part of amp-mlir. Every option of the AMP pipelines (--amp-o1/--amp-o2)
// and of the compilers that drive them (amp-run, amp-compile, the C API,
// Python's compile()), typed, with the spellings of each enumerated value in
// one table. The options are declared once, as pass options, in
// PassOptions.td; the passes that hold them (--amp-o1/--amp-o2 hold them
// all, and parse the text of amp-run's flags, the C API and Python: see
// parseAmpOptions in amp/Pipelines/AmpPipelines.h) are bound to the struct
// here, by bindAmpOptions and unbindAmpOptions, and nowhere else.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_OPTIONS_H
#define AMP_DIALECT_AMP_TRANSFORMS_OPTIONS_H

#include "amp/Dialect/Amp/IR/AmpDialect.h"

#include "mlir/Pass/PassOptions.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace amp {

//===----------------------------------------------------------------------===//
// Enumerated options and their spellings
//===----------------------------------------------------------------------===//

/// The AMP level: of a compilation (amp-run, amp-compile, the C API,
/// Python), where O0 leaves the module as written, and of the precision
/// passes, which run O1 or O2 (O0 is no pass at all: parsePassLevel).
enum class AmpLevel { O0, O1, O2 };
/// `use-fp16-guard=`: only ops inside amp.fp16_guard go low (On), all may
/// (Off), or On exactly when the module has a guard (Auto).
enum class GuardMode { On, Off, Auto };
/// `placement=`: gray ops at O1. Auto (the default) is Autocast at O1 and
/// nothing at O2 (every op goes low); Autocast named at O2 makes gray ops
/// promote there too.
enum class Placement { Auto, Optimal, Greedy, Autocast };
/// `loss-scaling=`: of training steps.
enum class LossScalingMode { Auto, On, Off };
/// `arg-precision=`: float tensor arguments of public functions.
enum class ArgPrecision { Keep, Low };
/// `rounding=`: how low-precision values are rounded in the lowering: once,
/// where a value is stored (a linalg.generic's yield) or read by a
/// contraction; or per-op, after every low op as eager frameworks do.
enum class RoundingMode { Once, PerOp };
/// `report=`: the precision report.
enum class ReportFormat { None, Text, Json };
/// `f64=`: what the precision pass does with f64 computations between f32
/// values (torch-mlir's f64 statistics of a norm over f32 data).
enum class F64Computations {
  /// Computed in f32, then decided like the other f32 ops (the default).
  Demote,
  /// Left in f64, as written.
  Keep,
};
/// The `llvm::cl::values` of an F64Computations option (typed in the pass
/// options too).
#define AMP_F64_COMPUTATIONS_VALUES                                            \
  ::llvm::cl::values(                                                          \
      clEnumValN(::mlir::amp::F64Computations::Demote, "demote",               \
                 "compute them in f32, from the low input where it is low"),   \
      clEnumValN(::mlir::amp::F64Computations::Keep, "keep",                   \
                 "leave them in f64"))
/// `fp8-format=` (with dtype=fp8): the FP8 types of contraction operands.
/// E4M3 everywhere, Hybrid (TransformerEngine's Format.HYBRID: E4M3 in the
/// forward contractions, E5M2 for gradients), or E5M2 everywhere.
enum class Float8Format { E4M3, Hybrid, E5M2 };
/// `fp8-scaling=`: where a contraction operand's scale comes from. Delayed
/// (TransformerEngine's DelayedScaling): from the amaxes of earlier steps,
/// an amax history that training steps carry as state; functions without
/// state (inference) use Current, the amax of the tensor now.
enum class Float8Scaling { Delayed, Current };
/// `fp8-amax-compute=`: the amax a delayed scale is derived from, the
/// largest of the history or its most recent entry.
enum class Float8AmaxCompute { Max, MostRecent };
/// `fp8-cost-model=`: whether a contraction must be estimated faster in
/// FP8 than in bf16 to go FP8. None: every contraction goes (as with
/// TransformerEngine and torchao); H100: a roofline of an H100 SXM
/// (Float8Contractions.cpp, docs/policies.md).
enum class Float8CostModel { None, H100 };
/// `fp8-kernels=`: which FP8 contractions the target computes from FP8
/// operands; the others read their FP8 operands widened exactly to bf16
/// (every E4M3 and E5M2 value is one), so that a bf16 kernel computes the
/// same products. All: every one (the CPU's loops and library); CublasLt:
/// the GEMMs that cuBLASLt's FP8 GEMM takes (Float8Kernels.h; sm_89 and
/// later), not convolutions (cuDNN's legacy API has no FP8 form); None:
/// none (GPUs before sm_89). Auto: what the compilation's target computes,
/// set by the driver (amp-run, amp-compile, the C API, Python); All when
/// no driver knows the target (amp-opt).
enum class Float8Kernels { Auto, All, CublasLt, None };
/// `calibration-fallback=`: where calibrated ranges send the ops whose
/// tensors would overflow the low type.
enum class CalibrationFallback { F32, BF16 };

/// One spelling of an enumerated value. The first spelling of a value in
/// its table is the one printed; the others are accepted aliases.
template <typename E> struct Spelling {
  E value;
  llvm::StringLiteral name;
};

/// The spelling table of enum `E`: `values` and `option` (its name in the
/// pass options, for messages), `caseInsensitive` for the few that accept
/// any case. Specialized below, once per enum of the pipelines, and by the
/// driver for its own (amp/Runner/Runner.h: the target, check-nan-inf).
template <typename E> struct OptionSpellings;

#define AMP_OPTION_SPELLINGS(ENUM, OPTION, CASE_INSENSITIVE, ...)              \
  template <> struct OptionSpellings<ENUM> {                                   \
    static constexpr llvm::StringLiteral option = OPTION;                      \
    static constexpr bool caseInsensitive = CASE_INSENSITIVE;                  \
    static constexpr Spelling<ENUM> values[] = {__VA_ARGS__};                  \
  };

AMP_OPTION_SPELLINGS(AmpLevel, "level", true, {AmpLevel::O0, "O0"},
                     {AmpLevel::O1, "O1"}, {AmpLevel::O2, "O2"})
// The low-precision type: the spellings users write (numpy's, PyTorch's,
// Paddle's), in any case.
AMP_OPTION_SPELLINGS(Precision, "dtype", true, {Precision::f16, "f16"},
                     {Precision::bf16, "bf16"}, {Precision::f16, "fp16"},
                     {Precision::f16, "float16"}, {Precision::f16, "half"},
                     {Precision::bf16, "bfloat16"})
AMP_OPTION_SPELLINGS(GuardMode, "use-fp16-guard", false,
                     {GuardMode::On, "true"}, {GuardMode::Off, "false"},
                     {GuardMode::Auto, "auto"})
AMP_OPTION_SPELLINGS(Placement, "placement", false, {Placement::Auto, "auto"},
                     {Placement::Optimal, "optimal"},
                     {Placement::Greedy, "greedy"},
                     {Placement::Autocast, "autocast"})
AMP_OPTION_SPELLINGS(LossScalingMode, "loss-scaling", false,
                     {LossScalingMode::Auto, "auto"},
                     {LossScalingMode::On, "on"}, {LossScalingMode::Off, "off"})
AMP_OPTION_SPELLINGS(ArgPrecision, "arg-precision", false,
                     {ArgPrecision::Keep, "keep"}, {ArgPrecision::Low, "low"})
AMP_OPTION_SPELLINGS(RoundingMode, "rounding", false,
                     {RoundingMode::Once, "once"},
                     {RoundingMode::PerOp, "per-op"})
AMP_OPTION_SPELLINGS(ReportFormat, "report", false,
                     {ReportFormat::None, "none"}, {ReportFormat::Text, "text"},
                     {ReportFormat::Json, "json"})
AMP_OPTION_SPELLINGS(F64Computations, "f64", false,
                     {F64Computations::Demote, "demote"},
                     {F64Computations::Keep, "keep"})
AMP_OPTION_SPELLINGS(CalibrationFallback, "calibration-fallback", false,
                     {CalibrationFallback::F32, "f32"},
                     {CalibrationFallback::BF16, "bf16"})
AMP_OPTION_SPELLINGS(Float8Format, "fp8-format", false,
                     {Float8Format::E4M3, "e4m3"},
                     {Float8Format::Hybrid, "hybrid"},
                     {Float8Format::E5M2, "e5m2"})
AMP_OPTION_SPELLINGS(Float8Scaling, "fp8-scaling", false,
                     {Float8Scaling::Delayed, "delayed"},
                     {Float8Scaling::Current, "current"})
AMP_OPTION_SPELLINGS(Float8AmaxCompute, "fp8-amax-compute", false,
                     {Float8AmaxCompute::Max, "max"},
                     {Float8AmaxCompute::MostRecent, "most_recent"})
AMP_OPTION_SPELLINGS(Float8CostModel, "fp8-cost-model", false,
                     {Float8CostModel::None, "none"},
                     {Float8CostModel::H100, "h100"})
AMP_OPTION_SPELLINGS(Float8Kernels, "fp8-kernels", false,
                     {Float8Kernels::Auto, "auto"}, {Float8Kernels::All, "all"},
                     {Float8Kernels::CublasLt, "cublaslt"},
                     {Float8Kernels::None, "none"})

/// A list of enumerated options (enums with an OptionSpellings table).
template <typename... E> struct OptionList {};

/// Every enumerated option of the pipelines, in the order the C API lists
/// them (ampRunnerGetOptionValues, and Python's keyword checks through it).
/// A new enumerated option joins here, next to its table.
using AmpEnumeratedOptions =
    OptionList<AmpLevel, Precision, GuardMode, Placement, LossScalingMode,
               ArgPrecision, RoundingMode, ReportFormat, F64Computations,
               CalibrationFallback, Float8Format, Float8Scaling,
               Float8AmaxCompute, Float8CostModel, Float8Kernels>;

/// The value `text` spells, if any.
template <typename E> std::optional<E> parseOptionValue(llvm::StringRef text) {
  for (const Spelling<E> &spelling : OptionSpellings<E>::values)
    if (OptionSpellings<E>::caseInsensitive
            ? text.equals_insensitive(spelling.name)
            : text == spelling.name)
      return spelling.value;
  return std::nullopt;
}

/// The level of a precision pass (`level=` of amp-auto-mixed-precision and
/// amp-precision-pipeline): O1 or O2, any case; O0 is no pass.
inline std::optional<AmpLevel> parsePassLevel(llvm::StringRef text) {
  std::optional<AmpLevel> level = parseOptionValue<AmpLevel>(text);
  if (level == AmpLevel::O0)
    return std::nullopt;
  return level;
}

/// The printed spelling of `value`.
template <typename E> llvm::StringRef stringifyOptionValue(E value) {
  for (const Spelling<E> &spelling : OptionSpellings<E>::values)
    if (spelling.value == value)
      return spelling.name;
  return "";
}

/// The printed spellings, in table order: "keep or low", "none, text or
/// json".
template <typename E> std::string describeOptionValues() {
  SmallVector<llvm::StringRef> names;
  for (const Spelling<E> &spelling : OptionSpellings<E>::values)
    if (stringifyOptionValue(spelling.value) == spelling.name &&
        !spelling.name.empty())
      names.push_back(spelling.name);
  std::string text;
  for (size_t i = 0, e = names.size(); i < e; ++i) {
    if (i)
      text += i + 1 == e ? " or " : ", ";
    text += names[i].str();
  }
  return text;
}

/// "<option> must be <values>, got '<text>'": the message of a value
/// outside the table.
template <typename E> std::string getInvalidValueMessage(llvm::StringRef text) {
  return (OptionSpellings<E>::option + " must be " + describeOptionValues<E>() +
          ", got '" + text + "'")
      .str();
}

/// The message of an unknown dtype (it lists the aliases too).
std::string getUnknownDtypeMessage(llvm::StringRef text);

/// Parses "f16"/"bf16" and their aliases (any case).
inline std::optional<Precision> parseLowPrecision(llvm::StringRef name) {
  return parseOptionValue<Precision>(name);
}

/// The spellings of dtype=fp8 (any case), the printed one first:
/// contraction operands in FP8, the rest of the level in bf16.
inline constexpr llvm::StringLiteral kFloat8DtypeSpellings[] = {"fp8",
                                                                "float8"};

/// True for dtype=fp8 or one of its spellings.
inline bool isFloat8Dtype(llvm::StringRef name) {
  return llvm::any_of(kFloat8DtypeSpellings, [&](llvm::StringRef spelling) {
    return name.equals_insensitive(spelling);
  });
}

/// The FP8 recipe of dtype=fp8 (amp-float8-contractions' options).
struct Float8Options {
  Float8Format format = Float8Format::Hybrid;
  Float8Scaling scaling = Float8Scaling::Delayed;
  /// Delayed scaling: the steps of the amax history, at least 1.
  int64_t amaxHistoryLen = 16;
  Float8AmaxCompute amaxCompute = Float8AmaxCompute::Max;
  /// scale = fp8_max / amax / 2^margin.
  int margin = 0;
  /// Contractions of fewer multiply-adds (per batch) stay in the level's
  /// type.
  int64_t minSize = 0;
  /// Contractions estimated no faster in FP8 stay in the level's type.
  Float8CostModel costModel = Float8CostModel::None;
  /// Which FP8 contractions the target computes from FP8 operands.
  Float8Kernels kernels = Float8Kernels::Auto;
};

/// An error message for options outside their ranges (margin in [0, 30],
/// min-size at least 0, amax-history-len in [1, 65536], history settings
/// only with delayed scaling), spelled with `prefix` ("fp8-" for the AMP
/// levels' options); empty when they are fine.
std::string checkFloat8Options(const Float8Options &options,
                               llvm::StringRef prefix);

/// "once" or "per-op"; failure for anything else.
inline FailureOr<RoundingMode> parseRoundingMode(llvm::StringRef text) {
  if (std::optional<RoundingMode> mode = parseOptionValue<RoundingMode>(text))
    return *mode;
  return failure();
}
inline llvm::StringRef stringifyRoundingMode(RoundingMode mode) {
  return stringifyOptionValue(mode);
}

//===----------------------------------------------------------------------===//
// The options struct
//===----------------------------------------------------------------------===//

/// Every option of the AMP pipeline of one level, typed.
struct AmpOptions {
  AmpLevel level = AmpLevel::O1;
  /// The low-precision type; unset: the policy file's, else f16.
  std::optional<Precision> dtype;
  /// Op names (`linalg.softmax`) forced low / kept fp32.
  std::vector<std::string> customWhiteList, customBlackList;
  GuardMode useFp16Guard = GuardMode::Auto;
  /// A JSON policy file; empty: none.
  std::string policyFile;
  /// A remark per decided op: precision and reason.
  bool explain = false;
  Placement placement = Placement::Auto;
  LossScalingMode lossScaling = LossScalingMode::Auto;
  ArgPrecision argPrecision = ArgPrecision::Keep;
  RoundingMode rounding = RoundingMode::Once;
  F64Computations f64 = F64Computations::Demote;
  /// dtype=fp8: the contractions' operands in FP8 with per-tensor scaling
  /// (amp-float8-contractions), the rest in `dtype` (bf16).
  std::optional<Float8Options> fp8;

  /// Calibrated ranges (amp.absmax): ops that read or compute a tensor
  /// larger than the low type's largest finite value / calibrationMargin go
  /// to calibrationFallback instead.
  double calibrationMargin = 4.0;
  CalibrationFallback calibrationFallback = CalibrationFallback::F32;

  // What the pipeline writes besides the module.
  ReportFormat report = ReportFormat::None;
  /// Where the report goes: a path, '-' for stdout; empty: stderr.
  std::string reportFile;
  /// The precision graph of the result (Graphviz DOT): a path, '-' for
  /// stdout; empty: none.
  std::string graphFile;
  /// Leave amp.cast ops for AMP-aware passes.
  bool keepAmpCasts = false;

  // The pipeline around the precision passes.
  /// A calibration file (amp-apply-ranges) to attach first; empty: none.
  std::string calibration;
  /// The loss-scaler preset of the training steps amp-training builds.
  std::string scaler = "pytorch";
  /// Training steps all-reduce across ranks.
  bool dataParallel = false;
  /// The stages as separate passes instead of amp-precision-pipeline.
  bool splitStages = false;

  /// "amp-o1" or "amp-o2": the title of reports and graphs (O0 runs no
  /// pipeline).
  llvm::StringRef getTitle() const {
    return level == AmpLevel::O1 ? "amp-o1" : "amp-o2";
  }
};

//===----------------------------------------------------------------------===//
// Binding the textual forms
//===----------------------------------------------------------------------===//
//
// A textual holder is anything with members named as the options (the pass
// options that Passes.td declares, the options structs it generates, the
// PassPipelineOptions of --amp-o1/--amp-o2): bindAmpOptions reads one into
// the struct, checking every enumerated value against its table;
// unbindAmpOptions writes the struct back. They come in three parts, for
// the three groups of options (decision, outputs, pipeline), as not every
// holder has every group.

/// Declares the binders friends of a pass, whose generated options are
/// protected members: put it in the pass class that bindAmpOptions and its
/// parts read.
#define AMP_OPTIONS_BINDABLE                                                   \
  template <typename Text>                                                     \
  friend ::mlir::LogicalResult mlir::amp::bindAmpDecisionOptions(              \
      const Text &, ::mlir::amp::AmpOptions &, std::string &);                 \
  template <typename Text>                                                     \
  friend ::mlir::LogicalResult mlir::amp::bindAmpOutputOptions(                \
      const Text &, ::mlir::amp::AmpOptions &, std::string &);                 \
  template <typename Text>                                                     \
  friend void mlir::amp::bindAmpPipelineOptions(const Text &,                  \
                                                ::mlir::amp::AmpOptions &);

namespace options_impl {
template <typename E, typename Text>
LogicalResult bindEnum(const Text &text, E &value, std::string &error) {
  std::optional<E> parsed = parseOptionValue<E>(text);
  if (!parsed) {
    error = getInvalidValueMessage<E>(text);
    return failure();
  }
  value = *parsed;
  return success();
}
} // namespace options_impl

/// The options that decide precisions (all but the level, which a holder
/// may not have). On failure, `error` says which value is wrong.
template <typename Text>
LogicalResult bindAmpDecisionOptions(const Text &text, AmpOptions &options,
                                     std::string &error) {
  llvm::StringRef dtype = text.dtype;
  options.dtype.reset();
  options.fp8.reset();
  Float8Options fp8;
  fp8.margin = text.fp8Margin;
  fp8.minSize = text.fp8MinSize;
  fp8.amaxHistoryLen = text.fp8AmaxHistoryLen;
  if (failed(options_impl::bindEnum<Float8Format>(
          llvm::StringRef(text.fp8Format), fp8.format, error)) ||
      failed(options_impl::bindEnum<Float8Scaling>(
          llvm::StringRef(text.fp8Scaling), fp8.scaling, error)) ||
      failed(options_impl::bindEnum<Float8AmaxCompute>(
          llvm::StringRef(text.fp8AmaxCompute), fp8.amaxCompute, error)) ||
      failed(options_impl::bindEnum<Float8CostModel>(
          llvm::StringRef(text.fp8CostModel), fp8.costModel, error)) ||
      failed(options_impl::bindEnum<Float8Kernels>(
          llvm::StringRef(text.fp8Kernels), fp8.kernels, error)))
    return failure();
  if (isFloat8Dtype(dtype)) {
    error = checkFloat8Options(fp8, "fp8-");
    if (!error.empty())
      return failure();
    options.dtype = Precision::bf16;
    options.fp8 = fp8;
  } else if (!dtype.empty()) {
    options.dtype = parseLowPrecision(dtype);
    if (!options.dtype) {
      error = getUnknownDtypeMessage(dtype);
      return failure();
    }
  }
  if (!options.fp8) {
    // The FP8 options only mean something with dtype=fp8.
    Float8Options defaults;
    const char *given =
        fp8.format != defaults.format                   ? "fp8-format"
        : fp8.scaling != defaults.scaling               ? "fp8-scaling"
        : fp8.amaxHistoryLen != defaults.amaxHistoryLen ? "fp8-amax-history-len"
        : fp8.amaxCompute != defaults.amaxCompute       ? "fp8-amax-compute"
        : fp8.margin != defaults.margin                 ? "fp8-margin"
        : fp8.minSize != defaults.minSize               ? "fp8-min-size"
        : fp8.costModel != defaults.costModel           ? "fp8-cost-model"
        : fp8.kernels != defaults.kernels               ? "fp8-kernels"
                                                        : nullptr;
    if (given) {
      error = std::string(given) + " applies to dtype=fp8, not dtype=" +
              (dtype.empty() ? llvm::StringRef("f16") : dtype).str();
      return failure();
    }
  }
  options.customWhiteList.assign(text.customWhiteList.begin(),
                                 text.customWhiteList.end());
  options.customBlackList.assign(text.customBlackList.begin(),
                                 text.customBlackList.end());
  options.policyFile = text.policyFile;
  options.explain = text.explain;
  options.f64 = text.f64;
  // Also false for NaN.
  if (!(text.calibrationMargin >= 1.0)) {
    error = "calibration-margin must be at least 1, not " +
            std::to_string(text.calibrationMargin);
    return failure();
  }
  options.calibrationMargin = text.calibrationMargin;
  if (failed(options_impl::bindEnum<CalibrationFallback>(
          llvm::StringRef(text.calibrationFallback),
          options.calibrationFallback, error)))
    return failure();
  if (failed(options_impl::bindEnum<GuardMode>(
          llvm::StringRef(text.useFp16Guard), options.useFp16Guard, error)) ||
      failed(options_impl::bindEnum<Placement>(llvm::StringRef(text.placement),
                                               options.placement, error)) ||
      failed(options_impl::bindEnum<LossScalingMode>(
          llvm::StringRef(text.lossScaling), options.lossScaling, error)) ||
      failed(options_impl::bindEnum<ArgPrecision>(
          llvm::StringRef(text.argPrecision), options.argPrecision, error)) ||
      failed(options_impl::bindEnum<RoundingMode>(
          llvm::StringRef(text.rounding), options.rounding, error)))
    return failure();
  return success();
}

/// The options of what the pipeline writes (report, graph, casts).
template <typename Text>
LogicalResult bindAmpOutputOptions(const Text &text, AmpOptions &options,
                                   std::string &error) {
  options.reportFile = text.reportFile;
  options.graphFile = text.graphFile;
  options.keepAmpCasts = text.keepAmpCasts;
  return options_impl::bindEnum<ReportFormat>(llvm::StringRef(text.report),
                                              options.report, error);
}

/// The options of the pipeline around the precision passes.
template <typename Text>
void bindAmpPipelineOptions(const Text &text, AmpOptions &options) {
  options.calibration = text.calibration;
  options.scaler = text.scaler;
  options.dataParallel = text.dataParallel;
  options.splitStages = text.splitStages;
}

template <typename Text>
void unbindAmpDecisionOptions(const AmpOptions &options, Text &text) {
  text.level = stringifyOptionValue(options.level).str();
  text.dtype = options.fp8     ? "fp8"
               : options.dtype ? stringifyOptionValue(*options.dtype).str()
                               : "";
  Float8Options fp8 = options.fp8.value_or(Float8Options());
  text.fp8Format = stringifyOptionValue(fp8.format).str();
  text.fp8Scaling = stringifyOptionValue(fp8.scaling).str();
  text.fp8AmaxHistoryLen = fp8.amaxHistoryLen;
  text.fp8AmaxCompute = stringifyOptionValue(fp8.amaxCompute).str();
  text.fp8Margin = fp8.margin;
  text.fp8MinSize = fp8.minSize;
  text.fp8CostModel = stringifyOptionValue(fp8.costModel).str();
  text.fp8Kernels = stringifyOptionValue(fp8.kernels).str();
  text.customWhiteList.assign(options.customWhiteList.begin(),
                              options.customWhiteList.end());
  text.customBlackList.assign(options.customBlackList.begin(),
                              options.customBlackList.end());
  text.useFp16Guard = stringifyOptionValue(options.useFp16Guard).str();
  text.policyFile = options.policyFile;
  text.explain = options.explain;
  text.placement = stringifyOptionValue(options.placement).str();
  text.lossScaling = stringifyOptionValue(options.lossScaling).str();
  text.argPrecision = stringifyOptionValue(options.argPrecision).str();
  text.rounding = stringifyOptionValue(options.rounding).str();
  text.f64 = options.f64;
  text.calibrationMargin = options.calibrationMargin;
  text.calibrationFallback =
      stringifyOptionValue(options.calibrationFallback).str();
}

template <typename Text>
void unbindAmpOutputOptions(const AmpOptions &options, Text &text) {
  text.report = stringifyOptionValue(options.report).str();
  text.reportFile = options.reportFile;
  text.graphFile = options.graphFile;
  text.keepAmpCasts = options.keepAmpCasts;
}

/// Binds every option that `text` holds (--amp-o1/--amp-o2's, which have
/// them all) to `options`, the level excepted; on failure, `error` says
/// which value is wrong.
template <typename Text>
LogicalResult bindAmpOptions(const Text &text, AmpOptions &options,
                             std::string &error) {
  if (failed(bindAmpOutputOptions(text, options, error)) ||
      failed(bindAmpDecisionOptions(text, options, error)))
    return failure();
  bindAmpPipelineOptions(text, options);
  return success();
}

} // namespace amp
} // namespace mlir

#endif // AMP_DIALECT_AMP_TRANSFORMS_OPTIONS_H
