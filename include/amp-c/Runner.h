/*===- amp-c/Runner.h - compile and run modules under AMP, C API -*- C -*-===*\
|*                                                                          *|
|* Part of amp-mlir. A C interface to the AmpRunner library (what amp-run   *|
|* does), for languages that load shared libraries: the Python package      *|
|* (python/amp_mlir) calls it through ctypes. It parses a module, applies  *|
|* an AMP level, lowers it for the CPU or an NVIDIA GPU, JIT-compiles it    *|
|* and calls its functions on dense row-major host buffers.                 *|
|*                                                                          *|
|* Conventions: functions returning a pointer return NULL on failure, and   *|
|* functions returning `int` return 0 on success and non-zero on failure;  *|
|* ampRunnerGetLastError() then says why (per thread, valid until the next  *|
|* call that fails on that thread). Nothing here aborts on bad input.       *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/

#ifndef AMP_C_RUNNER_H
#define AMP_C_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define AMP_RUNNER_CAPI __attribute__((visibility("default")))
#else
#define AMP_RUNNER_CAPI
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Version of this interface; bumped on incompatible changes. */
#define AMP_RUNNER_CAPI_VERSION 15
AMP_RUNNER_CAPI int ampRunnerGetApiVersion(void);

/** The message of the last failure on this thread ("" if none). */
AMP_RUNNER_CAPI const char *ampRunnerGetLastError(void);

/** What the last ampRunnerCompile, ampRunnerModuleTransform,
 *  ampRunnerModuleParse or ampRunnerModuleBuildTrainingSteps on this thread
 *  reported besides its result, whether it succeeded or failed, as a JSON
 *  object (nothing of it goes to stderr or stdout): "diagnostics", in
 *  order, each with "severity" ("error", "warning", "remark"), "location"
 *  ("file:line:col", "" if unknown), "message", "op" (the name of the op
 *  it is about, or null) and "notes" (each with "location" and "message"):
 *  the warnings and remarks, and the errors (of ampRunnerCompile: those no
 *  stage put in its message; of the others: all of them); "stderr", the
 *  text the AMP pipeline would have written there (report=text|json
 *  without report-file); "stdout", what it would have written there
 *  (report-file=-, then graph-file=-). Valid until the next of these calls
 *  on the thread; "{}" before the first. */
AMP_RUNNER_CAPI const char *ampRunnerGetLastDiagnostics(void);

/** The names of the dialects a module parsed by ampRunnerModuleParse may
 *  use (the ones its context registers), sorted and separated by commas,
 *  e.g. "acc,affine,amdgpu,amp,...". Static storage; never NULL. */
AMP_RUNNER_CAPI const char *ampRunnerGetRegisteredDialects(void);

/** The values an enumerated option accepts, from the one spelling table of
 *  amp-mlir (amp/Dialect/Amp/Transforms/Options.h): `option` is its name in
 *  the AMP pipeline's options ("placement", "loss-scaling",
 *  "arg-precision", "rounding", "use-fp16-guard", "report", "f64") or a
 *  compilation's ("level", "dtype", "target", "check-nan-inf"). The printed
 *  spelling of each value, in table order, separated by commas
 *  ("keep,low"); aliases are accepted but not listed. NULL for an option
 *  that is not enumerated, with the error. Owned by the library. */
AMP_RUNNER_CAPI const char *ampRunnerGetOptionValues(const char *option);

/** Every spelling an enumerated option accepts, aliases included, each
 *  with the value it names: "spelling=value" pairs (the value as
 *  ampRunnerGetOptionValues prints it), in table order, separated by commas
 *  ("f16=f16,bf16=bf16,fp16=f16,...,fp8=fp8,float8=fp8" for "dtype"). For
 *  the options of ampRunnerGetOptionValues; NULL for others, with the
 *  error. Owned by the library. Since version 11. */
AMP_RUNNER_CAPI const char *ampRunnerGetOptionSpellings(const char *option);

/*===----------------------------------------------------------------------===*
 * Modules
 *===----------------------------------------------------------------------===*/

/** A parsed module with its own MLIRContext. */
typedef struct AmpRunnerModule AmpRunnerModule;

