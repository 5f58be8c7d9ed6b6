// Verifies, but --lower-to-cpu has no lowering for tosa.custom.
func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = tosa.sin %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = "tosa.custom"(%r) {operator_name = "x", domain_name = "y", implementation_attrs = ""}
      : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}
