// amp.all_reduce bufferizes to a new buffer, a copy of its operand (which is
// only read: function arguments and constants keep their values), that the
// runtime's ampAllReduce reduces in place.
// RUN: amp-opt %s -split-input-file \
// RUN:   -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN: | FileCheck %s

// CHECK-LABEL: func.func @static
// CHECK-SAME: (%[[ARG:.*]]: memref<16x8xf32>) -> memref<16x8xf32>
// CHECK: %[[BUF:.*]] = memref.alloc() {{.*}}: memref<16x8xf32>
// CHECK: memref.copy %[[ARG]], %[[BUF]]
// CHECK: %[[PTR_INDEX:.*]] = memref.extract_aligned_pointer_as_index %[[BUF]]
// CHECK: %[[PTR_I64:.*]] = arith.index_cast %[[PTR_INDEX]] : index to i64
// CHECK: %[[PTR:.*]] = llvm.inttoptr %[[PTR_I64]] : i64 to !llvm.ptr
// CHECK-DAG: %[[DTYPE:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[KIND:.*]] = arith.constant 1 : i32
// CHECK: llvm.call @ampAllReduce(%[[PTR]], %{{.*}}, %[[DTYPE]], %[[KIND]]) : (!llvm.ptr, i64, i32, i32) -> ()
// CHECK: return %[[BUF]]
// CHECK: llvm.func @ampAllReduce(!llvm.ptr, i64, i32, i32) attributes {sym_visibility = "private"}
func.func @static(%g: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %0 = amp.all_reduce mean %g : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// Dynamic sizes: the count is the product of the buffer's sizes. i1 is
// dtype 4 (one byte per element), max kind 2.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[ARG:.*]]: memref<?x4xi1>)
// CHECK: %[[D0:.*]] = memref.dim %[[ARG]], %c0
// CHECK: %[[BUF:.*]] = memref.alloc(%[[D0]]) {{.*}}: memref<?x4xi1>
// CHECK: memref.copy %[[ARG]], %[[BUF]]
// CHECK: memref.dim %[[BUF]]
// CHECK: arith.muli
// CHECK: %[[COUNT:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK-DAG: %[[DTYPE:.*]] = arith.constant 4 : i32
// CHECK-DAG: %[[KIND:.*]] = arith.constant 2 : i32
// CHECK: llvm.call @ampAllReduce(%{{.*}}, %[[COUNT]], %[[DTYPE]], %[[KIND]])
func.func @dynamic(%f: tensor<?x4xi1>) -> tensor<?x4xi1> {
  %0 = amp.all_reduce max %f : tensor<?x4xi1>
  return %0 : tensor<?x4xi1>
}

// -----

// A constant is read-only: copied, never reduced in place. The result is
// unused and still reduced (the collective must happen on every rank); the
// declaration is shared.
// CHECK-LABEL: func.func @constant_unused
// CHECK: %[[CST:.*]] = memref.get_global
// CHECK: %[[BUF:.*]] = memref.alloc() {{.*}}: memref<i32>
// CHECK: memref.copy %[[CST]], %[[BUF]]
// CHECK: llvm.call @ampAllReduce
// CHECK: %[[BUF2:.*]] = memref.alloc() {{.*}}: memref<i32>
// CHECK: llvm.call @ampAllReduce
// CHECK-COUNT-1: llvm.func @ampAllReduce
func.func @constant_unused() -> tensor<i32> {
  %c = arith.constant dense<3> : tensor<i32>
  %0 = amp.all_reduce sum %c : tensor<i32>
  %1 = amp.all_reduce min %c : tensor<i32>
  return %1 : tensor<i32>
}
