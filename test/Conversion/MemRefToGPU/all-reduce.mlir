// RUN: amp-opt %s --pass-pipeline="builtin.module(amp-memref-to-gpu)" --split-input-file | FileCheck %s

// The host collective of a bufferized amp.all_reduce, on what becomes a
// device buffer: a call of the device twin, declared stream-ordered, and
// the host declaration goes.
// CHECK-LABEL: func.func @all_reduce
// CHECK: %[[BUF:.*]] = gpu.alloc () : memref<8xf32>
// CHECK: linalg.copy ins(%{{.*}} : memref<8xf32>) outs(%[[BUF]] : memref<8xf32>)
// CHECK: %[[PTR:.*]] = llvm.inttoptr
// CHECK: call @ampGpuAllReduce(%[[PTR]], %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, i64, i32, i32) -> ()
// CHECK: call @ampGpuAllReduce
// CHECK-NOT: llvm.call @ampAllReduce
// CHECK: func.func private @ampGpuAllReduce(!llvm.ptr, i64, i32, i32) attributes {amp.stream_ordered}
// CHECK-NOT: llvm.func @ampAllReduce
func.func @all_reduce(%arg0: memref<8xf32>) -> memref<8xf32> {
  %c8_i64 = arith.constant 8 : i64
  %c0_i32 = arith.constant 0 : i32
  %c1_i32 = arith.constant 1 : i32
  %alloc = memref.alloc() : memref<8xf32>
  memref.copy %arg0, %alloc : memref<8xf32> to memref<8xf32>
  %intptr = memref.extract_aligned_pointer_as_index %alloc : memref<8xf32> -> index
  %0 = arith.index_cast %intptr : index to i64
  %1 = llvm.inttoptr %0 : i64 to !llvm.ptr
  llvm.call @ampAllReduce(%1, %c8_i64, %c0_i32, %c1_i32) : (!llvm.ptr, i64, i32, i32) -> ()
  llvm.call @ampAllReduce(%1, %c8_i64, %c0_i32, %c0_i32) : (!llvm.ptr, i64, i32, i32) -> ()
  return %alloc : memref<8xf32>
}
llvm.func @ampAllReduce(!llvm.ptr, i64, i32, i32) attributes {sym_visibility = "private"}

// -----

// No collective: nothing declared.
// CHECK-LABEL: func.func @none
// CHECK-NOT: ampGpuAllReduce
func.func @none(%arg0: memref<8xf32>) -> memref<8xf32> {
  return %arg0 : memref<8xf32>
}
