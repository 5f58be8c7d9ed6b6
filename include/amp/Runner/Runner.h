//===- Runner.h - compile and run a function under an AMP level -*- C++ -*-===//
//
// Part of amp-mlir. What amp-run does, as a library (for the tool and, later,
// the Python package): find an entry function and its tensor signature, make
// or load its inputs, apply an AMP level and lower for the CPU or an NVIDIA
// GPU, JIT-compile with mlir::ExecutionEngine, call it, time it, and compare
// its results with a reference.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNNER_RUNNER_H
#define AMP_RUNNER_RUNNER_H

#include "amp/Dialect/Amp/Transforms/Options.h"
#include "amp/Pipelines/AmpPipelines.h"
#include "amp/Pipelines/LoweringOptions.h"
#include "amp/Runner/HostTensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

/// The runtime's CUDA graph (AmpRuntime.h).
struct AmpGpuGraph;

namespace mlir {
class DialectRegistry;
class ExecutionEngine;
class MLIRContext;

namespace amp {
namespace runner {
class GpuRuntime;
class HostRuntime;

/// The level of a compilation is the AMP level (amp::AmpLevel, whose O0
/// leaves the module as written); where it runs and what it checks are the
/// driver's own concepts, here.

/// Where a compilation runs. GpuSim: the GPU pipeline's output run on the
/// CPU by the GPU simulator (libamp_runtime_gpusim.so).
enum class Target { Cpu, Gpu, GpuSim };

/// NaN/Inf checks after the level (--amp-check-nan-inf, on the CPU): none,
/// the results of the low-precision ops and narrowing conversions, or every
/// float op's.
enum class CheckNanInf { Off, Low, All };
} // namespace runner

AMP_OPTION_SPELLINGS(runner::Target, "target", false,
                     {runner::Target::Cpu, "cpu"}, {runner::Target::Gpu, "gpu"},
                     {runner::Target::GpuSim, "gpu-sim"})
AMP_OPTION_SPELLINGS(runner::CheckNanInf, "check-nan-inf", false,
                     {runner::CheckNanInf::Off, ""},
                     {runner::CheckNanInf::Low, "low"},
                     {runner::CheckNanInf::All, "all"})

namespace runner {
/// The driver's own enumerated options (beside AmpEnumeratedOptions).
using DriverEnumeratedOptions = OptionList<Target, CheckNanInf>;
} // namespace runner

namespace runner {
using amp::AmpLevel;

/// How results are labelled: "O0", "O1 f16", "O2 bf16".
std::string getVariantLabel(AmpLevel level, StringRef dtype);

//===----------------------------------------------------------------------===//
// Modules and signatures
//===----------------------------------------------------------------------===//

/// Registers what the runner parses and lowers: the amp dialect and the
/// upstream dialects, extensions and LLVM IR translations
/// (amp::registerAllDialects).
void registerRunnerDialects(DialectRegistry &registry);

/// Parses the module at `path` ('-' for stdin). The error carries the
/// parser's diagnostics.
llvm::Expected<OwningOpRef<ModuleOp>> loadModule(StringRef path,
                                                 MLIRContext &context);

/// The names of the module's top-level func.func ops, in order.
SmallVector<StringRef> getFunctionNames(ModuleOp module);

/// The signature of an entry function: every argument and result a ranked
/// tensor of static shape and a supported element type.
struct Signature {
  std::string name;
  SmallVector<TensorSpec> arguments;
  SmallVector<TensorSpec> results;
};

/// Finds `entry` (empty: the only function of the module) and checks its
/// signature. Errors name the function, the argument or result, and, for a
/// missing function, `moduleName` and the functions there are.
llvm::Expected<Signature> getEntrySignature(ModuleOp module, StringRef entry,
                                            StringRef moduleName);

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// One value per argument, drawn in argument then row-major element order
/// from a std::mt19937_64 seeded with `seed`. With x the next 64-bit output:
/// floats are (x >> 11) * 2^-53 * 2 - 1, i.e. uniform in [-1, 1), rounded to
/// f32 and then (nearest even) to f16/bf16; integers are x mod 10. Dynamic
/// dimensions (`?`) take the size `dynamicSize`.
SmallVector<HostTensor> makeRandomInputs(const Signature &signature,
                                         uint64_t seed,
                                         int64_t dynamicSize = 1);

/// `type` with its dynamic dimensions set to `dynamicSize`.
TensorSpec withDynamicSize(const TensorSpec &type, int64_t dynamicSize);

/// Loads `path` as argument `index` of `signature`. The .npy array must have
/// the argument's shape (any size where it has `?`) and exactly its dtype
/// ('<f4' for f32, '<f2' for f16,
/// '<f8' for f64, '<i4' for i32, '<i8' for i64), except that '<f4' is also
/// accepted for f16 and bf16 arguments and rounded to nearest even.
llvm::Expected<HostTensor> loadInput(StringRef path, const Signature &signature,
                                     unsigned index);

/// Loads one file per argument.
llvm::Expected<SmallVector<HostTensor>> loadInputs(ArrayRef<std::string> paths,
                                                   const Signature &signature);

//===----------------------------------------------------------------------===//
// Compilation and execution
//===----------------------------------------------------------------------===//

/// What the AMP pipeline would have written to the standard streams.
struct CapturedOutput {
  /// A report (report=text|json) without a report-file.
  std::string stderrText;
  /// A report with report-file=-, then a graph with graph-file=-.
  std::string stdoutText;
};

/// What a compilation spent, stage by stage (CompileOptions::timing).
struct CompileTiming {
  /// One stage: its name, its wall time and the CPU time of the process
  /// and of the processes it waited for (ptxas) during it (steadier on a
  /// shared machine; the compilation is single-threaded).
  struct Stage {
    std::string name;
    double seconds = 0, cpuSeconds = 0;
  };
  /// In the order they ran: "AMP passes", "NaN/Inf checks" (with
  /// checkNanInf), "lowering", "LLVM IR translation", "LLVM optimization",
  /// "machine code" (code generation and linking). Callers may add the
  /// stages before (amp-run adds "parse").
  SmallVector<Stage, 8> stages;
  /// Set by the caller: also time each pass, and write the reports to
  /// `passReport`: MLIR's (-mlir-timing) for the AMP and lowering pipelines,
  /// then LLVM's (-time-passes) for its optimizer.
  bool passes = false;
  std::string passReport;
  /// What the JIT was given: the LLVM optimization level it chose, the
  /// instructions of the largest function, and the constants kept out of
  /// the LLVM module (count, bytes).
  unsigned llvmOptLevel = 0;
  uint64_t largestFunction = 0;
  uint64_t detachedConstants = 0, detachedBytes = 0;
};

struct CompileOptions {
  /// The AMP level: O0 leaves the module as it is.
  AmpLevel level = AmpLevel::O0;
  /// The low-precision type of O1/O2; none (the default): the pipeline
  /// decides (a dtype= in `ampOptions`, else the policy file's, else f16).
  std::optional<amp::Precision> dtype;
  /// More options of the AMP pipeline, as their declarations type them
  /// (set by name, or parsed from --amp-o1's syntax where they enter: the
  /// tools' --amp-options); bound when the level runs. A set `dtype` wins
  /// over the dtype given here.
  amp::AmpOptionValues ampOptions;
  Target target = Target::Cpu;
  /// The lowering of Target::Cpu, and of Target::Gpu and Target::GpuSim
  /// (whose `simulate` the target sets). Their rounding is `rounding`'s.
  amp::CpuLoweringOptions cpu;
  amp::GpuLoweringOptions gpu;
  /// libamp_runtime.so for Target::Gpu, libamp_runtime_gpusim.so for
  /// Target::GpuSim; for Target::Cpu, libamp_runtime.so, loaded only when
  /// the compiled code calls the runtime (matmuls' ampCpuLibraryGemm,
  /// convolutions' ampCpuLibraryConv2d, amp.all_reduce's ampAllReduce).
  std::string runtimeLibrary;
  /// Target::Gpu: open the device when compiling. False compiles the host
  /// code and the kernels without a GPU (the runtime library is loaded for
  /// its symbols only, and the kernels' module constructors do not run):
  /// for checking and timing a compilation on a machine without one. Such
  /// an executable cannot run.
  bool openDevice = true;
  /// JIT for the host CPU and its features (F16C, AVX-512 BF16, ...); false:
  /// the generic CPU of the host triple, so that conversions go through
  /// library calls.
  bool hostCpuFeatures = true;
  /// LLVM optimization level of the JIT (the most it uses: see
  /// largeFunction).
  unsigned optLevel = 2;
  /// A function of more LLVM instructions than this (0: no limit) makes the
  /// JIT optimize its module at level 1, without loop unrolling and
  /// interleaving, instead of `optLevel` (docs/performance.md, "Compile
  /// time").
  unsigned largeFunction = 20000;
  /// Constant globals of at least this many bytes (the weights; 0: none)
  /// stay out of the LLVM module: the JIT binds them to a copy of their
  /// bytes instead of translating, optimizing and assembling them.
  uint64_t detachConstantBytes = 4096;
  /// When set, the time of each stage is recorded there.
  CompileTiming *timing = nullptr;
  /// --amp-check-nan-inf after the AMP level (CPU only). A call whose
  /// checked values are not all finite then fails, naming the first op that
  /// produced an Inf or a NaN.
  CheckNanInf checkNanInf = CheckNanInf::Off;
  /// How low-precision values are rounded (the `rounding` option of the AMP
  /// and lowering pipelines); none: the AMP pipeline's default (once).
  std::optional<amp::RoundingMode> rounding;
  /// Range calibration (level O0 only): the entry function of this name
  /// gets one more result, a tensor<Nxf32> of the largest finite magnitude
  /// of each of its N float tensors (amp-record-ranges), which a
  /// calibration file for amp-apply-ranges holds.
  std::string recordRanges;
  /// When set, the text the AMP pipeline writes to stderr or stdout (see
  /// CapturedOutput) is appended here instead, for callers that route it
  /// themselves (the C API); null (amp-run): the streams.
  CapturedOutput *capturedOutput = nullptr;
};

/// One entry function of a lowered module: its declared signature, and the
/// argument types the compiled function takes (see
/// Executable::getCallArguments).
struct LoweredEntry {
  Signature signature;
  SmallVector<TensorSpec> callArguments;
};

/// A module after the AMP level and the lowering of `CompileOptions::target`:
/// the LLVM dialect, ready for translation to LLVM IR (JIT or ahead of time).
struct LoweredModule {
  OwningOpRef<ModuleOp> module;
  SmallVector<LoweredEntry, 1> entries;
  /// As Executable::getLowPrecisionType.
  std::string lowPrecisionType;
  /// The functions the lowered code calls but does not define.
  SmallVector<std::string> externalFunctions;
  /// With CompileOptions::checkNanInf: the ops @amp_nan_inf_site numbers.
  SmallVector<std::string> nanInfSites;
};

/// Applies `options.level` to a copy of `module` and lowers it for
/// `options.target` (the pipelines Executable::compile runs; the runtime
/// library is not loaded). Every name of `entries` must be a function with
/// a supported signature. Errors carry the diagnostics of the pass that
/// failed.
llvm::Expected<LoweredModule> lowerModule(ModuleOp module,
                                          ArrayRef<std::string> entries,
                                          const CompileOptions &options);

/// What transformModule returns.
enum class TransformOutput {
  /// The module, as MLIR text (amp-opt's output).
  Module,
  /// The precision report, as JSON (report=json; at O0, amp-report of the
  /// module as written).
  Report,
  /// The precision graph, as Graphviz DOT (graph-file=; at O0,
  /// amp-precision-graph of the module as written, titled amp-o0).
  Graph,
};

/// What `amp-opt --amp-o1/--amp-o2="<ampOptions>" [--lower-to-<target>]`
/// does, in-process: applies `options.level` (its ampOptions, dtype and
/// rounding) to a copy of `module` and, with `lower`, the lowering of
/// `options.target` (gpuOptions for the GPU), and returns `output` of the
/// result. Unlike lowerModule it needs no entry function, and signatures
/// may change. Diagnostics go to the context's handlers (the caller
/// collects them: no handler is installed here); reports and graphs meant
/// for the standard streams go to `options.capturedOutput` when it is set.
/// The error names the stage that failed.
llvm::Expected<std::string> transformModule(ModuleOp module,
                                            const CompileOptions &options,
                                            bool lower,
                                            TransformOutput output);

/// The functions of `module` that compileAll can compile under `options`:
/// those with a supported signature, and at O1/O2 no forward-backward
/// function (which the level makes a training step).
SmallVector<std::string> getCompilableFunctions(ModuleOp module,
                                                const CompileOptions &options);

/// What the GPU simulator counted (AmpGpuSim.h's AmpSimStats).
struct SimulatorStats {
  int64_t allocations = 0, frees = 0, liveBuffers = 0, liveBytes = 0,
          peakBytes = 0, launches = 0, threads = 0, libraryCalls = 0,
          copies = 0, synchronizations = 0, graphLaunches = 0;
  /// What the roofline estimate reads (AmpSimStats's fields of the same
  /// names).
  int64_t kernelBytesRead = 0, kernelBytesWritten = 0, kernelFlops = 0,
          libraryBytes = 0, libraryFlops = 0, copyBytes = 0, hostBytes = 0,
          idealBytes = 0;
};

/// One record of the GPU simulator's roofline estimate: a kernel, a library
/// call of one shape, or copies of one direction (AmpGpuSim.h's
/// AmpSimRecord).
struct SimulatorRecord {
  enum class Kind { Kernel, Library, Copy };
  enum class Bound { Memory, Compute, Launch };
  std::string name;
  Kind kind = Kind::Kernel;
  Bound bound = Bound::Memory;
  int64_t calls = 0, launches = 0, threads = 0;
  int64_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  int64_t bytesRead = 0, bytesWritten = 0, hostBytes = 0, flops = 0;
  /// Global accesses by width: 1, 2, 4, 8, 16 or more bytes.
  int64_t loads[5] = {}, stores[5] = {};
  double seconds = 0;
};

/// The estimate for one chip of what the simulator ran since its last reset
/// (AmpGpuSim.h's AmpSimChip, AmpSimRecord, AmpSimEstimate).
struct SimulatorEstimate {
  std::string chip, description;
  double bandwidth = 0, fp32Flops = 0, f16Flops = 0, launchSeconds = 0,
         libraryEfficiency = 0;
  std::vector<SimulatorRecord> records;
  double seconds = 0, kernelSeconds = 0, librarySeconds = 0, copySeconds = 0;
  int64_t launches = 0;
};

/// The chips of the simulator's estimate (SimChips.def): "h100-sxm, h200".
std::string getSimulatorChipNames();
/// Whether `name` is one of them.
bool isSimulatorChip(StringRef name);

/// Sets the low-precision type a tool or a caller named: "f16", "bf16" or
/// one of their aliases in CompileOptions::dtype, or "fp8" (or "float8") as
/// the dtype of CompileOptions::ampOptions, whose fp8-* options then
/// apply. An error naming the accepted values
/// for anything else.
llvm::Error setDtype(StringRef dtype, CompileOptions &options);

/// Checks that the GPU runtime library at `path` loads and, with
/// `openDevice`, that a GPU is usable; the error is the runtime's message.
llvm::Error checkGpuRuntime(StringRef path, bool openDevice = true);

/// This process's rank in the collectives' process group (0 unless started
/// by an MPI launcher), from the runtime library at `path`.
llvm::Expected<int32_t> getCollectiveRank(StringRef path);

/// A tensor on an executable's device (targets gpu and gpu-sim) that
/// outlives the call that made it: a result a call kept on the device, to be
/// passed to later calls without copies (a training step's parameters and
/// optimizer state). Copies of a handle share the buffer, which is freed on
/// the device when the last one goes.
class DeviceTensor {
public:
  DeviceTensor() = default;
  const TensorSpec &getType() const { return type; }
  /// The buffer's device address (nullptr for an empty handle).
  void *getData() const;
  explicit operator bool() const { return storage != nullptr; }
  /// Copies the tensor to the host (synchronizing the device).
  llvm::Expected<HostTensor> download() const;

private:
  friend class Executable;
  struct Storage;
  std::shared_ptr<Storage> storage;
  TensorSpec type;
};

class CapturedCall;

/// An argument of Executable::call: a host tensor, copied to the device for
/// the call, or a device tensor, used in place.
struct CallArgument {
  const HostTensor *host = nullptr;
  DeviceTensor device;
};

/// A result of Executable::call: on the host, or (`device` set) kept on the
/// device.
struct CallResult {
  HostTensor host;
  DeviceTensor device;
};

/// The host-to-host copies the runner made for an executable's calls. On
/// the CPU a call passes its inputs' memory to the compiled code (which does
/// not write its arguments) and takes over the buffers of its results, so
/// only an argument given in the declared f32 type of an argument
/// arg-precision=low narrowed (converted) and a result whose block is not
/// its own alone (one value returned twice, a strided view) are copied.
/// (The compiled code itself clones an argument it returns.) On the GPU, the
/// conversions and the gathers of results read back to the host count; uploads
/// and downloads do not.
struct HostCopyStats {
  int64_t calls = 0;
  int64_t inputBytes = 0;
  int64_t resultBytes = 0;
};

/// A JIT-compiled entry function.
class Executable {
public:
  ~Executable();

