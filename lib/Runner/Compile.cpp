//===- Compile.cpp - AMP level, lowering, JIT -----------------------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "RunnerImpl.h"
#include "amp/Runner/Npy.h"
#include "amp/Runner/Runner.h"
#include "amp/runtime/AmpRuntime.h"

#include "GpuRuntime.h"

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/Transforms/Float8Kernels.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/InitAll.h"
#include "amp/Pipelines/AmpPipelines.h"
#include "amp/Pipelines/LoweringPipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <random>

#include <sys/resource.h>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::runner;
using namespace mlir::amp::runner::detail;
using llvm::Expected;

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

llvm::Error amp::runner::setDtype(StringRef dtype, CompileOptions &options) {
  if (amp::isFloat8Dtype(dtype)) {
    options.dtype.reset();
    options.ampOptions.dtype = amp::kFloat8DtypeSpellings[0].str();
    return llvm::Error::success();
  }
  std::optional<amp::Precision> precision = amp::parseLowPrecision(dtype);
  if (!precision)
    return makeError(amp::getUnknownDtypeMessage(dtype));
  options.dtype = precision;
  return llvm::Error::success();
}

llvm::Error amp::runner::checkGpuRuntime(StringRef path, bool openDevice) {
  Expected<GpuRuntime *> runtime = GpuRuntime::load(path, openDevice);
  if (!runtime)
    return runtime.takeError();
  return llvm::Error::success();
}

llvm::Expected<int32_t> amp::runner::getCollectiveRank(StringRef path) {
  Expected<HostRuntime *> runtime = HostRuntime::load(path);
  if (!runtime)
    return runtime.takeError();
  return (*runtime)->getRank();
}

Executable::~Executable() = default;

static void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

namespace {
/// Records the wall time of a stage in CompileOptions::timing, if set, when
/// it goes out of scope or stops.
/// CPU seconds of this process and of the child processes it waited for
/// (ptxas, which gpu-module-to-binary runs for each kernel binary).
static double getCpuSeconds() {
  double seconds = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    struct rusage usage;
    if (getrusage(who, &usage) != 0)
      continue;
    for (const struct timeval &time : {usage.ru_utime, usage.ru_stime})
      seconds += time.tv_sec + time.tv_usec * 1e-6;
  }
  return seconds;
}

class StageTimer {
public:
  StageTimer(CompileTiming *timing, StringRef stage)
      : timing(timing), stage(stage), start(std::chrono::steady_clock::now()),
        cpuStart(getCpuSeconds()) {}
  ~StageTimer() { stop(); }
  void stop() {
    if (!timing)
      return;
    std::chrono::duration<double> seconds =
        std::chrono::steady_clock::now() - start;
    double cpuSeconds = getCpuSeconds() - cpuStart;
    timing->stages.push_back({stage.str(), seconds.count(), cpuSeconds});
    timing = nullptr;
  }

private:
  CompileTiming *timing;
  StringRef stage;
  std::chrono::steady_clock::time_point start;
  double cpuStart;
};

/// MLIR's timing of each pass (-mlir-timing) when CompileTiming::passes is
/// set: one report for the AMP and lowering pipelines, appended to
/// CompileTiming::passReport at destruction.
class PassTiming {
public:
  PassTiming(CompileTiming *timing)
      : timing(timing && timing->passes ? timing : nullptr) {
    if (!this->timing)
      return;
    manager.setEnabled(true);
    manager.setOutput(
        createOutputStrategy(DefaultTimingManager::OutputFormat::Text, stream));
    root.emplace(manager.getRootScope());
  }
  ~PassTiming() {
    if (!timing)
      return;
    for (std::unique_ptr<TimingScope> &scope : scopes)
      scope->stop();
    root->stop();
    manager.print();
    timing->passReport += text;
  }
  /// Times the passes of `pm` under `name`.
  void enable(PassManager &pm, StringRef name) {
    if (!timing)
      return;
    // The previous pipeline's scope ends where this one starts.
    for (std::unique_ptr<TimingScope> &scope : scopes)
      scope->stop();
    scopes.push_back(std::make_unique<TimingScope>(root->nest(name)));
    pm.enableTiming(*scopes.back());
  }

private:
  CompileTiming *timing;
  std::string text;
  llvm::raw_string_ostream stream{text};
  DefaultTimingManager manager;
  std::optional<TimingScope> root;
  std::vector<std::unique_ptr<TimingScope>> scopes;
};
} // namespace

