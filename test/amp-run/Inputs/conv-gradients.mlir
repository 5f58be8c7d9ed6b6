// The gradients of a 3x3 convolution with stride 2 and padding 1 of a
// 2x3x9x10 input by a 5x3x3x3 filter (output gradient 2x5x5x5), two ways
// (test/amp-run/conv-gradients.test):
// - @forms: as from_torch_training writes them, forward convolutions: the
//   input gradient of the output gradient inserted with stride 2 into
//   zeros by the flipped filter, the filter gradient of the transposed
//   input by the transposed output gradient with dilation 2, cut and
//   transposed back (what amp-raise-convolution-gradients raises);
// - @ops: amp.conv2d_backward_data and amp.conv2d_backward_filter.
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

func.func @forms(%x: tensor<2x3x9x10xf32>, %dy: tensor<2x5x5x5xf32>, %w: tensor<5x3x3x3xf32>)
    -> (tensor<2x3x9x10xf32>, tensor<5x3x3x3xf32>) {
  %c2 = arith.constant 2 : index
  %cst = arith.constant 0.000000e+00 : f32
  // The input gradient.
  %e0 = tensor.empty() : tensor<3x5x3x3xf32>
  %flipped = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%e0 : tensor<3x5x3x3xf32>) {
  ^bb0(%out: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %r = arith.subi %c2, %i2 : index
    %s = arith.subi %c2, %i3 : index
    %v = tensor.extract %w[%i1, %i0, %r, %s] : tensor<5x3x3x3xf32>
    linalg.yield %v : f32
  } -> tensor<3x5x3x3xf32>
  %e1 = tensor.empty() : tensor<2x5x11x12xf32>
  %z1 = linalg.fill ins(%cst : f32) outs(%e1 : tensor<2x5x11x12xf32>) -> tensor<2x5x11x12xf32>
  %inserted = tensor.insert_slice %dy into %z1[0, 0, 1, 1] [2, 5, 5, 5] [1, 1, 2, 2]
      : tensor<2x5x5x5xf32> into tensor<2x5x11x12xf32>
  %e2 = tensor.empty() : tensor<2x3x9x10xf32>
  %z2 = linalg.fill ins(%cst : f32) outs(%e2 : tensor<2x3x9x10xf32>) -> tensor<2x3x9x10xf32>
  %dx = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%inserted, %flipped : tensor<2x5x11x12xf32>, tensor<3x5x3x3xf32>) outs(%z2 : tensor<2x3x9x10xf32>)
      -> tensor<2x3x9x10xf32>
  // The filter gradient.
  %e3 = tensor.empty() : tensor<3x2x9x10xf32>
  %xt = linalg.transpose ins(%x : tensor<2x3x9x10xf32>) outs(%e3 : tensor<3x2x9x10xf32>) permutation = [1, 0, 2, 3]
  %e4 = tensor.empty() : tensor<5x2x5x5xf32>
  %dyt = linalg.transpose ins(%dy : tensor<2x5x5x5xf32>) outs(%e4 : tensor<5x2x5x5xf32>) permutation = [1, 0, 2, 3]
  %padded = tensor.pad %xt low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %cst : f32
  } : tensor<3x2x9x10xf32> to tensor<3x2x11x12xf32>
  %e5 = tensor.empty() : tensor<3x5x3x4xf32>
  %z5 = linalg.fill ins(%cst : f32) outs(%e5 : tensor<3x5x3x4xf32>) -> tensor<3x5x3x4xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%padded, %dyt : tensor<3x2x11x12xf32>, tensor<5x2x5x5xf32>) outs(%z5 : tensor<3x5x3x4xf32>)
      -> tensor<3x5x3x4xf32>
  %cut = tensor.extract_slice %conv[0, 0, 0, 0] [3, 5, 3, 3] [1, 1, 1, 1] : tensor<3x5x3x4xf32> to tensor<3x5x3x3xf32>
  %e6 = tensor.empty() : tensor<5x3x3x3xf32>
  %dw = linalg.transpose ins(%cut : tensor<3x5x3x3xf32>) outs(%e6 : tensor<5x3x3x3xf32>) permutation = [1, 0, 2, 3]
  return %dx, %dw : tensor<2x3x9x10xf32>, tensor<5x3x3x3xf32>
}

func.func @ops(%x: tensor<2x3x9x10xf32>, %dy: tensor<2x5x5x5xf32>, %w: tensor<5x3x3x3xf32>)
    -> (tensor<2x3x9x10xf32>, tensor<5x3x3x3xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<2x3x9x10xf32>
  %z0 = linalg.fill ins(%cst : f32) outs(%e0 : tensor<2x3x9x10xf32>) -> tensor<2x3x9x10xf32>
  %dx = amp.conv2d_backward_data ins(%dy, %w : tensor<2x5x5x5xf32>, tensor<5x3x3x3xf32>)
      outs(%z0 : tensor<2x3x9x10xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1]
      -> tensor<2x3x9x10xf32>
  %e1 = tensor.empty() : tensor<5x3x3x3xf32>
  %z1 = linalg.fill ins(%cst : f32) outs(%e1 : tensor<5x3x3x3xf32>) -> tensor<5x3x3x3xf32>
  %dw = amp.conv2d_backward_filter ins(%x, %dy : tensor<2x3x9x10xf32>, tensor<2x5x5x5xf32>)
      outs(%z1 : tensor<5x3x3x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1]
      -> tensor<5x3x3x3xf32>
  return %dx, %dw : tensor<2x3x9x10xf32>, tensor<5x3x3x3xf32>
}
