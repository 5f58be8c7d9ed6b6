// RUN: amp-opt %s -split-input-file --amp-loss-scaling-to-linalg | FileCheck %s

// amp.optimizer_update on buffers (where no library call took it): one
// generic per parameter that reads its gradient (widened to f32), the step
// count, the flag, the parameter and its state, and writes the new values to
// their destinations (here one fresh, the others in place); on an overflow
// every current value is written instead.
// CHECK-LABEL: func.func @adamw
// CHECK-NOT: amp.optimizer_update
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%arg0, %arg2, %arg3, %arg4, %arg6, %arg8 : memref<4x3xbf16>, memref<i32>, memref<i1>, memref<4x3xf32>, memref<4x3xf32>, memref<4x3xf32>) outs(%arg10, %arg6, %arg8 : memref<4x3xf32>, memref<4x3xf32>, memref<4x3xf32>)
// CHECK: ^bb0(%[[G:[^:]*]]: bf16, %[[STEP:[^:]*]]: i32, %[[SKIP:[^:]*]]: i1, %[[P:[^:]*]]: f32, %[[M:[^:]*]]: f32, %[[V:[^:]*]]: f32, %{{[^:]*}}: f32, %{{[^:]*}}: f32, %{{[^:]*}}: f32):
// CHECK: %[[GF:.*]] = arith.extf %[[G]] : bf16 to f32
// Decoupled decay: p * (1 - lr * wd).
// CHECK: %[[DECAY:.*]] = arith.constant 0.999899983 : f32
// CHECK: arith.mulf %[[P]], %[[DECAY]] : f32
// CHECK: %[[T:.*]] = arith.addi %[[STEP]], %{{.*}} : i32
// CHECK: arith.sitofp %[[T]] : i32 to f32
// CHECK: math.powf
// CHECK: math.sqrt
// CHECK: %[[NP:.*]] = arith.select %[[SKIP]], %[[P]], %{{.*}} : f32
// CHECK: %[[NM:.*]] = arith.select %[[SKIP]], %[[M]], %{{.*}} : f32
// CHECK: %[[NV:.*]] = arith.select %[[SKIP]], %[[V]], %{{.*}} : f32
// CHECK: linalg.yield %[[NP]], %[[NM]], %[[NV]] : f32, f32, f32
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]}
// CHECK-SAME: ins(%arg1, %arg2, %arg3, %arg5, %arg7, %arg9 : memref<3xf32>, memref<i32>, memref<i1>, memref<3xf32>, memref<3xf32>, memref<3xf32>) outs(%arg5, %arg7, %arg9 : memref<3xf32>, memref<3xf32>, memref<3xf32>)
// CHECK: return
func.func @adamw(%g0: memref<4x3xbf16>, %g1: memref<3xf32>, %step: memref<i32>,
                 %skip: memref<i1>, %p0: memref<4x3xf32>, %p1: memref<3xf32>,
                 %m0: memref<4x3xf32>, %m1: memref<3xf32>,
                 %v0: memref<4x3xf32>, %v1: memref<3xf32>,
                 %n: memref<4x3xf32>) {
  amp.optimizer_update adamw ins(%g0, %g1 : memref<4x3xbf16>, memref<3xf32>)
      step(%step : memref<i32>) skip(%skip : memref<i1>)
      params(%p0, %p1, %m0, %m1, %v0, %v1 : memref<4x3xf32>, memref<3xf32>,
           memref<4x3xf32>, memref<3xf32>, memref<4x3xf32>, memref<3xf32>)
      outs(%n, %p1, %m0, %m1, %v0, %v1 : memref<4x3xf32>, memref<3xf32>,
           memref<4x3xf32>, memref<3xf32>, memref<4x3xf32>, memref<3xf32>)
      {lr = 1.0e-02 : f64, weight_decay = 1.0e-02 : f64}
  return
}

// -----

