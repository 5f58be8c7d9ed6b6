// A linear layer whose weights are dense_resource blobs, as torch-mlir emits
// them; dense-weights.mlir holds the same values as dense<> constants.
func.func @linear(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = arith.constant dense_resource<linear_w> : tensor<4x3xf32>
  %b = arith.constant dense_resource<linear_b> : tensor<3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %bb = linalg.broadcast ins(%b : tensor<3xf32>) outs(%e : tensor<2x3xf32>) dimensions = [0]
  %r = arith.addf %y, %bb : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
{-#
  dialect_resources: {
    builtin: {
      linear_w: "0x04000000CDCCCC3DCDCC4CBE9A99993E9A99D93F00002040000050C0FA7EAA3E0AD7233C0000E040CDCC8CBFCDCC4C3D94874541",
      linear_b: "0x040000000000003F000080BE0000003E"
    }
  }
#-}
