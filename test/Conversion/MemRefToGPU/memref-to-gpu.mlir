// RUN: amp-opt %s --pass-pipeline="builtin.module(func.func(amp-memref-to-gpu))" --split-input-file | FileCheck %s

// Temporaries become device buffers, freed before the return unless
// returned; copies become linalg.copy.
// CHECK-LABEL: func.func @temporaries
// CHECK: %[[T:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: %[[R:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: linalg.copy ins(%arg0 : memref<4xf32>) outs(%[[T]] : memref<4xf32>)
// CHECK: linalg.copy ins(%[[T]] : memref<4xf32>) outs(%[[R]] : memref<4xf32>)
// CHECK-NOT: memref.copy
// CHECK: gpu.dealloc %[[T]] : memref<4xf32>
// CHECK-NOT: gpu.dealloc %[[R]]
// CHECK: return %[[R]]
func.func @temporaries(%x: memref<4xf32>) -> memref<4xf32> {
  %t = memref.alloc() : memref<4xf32>
  %r = memref.alloc() : memref<4xf32>
  memref.copy %x, %t : memref<4xf32> to memref<4xf32>
  memref.copy %t, %r : memref<4xf32> to memref<4xf32>
  return %r : memref<4xf32>
}

// -----

// A returned view keeps its buffer alive; dynamic sizes are kept.
// CHECK-LABEL: func.func @view
// CHECK: %[[A:.*]] = gpu.alloc (%arg0) : memref<?x4xf32>
// CHECK-NOT: gpu.dealloc
// CHECK: return
func.func @view(%n: index) -> memref<?xf32> {
  %a = memref.alloc(%n) : memref<?x4xf32>
  %v = memref.collapse_shape %a [[0, 1]] : memref<?x4xf32> into memref<?xf32>
  return %v : memref<?xf32>
}

// -----

memref.global "private" constant @w : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

// Constants: a device copy of the host global per call, freed at the end.
// CHECK-LABEL: func.func @constant
// CHECK: %[[G:.*]] = memref.get_global @w : memref<4xf32>
// CHECK: %[[D:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: gpu.memcpy %[[D]], %[[G]] : memref<4xf32>, memref<4xf32>
// CHECK: linalg.copy ins(%[[D]] : memref<4xf32>) outs(%arg0 : memref<4xf32>)
// CHECK: gpu.dealloc %[[D]]
func.func @constant(%out: memref<4xf32>) {
  %g = memref.get_global @w : memref<4xf32>
  memref.copy %g, %out : memref<4xf32> to memref<4xf32>
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
