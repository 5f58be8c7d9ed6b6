//===- Runner.cpp - compile and run a function under an AMP level ---------===//
//
// Part of amp-mlir. The calling convention is the one --lower-to-cpu's C
// interface gives every function (`llvm.emit_c_interface`):
//
//   void _mlir_ciface_f(R *results, D0 *arg0, D1 *arg1, ...)
//
// where each Dk is a memref descriptor {allocated, aligned, offset,
// sizes[rank], strides[rank]} (pointers and i64, no padding), and R is the
// descriptor of the single result or a struct of the descriptors of several
// results, laid out one after the other; without results there is no R.
// Results are fresh allocations the caller owns (the ownership-based
// deallocation pipeline clones what it does not own before returning it).
// For the GPU, arguments and results hold device pointers.
//
//===----------------------------------------------------------------------===//

#include "amp/Runner/Runner.h"
#include "amp/Runner/Npy.h"
#include "amp/runtime/AmpRuntime.h"

#include "GpuRuntime.h"

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/Pipelines/AmpPipelines.h"
#include "amp/InitAll.h"
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
#include "mlir/Target/LLVMIR/Dialect/All.h"
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
#include "llvm/TargetParser/Host.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <random>

using namespace mlir;
using namespace mlir::amp::runner;
using llvm::Expected;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::optional<Level> amp::runner::parseLevel(StringRef name) {
  std::string lower = name.lower();
  if (lower == "o0")
    return Level::O0;
  if (lower == "o1")
    return Level::O1;
  if (lower == "o2")
    return Level::O2;
  return std::nullopt;
}

std::optional<Target> amp::runner::parseTarget(StringRef name) {
  if (name == "cpu")
    return Target::Cpu;
  if (name == "gpu")
    return Target::Gpu;
  if (name == "gpu-sim")
    return Target::GpuSim;
  return std::nullopt;
}

std::string amp::runner::getVariantLabel(Level level, StringRef dtype) {
  switch (level) {
  case Level::O0:
    return "O0";
  case Level::O1:
    return ("O1 " + dtype).str();
  case Level::O2:
    return ("O2 " + dtype).str();
  }
  return "";
}

//===----------------------------------------------------------------------===//
// Modules and signatures
//===----------------------------------------------------------------------===//

void amp::runner::registerRunnerDialects(DialectRegistry &registry) {
  amp::registerAllDialects(registry);
}

namespace {
/// Collects the error diagnostics emitted while it lives (with their notes),
/// and lets warnings and remarks through to the enclosing handler.
class ErrorCollector {
public:
  ErrorCollector(MLIRContext *context)
      : handler(context, [this](Diagnostic &diagnostic) {
          if (diagnostic.getSeverity() != DiagnosticSeverity::Error)
            return failure();
          append(diagnostic, "error");
          for (Diagnostic &note : diagnostic.getNotes())
            append(note, "note");
          return success();
        }) {}

  /// The collected diagnostics, one per line, each line indented.
  std::string str() const { return text; }

private:
  void append(Diagnostic &diagnostic, StringRef severity) {
    llvm::raw_string_ostream os(text);
    os << "\n  ";
    Location location = diagnostic.getLocation();
    if (auto file = location->findInstanceOf<FileLineColLoc>())
      os << file.getFilename().getValue() << ':' << file.getLine() << ':'
         << file.getColumn() << ": ";
    else if (!isa<UnknownLoc>(location))
      os << location << ": ";
    os << severity << ": " << diagnostic.str();
  }

  std::string text;
  ScopedDiagnosticHandler handler;
};
} // namespace

Expected<OwningOpRef<ModuleOp>> amp::runner::loadModule(StringRef path,
                                                        MLIRContext &context) {
  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &message);
  if (!file)
    return makeError(message);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, os);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return makeError("cannot parse '" + path + "'\n" +
                     StringRef(diagnostics).rtrim());
  return std::move(module);
}

SmallVector<StringRef> amp::runner::getFunctionNames(ModuleOp module) {
  SmallVector<StringRef> names;
  for (auto function : module.getOps<func::FuncOp>())
    names.push_back(function.getSymName());
  return names;
}

static const char kSupportedTypes[] =
    "amp-run needs ranked tensors with f32, f16, bf16, f64, i32, i64 or i1 "
    "elements";

static std::string typeToString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

