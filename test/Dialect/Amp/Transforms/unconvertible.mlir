// An op the policy wants low but its model cannot rewrite (here: linalg on
// buffers) is left unchanged, with a remark that says why; the module stays
// valid. tensor.pad converts its padding value with its source.
// RUN: amp-opt %s -split-input-file --amp-o2 -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @buffers
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x4xf32>, memref<4x4xf32>) outs(%{{.*}} : memref<4x4xf32>)
func.func @buffers(%a: memref<4x4xf32>, %c: memref<4x4xf32>) {
  // expected-remark @+1 {{amp: kept in f32: 'linalg.matmul' cannot be rewritten to f16 (unsupported form, e.g. buffer semantics)}}
  linalg.matmul ins(%a, %a : memref<4x4xf32>, memref<4x4xf32>)
                outs(%c : memref<4x4xf32>)
  return
}

// -----

// The pad first goes low with the tanh (its padding value converted too);
// cast elision then moves the widening back to the 4-element side.
// CHECK-LABEL: func.func @pad
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: arith.constant
// CHECK: %[[T:.*]] = math.tanh %{{.*}} : tensor<4xf16>
// CHECK: %[[W:.*]] = arith.extf %[[T]] : tensor<4xf16> to tensor<4xf32>
// CHECK: tensor.pad %[[W]] low[1] high[1] {
// CHECK: tensor.yield %[[ZERO]] : f32
// CHECK: } : tensor<4xf32> to tensor<6xf32>
func.func @pad(%a: tensor<4xf32>) -> tensor<6xf32> {
  %zero = arith.constant 0.0 : f32
  %t = math.tanh %a : tensor<4xf32>
  %p = tensor.pad %t low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<4xf32> to tensor<6xf32>
  return %p : tensor<6xf32>
}