namespace {
/// Output of the AMP pipeline's report and graph stages that goes to
/// temporary files instead of a stream or a caller's file, and is appended
/// to a string after the run (in the pipeline's order).
class OutputCapture {
public:
  /// Points `file` (a report-file= or graph-file= option) at a new
  /// temporary file whose text collect() appends to `destination`.
  template <typename FileOption>
  llvm::Error redirect(FileOption &file, std::string *destination) {
    SmallString<128> path;
    if (std::error_code error =
            llvm::sys::fs::createTemporaryFile("amp-output", "txt", path))
      return makeError("cannot create a temporary file: " + error.message());
    removers.push_back(std::make_unique<llvm::FileRemover>(path));
    file = path.str().str();
    redirected.emplace_back(path.str().str(), destination);
    return llvm::Error::success();
  }

  /// Appends what was written to each file to its destination.
  void collect() {
    for (auto &[path, destination] : redirected)
      if (auto text = llvm::MemoryBuffer::getFile(path))
        *destination += (*text)->getBuffer();
  }

private:
  SmallVector<std::pair<std::string, std::string *>, 3> redirected;
  std::vector<std::unique_ptr<llvm::FileRemover>> removers;
};

/// What the target of a compilation computes from FP8 operands
/// (fp8-kernels=auto): the CPU every contraction (its loops and library
/// widen FP8 exactly); a GPU's libraries, cuBLASLt's FP8 GEMMs from sm_89
/// and no FP8 convolution; a GPU's generated kernels, every contraction.
static amp::Float8Kernels
getTargetFloat8Kernels(const CompileOptions &options) {
  if (options.target == Target::Cpu || !options.gpu.libraries)
    return amp::Float8Kernels::All;
  return amp::hasCublasLtFloat8Gemms(options.gpu.chip.computeCapability)
             ? amp::Float8Kernels::CublasLt
             : amp::Float8Kernels::None;
}

/// The options of the AMP pipeline of a compilation (its ampOptions, with
/// its dtype and rounding when set), bound for its level. An invalid value
/// is an error located at `module`, as the pipeline reports its errors.
Expected<amp::AmpOptions> getAmpOptions(const CompileOptions &options,
                                        ModuleOp module) {
  amp::AmpOptions ampOptions;
  std::string error;
  if (failed(amp::bindAmpOptions(options.ampOptions, options.level, ampOptions,
                                 error))) {
    mlir::emitError(module.getLoc(), "amp: ") << error;
    return makeError("invalid AMP pipeline options");
  }
  // An explicit f16/bf16 wins over a dtype=fp8 of ampOptions.
  if (options.dtype) {
    ampOptions.dtype = options.dtype;
    ampOptions.fp8.reset();
  }
  if (options.rounding)
    ampOptions.rounding = *options.rounding;
  if (ampOptions.fp8 && ampOptions.fp8->kernels == amp::Float8Kernels::Auto)
    ampOptions.fp8->kernels = getTargetFloat8Kernels(options);
  return ampOptions;
}

/// Reports and graphs meant for the standard streams go to the caller's
/// CapturedOutput, if any.
llvm::Error captureStreams(amp::AmpOptions &ampOptions,
                           CapturedOutput *captured, OutputCapture &capture) {
  if (!captured)
    return llvm::Error::success();
  if (ampOptions.report != amp::ReportFormat::None &&
      (ampOptions.reportFile.empty() || ampOptions.reportFile == "-"))
    if (llvm::Error error = capture.redirect(
            ampOptions.reportFile, ampOptions.reportFile.empty()
                                       ? &captured->stderrText
                                       : &captured->stdoutText))
      return error;
  if (ampOptions.graphFile == "-")
    if (llvm::Error error =
            capture.redirect(ampOptions.graphFile, &captured->stdoutText))
      return error;
  return llvm::Error::success();
}
} // namespace

/// The dtype in a label: the option's, or the pipeline's choice.
static std::string getDtypeLabel(const CompileOptions &options) {
  return options.dtype ? amp::stringifyPrecision(*options.dtype).str()
                       : "(policy dtype)";
}

