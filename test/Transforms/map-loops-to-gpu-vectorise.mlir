// RUN: amp-opt %s --pass-pipeline="builtin.module(func.func(amp-map-loops-to-gpu{block-size=128}))" --split-input-file | FileCheck %s

// An elementwise loop over whole buffers: each buffer collapsed to 1-D, one
// 16-byte vector access per thread, the arith ops on vectors, a scalar from
// above broadcast, a constant splat; 8192 elements are 2048 threads.
// CHECK-LABEL: func.func @add
// CHECK-DAG: %[[A:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1, 2]] : memref<4x8x256xf32> into memref<8192xf32>
// CHECK-DAG: %[[O:.*]] = memref.collapse_shape %arg2 {{\[\[}}0, 1, 2]] : memref<4x8x256xf32> into memref<8192xf32>
// CHECK: scf.parallel (%[[B:.*]]) = (%{{.*}}) to (%c2048{{.*}}) step (%c128{{.*}})
// CHECK: scf.parallel (%[[T:.*]]) =
// CHECK: %[[G:.*]] = arith.addi %[[T]], %[[B]] : index
// CHECK: %[[OFF:.*]] = arith.muli %[[G]], %c4{{.*}} : index
// CHECK: %[[X:.*]] = vector.load %[[A]][%[[OFF]]] {alignment = 16 : i64} : memref<8192xf32>, vector<4xf32>
// CHECK: %[[S:.*]] = vector.broadcast %arg3 : f32 to vector<4xf32>
// CHECK: arith.mulf %[[X]], %[[S]] : vector<4xf32>
// CHECK: arith.constant dense<1.000000e+00> : vector<4xf32>
// CHECK: vector.store %{{.*}}, %[[O]][%[[OFF]]] {alignment = 16 : i64} : memref<8192xf32>, vector<4xf32>
func.func @add(%a: memref<4x8x256xf32>, %b: memref<4x8x256xf32>,
               %out: memref<4x8x256xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c256 = arith.constant 256 : index
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c4, %c8, %c256) step (%c1, %c1, %c1) {
    %x = memref.load %a[%i, %j, %k] : memref<4x8x256xf32>
    %y = memref.load %b[%i, %j, %k] : memref<4x8x256xf32>
    %m = arith.mulf %x, %s : f32
    %one = arith.constant 1.0 : f32
    %p = arith.addf %m, %one : f32
    %r = arith.addf %p, %y : f32
    memref.store %r, %out[%i, %j, %k] : memref<4x8x256xf32>
    scf.reduce
  }
  return
}

// -----

// A cast f16 -> f32: four elements per thread (16 bytes of f32), the f16
// loads 8 bytes aligned to 8.
// CHECK-LABEL: func.func @widen
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<1024xf16>, vector<4xf16>
// CHECK: arith.extf %{{.*}} : vector<4xf16> to vector<4xf32>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<1024xf32>, vector<4xf32>
func.func @widen(%a: memref<1024xf16>, %out: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1024 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %x = memref.load %a[%i] : memref<1024xf16>
    %w = arith.extf %x : f16 to f32
    memref.store %w, %out[%i] : memref<1024xf32>
    scf.reduce
  }
  return
}

// -----

// Not vectorised, one element per thread: a broadcast operand (bias[j]),
// a count that is not a multiple of the vector length, an i1 buffer, an
// index computed from the loop's index, a strided view.
// CHECK-LABEL: func.func @not_vectorised
// CHECK-NOT: vector.
// CHECK: return
func.func @not_vectorised(%a: memref<8x64xf32>, %bias: memref<64xf32>,
                          %out: memref<8x64xf32>, %odd: memref<6xf32>,
                          %flags: memref<64xi1>, %iota: memref<64xi32>,
                          %view: memref<64xf32, strided<[2]>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c64) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<8x64xf32>
    %b = memref.load %bias[%j] : memref<64xf32>
    %r = arith.addf %x, %b : f32
    memref.store %r, %out[%i, %j] : memref<8x64xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c6) step (%c1) {
    %x = memref.load %odd[%i] : memref<6xf32>
    %r = arith.addf %x, %x : f32
    memref.store %r, %odd[%i] : memref<6xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %f = memref.load %flags[%i] : memref<64xi1>
    %n = arith.xori %f, %f : i1
    memref.store %n, %flags[%i] : memref<64xi1>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = arith.index_cast %i : index to i32
    memref.store %v, %iota[%i] : memref<64xi32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %x = memref.load %view[%i] : memref<64xf32, strided<[2]>>
    memref.store %x, %view[%i] : memref<64xf32, strided<[2]>>
    scf.reduce
  }
  return
}