Expected<Signature> amp::runner::getEntrySignature(ModuleOp module,
                                                   StringRef entry,
                                                   StringRef moduleName) {
  SmallVector<StringRef> names = getFunctionNames(module);
  if (entry.empty()) {
    if (names.size() != 1)
      return makeError("--entry is needed: " + moduleName +
                       (names.empty() ? llvm::Twine(" has no function")
                                      : " has several functions (" +
                                            llvm::join(names, ", ") + ")"));
    entry = names.front();
  }
  auto function = module.lookupSymbol<func::FuncOp>(entry);
  if (!function) {
    std::string available =
        names.empty() ? std::string("none") : llvm::join(names, ", ");
    return makeError("no function '@" + entry + "' in " + moduleName +
                     " (functions: " + available + ")");
  }
  if (function.isDeclaration())
    return makeError("'@" + entry + "' in " + moduleName +
                     " is a declaration, without a body to run");

  Signature signature;
  signature.name = entry.str();
  FunctionType type = function.getFunctionType();
  for (auto [index, argumentType] : llvm::enumerate(type.getInputs())) {
    std::optional<TensorSpec> tensor = getTensorSpec(argumentType);
    if (!tensor)
      return makeError("argument #" + llvm::Twine(index) + " of '@" + entry +
                       "' has type '" + typeToString(argumentType) +
                       "': " + kSupportedTypes);
    signature.arguments.push_back(*tensor);
  }
  for (auto [index, resultType] : llvm::enumerate(type.getResults())) {
    std::optional<TensorSpec> tensor = getTensorSpec(resultType);
    if (!tensor)
      return makeError("result #" + llvm::Twine(index) + " of '@" + entry +
                       "' has type '" + typeToString(resultType) +
                       "': " + kSupportedTypes);
    signature.results.push_back(*tensor);
  }
  return signature;
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

TensorSpec amp::runner::withDynamicSize(const TensorSpec &type,
                                        int64_t dynamicSize) {
  TensorSpec result = type;
  for (int64_t &size : result.shape)
    if (size == TensorSpec::kDynamicDim)
      size = dynamicSize;
  return result;
}

SmallVector<HostTensor>
amp::runner::makeRandomInputs(const Signature &signature, uint64_t seed,
                              int64_t dynamicSize) {
  std::mt19937_64 generator(seed);
  SmallVector<HostTensor> inputs;
  for (const TensorSpec &declared : signature.arguments) {
    TensorSpec type = withDynamicSize(declared, dynamicSize);
    HostTensor tensor(type);
    for (int64_t i = 0, e = tensor.getNumElements(); i < e; ++i) {
      uint64_t bits = generator();
      if (isFloatKind(type.element)) {
        double unit = static_cast<double>(bits >> 11) * 0x1.0p-53;
        double value = 2.0 * unit - 1.0;
        if (type.element != ElementKind::F64)
          value = static_cast<float>(value);
        tensor.setFromDouble(i, value);
      } else {
        tensor.setFromDouble(i, static_cast<double>(bits % 10));
      }
    }
    inputs.push_back(std::move(tensor));
  }
  return inputs;
}

Expected<HostTensor> amp::runner::loadInput(StringRef path,
                                            const Signature &signature,
                                            unsigned index) {
  const TensorSpec &expected = signature.arguments[index];
  std::string what = ("argument #" + llvm::Twine(index) + " of '@" +
                      signature.name + "' is " + expected.str())
                         .str();
  Expected<NpyArray> array = readNpy(path);
  if (!array)
    return makeError(llvm::toString(array.takeError()) + " (" + what + ")");

  // The descriptors accepted for this argument.
  SmallVector<StringRef, 2> accepted;
  if (std::optional<StringRef> descr = getNpyDescr(expected.element))
    accepted.push_back(*descr);
  if (expected.element == ElementKind::F16 ||
      expected.element == ElementKind::BF16)
    accepted.push_back("<f4");
  std::string acceptedText;
  for (StringRef descr : accepted)
    acceptedText += (acceptedText.empty() ? "'" : " or '") + descr.str() +
                    "' (" + describeNpyDescr(descr) + ")";

  std::optional<ElementKind> kind = array->getElementKind();
  bool dtypeOk = llvm::is_contained(accepted, array->descr);
  // The call's type: the file's shape where the signature has `?`.
  TensorSpec given{expected.element, array->shape};
  bool shapeOk = expected.accepts(given);
  if (!dtypeOk || !shapeOk) {
    std::string found = "found shape " + formatNpyShape(array->shape) +
                        " and dtype '" + array->descr + "' (" +
                        describeNpyDescr(array->descr) + ")";
    std::string message = path.str() + ": " + what + ", " + found;
    if (!dtypeOk)
      message += "; the dtype must be " + acceptedText;
    if (!dtypeOk && kind && isFloatKind(*kind) &&
        expected.element != ElementKind::F64 && *kind == ElementKind::F64)
      message += " (amp-run does not narrow float64 silently: convert with "
                 "astype(numpy.float32))";
    return makeError(message);
  }

  HostTensor tensor(given);
  if (*kind == expected.element) {
    std::memcpy(tensor.getData(), array->data.data(), tensor.getByteSize());
  } else {
    // '<f4' for an f16/bf16 argument: round to nearest even.
    const char *data = array->data.data();
    for (int64_t i = 0, e = tensor.getNumElements(); i < e; ++i) {
      float value;
      std::memcpy(&value, data + i * sizeof(float), sizeof(float));
      tensor.setFromDouble(i, value);
    }
  }
  return std::move(tensor);
}

Expected<SmallVector<HostTensor>>
amp::runner::loadInputs(ArrayRef<std::string> paths,
                        const Signature &signature) {
  if (paths.size() != signature.arguments.size()) {
    std::string types;
    for (const TensorSpec &type : signature.arguments)
      types += (types.empty() ? "" : ", ") + type.str();
    return makeError(
        "'@" + signature.name + "' takes " +
        llvm::Twine(signature.arguments.size()) + " argument" +
        (signature.arguments.size() == 1 ? "" : "s") + " (" +
        (types.empty() ? std::string("none") : types) +
        ") but --inputs gives " + llvm::Twine(paths.size()) + " file" +
        (paths.size() == 1 ? "" : "s") +
        (paths.empty() ? "" : " (" + llvm::join(paths, ", ") + ")"));
  }
  SmallVector<HostTensor> inputs;
  for (auto [index, path] : llvm::enumerate(paths)) {
    Expected<HostTensor> tensor = loadInput(path, signature, index);
    if (!tensor)
      return tensor.takeError();
    inputs.push_back(std::move(*tensor));
  }
  return std::move(inputs);
}

//===----------------------------------------------------------------------===//
// Conversion routines for JIT code
//===----------------------------------------------------------------------===//
//
// Without F16C / AVX-512 BF16 (or with --jit-cpu=generic), LLVM lowers
// conversions to f16/bf16 to libgcc/compiler-rt calls. libgcc_s has the f16
// ones since GCC 12 but the bf16 ones only since GCC 13, so amp-run defines
// them all, exactly, for the JIT. On x86-64 and AArch64, a half/bfloat
// argument or result travels in the low 16 bits of the first vector register,
// as a float does in its low 32 bits: a float whose low 16 bits are the value
// is passed the same way.

#if defined(__x86_64__) || defined(__aarch64__)
#define AMP_RUN_HAVE_CONVERSION_SYMBOLS 1

static float packHalfBits(uint16_t bits) {
  uint32_t word = bits;
  float result;
  std::memcpy(&result, &word, sizeof(result));
  return result;
}

static uint16_t unpackHalfBits(float packed) {
  uint32_t word;
  std::memcpy(&word, &packed, sizeof(word));
  return static_cast<uint16_t>(word & 0xffff);
}

static uint16_t roundDouble(double value, const llvm::fltSemantics &semantics) {
  llvm::APFloat number(value);
  bool losesInfo;
  number.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return static_cast<uint16_t>(number.bitcastToAPInt().getZExtValue());
}

static float ampRunTruncSfHf2(float value) {
  return packHalfBits(ampF32ToF16(value));
}
static float ampRunTruncDfHf2(double value) {
  return packHalfBits(roundDouble(value, llvm::APFloat::IEEEhalf()));
}
static float ampRunExtendHfSf2(float packed) {
  return ampF16ToF32(unpackHalfBits(packed));
}
static double ampRunExtendHfDf2(float packed) {
  return ampF16ToF32(unpackHalfBits(packed));
}
static float ampRunTruncSfBf2(float value) {
  return packHalfBits(ampF32ToBF16(value));
}
static float ampRunTruncDfBf2(double value) {
  return packHalfBits(roundDouble(value, llvm::APFloat::BFloat()));
}
#endif

static void registerConversionSymbols(ExecutionEngine &engine) {
#ifdef AMP_RUN_HAVE_CONVERSION_SYMBOLS
  engine.registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    auto add = [&](StringRef name, auto *function) {
      symbols[interner(name)] = {
          llvm::orc::ExecutorAddr::fromPtr(reinterpret_cast<void *>(function)),
          llvm::JITSymbolFlags::Exported};
    };
    add("__truncsfhf2", &ampRunTruncSfHf2);
    add("__truncdfhf2", &ampRunTruncDfHf2);
    add("__extendhfsf2", &ampRunExtendHfSf2);
    add("__extendhfdf2", &ampRunExtendHfDf2);
    add("__gnu_h2f_ieee", &ampRunExtendHfSf2);
    add("__gnu_f2h_ieee", &ampRunTruncSfHf2);
    add("__truncsfbf2", &ampRunTruncSfBf2);
    add("__truncdfbf2", &ampRunTruncDfBf2);
    return symbols;
  });
