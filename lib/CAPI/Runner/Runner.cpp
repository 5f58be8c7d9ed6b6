//===- Runner.cpp - C API of the AmpRunner library ------------------------===//
//
// Part of amp-mlir. See include/amp-c/Runner.h. Every entry point turns
// llvm::Error into a per-thread message; none lets an error escape as an
// abort.
//
//===----------------------------------------------------------------------===//

#include "amp-c/Runner.h"

#include "amp/Dialect/Amp/Transforms/Options.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/Dialect/Amp/Transforms/Policy.h"
#include "amp/Pipelines/AmpPipelines.h"
#include "amp/Pipelines/LoweringPipelines.h"
#include "amp/Runner/CompileFlags.h"
#include "amp/Runner/Runner.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <memory>
#include <string>

using namespace mlir;
using namespace mlir::amp::runner;
using llvm::Expected;

/// libamp_runtime.so next to this library (both are in <prefix>/lib, or in
/// a build tree's lib/), found from this library's own path: no absolute
/// path is recorded at build time, so a moved install prefix keeps working.
/// Empty if the path cannot be found.
static std::string defaultRuntimeLibrary(StringRef name) {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&defaultRuntimeLibrary), &info) ||
      !info.dli_fname)
    return std::string();
  llvm::SmallString<256> path(llvm::sys::path::parent_path(info.dli_fname));
  llvm::sys::path::append(path, name);
  return std::string(path);
}

struct AmpRunnerModule {
  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
  SmallVector<std::string> functionNames;
  /// The text ampRunnerModuleBuildTrainingSteps returned last.
  std::string trainingSteps;
  /// The text ampRunnerModuleTransform returned last.
  std::string transformed;
  /// The time the module took to parse (wall, CPU): the first stage of
  /// every compilation's timing.
  double parseSeconds = 0, parseCpuSeconds = 0;
  /// ampRunnerModuleGetLastTiming's JSON.
  std::string lastTiming = "{}";
};

struct AmpRunnerExecutable {
  std::unique_ptr<Executable> executable;
  std::string lowPrecisionType;
};

struct AmpRunnerResults {
  SmallVector<HostTensor> tensors;
  /// One per result: true once ampRunnerResultsTake took it.
  SmallVector<bool> taken;
  /// One per result: empty for a result on the host.
  SmallVector<DeviceTensor> devices;
};

struct AmpRunnerDeviceTensor {
  DeviceTensor tensor;
};

struct AmpRunnerHostBuffer {
  HostTensor tensor;
};

struct AmpRunnerCapturedCall {
  std::unique_ptr<CapturedCall> call;
};

static thread_local std::string lastError;
static thread_local std::string lastDiagnostics = "{}";

/// Records `message` as this thread's last error and returns `result`.
template <typename T> static T fail(const llvm::Twine &message, T result) {
  lastError = message.str();
  return result;
}

static int failWith(llvm::Error error) {
  return fail(llvm::toString(std::move(error)), 1);
}

int ampRunnerGetApiVersion(void) { return AMP_RUNNER_CAPI_VERSION; }

const char *ampRunnerGetLastError(void) { return lastError.c_str(); }

const char *ampRunnerGetLastDiagnostics(void) {
  return lastDiagnostics.c_str();
}

const char *ampRunnerGetRegisteredDialects(void) {
  static const std::string names = [] {
    DialectRegistry registry;
    registerRunnerDialects(registry);
    std::string joined;
    for (StringRef name : registry.getDialectNames()) // sorted
      joined += (joined.empty() ? "" : ",") + name.str();
    return joined;
  }();
  return names.c_str();
}

/// Adds the printed spellings of `E` (in table order; no aliases, not the
/// empty spelling of an unset value), joined by commas, under its option
/// name.
template <typename E>
static void addOptionValues(llvm::StringMap<std::string> &tables) {
  SmallVector<StringRef> names;
  for (const amp::Spelling<E> &spelling : amp::OptionSpellings<E>::values)
    if (amp::stringifyOptionValue(spelling.value) == spelling.name &&
        !spelling.name.empty())
      names.push_back(spelling.name);
  tables[amp::OptionSpellings<E>::option] = llvm::join(names, ",");
}

/// Adds every spelling of `E` with the printed spelling of its value
/// ("fp16=f16"), in table order, joined by commas, under its option name.
template <typename E>
static void addOptionSpellings(llvm::StringMap<std::string> &tables) {
  SmallVector<std::string> pairs;
  for (const amp::Spelling<E> &spelling : amp::OptionSpellings<E>::values)
    if (!spelling.name.empty())
      pairs.push_back(
          (spelling.name + "=" + amp::stringifyOptionValue(spelling.value))
              .str());
  tables[amp::OptionSpellings<E>::option] = llvm::join(pairs, ",");
}

/// Calls `Adder<E>::add(tables)` for each option `E` of the list.
template <template <typename> class Adder, typename... E>
static void addAll(llvm::StringMap<std::string> &tables,
                   amp::OptionList<E...>) {
  (Adder<E>::add(tables), ...);
}

/// Calls `Adder<E>::add(tables)` for each enumerated option a caller can
/// name: the pipelines' and the driver's.
template <template <typename> class Adder>
static llvm::StringMap<std::string> makeOptionTables() {
  llvm::StringMap<std::string> tables;
  addAll<Adder>(tables, amp::AmpEnumeratedOptions());
  addAll<Adder>(tables, DriverEnumeratedOptions());
  return tables;
}

namespace {
template <typename E> struct ValuesAdder {
  static void add(llvm::StringMap<std::string> &tables) {
    addOptionValues<E>(tables);
  }
};
template <typename E> struct SpellingsAdder {
  static void add(llvm::StringMap<std::string> &tables) {
    addOptionSpellings<E>(tables);
  }
};
} // namespace

/// The entry of `option` in `tables`, or the error of `function`.
static const char *lookupOptionTable(const llvm::StringMap<std::string> &tables,
                                     const char *option, StringRef function) {
  StringRef name = option ? StringRef(option) : StringRef();
  auto it = tables.find(name);
  if (it == tables.end())
    return fail(function + ": '" + name + "' is not an enumerated option",
                nullptr);
  return it->second.c_str();
}

const char *ampRunnerGetOptionValues(const char *option) {
  static const llvm::StringMap<std::string> tables =
      makeOptionTables<ValuesAdder>();
  return lookupOptionTable(tables, option, "ampRunnerGetOptionValues");
}