/// What lowerModule refuses before running anything: check-nan-inf
/// options, and forward-backward functions under an AMP level.
static llvm::Error checkCompileOptions(ModuleOp module,
                                       ArrayRef<std::string> entries,
                                       const CompileOptions &options) {
  if (options.checkNanInf != CheckNanInf::Off) {
    if (options.target != Target::Cpu)
      return makeError("check-nan-inf runs on the CPU only (the checks are "
                       "host code); use target cpu");
    // The checks look at each low op's result rounded to the low type: what
    // rounding per-op computes, and what each op would store.
    if (options.rounding == amp::RoundingMode::Once)
      return makeError("check-nan-inf checks every low op's rounded result "
                       "and compiles with rounding per-op; it cannot be "
                       "combined with rounding once");
  }

  // A forward-backward function of the training convention becomes a
  // training step under the AMP pipelines (amp-training), with another
  // signature: that step is what to compile.
  if (options.level != AmpLevel::O0)
    for (const std::string &entry : entries)
      if (auto func = module.lookupSymbol<func::FuncOp>(entry))
        for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
          if (func.getArgAttr(i, amp::AmpDialect::kLossSeedAttrName))
            return makeError(
                "'@" + entry +
                "' is a forward-backward function (its argument #" +
                std::to_string(i) +
                " is the amp.loss_seed): the AMP levels make it a training "
                "step with another signature; compile that step, made by "
                "'amp-opt --amp-training' (Python: amp_mlir.Trainer or "
                "amp_mlir.make_training_step), or run this function at O0");

  return llvm::Error::success();
}

/// The lowering of `options.target` (--lower-to-cpu with options.cpu, or
/// --lower-to-gpu with options.gpu), with options.rounding where it is set.
static llvm::Error buildLowering(OpPassManager &lowering,
                                 const CompileOptions &options) {
  if (options.target == Target::Cpu) {
    amp::CpuLoweringOptions cpu = options.cpu;
    if (options.checkNanInf != CheckNanInf::Off)
      cpu.rounding = RoundingMode::PerOp;
    else if (options.rounding)
      cpu.rounding = options.rounding;
    amp::buildLowerToCpuPipeline(lowering, cpu);
    return llvm::Error::success();
  }
  amp::GpuLoweringOptions gpu = options.gpu;
  gpu.simulate |= options.target == Target::GpuSim;
  if (options.rounding)
    gpu.rounding = options.rounding;
  std::string reason;
  if (failed(amp::verifyGpuLoweringOptions(gpu, reason)))
    return makeError(reason);
  amp::buildLowerToGpuPipeline(lowering, gpu);
  return llvm::Error::success();
}

/// Range calibration: the f32 module, instrumented, its entry
/// `options.recordRanges` returning one more result.
static llvm::Error recordRanges(ModuleOp copy, const CompileOptions &options,
                                LoweredModule &lowered,
                                const ErrorCollector &errors) {
  if (options.level != AmpLevel::O0)
    return makeError("recording ranges runs the module as written: "
                     "level O0, not " +
                     getVariantLabel(options.level, ""));
  auto recorded = llvm::find_if(lowered.entries, [&](const LoweredEntry &e) {
    return e.signature.name == options.recordRanges;
  });
  if (recorded == lowered.entries.end())
    return makeError("recording ranges of '@" + options.recordRanges +
                     "', which is not an entry of this compilation");
  PassManager pm(copy.getContext());
  AmpRecordRangesPassOptions record;
  record.function = options.recordRanges;
  pm.addPass(createAmpRecordRangesPass(record));
  if (failed(pm.run(copy)))
    return makeError("amp-record-ranges failed" + errors.str());
  Expected<Signature> after =
      getEntrySignature(copy, options.recordRanges, "the module");
  if (!after)
    return after.takeError();
  recorded->signature.results = after->results;
  return llvm::Error::success();
}

/// After the level: the signature `entry` is called with. Only
/// arg-precision=low changes the declared one (f32 arguments become the low
/// type), and dtype=fp8 adds the FP8 state of a training step (and its
/// _init): arguments and results {amp.fp8 = ...}, which callers pass and get
/// as they do the loss scaler's. The other arguments keep their declared
/// types (the caller's, where arg-precision=low narrowed them).
static llvm::Error updateEntryAfterLevel(ModuleOp copy, LoweredEntry &entry,
                                         StringRef label) {
  const Signature &declared = entry.signature;
  Expected<Signature> after =
      getEntrySignature(copy, declared.name, "the module");
  if (!after)
    return makeError("after AMP " + label + ": " +
                     llvm::toString(after.takeError()));
  auto narrowed = [&](const TensorSpec &declaredType, const TensorSpec &call) {
    return declaredType == call || (declaredType.element == ElementKind::F32 &&
                                    (call.element == ElementKind::F16 ||
                                     call.element == ElementKind::BF16) &&
                                    declaredType.shape == call.shape);
  };
  auto function = copy.lookupSymbol<func::FuncOp>(declared.name);
  auto isState = [&](DictionaryAttr attrs) {
    return attrs && attrs.get(AmpDialect::kFloat8StateAttrName);
  };
  SmallVector<TensorSpec> arguments, results;
  const TensorSpec *next = declared.arguments.begin();
  bool same = true;
  for (auto [i, spec] : llvm::enumerate(after->arguments)) {
    if (function && isState(function.getArgAttrDict(i))) {
      arguments.push_back(spec);
    } else if (next == declared.arguments.end() || !narrowed(*next, spec)) {
      same = false;
      break;
    } else {
      arguments.push_back(*next++);
    }
  }
  for (auto [i, spec] : llvm::enumerate(after->results))
    if (!function || !isState(function.getResultAttrDict(i)))
      results.push_back(spec);
  if (!same || next != declared.arguments.end() || results != declared.results)
    return makeError("AMP " + label + " changed the signature of '@" +
                     declared.name + "'");
  entry.signature.arguments = std::move(arguments);
  entry.signature.results = after->results;
  entry.callArguments = after->arguments;
  return llvm::Error::success();
}