#else
  (void)engine;
#endif
}

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

llvm::Error amp::runner::checkGpuRuntime(StringRef path) {
  Expected<GpuRuntime *> runtime = GpuRuntime::load(path);
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

/// What lowerModule refuses before running anything: check-nan-inf
/// options, and forward-backward functions under an AMP level.
static llvm::Error checkCompileOptions(ModuleOp module,
                                       ArrayRef<std::string> entries,
                                       const CompileOptions &options) {
  if (!options.checkNanInf.empty()) {
    if (options.checkNanInf != "low" && options.checkNanInf != "all")
      return makeError("check-nan-inf must be low or all, not '" +
                       options.checkNanInf + "'");
    if (options.target != Target::Cpu)
      return makeError("check-nan-inf runs on the CPU only (the checks are "
                       "host code); use target cpu");
    // The checks look at each low op's result rounded to the low type: what
    // rounding per-op computes, and what each op would store.
    if (options.rounding == "once")
      return makeError("check-nan-inf checks every low op's rounded result "
                       "and compiles with rounding per-op; it cannot be "
                       "combined with rounding once");
  }

  // A forward-backward function of the training convention becomes a
  // training step under the AMP pipelines (amp-training), with another
  // signature: that step is what to compile.
  if (options.level != Level::O0)
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
  // The AMP level.
  if (options.level != Level::O0) {
    std::string label =
        getVariantLabel(options.level, options.dtype.empty() ? "(policy dtype)"
                                                             : options.dtype);
    std::unique_ptr<AmpPipelineOptions> ampOptions =
        AmpPipelineOptions::createFromString(options.ampOptions);
    if (!ampOptions)
      return makeError("invalid AMP pipeline options '" + options.ampOptions +
                       "'");
    if (!options.dtype.empty())
      ampOptions->dtype = options.dtype;
    if (!options.rounding.empty())
      ampOptions->rounding = options.rounding;
    // Reports and graphs meant for the standard streams go through temporary
    // files when the caller captures them, in the pipeline's order.
    SmallVector<std::pair<std::string, std::string *>, 3> redirected;
    std::vector<std::unique_ptr<llvm::FileRemover>> removers;
    auto redirect = [&](decltype(ampOptions->reportFile) &file,
                        std::string *destination) -> llvm::Error {
      SmallString<128> path;
      if (std::error_code error =
              llvm::sys::fs::createTemporaryFile("amp-output", "txt", path))
        return makeError("cannot create a temporary file: " + error.message());
      removers.push_back(std::make_unique<llvm::FileRemover>(path));
      file = path.str().str();
      redirected.emplace_back(path.str().str(), destination);
      return llvm::Error::success();
    };
    if (CapturedOutput *captured = options.capturedOutput) {
      if (ampOptions->report != "none" &&
          (ampOptions->reportFile.empty() || ampOptions->reportFile == "-"))
        if (llvm::Error error =
                redirect(ampOptions->reportFile, ampOptions->reportFile.empty()
                                                     ? &captured->stderrText
                                                     : &captured->stdoutText))
          return std::move(error);
      if (ampOptions->graphFile == "-")
        if (llvm::Error error =
                redirect(ampOptions->graphFile, &captured->stdoutText))
          return std::move(error);
    }
    PassManager pm(context, ModuleOp::getOperationName(),
                   OpPassManager::Nesting::Implicit);
    buildAmpPipeline(pm,
                     options.level == Level::O1 ? AmpLevel::O1 : AmpLevel::O2,
                     *ampOptions);
    LogicalResult ran = pm.run(*copy);
    for (auto &[path, destination] : redirected)
      if (auto text = llvm::MemoryBuffer::getFile(path))
        *destination += (*text)->getBuffer();
    if (failed(ran))
      return makeError("the AMP " + label + " pipeline failed" + errors.str());
    // "O2:bf16": the type the pipeline resolved.
    if (auto applied =
            (*copy)->getAttrOfType<StringAttr>(AmpDialect::kAppliedAttrName))
      lowered.lowPrecisionType = applied.getValue().split(':').second.str();
    for (LoweredEntry &lowEntry : lowered.entries) {
      const Signature &declared = lowEntry.signature;
      Expected<Signature> after =
          getEntrySignature(*copy, declared.name, "the module");
      if (!after)
        return makeError("after AMP " + label + ": " +
                         llvm::toString(after.takeError()));
      // Only arg-precision=low changes it: f32 arguments become the low
      // type.
      auto narrowed = [&](const TensorSpec &declaredType,
                          const TensorSpec &call) {
        return declaredType == call ||
               (declaredType.element == ElementKind::F32 &&
                (call.element == ElementKind::F16 ||
                 call.element == ElementKind::BF16) &&
                declaredType.shape == call.shape);
      };
      if (after->arguments.size() != declared.arguments.size() ||
          !llvm::all_of(llvm::zip(declared.arguments, after->arguments),
                        [&](auto pair) {
                          return narrowed(std::get<0>(pair), std::get<1>(pair));
                        }) ||
          after->results != declared.results)
        return makeError("AMP " + label + " changed the signature of '@" +
                         declared.name + "'");
      lowEntry.callArguments = after->arguments;
    }
  }

  // NaN/Inf checks, after the level, on what it produced.
  if (!options.checkNanInf.empty()) {
    PassManager pm(context);
    AmpCheckNanInfPassOptions checkOptions;
    checkOptions.all = options.checkNanInf == "all";
    pm.addPass(createAmpCheckNanInfPass(checkOptions));
    if (failed(pm.run(*copy)))
      return makeError("amp-check-nan-inf failed" + errors.str());
    if (auto sites =
            (*copy)->getAttrOfType<ArrayAttr>(AmpDialect::kNanInfSitesAttrName))
      for (Attribute site : sites)
        lowered.nanInfSites.push_back(cast<StringAttr>(site).getValue().str());
  }

  // Lowering.
  // Implicit nesting, as amp-opt has it: the pipelines add some function
  // passes directly.
  PassManager lowering(context, ModuleOp::getOperationName(),
                       OpPassManager::Nesting::Implicit);
  StringRef targetName = options.target == Target::Cpu   ? "cpu"
                         : options.target == Target::Gpu ? "gpu"
                                                         : "gpu-sim";
  if (options.target == Target::Cpu) {
    LowerToCpuOptions cpuOptions;
    cpuOptions.rounding =
        options.checkNanInf.empty() ? options.rounding : "per-op";
    buildLowerToCpuPipeline(lowering, cpuOptions);
  } else {
    std::unique_ptr<LowerToGpuOptions> gpuOptions =
        LowerToGpuOptions::createFromString(options.gpuOptions);
    if (!gpuOptions)
      return makeError("invalid GPU lowering options '" + options.gpuOptions +
                       "'");
    std::string reason;
    if (options.target == Target::GpuSim)
      gpuOptions->simulate = true;
    if (!options.rounding.empty())
      gpuOptions->rounding = options.rounding;
    if (failed(verifyLowerToGpuOptions(*gpuOptions, reason)))
      return makeError(reason);
    buildLowerToGpuPipeline(lowering, *gpuOptions);
  }
  if (failed(lowering.run(*copy)))
    return makeError("lowering to " + targetName + " failed" + errors.str());

  // The functions the lowered code calls but does not define.
  copy->walk([&](LLVM::LLVMFuncOp func) {
    if (func.isExternal())
      lowered.externalFunctions.push_back(func.getName().str());
  });
  lowered.module = std::move(copy);
  return std::move(lowered);
}

Expected<std::unique_ptr<Executable>>
Executable::compile(ModuleOp module, StringRef entry,
                    const CompileOptions &options) {
  // Checked before the runtime is loaded, as before lowering.
  Expected<Signature> signature =
      getEntrySignature(module, entry, "the module");
  if (!signature)
    return signature.takeError();

  // The option errors come before the runtime's.
  if (llvm::Error error =
          checkCompileOptions(module, {signature->name}, options))
    return std::move(error);

  std::unique_ptr<Executable> executable(new Executable());
  executable->target = options.target;
  if (options.target != Target::Cpu) {
    Expected<GpuRuntime *> runtime = GpuRuntime::load(options.runtimeLibrary);
    if (!runtime)
      return runtime.takeError();
    if ((options.target == Target::GpuSim) != (*runtime)->isSimulator())
      return makeError(
          "'" + options.runtimeLibrary + "' is " +
          ((*runtime)->isSimulator()
               ? "the GPU simulator, not libamp_runtime.so: use target gpu-sim"
               : "not the GPU simulator (libamp_runtime_gpusim.so) that "
                 "target gpu-sim needs"));
    executable->gpu = *runtime;
  }

  Expected<LoweredModule> lowered =
      lowerModule(module, {signature->name}, options);
  if (!lowered)
    return lowered.takeError();
  executable->signature = lowered->entries.front().signature;
  executable->callArguments = lowered->entries.front().callArguments;
  executable->lowPrecisionType = lowered->lowPrecisionType;
  executable->nanInfSites = lowered->nanInfSites;
  OwningOpRef<ModuleOp> copy = std::move(lowered->module);
  ArrayRef<std::string> externalFunctions = lowered->externalFunctions;
  MLIRContext *context = module->getContext();
  ErrorCollector errors(context);

  // JIT compilation.
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
  // The engine keeps the target machine alive while the transformer runs.
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(options.optLevel, /*sizeLevel=*/0,
                                machine->get());
  // MLIR's C runner utilities define what the lowered code may call besides
  // libc: memrefCopy (copies of strided memrefs, e.g. slices and tensor.pad
  // results), printMemref*. The directory is LLVM's, found at configure time.
  SmallVector<StringRef, 2> libraries;
  if (llvm::sys::fs::exists(AMP_MLIR_C_RUNNER_UTILS))
    libraries.push_back(AMP_MLIR_C_RUNNER_UTILS);
  if (executable->gpu)
    libraries.push_back(executable->gpu->getPath());
  // CPU code that calls the runtime (ampAllReduce): libamp_runtime.so.
  if (!executable->gpu && llvm::any_of(externalFunctions, [](StringRef name) {
        return name.starts_with("amp");
      })) {
    Expected<HostRuntime *> host = HostRuntime::load(options.runtimeLibrary);
    if (!host)
      return makeError("the compiled code calls the runtime: " +
                       llvm::toString(host.takeError()));
    executable->host = *host;
  }
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = optimize;
  engineOptions.sharedLibPaths = libraries;
  engineOptions.enablePerfNotificationListener = false;
  Expected<std::unique_ptr<ExecutionEngine>> engine = ExecutionEngine::create(
      copy->getOperation(), engineOptions, std::move(*machine));
  if (!engine)
    return makeError("JIT compilation failed: " +
                     llvm::toString(engine.takeError()) + errors.str());
  executable->engine = std::move(*engine);
  registerConversionSymbols(*executable->engine);
  // The runtime's functions bind to the library named, not to whatever
  // defines the same name first in the process (the simulator and
  // libamp_runtime export the same mgpu*/ampGpu* names, and a process may
  // hold both).
  if (HostRuntime *host = executable->host) {
    executable->engine->registerSymbols(
        [&](llvm::orc::MangleAndInterner interner) {
          llvm::orc::SymbolMap symbols;
          for (StringRef name : externalFunctions)
            if (void *address = host->lookup(name))
              symbols[interner(name)] = {
                  llvm::orc::ExecutorAddr::fromPtr(address),
                  llvm::JITSymbolFlags::Exported};
          return symbols;
        });
  }
  if (executable->gpu) {
    GpuRuntime *gpu = executable->gpu;
    executable->engine->registerSymbols(
        [&](llvm::orc::MangleAndInterner interner) {
          llvm::orc::SymbolMap symbols;
          for (StringRef name : externalFunctions)
            if (void *address = gpu->lookup(name))
              symbols[interner(name)] = {
                  llvm::orc::ExecutorAddr::fromPtr(address),
                  llvm::JITSymbolFlags::Exported};
          return symbols;
        });
  }
  if (!options.checkNanInf.empty()) {
    Expected<void *> site = executable->engine->lookup(kNanInfSiteGlobalName);
    if (!site)
      return makeError(
          "check-nan-inf: no @" + kNanInfSiteGlobalName.str() +
          " in the compiled module: " + llvm::toString(site.takeError()));
    executable->nanInfSite = static_cast<int32_t *>(*site);
  }
  executable->engine->initialize();
  if (executable->gpu)
    if (llvm::Error error = executable->gpu->takeError())
      return std::move(error);

  std::string wrapper = "_mlir_ciface_" + executable->signature.name;
  Expected<void (*)(void **)> entryPoint =
      executable->engine->lookupPacked(wrapper);
  if (!entryPoint)
    return makeError("JIT compilation failed: no '" + wrapper +
                     "': " + llvm::toString(entryPoint.takeError()));
  executable->entryPoint = *entryPoint;
  return std::move(executable);
}

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

/// The words of a memref descriptor of `type` over `pointer`: allocated,
/// aligned, offset, sizes, strides (row-major).
static SmallVector<int64_t> makeDescriptor(void *pointer,
                                           const TensorSpec &type) {
  SmallVector<int64_t> words;
  words.push_back(reinterpret_cast<intptr_t>(pointer));
  words.push_back(reinterpret_cast<intptr_t>(pointer));
  words.push_back(0);
  words.append(type.shape.begin(), type.shape.end());
  SmallVector<int64_t> strides(type.shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(type.shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * type.shape[i + 1];
  words.append(strides.begin(), strides.end());
  return words;
}

static size_t getDescriptorWords(const TensorSpec &type) {
  return 3 + 2 * type.shape.size();
}

struct Executable::CallFrame {
  /// Copies of the inputs (CPU), or the device buffers holding them (GPU).
  SmallVector<HostTensor> hostInputs;
  SmallVector<void *> deviceInputs;
  SmallVector<SmallVector<int64_t>> inputDescriptors;
  SmallVector<void *> inputDescriptorPointers;
  SmallVector<int64_t> resultWords;
  void *resultPointer = nullptr;
  SmallVector<void *> packedArguments;
  /// Target::GpuSim: the live device buffers before the inputs were
  /// uploaded.
  int64_t liveBuffersBefore = 0;
};

llvm::Error Executable::prepare(ArrayRef<HostTensor> inputs, CallFrame &frame) {
  if (gpu && gpu->isSimulator())
    frame.liveBuffersBefore = gpu->getSimulatorStats().liveBuffers;
  if (inputs.size() != signature.arguments.size())
    return makeError("'@" + signature.name + "' takes " +
                     llvm::Twine(signature.arguments.size()) +
                     " arguments, got " + llvm::Twine(inputs.size()));
  for (auto [index, given] : llvm::enumerate(inputs)) {
    const TensorSpec &declared = signature.arguments[index];
    const TensorSpec &callType = callArguments[index];
    if (!declared.accepts(given.getType()) &&
        !callType.accepts(given.getType()))
      return makeError("argument #" + llvm::Twine(index) + " of '@" +
                       signature.name + "' is " + declared.str() + ", got " +
                       given.getType().str());
    // An argument arg-precision=low narrowed, given as declared: rounded to
    // nearest even here.
    TensorSpec type{callType.element, given.getType().shape};
    bool convert = given.getType().element != type.element;
    HostTensor converted;
    if (convert) {
      converted = HostTensor(type);
      for (int64_t i = 0, e = given.getNumElements(); i < e; ++i)
        converted.setFromDouble(i, given.getAsDouble(i));
    }
    const HostTensor &input = convert ? converted : given;
    void *pointer;
    if (gpu) {
      pointer = gpu->allocate(input.getByteSize());
      gpu->copy(pointer, input.getData(), input.getByteSize());
      frame.deviceInputs.push_back(pointer);
    } else {
      frame.hostInputs.push_back(convert ? std::move(converted)
                                         : given.clone());
      pointer = frame.hostInputs.back().getData();
    }
    frame.inputDescriptors.push_back(makeDescriptor(pointer, type));
  }
  if (gpu) {
    // The uploads (from pageable memory) must not overlap a timed call.
    gpu->synchronize();
    if (llvm::Error error = gpu->takeError())
      return error;
  }

  size_t resultWords = 0;
  for (const TensorSpec &type : signature.results)
    resultWords += getDescriptorWords(type);
  frame.resultWords.assign(resultWords, 0);
  frame.resultPointer = frame.resultWords.data();
  for (SmallVector<int64_t> &descriptor : frame.inputDescriptors)
    frame.inputDescriptorPointers.push_back(descriptor.data());
  if (!signature.results.empty())
    frame.packedArguments.push_back(&frame.resultPointer);
  for (void *&pointer : frame.inputDescriptorPointers)
    frame.packedArguments.push_back(&pointer);
  return llvm::Error::success();
}

llvm::Error Executable::invoke(CallFrame &frame) {
  if (nanInfSite)
    *nanInfSite = -1;
  entryPoint(frame.packedArguments.data());
  if (gpu) {
    gpu->synchronize();
    if (llvm::Error error = gpu->takeError())
      return error;
  }
  if (host)
    if (llvm::Error error = host->takeError())
      return error;
  if (nanInfSite && *nanInfSite >= 0) {
    int32_t site = *nanInfSite;
    std::string where = size_t(site) < nanInfSites.size()
                            ? nanInfSites[site]
                            : "op #" + std::to_string(site);
    return makeError("check-nan-inf: the first Inf or NaN was produced by " +
                     where);
  }
  return llvm::Error::success();
}

/// Copies the `type`-shaped, possibly strided memref at `base` (element
/// offset already applied) into `tensor`.
static void gatherStrided(const char *base, ArrayRef<int64_t> strides,
                          HostTensor &tensor) {
  const TensorSpec &type = tensor.getType();
  size_t elementSize = getElementByteSize(type.element);
  char *out = static_cast<char *>(tensor.getData());
  int64_t count = type.getNumElements();
  size_t rank = type.shape.size();
  SmallVector<int64_t> index(rank, 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d)
      offset += index[d] * strides[d];
    std::memcpy(out + linear * elementSize, base + offset * elementSize,
                elementSize);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < type.shape[d])
        break;
      index[d] = 0;
    }
  }
}

