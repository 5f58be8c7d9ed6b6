// A forward-backward function with model buffers (amp.buffer): a running
// mean of the input (0.9 * mean + 0.1 * x) and a step count, as batch norm
// keeps them; loss = sum(w * x) (python/tests/test_trainer.py).
#id = affine_map<(d0) -> (d0)>
#sc = affine_map<(d0) -> ()>

func.func @forward_backward(%w: tensor<4xf32> {amp.param = "w"},
                            %mean: tensor<4xf32> {amp.buffer = "bn.running_mean"},
                            %count: tensor<i64> {amp.buffer = "bn.num_batches_tracked"},
                            %x: tensor<4xf32> {amp.batch},
                            %seed: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<4xf32> {amp.grad = "w"},
        tensor<4xf32> {amp.buffer = "bn.running_mean"},
        tensor<i64> {amp.buffer = "bn.num_batches_tracked"})
    attributes {amp.optimizer = {kind = "momentum", lr = 0.1 : f64, momentum = 0.9 : f64}} {
  // The running mean: 0.9 * mean + 0.1 * x.
  %e = tensor.empty() : tensor<4xf32>
  %new_mean = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%mean, %x : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%m: f32, %v: f32, %o: f32):
    %keep = arith.constant 0.9 : f32
    %take = arith.constant 0.1 : f32
    %a = arith.mulf %keep, %m : f32
    %b = arith.mulf %take, %v : f32
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %one = arith.constant dense<1> : tensor<i64>
  %new_count = arith.addi %count, %one : tensor<i64>
  // loss = sum(w * x), d loss / d w = x * seed.
  %z = arith.constant dense<0.0> : tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, #id, #sc], iterator_types = ["reduction"]}
      ins(%w, %x : tensor<4xf32>, tensor<4xf32>) outs(%z : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %grad = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel"]}
      ins(%x, %seed : tensor<4xf32>, tensor<f32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %p = arith.mulf %a, %s : f32
    linalg.yield %p : f32
  } -> tensor<4xf32>
  return %loss, %grad, %new_mean, %new_count : tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>
}
