// arg-precision takes keep or low; anything else is an error on the module,
// naming the value, before anything changes: exit status 1, no module printed.
// RUN: amp-opt %s --amp-o2="arg-precision=half" -verify-diagnostics
// RUN: amp-opt %s --amp-auto-mixed-precision="level=O1 arg-precision=LOW" -verify-diagnostics 2>&1 | FileCheck %s --check-prefix=CASE --allow-empty
// RUN: not amp-opt %s --amp-o1="arg-precision=f16" 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: not amp-opt %s --amp-auto-mixed-precision="arg-precision=" 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: amp-opt %s --amp-o2="arg-precision=half"; test $? -eq 1

// PIPELINE: error: amp: arg-precision must be keep or low, got 'f16'
// PIPELINE-NOT: func.func
// EMPTY: error: amp: arg-precision must be keep or low, got ''
// EMPTY-NOT: func.func
// CASE-NOT: func.func

// expected-error @+1 {{amp: arg-precision must be keep or low, got '}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = arith.addf %x, %x : tensor<4xf32>
    return %y : tensor<4xf32>
  }
}
