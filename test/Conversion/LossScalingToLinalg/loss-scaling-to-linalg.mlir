// RUN: amp-opt %s -split-input-file --amp-loss-scaling-to-linalg --mlir-print-op-on-diagnostic=false -verify-diagnostics | FileCheck %s

// A scalar loss: widened, then multiplied in f32.
// CHECK-LABEL: func.func @scale_scalar
// CHECK: %[[W:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: arith.mulf %[[W]], %{{.*}} : f32
func.func @scale_scalar(%l: f16, %s: f32) -> f32 {
  %r = amp.scale_loss %l by %s : f16, f32 -> f32
  return %r : f32
}

// -----

// A tensor loss (a backward seed) with the scale in a 0-d tensor: one
// elementwise generic reading the scale as a broadcast scalar.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[SC:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @scale_tensor
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[SC]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<8x4xf16>, tensor<f32>)
// CHECK: arith.extf
// CHECK: arith.mulf
// CHECK-NOT: amp.scale_loss
func.func @scale_tensor(%l: tensor<8x4xf16>, %s: tensor<f32>) -> tensor<8x4xf32> {
  %r = amp.scale_loss %l by %s : tensor<8x4xf16>, tensor<f32> -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// -----

// The reciprocal in f64 rounded once; the flag filled with false; one
// destination per gradient; then one amp.unscale_gradients for all of them
// (made loops once bufferized: unscale-gradients.mlir), the flag of a
// host-scalar scale extracted from its 0-d result.
// CHECK-LABEL: func.func @unscale
// CHECK: %[[WIDE:.*]] = arith.extf %[[S:.*]] : f32 to f64
// CHECK: %[[INV64:.*]] = arith.divf %{{.*}}, %[[WIDE]] : f64
// CHECK: %[[INV:.*]] = arith.truncf %[[INV64]] : f64 to f32
// CHECK: %[[F0:.*]] = linalg.fill ins(%false : i1)
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<16x4xf16>
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[U:.*]]:3 = amp.unscale_gradients ins(%arg0, %arg1 : tensor<16x4xf16>, tensor<4xf32>) by %[[INV]] : f32 outs(%[[E0]], %[[E1]], %[[F0]] : tensor<16x4xf16>, tensor<4xf32>, tensor<i1>) -> tensor<16x4xf16>, tensor<4xf32>, tensor<i1>
// CHECK-NOT: linalg.generic
// CHECK: %[[FOUND:.*]] = tensor.extract %[[U]]#2[] : tensor<i1>
// CHECK: return %[[U]]#0, %[[U]]#1, %[[FOUND]]
func.func @unscale(%g0: tensor<16x4xf16>, %g1: tensor<4xf32>, %s: f32)
    -> (tensor<16x4xf16>, tensor<4xf32>, i1) {
  %u:2, %f = amp.check_finite_and_unscale %g0, %g1 : tensor<16x4xf16>, tensor<4xf32> by %s : f32
  return %u#0, %u#1, %f : tensor<16x4xf16>, tensor<4xf32>, i1
}

// -----

// A scale in a 0-d tensor: the reciprocal in a 0-d generic (on the device,
// on the GPU), the flag a 0-d result.
// CHECK-LABEL: func.func @unscale_tensor_scale
// CHECK: %[[INV:.*]] = linalg.generic
// CHECK: arith.divf %{{.*}}, %{{.*}} : f64
// CHECK: %[[U:.*]]:2 = amp.unscale_gradients ins(%arg0 : tensor<8xbf16>) by %{{.*}} : tensor<f32> outs(%{{.*}}, %{{.*}} : tensor<8xbf16>, tensor<i1>) -> tensor<8xbf16>, tensor<i1>
// CHECK: return %[[U]]#0, %[[U]]#1
func.func @unscale_tensor_scale(%g: tensor<8xbf16>, %s: tensor<f32>) -> (tensor<8xbf16>, tensor<i1>) {
  %u, %f = amp.check_finite_and_unscale %g : tensor<8xbf16> by %s : tensor<f32>
  return %u, %f : tensor<8xbf16>, tensor<i1>
}

