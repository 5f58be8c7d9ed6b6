// amp-training: a frontend's forward-backward function becomes a training
// step with loss scaling, fp32 masters and the optimizer update.
// RUN: amp-opt %s -split-input-file --amp-training | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-training="scaler=paddle-static" | FileCheck %s --check-prefix=PADDLE
// RUN: amp-opt %s -split-input-file --amp-o2 | FileCheck %s --check-prefix=O2
// RUN: amp-opt %s -split-input-file --amp-training="data-parallel=true" | FileCheck %s --check-prefix=DP
// RUN: amp-opt %s -split-input-file --amp-o2="data-parallel=true scaler=paddle-static" | FileCheck %s --check-prefix=O2DP

#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> ()>

// A linear regression: loss = sum((x w - t)^2), dw = x^T (2 (x w - t) seed).
// CHECK-LABEL: func.func @forward_backward
// CHECK-SAME: (%[[W:.*]]: tensor<4x3xf32> {amp.master, amp.param = "fc.weight"},
// CHECK-SAME: %[[M:.*]]: tensor<4x3xf32> {amp.optimizer_state = "exp_avg:fc.weight"},
// CHECK-SAME: %[[V:.*]]: tensor<4x3xf32> {amp.optimizer_state = "exp_avg_sq:fc.weight"},
// CHECK-SAME: %[[STEP:.*]]: tensor<i32> {amp.optimizer_state = "step"},
// CHECK-SAME: %[[SCALE:.*]]: tensor<f32> {amp.scaler = "scale"}, %[[GOOD:.*]]: tensor<i32> {amp.scaler = "good_steps"},
// CHECK-SAME: %[[BAD:.*]]: tensor<i32> {amp.scaler = "bad_steps"}, %[[HYST:.*]]: tensor<i32> {amp.scaler = "hysteresis"},
// CHECK-SAME: %[[X:.*]]: tensor<8x4xf32> {amp.batch}, %[[T:.*]]: tensor<8x3xf32> {amp.batch, torch.name = "t"})
// CHECK-SAME: -> (tensor<f32> {amp.loss}, tensor<4x3xf32> {amp.param = "fc.weight"},
// CHECK-SAME: tensor<4x3xf32> {amp.optimizer_state = "exp_avg:fc.weight"}, tensor<4x3xf32> {amp.optimizer_state = "exp_avg_sq:fc.weight"},
// CHECK-SAME: tensor<i32> {amp.optimizer_state = "step"}, tensor<f32> {amp.scaler = "scale"}, tensor<i32> {amp.scaler = "good_steps"},
// CHECK-SAME: tensor<i32> {amp.scaler = "bad_steps"}, tensor<i32> {amp.scaler = "hysteresis"}, tensor<i1> {amp.found_inf})
// CHECK-SAME: attributes {amp.loss_scaling = #amp.loss_scaling<init_scale = 65536.0,
// CHECK-NOT: amp.optimizer =
// The seed is the scale.
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[SEED:.*]] = amp.scale_loss %[[ONE]] by %[[SCALE]] : tensor<f32>, tensor<f32> -> tensor<f32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[SEED]] : tensor<8x3xf32>, tensor<f32>)
// CHECK: %[[GW:.*]] = linalg.matmul
// CHECK: %[[G:.*]], %[[FOUND:.*]] = amp.check_finite_and_unscale %[[GW]] : tensor<4x3xf32> by %[[SCALE]] : tensor<f32>
// CHECK: %[[S1:.*]], %[[G1:.*]], %[[B1:.*]], %[[H1:.*]] = amp.update_loss_scaling found_inf(%[[FOUND]] : tensor<i1>) scale(%[[SCALE]] : tensor<f32>) good_steps(%[[GOOD]] : tensor<i32>) bad_steps(%[[BAD]]) hysteresis(%[[HYST]])
// AdamW: every parameter's update in one op, which reads the unscaled
// gradients, the step count, the flag and the current values and writes
// fresh destinations (tensor.empty: the step returns new buffers, not its
// arguments); amp-loss-scaling-to-linalg lowers it
// (test/Conversion/LossScalingToLinalg/optimizer-update.mlir).
// CHECK-COUNT-3: tensor.empty() : tensor<4x3xf32>
// CHECK: %[[U:.*]]:3 = amp.optimizer_update adamw ins(%[[G]] : tensor<4x3xf32>) step(%[[STEP]] : tensor<i32>) skip(%[[FOUND]] : tensor<i1>)
// CHECK-SAME: params(%[[W]], %[[M]], %[[V]] : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) outs(
// CHECK-SAME: {lr = 1.000000e-02 : f64, weight_decay = 1.000000e-02 : f64}
// The step counter advances only on a clean step.
// CHECK: %[[NSTEP:.*]] = linalg.generic {{.*}} ins(%[[STEP]], %[[FOUND]] : tensor<i32>, tensor<i1>)
// CHECK: arith.addi
// CHECK: arith.select
// CHECK: return %{{.*}}, %[[U]]#0, %[[U]]#1, %[[U]]#2, %[[NSTEP]], %[[S1]], %[[G1]], %[[B1]], %[[H1]], %[[FOUND]] :

