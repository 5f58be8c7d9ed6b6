// A dense layer whose matmul and bias add may run in fp16 (they sit in an
// amp.fp16_guard), then a tanh and a second projection left outside it.
func.func @head(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>, %b: tensor<8x4xf32>,
                %v: tensor<4x4xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %h = amp.fp16_guard -> tensor<8x4xf32> {
    %mm = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x4xf32>)
                        outs(%acc : tensor<8x4xf32>) -> tensor<8x4xf32>
    %hb = arith.addf %mm, %b : tensor<8x4xf32>
    amp.yield %hb : tensor<8x4xf32>
  }
  %t = math.tanh %h : tensor<8x4xf32>
  %y = linalg.matmul ins(%t, %v : tensor<8x4xf32>, tensor<4x4xf32>)
                     outs(%acc : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}
