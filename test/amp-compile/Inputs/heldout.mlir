// A module no other test compiles (held out for amp-compile): a dynamic
// batch through a matmul with a bias and tanh, a padded convolution (on the
// CPU, tensor.pad becomes a strided copy: memrefCopy), and two results of
// different ranks from one function.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

func.func @dense(%x: tensor<?x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x16xf32>, tensor<16x8xf32>) outs(%init : tensor<?x8xf32>) -> tensor<?x8xf32>
  %y = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<?x8xf32>, tensor<8xf32>) outs(%e : tensor<?x8xf32>) {
    ^bb0(%a: f32, %c: f32, %o: f32):
      %s = arith.addf %a, %c : f32
      %t = math.tanh %s : f32
      linalg.yield %t : f32
  } -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

func.func @padded_conv(%x: tensor<1x2x8x8xf32>, %w: tensor<3x2x3x3xf32>) -> (tensor<1x3x8x8xf32>, tensor<3xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%i: index, %j: index, %k: index, %l: index):
      tensor.yield %zero : f32
  } : tensor<1x2x8x8xf32> to tensor<1x2x10x10xf32>
  %e = tensor.empty() : tensor<1x3x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%p, %w : tensor<1x2x10x10xf32>, tensor<3x2x3x3xf32>) outs(%init : tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %e1 = tensor.empty() : tensor<3xf32>
  %init1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<3xf32>) -> tensor<3xf32>
  %sums = linalg.reduce ins(%y : tensor<1x3x8x8xf32>) outs(%init1 : tensor<3xf32>) dimensions = [0, 2, 3]
    (%in: f32, %acc: f32) {
      %t = arith.addf %in, %acc : f32
      linalg.yield %t : f32
    }
  return %y, %sums : tensor<1x3x8x8xf32>, tensor<3xf32>
}