Expected<SmallVector<HostTensor>> Executable::collect(CallFrame &frame,
                                                      bool copyResults) {
  SmallVector<HostTensor> results;
  llvm::SmallPtrSet<void *, 8> toFree;
  llvm::SmallPtrSet<void *, 8> inputBuffers;
  for (HostTensor &input : frame.hostInputs)
    inputBuffers.insert(input.getData());
  for (void *pointer : frame.deviceInputs)
    inputBuffers.insert(pointer);

  std::string problem;
  size_t word = 0;
  for (auto [index, type] : llvm::enumerate(signature.results)) {
    const int64_t *descriptor = frame.resultWords.data() + word;
    word += getDescriptorWords(type);
    size_t rank = type.shape.size();
    void *allocated = reinterpret_cast<void *>(descriptor[0]);
    char *aligned = reinterpret_cast<char *>(descriptor[1]);
    int64_t offset = descriptor[2];
    ArrayRef<int64_t> sizes(descriptor + 3, rank);
    ArrayRef<int64_t> strides(descriptor + 3 + rank, rank);
    if (allocated && !inputBuffers.contains(allocated))
      toFree.insert(allocated);
    if (!copyResults || !problem.empty())
      continue;
    // Dynamic dimensions take the sizes the function returned.
    TensorSpec returned{type.element, SmallVector<int64_t>(sizes)};
    if (!type.accepts(returned) ||
        llvm::any_of(sizes, [](int64_t size) { return size < 0; }) ||
        (!aligned && returned.getNumElements() > 0)) {
      problem = ("result #" + llvm::Twine(index) +
                 " came back with an unexpected descriptor")
                    .str();
      continue;
    }
    HostTensor tensor(returned);
    size_t elementSize = getElementByteSize(type.element);
    if (returned.getNumElements() > 0) {
      const char *base = aligned + offset * elementSize;
      if (gpu) {
        // Copy the whole span the strides reach, then gather on the host.
        int64_t span = 1;
        for (size_t d = 0; d < rank; ++d)
          span += (sizes[d] - 1) * strides[d];
        std::vector<char> staging(span * elementSize);
        gpu->copy(staging.data(), base, staging.size());
        gpu->synchronize();
        gatherStrided(staging.data(), strides, tensor);
      } else {
        gatherStrided(base, strides, tensor);
      }
    }
    results.push_back(std::move(tensor));
  }

  for (void *pointer : toFree) {
    if (gpu)
      gpu->deallocate(pointer);
    else
      std::free(pointer);
  }
  for (void *pointer : frame.deviceInputs)
    gpu->deallocate(pointer);
  frame.deviceInputs.clear();
  if (gpu)
    if (llvm::Error error = gpu->takeError())
      return std::move(error);
  // The simulator knows every device buffer: what the call allocated and
  // neither freed nor returned is a leak.
  if (gpu && gpu->isSimulator())
    if (llvm::Error error = gpu->checkLiveBuffers(frame.liveBuffersBefore))
      return std::move(error);
  if (!problem.empty())
    return makeError(problem);
  return std::move(results);
}

