// A depthwise convolution, which the GPU's cuDNN calls do not compute (the
// legacy API's calls take no groups): it stays a generated kernel, with a
// remark, and the GPU tools' checks must say so.
func.func @conv(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4xf32>) -> tensor<1x6x6x4xf32> {
  %z = tensor.empty() : tensor<1x6x6x4xf32>
  %cst = arith.constant 0.0 : f32
  %f = linalg.fill ins(%cst : f32) outs(%z : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x8x8x4xf32>, tensor<3x3x4xf32>) outs(%f : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  return %r : tensor<1x6x6x4xf32>
}