/// The AMP level of `options` on `copy`, and what it changed of the entries.
static llvm::Error runAmpLevel(ModuleOp copy, const CompileOptions &options,
                               LoweredModule &lowered,
                               const ErrorCollector &errors,
                               PassTiming &passTiming) {
  std::string label = getVariantLabel(options.level, getDtypeLabel(options));
  Expected<AmpOptions> parsedOptions = getAmpOptions(options, copy);
  if (!parsedOptions)
    return makeError(llvm::toString(parsedOptions.takeError()) + errors.str());
  AmpOptions &ampOptions = *parsedOptions;
  // Reports and graphs meant for the standard streams go through temporary
  // files when the caller captures them, in the pipeline's order.
  OutputCapture capture;
  if (llvm::Error error =
          captureStreams(ampOptions, options.capturedOutput, capture))
    return error;
  PassManager pm(copy.getContext(), ModuleOp::getOperationName(),
                 OpPassManager::Nesting::Implicit);
  buildAmpPipeline(pm, ampOptions);
  passTiming.enable(pm, "AMP passes");
  StageTimer timer(options.timing, "AMP passes");
  LogicalResult ran = pm.run(copy);
  timer.stop();
  capture.collect();
  if (failed(ran))
    return makeError("the AMP " + label + " pipeline failed" + errors.str());
  // "O2:bf16": the type the pipeline resolved.
  if (auto applied =
          copy->getAttrOfType<StringAttr>(AmpDialect::kAppliedAttrName))
    lowered.lowPrecisionType = applied.getValue().split(':').second.str();
  for (LoweredEntry &entry : lowered.entries)
    if (llvm::Error error = updateEntryAfterLevel(copy, entry, label))
      return error;
  return llvm::Error::success();
}

/// NaN/Inf checks, after the level, on what it produced.
static llvm::Error addNanInfChecks(ModuleOp copy, const CompileOptions &options,
                                   LoweredModule &lowered,
                                   const ErrorCollector &errors) {
  PassManager pm(copy.getContext());
  AmpCheckNanInfPassOptions checkOptions;
  checkOptions.all = options.checkNanInf == CheckNanInf::All;
  pm.addPass(createAmpCheckNanInfPass(checkOptions));
  StageTimer timer(options.timing, "NaN/Inf checks");
  if (failed(pm.run(copy)))
    return makeError("amp-check-nan-inf failed" + errors.str());
  if (auto sites =
          copy->getAttrOfType<ArrayAttr>(AmpDialect::kNanInfSitesAttrName))
    for (Attribute site : sites)
      lowered.nanInfSites.push_back(cast<StringAttr>(site).getValue().str());
  return llvm::Error::success();
}