  /// Applies `options.level` to a copy of `module`, lowers it for
  /// `options.target` and JIT-compiles it. The error carries the diagnostics
  /// of the pass that failed.
  static llvm::Expected<std::unique_ptr<Executable>>
  compile(ModuleOp module, StringRef entry, const CompileOptions &options);

  /// compile() for several entries at once: one run of the pipelines on
  /// the module, one JIT; the executables share the compiled code (which
  /// lives until the last of them is destroyed), in the order of `entries`.
  static llvm::Expected<SmallVector<std::unique_ptr<Executable>>>
  compileAll(ModuleOp module, ArrayRef<std::string> entries,
             const CompileOptions &options);

  /// The signature as declared: what run() and time() take.
  const Signature &getSignature() const { return signature; }
  /// The argument types the compiled function takes: the declared ones,
  /// except f32 arguments that arg-precision=low narrowed to the low type.
  /// run() and time() accept an argument in either type, and round a
  /// declared f32 one to nearest even at the call.
  ArrayRef<TensorSpec> getCallArguments() const { return callArguments; }
  Target getTarget() const { return target; }
  /// Target::GpuSim: what the simulator counted (launches, library calls,
  /// allocations, ...) since the executable was compiled.
  llvm::Expected<SimulatorStats> getSimulatorStats() const;
  /// Target::GpuSim: zeroes the simulator's counters and its estimate's
  /// records (live buffers stay counted).
  llvm::Error resetSimulatorStats();
  /// Target::GpuSim: the roofline estimate for `chip` (SimChips.def) of what
  /// ran since the last reset; an error for an unknown chip.
  llvm::Expected<SimulatorEstimate> getSimulatorEstimate(StringRef chip) const;
  /// The low-precision type the AMP level applied ("f16", "bf16"; as the
  /// module's amp.applied attribute says), or "" at O0.
  StringRef getLowPrecisionType() const { return lowPrecisionType; }

