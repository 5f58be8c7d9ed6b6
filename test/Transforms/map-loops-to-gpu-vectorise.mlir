// RUN: amp-opt %s --pass-pipeline="builtin.module(func.func(amp-map-loops-to-gpu{block-size=128}))" --split-input-file | FileCheck %s

// An elementwise loop over whole buffers: each buffer collapsed to 1-D, one
// 16-byte vector access per thread, the arith ops on vectors, a scalar from
// above broadcast, a constant splat; 8192 elements are 2048 threads, 16
// blocks of 128, one group each (no limit on the grid: sm-count=0).
// CHECK-LABEL: func.func @add
// CHECK-DAG: %[[A:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1, 2]] : memref<4x8x256xf32> into memref<8192xf32>
// CHECK-DAG: %[[O:.*]] = memref.collapse_shape %arg2 {{\[\[}}0, 1, 2]] : memref<4x8x256xf32> into memref<8192xf32>
// CHECK: scf.parallel (%[[B:.*]]) = (%{{.*}}) to (%c16{{.*}}) step (%c1{{.*}})
// CHECK: scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%c128{{.*}}) step (%c1{{.*}})
// CHECK: %[[BT:.*]] = arith.muli %[[B]], %c128{{.*}} : index
// CHECK: %[[G:.*]] = arith.addi %[[BT]], %[[T]] : index
// CHECK-NOT: scf.if
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

// Broadcast operands. A bias along the rows (bias[j] of an 8x64 loop):
// the 4 elements of a group are in one row, so they read 4 consecutive
// elements of the bias, from offset mod 64.
// CHECK-LABEL: func.func @bias
// CHECK: %[[OFF:.*]] = arith.muli %{{.*}}, %c4{{.*}} : index
// CHECK: %[[X:.*]] = vector.load %{{.*}}[%[[OFF]]] {alignment = 16 : i64} : memref<512xf32>, vector<4xf32>
// CHECK: %[[J:.*]] = arith.remui %[[OFF]], %c64{{.*}} : index
// CHECK: %[[B:.*]] = vector.load %arg1[%[[J]]] {alignment = 16 : i64} : memref<64xf32>, vector<4xf32>
// CHECK: %[[R:.*]] = arith.addf %[[X]], %[[B]] : vector<4xf32>
// CHECK: vector.store %[[R]], %{{.*}}[%[[OFF]]] {alignment = 16 : i64} : memref<512xf32>, vector<4xf32>
func.func @bias(%a: memref<8x64xf32>, %bias: memref<64xf32>, %out: memref<8x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c64) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<8x64xf32>
    %b = memref.load %bias[%j] : memref<64xf32>
    %r = arith.addf %x, %b : f32
    memref.store %r, %out[%i, %j] : memref<8x64xf32>
    scf.reduce
  }
  return
}

// -----

// A 2-D operand broadcast over the batch (positions[s, e] of a 2x16x32
// loop): a group reads 4 consecutive positions, from
// ((offset / 32) mod 16) * 32 + offset mod 32.
// CHECK-LABEL: func.func @positions
// CHECK: %[[OFF:.*]] = arith.muli %{{.*}}, %c4{{.*}} : index
// CHECK: %[[E:.*]] = arith.remui %[[OFF]], %c32{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.divui %[[OFF]], %c32{{.*}} : index
// CHECK: %[[S:.*]] = arith.remui %[[ROW]], %c16{{.*}} : index
// CHECK: %[[SE:.*]] = arith.muli %[[S]], %c32{{.*}} : index
// CHECK: %[[I:.*]] = arith.addi %[[E]], %[[SE]] : index
// CHECK: vector.load %{{.*}}[%[[I]]] {alignment = 16 : i64} : memref<512xf32>, vector<4xf32>
func.func @positions(%a: memref<2x16x32xf32>, %pos: memref<16x32xf32>, %out: memref<2x16x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  scf.parallel (%b, %s, %e) = (%c0, %c0, %c0) to (%c2, %c16, %c32) step (%c1, %c1, %c1) {
    %x = memref.load %a[%b, %s, %e] : memref<2x16x32xf32>
    %p = memref.load %pos[%s, %e] : memref<16x32xf32>
    %r = arith.addf %x, %p : f32
    memref.store %r, %out[%b, %s, %e] : memref<2x16x32xf32>
    scf.reduce
  }
  return
}

// -----

