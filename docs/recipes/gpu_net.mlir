// A conv layer followed by a dense layer, in fp32.
func.func @net(%img: tensor<1x3x18x18xf32>, %filt: tensor<8x3x3x3xf32>,
               %w: tensor<512x10xf32>) -> tensor<1x10xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %ci = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%img, %filt : tensor<1x3x18x18xf32>, tensor<8x3x3x3xf32>)
         outs(%ci : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                        affine_map<(n, c, h, w) -> (n, c, h, w)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
         ins(%c : tensor<1x8x8x8xf32>) outs(%e : tensor<1x8x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x8xf32>
  %flat = tensor.collapse_shape %r [[0], [1, 2, 3]] : tensor<1x8x8x8xf32> into tensor<1x512xf32>
  %e2 = tensor.empty() : tensor<1x10xf32>
  %mi = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x10xf32>) -> tensor<1x10xf32>
  %y = linalg.matmul ins(%flat, %w : tensor<1x512xf32>, tensor<512x10xf32>)
                     outs(%mi : tensor<1x10xf32>) -> tensor<1x10xf32>
  return %y : tensor<1x10xf32>
}
