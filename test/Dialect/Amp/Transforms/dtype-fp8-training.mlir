// dtype=fp8 on a training step (amp-training's convention): delayed scaling
// with the amax histories and scales as state, E5M2 gradients (hybrid), the
// amaxes guarding found_inf and, data-parallel, joining its collective.
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=fp8 fp8-amax-history-len=4" | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=fp8 fp8-amax-history-len=4 data-parallel=true" | FileCheck %s --check-prefix=DP
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=fp8 fp8-amax-history-len=1 fp8-amax-compute=most_recent" | FileCheck %s --check-prefix=RECENT
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=fp8 fp8-scaling=current" | FileCheck %s --check-prefix=CURRENT
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=fp8 fp8-format=e4m3" | FileCheck %s --check-prefix=E4M3

// Linear regression: y = x w, loss = sum((y - t)^2), dw = x^T (2 (y - t) seed).
#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> ()>
func.func @step(%w: tensor<4x3xf32> {amp.param = "w"},
    %x: tensor<8x4xf32> {amp.batch}, %t: tensor<8x3xf32> {amp.batch},
    %seed: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<4x3xf32> {amp.grad = "w"})
    attributes {amp.optimizer = {kind = "sgd", lr = 1.0e-2 : f64}} {
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

// The state: after the loss scaler's arguments, before the batch; the
// results before found_inf. Two contractions, two operands each.
// CHECK-LABEL: func.func @step(
// CHECK-SAME: %{{.*}}: tensor<i32> {amp.scaler = "hysteresis"},
// CHECK-SAME: %[[H0:.*]]: tensor<4xf32> {amp.fp8 = "amax_history:c0.lhs"}, %[[S0:.*]]: tensor<f32> {amp.fp8 = "scale:c0.lhs"},
// CHECK-SAME: %{{.*}}: tensor<4xf32> {amp.fp8 = "amax_history:c0.rhs"}, %[[S1:.*]]: tensor<f32> {amp.fp8 = "scale:c0.rhs"},
// CHECK-SAME: %{{.*}}: tensor<4xf32> {amp.fp8 = "amax_history:c1.lhs"}, %[[S2:.*]]: tensor<f32> {amp.fp8 = "scale:c1.lhs"},
// CHECK-SAME: %{{.*}}: tensor<4xf32> {amp.fp8 = "amax_history:c1.rhs"}, %[[S3:.*]]: tensor<f32> {amp.fp8 = "scale:c1.rhs"},
// CHECK-SAME: %[[X:.*]]: tensor<8x4xf32> {amp.batch}
// CHECK-SAME: tensor<i32> {amp.scaler = "hysteresis"}, tensor<4xf32> {amp.fp8 = "amax_history:c0.lhs"}, tensor<f32> {amp.fp8 = "scale:c0.lhs"}
// CHECK-SAME: tensor<f32> {amp.fp8 = "scale:c1.rhs"}, tensor<i1> {amp.found_inf})
// The forward contraction: E4M3 by the scales of earlier steps.
// CHECK: %[[A0:.*]] = amp.amax %[[X]] : tensor<8x4xf32> -> tensor<f32>
// CHECK: amp.quantize %[[X]] by %[[S0]] : tensor<8x4xf32>, tensor<f32> -> tensor<8x4xf8E4M3FN>
// CHECK: amp.quantize %{{.*}} by %[[S1]] : tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf8E4M3FN>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<4x3xf8E4M3FN>) outs(%{{.*}} : tensor<3x4xf8E4M3FN>)
// CHECK: amp.scaled_matmul ins(%{{.*}}, %{{.*}} : tensor<8x4xf8E4M3FN>, tensor<3x4xf8E4M3FN>)
// The weight gradient: x^T in E4M3 (x quantized from f32, rounded once,
// then transposed in FP8), the output gradient (from the seed) E5M2,
// stored n x k.
// CHECK: %[[QXT:.*]] = amp.quantize %[[X]] by %[[S2]] : tensor<8x4xf32>, tensor<f32> -> tensor<8x4xf8E4M3FN>
// CHECK: amp.quantize %{{.*}} by %[[S3]] : {{.*}} -> tensor<8x3xf8E5M2>
// CHECK: %[[XT:.*]] = linalg.transpose ins(%[[QXT]] : tensor<8x4xf8E4M3FN>) outs(%{{.*}} : tensor<4x8xf8E4M3FN>)
// CHECK: amp.scaled_matmul ins(%[[XT]], %{{.*}} : tensor<4x8xf8E4M3FN>, tensor<3x8xf8E5M2>)
// found_inf also when an operand's amax is Inf or NaN (quantizing saturates).
// CHECK: %{{.*}}, %[[LOCAL:.*]] = amp.check_finite_and_unscale
// CHECK: %[[LV:.*]] = tensor.expand_shape %[[LOCAL]]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[LV]], {{.*}} : tensor<1xi1>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>)
// CHECK: arith.cmpf uge
// CHECK: arith.ori
// CHECK: %[[FOUND:.*]] = tensor.collapse_shape
// CHECK: amp.update_loss_scaling found_inf(%[[FOUND]] : tensor<i1>)
// The history: this step's amax first, the oldest dropped, kept on a
// skipped step; the scale from its maximum, the old one where that is 0 or
// not finite.
// CHECK: %[[E:.*]] = tensor.expand_shape %[[A0]]
// CHECK: %[[R0:.*]] = tensor.insert_slice %[[E]] into %{{.*}}[0] [1] [1] : tensor<1xf32> into tensor<4xf32>
// CHECK: %[[OLD:.*]] = tensor.extract_slice %[[H0]][0] [3] [1] : tensor<4xf32> to tensor<3xf32>
// CHECK: %[[R1:.*]] = tensor.insert_slice %[[OLD]] into %[[R0]][1] [3] [1]
// CHECK: %[[NH:.*]] = linalg.generic {{.*}} ins(%[[FOUND]], %[[H0]], %[[R1]] : tensor<i1>, tensor<4xf32>, tensor<4xf32>)
// CHECK: arith.select
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%[[NH]] : tensor<4xf32>)
// CHECK: arith.maximumf
// CHECK: arith.constant 4.480000e+02 : f32
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: return
// CHECK-SAME: %[[FOUND]] : tensor<f32>,
// The initial state: histories of zeros, scales of 1, after the scaler's.
// CHECK-LABEL: func.func @step_init()
// CHECK-SAME: tensor<i32> {amp.scaler = "hysteresis"}, tensor<4xf32> {amp.fp8 = "amax_history:c0.lhs"}, tensor<f32> {amp.fp8 = "scale:c0.lhs"}
// CHECK-DAG: arith.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-DAG: arith.constant dense<1.000000e+00> : tensor<f32>

