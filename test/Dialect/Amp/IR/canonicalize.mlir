// Folds of amp.cast and the canonicalization of amp.fp16_guard.
// RUN: amp-opt %s -split-input-file -canonicalize | FileCheck %s

// CHECK-LABEL: func.func @identity_cast
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NOT: amp.cast
// CHECK: return %[[X]]
func.func @identity_cast(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = amp.cast %x : tensor<4xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// f16 -> f32 is exact, so the round trip is the identity.
// CHECK-LABEL: func.func @exact_round_trip_f16
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>)
// CHECK-NOT: amp.cast
// CHECK: return %[[X]]
func.func @exact_round_trip_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = amp.cast %x : tensor<4xf16> to tensor<4xf32>
  %1 = amp.cast %0 : tensor<4xf32> to tensor<4xf16>
  return %1 : tensor<4xf16>
}

// -----

// CHECK-LABEL: func.func @exact_round_trip_bf16_scalar_and_vector
// CHECK-SAME: (%[[S:.*]]: bf16, %[[V:.*]]: vector<8xbf16>)
// CHECK-NOT: amp.cast
// CHECK: return %[[S]], %[[V]]
func.func @exact_round_trip_bf16_scalar_and_vector(%s: bf16, %v: vector<8xbf16>)
    -> (bf16, vector<8xbf16>) {
  %0 = amp.cast %s : bf16 to f32
  %1 = amp.cast %0 : f32 to bf16
  %2 = amp.cast %v : vector<8xbf16> to vector<8xf32>
  %3 = amp.cast %2 : vector<8xf32> to vector<8xbf16>
  return %1, %3 : bf16, vector<8xbf16>
}

// -----

// f32 -> f16 rounds: the lossy round trip must stay.
// CHECK-LABEL: func.func @lossy_round_trip_stays
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[H:.*]] = amp.cast %[[X]] : tensor<4xf32> to tensor<4xf16>
// CHECK: %[[F:.*]] = amp.cast %[[H]] : tensor<4xf16> to tensor<4xf32>
// CHECK: return %[[F]]
func.func @lossy_round_trip_stays(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = amp.cast %x : tensor<4xf32> to tensor<4xf16>
  %1 = amp.cast %0 : tensor<4xf16> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// f16 and bf16 do not contain each other: f16 -> bf16 -> f16 stays.
// CHECK-LABEL: func.func @f16_bf16_round_trip_stays
// CHECK: amp.cast %{{.*}} : f16 to bf16
// CHECK: amp.cast %{{.*}} : bf16 to f16
func.func @f16_bf16_round_trip_stays(%x: f16) -> f16 {
  %0 = amp.cast %x : f16 to bf16
  %1 = amp.cast %0 : bf16 to f16
  return %1 : f16
}

// -----

// A -> B exact, B -> C: one cast A -> C.
// CHECK-LABEL: func.func @exact_then_other
// CHECK-SAME: (%[[X:.*]]: tensor<2xbf16>)
// CHECK-NEXT: %[[C:.*]] = amp.cast %[[X]] : tensor<2xbf16> to tensor<2xf16>
// CHECK-NEXT: return %[[C]]
func.func @exact_then_other(%x: tensor<2xbf16>) -> tensor<2xf16> {
  %0 = amp.cast %x : tensor<2xbf16> to tensor<2xf32>
  %1 = amp.cast %0 : tensor<2xf32> to tensor<2xf16>
  return %1 : tensor<2xf16>
}

// -----

// Exact chains collapse: f16 -> f32 -> f64 -> f16.
// CHECK-LABEL: func.func @exact_chain
// CHECK-SAME: (%[[X:.*]]: f16)
// CHECK-NEXT: return %[[X]]
func.func @exact_chain(%x: f16) -> f16 {
  %0 = amp.cast %x : f16 to f32
  %1 = amp.cast %0 : f32 to f64
  %2 = amp.cast %1 : f64 to f16
  return %2 : f16
}

// -----

// The exact cast keeps its other users.
// CHECK-LABEL: func.func @shared_exact_cast
// CHECK-SAME: (%[[X:.*]]: f16)
// CHECK: %[[W:.*]] = amp.cast %[[X]] : f16 to f32
// CHECK: return %[[X]], %[[W]]
func.func @shared_exact_cast(%x: f16) -> (f16, f32) {
  %0 = amp.cast %x : f16 to f32
  %1 = amp.cast %0 : f32 to f16
  return %1, %0 : f16, f32
}

// -----

// A user's arith.extf is not an amp.cast: no folding across it here.
// CHECK-LABEL: func.func @user_casts_untouched
// CHECK: arith.extf
// CHECK: amp.cast
func.func @user_casts_untouched(%x: f16) -> f16 {
  %0 = arith.extf %x : f16 to f32
  %1 = amp.cast %0 : f32 to f16
  return %1 : f16
}

// -----

// CHECK-LABEL: func.func @empty_guard
// CHECK-SAME: (%[[A:.*]]: f32)
// CHECK-NOT: amp.fp16_guard
// CHECK: return %[[A]]
func.func @empty_guard(%a: f32) -> f32 {
  %0 = amp.fp16_guard -> f32 {
    amp.yield %a : f32
  }
  amp.fp16_guard {
    amp.yield
  }
  return %0 : f32
}

// -----

// A guard with work inside stays: it carries the policy's permission.
// CHECK-LABEL: func.func @guard_with_work
// CHECK: amp.fp16_guard -> f32
// CHECK: arith.mulf
func.func @guard_with_work(%a: f32) -> f32 {
  %0 = amp.fp16_guard -> f32 {
    %1 = arith.mulf %a, %a : f32
    amp.yield %1 : f32
  }
  return %0 : f32
}

// -----

// Dead guards whose bodies have no side effects go away like any pure op.
// CHECK-LABEL: func.func @dead_pure_guard
// CHECK-NOT: amp.fp16_guard
// CHECK: return
func.func @dead_pure_guard(%a: f32) {
  %0 = amp.fp16_guard -> f32 {
    %1 = arith.mulf %a, %a : f32
    amp.yield %1 : f32
  }
  return
}
