// A forward-backward function of the training convention (amp-training):
// linear regression, loss = sum((x w - t)^2), gradient x^T (2 (x w - t) seed).
// python/tests/test_trainer.py and test/amp-run/training-step.test.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#sc = affine_map<(d0, d1) -> ()>
func.func @forward_backward(%w: tensor<4x3xf32> {amp.param = "fc.weight"},
    %x: tensor<8x4xf32> {amp.batch}, %t: tensor<8x3xf32> {amp.batch},
    %seed: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<4x3xf32> {amp.grad = "fc.weight"})
    attributes {amp.optimizer = {kind = "adamw", lr = 1.0e-2 : f64, weight_decay = 0.01 : f64}} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x3xf32>) -> tensor<8x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x4xf32>, tensor<4x3xf32>) outs(%z : tensor<8x3xf32>) -> tensor<8x3xf32>
  %d = linalg.sub ins(%y, %t : tensor<8x3xf32>, tensor<8x3xf32>) outs(%e : tensor<8x3xf32>) -> tensor<8x3xf32>
  %el = tensor.empty() : tensor<f32>
  %zl = linalg.fill ins(%zero : f32) outs(%el : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, #sc], iterator_types = ["reduction", "reduction"]}
      ins(%d : tensor<8x3xf32>) outs(%zl : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  // dL/dy = 2 d * seed
  %dy = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d, %seed : tensor<8x3xf32>, tensor<f32>) outs(%e : tensor<8x3xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %two = arith.constant 2.0 : f32
    %m = arith.mulf %a, %two : f32
    %r = arith.mulf %m, %s : f32
    linalg.yield %r : f32
  } -> tensor<8x3xf32>
  %ew = tensor.empty() : tensor<4x3xf32>
  %zw = linalg.fill ins(%zero : f32) outs(%ew : tensor<4x3xf32>) -> tensor<4x3xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %xt = linalg.transpose ins(%x : tensor<8x4xf32>) outs(%e2 : tensor<4x8xf32>) permutation = [1, 0]
  %gw = linalg.matmul ins(%xt, %dy : tensor<4x8xf32>, tensor<8x3xf32>) outs(%zw : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %loss, %gw : tensor<f32>, tensor<4x3xf32>
}
