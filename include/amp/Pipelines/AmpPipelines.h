//===- AmpPipelines.h - the --amp-o1 / --amp-o2 pipelines -------*- C++ -*-===//
//
// Part of amp-mlir. The one builder of the AMP pipelines, used by amp-opt
// (--amp-o1, --amp-o2), the runner (amp-run, amp-compile, the C API) and,
// through the C API, Python.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_PIPELINES_AMPPIPELINES_H
#define AMP_PIPELINES_AMPPIPELINES_H

#include "amp/Dialect/Amp/Transforms/Options.h"

#include "mlir/Pass/PassManager.h"

namespace mlir {
namespace amp {

/// Adds the AMP pipeline of `options`: constant globals inlined, training
/// steps built from forward-backward functions (amp-training), then the
/// stages (getAmpStages): as one pass, amp-precision-pipeline, unless
/// `splitStages`.
void buildAmpPipeline(OpPassManager &pm, const AmpOptions &options);

/// The same from --amp-o1/--amp-o2's textual options. When a value is
/// invalid, the pipeline is one pass that reports it on the module (a
/// located error) and fails, as the precision passes report theirs.
void buildAmpPipeline(OpPassManager &pm, AmpLevel level,
                      const AmpPipelineOptions &options);

/// Registers --amp-o1 and --amp-o2.
void registerAmpPipelines();

} // namespace amp
} // namespace mlir

#endif // AMP_PIPELINES_AMPPIPELINES_H
