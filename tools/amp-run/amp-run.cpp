//===- amp-run.cpp - run a function under an AMP level --------------------===//
//
// Part of amp-mlir. Applies an AMP level to a module, lowers it for the CPU or
// an NVIDIA GPU, JIT-compiles it and runs one function; optionally compares
// its results with the fp32 original and times both:
//
//   amp-run model.mlir --entry f --level=O2 --dtype=bf16 --compare --repeat 20
//
// The work is done by the AmpRunner library (include/amp/Runner); this file
// parses the command line and prints. See docs/amp-run.md.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/Dialect/Amp/Transforms/Policy.h"
#include "amp/Pipelines/AmpPipelines.h"
#include "amp/Runner/CompileFlags.h"
#include "amp/Runner/Npy.h"
#include "amp/Runner/Runner.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <optional>

using namespace mlir;
using namespace mlir::amp::runner;
namespace cl = llvm::cl;

static cl::OptionCategory category("amp-run options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<model.mlir>"),
                                          cl::Required, cl::cat(category));
static cl::opt<std::string>
    entryName("entry",
              cl::desc("Function to run (default: the module's only one)"),
              cl::value_desc("name"), cl::cat(category));
/// --level (default O1), --dtype, --target, --amp-options, --rounding,
/// --gpu-options, --cpu-options: amp-compile's flags too.
static CompileFlags compileFlags(category, "O1");
static cl::list<std::string>
    inputFiles("inputs",
               cl::desc("One .npy file per argument (default: random inputs "
                        "uniform in [-1, 1)); %r in a name is replaced by "
                        "the process's rank under mpirun"),
               cl::CommaSeparated, cl::value_desc("a.npy,b.npy"),
               cl::cat(category));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of the random inputs"),
                              cl::init(0), cl::cat(category));
static cl::opt<int64_t> dynamicSize(
    "dynamic-size",
    cl::desc("Size of the dynamic dimensions (?) of random inputs "
             "(default 1; with --inputs, the files' shapes decide)"),
    cl::init(1), cl::value_desc("N"), cl::cat(category));
static cl::opt<bool>
    compare("compare",
            cl::desc("Also run the fp32 original (O0, same inputs) and print "
                     "the error of each output against it"),
            cl::cat(category));
static cl::opt<unsigned>
    repeat("repeat",
           cl::desc("Time N calls of the level and of fp32 (after a warm-up "
                    "call) and print the medians and the speed-up"),
           cl::init(0), cl::value_desc("N"), cl::cat(category));
static cl::list<std::string>
    outputFiles("outputs",
                cl::desc("Write the results to these .npy files (%r: the "
                         "rank)"),
                cl::CommaSeparated, cl::value_desc("out0.npy,..."),
                cl::cat(category));
static cl::opt<std::string>
    outputDir("output-dir",
              cl::desc("Write the results to DIR/out<i>.npy (and the fp32 "
                       "ones to DIR/fp32_out<i>.npy with --compare)"),
              cl::value_desc("dir"), cl::cat(category));
static cl::opt<bool> compileOnly(
    "compile-only",
    cl::desc("Compile the level and stop: nothing runs (with --timing, the "
             "compile time is printed); --target=gpu then needs no GPU: the "
             "runtime library is loaded for its symbols only"),
    cl::cat(category));
static cl::opt<std::string> estimateChip(
    "estimate",
    cl::desc("With --target=gpu-sim: estimate the call's time on CHIP "
             "(h100-sxm, h200) from what the simulator counted (a roofline "
             "per kernel launch and library call; docs/gpu.md) and print "
             "it per kernel, library call and copy, with the total"),
    cl::value_desc("chip"), cl::cat(category));
static cl::opt<bool> printValuesFlag("print",
                                     cl::desc("Print the output values"),
                                     cl::cat(category));
static cl::opt<std::string>
    runtimeLib("runtime-lib",
               cl::desc("libamp_runtime.so for --target=cpu (collectives) "
                        "and gpu, libamp_runtime_gpusim.so for "
                        "--target=gpu-sim (default: in <dir of "
                        "amp-run>/../lib)"),
               cl::value_desc("path"), cl::cat(category));
static cl::opt<std::string> checkNanInf(
    "check-nan-inf",
    cl::desc("Check the results of the level's low-precision ops and "
             "narrowing conversions (low, the default) or of every float op "
             "(all) for Inf and NaN: the run fails, naming the first op that "
             "produced one and its location (CPU only)"),
    cl::ValueOptional, cl::value_desc("low|all"), cl::cat(category));
