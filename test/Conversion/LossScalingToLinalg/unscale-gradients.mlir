// RUN: amp-opt %s -split-input-file --amp-loss-scaling-to-linalg | FileCheck %s

// amp.unscale_gradients on buffers (where no library call took it): one
// generic per gradient that writes the unscaled values and ORs into the flag
// whether the value written is Inf or NaN (read back from the gradient's
// type, so an f16 overflow counts) and whether the inverse is invalid (NaN,
// Inf, <= 0). Every loop
// carries the flag (a reduction); the flag is one buffer for all gradients.
// CHECK-LABEL: func.func @unscale
// CHECK-NOT: amp.unscale_gradients
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]}
// CHECK-SAME: ins(%arg0, %arg2 : memref<16x4xf16>, memref<f32>) outs(%arg3, %arg5 : memref<16x4xf16>, memref<i1>)
// CHECK: ^bb0(%[[IN:.*]]: f16, %[[INV:.*]]: f32, %{{.*}}: f16, %[[ACC:.*]]: i1):
// CHECK: %[[X:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK: %[[P:.*]] = arith.mulf %[[X]], %[[INV]] : f32
// CHECK: %[[T:.*]] = arith.truncf %[[P]] : f32 to f16
// CHECK: %[[Y:.*]] = arith.extf %[[T]] : f16 to f32
// CHECK: %[[ABS:.*]] = math.absf %[[Y]] : f32
// CHECK: %[[BAD:.*]] = arith.cmpf uge, %[[ABS]], %{{.*}} : f32
// CHECK: %[[NP:.*]] = arith.cmpf ule, %[[INV]], %{{.*}} : f32
// CHECK: %[[NF:.*]] = arith.cmpf oeq, %[[INV]], %{{.*}} : f32
// CHECK: %[[BADINV:.*]] = arith.ori %[[NP]], %[[NF]] : i1
// CHECK: %[[EITHER:.*]] = arith.ori %[[BAD]], %[[BADINV]] : i1
// CHECK: %[[ANY:.*]] = arith.ori %[[ACC]], %[[EITHER]] : i1
// CHECK: linalg.yield %[[T]], %[[ANY]] : f16, i1
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]}
// CHECK-SAME: ins(%arg1, %arg2 : memref<4xf32>, memref<f32>) outs(%arg4, %arg5 : memref<4xf32>, memref<i1>)
// CHECK: arith.constant 0x7F800000 : f32
// CHECK: return
func.func @unscale(%g0: memref<16x4xf16>, %g1: memref<4xf32>, %inv: memref<f32>,
                   %o0: memref<16x4xf16>, %o1: memref<4xf32>, %flag: memref<i1>) {
  amp.unscale_gradients ins(%g0, %g1 : memref<16x4xf16>, memref<4xf32>) by %inv : memref<f32>
      outs(%o0, %o1, %flag : memref<16x4xf16>, memref<4xf32>, memref<i1>)
  return
}

// -----

// A bf16 gradient is checked as its rounded value widened back; a
// host-scalar inverse is read in the body; an f64 gradient is computed in
// f64.
// CHECK-LABEL: func.func @unscale_types
// CHECK: linalg.generic {{.*}} ins(%arg0 : memref<?xbf16>) outs(%arg3, %arg5 : memref<?xbf16>, memref<i1>)
// CHECK: arith.mulf %{{.*}}, %arg2 : f32
// CHECK: %[[R:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK: arith.extf %[[R]] : bf16 to f32
// CHECK: linalg.generic {{.*}} ins(%arg1 : memref<4xf64>) outs(%arg4, %arg5 : memref<4xf64>, memref<i1>)
// CHECK: %[[W:.*]] = arith.extf %arg2 : f32 to f64
// CHECK: arith.mulf %{{.*}}, %[[W]] : f64
// CHECK: arith.constant 0x7FF0000000000000 : f64
func.func @unscale_types(%g0: memref<?xbf16>, %g1: memref<4xf64>, %inv: f32,
                         %o0: memref<?xbf16>, %o1: memref<4xf64>, %flag: memref<i1>) {
  amp.unscale_gradients ins(%g0, %g1 : memref<?xbf16>, memref<4xf64>) by %inv : f32
      outs(%o0, %o1, %flag : memref<?xbf16>, memref<4xf64>, memref<i1>)
  return
}

// -----

// On tensors it stays (it bufferizes as one op).
// CHECK-LABEL: func.func @unscale_tensors
// CHECK: amp.unscale_gradients
// CHECK-NOT: linalg.generic
func.func @unscale_tensors(%g: tensor<4xf32>, %inv: tensor<f32>, %out: tensor<4xf32>, %flag: tensor<i1>) -> (tensor<4xf32>, tensor<i1>) {
  %u:2 = amp.unscale_gradients ins(%g : tensor<4xf32>) by %inv : tensor<f32>
      outs(%out, %flag : tensor<4xf32>, tensor<i1>) -> tensor<4xf32>, tensor<i1>
  return %u#0, %u#1 : tensor<4xf32>, tensor<i1>
}