/** Parses `length` bytes of MLIR assembly. `name` appears in diagnostics
 *  (a file name, or "<string>"). NULL on a parse error, with the parser's
 *  diagnostics in ampRunnerGetLastError() (as text, with the source lines)
 *  and in ampRunnerGetLastDiagnostics() (located, one object each). */
AMP_RUNNER_CAPI AmpRunnerModule *
ampRunnerModuleParse(const char *text, size_t length, const char *name);
/** Destroys a module; NULL is a no-op. Executables compiled from it stay
 *  valid. */
AMP_RUNNER_CAPI void ampRunnerModuleDestroy(AmpRunnerModule *module);
/** The number of top-level func.func ops, and the name of the i-th one
 *  (owned by the module; NULL out of range). */
AMP_RUNNER_CAPI int64_t ampRunnerModuleGetNumFunctions(AmpRunnerModule *module);
AMP_RUNNER_CAPI const char *
ampRunnerModuleGetFunctionName(AmpRunnerModule *module, int64_t index);

/** How to compile (see "Compilation" below). */
typedef struct AmpRunnerOptions AmpRunnerOptions;

/** The module after the training stage of the AMP pipeline (amp-training):
 *  each forward-backward function of the training convention becomes a
 *  training step, as MLIR text. Of `options` (NULL: the defaults), the
 *  options of the AMP pipeline are checked as at O2, and the training stage
 *  reads scaler and data-parallel. The module itself is not changed. The
 *  text is owned by the module and valid until the next call on it. NULL on
 *  failure, with the located errors in ampRunnerGetLastError(); warnings
 *  and remarks are in ampRunnerGetLastDiagnostics() either way. Since
 *  version 13 (before, the AMP options' text). */
AMP_RUNNER_CAPI const char *
ampRunnerModuleBuildTrainingSteps(AmpRunnerModule *module,
                                  const AmpRunnerOptions *options);

/*===----------------------------------------------------------------------===*
 * Compilation
 *===----------------------------------------------------------------------===*/

/* How to compile: an AmpRunnerOptions made with ampRunnerOptionsCreate,
 * whose options are set one by one, each by a typed setter; a NULL options
 * pointer, wherever one is taken, means all the defaults. The setters
 * check their value where it enters and return 0, or non-zero with the
 * message in ampRunnerGetLastError() (the option unchanged). Since version
 * 12 (before, a struct of strings). */

/** A new set of options, all at their defaults; never NULL. */
AMP_RUNNER_CAPI AmpRunnerOptions *ampRunnerOptionsCreate(void);
/** Destroys options; NULL is a no-op. */
AMP_RUNNER_CAPI void ampRunnerOptionsDestroy(AmpRunnerOptions *options);

/** The values of the enumerated options, in the order of their spelling
 *  tables (the order ampRunnerGetOptionValues lists them in). */
typedef enum AmpRunnerLevel {
  AMP_RUNNER_LEVEL_O0 = 0, /**< The module as written (the default). */
  AMP_RUNNER_LEVEL_O1 = 1,
  AMP_RUNNER_LEVEL_O2 = 2,
} AmpRunnerLevel;
typedef enum AmpRunnerDtype {
  AMP_RUNNER_DTYPE_F16 = 0,
  AMP_RUNNER_DTYPE_BF16 = 1,
  AMP_RUNNER_DTYPE_FP8 = 2, /**< bf16, the contractions' operands in FP8
                                 (dtype=fp8 of the AMP pipeline). */
} AmpRunnerDtype;
typedef enum AmpRunnerTarget {
  AMP_RUNNER_TARGET_CPU = 0, /**< The default. */
  AMP_RUNNER_TARGET_GPU = 1,
  AMP_RUNNER_TARGET_GPU_SIM = 2, /**< The GPU pipeline's output, run by the
                                      GPU simulator. */
} AmpRunnerTarget;
typedef enum AmpRunnerRounding {
  AMP_RUNNER_ROUNDING_ONCE = 0,   /**< Low-precision values rounded where
                                       stored, f32 inside each loop nest. */
  AMP_RUNNER_ROUNDING_PER_OP = 1, /**< After every low op. */
} AmpRunnerRounding;
typedef enum AmpRunnerCheckNanInf {
  AMP_RUNNER_CHECK_NAN_INF_OFF = 0, /**< The default. */
  AMP_RUNNER_CHECK_NAN_INF_LOW = 1,
  AMP_RUNNER_CHECK_NAN_INF_ALL = 2,
} AmpRunnerCheckNanInf;
/** The two lowerings, whose options ampRunnerOptionsSetLowering* set. */
typedef enum AmpRunnerLowering {
  AMP_RUNNER_LOWERING_CPU = 0, /**< --lower-to-cpu (target cpu). */
  AMP_RUNNER_LOWERING_GPU = 1, /**< --lower-to-gpu (targets gpu, gpu-sim). */
} AmpRunnerLowering;

