// A constant that would overflow the low type (to infinity) is not
// converted: its users stay in f32, and a warning on the constant says so.
// RUN: amp-opt %s -split-input-file --amp-o2 -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @overflowing_constant
// CHECK: arith.constant dense<1.000000e+05> : tensor<2xf32>
// CHECK: arith.mulf %{{.*}}, %{{.*}} : tensor<2xf32>
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<2xf16>
func.func @overflowing_constant(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-warning @+1 {{amp: constant does not fit in f16 (it would overflow to infinity); its users stay in f32}}
  %c = arith.constant dense<100000.0> : tensor<2xf32>
  %y = arith.mulf %a, %c : tensor<2xf32>
  %z = arith.addf %y, %a : tensor<2xf32>
  return %z : tensor<2xf32>
}

// -----

// bf16 has f32's range: the same constant converts.
// CHECK-LABEL: func.func @fits_bf16
// CHECK: arith.mulf %{{.*}}, %{{.*}} : tensor<2xbf16>
func.func @fits_bf16(%a: tensor<2xf32>) -> tensor<2xf32> {
  %c = arith.constant dense<100000.0> : tensor<2xf32>
  %y = arith.mulf %a, %c {amp.precision = "bf16"} : tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// 65504 is f16's largest finite value; 65519 still rounds to it.
// CHECK-LABEL: func.func @largest_finite
// CHECK: arith.constant 6.550400e+04 : f16
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f16
func.func @largest_finite(%a: f32) -> f32 {
  %c = arith.constant 65519.0 : f32
  %y = arith.mulf %a, %c : f32
  return %y : f32
}

// -----

// Through a fill: the constant fills the init of a max pooling, whose
// identity it is; it becomes -inf and the pooling goes low (more cases in
// identity-constants.mlir).
// CHECK-LABEL: func.func @through_fill
// CHECK: %[[NINF:.*]] = arith.constant 0xFC00 : f16
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[NINF]] : f16)
// CHECK: linalg.pooling_nchw_max {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x1x4x4xf16>, tensor<2x2xf16>) outs(%[[INIT]] : tensor<1x1x2x2xf16>)
func.func @through_fill(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %ninf = arith.constant -3.4028235e38 : f32
  %w = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x1x2x2xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %p = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x1x4x4xf32>, tensor<2x2xf32>) outs(%init : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  return %p : tensor<1x1x2x2xf32>
}

// -----

// Through a fill whose value matters: a bias of -FLT_MAX added to the
// input keeps the add in f32, with one warning.
// CHECK-LABEL: func.func @through_fill_value
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<4xf32>
func.func @through_fill_value(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-warning @+1 {{amp: constant does not fit in f16}}
  %ninf = arith.constant -3.4028235e38 : f32
  %e = tensor.empty() : tensor<4xf32>
  %bias = linalg.fill ins(%ninf : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %y = arith.addf %x, %bias : tensor<4xf32>
  return %y : tensor<4xf32>
}