const char *ampRunnerGetOptionSpellings(const char *option) {
  static const llvm::StringMap<std::string> tables = [] {
    llvm::StringMap<std::string> tables = makeOptionTables<SpellingsAdder>();
    // dtype=fp8: the contractions in FP8, the rest in bf16.
    for (StringRef spelling : amp::kFloat8DtypeSpellings)
      tables["dtype"] +=
          ("," + spelling + "=" + amp::kFloat8DtypeSpellings[0]).str();
    return tables;
  }();
  return lookupOptionTable(tables, option, "ampRunnerGetOptionSpellings");
}

namespace {
/// Collects the diagnostics that no other handler takes (the warnings and
/// remarks of a compilation; the runner collects its errors itself) instead
/// of letting the context print them to stderr, and writes them as the JSON
/// of ampRunnerGetLastDiagnostics().
class DiagnosticCollector {
public:
  /// With `passOn`, the diagnostics also go on to the handler registered
  /// before this one (the parser's, which formats them with their source
  /// lines).
  DiagnosticCollector(MLIRContext *context, bool passOn = false)
      : handler(context, [this, passOn](Diagnostic &diagnostic) {
          collect(diagnostic);
          if (diagnostic.getSeverity() == DiagnosticSeverity::Error)
            appendError(diagnostic);
          return failure(passOn);
        }) {}

  /// The error diagnostics collected, one per line ("\n  file:line:col:
  /// error: message", then their notes), as the runner's messages give
  /// them.
  const std::string &getErrorText() const { return errorText; }

  std::string toJson(const CapturedOutput &output) const {
    llvm::json::Object root{{"diagnostics", llvm::json::Array(diagnostics)},
                            {"stderr", output.stderrText},
                            {"stdout", output.stdoutText}};
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::json::Value(std::move(root));
    return text;
  }

private:
  static StringRef getSeverityName(DiagnosticSeverity severity) {
    switch (severity) {
    case DiagnosticSeverity::Error:
      return "error";
    case DiagnosticSeverity::Warning:
      return "warning";
    case DiagnosticSeverity::Remark:
      return "remark";
    case DiagnosticSeverity::Note:
      return "note";
    }
    return "note";
  }

  /// "file:line:col" of the location, its printed form if it has none, or
  /// "" for an unknown location.
  static std::string formatLocation(Location location) {
    if (auto file = location->findInstanceOf<FileLineColLoc>())
      return (file.getFilename().getValue() + ":" + Twine(file.getLine()) +
              ":" + Twine(file.getColumn()))
          .str();
    if (isa<UnknownLoc>(location))
      return "";
    std::string text;
    llvm::raw_string_ostream os(text);
    os << location;
    return text;
  }

  /// The op name of a "see current operation: ..." note (the op printed in
  /// its custom or generic form, after its results), or "".
  static StringRef getPrintedOpName(StringRef text) {
    text = text.ltrim();
    if (text.starts_with("%")) {
      size_t equals = text.find(" = ");
      if (equals == StringRef::npos)
        return "";
      text = text.drop_front(equals + 3);
    }
    if (text.consume_front("\""))
      return text.take_until([](char c) { return c == '"'; });
    return text.take_until([](char c) {
      return c == ' ' || c == '(' || c == '<' || c == '{' || c == '\n';
    });
  }

  void collect(Diagnostic &diagnostic) {
    constexpr StringRef kCurrentOp = "see current operation: ";
    llvm::json::Array notes;
    std::optional<std::string> op;
    for (Diagnostic &note : diagnostic.getNotes()) {
      std::string message = note.str();
      if (StringRef(message).starts_with(kCurrentOp)) {
        StringRef name =
            getPrintedOpName(StringRef(message).drop_front(kCurrentOp.size()));
        if (!name.empty())
          op = name.str();
        continue;
      }
      notes.push_back(
          llvm::json::Object{{"location", formatLocation(note.getLocation())},
                             {"message", std::move(message)}});
    }
    diagnostics.push_back(llvm::json::Object{
        {"severity", getSeverityName(diagnostic.getSeverity())},
        {"location", formatLocation(diagnostic.getLocation())},
        {"message", diagnostic.str()},
        {"op", op ? llvm::json::Value(*op) : llvm::json::Value(nullptr)},
        {"notes", std::move(notes)}});
  }

  void appendError(Diagnostic &diagnostic) {
    auto line = [&](Diagnostic &d, StringRef severity) {
      std::string where = formatLocation(d.getLocation());
      errorText += "\n  " + (where.empty() ? "" : where + ": ") +
                   severity.str() + ": " + d.str();
    };
    line(diagnostic, "error");
    for (Diagnostic &note : diagnostic.getNotes())
      if (!StringRef(note.str()).starts_with("see current operation: "))
        line(note, "note");
  }

  llvm::json::Array diagnostics;
  std::string errorText;
  ScopedDiagnosticHandler handler;
};
} // namespace

//===----------------------------------------------------------------------===//
// Modules
//===----------------------------------------------------------------------===//

AmpRunnerModule *ampRunnerModuleParse(const char *text, size_t length,
                                      const char *name) {
  if (!text)
    return fail("ampRunnerModuleParse: no text", nullptr);
  StringRef bufferName = name && *name ? StringRef(name) : "<string>";
  auto result = std::make_unique<AmpRunnerModule>();
  DialectRegistry registry;
  registerRunnerDialects(registry);
  result->context = std::make_unique<MLIRContext>(registry);
  result->context->loadAllAvailableDialects();

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(StringRef(text, length), bufferName),
      llvm::SMLoc());
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  SourceMgrDiagnosticHandler handler(sourceMgr, result->context.get(), os);
  {
    // The same diagnostics, located, for ampRunnerGetLastDiagnostics().
    DiagnosticCollector collector(result->context.get(), /*passOn=*/true);
    auto start = std::chrono::steady_clock::now();
    std::clock_t cpuStart = std::clock();
    result->module = parseSourceFile<ModuleOp>(
        sourceMgr, ParserConfig(result->context.get()));
    result->parseSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    result->parseCpuSeconds =
        static_cast<double>(std::clock() - cpuStart) / CLOCKS_PER_SEC;
    lastDiagnostics = collector.toJson(CapturedOutput());
  }
  if (!result->module)
    return fail("cannot parse " + bufferName + "\n" +
                    StringRef(diagnostics).rtrim(),
                nullptr);
  for (StringRef function : getFunctionNames(*result->module))
    result->functionNames.push_back(function.str());
  return result.release();
}

void ampRunnerModuleDestroy(AmpRunnerModule *module) { delete module; }

int64_t ampRunnerModuleGetNumFunctions(AmpRunnerModule *module) {
  return module ? static_cast<int64_t>(module->functionNames.size()) : 0;
}

