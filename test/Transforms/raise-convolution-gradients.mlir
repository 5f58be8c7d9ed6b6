// RUN: amp-opt %s -split-input-file --amp-raise-convolution-gradients | FileCheck %s

// The filter gradient of a 3x3 convolution with stride 2 and padding 1 on a
// 9x10 input, as from_torch_training writes it: the input and the output
// gradient transposed (batch and channels), the input padded, a
// convolution with the forward stride as its dilation, cut to 3x3 and
// transposed back.
// CHECK-LABEL: func.func @filter_strided
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x9x10xf32>, %[[DY:.*]]: tensor<2x5x5x5xf32>)
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<5x3x3x3xf32>)
// CHECK: %[[DW:.*]] = amp.conv2d_backward_filter ins(%[[X]], %[[DY]] : tensor<2x3x9x10xf32>, tensor<2x5x5x5xf32>) outs(%[[ZERO]] : tensor<5x3x3x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] -> tensor<5x3x3x3xf32>
// CHECK-NOT: linalg.conv_2d
// CHECK-NOT: linalg.transpose
// CHECK: return %[[DW]]
func.func @filter_strided(%x: tensor<2x3x9x10xf32>, %dy: tensor<2x5x5x5xf32>) -> tensor<5x3x3x3xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<3x2x9x10xf32>
  %xt = linalg.transpose ins(%x : tensor<2x3x9x10xf32>) outs(%e0 : tensor<3x2x9x10xf32>) permutation = [1, 0, 2, 3]
  %e1 = tensor.empty() : tensor<5x2x5x5xf32>
  %dyt = linalg.transpose ins(%dy : tensor<2x5x5x5xf32>) outs(%e1 : tensor<5x2x5x5xf32>) permutation = [1, 0, 2, 3]
  %padded = tensor.pad %xt low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %cst : f32
  } : tensor<3x2x9x10xf32> to tensor<3x2x11x12xf32>
  %e2 = tensor.empty() : tensor<3x5x3x4xf32>
  %zero = linalg.fill ins(%cst : f32) outs(%e2 : tensor<3x5x3x4xf32>) -> tensor<3x5x3x4xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%padded, %dyt : tensor<3x2x11x12xf32>, tensor<5x2x5x5xf32>) outs(%zero : tensor<3x5x3x4xf32>) -> tensor<3x5x3x4xf32>
  %cut = tensor.extract_slice %conv[0, 0, 0, 0] [3, 5, 3, 3] [1, 1, 1, 1] : tensor<3x5x3x4xf32> to tensor<3x5x3x3xf32>
  %e3 = tensor.empty() : tensor<5x3x3x3xf32>
  %dw = linalg.transpose ins(%cut : tensor<3x5x3x3xf32>) outs(%e3 : tensor<5x3x3x3xf32>) permutation = [1, 0, 2, 3]
  return %dw : tensor<5x3x3x3xf32>
}

// -----

