// A ResNet basic block in inference, as a frontend writes it in NCHW
// (test/amp-run/conv-epilogues.test): a 3x3 convolution (padding 1), batch
// norm with the running statistics and a ReLU, a second convolution, batch
// norm, the first ReLU's output added (the residual) and a ReLU. The
// variance is v*v + 0.5 so that random inputs give a positive one.
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#channel = affine_map<(d0, d1, d2, d3) -> (d1)>

func.func @main(%x: tensor<2x8x6x6xf32>, %w1: tensor<8x8x3x3xf32>,
                %w2: tensor<8x8x3x3xf32>, %mean: tensor<8xf32>,
                %var: tensor<8xf32>, %gamma: tensor<8xf32>,
                %beta: tensor<8xf32>) -> tensor<2x8x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.50001 : f32
  %p1 = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<2x8x6x6xf32> to tensor<2x8x8x8xf32>
  %e1 = tensor.empty() : tensor<2x8x6x6xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%p1, %w1 : tensor<2x8x8x8xf32>, tensor<8x8x3x3xf32>) outs(%f1 : tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf32>
  %h1 = linalg.generic {indexing_maps = [#id, #channel, #channel, #channel, #channel, #id],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1, %mean, %var, %gamma, %beta : tensor<2x8x6x6xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
      outs(%e1 : tensor<2x8x6x6xf32>) {
  ^bb0(%in: f32, %m: f32, %v: f32, %g: f32, %b: f32, %o: f32):
    %vv = arith.mulf %v, %v : f32
    %ve = arith.addf %vv, %half : f32
    %rs = math.rsqrt %ve : f32
    %c = arith.subf %in, %m : f32
    %n = arith.mulf %c, %rs : f32
    %s = arith.mulf %n, %g : f32
    %t = arith.addf %s, %b : f32
    %r = arith.maximumf %t, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x8x6x6xf32>
  %p2 = tensor.pad %h1 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<2x8x6x6xf32> to tensor<2x8x8x8xf32>
  %e2 = tensor.empty() : tensor<2x8x6x6xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%p2, %w2 : tensor<2x8x8x8xf32>, tensor<8x8x3x3xf32>) outs(%f2 : tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf32>
  %h2 = linalg.generic {indexing_maps = [#id, #channel, #channel, #channel, #channel, #id, #id],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c2, %mean, %var, %gamma, %beta, %h1 : tensor<2x8x6x6xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x8x6x6xf32>)
      outs(%e2 : tensor<2x8x6x6xf32>) {
  ^bb0(%in: f32, %m: f32, %v: f32, %g: f32, %b: f32, %res: f32, %o: f32):
    %vv = arith.mulf %v, %v : f32
    %ve = arith.addf %vv, %half : f32
    %rs = math.rsqrt %ve : f32
    %c = arith.subf %in, %m : f32
    %n = arith.mulf %c, %rs : f32
    %s = arith.mulf %n, %g : f32
    %t = arith.addf %s, %b : f32
    %u = arith.addf %t, %res : f32
    %r = arith.maximumf %u, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x8x6x6xf32>
  return %h2 : tensor<2x8x6x6xf32>
}