const char *ampRunnerModuleGetFunctionName(AmpRunnerModule *module,
                                           int64_t index) {
  if (!module || index < 0 ||
      index >= static_cast<int64_t>(module->functionNames.size()))
    return nullptr;
  return module->functionNames[index].c_str();
}

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

static StringRef orDefault(const char *value, StringRef fallback) {
  return value && *value ? StringRef(value) : fallback;
}

/// The options of a compilation, typed from the setter that took each.
struct AmpRunnerOptions {
  CompileOptions options;
  /// dtype=fp8 is applied when bound, after the AMP options' text, which it
  /// wins over (as --dtype does).
  bool float8 = false;
  /// MLIR's and LLVM's time of each pass too.
  bool timePasses = false;
  /// A CPU lowering option was set (an error for another target).
  bool cpuLoweringSet = false;
};

AmpRunnerOptions *ampRunnerOptionsCreate(void) {
  return new AmpRunnerOptions();
}

void ampRunnerOptionsDestroy(AmpRunnerOptions *options) { delete options; }

// The C enums are the C++ enums' values (their spelling tables' order).
static_assert(AMP_RUNNER_LEVEL_O2 == static_cast<int>(amp::AmpLevel::O2));
static_assert(AMP_RUNNER_TARGET_GPU_SIM == static_cast<int>(Target::GpuSim));
static_assert(AMP_RUNNER_ROUNDING_PER_OP ==
              static_cast<int>(amp::RoundingMode::PerOp));
static_assert(AMP_RUNNER_CHECK_NAN_INF_ALL ==
              static_cast<int>(CheckNanInf::All));

/// `value` as enum `E` when it is one of E's `count` values; else the error
/// of `function`.
template <typename E>
static LogicalResult toEnum(int value, int count, E &result,
                            StringRef function) {
  if (value < 0 || value >= count)
    return fail(function + ": " + Twine(value) + " is not a value of " +
                    amp::OptionSpellings<E>::option,
                failure());
  result = static_cast<E>(value);
  return success();
}

/// The options to set, or the error of `function`.
static AmpRunnerOptions *getOptions(AmpRunnerOptions *options,
                                    StringRef function) {
  return options ? options : fail(function + ": no options", nullptr);
}

int ampRunnerOptionsSetLevel(AmpRunnerOptions *options, AmpRunnerLevel level) {
  if (!getOptions(options, "ampRunnerOptionsSetLevel"))
    return 1;
  return failed(
      toEnum(level, 3, options->options.level, "ampRunnerOptionsSetLevel"));
}

int ampRunnerOptionsSetDtype(AmpRunnerOptions *options, AmpRunnerDtype dtype) {
  if (!getOptions(options, "ampRunnerOptionsSetDtype"))
    return 1;
  // The dtype's table spells amp.Precision, whose values are the IR's.
  switch (dtype) {
  case AMP_RUNNER_DTYPE_F16:
    options->options.dtype = amp::Precision::f16;
    break;
  case AMP_RUNNER_DTYPE_BF16:
    options->options.dtype = amp::Precision::bf16;
    break;
  case AMP_RUNNER_DTYPE_FP8:
    options->options.dtype.reset();
    break;
  default:
    return fail("ampRunnerOptionsSetDtype: " + Twine(dtype) +
                    " is not a value of dtype",
                1);
  }
  options->float8 = dtype == AMP_RUNNER_DTYPE_FP8;
  return 0;
}

int ampRunnerOptionsSetTarget(AmpRunnerOptions *options,
                              AmpRunnerTarget target) {
  if (!getOptions(options, "ampRunnerOptionsSetTarget"))
    return 1;
  return failed(
      toEnum(target, 3, options->options.target, "ampRunnerOptionsSetTarget"));
}

int ampRunnerOptionsSetRounding(AmpRunnerOptions *options,
                                AmpRunnerRounding rounding) {
  if (!getOptions(options, "ampRunnerOptionsSetRounding"))
    return 1;
  amp::RoundingMode mode;
  if (failed(toEnum(rounding, 2, mode, "ampRunnerOptionsSetRounding")))
    return 1;
  options->options.rounding = mode;
  return 0;
}

int ampRunnerOptionsSetCheckNanInf(AmpRunnerOptions *options,
                                   AmpRunnerCheckNanInf check) {
  if (!getOptions(options, "ampRunnerOptionsSetCheckNanInf"))
    return 1;
  return failed(toEnum(check, 3, options->options.checkNanInf,
                       "ampRunnerOptionsSetCheckNanInf"));
}

int ampRunnerOptionsSetTimePasses(AmpRunnerOptions *options, int passes) {
  if (!getOptions(options, "ampRunnerOptionsSetTimePasses"))
    return 1;
  options->timePasses = passes != 0;
  return 0;
}

int ampRunnerOptionsSetRuntimeLibrary(AmpRunnerOptions *options,
                                      const char *path) {
  if (!getOptions(options, "ampRunnerOptionsSetRuntimeLibrary"))
    return 1;
  options->options.runtimeLibrary = orDefault(path, "").str();
  return 0;
}

int ampRunnerOptionsSetRecordRanges(AmpRunnerOptions *options,
                                    const char *function) {
  if (!getOptions(options, "ampRunnerOptionsSetRecordRanges"))
    return 1;
  options->options.recordRanges = orDefault(function, "").str();
  return 0;
}

int ampRunnerOptionsSetAmpOptions(AmpRunnerOptions *options, const char *text) {
  if (!getOptions(options, "ampRunnerOptionsSetAmpOptions"))
    return 1;
  std::string error;
  if (failed(amp::parseAmpOptions(orDefault(text, ""),
                                  options->options.ampOptions, error)))
    return fail("ampRunnerOptionsSetAmpOptions: " + StringRef(error).trim(), 1);
  return 0;
}

const char *ampRunnerGetAmpOptions(void) {
  static const std::string infos =
      amp::describeOptionInfos(amp::getAmpOptionInfos());
  return infos.c_str();
}

/// Sets option `name` of the AMP pipeline to `value`; 0, or non-zero with
/// the error of `function`.
static int setAmpOption(AmpRunnerOptions *options, const char *name,
                        const amp::OptionValue &value, StringRef function) {
  if (!getOptions(options, function))
    return 1;
  std::string error;
  if (failed(amp::setAmpOption(options->options.ampOptions, orDefault(name, ""),
                               value, error)))
    return fail(error, 1);
  return 0;
}

int ampRunnerOptionsSetAmpBool(AmpRunnerOptions *options, const char *name,
                               int value) {
  return setAmpOption(options, name, value != 0, "ampRunnerOptionsSetAmpBool");
}