// -----

// Dynamic shapes: the destinations take the gradient's sizes.
// CHECK-LABEL: func.func @unscale_dynamic
// CHECK: %[[D:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?xbf16>
// CHECK: tensor.empty(%[[D]]) : tensor<?xbf16>
func.func @unscale_dynamic(%g: tensor<?xbf16>, %s: f32) -> (tensor<?xbf16>, i1) {
  %u, %f = amp.check_finite_and_unscale %g : tensor<?xbf16> by %s : f32
  return %u, %f : tensor<?xbf16>, i1
}

// -----

// The state machine on host scalars (pytorch: no floor, no cap).
// CHECK-LABEL: func.func @update_scalar
// CHECK-NOT: amp.update_loss_scaling
// CHECK: arith.cmpi sgt, %[[H:.*]], %c1_i32
// CHECK: arith.constant 5.000000e-01 : f32
// CHECK: arith.constant 2000 : i32
// CHECK: arith.constant 2.000000e+00 : f32
// CHECK: %[[S:.*]] = arith.select %arg0, %{{.*}}, %{{.*}} : f32
// CHECK: return %[[S]]
func.func @update_scalar(%f: i1, %s: f32, %c: i32) -> (f32, i32, i32, i32) {
  %a, %b, %cc, %d = amp.update_loss_scaling found_inf(%f : i1) scale(%s : f32)
      good_steps(%c : i32) bad_steps(%c) hysteresis(%c) config #amp.loss_scaling<>
  return %a, %b, %cc, %d : f32, i32, i32, i32
}

// -----

// A static scaler keeps its state.
// CHECK-LABEL: func.func @update_static
// CHECK-SAME: (%{{.*}}: i1, %[[S:.*]]: f32, %[[C:.*]]: i32)
// CHECK-NEXT: return %[[S]], %[[C]], %[[C]], %[[C]]
func.func @update_static(%f: i1, %s: f32, %c: i32) -> (f32, i32, i32, i32) {
  %a, %b, %cc, %d = amp.update_loss_scaling found_inf(%f : i1) scale(%s : f32)
      good_steps(%c : i32) bad_steps(%c) hysteresis(%c) config #amp.loss_scaling<preset = "bf16">
  return %a, %b, %cc, %d : f32, i32, i32, i32
}

// -----

// With the state in 0-d tensors: a one-element loop (a one-thread kernel on
// the GPU) over tensor<1xT> views, floored at min_scale and capped.
// CHECK-LABEL: func.func @update_tensor
// CHECK: tensor.expand_shape %{{.*}} [] output_shape [1] : tensor<i1> into tensor<1xi1>
// CHECK: %[[R:.*]]:4 = linalg.generic {{.*}} iterator_types = ["parallel"]
// CHECK: arith.constant 1.000000e+00 : f32
// CHECK: arith.constant 4.2949673E+9 : f32
// CHECK: linalg.yield
// CHECK: tensor.collapse_shape %[[R]]#0 [] : tensor<1xf32> into tensor<f32>
func.func @update_tensor(%f: tensor<i1>, %s: tensor<f32>, %c: tensor<i32>)
    -> (tensor<f32>, tensor<i32>, tensor<i32>, tensor<i32>) {
  %a, %b, %cc, %d = amp.update_loss_scaling found_inf(%f : tensor<i1>)
      scale(%s : tensor<f32>) good_steps(%c : tensor<i32>) bad_steps(%c)
      hysteresis(%c) config #amp.loss_scaling<preset = "colossalai">
  return %a, %b, %cc, %d : tensor<f32>, tensor<i32>, tensor<i32>, tensor<i32>
}

// -----

// An unranked loss is left alone, with a remark.
func.func @unranked(%l: tensor<*xf32>, %s: tensor<f32>) -> tensor<*xf32> {
  // expected-remark @+1 {{amp: 'amp.scale_loss' left as is: an unranked loss cannot be lowered to linalg}}
  %r = amp.scale_loss %l by %s : tensor<*xf32>, tensor<f32> -> tensor<*xf32>
  return %r : tensor<*xf32>
}
