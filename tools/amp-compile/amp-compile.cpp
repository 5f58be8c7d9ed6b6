//===- amp-compile.cpp - ahead-of-time compilation to a shared library ----===//
//
// Part of amp-mlir. Applies an AMP level, lowers for the CPU or an NVIDIA
// GPU with the pipelines amp-run's JIT uses (runner::lowerModule), and
// writes a shared library and a C header:
//
//   amp-compile model.mlir --level=O2 --dtype=f16 --target=gpu -o model.so
//
// The library exports, for each public function @f of the module, the C
// entry `_mlir_ciface_f` (memref descriptors by pointer, the result first;
// see the header), and `amp_module_info()`, a JSON description of the
// functions that amp_mlir.load() reads. At run time it needs only
// libamp_runtime.so (libamp_runtime_gpusim.so for gpu-sim), found next to
// it through $ORIGIN, and libc/libm: never libMLIR or libLLVM. The object
// is emitted in-process by LLVM's TargetMachine, and linked by the system
// C compiler driver (--linker) with libamp_aot_support.a (memrefCopy and
// the f16/bf16 conversion routines, see AotSupport.c).
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/Runner/CompileFlags.h"
#include "amp/Runner/Runner.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

#include <set>

using namespace mlir;
using namespace mlir::amp::runner;
namespace cl = llvm::cl;

static cl::OptionCategory category("amp-compile options");

static cl::opt<std::string> inputPath(cl::Positional, cl::desc("<module.mlir>"),
                                      cl::init("-"), cl::cat(category));
static cl::opt<std::string>
    outputPath("o", cl::desc("the shared library to write (model.so)"),
               cl::value_desc("path"), cl::cat(category));
/// --level (default O0), --dtype, --target, --amp-options, --rounding,
/// --gpu-options, --cpu-options: amp-run's flags too.
static CompileFlags compileFlags(category, "O0");
static cl::list<std::string>
    entryNames("entry",
               cl::desc("a function to export (repeatable; default: every "
                        "public function with a body)"),
               cl::cat(category));
static cl::opt<std::string>
    headerPath("header",
               cl::desc("the C header to write (default: the output with .h "
                        "for .so)"),
               cl::init(""), cl::cat(category));
static cl::opt<std::string> runtimeDir(
    "runtime-dir",
    cl::desc("directory of libamp_runtime.so and libamp_aot_support.a "
             "(default: ../lib next to amp-compile)"),
    cl::init(""), cl::cat(category));
static cl::opt<std::string>
    cpuName("mcpu",
            cl::desc("host CPU the code is for: an LLVM CPU name, or 'host' "
                     "for this machine's CPU and features (default x86-64-v2: "
                     "runs on any x86-64 machine of the last 15 years)"),
            cl::init(""), cl::cat(category));
static cl::opt<std::string>
    linkerName("linker",
               cl::desc("C compiler driver that links the library (cc)"),
               cl::init("cc"), cl::cat(category));
static cl::opt<unsigned> optLevel("opt-level",
                                  cl::desc("LLVM optimization level (0-3)"),
                                  cl::init(3), cl::cat(category));
static cl::opt<bool> keepObject("keep-object",
                                cl::desc("also write <output>.o"),
                                cl::init(false), cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "amp-compile: error: " << message << "\n";
  return 1;
}

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static StringRef elementName(ElementKind kind) {
  switch (kind) {
  case ElementKind::F32:
    return "f32";
  case ElementKind::F16:
    return "f16";
  case ElementKind::BF16:
    return "bf16";
  case ElementKind::F64:
    return "f64";
  case ElementKind::I32:
    return "i32";
  case ElementKind::I64:
    return "i64";
  case ElementKind::I1:
    return "i1";
  }
  return "?";
}

static llvm::json::Value tensorJson(const TensorSpec &type) {
  llvm::json::Array shape;
  for (int64_t size : type.shape)
    shape.push_back(size);
  return llvm::json::Object{{"element", elementName(type.element)},
                            {"shape", std::move(shape)},
                            {"type", type.str()}};
}