Expected<LoweredModule>
amp::runner::lowerModule(ModuleOp module, ArrayRef<std::string> entries,
                         const CompileOptions &options) {
  MLIRContext *context = module->getContext();
  if (entries.empty())
    return makeError("no entry function to lower");
  LoweredModule lowered;
  for (const std::string &entry : entries) {
    Expected<Signature> signature =
        getEntrySignature(module, entry, "the module");
    if (!signature)
      return signature.takeError();
    lowered.entries.push_back({*signature, signature->arguments});
  }

  if (llvm::Error error = checkCompileOptions(module, entries, options))
    return std::move(error);

  DialectRegistry translations;
  registerAllToLLVMIRTranslations(translations);
  context->appendDialectRegistry(translations);

  OwningOpRef<ModuleOp> copy(module.clone());
  ErrorCollector errors(context);
  PassTiming passTiming(options.timing);
  if (!options.recordRanges.empty())
    if (llvm::Error error = recordRanges(*copy, options, lowered, errors))
      return std::move(error);
  if (options.level != AmpLevel::O0)
    if (llvm::Error error =
            runAmpLevel(*copy, options, lowered, errors, passTiming))
      return std::move(error);
  if (options.checkNanInf != CheckNanInf::Off)
    if (llvm::Error error = addNanInfChecks(*copy, options, lowered, errors))
      return std::move(error);

  // Lowering.
  // Implicit nesting, as amp-opt has it: the pipelines add some function
  // passes directly.
  PassManager lowering(context, ModuleOp::getOperationName(),
                       OpPassManager::Nesting::Implicit);
  StringRef targetName = options.target == Target::Cpu   ? "cpu"
                         : options.target == Target::Gpu ? "gpu"
                                                         : "gpu-sim";
  if (llvm::Error error = buildLowering(lowering, options))
    return std::move(error);
  passTiming.enable(lowering, "lowering");
  StageTimer timer(options.timing, "lowering");
  LogicalResult ranLowering = lowering.run(*copy);
  timer.stop();
  if (failed(ranLowering))
    return makeError("lowering to " + targetName + " failed" + errors.str());

  // The functions the lowered code calls but does not define.
  copy->walk([&](LLVM::LLVMFuncOp func) {
    if (func.isExternal())
      lowered.externalFunctions.push_back(func.getName().str());
  });
  lowered.module = std::move(copy);
  return std::move(lowered);
}

Expected<std::string>
amp::runner::transformModule(ModuleOp module, const CompileOptions &options,
                             bool lower, TransformOutput output) {
  MLIRContext *context = module->getContext();
  OwningOpRef<ModuleOp> copy(module.clone());
  // The report or the graph asked for, through a temporary file.
  std::string produced;
  OutputCapture capture;
  if (options.level != AmpLevel::O0) {
    Expected<AmpOptions> parsedOptions = getAmpOptions(options, *copy);
    if (!parsedOptions)
      return parsedOptions.takeError();
    AmpOptions &ampOptions = *parsedOptions;
    if (output == TransformOutput::Report) {
      ampOptions.report = ReportFormat::Json;
      if (llvm::Error error = capture.redirect(ampOptions.reportFile, &produced))
        return std::move(error);
    } else if (output == TransformOutput::Graph) {
      if (llvm::Error error = capture.redirect(ampOptions.graphFile, &produced))
        return std::move(error);
    }
    if (llvm::Error error =
            captureStreams(ampOptions, options.capturedOutput, capture))
      return std::move(error);
    PassManager pm(context, ModuleOp::getOperationName(),
                   OpPassManager::Nesting::Implicit);
    buildAmpPipeline(pm, ampOptions);
    LogicalResult ran = pm.run(*copy);
    capture.collect();
    if (failed(ran))
      return makeError(
          "the AMP " +
          getVariantLabel(options.level, getDtypeLabel(options)) +
          " pipeline failed");
  } else if (output != TransformOutput::Module) {
    // The module as written: the report's or the graph's pass alone.
    PassManager pm(context);
    if (output == TransformOutput::Report) {
      AmpReportPassOptions report;
      report.format = "json";
      if (llvm::Error error = capture.redirect(report.output, &produced))
        return std::move(error);
      pm.addPass(createAmpReportPass(report));
    } else {
      AmpPrecisionGraphPassOptions graph;
      graph.title = "amp-o0";
      if (llvm::Error error = capture.redirect(graph.output, &produced))
        return std::move(error);
      pm.addPass(createAmpPrecisionGraphPass(graph));
    }
    LogicalResult ran = pm.run(*copy);
    capture.collect();
    if (failed(ran))
      return makeError(output == TransformOutput::Report
                           ? "amp-report failed"
                           : "amp-precision-graph failed");
  }

  if (lower) {
    PassManager lowering(context, ModuleOp::getOperationName(),
                         OpPassManager::Nesting::Implicit);
    if (llvm::Error error = buildLowering(lowering, options))
      return std::move(error);
    if (failed(lowering.run(*copy)))
      return makeError(Twine("lowering to ") +
                       (options.target == Target::Cpu   ? "cpu"
                        : options.target == Target::Gpu ? "gpu"
                                                        : "gpu-sim") +
                       " failed");
  }
  if (output != TransformOutput::Module)
    return produced;
  std::string text;
  llvm::raw_string_ostream os(text);
  copy->print(os);
  os << '\n';
  return text;
}

