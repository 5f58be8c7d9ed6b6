// The op kinds --lower-to-gpu treats differently, one function each, for
// comparing GPU results with CPU results (gpu-execution.test).

// cuBLAS GEMM with a zero init (beta = 0) and a fused tanh epilogue.
func.func @gemm(%a: tensor<64x96xf32>, %b: tensor<96x80xf32>) -> tensor<64x80xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%init : tensor<64x80xf32>) -> tensor<64x80xf32>
  %r = math.tanh %mm : tensor<64x80xf32>
  return %r : tensor<64x80xf32>
}

// Strided-batched GEMM with a transposed B, accumulating into an input
// (beta = 1).
func.func @batch_transposed(%a: tensor<3x16x32xf32>, %b: tensor<3x24x32xf32>, %c: tensor<3x16x24xf32>) -> tensor<3x16x24xf32> {
  %r = linalg.batch_matmul
    indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                     affine_map<(b, m, n, k) -> (b, n, k)>,
                     affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%a, %b : tensor<3x16x32xf32>, tensor<3x24x32xf32>) outs(%c : tensor<3x16x24xf32>) -> tensor<3x16x24xf32>
  return %r : tensor<3x16x24xf32>
}

// cuDNN convolution, NCHW/FCHW, stride 2.
func.func @conv_nchw(%x: tensor<2x3x17x17xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<2x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %y = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<2x3x17x17xf32>, tensor<8x3x3x3xf32>) outs(%init : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  return %y : tensor<2x8x8x8xf32>
}

// cuDNN convolution, NHWC/HWCF, dilation 2.
func.func @conv_nhwc(%x: tensor<1x12x12x4xf32>, %w: tensor<3x3x4x16xf32>) -> tensor<1x8x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %y = linalg.conv_2d_nhwc_hwcf {strides = dense<1> : tensor<2xi64>, dilations = dense<2> : tensor<2xi64>}
    ins(%x, %w : tensor<1x12x12x4xf32>, tensor<3x3x4x16xf32>) outs(%init : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %y : tensor<1x8x8x16xf32>
}

// Generated kernels: a softmax (reductions per row) and a sum to a scalar
// (a one-thread kernel).
func.func @softmax_sum(%x: tensor<8x300xf32>) -> (tensor<8x300xf32>, tensor<f32>) {
  %e = tensor.empty() : tensor<8x300xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<8x300xf32>) outs(%e : tensor<8x300xf32>) -> tensor<8x300xf32>
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%x : tensor<8x300xf32>) outs(%init : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %t = arith.addf %in, %acc : f32
      linalg.yield %t : f32
    }
  return %s, %sum : tensor<8x300xf32>, tensor<f32>
}
