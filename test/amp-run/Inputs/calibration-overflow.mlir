// Two linear layers; the first one's f32 outputs (about 2e5 at the largest)
// exceed f16's range. At O2 f16 they are stored in f16 for the second, and
// overflow to infinity, unless calibration keeps both layers in f32
// (calibration.test).
func.func @forward(%x: tensor<4x64xf32>) -> tensor<4x8xf32> {
  %scale = arith.constant dense<100.0> : tensor<4x64xf32>
  %xs = arith.mulf %x, %scale : tensor<4x64xf32>
  %w = arith.constant dense<200.0> : tensor<64x16xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%xs, %w : tensor<4x64xf32>, tensor<64x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %w2 = arith.constant dense<0.001> : tensor<16x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.matmul ins(%m, %w2 : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