static cl::opt<std::string> timingMode(
    "timing",
    cl::desc("Print the time of each stage of the level's compilation "
             "(parse, AMP passes, lowering, LLVM IR translation, LLVM "
             "optimization, machine code); --timing=passes also prints "
             "MLIR's time of each pass (-mlir-timing) and LLVM's "
             "(-time-passes)"),
    cl::ValueOptional, cl::value_desc("passes"), cl::cat(category));
static cl::opt<unsigned> llvmOptLevel(
    "llvm-opt-level",
    cl::desc("LLVM optimization level of the JIT, 0 to 3 (default 2)"),
    cl::init(2), cl::Hidden, cl::cat(category));
static cl::opt<unsigned> largeFunction(
    "large-function",
    cl::desc("A function of more LLVM instructions than this makes the JIT "
             "optimize at level 1 (0: no limit)"),
    cl::init(CompileOptions().largeFunction), cl::Hidden, cl::cat(category));
static cl::opt<uint64_t> detachConstantBytes(
    "detach-constants",
    cl::desc("Constants of at least this many bytes stay out of the JIT's "
             "LLVM module (0: none)"),
    cl::init(CompileOptions().detachConstantBytes), cl::Hidden,
    cl::cat(category));
static cl::opt<std::string>
    jitCpu("jit-cpu",
           cl::desc("JIT for the host CPU and its features (host) or for the "
                    "generic CPU of its triple (generic)"),
           cl::init("host"), cl::Hidden, cl::cat(category));

static cl::opt<std::string> recordRanges(
    "record-ranges",
    cl::desc("Range calibration: run the function as written (f32; --level "
             "does not apply) on the inputs and write the largest finite "
             "magnitude of each of its float tensors to FILE (JSON), which "
             "--calibration=FILE (an option of --amp-o1/--amp-o2) reads"),
    cl::value_desc("file.json"), cl::cat(category));

/// Prints `amp-run: error: <message>` and returns exit code 1.
static int fail(const llvm::Twine &message) {
  llvm::outs().flush();
  llvm::errs() << "amp-run: error: " << message << '\n';
  return 1;
}

static int fail(llvm::Error error, StringRef prefix = "") {
  return fail(prefix + llvm::toString(std::move(error)));
}

static std::string formatError(double value) {
  if (value == 0)
    return "0";
  if (std::isinf(value))
    return "inf";
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.3e", value);
  return text;
}

static std::string formatNumber(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.6g", value);
  return text;
}

static std::string formatSeconds(double seconds) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (seconds >= 1)
    os << llvm::format("%.3f s", seconds);
  else if (seconds >= 1e-3)
    os << llvm::format("%.3f ms", seconds * 1e3);
  else
    os << llvm::format("%.3f us", seconds * 1e6);
  return text;
}

/// Prints rows as columns separated by two spaces, left-aligned, indented.
static void printTable(llvm::raw_ostream &os,
                       ArrayRef<SmallVector<std::string>> rows) {
  SmallVector<size_t> widths;
  for (const SmallVector<std::string> &row : rows)
    for (auto [column, cell] : llvm::enumerate(row)) {
      if (widths.size() <= column)
        widths.push_back(0);
      widths[column] = std::max(widths[column], cell.size());
    }
  for (const SmallVector<std::string> &row : rows) {
    std::string line = " ";
    for (auto [column, cell] : llvm::enumerate(row)) {
      line += ' ';
      line += cell;
      if (column + 1 < row.size())
        line.append(widths[column] - cell.size() + 1, ' ');
    }
    os << StringRef(line).rtrim() << '\n';
  }
}

/// "(x,y,z)", or "x" when y and z are 1.
static std::string formatDim3(const int64_t dims[3]) {
  if (dims[1] == 1 && dims[2] == 1)
    return llvm::itostr(dims[0]);
  return "(" + llvm::itostr(dims[0]) + "," + llvm::itostr(dims[1]) + "," +
         llvm::itostr(dims[2]) + ")";
}

