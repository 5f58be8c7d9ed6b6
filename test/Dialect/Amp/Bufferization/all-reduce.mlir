// amp.all_reduce bufferizes to a new buffer, a copy of its operand (which is
// only read: function arguments and constants keep their values), that its
// buffer form, amp.all_reduce_in_place, reduces. No runtime call: that is
// amp-to-library-calls' (test/Conversion/AmpToLibraryCalls).
// RUN: amp-opt %s -split-input-file \
// RUN:   -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN: | FileCheck %s

// CHECK-LABEL: func.func @static
// CHECK-SAME: (%[[ARG:.*]]: memref<16x8xf32>) -> memref<16x8xf32>
// CHECK: %[[BUF:.*]] = memref.alloc() {{.*}}: memref<16x8xf32>
// CHECK: memref.copy %[[ARG]], %[[BUF]]
// CHECK-NEXT: amp.all_reduce_in_place mean %[[BUF]] : memref<16x8xf32>
// CHECK-NEXT: return %[[BUF]]
// CHECK-NOT: llvm.
// CHECK-NOT: ampAllReduce
func.func @static(%g: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %0 = amp.all_reduce mean %g : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// Dynamic sizes: the new buffer takes the operand's.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[ARG:.*]]: memref<?x4xi1>)
// CHECK: %[[D0:.*]] = memref.dim %[[ARG]], %c0
// CHECK: %[[BUF:.*]] = memref.alloc(%[[D0]]) {{.*}}: memref<?x4xi1>
// CHECK: memref.copy %[[ARG]], %[[BUF]]
// CHECK-NEXT: amp.all_reduce_in_place max %[[BUF]] : memref<?x4xi1>
func.func @dynamic(%f: tensor<?x4xi1>) -> tensor<?x4xi1> {
  %0 = amp.all_reduce max %f : tensor<?x4xi1>
  return %0 : tensor<?x4xi1>
}

// -----

// A constant is read-only: copied, never reduced in place. The result is
// unused and still reduced (the collective must happen on every rank).
// CHECK-LABEL: func.func @constant_unused
// CHECK: %[[CST:.*]] = memref.get_global
// CHECK: %[[BUF:.*]] = memref.alloc() {{.*}}: memref<i32>
// CHECK: memref.copy %[[CST]], %[[BUF]]
// CHECK-NEXT: amp.all_reduce_in_place sum %[[BUF]] : memref<i32>
// CHECK: %[[BUF2:.*]] = memref.alloc() {{.*}}: memref<i32>
// CHECK: memref.copy %[[CST]], %[[BUF2]]
// CHECK-NEXT: amp.all_reduce_in_place min %[[BUF2]] : memref<i32>
// CHECK: return %[[BUF2]]
func.func @constant_unused() -> tensor<i32> {
  %c = arith.constant dense<3> : tensor<i32>
  %0 = amp.all_reduce sum %c : tensor<i32>
  %1 = amp.all_reduce min %c : tensor<i32>
  return %1 : tensor<i32>
}