// At O1 the casts sit between: the input rounded after its transpose, the
// gradient rounded before its transpose. They move onto the new op's
// operand and result.
// CHECK-LABEL: func.func @filter_casts
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x8x8xf32>, %[[DY:.*]]: tensor<2x4x8x8xf16>)
// CHECK: %[[XH:.*]] = arith.truncf %[[X]] : tensor<2x3x8x8xf32> to tensor<2x3x8x8xf16>
// CHECK: %[[DW:.*]] = amp.conv2d_backward_filter ins(%[[XH]], %[[DY]] : tensor<2x3x8x8xf16>, tensor<2x4x8x8xf16>) outs(%{{.*}} : tensor<4x3x3x3xf32>) strides = [1, 1] padding = [1, 1] dilations = [1, 1] -> tensor<4x3x3x3xf32>
// CHECK: %[[DWH:.*]] = arith.truncf %[[DW]] : tensor<4x3x3x3xf32> to tensor<4x3x3x3xf16>
// CHECK: return %[[DWH]]
func.func @filter_casts(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x4x8x8xf16>) -> tensor<4x3x3x3xf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %h = arith.constant 0.000000e+00 : f16
  %e0 = tensor.empty() : tensor<3x2x8x8xf32>
  %xt = linalg.transpose ins(%x : tensor<2x3x8x8xf32>) outs(%e0 : tensor<3x2x8x8xf32>) permutation = [1, 0, 2, 3]
  %xth = arith.truncf %xt : tensor<3x2x8x8xf32> to tensor<3x2x8x8xf16>
  %e1 = tensor.empty() : tensor<4x2x8x8xf16>
  %dyt = linalg.transpose ins(%dy : tensor<2x4x8x8xf16>) outs(%e1 : tensor<4x2x8x8xf16>) permutation = [1, 0, 2, 3]
  %padded = tensor.pad %xth low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %h : f16
  } : tensor<3x2x8x8xf16> to tensor<3x2x10x10xf16>
  %e2 = tensor.empty() : tensor<3x4x3x3xf32>
  %zero = linalg.fill ins(%cst : f32) outs(%e2 : tensor<3x4x3x3xf32>) -> tensor<3x4x3x3xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%padded, %dyt : tensor<3x2x10x10xf16>, tensor<4x2x8x8xf16>) outs(%zero : tensor<3x4x3x3xf32>) -> tensor<3x4x3x3xf32>
  %ch = arith.truncf %conv : tensor<3x4x3x3xf32> to tensor<3x4x3x3xf16>
  %e3 = tensor.empty() : tensor<4x3x3x3xf16>
  %dw = linalg.transpose ins(%ch : tensor<3x4x3x3xf16>) outs(%e3 : tensor<4x3x3x3xf16>) permutation = [1, 0, 2, 3]
  return %dw : tensor<4x3x3x3xf16>
}

// -----

// Not raised: the input padded on one side only (cuDNN pads symmetrically),
// and a convolution whose init is not zero.
// CHECK-LABEL: func.func @filter_not_raised
// CHECK-NOT: amp.conv2d_backward_filter
// CHECK-COUNT-2: linalg.conv_2d_nchw_fchw
// CHECK-NOT: amp.conv2d_backward_filter
func.func @filter_not_raised(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x4x8x8xf32>, %acc: tensor<3x4x3x3xf32>)
    -> (tensor<4x3x3x3xf32>, tensor<4x3x3x3xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<3x2x8x8xf32>
  %xt = linalg.transpose ins(%x : tensor<2x3x8x8xf32>) outs(%e0 : tensor<3x2x8x8xf32>) permutation = [1, 0, 2, 3]
  %e1 = tensor.empty() : tensor<4x2x8x8xf32>
  %dyt = linalg.transpose ins(%dy : tensor<2x4x8x8xf32>) outs(%e1 : tensor<4x2x8x8xf32>) permutation = [1, 0, 2, 3]
  %padded = tensor.pad %xt low[0, 0, 2, 2] high[0, 0, 0, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %cst : f32
  } : tensor<3x2x8x8xf32> to tensor<3x2x10x10xf32>
  %e2 = tensor.empty() : tensor<3x4x3x3xf32>
  %zero = linalg.fill ins(%cst : f32) outs(%e2 : tensor<3x4x3x3xf32>) -> tensor<3x4x3x3xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%padded, %dyt : tensor<3x2x10x10xf32>, tensor<4x2x8x8xf32>) outs(%zero : tensor<3x4x3x3xf32>) -> tensor<3x4x3x3xf32>
  %e3 = tensor.empty() : tensor<4x3x3x3xf32>
  %dw = linalg.transpose ins(%conv : tensor<3x4x3x3xf32>) outs(%e3 : tensor<4x3x3x3xf32>) permutation = [1, 0, 2, 3]
  %sym = tensor.pad %xt low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %cst : f32
  } : tensor<3x2x8x8xf32> to tensor<3x2x10x10xf32>
  %conv2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%sym, %dyt : tensor<3x2x10x10xf32>, tensor<4x2x8x8xf32>) outs(%acc : tensor<3x4x3x3xf32>) -> tensor<3x4x3x3xf32>
  %e4 = tensor.empty() : tensor<4x3x3x3xf32>
  %dw2 = linalg.transpose ins(%conv2 : tensor<3x4x3x3xf32>) outs(%e4 : tensor<4x3x3x3xf32>) permutation = [1, 0, 2, 3]
  return %dw, %dw2 : tensor<4x3x3x3xf32>, tensor<4x3x3x3xf32>
}

// -----