/** The AMP level (default O0). */
AMP_RUNNER_CAPI int ampRunnerOptionsSetLevel(AmpRunnerOptions *options,
                                             AmpRunnerLevel level);
/** The low-precision type of O1/O2; unset: a dtype= in the AMP options,
 *  else the policy file's, else f16. */
AMP_RUNNER_CAPI int ampRunnerOptionsSetDtype(AmpRunnerOptions *options,
                                             AmpRunnerDtype dtype);
/** Where it runs (default cpu). */
AMP_RUNNER_CAPI int ampRunnerOptionsSetTarget(AmpRunnerOptions *options,
                                              AmpRunnerTarget target);
/** How low-precision values are rounded, in the level and the lowering;
 *  unset: the level's (once). */
AMP_RUNNER_CAPI int ampRunnerOptionsSetRounding(AmpRunnerOptions *options,
                                                AmpRunnerRounding rounding);
/** Run --amp-check-nan-inf after the level (target cpu only): a call that
 *  produces an Inf or a NaN in a checked op fails, naming the first. */
AMP_RUNNER_CAPI int ampRunnerOptionsSetCheckNanInf(AmpRunnerOptions *options,
                                                   AmpRunnerCheckNanInf check);
/** Non-zero: ampRunnerModuleGetLastTiming also has MLIR's time of each
 *  pass and LLVM's (-mlir-timing, -time-passes); zero (the default): the
 *  time of each stage only. */
AMP_RUNNER_CAPI int ampRunnerOptionsSetTimePasses(AmpRunnerOptions *options,
                                                  int passes);
/** libamp_runtime.so (target gpu, and cpu code calling the collectives) or
 *  libamp_runtime_gpusim.so (gpu-sim); NULL/"" (the default): the one next
 *  to libAmpRunnerCAPI.so. */
AMP_RUNNER_CAPI int ampRunnerOptionsSetRuntimeLibrary(AmpRunnerOptions *options,
                                                      const char *path);
/** Range calibration (level O0 only): the entry function of this name also
 *  returns a tensor<Nxf32>, the largest finite magnitude of each of its N
 *  float tensors (amp-record-ranges), for a calibration file; NULL/"": off. */
AMP_RUNNER_CAPI int ampRunnerOptionsSetRecordRanges(AmpRunnerOptions *options,
                                                    const char *function);
/** The options of the AMP pipeline (--amp-o1/--amp-o2, declared in
 *  PassOptions.td), each as "name=kind" with kind "bool", "integer",
 *  "float", "string" or "strings" (the setter it takes), in declaration
 *  order, separated by commas ("dtype=string,...,split-stages=bool").
 *  Static storage. Since version 13. */
AMP_RUNNER_CAPI const char *ampRunnerGetAmpOptions(void);
/** Sets option `name` of the AMP pipeline (as `amp-opt --amp-o2="name=.."`
 *  does) to a value of its kind: a bool (non-zero is true), an integer, a
 *  float (an integer also sets a float option), a string (an enumerated
 *  option's spelling: "greedy" for placement), or `count` strings (the op
 *  lists). Non-zero for an unknown name, a value of another kind or an
 *  integer out of the option's range. An enumerated value's spelling and
 *  the combinations (fp8-* options without dtype fp8) are checked when the
 *  level reads them (ampRunnerCheckOptions, ampRunnerCompile); a level of
 *  O0 reads none. ampRunnerOptionsSetDtype's dtype wins over a dtype set
 *  here. Since version 13. */
AMP_RUNNER_CAPI int ampRunnerOptionsSetAmpBool(AmpRunnerOptions *options,
                                               const char *name, int value);
AMP_RUNNER_CAPI int ampRunnerOptionsSetAmpInt(AmpRunnerOptions *options,
                                              const char *name, int64_t value);
