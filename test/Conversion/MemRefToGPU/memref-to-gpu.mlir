// RUN: amp-opt %s --pass-pipeline="builtin.module(amp-memref-to-gpu)" --split-input-file | FileCheck %s

// Temporaries become device buffers; copies become linalg.copy. Freeing is
// the deallocation pipeline's job (dealloc.mlir): nothing is added here.
// CHECK-LABEL: func.func @temporaries
// CHECK: %[[T:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: %[[R:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: linalg.copy ins(%arg0 : memref<4xf32>) outs(%[[T]] : memref<4xf32>)
// CHECK: linalg.copy ins(%[[T]] : memref<4xf32>) outs(%[[R]] : memref<4xf32>)
// CHECK-NOT: memref.copy
// CHECK-NOT: gpu.dealloc
// CHECK: return %[[R]]
func.func @temporaries(%x: memref<4xf32>) -> memref<4xf32> {
  %t = memref.alloc() : memref<4xf32>
  %r = memref.alloc() : memref<4xf32>
  memref.copy %x, %t : memref<4xf32> to memref<4xf32>
  memref.copy %t, %r : memref<4xf32> to memref<4xf32>
  return %r : memref<4xf32>
}

// -----

memref.global "private" constant @w : memref<2x2xf32> = dense<[[1.0, 2.0], [3.0, 4.0]]>

// Constants: the runtime's cached device copy of the host global (uploaded
// once per loaded module, cached in the module's zeroed slot global, one per
// constant global, shared by its uses), wrapped in a descriptor; no per-call
// gpu.alloc, copy or free.
// CHECK: memref.global "private" constant @w : memref<2x2xf32>
// CHECK: memref.global "private" @w__amp_device_copy : memref<i64> = dense<0> {alignment = 8 : i64}
// CHECK-NOT: memref.global
// CHECK-LABEL: func.func @constant
// CHECK: %[[G:.*]] = memref.get_global @w : memref<2x2xf32>
// CHECK: %[[GI:.*]] = memref.extract_aligned_pointer_as_index %[[G]]
// CHECK: %[[GA:.*]] = arith.index_cast %[[GI]] : index to i64
// CHECK: %[[GP:.*]] = llvm.inttoptr %[[GA]] : i64 to !llvm.ptr
// CHECK: %[[BYTES:.*]] = arith.constant 16 : i64
// CHECK: %[[S:.*]] = memref.get_global @w__amp_device_copy : memref<i64>
// CHECK: %[[SI:.*]] = memref.extract_aligned_pointer_as_index %[[S]]
// CHECK: %[[SA:.*]] = arith.index_cast %[[SI]] : index to i64
// CHECK: %[[SP:.*]] = llvm.inttoptr %[[SA]] : i64 to !llvm.ptr
// CHECK: %[[DP:.*]] = call @ampGpuConstant(%[[GP]], %[[BYTES]], %[[SP]]) : (!llvm.ptr, i64, !llvm.ptr) -> !llvm.ptr
// CHECK: llvm.insertvalue %[[DP]], %{{.*}}[0]
// CHECK: llvm.insertvalue %[[DP]], %{{.*}}[1]
// CHECK: %[[D:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<2x2xf32>
// CHECK: linalg.copy ins(%[[D]] : memref<2x2xf32>) outs(%arg0 : memref<2x2xf32>)
// CHECK-NOT: gpu.alloc
// CHECK-NOT: gpu.memcpy
// CHECK-NOT: gpu.dealloc
// CHECK-LABEL: func.func @constant_again
// CHECK: memref.get_global @w__amp_device_copy : memref<i64>
// CHECK: call @ampGpuConstant(
// CHECK: func.func private @ampGpuConstant(!llvm.ptr, i64, !llvm.ptr) -> !llvm.ptr attributes {amp.stream_ordered}
func.func @constant(%out: memref<2x2xf32>) {
  %g = memref.get_global @w : memref<2x2xf32>
  memref.copy %g, %out : memref<2x2xf32> to memref<2x2xf32>
  return
}

func.func @constant_again(%out: memref<2x2xf32>) {
  %g = memref.get_global @w : memref<2x2xf32>
  memref.copy %g, %out : memref<2x2xf32> to memref<2x2xf32>
  return
}

// -----

// An explicit dealloc becomes gpu.dealloc (and is not doubled).
// CHECK-LABEL: func.func @explicit
// CHECK: gpu.alloc
// CHECK: gpu.dealloc
// CHECK-NOT: gpu.dealloc
// CHECK: return
func.func @explicit() {
  %a = memref.alloc() : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return
}

// -----

// bufferization.dealloc: unconditional -> gpu.dealloc; conditional ->
// the pointer or NULL selected on the host and one gpu.dealloc (no region);
// the retained value's ownership is computed by pointer comparison.
// CHECK-LABEL: func.func @dealloc
// CHECK-SAME: (%[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>, %[[C:.*]]: i1)
// CHECK: gpu.dealloc %[[A]] : memref<4xf32>
// CHECK-NOT: scf.if
// CHECK: %[[BA:.*]] = memref.extract_aligned_pointer_as_index %[[B]]
// CHECK: %[[RA:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[ALIAS:.*]] = arith.cmpi eq, %[[BA]], %[[RA]] : index
// CHECK: %[[AND:.*]] = arith.andi %[[C]], %[[ALIAS]] : i1
// CHECK: %[[OWN:.*]] = arith.ori %{{.*}}, %[[AND]] : i1
// CHECK: %[[NOTALIAS:.*]] = arith.xori %[[ALIAS]], %{{.*}} : i1
// CHECK: %[[FREE:.*]] = arith.andi %[[C]], %[[NOTALIAS]] : i1
// CHECK: %[[BI:.*]] = arith.index_cast %[[BA]] : index to i64
// CHECK: %[[BP:.*]] = llvm.inttoptr %[[BI]] : i64 to !llvm.ptr
// CHECK: %[[P:.*]] = llvm.select %[[FREE]], %[[BP]], %[[NULL]] : i1, !llvm.ptr
// CHECK: llvm.insertvalue %[[P]], %{{.*}}[0]
// CHECK: llvm.insertvalue %[[P]], %{{.*}}[1]
// CHECK: %[[M:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64)> to memref<i8>
// CHECK: gpu.dealloc %[[M]] : memref<i8>
// CHECK-NOT: gpu.dealloc
// CHECK: return %[[OWN]]
func.func @dealloc(%a: memref<4xf32>, %b: memref<4xf32>, %c: i1) -> i1 {
  %true = arith.constant true
  bufferization.dealloc (%a : memref<4xf32>) if (%true)
  %own = bufferization.dealloc (%b : memref<4xf32>) if (%c) retain (%a : memref<4xf32>)
  return %own : i1
}

// -----

// A clone (a returned buffer the function does not own) is a new device
// buffer and a copy kernel.
// CHECK-LABEL: func.func @clone
// CHECK: %[[N:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: linalg.copy ins(%arg0 : memref<4xf32>) outs(%[[N]] : memref<4xf32>)
// CHECK: return %[[N]]
func.func @clone(%a: memref<4xf32>) -> memref<4xf32> {
  %c = bufferization.clone %a : memref<4xf32> to memref<4xf32>
  return %c : memref<4xf32>
}