Expected<SimulatorStats> Executable::getSimulatorStats() const {
  if (!gpu || !gpu->isSimulator())
    return makeError("not compiled for the GPU simulator (target gpu-sim)");
  SimulatorStats stats = gpu->getSimulatorStats();
  if (llvm::Error error = gpu->takeError())
    return std::move(error);
  return stats;
}

Expected<SmallVector<HostTensor>> Executable::run(ArrayRef<HostTensor> inputs) {
  CallFrame frame;
  if (llvm::Error error = prepare(inputs, frame))
    return std::move(error);
  if (llvm::Error error = invoke(frame))
    return std::move(error);
  return collect(frame, /*copyResults=*/true);
}

Expected<SmallVector<double>> Executable::time(ArrayRef<HostTensor> inputs,
                                               unsigned repeat) {
  SmallVector<double> durations;
  for (unsigned i = 0; i <= repeat; ++i) {
    CallFrame frame;
    if (llvm::Error error = prepare(inputs, frame))
      return std::move(error);
    auto start = std::chrono::steady_clock::now();
    if (llvm::Error error = invoke(frame))
      return std::move(error);
    auto end = std::chrono::steady_clock::now();
    Expected<SmallVector<HostTensor>> released =
        collect(frame, /*copyResults=*/false);
    if (!released)
      return released.takeError();
    if (i > 0) // The first call warms up.
      durations.push_back(std::chrono::duration<double>(end - start).count());
  }
  return std::move(durations);
}