AMP_RUNNER_CAPI int ampRunnerOptionsSetAmpFloat(AmpRunnerOptions *options,
                                                const char *name, double value);
AMP_RUNNER_CAPI int ampRunnerOptionsSetAmpString(AmpRunnerOptions *options,
                                                 const char *name,
                                                 const char *value);
AMP_RUNNER_CAPI int ampRunnerOptionsSetAmpStrings(AmpRunnerOptions *options,
                                                  const char *name,
                                                  const char *const *values,
                                                  int64_t count);
/** Sets the options of the AMP pipeline that `text` names, in their syntax
 *  ("custom-black-list=math.exp placement=greedy"), as the typed setters
 *  would: parsed here, by --amp-o1/--amp-o2's own parser (a syntax error or
 *  an unknown option fails here, at any level); the options it does not
 *  name keep their values. For text that a user wrote (a tool's flag, a
 *  configuration file); a program sets options by name. */
AMP_RUNNER_CAPI int ampRunnerOptionsSetAmpOptions(AmpRunnerOptions *options,
                                                  const char *text);

/** The options of a lowering, each as "name=kind" with kind "bool",
 *  "integer" or "string" (the setter it takes), in declaration order,
 *  separated by commas ("c-interface=bool,...,split-reductions=integer").
 *  Static storage. */
AMP_RUNNER_CAPI const char *
ampRunnerGetLoweringOptions(AmpRunnerLowering lowering);
/** Sets option `name` of `lowering` (as amp-opt's --lower-to-cpu="name=.."
 *  or --lower-to-gpu="name=.." does) to a value of its kind: a bool
 *  (non-zero is true), an integer, or a string in the option's own form
 *  ("sm_80" for chip, "isa" for format). Non-zero for an unknown name, a
 *  value of another kind or out of the option's range. Options of the CPU
 *  lowering make a compilation for another target fail. */
AMP_RUNNER_CAPI int ampRunnerOptionsSetLoweringBool(AmpRunnerOptions *options,
                                                    AmpRunnerLowering lowering,
                                                    const char *name,
                                                    int value);
AMP_RUNNER_CAPI int ampRunnerOptionsSetLoweringInt(AmpRunnerOptions *options,
                                                   AmpRunnerLowering lowering,
                                                   const char *name,
                                                   int64_t value);
AMP_RUNNER_CAPI int
ampRunnerOptionsSetLoweringString(AmpRunnerOptions *options,
                                  AmpRunnerLowering lowering, const char *name,
                                  const char *value);

/** A JIT-compiled entry function. */
typedef struct AmpRunnerExecutable AmpRunnerExecutable;

/** Compiles function `entry` of `module` (NULL or "": the module's only
 *  function). Every argument and result must be a ranked tensor with f32,
 *  f16, bf16, f64, i32, i64 or i1 (one byte per element) elements; dimensions
 * may be dynamic (`?`). NULL on failure, with the diagnostics of the failing
 * stage. */
AMP_RUNNER_CAPI AmpRunnerExecutable *
ampRunnerCompile(AmpRunnerModule *module, const char *entry,
                 const AmpRunnerOptions *options);
AMP_RUNNER_CAPI void ampRunnerExecutableDestroy(AmpRunnerExecutable *exe);

/** Compiles `entry` (as ampRunnerCompile) and, with `others` non-zero,
 *  every other function of the module that can be compiled under these
 *  options (a supported signature; at O1/O2, not a forward-backward
 *  function), in one run of the pipelines and one JIT. Writes up to
 *  `capacity` executables to `executables`, `entry`'s first; each is
 *  destroyed on its own (the code they share lives until the last is).
 *  Returns how many it wrote, or -1 on failure (`entry`'s error). */
AMP_RUNNER_CAPI int64_t
ampRunnerCompileFunctions(AmpRunnerModule *module, const char *entry,
                          int others, const AmpRunnerOptions *options,
                          AmpRunnerExecutable **executables, int64_t capacity);

