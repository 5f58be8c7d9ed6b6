func.func @conv(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x4x6x6xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x3x8x8xf32>
  %z = tensor.empty(%n) : tensor<?x4x6x6xf32>
  %cst = arith.constant 0.0 : f32
  %f = linalg.fill ins(%cst : f32) outs(%z : tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  %r = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%f : tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  return %r : tensor<?x4x6x6xf32>
}
