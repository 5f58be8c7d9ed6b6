// RUN: amp-opt %s -split-input-file | amp-opt -split-input-file | FileCheck %s
// RUN: amp-opt %s -split-input-file -mlir-print-op-generic | amp-opt -split-input-file | FileCheck %s
// RUN: amp-opt %s -split-input-file -canonicalize | FileCheck %s --check-prefixes=CHECK,CANON

// amp.optimizer_update round-trips on tensors (with results) and on buffers
// (without); settings left at their defaults are not printed.
// CHECK-LABEL: func.func @tensors
// CHECK: %[[U:.*]]:4 = amp.optimizer_update momentum ins(%arg0, %arg1 : tensor<16x8xf32>, tensor<?xbf16>) step(%arg2 : tensor<i32>) skip(%arg3 : tensor<i1>) params(%arg4, %arg5, %arg6, %arg7 : tensor<16x8xf32>, tensor<?xf32>, tensor<16x8xf32>, tensor<?xf32>) outs(%arg8, %arg9, %arg10, %arg11 : tensor<16x8xf32>, tensor<?xf32>, tensor<16x8xf32>, tensor<?xf32>) {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, nesterov} -> tensor<16x8xf32>, tensor<?xf32>, tensor<16x8xf32>, tensor<?xf32>
func.func @tensors(%g0: tensor<16x8xf32>, %g1: tensor<?xbf16>, %step: tensor<i32>,
                   %skip: tensor<i1>, %p0: tensor<16x8xf32>, %p1: tensor<?xf32>,
                   %v0: tensor<16x8xf32>, %v1: tensor<?xf32>,
                   %e0: tensor<16x8xf32>, %e1: tensor<?xf32>,
                   %e2: tensor<16x8xf32>, %e3: tensor<?xf32>)
    -> (tensor<16x8xf32>, tensor<?xf32>, tensor<16x8xf32>, tensor<?xf32>) {
  %u:4 = amp.optimizer_update momentum ins(%g0, %g1 : tensor<16x8xf32>, tensor<?xbf16>)
      step(%step : tensor<i32>) skip(%skip : tensor<i1>)
      params(%p0, %p1, %v0, %v1 : tensor<16x8xf32>, tensor<?xf32>, tensor<16x8xf32>, tensor<?xf32>)
      outs(%e0, %e1, %e2, %e3 : tensor<16x8xf32>, tensor<?xf32>, tensor<16x8xf32>, tensor<?xf32>)
      {lr = 1.0e-01 : f64, momentum = 9.0e-01 : f64, nesterov}
      -> tensor<16x8xf32>, tensor<?xf32>, tensor<16x8xf32>, tensor<?xf32>
  return %u#0, %u#1, %u#2, %u#3 : tensor<16x8xf32>, tensor<?xf32>, tensor<16x8xf32>, tensor<?xf32>
}

// -----

// On buffers it reads and writes memory: it is not erased, though it has no
// results. A destination may be its value's own buffer (in place).
// CHECK-LABEL: func.func @buffers
// CHECK: amp.optimizer_update adam ins(%arg0 : memref<8xf16>) step(%arg1 : memref<i32>) skip(%arg2 : memref<i1>) params(%arg3, %arg4, %arg5 : memref<8xf32>, memref<8xf32>, memref<8xf32>) outs(%arg3, %arg4, %arg5 : memref<8xf32>, memref<8xf32>, memref<8xf32>) {beta2 = 0.94999999999999996 : f64, eps = 9.9999999999999995E-7 : f64, lr = 1.000000e-03 : f64}{{$}}
// CANON: return
func.func @buffers(%g: memref<8xf16>, %step: memref<i32>, %skip: memref<i1>,
                   %p: memref<8xf32>, %m: memref<8xf32>, %v: memref<8xf32>) {
  amp.optimizer_update adam ins(%g : memref<8xf16>)
      step(%step : memref<i32>) skip(%skip : memref<i1>)
      params(%p, %m, %v : memref<8xf32>, memref<8xf32>, memref<8xf32>)
      outs(%p, %m, %v : memref<8xf32>, memref<8xf32>, memref<8xf32>)
      {lr = 1.0e-03 : f64, beta2 = 0.95 : f64, eps = 1.0e-06 : f64}
  return
}
