// RUN: amp-opt %s -split-input-file --amp-inline-global-constants | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-o2 | FileCheck %s --check-prefix=O2

// Loads of constant globals become constants; the private globals go.
// CHECK-LABEL: module
// CHECK-NOT: ml_program.global private @w
// CHECK-NOT: ml_program.global private @r
// CHECK: func.func @loads
// CHECK-DAG: %[[W:.*]] = arith.constant dense<{{\[}}1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[R:.*]] = arith.constant dense_resource<blob> : tensor<2xf32>
// CHECK-DAG: %[[W2:.*]] = arith.constant dense<{{\[}}1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: return %[[W]], %[[W2]], %[[R]]
// At O2 the weights are then narrowed at compile time: no global, no cast.
// O2-LABEL: func.func @loads
// O2-NOT: ml_program
// O2: arith.constant dense<{{\[}}1.000000e+00, 2.000000e+00]> : tensor<2xf16>
module {
  ml_program.global private @w(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @r(dense_resource<blob> : tensor<2xf32>) : tensor<2xf32>
  func.func @loads() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
    %w = ml_program.global_load_const @w : tensor<2xf32>
    %w2 = ml_program.global_load @w : tensor<2xf32>
    %r = ml_program.global_load_const @r : tensor<2xf32>
    %a = arith.addf %w, %w2 : tensor<2xf32>
    return %w, %w2, %r : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  }
}
{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F00000040"
    }
  }
#-}

// -----

// Mutable globals (a random seed) stay; a public global stays next to the
// constants of its loads; a global whose value is not a tensor literal (here
// #ml_program.extern) is kept as it is.
// CHECK-LABEL: module
// CHECK: ml_program.global private mutable @seed
// CHECK: ml_program.global public @shared
// CHECK: ml_program.global private @external(#{{.*}}) : tensor<2xf32>
// CHECK: func.func @kept
// CHECK: %[[S:.*]] = ml_program.global_load @seed
// CHECK: %[[P:.*]] = arith.constant dense<3.000000e+00> : tensor<2xf32>
// CHECK: %[[E:.*]] = ml_program.global_load_const @external
module {
  ml_program.global private mutable @seed(dense<0> : tensor<i64>) : tensor<i64>
  ml_program.global public @shared(dense<3.0> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @external(#ml_program.extern : tensor<2xf32>) : tensor<2xf32>
  func.func @kept() -> (tensor<i64>, tensor<2xf32>, tensor<2xf32>) {
    %s = ml_program.global_load @seed : tensor<i64>
    %p = ml_program.global_load_const @shared : tensor<2xf32>
    %e = ml_program.global_load_const @external : tensor<2xf32>
    return %s, %p, %e : tensor<i64>, tensor<2xf32>, tensor<2xf32>
  }
}