/// The simulator's estimate: one row per kernel, library call and kind of
/// copy (in the order they first ran), then the totals.
static void printEstimate(llvm::raw_ostream &os,
                          const SimulatorEstimate &estimate,
                          int64_t idealBytes) {
  os << "gpu-sim estimate for " << estimate.chip << " (" << estimate.description
     << ": " << llvm::format("%.2f", estimate.bandwidth / 1e12) << " TB/s, "
     << llvm::format("%.0f", estimate.f16Flops / 1e12)
     << " TFLOP/s f16 tensor, "
     << llvm::format("%.1f", estimate.fp32Flops / 1e12)
     << " TFLOP/s fp32; launch "
     << llvm::format("%.1f", estimate.launchSeconds * 1e6)
     << " us, library calls at "
     << llvm::format("%.0f", estimate.libraryEfficiency * 100)
     << "% of the roofline):\n";
  SmallVector<SmallVector<std::string>> rows;
  rows.push_back({"kind", "calls", "grid", "block", "read B", "written B",
                  "FLOPs", "bound", "time", "name"});
  int64_t moved = 0;
  for (const SimulatorRecord &r : estimate.records) {
    bool kernel = r.kind == SimulatorRecord::Kind::Kernel;
    moved += r.bytesRead + r.bytesWritten;
    rows.push_back({kernel                                     ? "kernel"
                    : r.kind == SimulatorRecord::Kind::Library ? "library"
                                                               : "copy",
                    llvm::itostr(r.calls), kernel ? formatDim3(r.grid) : "-",
                    kernel ? formatDim3(r.block) : "-",
                    llvm::itostr(r.bytesRead), llvm::itostr(r.bytesWritten),
                    llvm::itostr(r.flops),
                    r.bound == SimulatorRecord::Bound::Memory    ? "memory"
                    : r.bound == SimulatorRecord::Bound::Compute ? "compute"
                                                                 : "launch",
                    formatSeconds(r.seconds), r.name});
  }
  printTable(os, rows);
  os << "gpu-sim estimate total: " << formatSeconds(estimate.seconds)
     << " (kernels " << formatSeconds(estimate.kernelSeconds)
     << ", library calls " << formatSeconds(estimate.librarySeconds)
     << ", copies " << formatSeconds(estimate.copySeconds) << "), "
     << estimate.launches << " launches, " << moved << " bytes moved, ideal "
     << idealBytes << "\n";
}

/// Min, max and mean of the finite values, and how many are not finite.
static SmallVector<std::string> summarize(const HostTensor &tensor) {
  double minimum = INFINITY, maximum = -INFINITY, sum = 0;
  int64_t finite = 0, count = tensor.getNumElements();
  for (int64_t i = 0; i < count; ++i) {
    double value = tensor.getAsDouble(i);
    if (!std::isfinite(value))
      continue;
    minimum = std::min(minimum, value);
    maximum = std::max(maximum, value);
    sum += value;
    ++finite;
  }
  if (!finite)
    return {"-", "-", "-", llvm::utostr(count) + " non-finite"};
  SmallVector<std::string> cells = {
      formatNumber(minimum), formatNumber(maximum), formatNumber(sum / finite)};
  if (finite < count)
    cells.push_back(llvm::utostr(count - finite) + " non-finite");
  return cells;
}

static std::string defaultRuntimeLibrary(const char *argv0, StringRef name) {
  std::string executable =
      llvm::sys::fs::getMainExecutable(argv0, (void *)&defaultRuntimeLibrary);
  SmallString<256> path(llvm::sys::path::parent_path(executable));
  llvm::sys::path::append(path, "..", "lib", name);
  llvm::sys::path::remove_dots(path, /*remove_dot_dot=*/true);
  return std::string(path);
}

/// Writes `results` to `paths`.
static int writeResults(ArrayRef<HostTensor> results,
                        ArrayRef<std::string> paths) {
  if (paths.empty())
    return 0;
  for (auto [result, path] : llvm::zip_equal(results, paths))
    if (llvm::Error error = writeNpy(path, result))
      return fail(std::move(error));
  return 0;
}

/// The options of the AMP pipeline that amp-run has no flag of its own for
/// (all but dtype and rounding, which also name the variant and drive the
/// lowering): every flag --NAME=VALUE (or --NAME, a boolean set) that is
/// not amp-run's is taken out of `args` and passed on to the pipeline in
/// `ampText`, where --amp-o1's parser checks it. Their names, types and
/// descriptions are --amp-o1's (PassOptions.td): amp-run declares none.
static void takeAmpFlags(SmallVectorImpl<const char *> &args,
                         std::string &ampText) {
  SmallVector<const char *> kept;
  for (size_t i = 0; i < args.size(); ++i) {
    StringRef arg = args[i];
    StringRef name = arg.ltrim('-').split('=').first;
    if (i == 0 || !arg.starts_with("-") || name.empty() ||
        cl::getRegisteredOptions().count(name) || name == "help" ||
        name.starts_with("help-") || name == "version") {
      kept.push_back(args[i]);
      continue;
    }
    ampText += " " + arg.ltrim('-').str();
  }
  args.assign(kept.begin(), kept.end());
}

