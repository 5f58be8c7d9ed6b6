// amp.conv2d_backward_data and amp.conv2d_backward_filter bufferize to
// their buffer forms in destination-passing style: the destination, which
// they accumulate into, is a buffer filled first (a zero fill of a
// tensor.empty: a fresh buffer), the operands' buffers are read in place.
// No runtime call: that is amp-linalg-to-library-calls'.
// RUN: amp-opt %s -split-input-file \
// RUN:   -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN: | FileCheck %s

// CHECK-LABEL: func.func @gradients
// CHECK-SAME: (%[[X:.*]]: memref<2x3x8x8xf16>, %[[DY:.*]]: memref<2x8x4x4xf16>, %[[W:.*]]: memref<8x3x3x3xf16>)
// CHECK: %[[DX:.*]] = memref.alloc() {{.*}}: memref<2x3x8x8xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[DX]] : memref<2x3x8x8xf32>)
// CHECK: amp.conv2d_backward_data ins(%[[DY]], %[[W]] : memref<2x8x4x4xf16>, memref<8x3x3x3xf16>) outs(%[[DX]] : memref<2x3x8x8xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1]{{$}}
// CHECK: %[[DW:.*]] = memref.alloc() {{.*}}: memref<8x3x3x3xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[DW]] : memref<8x3x3x3xf32>)
// CHECK: amp.conv2d_backward_filter ins(%[[X]], %[[DY]] : memref<2x3x8x8xf16>, memref<2x8x4x4xf16>) outs(%[[DW]] : memref<8x3x3x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1]{{$}}
// CHECK-NOT: memref.copy
// CHECK: return %[[DX]], %[[DW]]
func.func @gradients(%x: tensor<2x3x8x8xf16>, %dy: tensor<2x8x4x4xf16>, %w: tensor<8x3x3x3xf16>)
    -> (tensor<2x3x8x8xf32>, tensor<8x3x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x3x8x8xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  %dx = amp.conv2d_backward_data ins(%dy, %w : tensor<2x8x4x4xf16>, tensor<8x3x3x3xf16>)
      outs(%z0 : tensor<2x3x8x8xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1]
      -> tensor<2x3x8x8xf32>
  %e1 = tensor.empty() : tensor<8x3x3x3xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x3x3x3xf32>) -> tensor<8x3x3x3xf32>
  %dw = amp.conv2d_backward_filter ins(%x, %dy : tensor<2x3x8x8xf16>, tensor<2x8x4x4xf16>)
      outs(%z1 : tensor<8x3x3x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1]
      -> tensor<8x3x3x3xf32>
  return %dx, %dw : tensor<2x3x8x8xf32>, tensor<8x3x3x3xf32>
}

// -----

// channels_last stays on the buffer forms.
// CHECK-LABEL: func.func @channels_last
// CHECK: amp.conv2d_backward_data ins(%{{.*}}, %{{.*}} : memref<2x4x4x8xf16>, memref<8x3x3x3xf16>) outs(%{{.*}} : memref<2x8x8x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] channels_last{{$}}
// CHECK: amp.conv2d_backward_filter ins(%{{.*}}, %{{.*}} : memref<2x8x8x3xf16>, memref<2x4x4x8xf16>) outs(%{{.*}} : memref<8x3x3x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] channels_last{{$}}
func.func @channels_last(%x: tensor<2x8x8x3xf16>, %dy: tensor<2x4x4x8xf16>, %w: tensor<8x3x3x3xf16>)
    -> (tensor<2x8x8x3xf32>, tensor<8x3x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x8x8x3xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x8x8x3xf32>) -> tensor<2x8x8x3xf32>
  %dx = amp.conv2d_backward_data ins(%dy, %w : tensor<2x4x4x8xf16>, tensor<8x3x3x3xf16>)
      outs(%z0 : tensor<2x8x8x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] channels_last
      -> tensor<2x8x8x3xf32>
  %e1 = tensor.empty() : tensor<8x3x3x3xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x3x3x3xf32>) -> tensor<8x3x3x3xf32>
  %dw = amp.conv2d_backward_filter ins(%x, %dy : tensor<2x8x8x3xf16>, tensor<2x4x4x8xf16>)
      outs(%z1 : tensor<8x3x3x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] channels_last
      -> tensor<8x3x3x3xf32>
  return %dx, %dw : tensor<2x8x8x3xf32>, tensor<8x3x3x3xf32>
}