int ampRunnerOptionsSetAmpInt(AmpRunnerOptions *options, const char *name,
                              int64_t value) {
  return setAmpOption(options, name, value, "ampRunnerOptionsSetAmpInt");
}

int ampRunnerOptionsSetAmpFloat(AmpRunnerOptions *options, const char *name,
                                double value) {
  return setAmpOption(options, name, value, "ampRunnerOptionsSetAmpFloat");
}

int ampRunnerOptionsSetAmpString(AmpRunnerOptions *options, const char *name,
                                 const char *value) {
  return setAmpOption(options, name, orDefault(value, "").str(),
                      "ampRunnerOptionsSetAmpString");
}

int ampRunnerOptionsSetAmpStrings(AmpRunnerOptions *options, const char *name,
                                  const char *const *values, int64_t count) {
  if (count < 0 || (count > 0 && !values))
    return fail("ampRunnerOptionsSetAmpStrings: " + Twine(count) +
                    " values and no array of them",
                1);
  std::vector<std::string> list;
  for (int64_t i = 0; i < count; ++i)
    list.push_back(orDefault(values[i], "").str());
  return setAmpOption(options, name, std::move(list),
                      "ampRunnerOptionsSetAmpStrings");
}

const char *ampRunnerGetLoweringOptions(AmpRunnerLowering lowering) {
  static const std::string cpu =
      amp::describeOptionInfos(amp::getCpuLoweringOptionInfos());
  static const std::string gpu =
      amp::describeOptionInfos(amp::getGpuLoweringOptionInfos());
  return lowering == AMP_RUNNER_LOWERING_GPU ? gpu.c_str() : cpu.c_str();
}

/// Sets option `name` of `lowering` to `value`; 0, or non-zero with the
/// error of `function`.
static int setLoweringOption(AmpRunnerOptions *options,
                             AmpRunnerLowering lowering, const char *name,
                             const amp::OptionValue &value,
                             StringRef function) {
  if (!getOptions(options, function))
    return 1;
  StringRef option = orDefault(name, "");
  std::string error;
  LogicalResult result = failure();
  if (lowering == AMP_RUNNER_LOWERING_CPU) {
    result = amp::setLoweringOption(options->options.cpu, option, value, error);
    options->cpuLoweringSet |= succeeded(result);
  } else if (lowering == AMP_RUNNER_LOWERING_GPU) {
    result = amp::setLoweringOption(options->options.gpu, option, value, error);
  } else {
    error = "no lowering " + std::to_string(lowering);
  }
  return failed(result) ? fail(error, 1) : 0;
}

int ampRunnerOptionsSetLoweringBool(AmpRunnerOptions *options,
                                    AmpRunnerLowering lowering,
                                    const char *name, int value) {
  return setLoweringOption(options, lowering, name, value != 0,
                           "ampRunnerOptionsSetLoweringBool");
}

int ampRunnerOptionsSetLoweringInt(AmpRunnerOptions *options,
                                   AmpRunnerLowering lowering, const char *name,
                                   int64_t value) {
  return setLoweringOption(options, lowering, name, value,
                           "ampRunnerOptionsSetLoweringInt");
}

int ampRunnerOptionsSetLoweringString(AmpRunnerOptions *options,
                                      AmpRunnerLowering lowering,
                                      const char *name, const char *value) {
  return setLoweringOption(options, lowering, name, orDefault(value, "").str(),
                           "ampRunnerOptionsSetLoweringString");
}

/// The runner's options of `options` (NULL: the defaults), with what no
/// setter could check alone checked. On failure, the message is this
/// thread's last error.
static LogicalResult bindCompileOptions(const AmpRunnerOptions *options,
                                        CompileOptions &compileOptions) {
  static const AmpRunnerOptions defaults;
  if (!options)
    options = &defaults;
  compileOptions = options->options;
  if (options->float8)
    if (llvm::Error error =
            setDtype(amp::kFloat8DtypeSpellings[0], compileOptions))
      return fail(llvm::toString(std::move(error)), failure());
  if (options->cpuLoweringSet && compileOptions.target != Target::Cpu)
    return fail("options of the CPU lowering (--lower-to-cpu) are set, and "
                "target '" +
                    amp::stringifyOptionValue(compileOptions.target) +
                    "' does not read them",
                failure());
  if (!compileOptions.recordRanges.empty() &&
      compileOptions.level != AmpLevel::O0)
    return fail("recordRanges runs the module as written: level O0, not " +
                    amp::stringifyOptionValue(compileOptions.level),
                failure());
  if (compileOptions.target != Target::Cpu &&
      compileOptions.runtimeLibrary.empty()) {
    const char *library = compileOptions.target == Target::Gpu
                              ? "libamp_runtime.so"
                              : "libamp_runtime_gpusim.so";
    compileOptions.runtimeLibrary = defaultRuntimeLibrary(library);
    if (compileOptions.runtimeLibrary.empty())
      return fail(std::string("target '") +
                      amp::stringifyOptionValue(compileOptions.target).str() +
                      "' needs the path of " + library +
                      " (the path of libAmpRunnerCAPI is unknown)",
                  failure());
  }
  // CPU code that calls the runtime (amp.all_reduce) binds to the
  // libamp_runtime.so next to this library: the one Python's ctypes loads.
  if (compileOptions.target == Target::Cpu &&
      compileOptions.runtimeLibrary.empty())
    compileOptions.runtimeLibrary = defaultRuntimeLibrary("libamp_runtime.so");
  return success();
}

/// "file:line:col" of `location`, or its printed form.
static std::string formatLocation(Location location) {
  if (auto file = location->findInstanceOf<FileLineColLoc>())
    return (file.getFilename().getValue() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn()))
        .str();
  std::string text;
  llvm::raw_string_ostream os(text);
  os << location;
  return text;
}

int ampRunnerCheckOptions(AmpRunnerModule *module,
                          const AmpRunnerOptions *options) {
  if (!module)
    return fail("ampRunnerCheckOptions: no module", 1);
  CompileOptions compileOptions;
  if (failed(bindCompileOptions(options, compileOptions)))
    return 1;
  // O0 runs no AMP pipeline: its options are not read.
  if (compileOptions.level == AmpLevel::O0)
    return 0;
  // Errors are located at the module, as the pipeline reports them.
  std::string where = formatLocation(module->module->getLoc());
  amp::AmpOptions ampOptions;
  std::string error;
  if (failed(amp::bindAmpOptions(compileOptions.ampOptions,
                                 compileOptions.level, ampOptions, error)))
    return fail(Twine(where) + ": error: amp: " + StringRef(error).trim(), 1);
  // What needs the module's context: the policy file, the op names.
  std::string message;
  {
    ScopedDiagnosticHandler handler(
        module->context.get(), [&](Diagnostic &diagnostic) {
          if (message.empty())
            message = formatLocation(diagnostic.getLocation()) +
                      ": error: " + diagnostic.str();
          return success();
        });
    if (failed(amp::checkAmpPolicy(ampOptions, module->context.get(), [&] {
          return mlir::emitError(module->module->getLoc(), "amp: ");
        })))
      return fail(message, 1);
  }
  return 0;
}