//===----------------------------------------------------------------------===//
// Comparison and printing
//===----------------------------------------------------------------------===//

ErrorStats amp::runner::compareTensors(const HostTensor &value,
                                       const HostTensor &reference) {
  assert(value.getType() == reference.getType() && "comparing unlike tensors");
  ErrorStats stats;
  double squaredError = 0, squaredReference = 0;
  for (int64_t i = 0, e = value.getNumElements(); i < e; ++i) {
    double a = value.getAsDouble(i);
    double b = reference.getAsDouble(i);
    if (!std::isfinite(a) || !std::isfinite(b)) {
      if ((std::isnan(a) && std::isnan(b)) || a == b)
        ++stats.nonFiniteEqual;
      else
        ++stats.nonFiniteMismatch;
      continue;
    }
    double difference = std::fabs(a - b);
    stats.maxAbs = std::max(stats.maxAbs, difference);
    if (b != 0)
      stats.maxRel = std::max(stats.maxRel, difference / std::fabs(b));
    squaredError += difference * difference;
    squaredReference += b * b;
  }
  if (squaredReference > 0)
    stats.relL2 = std::sqrt(squaredError / squaredReference);
  else
    stats.relL2 = squaredError > 0 ? INFINITY : 0.0;
  return stats;
}

double amp::runner::median(ArrayRef<double> values) {
  if (values.empty())
    return 0;
  SmallVector<double> sorted(values.begin(), values.end());
  llvm::sort(sorted);
  size_t middle = sorted.size() / 2;
  if (sorted.size() % 2)
    return sorted[middle];
  return (sorted[middle - 1] + sorted[middle]) / 2;
}