/** The time of each stage of the last compilation of `module`
 *  (ampRunnerCompile, ampRunnerCompileFunctions), as JSON, owned by the
 *  module and valid until the next call on it: {"stages": [{"name":
 *  "parse", "seconds": ..., "cpu_seconds": ...}, then "AMP passes",
 *  "lowering", "LLVM IR translation", "LLVM optimization", "machine
 *  code"], "llvm_opt_level", "largest_function", "detached_constants",
 *  "detached_bytes", "pass_report" (with timing "passes", else "")}. "{}"
 *  before the first compilation. */
AMP_RUNNER_CAPI const char *
ampRunnerModuleGetLastTiming(AmpRunnerModule *module);

/** Checks `options` for `module` without compiling: what the setters could
 *  not check alone (CPU lowering options for another target, a range
 *  calibration at O1/O2), and at O1/O2
 *  the values of the AMP pipeline's options (the spellings of enumerated
 *  values, and their combinations), the policy file, and that the op
 *  names of the lists are registered and in one list only. 0 when they are
 *  valid; else non-zero, with ampRunnerGetLastError() the message, located
 *  ("file:line:col: error: amp: arg-precision must be keep or low, got
 *  'x'"). */
AMP_RUNNER_CAPI int ampRunnerCheckOptions(AmpRunnerModule *module,
                                          const AmpRunnerOptions *options);

/** What ampRunnerModuleTransform returns. */
typedef enum AmpRunnerTransformOutput {
  AMP_RUNNER_TRANSFORM_MODULE = 0, /**< The module, as MLIR text. */
  AMP_RUNNER_TRANSFORM_REPORT = 1, /**< The precision report, as JSON
                                        (report=json; at O0, of the module as
                                        written). */
  AMP_RUNNER_TRANSFORM_GRAPH = 2,  /**< The precision graph, as Graphviz DOT
                                        (graph-file=; at O0, of the module as
                                        written, titled amp-o0). */
} AmpRunnerTransformOutput;

/** What `amp-opt --amp-o1/--amp-o2="<ampOptions>" [--lower-to-<target>]`
 *  does, in-process, on a copy of the module: the options' level with its
 *  dtype, AMP options and rounding (O0: none), then, with `lower` non-zero,
 *  the lowering of its target with its lowering's options. Returns `output` (an
 * AmpRunnerTransformOutput) of the result as text, owned by the module and
 * valid until the next call on it. NULL on failure, with the message in
 * ampRunnerGetLastError(); the errors, warnings and remarks are in
 * ampRunnerGetLastDiagnostics() either way, located, with what the AMP pipeline
 * would have printed (a report=text without report-file) in its "stderr" and
 * "stdout". */
AMP_RUNNER_CAPI const char *
ampRunnerModuleTransform(AmpRunnerModule *module,
                         const AmpRunnerOptions *options, int lower,
                         int output);

/*===----------------------------------------------------------------------===*
 * Signatures
 *===----------------------------------------------------------------------===*/

/** Element types of arguments and results. */
typedef enum AmpRunnerElementType {
  AMP_RUNNER_F32 = 0,
  AMP_RUNNER_F16 = 1,  /**< IEEE binary16 bits in uint16_t. */
  AMP_RUNNER_BF16 = 2, /**< bfloat16 bits in uint16_t. */
  AMP_RUNNER_F64 = 3,
  AMP_RUNNER_I32 = 4,
  AMP_RUNNER_I64 = 5,
  AMP_RUNNER_I1 = 6,
} AmpRunnerElementType;

AMP_RUNNER_CAPI const char *ampRunnerGetName(AmpRunnerExecutable *exe);
/** The low-precision type the level applied ("f16", "bf16"), "" at O0. */
AMP_RUNNER_CAPI const char *
ampRunnerGetLowPrecisionType(AmpRunnerExecutable *exe);
AMP_RUNNER_CAPI int64_t ampRunnerGetNumArguments(AmpRunnerExecutable *exe);
AMP_RUNNER_CAPI int64_t ampRunnerGetNumResults(AmpRunnerExecutable *exe);
/** The type of argument (isResult == 0) or result (isResult != 0) `index`:
 *  its element type, its rank, and its shape (`rank` values owned by the
 *  executable; -1 for a dynamic dimension). Non-zero for an index out of
 *  range. */
AMP_RUNNER_CAPI int ampRunnerGetTensorType(AmpRunnerExecutable *exe,
                                           int isResult, int64_t index,
                                           int32_t *elementType, int64_t *rank,
                                           const int64_t **shape);

