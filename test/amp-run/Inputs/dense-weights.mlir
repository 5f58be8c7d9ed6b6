// The linear layer of resource-weights.mlir with its weights as dense<>
// constants (the same f32 values).
func.func @linear(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = arith.constant dense<[[1.000000015e-01, -2.000000030e-01, 3.000000119e-01], [1.700000048e+00, 2.500000000e+00, -3.250000000e+00], [3.330000043e-01, 9.999999776e-03, 7.000000000e+00], [-1.100000024e+00, 5.000000075e-02, 1.234560013e+01]]> : tensor<4x3xf32>
  %b = arith.constant dense<[5.000000000e-01, -2.500000000e-01, 1.250000000e-01]> : tensor<3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %bb = linalg.broadcast ins(%b : tensor<3xf32>) outs(%e : tensor<2x3xf32>) dimensions = [0]
  %r = arith.addf %y, %bb : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