namespace {
/// NumPy-like printing of a HostTensor.
class ValuePrinter {
public:
  ValuePrinter(const HostTensor &tensor, int64_t threshold, int64_t edgeItems)
      : tensor(tensor), shape(tensor.getType().shape), edgeItems(edgeItems),
        summarize(tensor.getNumElements() > threshold) {
    strides.assign(shape.size(), 1);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * shape[d + 1];
    // Pad every element to the widest printed one.
    forEachShown(0, 0, [&](int64_t index) {
      width = std::max(width, format(index).size());
    });
  }

  void print(llvm::raw_ostream &os) {
    if (shape.empty()) {
      os << format(0);
      return;
    }
    printDimension(os, 0, 0);
  }

private:
  std::string format(int64_t index) const {
    double value = tensor.getAsDouble(index);
    if (!isFloatKind(tensor.getType().element))
      return std::to_string(static_cast<long long>(value));
    if (std::isnan(value))
      return "nan";
    if (std::isinf(value))
      return value > 0 ? "inf" : "-inf";
    std::string text;
    llvm::raw_string_ostream(text) << llvm::format("%.6g", value);
    return text;
  }

  /// The indices shown along a dimension of `size` (-1 marks the ellipsis).
  SmallVector<int64_t> shownIndices(int64_t size) const {
    SmallVector<int64_t> indices;
    if (!summarize || size <= 2 * edgeItems) {
      for (int64_t i = 0; i < size; ++i)
        indices.push_back(i);
      return indices;
    }
    for (int64_t i = 0; i < edgeItems; ++i)
      indices.push_back(i);
    indices.push_back(-1);
    for (int64_t i = size - edgeItems; i < size; ++i)
      indices.push_back(i);
    return indices;
  }

