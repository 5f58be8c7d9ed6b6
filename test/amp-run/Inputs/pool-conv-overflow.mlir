// A max pool with PyTorch's -inf padding (tensor.pad and a -inf fill, as
// torch-mlir lowers max_pool2d with padding=1), then a convolution whose
// f16 result overflows: inputs in [-1, 1), scaled by 1000, times weights of
// 300 summed over 2 channels and 3x3 taps exceed 65504, while f32 is
// finite (the convolution's result is stored in f16 for the ReLU that
// follows). The -inf of the pool is its identity, not an overflow.
func.func @pool(%x: tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<1x2x6x6xf32> to tensor<1x2x8x8xf32>
  %init = tensor.empty() : tensor<1x2x3x3xf32>
  %fill = linalg.fill ins(%ninf : f32) outs(%init : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %pool = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%padded, %window : tensor<1x2x8x8xf32>, tensor<3x3xf32>)
      outs(%fill : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %pool : tensor<1x2x3x3xf32>
}

func.func @pool_conv(%x: tensor<1x2x6x6xf32>) -> tensor<1x2x1x1xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<1x2x6x6xf32> to tensor<1x2x8x8xf32>
  %init = tensor.empty() : tensor<1x2x3x3xf32>
  %fill = linalg.fill ins(%ninf : f32) outs(%init : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %pool = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%padded, %window : tensor<1x2x8x8xf32>, tensor<3x3xf32>)
      outs(%fill : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %k = arith.constant dense<1000.0> : tensor<1x2x3x3xf32>
  %big = arith.mulf %pool, %k : tensor<1x2x3x3xf32>
  %w = arith.constant dense<300.0> : tensor<2x2x3x3xf32>
  %cinit = tensor.empty() : tensor<1x2x1x1xf32>
  %cfill = linalg.fill ins(%zero : f32) outs(%cinit : tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%big, %w : tensor<1x2x3x3xf32>, tensor<2x2x3x3xf32>)
      outs(%cfill : tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32>
  %relu = arith.maximumf %conv, %cfill : tensor<1x2x1x1xf32>
  return %relu : tensor<1x2x1x1xf32>
}
