// amp-to-library-calls: amp.all_reduce_in_place as a call of the
// runtime's ampAllReduce(pointer, count, dtype, kind) on host buffers (an
// llvm.call of an llvm.func: no C wrapper), and with device=true of its
// device twin ampGpuAllReduce (a stream-ordered func.func).
// RUN: amp-opt %s -split-input-file -amp-to-library-calls | FileCheck %s
// RUN: amp-opt %s -split-input-file -amp-to-library-calls=device=true | FileCheck %s --check-prefix=DEVICE

// Static shape: the count is a constant; f32 is dtype 0, mean kind 1.
// CHECK-LABEL: func.func @static
// CHECK-SAME: (%[[BUF:.*]]: memref<16x8xf32>)
// CHECK-DAG: %[[COUNT:.*]] = arith.constant 128 : i64
// CHECK-DAG: %[[PTR_INDEX:.*]] = memref.extract_aligned_pointer_as_index %[[BUF]]
// CHECK-DAG: %[[PTR_I64:.*]] = arith.index_cast %[[PTR_INDEX]] : index to i64
// CHECK-DAG: %[[PTR:.*]] = llvm.inttoptr %[[PTR_I64]] : i64 to !llvm.ptr
// CHECK-DAG: %[[DTYPE:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[KIND:.*]] = arith.constant 1 : i32
// CHECK: llvm.call @ampAllReduce(%[[PTR]], %[[COUNT]], %[[DTYPE]], %[[KIND]]) : (!llvm.ptr, i64, i32, i32) -> ()
// CHECK-NEXT: return
// CHECK-NOT: amp.all_reduce_in_place
// CHECK: llvm.func @ampAllReduce(!llvm.ptr, i64, i32, i32) attributes {sym_visibility = "private"}
// DEVICE-LABEL: func.func @static
// DEVICE: call @ampGpuAllReduce(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, i64, i32, i32) -> ()
// DEVICE-NOT: ampAllReduce
// DEVICE: func.func private @ampGpuAllReduce(!llvm.ptr, i64, i32, i32) attributes {amp.stream_ordered}
// DEVICE-NOT: ampAllReduce
func.func @static(%buf: memref<16x8xf32>) {
  amp.all_reduce_in_place mean %buf : memref<16x8xf32>
  return
}

// -----

// Dynamic sizes: the count is read from the buffer (times the static ones).
// i1 is dtype 4 (one byte per element), max kind 2.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[BUF:.*]]: memref<?x4x?xi1>)
// CHECK: %[[D0:.*]] = memref.dim %[[BUF]], %c0
// CHECK: %[[N0:.*]] = arith.index_cast %[[D0]] : index to i64
// CHECK: %[[D2:.*]] = memref.dim %[[BUF]], %c2
// CHECK: %[[N2:.*]] = arith.index_cast %[[D2]] : index to i64
// CHECK: %[[N:.*]] = arith.muli %[[N0]], %[[N2]] : i64
// CHECK: %[[FOUR:.*]] = arith.constant 4 : i64
// CHECK: %[[COUNT:.*]] = arith.muli %[[N]], %[[FOUR]] : i64
// CHECK-DAG: %[[DTYPE:.*]] = arith.constant 4 : i32
// CHECK-DAG: %[[KIND:.*]] = arith.constant 2 : i32
// CHECK: llvm.call @ampAllReduce(%{{.*}}, %[[COUNT]], %[[DTYPE]], %[[KIND]])
func.func @dynamic(%buf: memref<?x4x?xi1>) {
  amp.all_reduce_in_place max %buf : memref<?x4x?xi1>
  return
}

// -----

// One declaration for every call, in every function; a 0-d buffer is one
// element (i32: dtype 3; sum kind 0, min kind 3).
// CHECK-LABEL: func.func @two
// CHECK: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: llvm.call @ampAllReduce(%{{.*}}, %[[ONE]], %{{.*}}, %{{.*}})
// CHECK: llvm.call @ampAllReduce
// CHECK-LABEL: func.func @other
// CHECK: llvm.call @ampAllReduce
// CHECK-COUNT-1: llvm.func @ampAllReduce
// CHECK-NOT: llvm.func @ampAllReduce
// DEVICE-LABEL: func.func @two
// DEVICE-COUNT-2: call @ampGpuAllReduce
// DEVICE-LABEL: func.func @other
// DEVICE: call @ampGpuAllReduce
// DEVICE-COUNT-1: func.func private @ampGpuAllReduce
// DEVICE-NOT: func.func private @ampGpuAllReduce
func.func @two(%n: memref<i32>) {
  amp.all_reduce_in_place sum %n : memref<i32>
  amp.all_reduce_in_place min %n : memref<i32>
  return
}
func.func @other(%h: memref<2xf16>) {
  amp.all_reduce_in_place sum %h : memref<2xf16>
  return
}

// -----

// No collective: nothing declared.
// CHECK-LABEL: func.func @none
// CHECK-NOT: ampAllReduce
// DEVICE-LABEL: func.func @none
// DEVICE-NOT: ampGpuAllReduce
func.func @none(%buf: memref<8xf32>) {
  return
}
