// Types stay consistent across control flow and calls: loop-carried values,
// scf.if results, scf.while, calls and public signatures keep their types
// (conversions at the boundaries), and the output verifies.
// RUN: amp-opt %s --amp-o2 | FileCheck %s

// CHECK-LABEL: func.func private @helper(%{{.*}}: tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<4x4xf16>
// CHECK: return %{{.*}} : tensor<4x4xf32>
func.func private @helper(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = arith.addf %a, %a : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// CHECK-LABEL: func.func @loops
// CHECK-SAME: (%{{.*}}: tensor<4x4xf32>, %[[B:.*]]: tensor<4x4xf32>, %{{.*}}: index, %{{.*}}: i1) -> tensor<4x4xf32>
// The loop-invariant conversion of %b sits before the loop.
// CHECK: %[[BL:.*]] = arith.truncf %[[B]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK: %[[FOR:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<4x4xf32>) {
// CHECK:   %[[ACCL:.*]] = arith.truncf %[[ACC]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK:   linalg.matmul ins(%[[ACCL]], %[[BL]] : tensor<4x4xf16>, tensor<4x4xf16>)
// CHECK:   math.tanh %{{.*}} : tensor<4x4xf16>
// CHECK:   %[[Y:.*]] = arith.extf %{{.*}} : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK:   scf.yield %[[Y]] : tensor<4x4xf32>
// CHECK: scf.if %{{.*}} -> (tensor<4x4xf32>) {
// CHECK:   scf.yield %{{.*}} : tensor<4x4xf32>
// CHECK: } else {
// CHECK:   scf.yield %[[FOR]] : tensor<4x4xf32>
// CHECK: scf.while
// CHECK: call @helper(%{{.*}}) : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: return %{{.*}} : tensor<4x4xf32>
func.func @loops(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %n: index, %c: i1)
    -> tensor<4x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<4x4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> tensor<4x4xf32> {
    %mm = linalg.matmul ins(%acc, %b : tensor<4x4xf32>, tensor<4x4xf32>)
                        outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
    %t = math.tanh %mm : tensor<4x4xf32>
    scf.yield %t : tensor<4x4xf32>
  }
  %s = scf.if %c -> tensor<4x4xf32> {
    %m2 = linalg.matmul ins(%r, %b : tensor<4x4xf32>, tensor<4x4xf32>)
                        outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
    scf.yield %m2 : tensor<4x4xf32>
  } else {
    scf.yield %r : tensor<4x4xf32>
  }
  %w = scf.while (%arg = %s) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
    scf.condition(%c) %arg : tensor<4x4xf32>
  } do {
  ^bb0(%arg: tensor<4x4xf32>):
    %n2 = arith.negf %arg : tensor<4x4xf32>
    scf.yield %n2 : tensor<4x4xf32>
  }
  %h = func.call @helper(%w) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %h : tensor<4x4xf32>
}

// Buffers are left alone, with a remark saying why.
// CHECK-LABEL: func.func @buffers
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x4xf32>, memref<4x4xf32>) outs(%{{.*}} : memref<4x4xf32>)
func.func @buffers(%a: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %a : memref<4x4xf32>, memref<4x4xf32>)
                outs(%c : memref<4x4xf32>)
  return
}