static llvm::json::Array tensorsJson(ArrayRef<TensorSpec> types) {
  llvm::json::Array array;
  for (const TensorSpec &type : types)
    array.push_back(tensorJson(type));
  return array;
}

/// The description amp_module_info() returns.
static std::string moduleInfo(const LoweredModule &lowered, StringRef level,
                              StringRef target) {
  llvm::json::Array functions;
  for (const LoweredEntry &entry : lowered.entries)
    functions.push_back(llvm::json::Object{
        {"name", entry.signature.name},
        {"symbol", "_mlir_ciface_" + entry.signature.name},
        {"arguments", tensorsJson(entry.signature.arguments)},
        {"call_arguments", tensorsJson(entry.callArguments)},
        {"results", tensorsJson(entry.signature.results)}});
  llvm::json::Object info{{"format", "amp-aot-1"},
                          {"level", level},
                          {"target", target},
                          {"low_precision_type", lowered.lowPrecisionType},
                          {"runtime", target == "gpu-sim"
                                          ? "libamp_runtime_gpusim.so"
                                          : "libamp_runtime.so"},
                          {"functions", std::move(functions)}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(info));
  return text;
}

/// Adds `const char *amp_module_info(void)` returning `info`.
static void addModuleInfo(llvm::Module &module, StringRef info) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Constant *text =
      llvm::ConstantDataArray::getString(context, info, /*AddNull=*/true);
  auto *global = new llvm::GlobalVariable(
      module, text->getType(), /*isConstant=*/true,
      llvm::GlobalValue::PrivateLinkage, text, "amp_module_info_text");
  auto *type =
      llvm::FunctionType::get(llvm::PointerType::get(context, 0), false);
  auto *function = llvm::Function::Create(
      type, llvm::GlobalValue::ExternalLinkage, "amp_module_info", module);
  llvm::IRBuilder<> builder(
      llvm::BasicBlock::Create(context, "entry", function));
  builder.CreateRet(global);
}

//===----------------------------------------------------------------------===//
// The C header
//===----------------------------------------------------------------------===//

static std::string cIdentifier(StringRef name) {
  std::string result;
  for (char c : name)
    result += llvm::isAlnum(c) ? c : '_';
  return result;
}

static std::string descriptorType(unsigned rank) {
  return "amp_memref_" + std::to_string(rank) + "d";
}

