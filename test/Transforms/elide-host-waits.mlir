// RUN: amp-opt %s --pass-pipeline="builtin.module(func.func(amp-elide-host-waits))" --split-input-file | FileCheck %s

func.func private @ampGpuGemm(i64) attributes {amp.stream_ordered}
func.func private @host_fn(i64)

// The wait before a stream-ordered call and the new chain after it go: the
// chain continues with the token.
// CHECK-LABEL: func.func @elided
// CHECK: %[[T:.*]] = gpu.wait async
// CHECK-NEXT: %[[M:.*]], %[[T1:.*]] = gpu.alloc async [%[[T]]]
// CHECK-NEXT: arith.constant
// CHECK-NEXT: call @ampGpuGemm
// CHECK-NEXT: %{{.*}} = gpu.dealloc async [%[[T1]]] %[[M]]
// CHECK-NEXT: gpu.wait [%{{.*}}]
// CHECK-NEXT: return
func.func @elided() {
  %0 = gpu.wait async
  %m, %t = gpu.alloc async [%0] () : memref<4xf32>
  gpu.wait [%t]
  %c = arith.constant 4 : i64
  call @ampGpuGemm(%c) : (i64) -> ()
  %1 = gpu.wait async
  %2 = gpu.dealloc async [%1] %m : memref<4xf32>
  gpu.wait [%2]
  return
}

// -----

func.func private @host_fn(i64)

// Must not fire: the callee is not stream-ordered (it may read device
// memory on the host).
// CHECK-LABEL: func.func @unmarked
// CHECK: gpu.wait [%{{.*}}]
// CHECK: call @host_fn
// CHECK-NEXT: gpu.wait async
func.func @unmarked() {
  %0 = gpu.wait async
  %m, %t = gpu.alloc async [%0] () : memref<4xf32>
  gpu.wait [%t]
  %c = arith.constant 4 : i64
  call @host_fn(%c) : (i64) -> ()
  %1 = gpu.wait async
  %2 = gpu.dealloc async [%1] %m : memref<4xf32>
  gpu.wait [%2]
  return
}

// -----

func.func private @ampGpuGemm(i64) attributes {amp.stream_ordered}

// Must not fire: a host op with side effects between the wait and the call.
// CHECK-LABEL: func.func @side_effect
// CHECK: gpu.wait [%{{.*}}]
// CHECK: memref.store
// CHECK: call @ampGpuGemm
// CHECK-NEXT: gpu.wait async
func.func @side_effect(%h: memref<1xi64>) {
  %0 = gpu.wait async
  %m, %t = gpu.alloc async [%0] () : memref<4xf32>
  gpu.wait [%t]
  %c0 = arith.constant 0 : index
  %c = arith.constant 4 : i64
  memref.store %c, %h[%c0] : memref<1xi64>
  call @ampGpuGemm(%c) : (i64) -> ()
  %1 = gpu.wait async
  %2 = gpu.dealloc async [%1] %m : memref<4xf32>
  gpu.wait [%2]
  return
}

// -----

func.func private @ampGpuCheckFiniteAndUnscaleBuffers(i64, !llvm.ptr) attributes {amp.stream_ordered}