Expected<std::unique_ptr<Executable>>
Executable::compile(ModuleOp module, StringRef entry,
                    const CompileOptions &options) {
  // Checked first, as before: an entry named "" is the module's only
  // function.
  Expected<Signature> signature =
      getEntrySignature(module, entry, "the module");
  if (!signature)
    return signature.takeError();
  Expected<SmallVector<std::unique_ptr<Executable>>> executables =
      compileAll(module, {signature->name}, options);
  if (!executables)
    return executables.takeError();
  return std::move(executables->front());
}

SmallVector<std::string>
amp::runner::getCompilableFunctions(ModuleOp module,
                                    const CompileOptions &options) {
  SmallVector<std::string> names;
  for (StringRef name : getFunctionNames(module)) {
    Expected<Signature> signature =
        getEntrySignature(module, name, "the module");
    if (!signature) {
      llvm::consumeError(signature.takeError());
      continue;
    }
    if (llvm::Error error =
            checkCompileOptions(module, {name.str()}, options)) {
      llvm::consumeError(std::move(error));
      continue;
    }
    names.push_back(name.str());
  }
  return names;
}

/// The GPU runtime of `options.target`: libamp_runtime.so for the GPU, the
/// simulator for gpu-sim, and not the other one.
static Expected<GpuRuntime *> loadGpuRuntime(const CompileOptions &options) {
  Expected<GpuRuntime *> runtime =
      GpuRuntime::load(options.runtimeLibrary, options.openDevice);
  if (!runtime)
    return runtime.takeError();
  if ((options.target == Target::GpuSim) != (*runtime)->isSimulator())
    return makeError(
        "'" + options.runtimeLibrary + "' is " +
        ((*runtime)->isSimulator()
             ? "the GPU simulator, not libamp_runtime.so: use target gpu-sim"
             : "not the GPU simulator (libamp_runtime_gpusim.so) that "
               "target gpu-sim needs"));
  return runtime;
}

/// The JIT's target machine: the host CPU and its features, or the generic
/// CPU of the host triple (options.hostCpuFeatures).
static Expected<std::unique_ptr<llvm::TargetMachine>>
makeJitTargetMachine(const CompileOptions &options) {
  initializeNativeTarget();
  Expected<llvm::orc::JITTargetMachineBuilder> builder =
      options.hostCpuFeatures ? llvm::orc::JITTargetMachineBuilder::detectHost()
                              : llvm::orc::JITTargetMachineBuilder(llvm::Triple(
                                    llvm::sys::getProcessTriple()));
  if (!builder)
    return makeError("cannot target the host: " +
                     llvm::toString(builder.takeError()));
  builder->setCodeGenOptLevel(options.optLevel >= 3
                                  ? llvm::CodeGenOptLevel::Aggressive
                                  : llvm::CodeGenOptLevel::Default);
  Expected<std::unique_ptr<llvm::TargetMachine>> machine =
      builder->createTargetMachine();
  if (!machine)
    return makeError("cannot target the host: " +
                     llvm::toString(machine.takeError()));
  return machine;
}

/// Optimizes `llvmModule` at the level chooseOptLevel picks for its size
/// (and code generation at the same level), recording it in
/// options.timing; LLVM's pass times go to `passTimes` when set.
static llvm::Error optimizeForJit(llvm::Module &llvmModule,
                                  llvm::TargetMachine &targetMachine,
                                  const CompileOptions &options,
                                  llvm::raw_ostream *passTimes) {
  CompileTiming *timing = options.timing;
  StageTimer timer(timing, "LLVM optimization");
  unsigned level =
      chooseOptLevel(llvmModule, options.optLevel, options.largeFunction);
  targetMachine.setOptLevel(level == 0   ? llvm::CodeGenOptLevel::None
                            : level == 1 ? llvm::CodeGenOptLevel::Less
                            : level == 2 ? llvm::CodeGenOptLevel::Default
                                         : llvm::CodeGenOptLevel::Aggressive);
  if (timing) {
    timing->llvmOptLevel = level;
    for (const llvm::Function &function : llvmModule)
      timing->largestFunction = std::max<uint64_t>(
          timing->largestFunction, function.getInstructionCount());
  }
  // A module lowered to level 1 for its size is not unrolled either: the
  // unrolled and interleaved copies of its loops are most of what the code
  // generator then spends (docs/performance.md).
  bool unroll = level == options.optLevel;
  return optimizeModule(llvmModule, level, &targetMachine, unroll, passTimes);
}

