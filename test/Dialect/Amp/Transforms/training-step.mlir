// O2 on a training step: forward and backward in f16 from one cast of each
// fp32 master per step, gradients unscaled in f32, the optimizer in f32.
// RUN: amp-opt %s -split-input-file --amp-o2 | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-o2="explain=true" --mlir-print-op-on-diagnostic=false -verify-diagnostics -o /dev/null
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=bf16" | FileCheck %s --check-prefix=BF16
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=bf16 loss-scaling=on" | FileCheck %s --check-prefix=BF16ON
// RUN: amp-opt %s -split-input-file --amp-o2="loss-scaling=off" | FileCheck %s --check-prefix=OFF

#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> ()>

// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[W:.*]]: tensor<16x4xf32> {amp.master}
// One cast of the master for both the forward and the backward matmul.
// CHECK-COUNT-1: arith.truncf %[[W]] : tensor<16x4xf32> to tensor<16x4xf16>
// CHECK-NOT: arith.truncf %[[W]]
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf16>, tensor<16x4xf16>) outs(%{{.*}} : tensor<8x4xf32>)
// CHECK: amp.scale_loss
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x8xf16>, tensor<8x4xf16>) outs(%{{.*}} : tensor<16x4xf32>)
// The gradient is unscaled in f32.
// CHECK: %[[G:.*]], %[[FOUND:.*]] = amp.check_finite_and_unscale %{{.*}} : tensor<16x4xf32> by %{{.*}} : tensor<f32>
// The SGD update reads the fp32 master and the fp32 gradient.
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[W]], %[[G]], %[[FOUND]] : tensor<16x4xf32>, tensor<16x4xf32>, tensor<i1>)
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: i1, %{{.*}}: f32):
// CHECK-NOT: f16
// CHECK: linalg.yield
func.func @step(%x: tensor<8x16xf32>, %w: tensor<16x4xf32> {amp.master},
                %t: tensor<8x4xf32>, %scale: tensor<f32>, %good: tensor<i32>,
                %bad: tensor<i32>, %hyst: tensor<i32>)
    -> (tensor<16x4xf32>, tensor<f32>, tensor<i32>, tensor<i32>, tensor<i32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  // expected-remark @+1 {{amp: not decided: a constant fill, re-created in the type each user needs}}
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  // expected-remark @+1 {{amp: f16 (O2), accumulates in f32}}
  %y = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x4xf32>)
                     outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  // Seed of a squared error: (y - t), scaled.
  // expected-remark @+1 {{amp: f16 (O2)}}
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y, %t : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  %seed = amp.scale_loss %d by %scale : tensor<8x4xf32>, tensor<f32> -> tensor<8x4xf32>
  %eT = tensor.empty() : tensor<16x8xf32>
  // expected-remark @+1 {{amp: f16 (O2)}}
  %xT = linalg.transpose ins(%x : tensor<8x16xf32>) outs(%eT : tensor<16x8xf32>) permutation = [1, 0]
  %ew = tensor.empty() : tensor<16x4xf32>
  // expected-remark @+1 {{amp: not decided: a constant fill, re-created in the type each user needs}}
  %zw = linalg.fill ins(%zero : f32) outs(%ew : tensor<16x4xf32>) -> tensor<16x4xf32>
  // expected-remark @+1 {{amp: f16 (O2), accumulates in f32}}
  %dw = linalg.matmul ins(%xT, %seed : tensor<16x8xf32>, tensor<8x4xf32>)
                      outs(%zw : tensor<16x4xf32>) -> tensor<16x4xf32>
  %g, %found = amp.check_finite_and_unscale %dw : tensor<16x4xf32> by %scale : tensor<f32>
  %s1, %g1, %b1, %h1 = amp.update_loss_scaling found_inf(%found : tensor<i1>)
      scale(%scale : tensor<f32>) good_steps(%good : tensor<i32>) bad_steps(%bad)
      hysteresis(%hyst) config #amp.loss_scaling<preset = "pytorch">
  // expected-remark @+1 {{amp: f32 (optimizer update of a training step: it does not compute the loss or the gradients)}}
  %w1 = linalg.generic {indexing_maps = [#id, #id, #sc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g, %found : tensor<16x4xf32>, tensor<16x4xf32>, tensor<i1>) outs(%ew : tensor<16x4xf32>) {
  ^bb0(%p: f32, %gr: f32, %f: i1, %o: f32):
    %lr = arith.constant 1.0e-3 : f32
    %u = arith.mulf %lr, %gr : f32
    %n = arith.subf %p, %u : f32
    %r = arith.select %f, %p, %n : f32
    linalg.yield %r : f32
  } -> tensor<16x4xf32>
  return %w1, %s1, %g1, %b1, %h1 : tensor<16x4xf32>, tensor<f32>, tensor<i32>, tensor<i32>, tensor<i32>
}

// bf16: loss scaling is off by default. Every loss-scaling op gets scale 1
// and a static scaler; the finite check stays.
// BF16-LABEL: func.func @step
// BF16-DAG: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// BF16-DAG: amp.scale_loss %{{.*}} by %[[ONE]]
// BF16-DAG: amp.check_finite_and_unscale %{{.*}} : tensor<16x4xf32> by %[[ONE]]
// BF16-DAG: amp.update_loss_scaling found_inf(%{{.*}} : tensor<i1>) scale(%[[ONE]] : tensor<f32>)
// BF16-SAME: init_scale = 1.0
// BF16-SAME: dynamic = false

// BF16ON-LABEL: func.func @step
// BF16ON-NOT: dense<1.000000e+00>
// BF16ON: amp.update_loss_scaling
// BF16ON-SAME: init_scale = 65536.0

// OFF-LABEL: func.func @step
// OFF: amp.update_loss_scaling found_inf(%{{.*}} : tensor<i1>) scale(%{{.*}} : tensor<f32>)
// OFF-SAME: dynamic = false

// -----

// A pin on an enclosing op covers everything inside it (a training loop's
// bookkeeping).
// CHECK-LABEL: func.func @driver
// CHECK-NOT: f16
// CHECK: return
func.func @driver(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32>
    attributes {amp.precision = "f32"} {
  // expected-remark @+1 {{amp: f32 (pinned by amp.precision on the enclosing 'func.func')}}
  %r = arith.addf %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A fill of a constant is not decided, unless it is pinned; either way its
// users get it in the type they need.
// CHECK-LABEL: func.func @fills
// CHECK-DAG: linalg.fill ins(%{{.*}} : f16) outs(%{{.*}} : tensor<4xf16>)
// CHECK-DAG: linalg.fill {amp.precision = "f32"} ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<4xf16>
func.func @fills(%b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  // expected-remark @+1 {{amp: not decided: a constant fill, re-created in the type each user needs}}
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  // expected-remark @+1 {{amp: f32 (pinned by amp.precision)}}
  %p = linalg.fill {amp.precision = "f32"} ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  // expected-remark @+1 {{amp: f16 (O2)}}
  %r = arith.addf %b, %z : tensor<4xf32>
  return %r, %p : tensor<4xf32>, tensor<4xf32>
}