// The input gradient of a 3x3 convolution with stride 2 and padding 1 (a
// 5x5 output of a 9x9 input... here 2x4x3x3 of 2x5x5x5), as torch-mlir's
// transposed convolution writes it: the output gradient inserted with
// stride 2 at offset 1 into zeros, convolved with the flipped filter whose
// channels are swapped. With the filter rounded to f16 after its flip.
// CHECK-LABEL: func.func @data_strided
// CHECK-SAME: (%[[DY:.*]]: tensor<2x4x3x3xf16>, %[[W:.*]]: tensor<4x5x3x3xf32>)
// CHECK: %[[WH:.*]] = arith.truncf %[[W]] : tensor<4x5x3x3xf32> to tensor<4x5x3x3xf16>
// CHECK: %[[DX:.*]] = amp.conv2d_backward_data ins(%[[DY]], %[[WH]] : tensor<2x4x3x3xf16>, tensor<4x5x3x3xf16>) outs(%{{.*}} : tensor<2x5x5x5xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] -> tensor<2x5x5x5xf32>
// CHECK-NOT: linalg.conv_2d
// CHECK: return %[[DX]]
func.func @data_strided(%dy: tensor<2x4x3x3xf16>, %w: tensor<4x5x3x3xf32>) -> tensor<2x5x5x5xf32> {
  %c2 = arith.constant 2 : index
  %cst = arith.constant 0.000000e+00 : f32
  %h = arith.constant 0.000000e+00 : f16
  %e0 = tensor.empty() : tensor<5x4x3x3xf32>
  %flipped = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                             iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%e0 : tensor<5x4x3x3xf32>) {
  ^bb0(%out: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %r = arith.subi %c2, %i2 : index
    %s = arith.subi %c2, %i3 : index
    %v = tensor.extract %w[%i1, %i0, %r, %s] : tensor<4x5x3x3xf32>
    linalg.yield %v : f32
  } -> tensor<5x4x3x3xf32>
  %fh = arith.truncf %flipped : tensor<5x4x3x3xf32> to tensor<5x4x3x3xf16>
  %e1 = tensor.empty() : tensor<2x4x7x7xf16>
  %z1 = linalg.fill ins(%h : f16) outs(%e1 : tensor<2x4x7x7xf16>) -> tensor<2x4x7x7xf16>
  %inserted = tensor.insert_slice %dy into %z1[0, 0, 1, 1] [2, 4, 3, 3] [1, 1, 2, 2] : tensor<2x4x3x3xf16> into tensor<2x4x7x7xf16>
  %e2 = tensor.empty() : tensor<2x5x5x5xf32>
  %z2 = linalg.fill ins(%cst : f32) outs(%e2 : tensor<2x5x5x5xf32>) -> tensor<2x5x5x5xf32>
  %dx = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%inserted, %fh : tensor<2x4x7x7xf16>, tensor<5x4x3x3xf16>) outs(%z2 : tensor<2x5x5x5xf32>) -> tensor<2x5x5x5xf32>
  return %dx : tensor<2x5x5x5xf32>
}

// -----