const char *
ampRunnerModuleBuildTrainingSteps(AmpRunnerModule *module,
                                  const AmpRunnerOptions *runnerOptions) {
  lastDiagnostics = "{}";
  if (!module)
    return fail("ampRunnerModuleBuildTrainingSteps: no module", nullptr);
  // The options as the pipeline reads them (the one table), located at the
  // module as the pipeline reports them.
  static const AmpRunnerOptions defaults;
  amp::AmpOptions options;
  std::string error;
  if (failed(amp::bindAmpOptions(
          (runnerOptions ? runnerOptions : &defaults)->options.ampOptions,
          amp::AmpLevel::O2, options, error)))
    return fail(formatLocation(module->module->getLoc()) +
                    ": error: amp: " + StringRef(error).trim(),
                nullptr);
  OwningOpRef<ModuleOp> steps = module->module->clone();
  PassManager pm(module->context.get());
  amp::AmpTrainingPassOptions training;
  training.scaler = options.scaler;
  training.dataParallel = options.dataParallel;
  pm.addPass(amp::createAmpTrainingPass(training));
  std::string errors;
  LogicalResult result = [&] {
    // Errors make the message; warnings and remarks go to the collector.
    DiagnosticCollector collector(module->context.get());
    ScopedDiagnosticHandler errorHandler(
        module->context.get(), [&](Diagnostic &diagnostic) {
          if (diagnostic.getSeverity() != DiagnosticSeverity::Error)
            return failure();
          errors += (errors.empty() ? "" : "\n") +
                    formatLocation(diagnostic.getLocation()) +
                    ": error: " + diagnostic.str();
          for (Diagnostic &note : diagnostic.getNotes())
            errors += "\n" + formatLocation(note.getLocation()) +
                      ": note: " + note.str();
          return success();
        });
    LogicalResult ran = pm.run(*steps);
    lastDiagnostics = collector.toJson(CapturedOutput());
    return ran;
  }();
  if (failed(result))
    return fail(errors.empty() ? "amp-training failed" : errors, nullptr);
  module->trainingSteps.clear();
  llvm::raw_string_ostream os(module->trainingSteps);
  steps->print(os);
  os.flush();
  return module->trainingSteps.c_str();
}

const char *ampRunnerModuleTransform(AmpRunnerModule *module,
                                     const AmpRunnerOptions *options, int lower,
                                     int output) {
  lastDiagnostics = "{}";
  if (!module)
    return fail("ampRunnerModuleTransform: no module", nullptr);
  if (output < AMP_RUNNER_TRANSFORM_MODULE ||
      output > AMP_RUNNER_TRANSFORM_GRAPH)
    return fail("ampRunnerModuleTransform: unknown output " + Twine(output),
                nullptr);
  CompileOptions compileOptions;
  if (failed(bindCompileOptions(options, compileOptions)))
    return nullptr;
  CapturedOutput captured;
  compileOptions.capturedOutput = &captured;
  std::string errors;
  Expected<std::string> result = [&] {
    // Every diagnostic, errors included, goes to the collector.
    DiagnosticCollector collector(module->context.get());
    Expected<std::string> text =
        transformModule(*module->module, compileOptions, lower != 0,
                        static_cast<TransformOutput>(output));
    lastDiagnostics = collector.toJson(captured);
    errors = collector.getErrorText();
    return text;
  }();
  if (!result)
    return fail(llvm::toString(result.takeError()) + errors, nullptr);
  module->transformed = std::move(*result);
  return module->transformed.c_str();
}

AmpRunnerExecutable *ampRunnerCompile(AmpRunnerModule *module,
                                      const char *entry,
                                      const AmpRunnerOptions *options) {
  AmpRunnerExecutable *executable = nullptr;
  if (ampRunnerCompileFunctions(module, entry, /*others=*/0, options,
                                &executable, 1) < 0)
    return nullptr;
  return executable;
}

/// ampRunnerModuleGetLastTiming's JSON of `timing`.
static std::string timingToJson(const CompileTiming &timing) {
  llvm::json::Array stages;
  for (const CompileTiming::Stage &stage : timing.stages)
    stages.push_back(llvm::json::Object{{"name", stage.name},
                                        {"seconds", stage.seconds},
                                        {"cpu_seconds", stage.cpuSeconds}});
  llvm::json::Object object{
      {"stages", std::move(stages)},
      {"llvm_opt_level", static_cast<int64_t>(timing.llvmOptLevel)},
      {"largest_function", static_cast<int64_t>(timing.largestFunction)},
      {"detached_constants", static_cast<int64_t>(timing.detachedConstants)},
      {"detached_bytes", static_cast<int64_t>(timing.detachedBytes)},
      {"pass_report", timing.passReport}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(object));
  return text;
}

const char *ampRunnerModuleGetLastTiming(AmpRunnerModule *module) {
  return module ? module->lastTiming.c_str() : nullptr;
}

