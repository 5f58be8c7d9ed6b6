func.func @mm(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>, %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %z = tensor.empty() : tensor<64x32xf32>
  %cst = arith.constant 0.0 : f32
  %f = linalg.fill ins(%cst : f32) outs(%z : tensor<64x32xf32>) -> tensor<64x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x32xf32>) outs(%f : tensor<64x32xf32>) -> tensor<64x32xf32>
  %r = arith.addf %m, %c : tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}