// The table stores of a library call go to host stack memory: they do not
// keep the wait.
// CHECK-LABEL: func.func @table_stores
// CHECK-NOT: gpu.wait [
// CHECK: llvm.store
// CHECK-NEXT: call @ampGpuCheckFiniteAndUnscaleBuffers
// CHECK-NOT: gpu.wait async
// CHECK: gpu.dealloc async
// CHECK: gpu.wait [
// CHECK-NEXT: return
func.func @table_stores(%p: !llvm.ptr) {
  %one = llvm.mlir.constant(1 : i64) : i64
  %table = llvm.alloca %one x !llvm.ptr : (i64) -> !llvm.ptr
  %0 = gpu.wait async
  %m, %t = gpu.alloc async [%0] () : memref<4xf32>
  gpu.wait [%t]
  %slot = llvm.getelementptr %table[0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
  llvm.store %p, %slot : !llvm.ptr, !llvm.ptr
  call @ampGpuCheckFiniteAndUnscaleBuffers(%one, %table) : (i64, !llvm.ptr) -> ()
  %1 = gpu.wait async
  %2 = gpu.dealloc async [%1] %m : memref<4xf32>
  gpu.wait [%2]
  return
}

// -----

// A store to memory that is not a host stack slot keeps the wait.
func.func private @ampGpuGemm(i64) attributes {amp.stream_ordered}
// CHECK-LABEL: func.func @other_store
// CHECK: gpu.wait [
// CHECK: llvm.store
func.func @other_store(%p: !llvm.ptr, %q: !llvm.ptr) {
  %one = llvm.mlir.constant(1 : i64) : i64
  %0 = gpu.wait async
  %m, %t = gpu.alloc async [%0] () : memref<4xf32>
  gpu.wait [%t]
  llvm.store %p, %q : !llvm.ptr, !llvm.ptr
  call @ampGpuGemm(%one) : (i64) -> ()
  %1 = gpu.wait async
  %2 = gpu.dealloc async [%1] %m : memref<4xf32>
  gpu.wait [%2]
  return
}

// -----

// A training loop: a call of a function of the module (compiled the same
// way) needs no wait before it, and the wait at the end of the body goes
// because the function waits after the loop. One host wait remains.
func.func @step(%m: memref<4xf32>) {
  %0 = gpu.wait async
  %c = arith.constant 2.0 : f32
  %1 = gpu.memset async [%0] %m, %c : memref<4xf32>, f32
  gpu.wait [%1]
  return
}
// CHECK-LABEL: func.func @loop
// CHECK: scf.for
// CHECK-NOT: gpu.wait [
// CHECK: call @step
// CHECK-NOT: gpu.wait [
// CHECK: gpu.memset async
// CHECK-NEXT: }
// CHECK: gpu.wait [
// CHECK-NEXT: return
func.func @loop(%m: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %0 = gpu.wait async
    %1 = gpu.memset async [%0] %m, %f : memref<4xf32>, f32
    gpu.wait [%1]
    func.call @step(%m) : (memref<4xf32>) -> ()
    %2 = gpu.wait async
    %3 = gpu.memset async [%2] %m, %f : memref<4xf32>, f32
    gpu.wait [%3]
    scf.yield
  }
  %4 = gpu.wait async
  %5 = gpu.memset async [%4] %m, %f : memref<4xf32>, f32
  gpu.wait [%5]
  return
}

// -----

// Without a host wait after the loop, the body's last wait stays (the
// function would otherwise return with work in flight).
// CHECK-LABEL: func.func @loop_no_wait_after
// CHECK: scf.for
// CHECK: gpu.wait [
// CHECK-NEXT: }
func.func @loop_no_wait_after(%m: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %0 = gpu.wait async
    %1 = gpu.memset async [%0] %m, %f : memref<4xf32>, f32
    gpu.wait [%1]
    scf.yield
  }
  return
}

// -----

// A frontend's shape check between kernels (torch-mlir's "mismatched size
// for broadcast" on a dynamic batch): its condition is host values, so
// neither the wait before it nor the new chain after it remains.
// CHECK-LABEL: func.func @host_check
// CHECK: %[[T:.*]] = gpu.memset async
// CHECK-NOT: gpu.wait
// CHECK: cf.assert %{{.*}}, "mismatched size for broadcast"
// CHECK-NEXT: cf.assert
// CHECK-NEXT: %{{.*}} = gpu.memset async [%[[T]]]
// CHECK-NEXT: gpu.wait [%{{.*}}]
// CHECK-NEXT: return
func.func @host_check(%m: memref<?xf32>, %labels: memref<?xi64>) {
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  %0 = gpu.wait async
  %1 = gpu.memset async [%0] %m, %f : memref<?xf32>, f32
  %d0 = memref.dim %m, %c0 : memref<?xf32>
  %d1 = memref.dim %labels, %c0 : memref<?xi64>
  %ok = arith.cmpi eq, %d0, %d1 : index
  gpu.wait [%1]
  cf.assert %ok, "mismatched size for broadcast"
  cf.assert %ok, "mismatching contracting dimension"
  %2 = gpu.wait async
  %3 = gpu.memset async [%2] %m, %f : memref<?xf32>, f32
  gpu.wait [%3]
  return
}

// -----

// Must not fire: a host load (of a host buffer the device may have written
// by a copy) comes before the check, so the host waits for it.
// CHECK-LABEL: func.func @check_after_load
// CHECK: gpu.wait [%{{.*}}]
// CHECK-NEXT: memref.load
// CHECK: cf.assert
// CHECK-NEXT: gpu.wait async
func.func @check_after_load(%m: memref<?xf32>, %h: memref<1xi64>) {
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  %0 = gpu.wait async
  %1 = gpu.memset async [%0] %m, %f : memref<?xf32>, f32
  gpu.wait [%1]
  %v = memref.load %h[%c0] : memref<1xi64>
  %z = arith.constant 0 : i64
  %ok = arith.cmpi sge, %v, %z : i64
  cf.assert %ok, "negative values not allowed in new dimensions"
  %2 = gpu.wait async
  %3 = gpu.memset async [%2] %m, %f : memref<?xf32>, f32
  gpu.wait [%3]
  return
}
