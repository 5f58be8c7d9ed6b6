// Issue #16: every device buffer is freed exactly once on every path, with
// ownership-based deallocation (as --lower-to-gpu runs it) and
// amp-memref-to-gpu: buffers of loop bodies, loop-carried buffers, buffers
// returned by callees.
// RUN: amp-opt %s --pass-pipeline="builtin.module(ownership-based-buffer-deallocation, canonicalize, buffer-deallocation-simplification, canonicalize, amp-memref-to-gpu)" --split-input-file | FileCheck %s

// A temporary of a loop body is freed in that body, every iteration.
// CHECK-LABEL: func.func @loop_temporary
// CHECK: scf.for
// CHECK: %[[T:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: gpu.dealloc %[[T]]
// CHECK: }
// CHECK-NOT: gpu.dealloc
// CHECK: return
func.func @loop_temporary(%x: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %t = memref.alloc() : memref<4xf32>
    memref.copy %x, %t : memref<4xf32> to memref<4xf32>
    memref.copy %t, %x : memref<4xf32> to memref<4xf32>
  }
  return
}

// -----

// A training-loop shape: each iteration yields a new buffer; the previous
// one is freed once the new one exists (conditionally: the first iteration's
// buffer is the caller's argument, which is not ours), and the last one is
// returned.
// CHECK-LABEL: func.func @loop_carried
// CHECK: %[[FALSE:.*]] = arith.constant false
// CHECK: %[[R:.*]]:2 = scf.for {{.*}} iter_args(%[[CUR:.*]] = %arg0, %[[OWN:.*]] = %[[FALSE]])
// CHECK: %[[NEW:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: linalg.copy ins(%[[CUR]] : memref<4xf32>) outs(%[[NEW]] : memref<4xf32>)
// CHECK: %[[BASE:[^,]*]], %{{.*}} = memref.extract_strided_metadata %[[CUR]]
// CHECK: %[[BI:.*]] = memref.extract_aligned_pointer_as_index %[[BASE]]
// CHECK: %[[NULL:.*]] = llvm.mlir.zero
// CHECK: %[[BA:.*]] = arith.index_cast %[[BI]]
// CHECK: %[[BP:.*]] = llvm.inttoptr %[[BA]]
// CHECK: %[[P:.*]] = llvm.select %[[OWN]], %[[BP]], %[[NULL]] : i1, !llvm.ptr
// CHECK: gpu.dealloc %{{.*}} : memref<i8>
// CHECK-NOT: gpu.dealloc
// CHECK: scf.yield %[[NEW]], %true : memref<4xf32>, i1
// After the loop: the last buffer is returned (cloned if it is the
// caller's argument), and freed only if it is ours and not the one returned.
// CHECK: %[[RET:.*]] = scf.if %[[R]]#1
// CHECK: %[[LAST:[^,]*]], %{{.*}} = memref.extract_strided_metadata %[[R]]#0
// CHECK: %[[LI:.*]] = memref.extract_aligned_pointer_as_index %[[LAST]]
// CHECK: %[[RI:.*]] = memref.extract_aligned_pointer_as_index %[[RET]]
// CHECK: %[[SAME:.*]] = arith.cmpi eq, %[[LI]], %[[RI]]
// CHECK: %[[NOTSAME:.*]] = arith.xori %[[SAME]]
// CHECK: %[[FREE:.*]] = arith.andi %[[R]]#1, %[[NOTSAME]]
// CHECK: llvm.select %[[FREE]]
// CHECK: gpu.dealloc %{{.*}} : memref<i8>
// CHECK: return %[[RET]]
func.func @loop_carried(%x: memref<4xf32>, %n: index) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%cur = %x) -> (memref<4xf32>) {
    %new = memref.alloc() : memref<4xf32>
    memref.copy %cur, %new : memref<4xf32> to memref<4xf32>
    scf.yield %new : memref<4xf32>
  }
  return %r : memref<4xf32>
}

// -----

// A buffer returned by a callee is owned by the caller, which frees it.
// CHECK-LABEL: func.func private @make
// CHECK: %[[B:.*]] = gpu.alloc () : memref<4xf32>
// CHECK-NOT: gpu.dealloc
// CHECK: return %[[B]]
// CHECK-LABEL: func.func @caller
// CHECK: %[[V:.*]] = call @make()
// CHECK: linalg.copy ins(%[[V]] : memref<4xf32>) outs(%arg0 : memref<4xf32>)
// CHECK: %[[VB:[^,]*]], %{{.*}} = memref.extract_strided_metadata %[[V]]
// CHECK: gpu.dealloc %[[VB]] : memref<f32>
// CHECK-NOT: gpu.dealloc
// CHECK: return
func.func private @make() -> memref<4xf32> {
  %b = memref.alloc() : memref<4xf32>
  return %b : memref<4xf32>
}
func.func @caller(%out: memref<4xf32>) {
  %v = call @make() : () -> memref<4xf32>
  memref.copy %v, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

// Called in a loop: the callee's buffer is freed in every iteration.
// CHECK-LABEL: func.func @caller_in_loop
// CHECK: scf.for
// CHECK: %[[V:.*]] = func.call @make2()
// CHECK: %[[VB:[^,]*]], %{{.*}} = memref.extract_strided_metadata %[[V]]
// CHECK: gpu.dealloc %[[VB]] : memref<f32>
// CHECK: }
func.func private @make2() -> memref<4xf32> {
  %b = memref.alloc() : memref<4xf32>
  return %b : memref<4xf32>
}
func.func @caller_in_loop(%out: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = func.call @make2() : () -> memref<4xf32>
    memref.copy %v, %out : memref<4xf32> to memref<4xf32>
  }
  return
}
