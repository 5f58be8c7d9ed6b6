// amp.unscale_gradients bufferizes to its buffer form, in destination-passing
// style: the destinations' buffers are written in place (a tensor.empty
// destination becomes a fresh buffer, not copied: it is never read), the
// flag's buffer is read and written. No runtime call: that is
// amp-linalg-to-library-calls' (test/Conversion/LinalgToLibraryCalls).
// RUN: amp-opt %s -split-input-file \
// RUN:   -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN: | FileCheck %s

// CHECK-LABEL: func.func @unscale
// CHECK-SAME: (%[[G0:.*]]: memref<16x8xf16>, %[[G1:.*]]: memref<?xf32>, %[[INV:.*]]: memref<f32>, %[[FLAG:.*]]: memref<i1>)
// CHECK: %[[O0:.*]] = memref.alloc() {{.*}}: memref<16x8xf16>
// CHECK: %[[O1:.*]] = memref.alloc(%{{.*}}) {{.*}}: memref<?xf32>
// CHECK-NOT: memref.copy %[[G0]]
// CHECK-NOT: memref.copy %[[G1]]
// CHECK: amp.unscale_gradients ins(%[[G0]], %[[G1]] : memref<16x8xf16>, memref<?xf32>) by %[[INV]] : memref<f32> outs(%[[O0]], %[[O1]], %[[FLAG]] : memref<16x8xf16>, memref<?xf32>, memref<i1>)
// CHECK: return %[[O0]], %[[O1]], %[[FLAG]]
func.func @unscale(%g0: tensor<16x8xf16>, %g1: tensor<?xf32>, %inv: tensor<f32>, %flag: tensor<i1>)
    -> (tensor<16x8xf16>, tensor<?xf32>, tensor<i1>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %g1, %c0 : tensor<?xf32>
  %e0 = tensor.empty() : tensor<16x8xf16>
  %e1 = tensor.empty(%n) : tensor<?xf32>
  %u:3 = amp.unscale_gradients ins(%g0, %g1 : tensor<16x8xf16>, tensor<?xf32>) by %inv : tensor<f32>
      outs(%e0, %e1, %flag : tensor<16x8xf16>, tensor<?xf32>, tensor<i1>)
      -> tensor<16x8xf16>, tensor<?xf32>, tensor<i1>
  return %u#0, %u#1, %u#2 : tensor<16x8xf16>, tensor<?xf32>, tensor<i1>
}

// -----

// A flag read again after the op keeps its old value: the op writes a copy.
// CHECK-LABEL: func.func @flag_read_after
// CHECK-SAME: (%[[G:.*]]: memref<4xf32>, %[[INV:.*]]: memref<f32>, %[[FLAG:.*]]: memref<i1>)
// CHECK: %[[COPY:.*]] = memref.alloc() {{.*}}: memref<i1>
// CHECK: memref.copy %[[FLAG]], %[[COPY]]
// CHECK: amp.unscale_gradients ins(%[[G]] : memref<4xf32>) by %[[INV]] : memref<f32> outs(%{{.*}}, %[[COPY]] : memref<4xf32>, memref<i1>)
// CHECK: return %{{.*}}, %[[COPY]], %[[FLAG]]
func.func @flag_read_after(%g: tensor<4xf32>, %inv: tensor<f32>, %flag: tensor<i1>)
    -> (tensor<4xf32>, tensor<i1>, tensor<i1>) {
  %e = tensor.empty() : tensor<4xf32>
  %u:2 = amp.unscale_gradients ins(%g : tensor<4xf32>) by %inv : tensor<f32>
      outs(%e, %flag : tensor<4xf32>, tensor<i1>) -> tensor<4xf32>, tensor<i1>
  return %u#0, %u#1, %flag : tensor<4xf32>, tensor<i1>, tensor<i1>
}
