// Round trip of every amp op, in the custom and in the generic form.
// RUN: amp-opt %s -split-input-file | amp-opt -split-input-file | FileCheck %s
// RUN: amp-opt %s -split-input-file --mlir-print-op-generic | amp-opt -split-input-file | FileCheck %s
// RUN: amp-opt %s -split-input-file --verify-roundtrip > /dev/null

// CHECK-LABEL: func.func @guard_with_results
// CHECK-SAME: (%[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK: %[[R:.*]]:2 = amp.fp16_guard -> (tensor<8x16xf32>, tensor<8xf32>) {
// CHECK-NEXT:   %[[S:.*]] = arith.addf %[[A]], %[[A]] : tensor<8x16xf32>
// CHECK-NEXT:   amp.yield %[[S]], %[[B]] : tensor<8x16xf32>, tensor<8xf32>
// CHECK-NEXT: }
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @guard_with_results(%a: tensor<8x16xf32>, %b: tensor<8xf32>)
    -> (tensor<8x16xf32>, tensor<8xf32>) {
  %r:2 = amp.fp16_guard -> (tensor<8x16xf32>, tensor<8xf32>) {
    %s = arith.addf %a, %a : tensor<8x16xf32>
    amp.yield %s, %b : tensor<8x16xf32>, tensor<8xf32>
  }
  return %r#0, %r#1 : tensor<8x16xf32>, tensor<8xf32>
}

// -----

// A single result prints without parentheses; `-> (T)` parses too.
// CHECK-LABEL: func.func @guard_single_result
// CHECK: %{{.*}} = amp.fp16_guard -> f32 {
// CHECK: %{{.*}} = amp.fp16_guard -> f32 {
func.func @guard_single_result(%a: f32) -> (f32, f32) {
  %0 = amp.fp16_guard -> f32 {
    amp.yield %a : f32
  }
  %1 = amp.fp16_guard -> (f32) {
    amp.yield %a : f32
  }
  return %0, %1 : f32, f32
}

// -----

// CHECK-LABEL: func.func @guard_no_results_nested_attrs
// CHECK:      amp.fp16_guard {
// CHECK-NEXT:   amp.fp16_guard {
// CHECK-NEXT:     amp.yield
// CHECK-NEXT:   } {note = "inner"}
// CHECK-NEXT:   amp.yield
// CHECK-NEXT: }
func.func @guard_no_results_nested_attrs() {
  amp.fp16_guard {
    amp.fp16_guard {
      amp.yield
    } {note = "inner"}
    amp.yield
  }
  return
}

// -----

// CHECK-LABEL: func.func @casts
// CHECK: amp.cast %{{.*}} : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: amp.cast %{{.*}} : tensor<?x8xf32> to tensor<?x8xbf16>
// CHECK: amp.cast %{{.*}} : tensor<*xf16> to tensor<*xf32>
// CHECK: amp.cast %{{.*}} : vector<4xbf16> to vector<4xf32>
// CHECK: amp.cast %{{.*}} : vector<[4]xf32> to vector<[4]xf16>
// CHECK: amp.cast %{{.*}} : f16 to f32
// CHECK: amp.cast %{{.*}} : f32 to f8E4M3FN
func.func @casts(%t: tensor<4x8xf32>, %d: tensor<?x8xf32>, %u: tensor<*xf16>,
                 %v: vector<4xbf16>, %sv: vector<[4]xf32>, %h: f16, %f: f32) {
  %0 = amp.cast %t : tensor<4x8xf32> to tensor<4x8xf16>
  %1 = amp.cast %d : tensor<?x8xf32> to tensor<?x8xbf16>
  %2 = amp.cast %u : tensor<*xf16> to tensor<*xf32>
  %3 = amp.cast %v : vector<4xbf16> to vector<4xf32>
  %4 = amp.cast %sv : vector<[4]xf32> to vector<[4]xf16>
  %5 = amp.cast %h : f16 to f32
  %6 = amp.cast %f : f32 to f8E4M3FN
  return
}

// -----