// The initial state: zero moments, step 0, the preset's scale and hysteresis.
// CHECK-LABEL: func.func @forward_backward_init()
// CHECK-SAME: -> (tensor<4x3xf32> {amp.optimizer_state = "exp_avg:fc.weight"}, tensor<4x3xf32> {amp.optimizer_state = "exp_avg_sq:fc.weight"}, tensor<i32> {amp.optimizer_state = "step"}, tensor<f32> {amp.scaler = "scale"}, tensor<i32> {amp.scaler = "good_steps"}, tensor<i32> {amp.scaler = "bad_steps"}, tensor<i32> {amp.scaler = "hysteresis"})
// CHECK-DAG: arith.constant dense<0.000000e+00> : tensor<4x3xf32>
// CHECK-DAG: arith.constant dense<6.553600e+04> : tensor<f32>
// CHECK-DAG: arith.constant dense<1> : tensor<i32>
// CHECK-DAG: arith.constant dense<0> : tensor<i32>

// PADDLE-LABEL: func.func @forward_backward
// PADDLE-SAME: amp.loss_scaling = #amp.loss_scaling<init_scale = 32768.0, growth_factor = 2.0, backoff_factor = 0.8, growth_interval = 1000, backoff_interval = 2
// PADDLE-LABEL: func.func @forward_backward_init
// PADDLE: arith.constant dense<3.276800e+04> : tensor<f32>

