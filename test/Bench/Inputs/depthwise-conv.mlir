// A 1-D convolution, which the GPU's cuDNN calls do not compute (they take
// 2-D convolutions, grouped and depthwise ones included): it stays a
// generated kernel, with a remark, and the GPU tools' checks must say so.
// (The file kept its name from when depthwise convolutions were the
// example.)
func.func @conv(%x: tensor<1x8x4xf32>, %w: tensor<3x4x4xf32>) -> tensor<1x6x4xf32> {
  %z = tensor.empty() : tensor<1x6x4xf32>
  %cst = arith.constant 0.0 : f32
  %f = linalg.fill ins(%cst : f32) outs(%z : tensor<1x6x4xf32>) -> tensor<1x6x4xf32>
  %r = linalg.conv_1d_nwc_wcf {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>}
    ins(%x, %w : tensor<1x8x4xf32>, tensor<3x4x4xf32>) outs(%f : tensor<1x6x4xf32>) -> tensor<1x6x4xf32>
  return %r : tensor<1x6x4xf32>
}