/// The runtime of CPU code that calls it (ampAllReduce, its allocator):
/// libamp_runtime.so; null for code that does not.
static Expected<HostRuntime *>
loadCalledHostRuntime(ArrayRef<std::string> externalFunctions,
                      const CompileOptions &options) {
  if (llvm::none_of(externalFunctions, [](StringRef name) {
        return name.starts_with("amp") ||
               name.starts_with("_mlir_memref_to_llvm_");
      }))
    return nullptr;
  Expected<HostRuntime *> host = HostRuntime::load(options.runtimeLibrary);
  if (!host)
    return makeError("the compiled code calls the runtime: " +
                     llvm::toString(host.takeError()));
  return host;
}

/// The global the NaN/Inf checks write the first failing site to.
static Expected<int32_t *> lookupNanInfSite(ExecutionEngine &engine) {
  Expected<void *> site = engine.lookup(kNanInfSiteGlobalName);
  if (!site)
    return makeError(
        "check-nan-inf: no @" + kNanInfSiteGlobalName.str() +
        " in the compiled module: " + llvm::toString(site.takeError()));
  return static_cast<int32_t *>(*site);
}

/// `name` in MLIR's C runner utilities (memrefCopy for copies of strided
/// memrefs such as slices and tensor.pad results, printMemref*), or null.
/// The library is opened once with RTLD_LOCAL, not by the engine's
/// sharedLibPaths: those are opened RTLD_GLOBAL, and LLVM 22's runner
/// utilities link libLLVM and libMLIR, whose symbols would then bind the
/// static constructors of any other LLVM a process loads later (triton's,
/// which torchvision imports, crashed in them).
static void *lookupCRunnerUtils(StringRef name) {
  static void *handle =
      llvm::sys::fs::exists(AMP_MLIR_C_RUNNER_UTILS)
          ? dlopen(AMP_MLIR_C_RUNNER_UTILS, RTLD_NOW | RTLD_LOCAL)
          : nullptr;
  return handle ? dlsym(handle, name.str().c_str()) : nullptr;
}

/// Binds a name to an address in the JIT (null: left unbound).
using SymbolBinder = llvm::function_ref<void(StringRef, const void *)>;

/// Registers in `engine` the symbols `each` binds.
static void registerJitSymbols(ExecutionEngine &engine,
                               llvm::function_ref<void(SymbolBinder)> each) {
  engine.registerSymbols([&](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    each([&](StringRef name, const void *address) {
      if (address)
        symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                   llvm::JITSymbolFlags::Exported};
    });
    return symbols;
  });
}

/// Binds the functions the code calls but does not define to the libraries
/// that define them: the runtimes' (`runtimes`, the first that defines a
/// name) to the library named, not to whatever defines the same name first
/// in the process (the simulator and libamp_runtime export the same
/// mgpu*/ampGpu* names, and a process may hold both); the rest, where
/// MLIR's C runner utilities define them.
static void registerCalledLibraries(ExecutionEngine &engine,
                                    ArrayRef<const RuntimeLibrary *> runtimes,
                                    ArrayRef<std::string> externalFunctions) {
  registerJitSymbols(engine, [&](SymbolBinder bind) {
    for (StringRef name : externalFunctions) {
      void *address = nullptr;
      for (const RuntimeLibrary *runtime : runtimes)
        if (runtime && !address)
          address = runtime->lookup(name);
      bind(name, address ? address : lookupCRunnerUtils(name));
    }
  });
}

