// --amp-o1/--amp-o2 run their stages as one pass (amp-precision-pipeline),
// so the module is verified once; split-stages=true runs the stage passes
// one by one. Both give the same module.
// RUN: amp-opt %amp_src_root/examples/linalg_convnet.mlir --amp-o2 > %t.one
// RUN: amp-opt %amp_src_root/examples/linalg_convnet.mlir --amp-o2=split-stages=true > %t.split
// RUN: diff %t.one %t.split
// RUN: amp-opt %amp_src_root/examples/tosa_mlp_classifier.mlir --amp-o1="dtype=bf16 report=text report-file=%t.r1" > %t.one
// RUN: amp-opt %amp_src_root/examples/tosa_mlp_classifier.mlir --amp-o1="dtype=bf16 report=text report-file=%t.r2 split-stages=true" > %t.split
// RUN: diff %t.one %t.split
// RUN: diff %t.r1 %t.r2
// The passes that ran (--amp-o2 runs its pipeline as nested passes):
// RUN: amp-opt %s --amp-o2 --mlir-timing --mlir-timing-display=tree -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: amp-opt %s --amp-o2=split-stages=true --mlir-timing --mlir-timing-display=tree -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: not amp-opt %s --amp-precision-pipeline="report=xml" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// ONE: AmpO2Pass
// ONE: AmpPrecisionPipelinePass
// ONE-NOT: AmpCastElisionPass
// SPLIT: AmpO2Pass
// SPLIT: AmpAutoMixedPrecisionPass
// SPLIT-NEXT: AmpInlineGuardsPass
// SPLIT-NEXT: AmpCastElisionPass
// SPLIT-NEXT: AmpMaterializeCastsPass
// BAD: error: amp: report must be none, text or json, got 'xml'
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %x, %x : tensor<4xf32>
  return %r : tensor<4xf32>
}