// A batch norm's per-channel scale over NCHW f16 with a dynamic batch
// (scale[c] stored 4x1x1, read at [c, 0, 0]), and a 0-d operand: the 8
// elements of a group lie in one 8x8 plane, so each reads one element of
// the scale, at (offset / 64) mod 4, broadcast, and the 0-d operand
// is one scalar load, broadcast; the groups are the batch times 4x8x8 / 8.
// CHECK-LABEL: func.func @channel
// CHECK-SAME: (%[[X:.*]]: memref<?x4x8x8xf16>, %[[S:.*]]: memref<4x1x1xf16>, %[[Z:.*]]: memref<f16>, %[[O:.*]]: memref<?x4x8x8xf16>, %[[N:.*]]: index)
// CHECK: %[[GROUPS:.*]] = arith.muli %[[N]], %c32{{.*}} : index
// CHECK-DAG: %[[XF:.*]] = memref.collapse_shape %[[X]] {{\[\[}}0, 1, 2, 3]] : memref<?x4x8x8xf16> into memref<?xf16>
// CHECK-DAG: %[[SF:.*]] = memref.collapse_shape %[[S]] {{\[\[}}0, 1, 2]] : memref<4x1x1xf16> into memref<4xf16>
// CHECK: %[[OFF:.*]] = arith.muli %{{.*}}, %c8{{.*}} : index
// CHECK: %[[V:.*]] = vector.load %[[XF]][%[[OFF]]] {alignment = 16 : i64} : memref<?xf16>, vector<8xf16>
// CHECK: %[[PLANE:.*]] = arith.divui %[[OFF]], %c64{{.*}} : index
// CHECK: %[[C:.*]] = arith.remui %[[PLANE]], %c4{{.*}} : index
// CHECK: %[[ONE:.*]] = memref.load %[[SF]][%[[C]]] : memref<4xf16>
// CHECK: vector.broadcast %[[ONE]] : f16 to vector<8xf16>
// CHECK: %[[ZS:.*]] = memref.load %[[Z]][] : memref<f16>
// CHECK: vector.broadcast %[[ZS]] : f16 to vector<8xf16>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<?xf16>, vector<8xf16>
func.func @channel(%x: memref<?x4x8x8xf16>, %scale: memref<4x1x1xf16>,
                   %shift: memref<f16>, %out: memref<?x4x8x8xf16>,
                   %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%b, %c, %h, %w) = (%c0, %c0, %c0, %c0) to (%n, %c4, %c8, %c8) step (%c1, %c1, %c1, %c1) {
    %v = memref.load %x[%b, %c, %h, %w] : memref<?x4x8x8xf16>
    %s = memref.load %scale[%c, %c0, %c0] : memref<4x1x1xf16>
    %z = memref.load %shift[] : memref<f16>
    %m = arith.mulf %v, %s : f16
    %r = arith.addf %m, %z : f16
    memref.store %r, %out[%b, %c, %h, %w] : memref<?x4x8x8xf16>
    scf.reduce
  }
  return
}

// -----

// Math functions are elementwise on vectors too (the NVVM lowering calls
// libdevice per element).
// CHECK-LABEL: func.func @math
// CHECK: %[[X:.*]] = vector.load %{{.*}} : memref<256xf32>, vector<4xf32>
// CHECK: %[[E:.*]] = math.exp %[[X]] : vector<4xf32>
// CHECK: %[[T:.*]] = math.tanh %[[E]] fastmath<afn> : vector<4xf32>
// CHECK: %[[R:.*]] = math.rsqrt %[[T]] : vector<4xf32>
// CHECK: vector.store %[[R]]
func.func @math(%a: memref<256xf32>, %out: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 256 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %x = memref.load %a[%i] : memref<256xf32>
    %e = math.exp %x : f32
    %t = math.tanh %e fastmath<afn> : f32
    %r = math.rsqrt %t : f32
    memref.store %r, %out[%i] : memref<256xf32>
    scf.reduce
  }
  return
}

// -----

// Not vectorised, one element per thread: a bias whose rows (6) a group
// of 4 crosses, a per-channel operand over 7x7 planes (49 elements: a group
// of 8 crosses them), an operand read transposed (bias2[j, i]), a dynamic
// size that is not the outermost, an i1 buffer, an index computed from the loop's index, a
// strided view, an integer power (amp-gpu-integer-powers rewrites it on
// scalars only).
// CHECK-LABEL: func.func @not_vectorised
// CHECK-NOT: vector.
// CHECK: return
func.func @not_vectorised(%a: memref<8x6xf32>, %bias: memref<6xf32>,
                          %out: memref<8x6xf32>,
                          %flags: memref<64xi1>, %iota: memref<64xi32>,
                          %view: memref<64xf32, strided<[2]>>,
                          %p: memref<2x4x7x7xf16>, %s: memref<4xf16>,
                          %q: memref<8x8xf32>, %bias2: memref<8x8xf32>,
                          %d: memref<2x?xf32>, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c6) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<8x6xf32>
    %b = memref.load %bias[%j] : memref<6xf32>
    %r = arith.addf %x, %b : f32
    memref.store %r, %out[%i, %j] : memref<8x6xf32>
    scf.reduce
  }
  scf.parallel (%b, %c, %h, %w) = (%c0, %c0, %c0, %c0) to (%c2, %c4, %c7, %c7) step (%c1, %c1, %c1, %c1) {
    %v = memref.load %p[%b, %c, %h, %w] : memref<2x4x7x7xf16>
    %t = memref.load %s[%c] : memref<4xf16>
    %r = arith.mulf %v, %t : f16
    memref.store %r, %p[%b, %c, %h, %w] : memref<2x4x7x7xf16>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    %x = memref.load %q[%i, %j] : memref<8x8xf32>
    %b = memref.load %bias2[%j, %i] : memref<8x8xf32>
    %r = arith.addf %x, %b : f32
    memref.store %r, %q[%i, %j] : memref<8x8xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c2, %m) step (%c1, %c1) {
    %x = memref.load %d[%i, %j] : memref<2x?xf32>
    %r = arith.addf %x, %x : f32
    memref.store %r, %d[%i, %j] : memref<2x?xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    %x = memref.load %q[%i, %j] : memref<8x8xf32>
    %two = arith.constant 2 : i32
    %r = math.fpowi %x, %two : f32, i32
    memref.store %r, %q[%i, %j] : memref<8x8xf32>
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
