// Does not parse: %c is not defined.
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %b = arith.addf %a, %a : tensor<2xf32>
  return %c : tensor<2xf32>
}