/*===----------------------------------------------------------------------===*
 * Execution
 *===----------------------------------------------------------------------===*/

/** Calls a function whose signature has static shapes. `inputs[i]` is a
 *  dense row-major host buffer of argument i's type, which the call does not
 *  modify; `outputs[i]` a dense row-major host buffer of result i's size,
 *  which it fills. For dynamic shapes, use ampRunnerCall. */
AMP_RUNNER_CAPI int ampRunnerRun(AmpRunnerExecutable *exe,
                                 const void *const *inputs,
                                 void *const *outputs);

/** One warm-up call, then `repeat` timed calls on `inputs`; writes each
 *  call's duration in seconds to durations[0..repeat) (for the GPU, up to
 *  the end of the work on the stream). */
AMP_RUNNER_CAPI int ampRunnerTime(AmpRunnerExecutable *exe,
                                  const void *const *inputs, int64_t repeat,
                                  double *durations);

/** The results of one call, with their shapes. */
typedef struct AmpRunnerResults AmpRunnerResults;

/** Calls the function. `inputs[i]` is a dense row-major host buffer of
 *  argument i, of shape `inputShapes[i]` (as many values as the argument's
 *  rank; its size where the signature has a static one), aligned to its
 *  element. `inputShapes` may be NULL when every argument has a static
 *  shape. On the CPU the function reads the buffers in place, during the
 *  call, and never writes them. NULL on failure. */
AMP_RUNNER_CAPI AmpRunnerResults *
ampRunnerCall(AmpRunnerExecutable *exe, const void *const *inputs,
              const int64_t *const *inputShapes);
/** The number of results. */
AMP_RUNNER_CAPI int64_t ampRunnerResultsGetNum(AmpRunnerResults *results);
/** Result `index`: its rank, shape (`rank` values) and dense row-major data
 *  (of the result type's element type), all owned by `results`. An error
 *  for a result kept on the device (ampRunnerResultsGetDevice). */
AMP_RUNNER_CAPI int ampRunnerResultsGet(AmpRunnerResults *results,
                                        int64_t index, int64_t *rank,
                                        const int64_t **shape,
                                        const void **data);
AMP_RUNNER_CAPI void ampRunnerResultsDestroy(AmpRunnerResults *results);

/** A host result taken out of its AmpRunnerResults: it owns the data,
 *  which lives until ampRunnerHostBufferDestroy. */
typedef struct AmpRunnerHostBuffer AmpRunnerHostBuffer;
/** Takes host result `index` out of `results`, without a copy on the CPU
 *  (the buffer the compiled code returned): its rank, shape (owned by the
 *  handle) and dense row-major data, writable. Later ampRunnerResultsGet
 *  and ampRunnerResultsTake of the same result fail. NULL on failure (a
 *  result kept on the device, one taken already). */
AMP_RUNNER_CAPI AmpRunnerHostBuffer *
ampRunnerResultsTake(AmpRunnerResults *results, int64_t index, int64_t *rank,
                     const int64_t **shape, void **data);
AMP_RUNNER_CAPI void ampRunnerHostBufferDestroy(AmpRunnerHostBuffer *buffer);

/** The host-to-host copies the runner made for the calls of `exe` so far:
 *  the calls, and the bytes of inputs and of results copied (see
 *  HostCopyStats in amp/Runner/Runner.h: on the CPU, only an argument
 *  converted to a narrowed type, and a buffer returned as two results).
 *  Any pointer may be NULL. */
AMP_RUNNER_CAPI int ampRunnerGetHostCopyStats(AmpRunnerExecutable *exe,
                                              int64_t *calls,
                                              int64_t *inputBytes,
                                              int64_t *resultBytes);

/** A tensor kept on the device of a function's runtime (targets gpu and
 *  gpu-sim) between calls: a result of ampRunnerCallDevice, to pass to later
 *  calls without copies. Each handle is destroyed by
 *  ampRunnerDeviceTensorDestroy; the buffer is freed with the last handle
 *  to it. */
typedef struct AmpRunnerDeviceTensor AmpRunnerDeviceTensor;