int64_t ampRunnerCompileFunctions(AmpRunnerModule *module, const char *entry,
                                  int others, const AmpRunnerOptions *options,
                                  AmpRunnerExecutable **executables,
                                  int64_t capacity) {
  lastDiagnostics = "{}";
  if (!module)
    return fail("ampRunnerCompile: no module", -1);
  if (!executables || capacity < 1)
    return fail("ampRunnerCompileFunctions: no room for an executable", -1);
  CompileOptions compileOptions;
  if (failed(bindCompileOptions(options, compileOptions)))
    return -1;
  CompileTiming timing;
  timing.passes = options && options->timePasses;
  timing.stages.push_back(
      {"parse", module->parseSeconds, module->parseCpuSeconds});
  compileOptions.timing = &timing;
  module->lastTiming = "{}";

  // `entry` first (its errors are the call's), then the others that can be
  // compiled.
  Expected<Signature> signature =
      getEntrySignature(*module->module, orDefault(entry, ""), "the module");
  SmallVector<std::string> entries;
  if (signature)
    entries.push_back(signature->name);
  else
    llvm::consumeError(signature.takeError());
  if (signature && others)
    for (std::string &name :
         getCompilableFunctions(*module->module, compileOptions))
      if (name != signature->name &&
          static_cast<int64_t>(entries.size()) < capacity)
        entries.push_back(std::move(name));

  // Warnings, remarks and reports go to ampRunnerGetLastDiagnostics(), not
  // to stderr.
  CapturedOutput captured;
  compileOptions.capturedOutput = &captured;
  llvm::Expected<SmallVector<std::unique_ptr<Executable>>> compiled = [&] {
    DiagnosticCollector collector(module->context.get());
    llvm::Expected<SmallVector<std::unique_ptr<Executable>>> result =
        signature
            ? Executable::compileAll(*module->module, entries, compileOptions)
            : [&]()
        -> llvm::Expected<SmallVector<std::unique_ptr<Executable>>> {
      // The error of the entry, as compile() gives it.
      auto one = Executable::compile(*module->module, orDefault(entry, ""),
                                     compileOptions);
      if (!one)
        return one.takeError();
      SmallVector<std::unique_ptr<Executable>> list;
      list.push_back(std::move(*one));
      return std::move(list);
    }();
    lastDiagnostics = collector.toJson(captured);
    return result;
  }();
  if (!compiled)
    return fail(llvm::toString(compiled.takeError()), -1);
  module->lastTiming = timingToJson(timing);
  int64_t count = 0;
  for (std::unique_ptr<Executable> &executable : *compiled) {
    auto result = std::make_unique<AmpRunnerExecutable>();
    result->executable = std::move(executable);
    executables[count++] = result.release();
  }
  return count;
}

void ampRunnerExecutableDestroy(AmpRunnerExecutable *exe) { delete exe; }

//===----------------------------------------------------------------------===//
// Signatures
//===----------------------------------------------------------------------===//

const char *ampRunnerGetName(AmpRunnerExecutable *exe) {
  return exe ? exe->executable->getSignature().name.c_str() : nullptr;
}

const char *ampRunnerGetLowPrecisionType(AmpRunnerExecutable *exe) {
  if (!exe)
    return nullptr;
  exe->lowPrecisionType = exe->executable->getLowPrecisionType().str();
  return exe->lowPrecisionType.c_str();
}

int64_t ampRunnerGetNumArguments(AmpRunnerExecutable *exe) {
  return exe ? exe->executable->getSignature().arguments.size() : 0;
}

int64_t ampRunnerGetNumResults(AmpRunnerExecutable *exe) {
  return exe ? exe->executable->getSignature().results.size() : 0;
}

static int32_t toCElementType(ElementKind kind) {
  switch (kind) {
  case ElementKind::F32:
    return AMP_RUNNER_F32;
  case ElementKind::F16:
    return AMP_RUNNER_F16;
  case ElementKind::BF16:
    return AMP_RUNNER_BF16;
  case ElementKind::F64:
    return AMP_RUNNER_F64;
  case ElementKind::I32:
    return AMP_RUNNER_I32;
  case ElementKind::I64:
    return AMP_RUNNER_I64;
  case ElementKind::I1:
    return AMP_RUNNER_I1;
  }
  return -1;
}

int ampRunnerGetTensorType(AmpRunnerExecutable *exe, int isResult,
                           int64_t index, int32_t *elementType, int64_t *rank,
                           const int64_t **shape) {
  if (!exe)
    return fail("ampRunnerGetTensorType: no executable", 1);
  const Signature &signature = exe->executable->getSignature();
  ArrayRef<TensorSpec> types =
      isResult ? ArrayRef(signature.results) : ArrayRef(signature.arguments);
  if (index < 0 || index >= static_cast<int64_t>(types.size()))
    return fail(llvm::Twine(isResult ? "result" : "argument") + " #" +
                    llvm::Twine(index) + " out of range",
                1);
  const TensorSpec &type = types[index];
  if (elementType)
    *elementType = toCElementType(type.element);
  if (rank)
    *rank = type.shape.size();
  if (shape)
    *shape = type.shape.data();
  return 0;
}

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

/// The caller's buffer of argument `index` as a host tensor of the argument
/// type (borrowed: nothing is copied), of shape `shapes[index]` (`shapes`
/// NULL: the declared one, which must be static).
static llvm::Expected<HostTensor> borrowInput(const Signature &signature,
                                              size_t index,
                                              const void *const *inputs,
                                              const int64_t *const *shapes) {
  const TensorSpec &declared = signature.arguments[index];
  TensorSpec type = declared;
  if (shapes) {
    if (!shapes[index])
      return llvm::createStringError("the shape of input #" +
                                     std::to_string(index) + " is NULL");
    type.shape.assign(shapes[index], shapes[index] + declared.shape.size());
  }
  if (!type.hasStaticShape())
    return llvm::createStringError(
        "argument #" + std::to_string(index) + " of '@" + signature.name +
        "' is " + declared.str() +
        ": its shape must be given (dynamic dimensions)");
  if (!declared.accepts(type))
    return llvm::createStringError("argument #" + std::to_string(index) +
                                   " of '@" + signature.name + "' is " +
                                   declared.str() + ", got " + type.str());
  if (type.getByteSize() == 0)
    return HostTensor(type);
  if (!inputs || !inputs[index])
    return llvm::createStringError("input buffer #" + std::to_string(index) +
                                   " is NULL");
  return HostTensor::borrow(type, inputs[index]);
}

/// borrowInput of every argument.
static llvm::Expected<SmallVector<HostTensor>>
borrowInputs(const Signature &signature, const void *const *inputs,
             const int64_t *const *shapes = nullptr) {
  SmallVector<HostTensor> tensors;
  if (!inputs && !signature.arguments.empty())
    return llvm::createStringError("no input buffers");
  for (size_t index = 0; index < signature.arguments.size(); ++index) {
    llvm::Expected<HostTensor> tensor =
        borrowInput(signature, index, inputs, shapes);
    if (!tensor)
      return tensor.takeError();
    tensors.push_back(std::move(*tensor));
  }
  return std::move(tensors);
}

