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
// RUN: amp-opt %s --amp-o2 --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: amp-opt %s --amp-o2=split-stages=true --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: not amp-opt %s --amp-precision-pipeline="report=xml" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// ONE: amp-precision-pipeline{
// ONE-NOT: amp-cast-elision
// SPLIT: amp-auto-mixed-precision{
// SPLIT: amp-inline-guards
// SPLIT: amp-cast-elision
// SPLIT: amp-materialize-casts
// BAD: error: amp: report must be none, text or json, got 'xml'
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %x, %x : tensor<4xf32>
  return %r : tensor<4xf32>
}
