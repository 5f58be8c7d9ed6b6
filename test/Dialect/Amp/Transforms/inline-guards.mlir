// RUN: amp-opt %s -split-input-file --amp-inline-guards | FileCheck %s

// CHECK-LABEL: func.func @results_forwarded
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NOT: amp.
// CHECK: %[[S:.*]] = arith.addf %[[A]], %[[B]] : tensor<4xf32>
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[S]], %[[B]] : tensor<4xf32>
// CHECK-NEXT: return %[[M]], %[[A]]
func.func @results_forwarded(%a: tensor<4xf32>, %b: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = amp.fp16_guard -> (tensor<4xf32>, tensor<4xf32>) {
    %s = arith.addf %a, %b : tensor<4xf32>
    amp.yield %s, %a : tensor<4xf32>, tensor<4xf32>
  }
  %m = arith.mulf %r#0, %b : tensor<4xf32>
  return %m, %r#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Nested guards, a zero-result guard, and ops with side effects keep their
// order.
// CHECK-LABEL: func.func @nested
// CHECK-NOT: amp.
// CHECK: memref.store %{{.*}}, %{{.*}}[] : memref<f32>
// CHECK-NEXT: %[[E:.*]] = math.exp
// CHECK-NEXT: memref.store %[[E]], %{{.*}}[] : memref<f32>
// CHECK-NEXT: return %[[E]]
func.func @nested(%a: f32, %m: memref<f32>) -> f32 {
  %r = amp.fp16_guard -> f32 {
    amp.fp16_guard {
      memref.store %a, %m[] : memref<f32>
      amp.yield
    }
    %e = amp.fp16_guard -> f32 {
      %0 = math.exp %a : f32
      amp.yield %0 : f32
    }
    memref.store %e, %m[] : memref<f32>
    amp.yield %e : f32
  }
  return %r : f32
}

// -----

// Guards in loop bodies and in blocks no path reaches are inlined too.
// CHECK-LABEL: func.func @loops_and_unreachable
// CHECK-NOT: amp.fp16_guard
// CHECK: scf.for
// CHECK: arith.addf
// CHECK: scf.yield
// CHECK: ^bb1:
// CHECK-NEXT: arith.subf
func.func @loops_and_unreachable(%a: f32, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> f32 {
    %next = amp.fp16_guard -> f32 {
      %0 = arith.addf %acc, %a : f32
      amp.yield %0 : f32
    }
    scf.yield %next : f32
  }
  return %sum : f32
^bb1:
  %d = amp.fp16_guard -> f32 {
    %1 = arith.subf %a, %a : f32
    amp.yield %1 : f32
  }
  return %d : f32
}

// -----

// Nothing to do: the pass changes nothing.
// CHECK-LABEL: func.func @no_guard
// CHECK-NEXT: arith.addf
// CHECK-NEXT: return
func.func @no_guard(%a: f32) -> f32 {
  %0 = arith.addf %a, %a : f32
  return %0 : f32
}
