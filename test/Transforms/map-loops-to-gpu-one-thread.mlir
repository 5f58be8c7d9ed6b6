// RUN: amp-opt %s --pass-pipeline="builtin.module(func.func(amp-map-loops-to-gpu{block-size=128 vector-bytes=0}))" --split-input-file --verify-diagnostics | FileCheck %s

// Host loops that touch memory and are neither parallel loops nor
// reductions the pass maps run on one GPU thread (a one-iteration
// scf.parallel); past 4096 iterations, or with a dynamic count, a remark
// says so, since such a loop is as slow as one thread.

// A recurrence (each element reads the one before): 8192 iterations.
// CHECK-LABEL: func.func @prefix_sum
// CHECK: scf.parallel
// CHECK: scf.for %{{.*}} = %{{.*}} to %c8192
func.func @prefix_sum(%x: memref<8192xf32>) {
  %c1 = arith.constant 1 : index
  %c8192 = arith.constant 8192 : index
  // expected-remark @below {{amp: this loop runs on one GPU thread (8191 iterations): it is neither a parallel loop nor a reduction that amp-map-loops-to-gpu maps to blocks}}
  scf.for %i = %c1 to %c8192 step %c1 {
    %im1 = arith.subi %i, %c1 : index
    %p = memref.load %x[%im1] : memref<8192xf32>
    %v = memref.load %x[%i] : memref<8192xf32>
    %s = arith.addf %p, %v : f32
    memref.store %s, %x[%i] : memref<8192xf32>
  }
  return
}

// -----

// The same over a dynamic count.
// CHECK-LABEL: func.func @prefix_sum_dynamic
func.func @prefix_sum_dynamic(%x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  // expected-remark @below {{amp: this loop runs on one GPU thread (a dynamic number of iterations)}}
  scf.for %i = %c1 to %n step %c1 {
    %im1 = arith.subi %i, %c1 : index
    %p = memref.load %x[%im1] : memref<?xf32>
    %v = memref.load %x[%i] : memref<?xf32>
    %s = arith.addf %p, %v : f32
    memref.store %s, %x[%i] : memref<?xf32>
  }
  return
}

// -----

// A short one (16 iterations) runs on one thread without a remark.
// CHECK-LABEL: func.func @short_recurrence
// CHECK: scf.parallel
func.func @short_recurrence(%x: memref<17xf32>) {
  %c1 = arith.constant 1 : index
  %c17 = arith.constant 17 : index
  scf.for %i = %c1 to %c17 step %c1 {
    %im1 = arith.subi %i, %c1 : index
    %p = memref.load %x[%im1] : memref<17xf32>
    %v = memref.load %x[%i] : memref<17xf32>
    %s = arith.addf %p, %v : f32
    memref.store %s, %x[%i] : memref<17xf32>
  }
  return
}
