// amp.all_reduce_in_place (the buffer form of amp.all_reduce): the custom
// syntax round-trips (and through the generic form), and canonicalize/cse
// keep every collective, in order, although it has no result.
// RUN: amp-opt %s -split-input-file | amp-opt -split-input-file | FileCheck %s
// RUN: amp-opt %s -split-input-file -mlir-print-op-generic | amp-opt -split-input-file | FileCheck %s
// RUN: amp-opt %s -split-input-file -canonicalize -cse | FileCheck %s --check-prefix=KEEP

// CHECK-LABEL: func.func @kinds
// CHECK-SAME: (%[[G:.*]]: memref<16x8xf32>, %[[F:.*]]: memref<i1>, %[[N:.*]]: memref<?xi32>, %[[H:.*]]: memref<4xf16>, %[[B:.*]]: memref<2x?xbf16>)
// CHECK: amp.all_reduce_in_place mean %[[G]] : memref<16x8xf32>
// CHECK: amp.all_reduce_in_place max %[[F]] : memref<i1>
// CHECK: amp.all_reduce_in_place sum %[[N]] : memref<?xi32>
// CHECK: amp.all_reduce_in_place sum %[[H]] : memref<4xf16>
// CHECK: amp.all_reduce_in_place min %[[B]] {tag = 1 : i64} : memref<2x?xbf16>
func.func @kinds(%g: memref<16x8xf32>, %f: memref<i1>, %n: memref<?xi32>,
                 %h: memref<4xf16>, %b: memref<2x?xbf16>) {
  amp.all_reduce_in_place mean %g : memref<16x8xf32>
  amp.all_reduce_in_place max %f : memref<i1>
  amp.all_reduce_in_place sum %n : memref<?xi32>
  amp.all_reduce_in_place sum %h : memref<4xf16>
  amp.all_reduce_in_place min %b {tag = 1} : memref<2x?xbf16>
  return
}

// -----

// Two identical collectives are two communications; a load after one reads
// what it wrote (not forwarded from before it).
// KEEP-LABEL: func.func @side_effects
// KEEP-SAME: (%[[G:.*]]: memref<8xf32>
// KEEP-NEXT: amp.all_reduce_in_place sum %[[G]] : memref<8xf32>
// KEEP-NEXT: amp.all_reduce_in_place sum %[[G]] : memref<8xf32>
// KEEP-NEXT: %[[V:.*]] = memref.load %[[G]]
// KEEP-NEXT: return %[[V]]
func.func @side_effects(%g: memref<8xf32>, %i: index) -> f32 {
  amp.all_reduce_in_place sum %g : memref<8xf32>
  amp.all_reduce_in_place sum %g : memref<8xf32>
  %v = memref.load %g[%i] : memref<8xf32>
  return %v : f32
}