// Stride 1, padding 1 (the transposed convolution pads by 1 too), a
// non-square 3x1 kernel: dy padded, no insertion.
// CHECK-LABEL: func.func @data_padded
// CHECK: amp.conv2d_backward_data ins(%arg0, %arg1 : tensor<2x4x8x8xf32>, tensor<4x3x3x1xf32>) outs(%{{.*}} : tensor<2x3x8x8xf32>) strides = [1, 1] padding = [1, 0] dilations = [1, 1] -> tensor<2x3x8x8xf32>
func.func @data_padded(%dy: tensor<2x4x8x8xf32>, %w: tensor<4x3x3x1xf32>) -> tensor<2x3x8x8xf32> {
  %c2 = arith.constant 2 : index
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<3x4x3x1xf32>
  %flipped = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                             iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%e0 : tensor<3x4x3x1xf32>) {
  ^bb0(%out: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %r = arith.subi %c2, %i2 : index
    %s = arith.subi %c0, %i3 : index
    %v = tensor.extract %w[%i1, %i0, %r, %s] : tensor<4x3x3x1xf32>
    linalg.yield %v : f32
  } -> tensor<3x4x3x1xf32>
  %padded = tensor.pad %dy low[0, 0, 1, 0] high[0, 0, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %cst : f32
  } : tensor<2x4x8x8xf32> to tensor<2x4x10x8xf32>
  %e2 = tensor.empty() : tensor<2x3x8x8xf32>
  %z2 = linalg.fill ins(%cst : f32) outs(%e2 : tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  %dx = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%padded, %flipped : tensor<2x4x10x8xf32>, tensor<3x4x3x1xf32>) outs(%z2 : tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  return %dx : tensor<2x3x8x8xf32>
}

// -----

// Not raised: a filter that is not flipped (its index reads 1 - i2 of a
// 3-row kernel), and a plain forward convolution.
// CHECK-LABEL: func.func @data_not_raised
// CHECK-NOT: amp.conv2d_backward_data
// CHECK-COUNT-2: linalg.conv_2d_nchw_fchw
// CHECK-NOT: amp.conv2d_backward_data
func.func @data_not_raised(%dy: tensor<2x4x8x8xf32>, %w: tensor<4x3x3x3xf32>, %f: tensor<3x4x3x3xf32>)
    -> (tensor<2x3x6x6xf32>, tensor<2x3x6x6xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<3x4x3x3xf32>
  %flipped = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                             iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%e0 : tensor<3x4x3x3xf32>) {
  ^bb0(%out: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %r = arith.subi %c1, %i2 : index
    %s = arith.subi %c2, %i3 : index
    %v = tensor.extract %w[%i1, %i0, %r, %s] : tensor<4x3x3x3xf32>
    linalg.yield %v : f32
  } -> tensor<3x4x3x3xf32>
  %e2 = tensor.empty() : tensor<2x3x6x6xf32>
  %z2 = linalg.fill ins(%cst : f32) outs(%e2 : tensor<2x3x6x6xf32>) -> tensor<2x3x6x6xf32>
  %dx = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%dy, %flipped : tensor<2x4x8x8xf32>, tensor<3x4x3x3xf32>) outs(%z2 : tensor<2x3x6x6xf32>) -> tensor<2x3x6x6xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%dy, %f : tensor<2x4x8x8xf32>, tensor<3x4x3x3xf32>) outs(%z2 : tensor<2x3x6x6xf32>) -> tensor<2x3x6x6xf32>
  return %dx, %y : tensor<2x3x6x6xf32>, tensor<2x3x6x6xf32>
}

// -----

// A 1x1 projection with stride 2, as at O2: the flip of a 1x1 kernel reads
// index 0 (folded), rounds to f16 in its body; dy inserted at offset 0.
// The filter is rounded before the new op instead.
// CHECK-LABEL: func.func @data_projection
// CHECK-SAME: (%[[DY:.*]]: tensor<4x32x4x4xf16>, %[[W:.*]]: tensor<32x16x1x1xf32>)
// CHECK: %[[WH:.*]] = arith.truncf %[[W]] : tensor<32x16x1x1xf32> to tensor<32x16x1x1xf16>
// CHECK: amp.conv2d_backward_data ins(%[[DY]], %[[WH]] : tensor<4x32x4x4xf16>, tensor<32x16x1x1xf16>) outs(%{{.*}} : tensor<4x16x8x8xf32>) strides = [2, 2] padding = [0, 0] dilations = [1, 1] -> tensor<4x16x8x8xf32>
func.func @data_projection(%dy: tensor<4x32x4x4xf16>, %w: tensor<32x16x1x1xf32>) -> tensor<4x16x8x8xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %h = arith.constant 0.000000e+00 : f16
  %e0 = tensor.empty() : tensor<16x32x1x1xf16>
  %flipped = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                             iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%e0 : tensor<16x32x1x1xf16>) {
  ^bb0(%out: f16):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %v = tensor.extract %w[%i1, %i0, %c0, %c0] : tensor<32x16x1x1xf32>
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<16x32x1x1xf16>
  %e1 = tensor.empty() : tensor<4x32x8x8xf16>
  %z1 = linalg.fill ins(%h : f16) outs(%e1 : tensor<4x32x8x8xf16>) -> tensor<4x32x8x8xf16>
  %inserted = tensor.insert_slice %dy into %z1[0, 0, 0, 0] [4, 32, 4, 4] [1, 1, 2, 2] : tensor<4x32x4x4xf16> into tensor<4x32x8x8xf16>
  %e2 = tensor.empty() : tensor<4x16x8x8xf32>
  %z2 = linalg.fill ins(%cst : f32) outs(%e2 : tensor<4x16x8x8xf32>) -> tensor<4x16x8x8xf32>
  %dx = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%inserted, %flipped : tensor<4x32x8x8xf16>, tensor<16x32x1x1xf16>) outs(%z2 : tensor<4x16x8x8xf32>) -> tensor<4x16x8x8xf32>
  return %dx : tensor<4x16x8x8xf32>
}

