// Two dense layers with a ReLU, then a softmax over 4 classes, in TOSA.
func.func @classify(%x: tensor<1x8x16xf32>, %w1: tensor<1x16x32xf32>,
                    %w2: tensor<1x32x4xf32>) -> tensor<1x8x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %b1 = "tosa.const"() <{values = dense<0.01> : tensor<1x1x32xf32>}> : () -> tensor<1x1x32xf32>
  %h = tosa.matmul %x, %w1, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x32xf32>
  %hb = tosa.add %h, %b1 : (tensor<1x8x32xf32>, tensor<1x1x32xf32>) -> tensor<1x8x32xf32>
  %relu = tosa.clamp %hb {min_val = 0.0 : f32, max_val = 3.4028235e38 : f32} : (tensor<1x8x32xf32>) -> tensor<1x8x32xf32>
  %logits = tosa.matmul %relu, %w2, %zp, %zp : (tensor<1x8x32xf32>, tensor<1x32x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x4xf32>
  %max = tosa.reduce_max %logits {axis = 2 : i32} : (tensor<1x8x4xf32>) -> tensor<1x8x1xf32>
  %shifted = tosa.sub %logits, %max : (tensor<1x8x4xf32>, tensor<1x8x1xf32>) -> tensor<1x8x4xf32>
  %exp = tosa.exp %shifted : (tensor<1x8x4xf32>) -> tensor<1x8x4xf32>
  %sum = tosa.reduce_sum %exp {axis = 2 : i32} : (tensor<1x8x4xf32>) -> tensor<1x8x1xf32>
  %rcp = tosa.reciprocal %sum : (tensor<1x8x1xf32>) -> tensor<1x8x1xf32>
  %probs = tosa.mul %exp, %rcp, %shift : (tensor<1x8x4xf32>, tensor<1x8x1xf32>, tensor<1xi8>) -> tensor<1x8x4xf32>
  return %probs : tensor<1x8x4xf32>
}