static std::string makeHeader(const LoweredModule &lowered,
                              StringRef libraryName, StringRef level,
                              StringRef target) {
  std::string text;
  llvm::raw_string_ostream os(text);
  std::string guard = "AMP_AOT_" + cIdentifier(libraryName) + "_H";
  for (char &c : guard)
    c = llvm::toUpper(c);
  os << "/* " << libraryName << ": written by amp-compile (level " << level
     << ", target " << target << ").\n"
     << " *\n"
     << " * Each function takes memref descriptors by pointer: the results\n"
     << " * first (one descriptor, or a struct of several; none without\n"
     << " * results), then one per argument. Results are fresh allocations\n"
     << " * the caller owns (free(allocated), or mgpuMemFree for the GPU).\n"
     << " * For target gpu, arguments and results are device pointers\n"
     << " * (mgpuMemAlloc/mgpuMemcpy of libamp_runtime.so). */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  std::set<unsigned> ranks;
  for (const LoweredEntry &entry : lowered.entries) {
    for (const TensorSpec &type : entry.callArguments)
      ranks.insert(type.shape.size());
    for (const TensorSpec &type : entry.signature.results)
      ranks.insert(type.shape.size());
  }
  for (unsigned rank : ranks) {
    std::string name = descriptorType(rank);
    os << "#ifndef AMP_MEMREF_" << rank << "D_DEFINED\n#define AMP_MEMREF_"
       << rank << "D_DEFINED\ntypedef struct {\n  void *allocated;\n"
       << "  void *aligned;\n  int64_t offset;\n";
    if (rank > 0)
      os << "  int64_t sizes[" << rank << "];\n  int64_t strides[" << rank
         << "];\n";
    os << "} " << name << ";\n#endif\n\n";
  }
  os << "/* The module's description (JSON), as amp_mlir.load reads it. */\n"
     << "const char *amp_module_info(void);\n\n";
  for (const LoweredEntry &entry : lowered.entries) {
    const Signature &signature = entry.signature;
    std::string function = cIdentifier(signature.name);
    os << "/* @" << signature.name << "(";
    for (auto [index, type] : llvm::enumerate(entry.callArguments))
      os << (index ? ", " : "") << type.str();
    os << ") -> (";
    for (auto [index, type] : llvm::enumerate(signature.results))
      os << (index ? ", " : "") << type.str();
    os << ") */\n";
    std::string resultType;
    if (signature.results.size() == 1) {
      resultType = descriptorType(signature.results.front().shape.size());
    } else if (signature.results.size() > 1) {
      resultType = function + "_results";
      os << "typedef struct {\n";
      for (auto [index, type] : llvm::enumerate(signature.results))
        os << "  " << descriptorType(type.shape.size()) << " result" << index
           << ";\n";
      os << "} " << resultType << ";\n";
    }
    os << "void _mlir_ciface_" << signature.name << "(";
    bool first = true;
    if (!resultType.empty()) {
      os << resultType << " *results";
      first = false;
    }
    for (auto [index, type] : llvm::enumerate(entry.callArguments)) {
      os << (first ? "" : ", ") << descriptorType(type.shape.size()) << " *arg"
         << index;
      first = false;
    }
    if (first)
      os << "void";
    os << ");\n\n";
  }
  os << "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
  return text;
}

//===----------------------------------------------------------------------===//
// Object and link
//===----------------------------------------------------------------------===//

static llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
makeTargetMachine() {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot target " + triple.str() + ": " +
                                       error);
  std::string cpu = cpuName;
  std::string features;
  if (cpu == "host") {
    cpu = llvm::sys::getHostCPUName().str();
    llvm::SubtargetFeatures list;
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      list.AddFeature(feature.first(), feature.second);
    features = list.getString();
  } else if (cpu.empty()) {
    cpu = triple.getArch() == llvm::Triple::x86_64 ? "x86-64-v2" : "generic";
  }
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, features, options, llvm::Reloc::PIC_, std::nullopt,
      optLevel >= 3 ? llvm::CodeGenOptLevel::Aggressive
                    : llvm::CodeGenOptLevel::Default));
  if (!machine)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot target CPU '" + cpu + "' of " +
                                       triple.str());
  return std::move(machine);
}

static std::string defaultRuntimeDir(const char *argv0) {
  std::string executable =
      llvm::sys::fs::getMainExecutable(argv0, (void *)&defaultRuntimeDir);
  SmallString<256> dir(llvm::sys::path::parent_path(executable));
  llvm::sys::path::remove_filename(dir); // bin/ -> the root
  llvm::sys::path::append(dir, "lib");
  return std::string(dir);
}

/// What the link needs besides the object, found before anything is
/// compiled: the runtime's directory and library name, the AOT support
/// archive, the linker.
struct LinkInputs {
  std::string dir;
  StringRef runtimeName;
  std::string supportPath;
  std::string linker;
};

static llvm::Expected<LinkInputs> findLinkInputs(const char *argv0,
                                                 Target target) {
  LinkInputs inputs;
  inputs.dir =
      runtimeDir.empty() ? defaultRuntimeDir(argv0) : std::string(runtimeDir);
  inputs.runtimeName =
      target == Target::GpuSim ? "amp_runtime_gpusim" : "amp_runtime";
  SmallString<256> runtimePath(inputs.dir), supportPath(inputs.dir);
  llvm::sys::path::append(runtimePath, "lib" + inputs.runtimeName + ".so");
  llvm::sys::path::append(supportPath, "libamp_aot_support.a");
  for (StringRef path : {StringRef(runtimePath), StringRef(supportPath)})
    if (!llvm::sys::fs::exists(path))
      return makeError("'" + path +
                       "' does not exist (build it, or name its directory "
                       "with --runtime-dir)");
  inputs.supportPath = std::string(supportPath);
  llvm::ErrorOr<std::string> linker = llvm::sys::findProgramByName(linkerName);
  if (!linker)
    return makeError("no linker: '" + linkerName +
                     "' is not on PATH (name a C compiler driver with "
                     "--linker)");
  inputs.linker = *linker;
  return inputs;
}

