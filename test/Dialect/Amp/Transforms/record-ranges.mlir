// amp-record-ranges: the calibrated function also returns the largest
// finite magnitude of each of its float tensors (arguments, then op
// results in order; tensor.empty left out), as one tensor<Nxf32>.
// RUN: amp-opt %s -split-input-file --amp-record-ranges -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32>, %[[N:.*]]: tensor<4xi32>) -> (tensor<4x8xf32>, tensor<5xf32>)
// CHECK: %[[FILL:.*]] = linalg.fill
// CHECK: %[[MM:.*]] = linalg.matmul
// CHECK: %[[H:.*]] = arith.truncf %[[MM]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "reduction"]} ins(%[[X]] : tensor<4x8xf32>)
// CHECK: math.absf
// CHECK: arith.cmpf olt
// CHECK: arith.select
// CHECK: arith.maximumf
// CHECK: %[[R0:.*]] = tensor.extract
// CHECK: ins(%[[W]] : tensor<8x8xf32>)
// CHECK: %[[R1:.*]] = tensor.extract
// CHECK: ins(%[[FILL]] : tensor<4x8xf32>)
// CHECK: %[[R2:.*]] = tensor.extract
// CHECK: ins(%[[MM]] : tensor<4x8xf32>)
// CHECK: %[[R3:.*]] = tensor.extract
// An f16 tensor is measured in f32.
// CHECK: ins(%[[H]] : tensor<4x8xf16>)
// CHECK: ^bb0(%[[IN:.*]]: f16, %{{.*}}: f32):
// CHECK: arith.extf %[[IN]] : f16 to f32
// CHECK: %[[R4:.*]] = tensor.extract
// CHECK: %[[ALL:.*]] = tensor.from_elements %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]] : tensor<5xf32>
// CHECK: return %[[MM]], %[[ALL]] : tensor<4x8xf32>, tensor<5xf32>
func.func @forward(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %n: tensor<4xi32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = arith.truncf %m : tensor<4x8xf32> to tensor<4x8xf16>
  return %m : tensor<4x8xf32>
}

// -----

// A 0-d tensor is read directly; an f64 one is measured in f64 and clamped
// to f32's largest value.
// CHECK-LABEL: func.func @scalars
// CHECK-SAME: -> (tensor<f64>, tensor<1xf32>)
// CHECK: %[[E:.*]] = tensor.extract %{{.*}}[] : tensor<f64>
// CHECK: %[[A:.*]] = math.absf %[[E]] : f64
// CHECK: arith.cmpf olt, %[[A]]
// CHECK: %[[S:.*]] = arith.select
// CHECK: %[[C:.*]] = arith.minimumf %[[S]], %{{.*}} : f64
// CHECK: %[[T:.*]] = arith.truncf %[[C]] : f64 to f32
// CHECK: tensor.from_elements %[[T]] : tensor<1xf32>
func.func @scalars(%x: tensor<f64>) -> tensor<f64> {
  return %x : tensor<f64>
}
