// RUN: amp-opt %s --amp-decompose-aggregates --split-input-file | FileCheck %s

// linalg.softmax becomes max-reduce, sub+exp, sum-reduce and divide; in f16
// it is computed in f32 between an extf and a truncf (the sum accumulates in
// f32).
// CHECK-LABEL: func.func @softmax
// CHECK-NOT: linalg.softmax
// CHECK: arith.extf %{{.*}} : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK: linalg.generic
// CHECK: arith.maxnumf {{.*}} : f32
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK: arith.divf
// CHECK: arith.truncf %{{.*}} : tensor<4x8xf32> to tensor<4x8xf16>
func.func @softmax(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %e = tensor.empty() : tensor<4x8xf16>
  %r = linalg.softmax dimension(1) ins(%x : tensor<4x8xf16>) outs(%e : tensor<4x8xf16>) -> tensor<4x8xf16>
  return %r : tensor<4x8xf16>
}

// -----

// Nothing to decompose: the module is unchanged.
// CHECK-LABEL: func.func @none
// CHECK-NEXT: arith.addf
// CHECK-NEXT: return
func.func @none(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %x, %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// An f32 softmax is decomposed in its own type.
// CHECK-LABEL: func.func @softmax_f32
// CHECK-NOT: arith.extf
// CHECK: arith.maxnumf {{.*}} : f32
// CHECK-NOT: arith.truncf
func.func @softmax_f32(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
