// amp.scaled_matmul bufferizes to its buffer form, in destination-passing
// style: a tensor.empty destination becomes a fresh buffer (not copied: it
// is never read), the operands' and the scale's buffers are read in place.
// No runtime call: that is amp-linalg-to-library-calls'.
// RUN: amp-opt %s -split-input-file \
// RUN:   -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN: | FileCheck %s

// CHECK-LABEL: func.func @scaled
// CHECK-SAME: (%[[A:.*]]: memref<?x4x32xf8E4M3FN>, %[[B:.*]]: memref<?x16x32xf8E4M3FN>, %[[S:.*]]: memref<f32>)
// CHECK: %[[C:.*]] = memref.alloc(%{{.*}}) {{.*}}: memref<?x4x16xbf16>
// CHECK-NOT: memref.copy
// CHECK: amp.scaled_matmul ins(%[[A]], %[[B]] : memref<?x4x32xf8E4M3FN>, memref<?x16x32xf8E4M3FN>) scale(%[[S]] : memref<f32>) outs(%[[C]] : memref<?x4x16xbf16>)
// CHECK: return %[[C]]
func.func @scaled(%a: tensor<?x4x32xf8E4M3FN>, %b: tensor<?x16x32xf8E4M3FN>, %s: tensor<f32>)
    -> tensor<?x4x16xbf16> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x4x32xf8E4M3FN>
  %e = tensor.empty(%n) : tensor<?x4x16xbf16>
  %y = amp.scaled_matmul ins(%a, %b : tensor<?x4x32xf8E4M3FN>, tensor<?x16x32xf8E4M3FN>)
      scale(%s : tensor<f32>) outs(%e : tensor<?x4x16xbf16>) -> tensor<?x4x16xbf16>
  return %y : tensor<?x4x16xbf16>
}

// -----

// A destination whose values are read later is not overwritten in place:
// the op writes a new buffer (no copy: it does not read the destination),
// and the function argument keeps its values.
// CHECK-LABEL: func.func @keeps_destination
// CHECK-SAME: %[[D:[^:]*]]: memref<4x16xf32>)
// CHECK: %[[C:.*]] = memref.alloc() {{.*}}: memref<4x16xf32>
// CHECK: amp.scaled_matmul {{.*}} outs(%[[C]] : memref<4x16xf32>)
// CHECK: return %[[C]], %[[D]]
func.func @keeps_destination(%a: tensor<4x32xf8E4M3FN>, %b: tensor<16x32xf8E4M3FN>, %s: tensor<f32>,
                             %d: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %y = amp.scaled_matmul ins(%a, %b : tensor<4x32xf8E4M3FN>, tensor<16x32xf8E4M3FN>)
      scale(%s : tensor<f32>) outs(%d : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y, %d : tensor<4x16xf32>, tensor<4x16xf32>
}
