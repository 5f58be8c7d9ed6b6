// RUN: amp-opt %s -split-input-file | amp-opt -split-input-file | FileCheck %s
// RUN: amp-opt %s -split-input-file -mlir-print-op-generic | amp-opt -split-input-file | FileCheck %s
// RUN: amp-opt %s -split-input-file -canonicalize | FileCheck %s --check-prefixes=CHECK,CANON

// amp.scaled_matmul round-trips on tensors (with a result) and on buffers
// (without), 2-D and batched, dynamic sizes included.
// CHECK-LABEL: func.func @tensors
// CHECK: %[[Y:.*]] = amp.scaled_matmul ins(%arg0, %arg1 : tensor<4x32xf8E4M3FN>, tensor<16x32xf8E5M2>) scale(%arg2 : tensor<f32>) outs(%arg3 : tensor<4x16xbf16>) -> tensor<4x16xbf16>
// CHECK: return %[[Y]]
func.func @tensors(%a: tensor<4x32xf8E4M3FN>, %b: tensor<16x32xf8E5M2>, %s: tensor<f32>,
                   %e: tensor<4x16xbf16>) -> tensor<4x16xbf16> {
  %y = amp.scaled_matmul ins(%a, %b : tensor<4x32xf8E4M3FN>, tensor<16x32xf8E5M2>)
      scale(%s : tensor<f32>) outs(%e : tensor<4x16xbf16>) -> tensor<4x16xbf16>
  return %y : tensor<4x16xbf16>
}

// -----

// CHECK-LABEL: func.func @buffers
// CHECK: amp.scaled_matmul ins(%arg0, %arg1 : memref<?x4x32xf8E4M3FN>, memref<?x16x32xf8E4M3FN>) scale(%arg2 : memref<f32>) outs(%arg3 : memref<?x4x16xf32>){{$}}
func.func @buffers(%a: memref<?x4x32xf8E4M3FN>, %b: memref<?x16x32xf8E4M3FN>, %s: memref<f32>,
                   %c: memref<?x4x16xf32>) {
  amp.scaled_matmul ins(%a, %b : memref<?x4x32xf8E4M3FN>, memref<?x16x32xf8E4M3FN>)
      scale(%s : memref<f32>) outs(%c : memref<?x4x16xf32>)
  return
}

// -----

// On buffers it reads and writes memory: it is not erased unused, while on
// tensors an unused one is.
// CANON-LABEL: func.func @effects
// CANON-NOT: -> tensor<4x16xf32>
// CANON: amp.scaled_matmul ins(%arg0, %arg1 : memref<4x32xf8E4M3FN>
func.func @effects(%a: memref<4x32xf8E4M3FN>, %b: memref<16x32xf8E4M3FN>, %s: memref<f32>, %c: memref<4x16xf32>,
                   %ta: tensor<4x32xf8E4M3FN>, %tb: tensor<16x32xf8E4M3FN>, %ts: tensor<f32>, %te: tensor<4x16xf32>) {
  %y = amp.scaled_matmul ins(%ta, %tb : tensor<4x32xf8E4M3FN>, tensor<16x32xf8E4M3FN>)
      scale(%ts : tensor<f32>) outs(%te : tensor<4x16xf32>) -> tensor<4x16xf32>
  amp.scaled_matmul ins(%a, %b : memref<4x32xf8E4M3FN>, memref<16x32xf8E4M3FN>)
      scale(%s : memref<f32>) outs(%c : memref<4x16xf32>)
  return
}