/// The time of each stage of a compilation (--timing).
static void printTiming(llvm::raw_ostream &os, const CompileTiming &timing,
                        StringRef label, StringRef targetName) {
  os << "compile time: " << label << " on " << targetName << " (LLVM -O"
     << timing.llvmOptLevel << ", largest function " << timing.largestFunction
     << " instructions, " << timing.detachedConstants << " constants of "
     << formatNumber(timing.detachedBytes / 1048576.0)
     << " MiB kept out of LLVM)\n";
  SmallVector<SmallVector<std::string>> timingRows = {{"stage", "wall", "CPU"}};
  double total = 0, cpuTotal = 0;
  for (const CompileTiming::Stage &stage : timing.stages) {
    timingRows.push_back({stage.name, formatSeconds(stage.seconds),
                          formatSeconds(stage.cpuSeconds)});
    total += stage.seconds;
    cpuTotal += stage.cpuSeconds;
  }
  timingRows.push_back(
      {"total", formatSeconds(total), formatSeconds(cpuTotal)});
  printTable(os, timingRows);
  os << timing.passReport;
}

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The flags of amp-run, parsed once (with the AMP flags taken by name,
/// `ampFlags`), into `options`; then the combinations that exclude each
/// other, refused before anything is read.
static llvm::Error parseFlags(StringRef ampFlags, CompileOptions &options) {
  CompileOptionsText text = compileFlags.getText(ampFlags);
  if (checkNanInf.getNumOccurrences())
    // A bare --check-nan-inf checks the low ops.
    text.checkNanInf = checkNanInf.empty() ? "low" : checkNanInf.getValue();
  if (llvm::Error error = parseCompileOptions(text, options, "--")) {
    std::string message = llvm::toString(std::move(error));
    // An AMP flag that the pipeline does not have either.
    StringRef unknown = StringRef(message).split("no such option ").second;
    SmallVector<StringRef> flags;
    StringRef(ampFlags).split(flags, ' ', -1, /*KeepEmpty=*/false);
    if (llvm::any_of(flags, [&](StringRef flag) {
          return flag.split('=').first == unknown.trim();
        }))
      return makeError("unknown flag --" + unknown.trim() +
                       ": neither amp-run's nor an option of "
                       "--amp-o1/--amp-o2");
    return makeError(message);
  }
  if (options.checkNanInf != CheckNanInf::Off && options.target != Target::Cpu)
    return makeError("--check-nan-inf runs on the CPU only (the checks are "
                     "host code); use --target=cpu");
  // The AMP flags' values, checked before anything is read: with
  // --dtype=fp8, its fp8-* flags apply.
  if (!ampFlags.empty()) {
    amp::AmpOptions checked;
    std::string error;
    if (failed(amp::bindAmpOptions(options.ampOptions, amp::AmpLevel::O2,
                                   checked, error)))
      return makeError(error);
  }
  if (timingMode.getNumOccurrences() && !timingMode.empty() &&
      timingMode != "passes")
    return makeError("--timing takes no value or passes, not '" + timingMode +
                     "'");
  if (jitCpu != "host" && jitCpu != "generic")
    return makeError("--jit-cpu must be host or generic, not '" + jitCpu + "'");
  if (llvmOptLevel > 3)
    return makeError("--llvm-opt-level must be 0 to 3");
  if (dynamicSize < 0)
    return makeError("--dynamic-size must be at least 0");
  if (!outputFiles.empty() && !outputDir.empty())
    return makeError("--outputs and --output-dir exclude each other");
  if (estimateChip.getNumOccurrences()) {
    if (options.target != Target::GpuSim)
      return makeError("--estimate needs --target=gpu-sim (the estimate "
                       "comes from the GPU simulator's counts)");
    if (!isSimulatorChip(estimateChip))
      return makeError("--estimate: unknown chip '" + estimateChip +
                       "' (known: " + getSimulatorChipNames() + ")");
    if (compileOnly)
      return makeError("--compile-only runs nothing: it excludes --estimate");
  }
  if (compileOnly) {
    SmallVector<StringRef> running;
    if (compare)
      running.push_back("--compare");
    if (repeat)
      running.push_back("--repeat");
    if (!outputFiles.empty())
      running.push_back("--outputs");
    if (!outputDir.empty())
      running.push_back("--output-dir");
    if (printValuesFlag)
      running.push_back("--print");
    if (!inputFiles.empty())
      running.push_back("--inputs");
    if (!running.empty())
      return makeError("--compile-only runs nothing: it excludes " +
                       llvm::join(running, ", "));
  }
  options.hostCpuFeatures = jitCpu == "host";
  options.optLevel = llvmOptLevel;
  options.largeFunction = largeFunction;
  options.detachConstantBytes = detachConstantBytes;
  options.openDevice = !compileOnly;
  return llvm::Error::success();
}

/// %r in file names: this process's rank in the collectives' group (under
/// mpirun, each rank reads and writes its own files).
static llvm::Error substituteRank(StringRef runtimePath) {
  auto hasRank = [](StringRef path) { return path.contains("%r"); };
  if (!llvm::any_of(inputFiles, hasRank) &&
      !llvm::any_of(outputFiles, hasRank) && !hasRank(outputDir))
    return llvm::Error::success();
  llvm::Expected<int32_t> rank = getCollectiveRank(runtimePath);
  if (!rank)
    return makeError("%r in a file name: " + llvm::toString(rank.takeError()));
  std::string text = std::to_string(*rank);
  auto substitute = [&](std::string path) {
    for (size_t at = path.find("%r"); at != std::string::npos;
         at = path.find("%r", at + text.size()))
      path.replace(at, 2, text);
    return path;
  };
  for (size_t i = 0; i < inputFiles.size(); ++i)
    inputFiles[i] = substitute(inputFiles[i]);
  for (size_t i = 0; i < outputFiles.size(); ++i)
    outputFiles[i] = substitute(outputFiles[i]);
  if (!outputDir.empty())
    outputDir.setValue(substitute(outputDir));
  return llvm::Error::success();
}

/// --record-ranges: runs the module as written, instrumented, and writes the
/// ranges of its float tensors.
static int recordRangesOf(ModuleOp module, const Signature &signature,
                          ArrayRef<HostTensor> inputs,
                          const CompileOptions &options) {
  SmallVector<std::string> excluded;
  if (compare)
    excluded.push_back("--compare");
  if (repeat)
    excluded.push_back("--repeat");
  if (compileOnly)
    excluded.push_back("--compile-only");
  if (!outputFiles.empty() || !outputDir.empty())
    excluded.push_back("--outputs/--output-dir");
  if (checkNanInf.getNumOccurrences())
    excluded.push_back("--check-nan-inf");
  if (options.target != Target::Cpu)
    excluded.push_back("--target=" + compileFlags.getTargetName().str());
  if (!excluded.empty())
    return fail("--record-ranges runs the module as written on the CPU "
                "and writes its ranges: it excludes " +
                llvm::join(excluded, ", "));
  CompileOptions record;
  record.level = AmpLevel::O0;
  record.recordRanges = signature.name;
  record.runtimeLibrary = options.runtimeLibrary;
  record.hostCpuFeatures = options.hostCpuFeatures;
  auto recorder = Executable::compile(module, signature.name, record);
  if (!recorder)
    return fail(recorder.takeError());
  auto ran = (*recorder)->run(inputs);
  if (!ran)
    return fail(ran.takeError());
  const HostTensor &maxima = ran->back();
  int64_t count = maxima.getType().getNumElements();
  const float *values = static_cast<const float *>(maxima.getData());
  std::error_code ec;
  llvm::raw_fd_ostream file(recordRanges, ec);
  if (ec)
    return fail("cannot write --record-ranges '" + recordRanges +
                "': " + ec.message());
  llvm::json::Array absmax;
  for (int64_t i = 0; i < count; ++i)
    absmax.push_back(static_cast<double>(values[i]));
  file << llvm::formatv("{0:2}\n", llvm::json::Value(llvm::json::Object{
                                       {"function", signature.name},
                                       {"absmax", std::move(absmax)}}));
  float largest = count ? *std::max_element(values, values + count) : 0;
  llvm::outs() << "amp-run: @" << signature.name << " in " << inputFilename
               << ", recorded the ranges of " << count
               << " float tensors (the largest " << formatNumber(largest)
               << ") to " << recordRanges << '\n';
  return 0;
}

/// Runs `executable` on `inputs`; under the simulator, `simulatorText` gets
/// what it counted for this call (and --estimate's table).
static llvm::Expected<SmallVector<HostTensor>>
runCounting(Executable &executable, ArrayRef<HostTensor> inputs, Target target,
            std::string &simulatorText) {
  if (target != Target::GpuSim)
    return executable.run(inputs);
  // The estimate is of this call: its records start here.
  if (estimateChip.getNumOccurrences())
    if (llvm::Error error = executable.resetSimulatorStats())
      return std::move(error);
  llvm::Expected<SimulatorStats> before = executable.getSimulatorStats();
  if (!before)
    return before.takeError();
  auto results = executable.run(inputs);
  if (!results)
    return results.takeError();
  llvm::Expected<SimulatorStats> after = executable.getSimulatorStats();
  if (!after)
    return after.takeError();
  const SimulatorStats &b = *before, &a = *after;
  llvm::raw_string_ostream os(simulatorText);
  os << "gpu-sim: " << a.launches - b.launches << " kernel launches ("
     << a.threads - b.threads << " threads), "
     << a.libraryCalls - b.libraryCalls << " library calls, "
     << a.allocations - b.allocations << " device allocations, "
     << a.frees - b.frees << " frees, " << a.liveBuffers << " live, peak "
     << a.peakBytes << " bytes, " << a.synchronizations - b.synchronizations
     << " synchronizations\n";
  if (estimateChip.getNumOccurrences()) {
    auto estimate = executable.getSimulatorEstimate(estimateChip);
    if (!estimate)
      return estimate.takeError();
    printEstimate(os, *estimate, a.idealBytes);
  }
  return results;
}

/// The outputs' table: each against fp32 with --compare (the non-finite
/// mismatches, which fail the run, go to `failures`), else a summary.
static void printOutputs(llvm::raw_ostream &os, ArrayRef<HostTensor> results,
                         ArrayRef<HostTensor> referenceResults, StringRef label,
                         SmallVectorImpl<std::string> &failures) {
  SmallVector<SmallVector<std::string>> rows;
  if (compare) {
    os << "outputs: " << label << " vs fp32\n";
    rows.push_back({"#", "type", "max abs err", "max rel err", "rel L2 err"});
    for (auto [index, pair] :
         llvm::enumerate(llvm::zip_equal(results, referenceResults))) {
      auto &[value, expected] = pair;
      ErrorStats stats = compareTensors(value, expected);
      // The figures cover the elements finite in both; with none, they say
      // nothing.
      bool anyFinite = value.getType().getNumElements() >
                       stats.nonFiniteEqual + stats.nonFiniteMismatch;
      auto figure = [&](double error) {
        return anyFinite ? formatError(error) : std::string("n/a");
      };
      SmallVector<std::string> row = {
          llvm::utostr(index), value.getType().str(), figure(stats.maxAbs),
          figure(stats.maxRel), figure(stats.relL2)};
      if (stats.nonFiniteMismatch) {
        row.push_back(llvm::utostr(stats.nonFiniteMismatch) +
                      " non-finite mismatches");
        failures.push_back("output #" + llvm::utostr(index) + " has " +
                           llvm::utostr(stats.nonFiniteMismatch) + " of " +
                           llvm::utostr(value.getType().getNumElements()) +
                           " elements that are Inf or NaN in only one of " +
                           label.str() + " and fp32");
      }
      if (stats.nonFiniteEqual)
        row.push_back(llvm::utostr(stats.nonFiniteEqual) +
                      " non-finite in both");
      rows.push_back(std::move(row));
    }
  } else {
    os << "outputs: " << label << '\n';
    rows.push_back({"#", "type", "min", "max", "mean"});
    for (auto [index, value] : llvm::enumerate(results)) {
      SmallVector<std::string> row = {llvm::utostr(index),
                                      value.getType().str()};
      row.append(summarize(value));
      rows.push_back(std::move(row));
    }
  }
  if (results.empty())
    os << "  (no results)\n";
  else
    printTable(os, rows);
}

/// --print: every output's values (and fp32's with --compare).
static void printOutputValues(llvm::raw_ostream &os,
                              ArrayRef<HostTensor> results,
                              ArrayRef<HostTensor> referenceResults,
                              StringRef label) {
  for (auto [index, value] : llvm::enumerate(results)) {
    os << "output #" << index << " (" << label << "): " << value.getType().str()
       << '\n';
    printValues(os, value);
    os << '\n';
    if (compare) {
      os << "output #" << index
         << " (fp32): " << referenceResults[index].getType().str() << '\n';
      printValues(os, referenceResults[index]);
      os << '\n';
    }
  }
}

/// --repeat: the medians of the level's calls and fp32's, and the speed-up.
static llvm::Error printTimes(llvm::raw_ostream &os, Executable &executable,
                              Executable &reference,
                              ArrayRef<HostTensor> inputs, StringRef label) {
  auto levelTimes = executable.time(inputs, repeat);
  if (!levelTimes)
    return levelTimes.takeError();
  auto fp32Times = reference.time(inputs, repeat);
  if (!fp32Times)
    return fp32Times.takeError();
  double levelMedian = median(*levelTimes);
  double fp32Median = median(*fp32Times);
  os << "time: median of " << repeat << " call" << (repeat == 1 ? "" : "s")
     << " after a warm-up\n";
  SmallVector<SmallVector<std::string>> timeRows;
  timeRows.push_back({label.str(), formatSeconds(levelMedian)});
  timeRows.push_back({"fp32", formatSeconds(fp32Median)});
  std::string speedup;
  llvm::raw_string_ostream(speedup) << llvm::format(
      "%.2fx", levelMedian > 0 ? fp32Median / levelMedian : 0.0);
  timeRows.push_back({"speed-up", speedup});
  printTable(os, timeRows);
  return llvm::Error::success();
}

/// --outputs / --output-dir: writes the results (and fp32's with
/// --compare to the directory) and says where.
static int writeOutputFiles(llvm::raw_ostream &os, ArrayRef<HostTensor> results,
                            ArrayRef<HostTensor> referenceResults) {
  SmallVector<std::string> paths(outputFiles.begin(), outputFiles.end());
  SmallVector<std::string> referencePaths;
  if (!outputDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
      return fail("cannot create --output-dir '" + outputDir +
                  "': " + ec.message());
    for (size_t i = 0; i < results.size(); ++i) {
      SmallString<256> path(outputDir);
      llvm::sys::path::append(path, "out" + llvm::utostr(i) + ".npy");
      paths.push_back(std::string(path));
      if (compare) {
        SmallString<256> fp32Path(outputDir);
        llvm::sys::path::append(fp32Path,
                                "fp32_out" + llvm::utostr(i) + ".npy");
        referencePaths.push_back(std::string(fp32Path));
      }
    }
  }
  if (int rc = writeResults(results, paths))
    return rc;
  if (int rc = writeResults(referenceResults, referencePaths))
    return rc;
  if (!paths.empty()) {
    SmallVector<std::string> all(paths);
    all.append(referencePaths.begin(), referencePaths.end());
    os << "wrote: " << llvm::join(all, ", ") << '\n';
  }
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::extrahelp ampHelp(
      "\nAMP OPTIONS: every option of --amp-o1/--amp-o2 (amp-opt --help "
      "lists them) is also a flag of amp-run, --NAME=VALUE: "
      "--placement=greedy, --custom-black-list=math.exp,tosa.exp, "
      "--explain.\n");
  std::string ampFlags;
  SmallVector<const char *> args(argv, argv + argc);
  takeAmpFlags(args, ampFlags);
  cl::ParseCommandLineOptions(
      args.size(), args.data(),
      "amp-run: apply an AMP level, lower, JIT-compile and run a function\n");
  CompileOptions options;
  if (llvm::Error error = parseFlags(ampFlags, options))
    return fail(std::move(error));
  StringRef targetName = compileFlags.getTargetName();

  // The module and the entry function.
  DialectRegistry registry;
  registerRunnerDialects(registry);
  MLIRContext context(registry);
  auto parseStart = std::chrono::steady_clock::now();
  std::clock_t parseCpuStart = std::clock();
  auto module = loadModule(inputFilename, context);
  std::chrono::duration<double> parseSeconds =
      std::chrono::steady_clock::now() - parseStart;
  if (!module)
    return fail(module.takeError());
  llvm::Expected<Signature> signature =
      getEntrySignature(**module, entryName, inputFilename);
  if (!signature)
    return fail(signature.takeError());
  if (!outputFiles.empty() && outputFiles.size() != signature->results.size())
    return fail("--outputs names " + llvm::Twine(outputFiles.size()) + " file" +
                (outputFiles.size() == 1 ? "" : "s") + " but '@" +
                signature->name + "' has " +
                llvm::Twine(signature->results.size()) + " result" +
                (signature->results.size() == 1 ? "" : "s"));

  // The GPU runtime, before anything else is spent on a GPU run.
  options.runtimeLibrary =
      !runtimeLib.empty() ? runtimeLib.getValue()
      : options.target == Target::GpuSim
          ? defaultRuntimeLibrary(argv[0], "libamp_runtime_gpusim.so")
          : defaultRuntimeLibrary(argv[0], "libamp_runtime.so");
  if (options.target != Target::Cpu)
    if (llvm::Error error =
            checkGpuRuntime(options.runtimeLibrary, !compileOnly))
      return fail(std::move(error), ("--target=" + targetName + ": ").str());
  if (llvm::Error error = substituteRank(options.runtimeLibrary))
    return fail(std::move(error));

  // Inputs.
  SmallVector<HostTensor> inputs;
  if (!inputFiles.empty()) {
    auto loaded = loadInputs(inputFiles, *signature);
    if (!loaded)
      return fail(loaded.takeError());
    inputs = std::move(*loaded);
  } else {
    inputs = makeRandomInputs(*signature, seed, dynamicSize);
  }
  if (!recordRanges.empty())
    return recordRangesOf(**module, *signature, inputs, options);

  // Compile and run the level, and the fp32 original if needed.
  CompileTiming timing;
  timing.passes = timingMode == "passes";
  if (timingMode.getNumOccurrences()) {
    timing.stages.push_back(
        {"parse", parseSeconds.count(),
         static_cast<double>(std::clock() - parseCpuStart) / CLOCKS_PER_SEC});
    options.timing = &timing;
  }
  auto executable = Executable::compile(**module, signature->name, options);
  if (!executable)
    return fail(executable.takeError());
  options.timing = nullptr;
  std::string label =
      getVariantLabel(options.level, (*executable)->getLowPrecisionType());
  llvm::raw_ostream &os = llvm::outs();
  if (compileOnly) {
    os << "amp-run: @" << signature->name << " in " << inputFilename << ", "
       << label << " on " << targetName << ", compiled (--compile-only)\n";
    if (timingMode.getNumOccurrences())
      printTiming(os, timing, label, targetName);
    return 0;
  }
  std::string simulatorText;
  auto results =
      runCounting(**executable, inputs, options.target, simulatorText);
  if (!results)
    return fail(results.takeError());

  std::unique_ptr<Executable> reference;
  SmallVector<HostTensor> referenceResults;
  if (compare || repeat > 0) {
    CompileOptions fp32 = options;
    fp32.level = AmpLevel::O0;
    // The reference is what the level is compared with, not checked.
    fp32.checkNanInf = CheckNanInf::Off;
    auto compiled = Executable::compile(**module, signature->name, fp32);
    if (!compiled)
      return fail(compiled.takeError());
    reference = std::move(*compiled);
  }
  if (compare) {
    auto ran = reference->run(inputs);
    if (!ran)
      return fail(ran.takeError());
    referenceResults = std::move(*ran);
  }

  // Report.
  os << "amp-run: @" << signature->name << " in " << inputFilename << ", "
     << label << " on " << targetName << '\n';
  if (!inputFiles.empty())
    os << "inputs: " << llvm::join(inputFiles, ", ") << '\n';
  else {
    os << "inputs: random, uniform in [-1, 1), seed " << seed;
    if (llvm::any_of(signature->arguments, [](const TensorSpec &type) {
          return !type.hasStaticShape();
        }))
      os << ", ? = " << dynamicSize;
    os << '\n';
  }
  if (timingMode.getNumOccurrences())
    printTiming(os, timing, label, targetName);
  // Outputs with non-finite values where fp32 has finite ones: a failure.
  SmallVector<std::string> nonFiniteFailures;
  printOutputs(os, *results, referenceResults, label, nonFiniteFailures);
  os << simulatorText;
  if (printValuesFlag)
    printOutputValues(os, *results, referenceResults, label);
  if (repeat > 0)
    if (llvm::Error error =
            printTimes(os, **executable, *reference, inputs, label))
      return fail(std::move(error));
  if (int rc = writeOutputFiles(os, *results, referenceResults))
    return rc;
  if (!nonFiniteFailures.empty()) {
    os.flush();
    return fail(llvm::join(nonFiniteFailures, "; ") +
                " (--check-nan-inf finds the op that produced them)");
  }
  return 0;
}
