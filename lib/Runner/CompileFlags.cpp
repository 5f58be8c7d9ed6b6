//===- CompileFlags.cpp - a compilation's options as text, parsed once ----===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Runner/CompileFlags.h"
#include "amp/Pipelines/LoweringOptions.h"

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::runner;
namespace cl = llvm::cl;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Parses a non-empty `text` of enum `E` into `value`.
template <typename E>
static llvm::Error parseEnum(StringRef text, E &value, StringRef prefix) {
  if (text.empty())
    return llvm::Error::success();
  std::optional<E> parsed = parseOptionValue<E>(text);
  if (!parsed)
    return makeError(prefix + OptionSpellings<E>::option + " must be " +
                     describeOptionValues<E>() + ", not '" + text + "'");
  value = *parsed;
  return llvm::Error::success();
}

llvm::Error amp::runner::parseCompileOptions(const CompileOptionsText &text,
                                             CompileOptions &options,
                                             StringRef prefix) {
  if (llvm::Error error = parseEnum(text.level, options.level, prefix))
    return error;
  if (llvm::Error error = parseEnum(text.target, options.target, prefix))
    return error;
  std::string error;
  if (failed(parseAmpOptions(text.ampOptions, options.ampOptions, error)))
    return makeError(prefix + "amp-options: " + StringRef(error).trim());
  if (!text.dtype.empty())
    if (llvm::Error error = setDtype(text.dtype, options))
      return makeError(prefix + "dtype: " + llvm::toString(std::move(error)));
  if (!text.rounding.empty()) {
    RoundingMode rounding = RoundingMode::Once;
    if (llvm::Error error = parseEnum(text.rounding, rounding, prefix))
      return error;
    options.rounding = rounding;
  }
  if (llvm::Error error =
          parseEnum(text.checkNanInf, options.checkNanInf, prefix))
    return error;
  if (!text.cpuOptions.empty() && options.target != Target::Cpu)
    return makeError(prefix +
                     "cpu-options are options of the CPU lowering "
                     "(--lower-to-cpu); target '" +
                     stringifyOptionValue(options.target) +
                     "' does not read them");
  if (failed(parseLoweringOptions(text.cpuOptions, options.cpu, error)))
    return makeError(prefix + "cpu-options: " + error);
  if (failed(parseLoweringOptions(text.gpuOptions, options.gpu, error)))
    return makeError(prefix + "gpu-options: " + error);
  return llvm::Error::success();
}

CompileFlags::CompileFlags(cl::OptionCategory &category, StringRef defaultLevel)
    : level("level",
            cl::desc("AMP level: O0 (the module as written), O1 or O2"),
            cl::init(defaultLevel.str()), cl::cat(category)),
      dtype("dtype",
            cl::desc("Low-precision type of O1/O2: f16, bf16 or fp8 (bf16 "
                     "with the matmuls' operands in FP8; its --fp8-format, "
                     "--fp8-margin, --fp8-min-size, --fp8-cost-model); "
                     "default: a dtype= of --amp-options, else the policy "
                     "file's, else f16"),
            cl::init(""), cl::cat(category)),
      target("target",
             cl::desc("Where it runs: cpu (default), gpu, or gpu-sim (the "
                      "GPU pipeline's output on the CPU, in the GPU "
                      "simulator)"),
             cl::init("cpu"), cl::cat(category)),
      ampOptions("amp-options",
                 cl::desc("More options of the AMP pipeline, as for "
                          "--amp-o1 (e.g. \"custom-black-list=tosa.exp\")"),
                 cl::init(""), cl::cat(category)),
      rounding("rounding",
               cl::desc("How low-precision values are rounded: once (the "
                        "default: where stored, f32 inside each fused loop "
                        "nest or kernel) or per-op (after every low op, as "
                        "eager autocast)"),
               cl::init(""), cl::cat(category)),
      gpuOptions("gpu-options",
                 cl::desc("Options of --lower-to-gpu (e.g. \"chip=sm_80\")"),
                 cl::init(""), cl::cat(category)),
      cpuOptions("cpu-options",
                 cl::desc("Options of --lower-to-cpu (e.g. "
                          "\"libraries=false\" for generated loops instead "
                          "of the CPU library's calls)"),
                 cl::init(""), cl::cat(category)) {}

CompileOptionsText CompileFlags::getText(StringRef moreAmpOptions) const {
  CompileOptionsText text;
  text.level = level;
  text.dtype = dtype;
  text.target = target;
  text.ampOptions = ampOptions + moreAmpOptions.str();
  text.rounding = rounding;
  text.gpuOptions = gpuOptions;
  text.cpuOptions = cpuOptions;
  return text;
}