int ampRunnerRun(AmpRunnerExecutable *exe, const void *const *inputs,
                 void *const *outputs) {
  if (!exe)
    return fail("ampRunnerRun: no executable", 1);
  const Signature &signature = exe->executable->getSignature();
  if (!outputs && !signature.results.empty())
    return fail("ampRunnerRun: no output buffers", 1);
  for (auto [index, type] : llvm::enumerate(signature.results))
    if (!type.hasStaticShape())
      return fail("ampRunnerRun: result #" + llvm::Twine(index) + " is " +
                      type.str() + " (dynamic shape): use ampRunnerCall",
                  1);
  for (auto [index, type] : llvm::enumerate(signature.results))
    if (type.getByteSize() > 0 && !outputs[index])
      return fail(
          "ampRunnerRun: output buffer #" + llvm::Twine(index) + " is NULL", 1);
  llvm::Expected<SmallVector<HostTensor>> tensors =
      borrowInputs(signature, inputs);
  if (!tensors)
    return failWith(tensors.takeError());
  llvm::Expected<SmallVector<HostTensor>> results =
      exe->executable->run(*tensors);
  if (!results)
    return failWith(results.takeError());
  for (auto [index, result] : llvm::enumerate(*results))
    if (result.getByteSize() > 0)
      std::memcpy(outputs[index], result.getData(), result.getByteSize());
  return 0;
}

AmpRunnerResults *ampRunnerCall(AmpRunnerExecutable *exe,
                                const void *const *inputs,
                                const int64_t *const *inputShapes) {
  if (!exe)
    return fail("ampRunnerCall: no executable", nullptr);
  return ampRunnerCallDevice(exe, inputs, inputShapes, nullptr, nullptr);
}

/// The arguments of a call with some of them on the device: the host ones
/// taken as in ampRunnerCall (borrowed into `hostTensors`), a device
/// argument's entries of `inputs` and `inputShapes` not read.
static llvm::Expected<SmallVector<CallArgument>>
getCallArguments(const Signature &signature, const void *const *inputs,
                 const int64_t *const *inputShapes,
                 AmpRunnerDeviceTensor *const *deviceInputs,
                 SmallVector<HostTensor> &hostTensors) {
  SmallVector<CallArgument> arguments(signature.arguments.size());
  for (size_t index = 0; index < signature.arguments.size(); ++index) {
    if (deviceInputs && deviceInputs[index]) {
      arguments[index].device = deviceInputs[index]->tensor;
      continue;
    }
    llvm::Expected<HostTensor> tensor =
        borrowInput(signature, index, inputs, inputShapes);
    if (!tensor)
      return tensor.takeError();
    hostTensors.push_back(std::move(*tensor));
  }
  // The pointers into hostTensors, now that it has stopped growing.
  for (size_t index = 0, host = 0; index < signature.arguments.size(); ++index)
    if (!arguments[index].device)
      arguments[index].host = &hostTensors[host++];
  return std::move(arguments);
}

AmpRunnerResults *
ampRunnerCallDevice(AmpRunnerExecutable *exe, const void *const *inputs,
                    const int64_t *const *inputShapes,
                    AmpRunnerDeviceTensor *const *deviceInputs,
                    const int32_t *keep) {
  if (!exe)
    return fail("ampRunnerCallDevice: no executable", nullptr);
  const Signature &signature = exe->executable->getSignature();
  SmallVector<HostTensor> hostTensors;
  llvm::Expected<SmallVector<CallArgument>> arguments = getCallArguments(
      signature, inputs, inputShapes, deviceInputs, hostTensors);
  if (!arguments)
    return fail(llvm::toString(arguments.takeError()), nullptr);
  SmallVector<bool> flags;
  if (keep)
    for (size_t index = 0; index < signature.results.size(); ++index)
      flags.push_back(keep[index] != 0);
  llvm::Expected<SmallVector<CallResult>> results =
      exe->executable->call(*arguments, flags);
  if (!results)
    return fail(llvm::toString(results.takeError()), nullptr);
  auto result = std::make_unique<AmpRunnerResults>();
  for (CallResult &each : *results) {
    result->tensors.push_back(std::move(each.host));
    result->taken.push_back(false);
    result->devices.push_back(std::move(each.device));
  }
  return result.release();
}

int64_t ampRunnerResultsGetNum(AmpRunnerResults *results) {
  return results ? static_cast<int64_t>(results->tensors.size()) : 0;
}

/// Host result `index` of `results` for the C API call `call`, or null with
/// the error set: out of range, kept on the device, or taken already.
static HostTensor *findHostResult(AmpRunnerResults *results, int64_t index,
                                  const char *call) {
  if (!results)
    return fail(llvm::Twine(call) + ": no results", nullptr);
  if (index < 0 || index >= static_cast<int64_t>(results->tensors.size()))
    return fail("result #" + llvm::Twine(index) + " out of range", nullptr);
  if (index < static_cast<int64_t>(results->devices.size()) &&
      results->devices[index])
    return fail("result #" + llvm::Twine(index) +
                    " was kept on the device: use ampRunnerResultsGetDevice",
                nullptr);
  if (results->taken[index])
    return fail("result #" + llvm::Twine(index) +
                    " was taken already (ampRunnerResultsTake)",
                nullptr);
  return &results->tensors[index];
}

/// Writes the rank, shape and data of `tensor` where the caller asked.
template <typename Data>
static void describe(HostTensor &tensor, int64_t *rank, const int64_t **shape,
                     Data **data) {
  if (rank)
    *rank = tensor.getType().shape.size();
  if (shape)
    *shape = tensor.getType().shape.data();
  if (data)
    *data = tensor.getData();
}

int ampRunnerResultsGet(AmpRunnerResults *results, int64_t index, int64_t *rank,
                        const int64_t **shape, const void **data) {
  HostTensor *tensor = findHostResult(results, index, "ampRunnerResultsGet");
  if (!tensor)
    return 1;
  describe(*tensor, rank, shape, data);
  return 0;
}

AmpRunnerHostBuffer *ampRunnerResultsTake(AmpRunnerResults *results,
                                          int64_t index, int64_t *rank,
                                          const int64_t **shape, void **data) {
  HostTensor *tensor = findHostResult(results, index, "ampRunnerResultsTake");
  if (!tensor)
    return nullptr;
  auto buffer = std::make_unique<AmpRunnerHostBuffer>();
  buffer->tensor = std::move(*tensor);
  results->taken[index] = true;
  describe(buffer->tensor, rank, shape, data);
  return buffer.release();
}

void ampRunnerHostBufferDestroy(AmpRunnerHostBuffer *buffer) { delete buffer; }

int ampRunnerGetHostCopyStats(AmpRunnerExecutable *exe, int64_t *calls,
                              int64_t *inputBytes, int64_t *resultBytes) {
  if (!exe)
    return fail("ampRunnerGetHostCopyStats: no executable", 1);
  HostCopyStats stats = exe->executable->getHostCopyStats();
  if (calls)
    *calls = stats.calls;
  if (inputBytes)
    *inputBytes = stats.inputBytes;
  if (resultBytes)
    *resultBytes = stats.resultBytes;
  return 0;
}

