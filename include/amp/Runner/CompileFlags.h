//===- CompileFlags.h - a compilation's options, parsed once ----*- C++ -*-===//
//
// Part of amp-mlir. What names a compilation where it enters as text:
// amp-run's and amp-compile's flags (one flag set, CompileFlags, that both
// tools declare) and the C API's fields. parseCompileOptions is the one
// parser of that text into the typed CompileOptions, with one message per
// kind of wrong value; from there the options travel typed.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNNER_COMPILEFLAGS_H
#define AMP_RUNNER_COMPILEFLAGS_H

#include "amp/Runner/Runner.h"

#include "llvm/Support/CommandLine.h"

#include <string>

namespace mlir {
namespace amp {
namespace runner {

/// A compilation's options as text; empty: the default.
struct CompileOptionsText {
  /// "O0", "O1" or "O2" (any case); empty: O0.
  std::string level;
  /// "f16", "bf16", "fp8" or an alias (any case); empty: the pipeline's
  /// choice (a dtype= in ampOptions, else the policy file's, else f16).
  std::string dtype;
  /// "cpu", "gpu" or "gpu-sim"; empty: cpu.
  std::string target;
  /// Options of --amp-o1/--amp-o2, in their syntax: parsed with the other
  /// flags (an unknown option is an error there); their enumerated values
  /// are checked when the level runs, located at the module.
  std::string ampOptions;
  /// "once" or "per-op"; empty: the AMP pipeline's default (once).
  std::string rounding;
  /// Options of --lower-to-gpu and of --lower-to-cpu (the latter for the
  /// CPU only), in their syntax: parsed here into CompileOptions::gpu and
  /// ::cpu.
  std::string gpuOptions, cpuOptions;
  /// "low" or "all"; empty: no checks.
  std::string checkNanInf;
};

/// Parses `text` into `options` (the fields it names; the others are left
/// as they are). The error names the option with `prefix` before it ("--"
/// for the tools' flags): "--level must be O0, O1 or O2, not 'O3'",
/// "--dtype: unknown dtype 'f8' (expected ...)".
llvm::Error parseCompileOptions(const CompileOptionsText &text,
                                CompileOptions &options,
                                llvm::StringRef prefix = "");

/// The flags that name a compilation, declared once for amp-run and
/// amp-compile: --level, --dtype, --target, --amp-options, --rounding,
/// --gpu-options, --cpu-options. Construct it before parsing the command
/// line; its flags join `category`.
class CompileFlags {
public:
  CompileFlags(llvm::cl::OptionCategory &category,
               llvm::StringRef defaultLevel);

  /// The flags' values; `moreAmpOptions` is appended to --amp-options.
  CompileOptionsText getText(llvm::StringRef moreAmpOptions = "") const;
  /// --target's text, as given (for labels).
  llvm::StringRef getTargetName() const { return target; }

private:
  llvm::cl::opt<std::string> level, dtype, target, ampOptions, rounding,
      gpuOptions, cpuOptions;
};

} // namespace runner
} // namespace amp
} // namespace mlir

#endif // AMP_RUNNER_COMPILEFLAGS_H
