// A small convolutional classifier in linalg on tensors: conv (NCHW/FCHW),
// a batch-norm-like generic (per-channel mean/variance/scale/shift with
// rsqrt), ReLU, 2x2 max pooling, a fully connected layer and softmax.
//
//   amp-opt examples/linalg_convnet.mlir --amp-o1="report=text"
//   amp-opt examples/linalg_convnet.mlir --amp-o2="report=text explain=true"

#act = affine_map<(n, c, h, w) -> (n, c, h, w)>
#chan = affine_map<(n, c, h, w) -> (c)>

func.func @convnet(%image: tensor<1x3x16x16xf32>, %filter: tensor<8x3x3x3xf32>,
                   %mean: tensor<8xf32>, %var: tensor<8xf32>,
                   %gamma: tensor<8xf32>, %beta: tensor<8xf32>,
                   %fc: tensor<392x10xf32>) -> tensor<1x10xf32> {
  %zero = arith.constant 0.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  // -inf, not -FLT_MAX: the max-pooling identity exists in f16 too, while
  // -FLT_MAX would overflow it (and keep the pooling in f32, with a warning).
  %ninf = arith.constant 0xFF800000 : f32

  // Convolution: 1x3x16x16 * 8x3x3x3 -> 1x8x14x14.
  %ce = tensor.empty() : tensor<1x8x14x14xf32>
  %cz = linalg.fill ins(%zero : f32) outs(%ce : tensor<1x8x14x14xf32>) -> tensor<1x8x14x14xf32>
  %conv = linalg.conv_2d_nchw_fchw
      {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%image, %filter : tensor<1x3x16x16xf32>, tensor<8x3x3x3xf32>)
      outs(%cz : tensor<1x8x14x14xf32>) -> tensor<1x8x14x14xf32>

  // Batch norm (inference form): gamma * (x - mean) * rsqrt(var + eps) + beta.
  %bn = linalg.generic
      {indexing_maps = [#act, #chan, #chan, #chan, #chan, #act],
       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv, %mean, %var, %gamma, %beta
          : tensor<1x8x14x14xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
      outs(%ce : tensor<1x8x14x14xf32>) {
  ^bb0(%x: f32, %m: f32, %v: f32, %g: f32, %b: f32, %o: f32):
    %centered = arith.subf %x, %m : f32
    %ve = arith.addf %v, %eps : f32
    %inv = math.rsqrt %ve : f32
    %normed = arith.mulf %centered, %inv : f32
    %scaled = arith.mulf %normed, %g : f32
    %shifted = arith.addf %scaled, %b : f32
    linalg.yield %shifted : f32
  } -> tensor<1x8x14x14xf32>

  // ReLU.
  %relu = linalg.generic
      {indexing_maps = [#act, #act],
       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bn : tensor<1x8x14x14xf32>) outs(%ce : tensor<1x8x14x14xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x8x14x14xf32>

  // 2x2 max pooling -> 1x8x7x7.
  %window = tensor.empty() : tensor<2x2xf32>
  %pe = tensor.empty() : tensor<1x8x7x7xf32>
  %pinit = linalg.fill ins(%ninf : f32) outs(%pe : tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
  %pool = linalg.pooling_nchw_max
      {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%relu, %window : tensor<1x8x14x14xf32>, tensor<2x2xf32>)
      outs(%pinit : tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>

  // Fully connected: 1x392 * 392x10.
  %flat = tensor.collapse_shape %pool [[0], [1, 2, 3]] : tensor<1x8x7x7xf32> into tensor<1x392xf32>
  %fe = tensor.empty() : tensor<1x10xf32>
  %fz = linalg.fill ins(%zero : f32) outs(%fe : tensor<1x10xf32>) -> tensor<1x10xf32>
  %logits = linalg.matmul ins(%flat, %fc : tensor<1x392xf32>, tensor<392x10xf32>)
                          outs(%fz : tensor<1x10xf32>) -> tensor<1x10xf32>

  // Softmax over the classes.
  %se = tensor.empty() : tensor<1x10xf32>
  %probs = linalg.softmax dimension(1) ins(%logits : tensor<1x10xf32>)
                                       outs(%se : tensor<1x10xf32>) -> tensor<1x10xf32>
  return %probs : tensor<1x10xf32>
}
