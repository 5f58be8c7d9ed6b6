// amp.all_reduce: the custom syntax round-trips (and through the generic
// form), and canonicalize/cse keep every collective, in order, used or not.
// RUN: amp-opt %s -split-input-file | amp-opt -split-input-file | FileCheck %s
// RUN: amp-opt %s -split-input-file -mlir-print-op-generic | amp-opt -split-input-file | FileCheck %s
// RUN: amp-opt %s -split-input-file -canonicalize -cse | FileCheck %s --check-prefix=KEEP

// CHECK-LABEL: func.func @kinds
// CHECK-SAME: (%[[G:.*]]: tensor<16x8xf32>, %[[F:.*]]: tensor<i1>, %[[N:.*]]: tensor<?xi32>, %[[H:.*]]: tensor<4xf16>, %[[B:.*]]: tensor<2x?xbf16>)
// CHECK: amp.all_reduce mean %[[G]] : tensor<16x8xf32>
// CHECK: amp.all_reduce max %[[F]] : tensor<i1>
// CHECK: amp.all_reduce min %[[F]] : tensor<i1>
// CHECK: amp.all_reduce sum %[[N]] : tensor<?xi32>
// CHECK: amp.all_reduce max %[[N]] : tensor<?xi32>
// CHECK: amp.all_reduce sum %[[H]] : tensor<4xf16>
// CHECK: amp.all_reduce min %[[B]] {tag = 1 : i64} : tensor<2x?xbf16>
func.func @kinds(%g: tensor<16x8xf32>, %f: tensor<i1>, %n: tensor<?xi32>,
                 %h: tensor<4xf16>, %b: tensor<2x?xbf16>)
    -> (tensor<16x8xf32>, tensor<i1>, tensor<i1>, tensor<?xi32>, tensor<?xi32>,
        tensor<4xf16>, tensor<2x?xbf16>) {
  %0 = amp.all_reduce mean %g : tensor<16x8xf32>
  %1 = amp.all_reduce max %f : tensor<i1>
  %2 = amp.all_reduce min %f : tensor<i1>
  %3 = amp.all_reduce sum %n : tensor<?xi32>
  %4 = amp.all_reduce max %n : tensor<?xi32>
  %5 = amp.all_reduce sum %h : tensor<4xf16>
  %6 = amp.all_reduce min %b {tag = 1} : tensor<2x?xbf16>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<16x8xf32>, tensor<i1>, tensor<i1>,
      tensor<?xi32>, tensor<?xi32>, tensor<4xf16>, tensor<2x?xbf16>
}

// -----

// Two identical collectives are two communications, and one whose result is
// unused still communicates: nothing is merged or erased.
// KEEP-LABEL: func.func @side_effects
// KEEP-SAME: (%[[G:.*]]: tensor<8xf32>)
// KEEP-NEXT: %[[A:.*]] = amp.all_reduce sum %[[G]] : tensor<8xf32>
// KEEP-NEXT: %[[B:.*]] = amp.all_reduce sum %[[G]] : tensor<8xf32>
// KEEP-NEXT: amp.all_reduce max %[[G]] : tensor<8xf32>
// KEEP-NEXT: return %[[A]], %[[B]]
func.func @side_effects(%g: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %a = amp.all_reduce sum %g : tensor<8xf32>
  %b = amp.all_reduce sum %g : tensor<8xf32>
  %unused = amp.all_reduce max %g : tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}

// -----

// Not hoisted out of a loop although its operand is loop-invariant: each
// iteration communicates.
// KEEP-LABEL: func.func @in_loop
// KEEP: scf.for
// KEEP-NEXT: amp.all_reduce sum
func.func @in_loop(%g: tensor<8xf32>, %n: index) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %g) -> tensor<8xf32> {
    %s = amp.all_reduce sum %g : tensor<8xf32>
    scf.yield %s : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