// CHECK-LABEL: func.func @loss_scaling
// CHECK-SAME: (%[[L:.*]]: tensor<f16>, %[[LS:.*]]: f32, %[[S:.*]]: f32, %[[G0:.*]]: tensor<16x4xf16>, %[[G1:.*]]: tensor<4xf32>
// CHECK: amp.scale_loss %[[L]] by %[[S]] : tensor<f16>, f32 -> tensor<f32>
// CHECK: amp.scale_loss %[[LS]] by %[[S]] : f32, f32 -> f32
// CHECK: %[[U:.*]]:2, %[[FOUND:.*]] = amp.check_finite_and_unscale %[[G0]], %[[G1]] : tensor<16x4xf16>, tensor<4xf32> by %[[S]] : f32
// CHECK: amp.update_loss_scaling found_inf(%[[FOUND]] : i1) scale(%[[S]] : f32) good_steps(%{{.*}} : i32)
// CHECK-SAME: config #amp.loss_scaling<init_scale = 65536.0, growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 2000, backoff_interval = 1, hysteresis = 1, consecutive_hysteresis = false, dynamic = true>
func.func @loss_scaling(%loss: tensor<f16>, %ls: f32, %scale: f32,
                        %g0: tensor<16x4xf16>, %g1: tensor<4xf32>,
                        %good: i32, %bad: i32, %hyst: i32)
    -> (tensor<f32>, f32, tensor<16x4xf16>, tensor<4xf32>, f32, i32, i32, i32) {
  %0 = amp.scale_loss %loss by %scale : tensor<f16>, f32 -> tensor<f32>
  %1 = amp.scale_loss %ls by %scale : f32, f32 -> f32
  %u:2, %found = amp.check_finite_and_unscale %g0, %g1 :
      tensor<16x4xf16>, tensor<4xf32> by %scale : f32
  %s, %g, %b, %h = amp.update_loss_scaling found_inf(%found : i1) scale(%scale : f32)
      good_steps(%good : i32) bad_steps(%bad) hysteresis(%hyst)
      config #amp.loss_scaling<>
  return %0, %1, %u#0, %u#1, %s, %g, %b, %h
      : tensor<f32>, f32, tensor<16x4xf16>, tensor<4xf32>, f32, i32, i32, i32
}

// -----

// CHECK-LABEL: func.func @precision_pins
// CHECK: arith.addf %{{.*}}, %{{.*}} {amp.precision = "f16"} : tensor<4xf32>
// CHECK: arith.mulf %{{.*}}, %{{.*}} {amp.precision = "bf16"} : tensor<4xf32>
// CHECK: math.exp %{{.*}} {amp.precision = "f32"} : tensor<4xf32>
func.func @precision_pins(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a {amp.precision = "f16"} : tensor<4xf32>
  %1 = arith.mulf %0, %a {amp.precision = "bf16"} : tensor<4xf32>
  %2 = math.exp %1 {amp.precision = "f32"} : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// The scaler state in 0-d tensors (device-resident on the GPU pipeline).
// CHECK-LABEL: func.func @loss_scaling_tensor_state
// CHECK: amp.scale_loss %{{.*}} by %{{.*}} : tensor<8x4xf16>, tensor<f32> -> tensor<8x4xf32>
// CHECK: amp.check_finite_and_unscale %{{.*}} : tensor<16x4xf32> by %{{.*}} : tensor<f32>
// CHECK: amp.update_loss_scaling found_inf(%{{.*}} : tensor<i1>) scale(%{{.*}} : tensor<f32>) good_steps(%{{.*}} : tensor<i32>)
func.func @loss_scaling_tensor_state(%seed: tensor<8x4xf16>, %scale: tensor<f32>,
                                     %g0: tensor<16x4xf32>, %good: tensor<i32>,
                                     %bad: tensor<i32>, %hyst: tensor<i32>)
    -> (tensor<8x4xf32>, tensor<16x4xf32>, tensor<i1>, tensor<f32>,
        tensor<i32>, tensor<i32>, tensor<i32>) {
  %0 = amp.scale_loss %seed by %scale : tensor<8x4xf16>, tensor<f32> -> tensor<8x4xf32>
  %u, %found = amp.check_finite_and_unscale %g0 : tensor<16x4xf32> by %scale : tensor<f32>
  %s, %g, %b, %h = amp.update_loss_scaling found_inf(%found : tensor<i1>)
      scale(%scale : tensor<f32>) good_steps(%good : tensor<i32>) bad_steps(%bad)
      hysteresis(%hyst) config #amp.loss_scaling<preset = "bf16">
  return %0, %u, %found, %s, %g, %b, %h
      : tensor<8x4xf32>, tensor<16x4xf32>, tensor<i1>, tensor<f32>,
        tensor<i32>, tensor<i32>, tensor<i32>
}
