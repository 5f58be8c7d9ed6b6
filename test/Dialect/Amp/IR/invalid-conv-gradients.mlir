// Every verifier rule of amp.conv2d_backward_data and
// amp.conv2d_backward_filter, one case each.
// RUN: amp-opt %s -split-input-file -verify-diagnostics

func.func @mixed(%dy: memref<2x8x4x4xf32>, %w: tensor<8x3x3x3xf32>, %e: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'amp.conv2d_backward_data' op expects every operand to be a tensor, or every operand a buffer}}
  %dx = amp.conv2d_backward_data ins(%dy, %w : memref<2x8x4x4xf32>, tensor<8x3x3x3xf32>) outs(%e : tensor<2x3x8x8xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] -> tensor<2x3x8x8xf32>
  return
}

// -----

func.func @no_result(%dy: tensor<2x8x4x4xf32>, %w: tensor<8x3x3x3xf32>, %e: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'amp.conv2d_backward_data' op expects one result of the destination's type on tensors, and none on buffers}}
  amp.conv2d_backward_data ins(%dy, %w : tensor<2x8x4x4xf32>, tensor<8x3x3x3xf32>) outs(%e : tensor<2x3x8x8xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1]
  return
}

// -----

func.func @result_on_buffers(%x: memref<2x3x8x8xf32>, %dy: memref<2x8x4x4xf32>, %dw: memref<8x3x3x3xf32>) {
  // expected-error @+1 {{'amp.conv2d_backward_filter' op expects one result of the destination's type on tensors, and none on buffers}}
  %r = amp.conv2d_backward_filter ins(%x, %dy : memref<2x3x8x8xf32>, memref<2x8x4x4xf32>) outs(%dw : memref<8x3x3x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] -> tensor<8x3x3x3xf32>
  return
}

// -----

func.func @rank(%x: tensor<2x3x8xf32>, %dy: tensor<2x8x4x4xf32>, %dw: tensor<8x3x3x3xf32>) {
  // expected-error @+1 {{'amp.conv2d_backward_filter' op expects operands and destination of rank 4 with float elements, got 'tensor<2x3x8xf32>'}}
  %r = amp.conv2d_backward_filter ins(%x, %dy : tensor<2x3x8xf32>, tensor<2x8x4x4xf32>) outs(%dw : tensor<8x3x3x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] -> tensor<8x3x3x3xf32>
  return
}

// -----

func.func @integers(%x: tensor<2x3x8x8xi32>, %dy: tensor<2x8x4x4xf32>, %dw: tensor<8x3x3x3xf32>) {
  // expected-error @+1 {{'amp.conv2d_backward_filter' op expects operands and destination of rank 4 with float elements, got 'tensor<2x3x8x8xi32>'}}
  %r = amp.conv2d_backward_filter ins(%x, %dy : tensor<2x3x8x8xi32>, tensor<2x8x4x4xf32>) outs(%dw : tensor<8x3x3x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] -> tensor<8x3x3x3xf32>
  return
}

// -----

func.func @three_strides(%dy: tensor<2x8x4x4xf32>, %w: tensor<8x3x3x3xf32>, %e: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'amp.conv2d_backward_data' op expects two strides, two paddings and two dilations (height, width)}}
  %dx = amp.conv2d_backward_data ins(%dy, %w : tensor<2x8x4x4xf32>, tensor<8x3x3x3xf32>) outs(%e : tensor<2x3x8x8xf32>) strides = [2, 2, 2] padding = [1, 1] dilations = [1, 1] -> tensor<2x3x8x8xf32>
  return
}

// -----

func.func @zero_stride(%dy: tensor<2x8x4x4xf32>, %w: tensor<8x3x3x3xf32>, %e: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'amp.conv2d_backward_data' op expects strides and dilations >= 1 and paddings >= 0}}
  %dx = amp.conv2d_backward_data ins(%dy, %w : tensor<2x8x4x4xf32>, tensor<8x3x3x3xf32>) outs(%e : tensor<2x3x8x8xf32>) strides = [0, 2] padding = [1, 1] dilations = [1, 1] -> tensor<2x3x8x8xf32>
  return
}

// -----

func.func @negative_padding(%dy: tensor<2x8x4x4xf32>, %w: tensor<8x3x3x3xf32>, %e: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'amp.conv2d_backward_data' op expects strides and dilations >= 1 and paddings >= 0}}
  %dx = amp.conv2d_backward_data ins(%dy, %w : tensor<2x8x4x4xf32>, tensor<8x3x3x3xf32>) outs(%e : tensor<2x3x8x8xf32>) strides = [2, 2] padding = [-1, 1] dilations = [1, 1] -> tensor<2x3x8x8xf32>
  return
}