  /// What the calls so far copied on the host (HostCopyStats).
  HostCopyStats getHostCopyStats() const;

  /// Calls the function on `inputs`, which it does not change (on the CPU
  /// it reads their memory; the GPU's copies are uploaded), and returns its
  /// results.
  llvm::Expected<SmallVector<HostTensor>> run(ArrayRef<HostTensor> inputs);

  /// run() with some arguments on the device already and some results kept
  /// there (targets gpu and gpu-sim): nothing is copied for a device
  /// argument, and a result whose `keepOnDevice` flag is set comes back as a
  /// DeviceTensor (`keepOnDevice` is empty or has one flag per result). A
  /// device argument must have the argument's call type; unlike a host one,
  /// the function may write into it, so the caller should take it as
  /// consumed. A kept result that is not a dense buffer of its own comes
  /// back on the host.
  llvm::Expected<SmallVector<CallResult>> call(ArrayRef<CallArgument> inputs,
                                               ArrayRef<bool> keepOnDevice);

  /// Calls the function once to warm up, then `repeat` times; returns the
  /// duration of each of these calls in seconds (for the GPU, up to the
  /// end of the work on the stream). Copying inputs in and freeing results
  /// are not timed.
  llvm::Expected<SmallVector<double>> time(ArrayRef<HostTensor> inputs,
                                           unsigned repeat);

