// amp.optimizer_update bufferizes to its buffer form, every property kept:
// the current values are read where they are, and the destinations are
// written, never read: a tensor.empty destination (what amp-training gives)
// becomes a fresh buffer that nothing is copied into, which the function
// returns as its own (no clone of an argument at the return).
// RUN: amp-opt %s \
// RUN:   -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN: | FileCheck %s

// CHECK-LABEL: func.func @update
// CHECK-SAME: (%[[G:.*]]: memref<4xbf16>, %[[STEP:.*]]: memref<i32>, %[[SKIP:.*]]: memref<i1>, %[[P:.*]]: memref<4xf32>, %[[V:.*]]: memref<4xf32>)
// CHECK: %[[NP:.*]] = memref.alloc() {{.*}}: memref<4xf32>
// CHECK: %[[NV:.*]] = memref.alloc() {{.*}}: memref<4xf32>
// CHECK-NOT: memref.copy
// CHECK: amp.optimizer_update momentum ins(%[[G]] : memref<4xbf16>) step(%[[STEP]] : memref<i32>) skip(%[[SKIP]] : memref<i1>) params(%[[P]], %[[V]] : memref<4xf32>, memref<4xf32>) outs(%[[NP]], %[[NV]] : memref<4xf32>, memref<4xf32>) {dampening = 1.000000e-01 : f64, lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, weight_decay = 1.000000e-04 : f64}{{$}}
// CHECK: return %[[NP]], %[[NV]]
func.func @update(%g: tensor<4xbf16>, %step: tensor<i32>, %skip: tensor<i1>,
                  %p: tensor<4xf32>, %v: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e0 = tensor.empty() : tensor<4xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %r:2 = amp.optimizer_update momentum ins(%g : tensor<4xbf16>)
      step(%step : tensor<i32>) skip(%skip : tensor<i1>)
      params(%p, %v : tensor<4xf32>, tensor<4xf32>)
      outs(%e0, %e1 : tensor<4xf32>, tensor<4xf32>)
      {lr = 1.0e-01 : f64, momentum = 9.0e-01 : f64, dampening = 0.1 : f64, weight_decay = 1.0e-04 : f64}
      -> tensor<4xf32>, tensor<4xf32>
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}
