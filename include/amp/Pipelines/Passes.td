//===- Passes.td - the AMP levels as passes -----------------*- tablegen -*-===//
//
// Part of amp-mlir. --amp-o1 and --amp-o2: the whole AMP pipeline of a
// level, each one pass that runs the pipeline buildAmpPipeline builds, so
// that their options are the ones declared once in PassOptions.td.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_PIPELINES_PASSES_TD
#define AMP_PIPELINES_PASSES_TD

include "mlir/Pass/PassBase.td"
include "amp/Dialect/Amp/Transforms/PassOptions.td"

// Every option of the AMP pipeline, in the order --help lists them.
defvar AmpLevelOptions = !listconcat(AmpDecisionOptions, AmpOutputOptions,
                                     AmpCalibrationOptions, AmpTrainingOptions,
                                     AmpStageOptions);

class AmpLevelPass<string arg, string level> : Pass<arg, "::mlir::ModuleOp"> {
  let description = [{
    The AMP pipeline of level }] # level # [{, as one pass over the module:
    calibrated ranges attached (`amp-apply-ranges`, with `calibration`),
    constant `ml_program` globals inlined (`amp-inline-global-constants`),
    training steps built from forward-backward functions (`amp-training`,
    with `scaler` and `data-parallel`), then the precision stages
    (`amp-precision-pipeline`: the decision of `amp-auto-mixed-precision`,
    guards inlined, cast elision, the report, casts materialized, the
    precision graph), or each stage as its own pass with
    `split-stages=true`. The pipeline is built by `buildAmpPipeline`, the one
    builder that amp-opt, the runner (amp-run, amp-compile), the C API and
    Python use; its options are declared once, in `PassOptions.td`, and
    bound to the typed `AmpOptions`.

    An invalid option value (an unknown dtype, a placement that is not one
    of the four) is an error located at the module, before anything
    changes.
  }];
  let options = AmpLevelOptions;
}

def AmpO1Pass : AmpLevelPass<"amp-o1", "O1"> {
  let summary = "AMP level O1: white-list ops in low precision, black-list "
                "ops in fp32, gray ops placed as autocast's type promotion "
                "places them (placement=optimal: to move the fewest bytes; "
                "greedy: each follows its operands)";
}

def AmpO2Pass : AmpLevelPass<"amp-o2", "O2"> {
  let summary = "AMP level O2: every op that can runs in low precision, "
                "except the custom black list, pinned ops, ops outside "
                "guards, and norm statistics";
}

#endif // AMP_PIPELINES_PASSES_TD