// Data-parallel: one collective of [found_inf, amax...] instead of
// found_inf's own, so that every rank derives the same scales.
// DP-LABEL: func.func @step(
// DP: amp.check_finite_and_unscale
// DP: %[[PACKED:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[4] [1] [1] : tensor<1xf32> into tensor<5xf32>
// DP: %[[ALL:.*]] = amp.all_reduce max %[[PACKED]] : tensor<5xf32>
// DP-NOT: amp.all_reduce max
// DP: tensor.extract_slice %[[ALL]][0] [1] [1]
// DP: arith.cmpf ogt
// DP: tensor.extract_slice %[[ALL]][1] [1] [1]
// DP: tensor.extract_slice %[[ALL]][4] [1] [1]
// DP: amp.all_reduce mean
// DP-NOT: amp.all_reduce max
// DP-LABEL: func.func @step_init()

// A history of one step: no older entries to keep; most_recent reads entry 0.
// RECENT-LABEL: func.func @step(
// RECENT-SAME: tensor<1xf32> {amp.fp8 = "amax_history:c0.lhs"}
// RECENT-NOT: tensor.extract_slice %{{.*}}[0] [0]
// RECENT: tensor.extract_slice %{{.*}}[0] [1] [1] : tensor<1xf32> to tensor<1xf32>
// RECENT: arith.maximumf

// Current scaling: no state; each scale from the operand's amax now.
// CURRENT-LABEL: func.func @step(
// CURRENT-NOT: amp.fp8
// CURRENT: amp.amax
// CURRENT: arith.constant 4.480000e+02 : f32
// CURRENT: -> tensor<8x3xf8E5M2>
// CURRENT-LABEL: func.func @step_init()
// CURRENT-NOT: amp.fp8

// E4M3 for every operand, gradients included.
// E4M3-LABEL: func.func @step(
// E4M3-NOT: f8E5M2
// E4M3: amp.scaled_matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf8E4M3FN>, tensor<3x8xf8E4M3FN>)
