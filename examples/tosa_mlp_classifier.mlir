// A TOSA MLP classifier with a softmax cross-entropy loss: two dense layers
// (tosa.matmul + bias), ReLU (tosa.clamp), a numerically stable softmax
// (max-subtracted exp / sum) and the mean negative log-likelihood against
// one-hot labels. Batch 1, 8 samples, 16 features, 4 classes.
//
//   amp-opt examples/tosa_mlp_classifier.mlir --amp-o1="report=text"
//   amp-opt examples/tosa_mlp_classifier.mlir --amp-o2="report=text" \
//     | mlir-opt --tosa-validate

func.func @classifier_loss(%x: tensor<1x8x16xf32>, %labels: tensor<1x8x4xf32>)
    -> (tensor<1x8x4xf32>, tensor<1x1x1xf32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %w1 = "tosa.const"() <{values = dense<0.125> : tensor<1x16x32xf32>}> : () -> tensor<1x16x32xf32>
  %b1 = "tosa.const"() <{values = dense<0.01> : tensor<1x1x32xf32>}> : () -> tensor<1x1x32xf32>
  %w2 = "tosa.const"() <{values = dense<-0.0625> : tensor<1x32x4xf32>}> : () -> tensor<1x32x4xf32>
  %b2 = "tosa.const"() <{values = dense<[[[0.1, 0.2, 0.3, 0.4]]]> : tensor<1x1x4xf32>}> : () -> tensor<1x1x4xf32>
  %inv_n = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>

  // Layer 1: dense + ReLU.
  %h = tosa.matmul %x, %w1, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x32xf32>
  %hb = tosa.add %h, %b1 : (tensor<1x8x32xf32>, tensor<1x1x32xf32>) -> tensor<1x8x32xf32>
  %relu = tosa.clamp %hb {min_val = 0.0 : f32, max_val = 3.4028235e38 : f32} : (tensor<1x8x32xf32>) -> tensor<1x8x32xf32>

  // Layer 2: logits.
  %l = tosa.matmul %relu, %w2, %zp, %zp : (tensor<1x8x32xf32>, tensor<1x32x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x4xf32>
  %logits = tosa.add %l, %b2 : (tensor<1x8x4xf32>, tensor<1x1x4xf32>) -> tensor<1x8x4xf32>

  // Softmax over the classes.
  %max = tosa.reduce_max %logits {axis = 2 : i32} : (tensor<1x8x4xf32>) -> tensor<1x8x1xf32>
  %shifted = tosa.sub %logits, %max : (tensor<1x8x4xf32>, tensor<1x8x1xf32>) -> tensor<1x8x4xf32>
  %exp = tosa.exp %shifted : (tensor<1x8x4xf32>) -> tensor<1x8x4xf32>
  %sum = tosa.reduce_sum %exp {axis = 2 : i32} : (tensor<1x8x4xf32>) -> tensor<1x8x1xf32>
  %rcp = tosa.reciprocal %sum : (tensor<1x8x1xf32>) -> tensor<1x8x1xf32>
  %probs = tosa.mul %exp, %rcp, %shift : (tensor<1x8x4xf32>, tensor<1x8x1xf32>, tensor<1xi8>) -> tensor<1x8x4xf32>

  // Cross-entropy: -mean(sum(labels * log(probs))).
  %logp = tosa.log %probs : (tensor<1x8x4xf32>) -> tensor<1x8x4xf32>
  %picked = tosa.mul %labels, %logp, %shift : (tensor<1x8x4xf32>, tensor<1x8x4xf32>, tensor<1xi8>) -> tensor<1x8x4xf32>
  %per_sample = tosa.reduce_sum %picked {axis = 2 : i32} : (tensor<1x8x4xf32>) -> tensor<1x8x1xf32>
  %total = tosa.reduce_sum %per_sample {axis = 1 : i32} : (tensor<1x8x1xf32>) -> tensor<1x1x1xf32>
  %mean = tosa.mul %total, %inv_n, %shift : (tensor<1x1x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x1x1xf32>
  %loss = tosa.negate %mean, %zp, %zp : (tensor<1x1x1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1xf32>
  return %probs, %loss : tensor<1x8x4xf32>, tensor<1x1x1xf32>
}