// -----

// The projection's filter gradient: no padding, cut to 1x1 in two slices
// (PyTorch's narrow, one dimension each).
// CHECK-LABEL: func.func @filter_projection
// CHECK: amp.conv2d_backward_filter ins(%arg0, %arg1 : tensor<4x16x8x8xf32>, tensor<4x32x4x4xf32>) outs(%{{.*}} : tensor<32x16x1x1xf32>) strides = [2, 2] padding = [0, 0] dilations = [1, 1] -> tensor<32x16x1x1xf32>
// CHECK-NOT: tensor.extract_slice
func.func @filter_projection(%x: tensor<4x16x8x8xf32>, %dy: tensor<4x32x4x4xf32>) -> tensor<32x16x1x1xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<16x4x8x8xf32>
  %xt = linalg.transpose ins(%x : tensor<4x16x8x8xf32>) outs(%e0 : tensor<16x4x8x8xf32>) permutation = [1, 0, 2, 3]
  %e1 = tensor.empty() : tensor<32x4x4x4xf32>
  %dyt = linalg.transpose ins(%dy : tensor<4x32x4x4xf32>) outs(%e1 : tensor<32x4x4x4xf32>) permutation = [1, 0, 2, 3]
  %e2 = tensor.empty() : tensor<16x32x2x2xf32>
  %zero = linalg.fill ins(%cst : f32) outs(%e2 : tensor<16x32x2x2xf32>) -> tensor<16x32x2x2xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%xt, %dyt : tensor<16x4x8x8xf32>, tensor<32x4x4x4xf32>) outs(%zero : tensor<16x32x2x2xf32>) -> tensor<16x32x2x2xf32>
  %cut0 = tensor.extract_slice %conv[0, 0, 0, 0] [16, 32, 1, 2] [1, 1, 1, 1] : tensor<16x32x2x2xf32> to tensor<16x32x1x2xf32>
  %cut1 = tensor.extract_slice %cut0[0, 0, 0, 0] [16, 32, 1, 1] [1, 1, 1, 1] : tensor<16x32x1x2xf32> to tensor<16x32x1x1xf32>
  %e3 = tensor.empty() : tensor<32x16x1x1xf32>
  %dw = linalg.transpose ins(%cut1 : tensor<16x32x1x1xf32>) outs(%e3 : tensor<32x16x1x1xf32>) permutation = [1, 0, 2, 3]
  return %dw : tensor<32x16x1x1xf32>
}

// -----