/// The LLVM module of `lowered`, optimized for the host at --opt-level,
/// with amp_module_info().
static llvm::Expected<std::unique_ptr<llvm::Module>>
translateAndOptimize(const LoweredModule &lowered, llvm::LLVMContext &context,
                     StringRef info, llvm::TargetMachine &machine) {
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*lowered.module, context, "amp-aot");
  if (!llvmModule)
    return makeError("translation to LLVM IR failed");
  addModuleInfo(*llvmModule, info);
  llvmModule->setDataLayout(machine.createDataLayout());
  llvmModule->setTargetTriple(machine.getTargetTriple());
  if (llvm::Error error = makeOptimizingTransformer(optLevel, /*sizeLevel=*/0,
                                                    &machine)(llvmModule.get()))
    return makeError("LLVM optimization failed: " +
                     llvm::toString(std::move(error)));
  return std::move(llvmModule);
}

/// Writes the object of `llvmModule` to `path`.
static llvm::Error emitObject(llvm::Module &llvmModule,
                              llvm::TargetMachine &machine, StringRef path) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error, llvm::sys::fs::OF_None);
  if (error)
    return makeError("cannot write '" + path + "': " + error.message());
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, os, nullptr,
                                  llvm::CodeGenFileType::ObjectFile))
    return makeError("the target cannot emit an object file");
  passes.run(llvmModule);
  return llvm::Error::success();
}

/// Links the object at `objectPath` into --o: the runtime through $ORIGIN,
/// everything resolved now. The error carries the linker's output.
static llvm::Error link(const LinkInputs &inputs, StringRef objectPath,
                        Target target) {
  SmallString<128> logPath;
  if (std::error_code error =
          llvm::sys::fs::createTemporaryFile("amp-compile", "log", logPath))
    return makeError("cannot create a temporary file: " + error.message());
  llvm::FileRemover logRemover(logPath);
  std::string runtimeFlag = ("-l" + inputs.runtimeName).str();
  SmallVector<std::string> args = {inputs.linker,
                                   "-shared",
                                   "-o",
                                   outputPath,
                                   objectPath.str(),
                                   inputs.supportPath,
                                   "-L" + inputs.dir,
                                   "-Wl,--as-needed",
                                   runtimeFlag,
                                   "-Wl,--no-as-needed",
                                   "-lm",
                                   "-Wl,-rpath,$ORIGIN",
                                   "-Wl,-Bsymbolic",
                                   "-Wl,--no-undefined",
                                   "-Wl,-z,noexecstack"};
  if (target != Target::Cpu)
    // The GPU code always needs its runtime: the module constructors call it.
    args.erase(llvm::find(args, "-Wl,--as-needed"));
  SmallVector<StringRef> argRefs(args.begin(), args.end());
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(logPath),
                                          StringRef(logPath)};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(inputs.linker, argRefs, std::nullopt,
                                         redirects, 0, 0, &message);
  if (status == 0)
    return llvm::Error::success();
  std::string log;
  if (auto buffer = llvm::MemoryBuffer::getFile(logPath))
    log = (*buffer)->getBuffer().rtrim().str();
  return makeError("linking '" + outputPath + "' failed (" +
                   llvm::join(argRefs, " ") + ")" +
                   (message.empty() ? "" : ": " + message) +
                   (log.empty() ? "" : "\n" + log));
}

