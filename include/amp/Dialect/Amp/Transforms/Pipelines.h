//===- Pipelines.h - the --amp-o1 / --amp-o2 pipelines ----------*- C++ -*-===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_PIPELINES_H
#define AMP_DIALECT_AMP_TRANSFORMS_PIPELINES_H

#include "amp/Dialect/Amp/Transforms/Options.h"
#include "amp/Dialect/Amp/Transforms/Policy.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
namespace amp {

struct AmpPipelineOptions : public PassPipelineOptions<AmpPipelineOptions> {
  PassOptions::Option<std::string> dtype{
      *this, "dtype",
      llvm::cl::desc(
          "Low-precision type: f16 (default) or bf16 (also fp16, float16, "
          "half, bfloat16)"),
      llvm::cl::init("")};
  PassOptions::ListOption<std::string> customWhiteList{
      *this, "custom-white-list",
      llvm::cl::desc("Comma-separated op names forced to low precision")};
  PassOptions::ListOption<std::string> customBlackList{
      *this, "custom-black-list",
      llvm::cl::desc("Comma-separated op names kept in fp32")};
  PassOptions::Option<std::string> useFp16Guard{
      *this, "use-fp16-guard",
      llvm::cl::desc("Only ops inside amp.fp16_guard go low: true, false or "
                     "auto (true exactly when the module has a guard)"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> policyFile{
      *this, "policy-file", llvm::cl::desc("JSON policy file"),
      llvm::cl::init("")};
  PassOptions::Option<bool> explain{
      *this, "explain",
      llvm::cl::desc("A remark per decided op: precision and reason"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> report{
      *this, "report", llvm::cl::desc("Precision report: none, text or json"),
      llvm::cl::init("none")};
  PassOptions::Option<std::string> reportFile{
      *this, "report-file",
      llvm::cl::desc("Where the report goes: a path, '-' for stdout; "
                     "stderr by default"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> graphFile{
      *this, "graph-file",
      llvm::cl::desc("Write the precision graph of the result (Graphviz "
                     "DOT) to this path, '-' for stdout; none by default"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> placement{
      *this, "placement",
      llvm::cl::desc(
          "Gray-op placement at O1: optimal (fewest bytes moved, min-cut) "
          "or greedy (each follows its operands)"),
      llvm::cl::init("optimal")};
  PassOptions::Option<std::string> lossScaling{
      *this, "loss-scaling",
      llvm::cl::desc("Loss scaling of training steps: auto (on for f16, off "
                     "for bf16), on or off (scale 1, finite check kept)"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> scaler{
      *this, "scaler",
      llvm::cl::desc("Loss-scaler preset of the training steps that the "
                     "pipeline builds from forward-backward functions "
                     "(amp-training) without an amp.loss_scaling attribute"),
      llvm::cl::init("pytorch")};
  PassOptions::Option<bool> dataParallel{
      *this, "data-parallel",
      llvm::cl::desc("Training steps built from forward-backward functions "
                     "all-reduce found_inf, the gradients and the loss across "
                     "ranks"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> argPrecision{
      *this, "arg-precision",
      llvm::cl::desc("Float tensor arguments of public functions: keep (as "
                     "written) or low (the low type where every user "
                     "converts them to it)"),
      llvm::cl::init("keep")};
  PassOptions::Option<std::string> rounding{
      *this, "rounding",
      llvm::cl::desc("How the lowering rounds low-precision values: once "
                     "(where a value is stored or read by a contraction) or "
                     "per-op (after every low op, as eager autocast)"),
      llvm::cl::init("once")};
  PassOptions::Option<F64Computations> f64{
      *this, "f64",
      llvm::cl::desc("f64 computations between f32 values (torch-mlir's "
                     "norm statistics): demote (to f32, then decided like "
                     "the other ops) or keep (in f64)"),
      llvm::cl::init(F64Computations::Demote), AMP_F64_COMPUTATIONS_VALUES};
  PassOptions::Option<bool> keepAmpCasts{
      *this, "keep-amp-casts",
      llvm::cl::desc("Leave amp.cast ops for AMP-aware passes instead of "
                     "arith.extf/truncf and tosa.cast"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> splitStages{
      *this, "split-stages",
      llvm::cl::desc("Run the stages as separate passes (one verification "
                     "and --mlir-print-ir-after-all dump each) instead of "
                     "amp-precision-pipeline"),
      llvm::cl::init(false)};
};

/// Adds the AMP pipeline of `level`: decide and rewrite, inline the guards,
/// cast elision, report, materialize the casts, precision graph. One pass
/// (amp-precision-pipeline) unless `splitStages`.
void buildAmpPipeline(OpPassManager &pm, AmpLevel level,
                      const AmpPipelineOptions &options);

/// Registers --amp-o1 and --amp-o2.
void registerAmpPipelines();

} // namespace amp
} // namespace mlir

#endif // AMP_DIALECT_AMP_TRANSFORMS_PIPELINES_H