  /// Captures a call of the function on `inputs` as a CUDA graph (targets
  /// gpu and gpu-sim; see CapturedCall). `feedback` is empty or has one
  /// entry per result: the argument whose buffer the result is copied into
  /// at the end of each replay (a training step's state: result i becomes
  /// argument feedback[i] of the next step), or -1 for a result of its own.
  /// The function is called once first, on copies of the inputs (a
  /// warm-up that builds plans and uploads constants; nothing the capture
  /// could hold), which also gives the results' shapes.
  llvm::Expected<std::unique_ptr<CapturedCall>>
  capture(ArrayRef<CallArgument> inputs, ArrayRef<int64_t> feedback);

private:
  struct CallFrame;
  Executable() = default;
  Executable(const Executable &) = default;
  llvm::Error prepare(ArrayRef<CallArgument> inputs, CallFrame &frame);
  llvm::Error invoke(CallFrame &frame);
  llvm::Expected<SmallVector<CallResult>>
  collect(CallFrame &frame, bool copyResults, ArrayRef<bool> keepOnDevice);
  /// In a capture: copies each result the call of `frame` returned into its
  /// buffer of `captured`; the problem that prevents it, or "".
  std::string copyCapturedResults(CallFrame &frame, CapturedCall &captured);

  /// HostCopyStats, counted by concurrent calls; a copy of an executable
  /// (compileAll) starts at zero.
  struct HostCopyCounters {
    std::atomic<int64_t> calls{0}, inputBytes{0}, resultBytes{0};
    HostCopyCounters() = default;
    HostCopyCounters(const HostCopyCounters &) {}
    HostCopyCounters &operator=(const HostCopyCounters &) { return *this; }
  };

