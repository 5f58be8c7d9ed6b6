// RUN: amp-opt %s --pass-pipeline="builtin.module(func.func(amp-elide-library-call-waits))" --split-input-file | FileCheck %s

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