  void forEachShown(size_t dimension, int64_t base,
                    llvm::function_ref<void(int64_t)> callback) const {
    if (dimension == shape.size())
      return callback(base);
    for (int64_t i : shownIndices(shape[dimension]))
      if (i >= 0)
        forEachShown(dimension + 1, base + i * strides[dimension], callback);
  }

  void printDimension(llvm::raw_ostream &os, size_t dimension, int64_t base) {
    os << '[';
    SmallVector<int64_t> indices = shownIndices(shape[dimension]);
    bool last = dimension + 1 == shape.size();
    for (auto [position, i] : llvm::enumerate(indices)) {
      if (position > 0) {
        if (last) {
          os << ' ';
        } else {
          for (size_t blank = dimension + 1; blank < shape.size(); ++blank)
            os << '\n';
          os.indent(dimension + 1);
        }
      }
      if (i < 0) {
        os << "...";
        continue;
      }
      if (last) {
        std::string text = format(base + i);
        os.indent(width - text.size()) << text;
      } else {
        printDimension(os, dimension + 1, base + i * strides[dimension]);
      }
    }
    os << ']';
  }

  const HostTensor &tensor;
  ArrayRef<int64_t> shape;
  SmallVector<int64_t> strides;
  int64_t edgeItems;
  bool summarize;
  size_t width = 0;
};
} // namespace

void amp::runner::printValues(llvm::raw_ostream &os, const HostTensor &tensor,
                              int64_t threshold, int64_t edgeItems) {
  ValuePrinter(tensor, threshold, edgeItems).print(os);
}
