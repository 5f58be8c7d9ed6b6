func.func @f(%a: tensor<4xf32>) {
  // the shapes differ
  %0 = amp.cast %a : tensor<4xf32> to tensor<2xf16>
  return
}