// -----

func.func @channels(%dy: tensor<2x8x4x4xf32>, %w: tensor<8x4x3x3xf32>, %e: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'amp.conv2d_backward_data' op expects the input n x c x h x w, the filter f x c x kh x kw and the output gradient n x f x oh x ow, got 'tensor<2x3x8x8xf32>', 'tensor<8x4x3x3xf32>' and 'tensor<2x8x4x4xf32>'}}
  %dx = amp.conv2d_backward_data ins(%dy, %w : tensor<2x8x4x4xf32>, tensor<8x4x3x3xf32>) outs(%e : tensor<2x3x8x8xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] -> tensor<2x3x8x8xf32>
  return
}

// -----

func.func @batch(%x: tensor<3x3x8x8xf32>, %dy: tensor<2x8x4x4xf32>, %dw: tensor<8x3x3x3xf32>) {
  // expected-error @+1 {{'amp.conv2d_backward_filter' op expects the input n x c x h x w, the filter f x c x kh x kw and the output gradient n x f x oh x ow}}
  %r = amp.conv2d_backward_filter ins(%x, %dy : tensor<3x3x8x8xf32>, tensor<2x8x4x4xf32>) outs(%dw : tensor<8x3x3x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] -> tensor<8x3x3x3xf32>
  return
}

// -----

// An 8x8 input, 3x3 kernel, stride 2, padding 1 gives 4x4 outputs, not 5.
func.func @geometry(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x8x5x4xf32>, %dw: tensor<8x3x3x3xf32>) {
  // expected-error @+1 {{'amp.conv2d_backward_filter' op expects the output gradient's height to be the forward convolution's, 4, got 5}}
  %r = amp.conv2d_backward_filter ins(%x, %dy : tensor<2x3x8x8xf32>, tensor<2x8x5x4xf32>) outs(%dw : tensor<8x3x3x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] -> tensor<8x3x3x3xf32>
  return
}

// -----

// A dilated 3x3 kernel spans 5 rows: larger than the padded 3-row input.
func.func @kernel_too_large(%x: tensor<2x3x3x8xf32>, %dy: tensor<2x8x1x8xf32>, %dw: tensor<8x3x3x3xf32>) {
  // expected-error @+1 {{'amp.conv2d_backward_filter' op expects the output gradient's height to be the forward convolution's, 0, got 1}}
  %r = amp.conv2d_backward_filter ins(%x, %dy : tensor<2x3x3x8xf32>, tensor<2x8x1x8xf32>) outs(%dw : tensor<8x3x3x3xf32>) strides = [1, 1] padding = [0, 1] dilations = [2, 1] -> tensor<8x3x3x3xf32>
  return
}

// -----

// channels_last reads the channels from the last dimension: an NCHW input
// gradient does not match the KRSC filter's 3 channels.
func.func @channels_last_mismatch(%dy: tensor<2x4x4x8xf32>, %w: tensor<8x3x3x3xf32>, %dx: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'amp.conv2d_backward_data' op expects (channels_last) the input n x h x w x c, the filter f x kh x kw x c and the output gradient n x oh x ow x f, got 'tensor<2x3x8x8xf32>', 'tensor<8x3x3x3xf32>' and 'tensor<2x4x4x8xf32>'}}
  %r = amp.conv2d_backward_data ins(%dy, %w : tensor<2x4x4x8xf32>, tensor<8x3x3x3xf32>) outs(%dx : tensor<2x3x8x8xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] channels_last -> tensor<2x3x8x8xf32>
  return
}

// -----

// channels_last: a 4x4 output gradient (its height is dimension 1) is not
// what an 8x8 input at stride 1 with padding 1 gives.
func.func @channels_last_geometry(%x: tensor<2x8x8x3xf32>, %dy: tensor<2x4x4x8xf32>, %dw: tensor<8x3x3x3xf32>) {
  // expected-error @+1 {{'amp.conv2d_backward_filter' op expects the output gradient's height to be the forward convolution's, 8, got 4}}
  %r = amp.conv2d_backward_filter ins(%x, %dy : tensor<2x8x8x3xf32>, tensor<2x4x4x8xf32>) outs(%dw : tensor<8x3x3x3xf32>) strides = [1, 1] padding = [1, 1] dilations = [1, 1] channels_last -> tensor<8x3x3x3xf32>
  return
}
