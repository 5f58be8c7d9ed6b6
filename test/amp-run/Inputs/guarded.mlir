// A guarded region: amp.fp16_guard marks what may go low under AMP.
func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = amp.fp16_guard -> tensor<4xf32> {
    %e = math.tanh %x : tensor<4xf32>
    amp.yield %e : tensor<4xf32>
  }
  %s = arith.addf %r, %x : tensor<4xf32>
  return %s : tensor<4xf32>
}
