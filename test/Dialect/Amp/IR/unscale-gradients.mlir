// RUN: amp-opt %s -split-input-file | amp-opt -split-input-file | FileCheck %s
// RUN: amp-opt %s -split-input-file -mlir-print-op-generic | amp-opt -split-input-file | FileCheck %s
// RUN: amp-opt %s -split-input-file -canonicalize | FileCheck %s --check-prefixes=CHECK,CANON

// amp.unscale_gradients round-trips on tensors (with results) and on buffers
// (without).
// CHECK-LABEL: func.func @tensors
// CHECK: %[[U:.*]]:3 = amp.unscale_gradients ins(%arg0, %arg1 : tensor<16x8xf16>, tensor<?xf32>) by %arg2 : tensor<f32> outs(%arg3, %arg4, %arg5 : tensor<16x8xf16>, tensor<?xf32>, tensor<i1>) -> tensor<16x8xf16>, tensor<?xf32>, tensor<i1>
func.func @tensors(%g0: tensor<16x8xf16>, %g1: tensor<?xf32>, %inv: tensor<f32>,
                   %o0: tensor<16x8xf16>, %o1: tensor<?xf32>, %flag: tensor<i1>)
    -> (tensor<16x8xf16>, tensor<?xf32>, tensor<i1>) {
  %u:3 = amp.unscale_gradients ins(%g0, %g1 : tensor<16x8xf16>, tensor<?xf32>) by %inv : tensor<f32>
      outs(%o0, %o1, %flag : tensor<16x8xf16>, tensor<?xf32>, tensor<i1>)
      -> tensor<16x8xf16>, tensor<?xf32>, tensor<i1>
  return %u#0, %u#1, %u#2 : tensor<16x8xf16>, tensor<?xf32>, tensor<i1>
}

// -----

// CHECK-LABEL: func.func @buffers
// CHECK: amp.unscale_gradients ins(%arg0 : memref<8xbf16>) by %arg1 : memref<f32> outs(%arg2, %arg3 : memref<8xbf16>, memref<i1>){{$}}
func.func @buffers(%g: memref<8xbf16>, %inv: memref<f32>, %out: memref<8xbf16>, %flag: memref<i1>) {
  amp.unscale_gradients ins(%g : memref<8xbf16>) by %inv : memref<f32>
      outs(%out, %flag : memref<8xbf16>, memref<i1>)
  return
}

// -----

// On buffers it reads and writes memory: it is not erased unused, while on
// tensors an unused one is.
// CANON-LABEL: func.func @effects
// CANON-NOT: tensor<4xf32>) by
// CANON: amp.unscale_gradients ins(%arg0 : memref<4xf32>)
func.func @effects(%g: memref<4xf32>, %inv: memref<f32>, %out: memref<4xf32>, %flag: memref<i1>,
                   %tg: tensor<4xf32>, %tinv: tensor<f32>, %tout: tensor<4xf32>, %tflag: tensor<i1>) {
  %u:2 = amp.unscale_gradients ins(%tg : tensor<4xf32>) by %tinv : tensor<f32>
      outs(%tout, %tflag : tensor<4xf32>, tensor<i1>) -> tensor<4xf32>, tensor<i1>
  amp.unscale_gradients ins(%g : memref<4xf32>) by %inv : memref<f32>
      outs(%out, %flag : memref<4xf32>, memref<i1>)
  return
}