AmpRunnerDeviceTensor *ampRunnerResultsGetDevice(AmpRunnerResults *results,
                                                 int64_t index) {
  if (!results)
    return fail("ampRunnerResultsGetDevice: no results", nullptr);
  if (index < 0 || index >= static_cast<int64_t>(results->tensors.size()))
    return fail("result #" + llvm::Twine(index) + " out of range", nullptr);
  if (index >= static_cast<int64_t>(results->devices.size()) ||
      !results->devices[index])
    return nullptr;
  return new AmpRunnerDeviceTensor{results->devices[index]};
}

int ampRunnerDeviceTensorGetType(AmpRunnerDeviceTensor *tensor,
                                 int32_t *elementType, int64_t *rank,
                                 const int64_t **shape) {
  if (!tensor)
    return fail("ampRunnerDeviceTensorGetType: no tensor", 1);
  const TensorSpec &type = tensor->tensor.getType();
  if (elementType)
    *elementType = static_cast<int32_t>(toCElementType(type.element));
  if (rank)
    *rank = type.shape.size();
  if (shape)
    *shape = type.shape.data();
  return 0;
}

int ampRunnerDeviceTensorRead(AmpRunnerDeviceTensor *tensor, void *data) {
  if (!tensor)
    return fail("ampRunnerDeviceTensorRead: no tensor", 1);
  llvm::Expected<HostTensor> host = tensor->tensor.download();
  if (!host)
    return failWith(host.takeError());
  if (host->getByteSize() > 0) {
    if (!data)
      return fail("ampRunnerDeviceTensorRead: no buffer", 1);
    std::memcpy(data, host->getData(), host->getByteSize());
  }
  return 0;
}

void ampRunnerDeviceTensorDestroy(AmpRunnerDeviceTensor *tensor) {
  delete tensor;
}

void ampRunnerResultsDestroy(AmpRunnerResults *results) { delete results; }

int ampRunnerTime(AmpRunnerExecutable *exe, const void *const *inputs,
                  int64_t repeat, double *durations) {
  return ampRunnerTimeShaped(exe, inputs, nullptr, repeat, durations);
}

int ampRunnerTimeShaped(AmpRunnerExecutable *exe, const void *const *inputs,
                        const int64_t *const *inputShapes, int64_t repeat,
                        double *durations) {
  if (!exe)
    return fail("ampRunnerTime: no executable", 1);
  if (repeat < 0 || (repeat > 0 && !durations))
    return fail("ampRunnerTime: repeat must be >= 0 with room for the "
                "durations",
                1);
  llvm::Expected<SmallVector<HostTensor>> tensors =
      borrowInputs(exe->executable->getSignature(), inputs, inputShapes);
  if (!tensors)
    return failWith(tensors.takeError());
  llvm::Expected<SmallVector<double>> times =
      exe->executable->time(*tensors, static_cast<unsigned>(repeat));
  if (!times)
    return failWith(times.takeError());
  for (auto [index, seconds] : llvm::enumerate(*times))
    durations[index] = seconds;
  return 0;
}

AmpRunnerCapturedCall *
ampRunnerCapture(AmpRunnerExecutable *exe, const void *const *inputs,
                 const int64_t *const *inputShapes,
                 AmpRunnerDeviceTensor *const *deviceInputs,
                 const int64_t *feedback) {
  if (!exe)
    return fail("ampRunnerCapture: no executable", nullptr);
  const Signature &signature = exe->executable->getSignature();
  SmallVector<HostTensor> hostTensors;
  llvm::Expected<SmallVector<CallArgument>> arguments = getCallArguments(
      signature, inputs, inputShapes, deviceInputs, hostTensors);
  if (!arguments)
    return fail(llvm::toString(arguments.takeError()), nullptr);
  SmallVector<int64_t> fed;
  if (feedback)
    fed.assign(feedback, feedback + signature.results.size());
  llvm::Expected<std::unique_ptr<CapturedCall>> captured =
      exe->executable->capture(*arguments, fed);
  if (!captured)
    return fail(llvm::toString(captured.takeError()), nullptr);
  return new AmpRunnerCapturedCall{std::move(*captured)};
}

int ampRunnerReplay(AmpRunnerCapturedCall *call, const void *const *inputs,
                    const int64_t *const *inputShapes,
                    AmpRunnerDeviceTensor *const *deviceInputs) {
  if (!call)
    return fail("ampRunnerReplay: no captured call", 1);
  size_t count = call->call->getNumArguments();
  SmallVector<CallArgument> arguments(count);
  SmallVector<HostTensor> hostTensors;
  hostTensors.reserve(count);
  for (size_t index = 0; index < count; ++index) {
    if (deviceInputs && deviceInputs[index]) {
      arguments[index].device = deviceInputs[index]->tensor;
    } else if (inputs && inputs[index]) {
      TensorSpec type = call->call->getArgument(index).getType();
      if (inputShapes && inputShapes[index])
        type.shape.assign(inputShapes[index],
                          inputShapes[index] + type.shape.size());
      hostTensors.push_back(HostTensor::borrow(type, inputs[index]));
      arguments[index].host = &hostTensors.back();
    }
  }
  if (llvm::Error error = call->call->replay(arguments))
    return fail(llvm::toString(std::move(error)), 1);
  return 0;
}

/// Argument or result `index` of `call` (`what`), as a new handle.
static AmpRunnerDeviceTensor *getCapturedTensor(AmpRunnerCapturedCall *call,
                                                int64_t index, bool result) {
  const char *what = result ? "result" : "argument";
  if (!call)
    return fail(llvm::Twine("ampRunnerCaptured") +
                    (result ? "Result" : "Argument") + ": no captured call",
                nullptr);
  size_t count =
      result ? call->call->getNumResults() : call->call->getNumArguments();
  if (index < 0 || index >= static_cast<int64_t>(count))
    return fail(llvm::Twine(what) + " #" + llvm::Twine(index) + " out of range",
                nullptr);
  return new AmpRunnerDeviceTensor{result ? call->call->getResult(index)
                                          : call->call->getArgument(index)};
}

AmpRunnerDeviceTensor *ampRunnerCapturedArgument(AmpRunnerCapturedCall *call,
                                                 int64_t index) {
  return getCapturedTensor(call, index, /*result=*/false);
}

AmpRunnerDeviceTensor *ampRunnerCapturedResult(AmpRunnerCapturedCall *call,
                                               int64_t index) {
  return getCapturedTensor(call, index, /*result=*/true);
}

void ampRunnerCapturedDestroy(AmpRunnerCapturedCall *call) { delete call; }
