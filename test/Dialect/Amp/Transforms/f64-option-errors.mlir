// f64 takes demote or keep; it is a typed option, so any other word is
// rejected by the option parser, naming the word, before anything runs:
// exit status 1, no module printed. Both words are accepted, and reach the
// decision with split stages too.
// RUN: not amp-opt %s --amp-o2="f64=half" 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: not amp-opt %s --amp-o1="f64=Keep" 2>&1 | FileCheck %s --check-prefix=CASE
// RUN: not amp-opt %s --amp-auto-mixed-precision="f64=" 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not amp-opt %s --amp-precision-pipeline="f64=f32" 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: amp-opt %s --amp-o2="f64=half"; test $? -eq 1
// RUN: amp-opt %s --amp-o2="f64=keep" | FileCheck %s --check-prefix=KEEP
// RUN: amp-opt %s --amp-o2="f64=demote" | FileCheck %s --check-prefix=DEMOTE
// RUN: amp-opt %s --amp-o2="f64=keep split-stages=true" | FileCheck %s --check-prefix=KEEP

// PIPELINE: for the --f64 option: Cannot find option named 'half'!
// PIPELINE-NOT: func.func
// CASE: for the --f64 option: Cannot find option named 'Keep'!
// CASE-NOT: func.func
// EMPTY: for the --f64 option: Cannot find option named ''!
// EMPTY-NOT: func.func
// PASS: for the --f64 option: Cannot find option named 'f32'!
// PASS-NOT: func.func
// KEEP: arith.truncf %{{.*}} : tensor<4xf64> to tensor<4xf32>
// DEMOTE-NOT: f64

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = arith.extf %x : tensor<4xf32> to tensor<4xf64>
  %y = arith.mulf %w, %w : tensor<4xf64>
  %t = arith.truncf %y : tensor<4xf64> to tensor<4xf32>
  return %t : tensor<4xf32>
}
