//===- AmpPipelines.h - the --amp-o1 / --amp-o2 pipelines -------*- C++ -*-===//
//
// Part of amp-mlir. The one builder of the AMP pipelines, used by amp-opt
// (--amp-o1, --amp-o2), the runner (amp-run, amp-compile), the C API and,
// through the C API, Python; and the one parser of their textual options.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_PIPELINES_AMPPIPELINES_H
#define AMP_PIPELINES_AMPPIPELINES_H

#include "amp/Dialect/Amp/Transforms/Options.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace mlir {
namespace amp {

#define GEN_PASS_DECL
#include "amp/Pipelines/Passes.h.inc"

/// Adds the AMP pipeline of `options`: constant globals inlined, training
/// steps built from forward-backward functions (amp-training), then the
/// stages (getAmpStages): as one pass, amp-precision-pipeline, unless
/// `splitStages`.
void buildAmpPipeline(OpPassManager &pm, const AmpOptions &options);

/// Parses `text` (--amp-o1's syntax: "dtype=bf16 placement=greedy") into
/// `options` for `level` (O1 or O2), with --amp-o1/--amp-o2's own parser (their
/// options are declared once, in PassOptions.td), checking every value; on
/// failure, `error` is the message (the option parser's, or "arg-precision must
/// be keep or low, got 'x'"). Op names and policy files are checked against a
/// context by checkAmpPolicy.
LogicalResult parseAmpOptions(llvm::StringRef text, AmpLevel level,
                              AmpOptions &options, std::string &error);

/// Registers --amp-o1 and --amp-o2.
void registerAmpPipelines();

} // namespace amp
} // namespace mlir

#endif // AMP_PIPELINES_AMPPIPELINES_H