// Momentum with weight decay: d = g + wd * p; the first update (step 0)
// sets the buffer to d, later ones momentum * buf + (1 - dampening) * d.
// CHECK-LABEL: func.func @momentum
// CHECK: linalg.generic
// CHECK: ^bb0(%[[G:[^:]*]]: f32, %[[STEP:[^:]*]]: i32, %[[SKIP:[^:]*]]: i1, %[[P:[^:]*]]: f32, %[[BUF:[^:]*]]: f32, %{{[^:]*}}: f32, %{{[^:]*}}: f32):
// CHECK: %[[WD:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[DECAY:.*]] = arith.mulf %[[WD]], %[[P]] : f32
// CHECK: %[[D:.*]] = arith.addf %[[G]], %[[DECAY]] : f32
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[STEP]], %{{.*}} : i32
// CHECK: %[[NEWBUF:.*]] = arith.select %[[FIRST]], %[[D]], %{{.*}} : f32
// CHECK: arith.select %[[SKIP]], %[[BUF]], %[[NEWBUF]] : f32
func.func @momentum(%g: memref<3xf32>, %step: memref<i32>, %skip: memref<i1>,
                    %p: memref<3xf32>, %buf: memref<3xf32>) {
  amp.optimizer_update momentum ins(%g : memref<3xf32>)
      step(%step : memref<i32>) skip(%skip : memref<i1>)
      params(%p, %buf : memref<3xf32>, memref<3xf32>)
      outs(%p, %buf : memref<3xf32>, memref<3xf32>)
      {lr = 1.0e-01 : f64, momentum = 9.0e-01 : f64, weight_decay = 5.0e-01 : f64}
  return
}

// -----

// Momentum 0 is plain SGD, as in PyTorch: p - lr * g, and the buffer keeps
// its value (it is yielded unchanged).
// CHECK-LABEL: func.func @momentum_zero
// CHECK: ^bb0(%[[G:[^:]*]]: f32, %{{[^:]*}}: i32, %[[SKIP:[^:]*]]: i1, %[[P:[^:]*]]: f32, %[[BUF:[^:]*]]: f32, %{{[^:]*}}: f32, %{{[^:]*}}: f32):
// CHECK-NOT: arith.cmpi
// CHECK: %[[LR:.*]] = arith.constant 2.500000e-01 : f32
// CHECK: %[[STEP:.*]] = arith.mulf %[[LR]], %[[G]] : f32
// CHECK: %[[NEW:.*]] = arith.subf %[[P]], %[[STEP]] : f32
// CHECK: %[[NP:.*]] = arith.select %[[SKIP]], %[[P]], %[[NEW]] : f32
// CHECK: %[[NB:.*]] = arith.select %[[SKIP]], %[[BUF]], %[[BUF]] : f32
// CHECK: linalg.yield %[[NP]], %[[NB]] : f32, f32
func.func @momentum_zero(%g: memref<3xf32>, %step: memref<i32>, %skip: memref<i1>,
                         %p: memref<3xf32>, %buf: memref<3xf32>) {
  amp.optimizer_update momentum ins(%g : memref<3xf32>)
      step(%step : memref<i32>) skip(%skip : memref<i1>)
      params(%p, %buf : memref<3xf32>, memref<3xf32>)
      outs(%p, %buf : memref<3xf32>, memref<3xf32>)
      {lr = 2.5e-01 : f64, momentum = 0.0 : f64, dampening = 0.5 : f64}
  return
}

// -----

// On tensors the op is left for bufferization (one library call on the
// GPU): the pass lowers the buffer form only.
// CHECK-LABEL: func.func @tensors
// CHECK: amp.optimizer_update sgd
func.func @tensors(%g: tensor<2xf32>, %step: tensor<i32>, %skip: tensor<i1>,
                   %p: tensor<2xf32>) -> tensor<2xf32> {
  %e = tensor.empty() : tensor<2xf32>
  %r = amp.optimizer_update sgd ins(%g : tensor<2xf32>)
      step(%step : tensor<i32>) skip(%skip : tensor<i1>)
      params(%p : tensor<2xf32>) outs(%e : tensor<2xf32>) {lr = 2.5e-01 : f64} -> tensor<2xf32>
  return %r : tensor<2xf32>
}