  Signature signature;
  SmallVector<TensorSpec> callArguments;
  HostCopyCounters copies;
  Target target = Target::Cpu;
  std::string lowPrecisionType;
  GpuRuntime *gpu = nullptr;
  /// Target::Cpu code that calls the runtime (amp.all_reduce, its
  /// allocator): libamp_runtime.so.
  HostRuntime *host = nullptr;
  /// Frees the blocks of CPU code's results: the allocator's
  /// _mlir_memref_to_llvm_free where `host` has it, else libc's free.
  void (*freeHostBlock)(void *) = ::free;
  /// With CompileOptions::checkNanInf: the JIT's @amp_nan_inf_site and the
  /// ops its values number.
  int32_t *nanInfSite = nullptr;
  SmallVector<std::string> nanInfSites;
  /// The constants kept out of the JIT's module (declared before `engine`,
  /// destroyed after it).
  std::shared_ptr<const void> constants;
  std::shared_ptr<ExecutionEngine> engine;
  void (*entryPoint)(void **) = nullptr;
};

/// A call of a compiled function captured as a CUDA graph
/// (Executable::capture): the function's arguments and its own results
/// live in device buffers of the CapturedCall, which every replay reads and
/// writes in place, with one graph launch and no host wait. A result fed
/// back (a training step's new state) is copied, in the graph, into the
/// buffer of the argument it feeds, so that the next replay continues from
/// it. In the GPU simulator, the graph's launches run what the capture
/// recorded (SimulatorStats::graphLaunches counts them).
class CapturedCall {
public:
  CapturedCall(const CapturedCall &) = delete;
  CapturedCall &operator=(const CapturedCall &) = delete;
  ~CapturedCall();