/** ampRunnerCall with some arguments on the device and some results kept
 *  there. `deviceInputs` is NULL or has one entry per argument: a device
 *  tensor used in place of inputs[i] (the function may write into it), or
 *  NULL for a host argument. `keep` is NULL or has one flag per result:
 *  nonzero keeps the result on the device (ampRunnerResultsGetDevice), as
 *  long as it is a dense buffer of its own; otherwise it comes back on the
 *  host. NULL on failure. */
AMP_RUNNER_CAPI AmpRunnerResults *
ampRunnerCallDevice(AmpRunnerExecutable *exe, const void *const *inputs,
                    const int64_t *const *inputShapes,
                    AmpRunnerDeviceTensor *const *deviceInputs,
                    const int32_t *keep);
/** Result `index` if it was kept on the device: a new handle; NULL, without
 *  an error, for a result on the host (ampRunnerResultsGet has it). */
AMP_RUNNER_CAPI AmpRunnerDeviceTensor *
ampRunnerResultsGetDevice(AmpRunnerResults *results, int64_t index);
/** The tensor's element type (AmpRunnerElementType), rank and shape (owned
 *  by the handle). */
AMP_RUNNER_CAPI int ampRunnerDeviceTensorGetType(AmpRunnerDeviceTensor *tensor,
                                                 int32_t *elementType,
                                                 int64_t *rank,
                                                 const int64_t **shape);
/** Copies the tensor into `data`, a dense row-major host buffer of its size
 *  (synchronizing the device). */
AMP_RUNNER_CAPI int ampRunnerDeviceTensorRead(AmpRunnerDeviceTensor *tensor,
                                              void *data);
AMP_RUNNER_CAPI void
ampRunnerDeviceTensorDestroy(AmpRunnerDeviceTensor *tensor);

/** ampRunnerTime with the shapes of the inputs, as in ampRunnerCall. */
AMP_RUNNER_CAPI int ampRunnerTimeShaped(AmpRunnerExecutable *exe,
                                        const void *const *inputs,
                                        const int64_t *const *inputShapes,
                                        int64_t repeat, double *durations);

/** A call captured as a CUDA graph (targets gpu and gpu-sim): the function's
 *  arguments and its own results live in buffers of the handle, which each
 *  replay reads and writes with one graph launch and no host wait (see
 *  mlir::amp::runner::CapturedCall). */
typedef struct AmpRunnerCapturedCall AmpRunnerCapturedCall;

/** Captures a call of the function on the inputs of ampRunnerCallDevice
 *  (the function is called once before, on copies of them). `feedback` is
 *  NULL or has one entry per result: the index of the argument whose
 *  buffer the result is copied into at the end of each replay (a training
 *  step's new state), or -1. NULL on failure. */
AMP_RUNNER_CAPI AmpRunnerCapturedCall *
ampRunnerCapture(AmpRunnerExecutable *exe, const void *const *inputs,
                 const int64_t *const *inputShapes,
                 AmpRunnerDeviceTensor *const *deviceInputs,
                 const int64_t *feedback);
/** Queues one replay (returns without waiting). Argument i is first set
 *  from deviceInputs[i] or else inputs[i] (a dense host buffer of the
 *  argument's call type, of shape inputShapes[i], which must be the
 *  captured one; inputShapes NULL: the captured shapes); where both are
 *  NULL (or the arrays are NULL) it keeps what its buffer holds. */
AMP_RUNNER_CAPI int ampRunnerReplay(AmpRunnerCapturedCall *call,
                                    const void *const *inputs,
                                    const int64_t *const *inputShapes,
                                    AmpRunnerDeviceTensor *const *deviceInputs);
/** A new handle to argument `index`'s buffer (its value for the next
 *  replay), or to result `index` of the last replay (for a fed-back result,
 *  the buffer of the argument it feeds). NULL on failure. */
AMP_RUNNER_CAPI AmpRunnerDeviceTensor *
ampRunnerCapturedArgument(AmpRunnerCapturedCall *call, int64_t index);
AMP_RUNNER_CAPI AmpRunnerDeviceTensor *
ampRunnerCapturedResult(AmpRunnerCapturedCall *call, int64_t index);
/** Destroys the graph (after its launches finish); the buffers live on in
 *  the device tensors that hold them. */
AMP_RUNNER_CAPI void ampRunnerCapturedDestroy(AmpRunnerCapturedCall *call);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AMP_C_RUNNER_H */
