// RUN: amp-opt %s -split-input-file | amp-opt -split-input-file | FileCheck %s
// RUN: amp-opt %s -split-input-file -mlir-print-op-generic | amp-opt -split-input-file | FileCheck %s
// RUN: amp-opt %s -split-input-file -canonicalize | FileCheck %s --check-prefixes=CHECK,CANON

// amp.conv2d_backward_data and amp.conv2d_backward_filter round-trip on
// tensors (with a result) and on buffers (without), dynamic sizes included.
// CHECK-LABEL: func.func @tensors
// CHECK: %[[DX:.*]] = amp.conv2d_backward_data ins(%arg0, %arg1 : tensor<2x8x4x4xf16>, tensor<8x3x3x3xf16>) outs(%arg2 : tensor<2x3x8x8xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] -> tensor<2x3x8x8xf32>
// CHECK: %[[DW:.*]] = amp.conv2d_backward_filter ins(%arg3, %arg0 : tensor<2x3x8x8xf16>, tensor<2x8x4x4xf16>) outs(%arg4 : tensor<8x3x3x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] -> tensor<8x3x3x3xf32>
// CHECK: return %[[DX]], %[[DW]]
func.func @tensors(%dy: tensor<2x8x4x4xf16>, %w: tensor<8x3x3x3xf16>, %e: tensor<2x3x8x8xf32>,
                   %x: tensor<2x3x8x8xf16>, %f: tensor<8x3x3x3xf32>)
    -> (tensor<2x3x8x8xf32>, tensor<8x3x3x3xf32>) {
  %dx = amp.conv2d_backward_data ins(%dy, %w : tensor<2x8x4x4xf16>, tensor<8x3x3x3xf16>)
      outs(%e : tensor<2x3x8x8xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1]
      -> tensor<2x3x8x8xf32>
  %dw = amp.conv2d_backward_filter ins(%x, %dy : tensor<2x3x8x8xf16>, tensor<2x8x4x4xf16>)
      outs(%f : tensor<8x3x3x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1]
      -> tensor<8x3x3x3xf32>
  return %dx, %dw : tensor<2x3x8x8xf32>, tensor<8x3x3x3xf32>
}

// -----

// CHECK-LABEL: func.func @buffers
// CHECK: amp.conv2d_backward_data ins(%arg0, %arg1 : memref<?x8x5x5xbf16>, memref<8x3x3x2xbf16>) outs(%arg2 : memref<?x3x9x10xbf16>) strides = [2, 2] padding = [1, 1] dilations = [1, 2]{{$}}
// CHECK: amp.conv2d_backward_filter ins(%arg3, %arg0 : memref<?x3x9x10xbf16>, memref<?x8x5x5xbf16>) outs(%arg4 : memref<8x3x3x2xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 2]{{$}}
func.func @buffers(%dy: memref<?x8x5x5xbf16>, %w: memref<8x3x3x2xbf16>, %dx: memref<?x3x9x10xbf16>,
                   %x: memref<?x3x9x10xbf16>, %dw: memref<8x3x3x2xf32>) {
  amp.conv2d_backward_data ins(%dy, %w : memref<?x8x5x5xbf16>, memref<8x3x3x2xbf16>)
      outs(%dx : memref<?x3x9x10xbf16>) strides = [2, 2] padding = [1, 1] dilations = [1, 2]
  amp.conv2d_backward_filter ins(%x, %dy : memref<?x3x9x10xbf16>, memref<?x8x5x5xbf16>)
      outs(%dw : memref<8x3x3x2xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 2]
  return
}

// -----

// On buffers they read and write memory: not erased unused; on tensors
// they are pure, and an unused one goes.
// CHECK-LABEL: func.func @unused
// CHECK: amp.conv2d_backward_filter ins(%arg0, %arg1 : memref<
// CANON-NOT: -> tensor<8x3x3x3xf32>
func.func @unused(%x: memref<2x3x8x8xf32>, %dy: memref<2x8x8x8xf32>, %dw: memref<8x3x3x3xf32>,
                  %xt: tensor<2x3x8x8xf32>, %dyt: tensor<2x8x8x8xf32>, %dwt: tensor<8x3x3x3xf32>) {
  amp.conv2d_backward_filter ins(%x, %dy : memref<2x3x8x8xf32>, memref<2x8x8x8xf32>)
      outs(%dw : memref<8x3x3x3xf32>) strides = [1, 1] padding = [1, 1] dilations = [1, 1]
  %unused = amp.conv2d_backward_filter ins(%xt, %dyt : tensor<2x3x8x8xf32>, tensor<2x8x8x8xf32>)
      outs(%dwt : tensor<8x3x3x3xf32>) strides = [1, 1] padding = [1, 1] dilations = [1, 1]
      -> tensor<8x3x3x3xf32>
  return
}

// -----

// With channels_last every operand has its channels last: dy n x oh x ow x
// f, the filter f x kh x kw x c (cuDNN's KRSC), dx and x n x h x w x c.
// CHECK-LABEL: func.func @channels_last
// CHECK: amp.conv2d_backward_data ins(%arg0, %arg1 : tensor<?x4x4x8xf16>, tensor<8x3x3x3xf16>) outs(%arg2 : tensor<?x8x8x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] channels_last -> tensor<?x8x8x3xf32>
// CHECK: amp.conv2d_backward_filter ins(%arg3, %arg0 : tensor<?x8x8x3xf16>, tensor<?x4x4x8xf16>) outs(%arg4 : tensor<8x3x3x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] channels_last -> tensor<8x3x3x3xf32>
func.func @channels_last(%dy: tensor<?x4x4x8xf16>, %w: tensor<8x3x3x3xf16>, %e: tensor<?x8x8x3xf32>,
                         %x: tensor<?x8x8x3xf16>, %f: tensor<8x3x3x3xf32>)
    -> (tensor<?x8x8x3xf32>, tensor<8x3x3x3xf32>) {
  %dx = amp.conv2d_backward_data ins(%dy, %w : tensor<?x4x4x8xf16>, tensor<8x3x3x3xf16>)
      outs(%e : tensor<?x8x8x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] channels_last
      -> tensor<?x8x8x3xf32>
  %dw = amp.conv2d_backward_filter ins(%x, %dy : tensor<?x8x8x3xf16>, tensor<?x4x4x8xf16>)
      outs(%f : tensor<8x3x3x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] channels_last
      -> tensor<8x3x3x3xf32>
  return %dx, %dw : tensor<?x8x8x3xf32>, tensor<8x3x3x3xf32>
}