  /// Queues one replay. `inputs` has one entry per argument: a host or
  /// device tensor (of the argument's call type and captured shape) copied
  /// into the argument's buffer first, or an empty CallArgument that leaves
  /// the buffer as it is (the state the last replay fed back). Returns
  /// without waiting for the device.
  llvm::Error replay(ArrayRef<CallArgument> inputs);

  /// Argument `index`'s buffer: its value for the next replay.
  DeviceTensor getArgument(size_t index) const { return arguments[index]; }
  /// Result `index` of the last replay: its own buffer, or for a fed-back
  /// result the buffer of the argument it feeds. download() waits for the
  /// device.
  DeviceTensor getResult(size_t index) const;
  size_t getNumArguments() const { return arguments.size(); }
  size_t getNumResults() const { return feedback.size(); }

private:
  friend class Executable;
  CapturedCall() = default;

  GpuRuntime *gpu = nullptr;
  AmpGpuGraph *graph = nullptr;
  std::string name;
  SmallVector<DeviceTensor> arguments, results;
  SmallVector<int64_t> feedback;
  /// The compiled code the graph's kernels belong to.
  std::shared_ptr<ExecutionEngine> engine;
};

//===----------------------------------------------------------------------===//
// Comparison and printing
//===----------------------------------------------------------------------===//

/// The error of `value` against `reference` (same type), in double.
struct ErrorStats {
  /// max |a - b|.
  double maxAbs = 0;
  /// max |a - b| / |b| over the elements where b != 0.
  double maxRel = 0;
  /// ||a - b||_2 / ||b||_2 (0 if both norms are 0, infinity if only b's is).
  double relL2 = 0;
  /// Elements where a or b is NaN or infinite: equal ones (same infinity, or
  /// NaN in both) and the others; neither counts in the figures above.
  int64_t nonFiniteEqual = 0;
  int64_t nonFiniteMismatch = 0;
};

ErrorStats compareTensors(const HostTensor &value, const HostTensor &reference);

/// The median of `values` (the mean of the middle two for an even count).
double median(ArrayRef<double> values);

/// Prints the values of `tensor` like NumPy: nested brackets, and only the
/// first and last `edgeItems` along each dimension when it has more than
/// `threshold` elements.
void printValues(llvm::raw_ostream &os, const HostTensor &tensor,
                 int64_t threshold = 1000, int64_t edgeItems = 3);

} // namespace runner
} // namespace amp
} // namespace mlir

#endif // AMP_RUNNER_RUNNER_H