Expected<SmallVector<std::unique_ptr<Executable>>>
Executable::compileAll(ModuleOp module, ArrayRef<std::string> entries,
                       const CompileOptions &options) {
  // Checked before the runtime is loaded, as before lowering.
  for (const std::string &entry : entries) {
    Expected<Signature> signature =
        getEntrySignature(module, entry, "the module");
    if (!signature)
      return signature.takeError();
  }

  // The option errors come before the runtime's.
  if (llvm::Error error = checkCompileOptions(module, entries, options))
    return std::move(error);

  // What the executables share: the runtime, the JIT.
  std::unique_ptr<Executable> executable(new Executable());
  executable->target = options.target;
  if (options.target != Target::Cpu) {
    Expected<GpuRuntime *> runtime = loadGpuRuntime(options);
    if (!runtime)
      return runtime.takeError();
    executable->gpu = *runtime;
  }

  Expected<LoweredModule> lowered = lowerModule(module, entries, options);
  if (!lowered)
    return lowered.takeError();
  executable->lowPrecisionType = lowered->lowPrecisionType;
  executable->nanInfSites = lowered->nanInfSites;
  OwningOpRef<ModuleOp> copy = std::move(lowered->module);
  ArrayRef<std::string> externalFunctions = lowered->externalFunctions;
  MLIRContext *context = module->getContext();
  ErrorCollector errors(context);

  // JIT compilation.
  Expected<std::unique_ptr<llvm::TargetMachine>> machine =
      makeJitTargetMachine(options);
  if (!machine)
    return machine.takeError();
  // The engine keeps the target machine alive while the transformer runs.
  llvm::TargetMachine *targetMachine = machine->get();
  CompileTiming *timing = options.timing;
  // The weights stay out of the LLVM module: the JIT binds their
  // declarations to a copy of their bytes (docs/performance.md, "Compile
  // time").
  StageTimer translation(timing, "LLVM IR translation");
  std::shared_ptr<DetachedConstants> constants;
  if (options.detachConstantBytes)
    constants = detachLargeConstants(*copy, options.detachConstantBytes);
  if (timing && constants) {
    timing->detachedConstants = constants->symbols.size();
    timing->detachedBytes = constants->size;
  }
  auto translate = [&](Operation *op, llvm::LLVMContext &llvmContext) {
    std::unique_ptr<llvm::Module> translated =
        translateModuleToLLVMIR(op, llvmContext);
    translation.stop();
    return translated;
  };
  if (options.optLevel > 3)
    return makeError("LLVM optimization level " + Twine(options.optLevel) +
                     " is not 0 to 3");
  std::string llvmPassTimes;
  llvm::raw_string_ostream llvmPassStream(llvmPassTimes);
  auto optimize = [&](llvm::Module *llvmModule) -> llvm::Error {
    return optimizeForJit(*llvmModule, *targetMachine, options,
                          timing && timing->passes ? &llvmPassStream : nullptr);
  };
  // MLIR's C runner utilities (what the lowered code may call besides libc)
  // are bound by name below, not loaded by the engine.
  SmallVector<StringRef, 2> libraries;
  if (executable->gpu)
    libraries.push_back(executable->gpu->getPath());
  if (!executable->gpu) {
    Expected<HostRuntime *> host =
        loadCalledHostRuntime(externalFunctions, options);
    if (!host)
      return host.takeError();
    executable->host = *host;
    if (*host)
      if (void *free = (*host)->lookup("_mlir_memref_to_llvm_free"))
        executable->freeHostBlock = reinterpret_cast<void (*)(void *)>(free);
  }
  ExecutionEngineOptions engineOptions;
  engineOptions.llvmModuleBuilder = translate;
  engineOptions.transformer = optimize;
  engineOptions.sharedLibPaths = libraries;
  engineOptions.enablePerfNotificationListener = false;
  Expected<std::unique_ptr<ExecutionEngine>> engine = ExecutionEngine::create(
      copy->getOperation(), engineOptions, std::move(*machine));
  if (!engine)
    return makeError("JIT compilation failed: " +
                     llvm::toString(engine.takeError()) + errors.str());
  executable->engine = std::move(*engine);
  if (timing && timing->passes)
    timing->passReport += llvmPassTimes;
  // Code generation and linking happen at the first lookup.
  StageTimer machineCode(timing, "machine code");
  registerConversionSymbols(*executable->engine);
  if (constants && !constants->symbols.empty()) {
    registerJitSymbols(*executable->engine, [&](SymbolBinder bind) {
      for (const DetachedConstants::Symbol &symbol : constants->symbols)
        bind(symbol.name, symbol.address);
    });
    executable->constants = constants;
  }
  registerCalledLibraries(*executable->engine,
                          {executable->host, executable->gpu},
                          externalFunctions);
  if (options.checkNanInf != CheckNanInf::Off) {
    Expected<int32_t *> site = lookupNanInfSite(*executable->engine);
    if (!site)
      return site.takeError();
    executable->nanInfSite = *site;
  }
  // The constructors load the kernels on the device.
  if (!executable->gpu || executable->gpu->hasDevice())
    executable->engine->initialize();
  if (executable->gpu)
    if (llvm::Error error = executable->gpu->takeError())
      return std::move(error);

  // One executable per entry, sharing the engine.
  SmallVector<std::unique_ptr<Executable>> executables;
  for (const LoweredEntry &entry : lowered->entries) {
    std::unique_ptr<Executable> one(new Executable(*executable));
    one->signature = entry.signature;
    one->callArguments = entry.callArguments;
    std::string wrapper = "_mlir_ciface_" + one->signature.name;
    Expected<void (*)(void **)> entryPoint = one->engine->lookupPacked(wrapper);
    if (!entryPoint)
      return makeError("JIT compilation failed: no '" + wrapper +
                       "': " + llvm::toString(entryPoint.takeError()));
    one->entryPoint = *entryPoint;
    executables.push_back(std::move(one));
  }
  machineCode.stop();
  return std::move(executables);
}