// A dynamic batch (from_torch_training with dynamic_dims=0): the batch is
// the second dimension of the transposed operands; the input rounded after
// its pad (as at O1 in bfloat16), which moves onto x as well.
// CHECK-LABEL: func.func @filter_dynamic_batch
// CHECK-SAME: (%[[X:.*]]: tensor<?x3x8x8xf32>, %[[DY:.*]]: tensor<?x4x8x8xbf16>)
// CHECK: %[[XH:.*]] = arith.truncf %[[X]] : tensor<?x3x8x8xf32> to tensor<?x3x8x8xbf16>
// CHECK: %[[DW:.*]] = amp.conv2d_backward_filter ins(%[[XH]], %[[DY]] : tensor<?x3x8x8xbf16>, tensor<?x4x8x8xbf16>) outs(%{{.*}} : tensor<4x3x3x3xf32>) strides = [1, 1] padding = [1, 1] dilations = [1, 1] -> tensor<4x3x3x3xf32>
// CHECK-NOT: linalg.conv_2d
// CHECK: return %[[DW]]
func.func @filter_dynamic_batch(%x: tensor<?x3x8x8xf32>, %dy: tensor<?x4x8x8xbf16>) -> tensor<4x3x3x3xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %n = tensor.dim %x, %c0 : tensor<?x3x8x8xf32>
  %e0 = tensor.empty(%n) : tensor<3x?x8x8xf32>
  %xt = linalg.transpose ins(%x : tensor<?x3x8x8xf32>) outs(%e0 : tensor<3x?x8x8xf32>) permutation = [1, 0, 2, 3]
  %e1 = tensor.empty(%n) : tensor<4x?x8x8xbf16>
  %dyt = linalg.transpose ins(%dy : tensor<?x4x8x8xbf16>) outs(%e1 : tensor<4x?x8x8xbf16>) permutation = [1, 0, 2, 3]
  %padded = tensor.pad %xt low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %cst : f32
  } : tensor<3x?x8x8xf32> to tensor<3x?x10x10xf32>
  %ph = arith.truncf %padded : tensor<3x?x10x10xf32> to tensor<3x?x10x10xbf16>
  %e2 = tensor.empty() : tensor<3x4x3x3xf32>
  %zero = linalg.fill ins(%cst : f32) outs(%e2 : tensor<3x4x3x3xf32>) -> tensor<3x4x3x3xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%ph, %dyt : tensor<3x?x10x10xbf16>, tensor<4x?x8x8xbf16>) outs(%zero : tensor<3x4x3x3xf32>) -> tensor<3x4x3x3xf32>
  %e3 = tensor.empty() : tensor<4x3x3x3xf32>
  %dw = linalg.transpose ins(%conv : tensor<3x4x3x3xf32>) outs(%e3 : tensor<4x3x3x3xf32>) permutation = [1, 0, 2, 3]
  return %dw : tensor<4x3x3x3xf32>
}

// -----

// The input gradient with a dynamic batch: dy inserted into zeros of its
// batch.
// CHECK-LABEL: func.func @data_dynamic_batch
// CHECK-SAME: (%[[DY:.*]]: tensor<?x4x3x3xf32>, %[[W:.*]]: tensor<4x5x3x3xf32>)
// CHECK: %[[DX:.*]] = amp.conv2d_backward_data ins(%[[DY]], %[[W]] : tensor<?x4x3x3xf32>, tensor<4x5x3x3xf32>) outs(%{{.*}} : tensor<?x5x5x5xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] -> tensor<?x5x5x5xf32>
// CHECK-NOT: linalg.conv_2d
// CHECK: return %[[DX]]
func.func @data_dynamic_batch(%dy: tensor<?x4x3x3xf32>, %w: tensor<4x5x3x3xf32>) -> tensor<?x5x5x5xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %cst = arith.constant 0.000000e+00 : f32
  %n = tensor.dim %dy, %c0 : tensor<?x4x3x3xf32>
  %e0 = tensor.empty() : tensor<5x4x3x3xf32>
  %flipped = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                             iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%e0 : tensor<5x4x3x3xf32>) {
  ^bb0(%out: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %r = arith.subi %c2, %i2 : index
    %s = arith.subi %c2, %i3 : index
    %v = tensor.extract %w[%i1, %i0, %r, %s] : tensor<4x5x3x3xf32>
    linalg.yield %v : f32
  } -> tensor<5x4x3x3xf32>
  %e1 = tensor.empty(%n) : tensor<?x4x7x7xf32>
  %z1 = linalg.fill ins(%cst : f32) outs(%e1 : tensor<?x4x7x7xf32>) -> tensor<?x4x7x7xf32>
  %inserted = tensor.insert_slice %dy into %z1[0, 0, 1, 1] [%n, 4, 3, 3] [1, 1, 2, 2] : tensor<?x4x3x3xf32> into tensor<?x4x7x7xf32>
  %e2 = tensor.empty(%n) : tensor<?x5x5x5xf32>
  %z2 = linalg.fill ins(%cst : f32) outs(%e2 : tensor<?x5x5x5xf32>) -> tensor<?x5x5x5xf32>
  %dx = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%inserted, %flipped : tensor<?x4x7x7xf32>, tensor<5x4x3x3xf32>) outs(%z2 : tensor<?x5x5x5xf32>) -> tensor<?x5x5x5xf32>
  return %dx : tensor<?x5x5x5xf32>
}
