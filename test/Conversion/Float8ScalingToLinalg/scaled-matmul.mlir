// amp-float8-scaling-to-linalg on amp.scaled_matmul: on buffers (what no
// library call took) a linalg (batch) matmul of the FP8 operands, B read
// n x k, into a zero-filled f32 accumulator, then a generic that multiplies
// by the 0-d scale and rounds to the destination's type; an f32
// destination is its own accumulator. On tensors it stays unless
// scaled-matmuls (a pipeline that makes no library call).
// RUN: amp-opt %s -split-input-file --amp-float8-scaling-to-linalg | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-float8-scaling-to-linalg=scaled-matmuls | FileCheck %s --check-prefix=TENSORS

// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @f32_buffer
// CHECK-SAME: (%[[X:.*]]: memref<4x32xf8E4M3FN>, %[[W:.*]]: memref<16x32xf8E4M3FN>, %[[S:.*]]: memref<f32>, %[[OUT:.*]]: memref<4x16xf32>)
// CHECK-NOT: memref.alloc
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[OUT]] : memref<4x16xf32>)
// CHECK: linalg.matmul indexing_maps = [#[[A]], #[[B]], #[[C]]] ins(%[[X]], %[[W]] : memref<4x32xf8E4M3FN>, memref<16x32xf8E4M3FN>) outs(%[[OUT]] : memref<4x16xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[SCALAR]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[S]] : memref<f32>) outs(%[[OUT]] : memref<4x16xf32>)
// CHECK-NEXT: ^bb0(%[[F:.*]]: f32, %[[P:.*]]: f32):
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[P]], %[[F]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
// TENSORS-LABEL: func.func @f32_buffer
// TENSORS: linalg.matmul
func.func @f32_buffer(%a: memref<4x32xf8E4M3FN>, %b: memref<16x32xf8E4M3FN>, %s: memref<f32>, %c: memref<4x16xf32>) {
  amp.scaled_matmul ins(%a, %b : memref<4x32xf8E4M3FN>, memref<16x32xf8E4M3FN>)
      scale(%s : memref<f32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// A bf16 destination of dynamic size: a new f32 buffer of its size, rounded
// once into the destination.
// CHECK-LABEL: func.func @bf16_buffer
// CHECK-SAME: %[[S:[^:]*]]: memref<f32>, %[[OUT:.*]]: memref<?x16xbf16>)
// CHECK: %[[M:.*]] = memref.dim %[[OUT]], %{{.*}} : memref<?x16xbf16>
// CHECK: %[[ACC:.*]] = memref.alloc(%[[M]]) : memref<?x16xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[ACC]] : memref<?x16xf32>)
// CHECK: linalg.matmul {{.*}} outs(%[[ACC]] : memref<?x16xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[S]], %[[ACC]] : memref<f32>, memref<?x16xf32>) outs(%[[OUT]] : memref<?x16xbf16>)
// CHECK-NEXT: ^bb0(%[[F:.*]]: f32, %[[P:.*]]: f32, %{{.*}}: bf16):
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[P]], %[[F]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.truncf %[[Y]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
func.func @bf16_buffer(%a: memref<?x32xf8E4M3FN>, %b: memref<16x32xf8E4M3FN>, %s: memref<f32>, %c: memref<?x16xbf16>) {
  amp.scaled_matmul ins(%a, %b : memref<?x32xf8E4M3FN>, memref<16x32xf8E4M3FN>)
      scale(%s : memref<f32>) outs(%c : memref<?x16xbf16>)
  return
}

// -----

// On tensors, batched: it stays by default; with scaled-matmuls, a batch
// matmul into a new f32 tensor of the destination's sizes.
// CHECK-LABEL: func.func @tensors
// CHECK: amp.scaled_matmul
// CHECK-NOT: linalg.batch_matmul
// TENSORS-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// TENSORS-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// TENSORS-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// TENSORS-LABEL: func.func @tensors
// TENSORS-SAME: (%[[X:.*]]: tensor<?x4x32xf8E4M3FN>, %[[W:.*]]: tensor<?x16x32xf8E5M2>, %[[S:.*]]: tensor<f32>, %[[D:.*]]: tensor<?x4x16xf16>)
// TENSORS-NOT: amp.scaled_matmul
// TENSORS: %[[N:.*]] = tensor.dim %[[D]], %{{.*}} : tensor<?x4x16xf16>
// TENSORS: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x4x16xf32>
// TENSORS: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x4x16xf32>)
// TENSORS: %[[P:.*]] = linalg.batch_matmul indexing_maps = [#[[A]], #[[B]], #[[C]]] ins(%[[X]], %[[W]] : tensor<?x4x32xf8E4M3FN>, tensor<?x16x32xf8E5M2>) outs(%[[Z]] : tensor<?x4x16xf32>)
// TENSORS: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[S]], %[[P]] : tensor<f32>, tensor<?x4x16xf32>) outs(%[[D]] : tensor<?x4x16xf16>)
// TENSORS: arith.mulf
// TENSORS: arith.truncf %{{.*}} : f32 to f16
// TENSORS: return %[[Y]]
func.func @tensors(%a: tensor<?x4x32xf8E4M3FN>, %b: tensor<?x16x32xf8E5M2>, %s: tensor<f32>, %e: tensor<?x4x16xf16>) -> tensor<?x4x16xf16> {
  %y = amp.scaled_matmul ins(%a, %b : tensor<?x4x32xf8E4M3FN>, tensor<?x16x32xf8E5M2>)
      scale(%s : tensor<f32>) outs(%e : tensor<?x4x16xf16>) -> tensor<?x4x16xf16>
  return %y : tensor<?x4x16xf16>
}