// The O2 pipeline runs amp-training first: one cast of the master for both
// matmuls that read it, the update in f32.
// O2-LABEL: func.func @forward_backward
// O2-SAME: %[[W:[^:]*]]: tensor<4x3xf32> {amp.master, amp.param = "fc.weight"}
// O2: arith.truncf %[[W]] : tensor<4x3xf32> to tensor<4x3xf16>
// O2-NOT: arith.truncf %[[W]]
// O2: amp.check_finite_and_unscale
// O2: amp.optimizer_update adamw ins(%{{.*}} : tensor<4x3xf32>)
// O2-SAME: params(%[[W]], %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>)
// Data parallel: found_inf all-reduced (max) before anything reads it, the
// unscaled gradients and the loss averaged over the ranks; the update reads
// the averaged gradient and the agreed flag.
// DP-LABEL: func.func @forward_backward
// The pipeline options reach amp-training.
// O2DP-LABEL: func.func @forward_backward
// O2DP-SAME: init_scale = 32768.0
// O2DP: amp.check_finite_and_unscale
// O2DP: amp.all_reduce max %{{.*}} : tensor<i1>
// DP: %[[G:.*]], %[[FOUND:.*]] = amp.check_finite_and_unscale
// DP-NEXT: %[[ANY:.*]] = amp.all_reduce max %[[FOUND]] : tensor<i1>
// DP-NEXT: %[[MEAN:.*]] = amp.all_reduce mean %[[G]] : tensor<4x3xf32>
// DP-NEXT: %[[LOSS:.*]] = amp.all_reduce mean %{{.*}} : tensor<f32>
// DP-NEXT: amp.update_loss_scaling found_inf(%[[ANY]] : tensor<i1>)
// DP: amp.optimizer_update adamw ins(%[[MEAN]] : tensor<4x3xf32>) step(%{{.*}} : tensor<i32>) skip(%[[ANY]] : tensor<i1>)
// DP: return %[[LOSS]],
// DP-SAME: %[[ANY]] :
func.func @forward_backward(%w: tensor<4x3xf32> {amp.param = "fc.weight"},
    %x: tensor<8x4xf32> {amp.batch}, %seed: tensor<f32> {amp.loss_seed},
    %t: tensor<8x3xf32> {torch.name = "t"})
    -> (tensor<f32> {amp.loss}, tensor<4x3xf32> {amp.grad = "fc.weight"})
    attributes {amp.optimizer = {kind = "adamw", lr = 1.0e-2 : f64,
                                 weight_decay = 0.01 : f64}} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x3xf32>) -> tensor<8x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x4xf32>, tensor<4x3xf32>)
                     outs(%z : tensor<8x3xf32>) -> tensor<8x3xf32>
  %d = linalg.sub ins(%y, %t : tensor<8x3xf32>, tensor<8x3xf32>)
                  outs(%e : tensor<8x3xf32>) -> tensor<8x3xf32>
  %el = tensor.empty() : tensor<f32>
  %zl = linalg.fill ins(%zero : f32) outs(%el : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, #sc],
                          iterator_types = ["reduction", "reduction"]}
      ins(%d : tensor<8x3xf32>) outs(%zl : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %dy = linalg.generic {indexing_maps = [#id, #sc, #id],
                        iterator_types = ["parallel", "parallel"]}
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
  %xt = linalg.transpose ins(%x : tensor<8x4xf32>) outs(%e2 : tensor<4x8xf32>)
                         permutation = [1, 0]
  %gw = linalg.matmul ins(%xt, %dy : tensor<4x8xf32>, tensor<8x3xf32>)
                      outs(%zw : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %loss, %gw : tensor<f32>, tensor<4x3xf32>
}

// -----

// SGD with weight decay and momentum (PyTorch: the first update sets the
// buffer), two parameters, gradients returned in another order, and an
// explicit scaler configuration that wins over the option.
// CHECK-LABEL: func.func @momentum
// CHECK-SAME: (%[[A:.*]]: tensor<3xf32> {amp.master, amp.param = "a"}, %[[B:.*]]: tensor<2x2xf32> {amp.master, amp.param = "b"},
// CHECK-SAME: %[[MA:.*]]: tensor<3xf32> {amp.optimizer_state = "momentum_buffer:a"}, %[[MB:.*]]: tensor<2x2xf32> {amp.optimizer_state = "momentum_buffer:b"},
// CHECK-SAME: %[[STEP:.*]]: tensor<i32> {amp.optimizer_state = "step"}
// CHECK-SAME: amp.loss_scaling = #amp.loss_scaling<init_scale = 1024.0
// CHECK: %[[G:.*]]:2, %[[FOUND:.*]] = amp.check_finite_and_unscale %{{.*}}, %{{.*}} : tensor<3xf32>, tensor<2x2xf32>
// The parameters in their order, then their momentum buffers.
// CHECK: %[[U:.*]]:4 = amp.optimizer_update momentum ins(%[[G]]#0, %[[G]]#1 : tensor<3xf32>, tensor<2x2xf32>) step(%[[STEP]] : tensor<i32>) skip(%[[FOUND]] : tensor<i1>)
// CHECK-SAME: params(%[[A]], %[[B]], %[[MA]], %[[MB]] :
// CHECK-SAME: {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, weight_decay = 5.000000e-01 : f64}
// CHECK: return %{{.*}}, %[[U]]#0, %[[U]]#1, %[[U]]#2, %[[U]]#3,
// CHECK-LABEL: func.func @momentum_init
// CHECK: arith.constant dense<1.024000e+03> : tensor<f32>
// PADDLE-LABEL: func.func @momentum
// PADDLE-SAME: amp.loss_scaling = #amp.loss_scaling<init_scale = 1024.0
func.func @momentum(%a: tensor<3xf32> {amp.param = "a"},
                    %b: tensor<2x2xf32> {amp.param = "b"},
                    %seed: tensor<f32> {amp.loss_seed})
    -> (tensor<2x2xf32> {amp.grad = "b"}, tensor<f32> {amp.loss},
        tensor<3xf32> {amp.grad = "a"})
    attributes {amp.optimizer = {kind = "momentum", lr = 0.1 : f64,
                                 momentum = 0.9 : f64, nesterov = false,
                                 weight_decay = 0.5 : f64},
                amp.loss_scaling = #amp.loss_scaling<init_scale = 1024.0>} {
  %c = tensor.extract %seed[] : tensor<f32>
  %ea = tensor.empty() : tensor<3xf32>
  %ga = linalg.fill ins(%c : f32) outs(%ea : tensor<3xf32>) -> tensor<3xf32>
  %eb = tensor.empty() : tensor<2x2xf32>
  %gb = linalg.fill ins(%c : f32) outs(%eb : tensor<2x2xf32>) -> tensor<2x2xf32>
  %l = arith.constant dense<0.5> : tensor<f32>
  return %gb, %l, %ga : tensor<2x2xf32>, tensor<f32>, tensor<3xf32>
}

// -----

// Plain SGD: no optimizer state but the step counter; a function without a
// seed argument is left alone.
// CHECK-LABEL: func.func @inference(%{{.*}}: tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: return
// CHECK-LABEL: func.func private @sgd(
// CHECK-SAME: %[[P:.*]]: tensor<2xf32> {amp.master, amp.param = "p"}, %[[STEP:.*]]: tensor<i32> {amp.optimizer_state = "step"}, %{{.*}}: tensor<f32> {amp.scaler = "scale"}
// CHECK: amp.optimizer_update sgd ins(%{{.*}} : tensor<2xf32>) step(%[[STEP]] : tensor<i32>) skip(%{{.*}} : tensor<i1>) params(%[[P]] : tensor<2xf32>) outs(%{{.*}} : tensor<2xf32>) {lr = 2.500000e-01 : f64} -> tensor<2xf32>
// CHECK-LABEL: func.func private @sgd_init()
// CHECK-SAME: -> (tensor<i32> {amp.optimizer_state = "step"}, tensor<f32> {amp.scaler = "scale"}
func.func @inference(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
func.func private @sgd(%p: tensor<2xf32> {amp.param = "p"},
                       %seed: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {kind = "sgd", lr = 0.25 : f64}} {
  %e = tensor.empty() : tensor<2xf32>
  %c = tensor.extract %seed[] : tensor<f32>
  %g = linalg.fill ins(%c : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  return %seed, %g : tensor<f32>, tensor<2xf32>
}