/// Writes the C header (--header, default: the output with .h).
static llvm::Error writeHeader(const LoweredModule &lowered, StringRef label,
                               StringRef targetName) {
  std::string header = headerPath;
  if (header.empty()) {
    SmallString<256> path(outputPath);
    llvm::sys::path::replace_extension(path, "h");
    header = std::string(path);
  }
  std::error_code error;
  llvm::raw_fd_ostream os(header, error, llvm::sys::fs::OF_Text);
  if (error)
    return makeError("cannot write '" + header + "': " + error.message());
  os << makeHeader(lowered, llvm::sys::path::filename(outputPath.getValue()),
                   label, targetName);
  return llvm::Error::success();
}

/// --entry's functions, or every public function with a body.
static SmallVector<std::string> getExportedFunctions(ModuleOp module) {
  SmallVector<std::string> entries(entryNames.begin(), entryNames.end());
  if (entries.empty())
    for (auto function : module.getOps<func::FuncOp>())
      if (function.isPublic() && !function.isDeclaration())
        entries.push_back(function.getSymName().str());
  return entries;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "amp-compile: an AMP level and a lowering, compiled ahead of time to a "
      "shared library and a C header\n");

  if (outputPath.empty())
    return fail("-o <model.so> is required");
  CompileOptionsText text = compileFlags.getText();
  CompileOptions options;
  if (llvm::Error error = parseCompileOptions(text, options, "--"))
    return fail(llvm::toString(std::move(error)));
  if (optLevel > 3)
    return fail("--opt-level must be 0 to 3");
  llvm::Expected<LinkInputs> linkInputs =
      findLinkInputs(argv[0], options.target);
  if (!linkInputs)
    return fail(llvm::toString(linkInputs.takeError()));

  DialectRegistry registry;
  registerRunnerDialects(registry);
  MLIRContext context(registry);
  llvm::Expected<OwningOpRef<ModuleOp>> module = loadModule(inputPath, context);
  if (!module)
    return fail(llvm::toString(module.takeError()));
  SmallVector<std::string> entries = getExportedFunctions(**module);
  if (entries.empty())
    return fail("'" + inputPath + "' has no public function to export");
  llvm::Expected<LoweredModule> lowered =
      lowerModule(**module, entries, options);
  if (!lowered)
    return fail(llvm::toString(lowered.takeError()));

  StringRef targetName = compileFlags.getTargetName();
  std::string levelLabel = getVariantLabel(
      options.level, lowered->lowPrecisionType.empty()
                         ? StringRef(text.dtype)
                         : StringRef(lowered->lowPrecisionType));
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> machine =
      makeTargetMachine();
  if (!machine)
    return fail(llvm::toString(machine.takeError()));
  llvm::LLVMContext llvmContext;
  llvm::Expected<std::unique_ptr<llvm::Module>> llvmModule =
      translateAndOptimize(*lowered, llvmContext,
                           moduleInfo(*lowered, levelLabel, targetName),
                           **machine);
  if (!llvmModule)
    return fail(llvm::toString(llvmModule.takeError()));

  // The object, in a temporary file (or next to the output).
  SmallString<256> objectPath;
  if (keepObject) {
    objectPath = outputPath;
    llvm::sys::path::replace_extension(objectPath, "o");
  } else if (std::error_code error = llvm::sys::fs::createTemporaryFile(
                 "amp-compile", "o", objectPath)) {
    return fail("cannot create a temporary file: " + error.message());
  }
  std::optional<llvm::FileRemover> objectRemover;
  if (!keepObject)
    objectRemover.emplace(objectPath);
  if (llvm::Error error = emitObject(**llvmModule, **machine, objectPath))
    return fail(llvm::toString(std::move(error)));
  if (llvm::Error error = link(*linkInputs, objectPath, options.target))
    return fail(llvm::toString(std::move(error)));
  if (llvm::Error error = writeHeader(*lowered, levelLabel, targetName))
    return fail(llvm::toString(std::move(error)));
  return 0;
}
