// RUN: amp-opt %s --pass-pipeline="builtin.module(func.func(amp-map-loops-to-gpu{block-size=128 sm-count=1 vectors-per-thread=2}))" --split-input-file | FileCheck %s
// RUN: amp-opt %s --pass-pipeline="builtin.module(func.func(amp-map-loops-to-gpu{block-size=128 vectors-per-thread=2}))" --split-input-file | FileCheck %s --check-prefix=UNCAPPED
// RUN: not amp-opt %s --pass-pipeline="builtin.module(func.func(amp-map-loops-to-gpu{vectors-per-thread=0}))" --split-input-file 2>&1 | FileCheck %s --check-prefix=ZERO

// A loop larger than its grid: 65536 f32 are 16384 groups of 4, and with
// sm-count=1 a grid has at most 2048 / 128 = 16 blocks of 128 threads.
// Each block takes a contiguous share of 16384 / 16 = 1024 groups, in steps
// of 128 x 2 (vectors-per-thread=2). Where the whole step is in the share,
// a thread takes its 2 groups 128 apart with both groups' loads first,
// then the math, then the stores; else each group alone, if in the share.
// CHECK-LABEL: func.func @large
// CHECK: scf.parallel (%[[B:.*]]) = (%c0{{.*}}) to (%c16{{.*}}) step (%c1{{.*}})
// CHECK: scf.parallel (%[[T:.*]]) = (%c0{{.*}}) to (%c128{{.*}}) step (%c1{{.*}})
// CHECK: %[[START:.*]] = arith.muli %[[B]], %c1024{{.*}} : index
// CHECK: %[[NEXT:.*]] = arith.addi %[[START]], %c1024{{.*}} : index
// CHECK: %[[END:.*]] = arith.minui %[[NEXT]], %c16384{{.*}} : index
// CHECK: scf.for %[[BASE:.*]] = %[[START]] to %[[END]] step %c256{{.*}} {
// CHECK: %[[FIRST:.*]] = arith.addi %[[BASE]], %[[T]] : index
// CHECK: %[[STEPEND:.*]] = arith.addi %[[BASE]], %c256{{.*}} : index
// CHECK: %[[WHOLE:.*]] = arith.cmpi ule, %[[STEPEND]], %[[END]] : index
// CHECK: scf.if %[[WHOLE]] {
// CHECK: %[[G0:.*]] = arith.addi %[[FIRST]], %c0{{.*}} : index
// CHECK: %[[O0:.*]] = arith.muli %[[G0]], %c4{{.*}} : index
// CHECK: %[[G1:.*]] = arith.addi %[[FIRST]], %c128{{.*}} : index
// CHECK: %[[O1:.*]] = arith.muli %[[G1]], %c4{{.*}} : index
// CHECK: %[[X0:.*]] = vector.load %arg0[%[[O0]]] {alignment = 16 : i64} : memref<65536xf32>, vector<4xf32>
// CHECK: %[[X1:.*]] = vector.load %arg0[%[[O1]]] {alignment = 16 : i64} : memref<65536xf32>, vector<4xf32>
// CHECK: %[[Y0:.*]] = vector.load %arg1[%[[O0]]] {alignment = 16 : i64} : memref<65536xf32>, vector<4xf32>
// CHECK: %[[Y1:.*]] = vector.load %arg1[%[[O1]]] {alignment = 16 : i64} : memref<65536xf32>, vector<4xf32>
// CHECK: %[[S0:.*]] = arith.addf %[[X0]], %[[Y0]] : vector<4xf32>
// CHECK: %[[S1:.*]] = arith.addf %[[X1]], %[[Y1]] : vector<4xf32>
// CHECK: vector.store %[[S0]], %arg2[%[[O0]]]
// CHECK: vector.store %[[S1]], %arg2[%[[O1]]]
// CHECK: } else {
// CHECK: scf.for %[[K:.*]] = %c0{{.*}} to %c2{{.*}} step %c1{{.*}} {
// CHECK: %[[KS:.*]] = arith.muli %[[K]], %c128{{.*}} : index
// CHECK: %[[G:.*]] = arith.addi %[[FIRST]], %[[KS]] : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[G]], %[[END]] : index
// CHECK: scf.if %[[IN]] {
// CHECK: vector.load
// CHECK: vector.load
// CHECK: arith.addf %{{.*}} : vector<4xf32>
// CHECK: vector.store
// With no limit on the grid, one group per thread: 128 blocks of 128
// threads, no loop.
// UNCAPPED-LABEL: func.func @large
// UNCAPPED: scf.parallel (%{{.*}}) = (%c0{{.*}}) to (%c128{{.*}}) step (%c1{{.*}})
// UNCAPPED: scf.parallel
// UNCAPPED-NOT: scf.for
// UNCAPPED-NOT: scf.if
// UNCAPPED: vector.load
// UNCAPPED: vector.load
// UNCAPPED-NOT: vector.load
// UNCAPPED: vector.store
// UNCAPPED: return
// ZERO: amp-map-loops-to-gpu: vectors-per-thread must be positive
func.func @large(%a: memref<65536xf32>, %b: memref<65536xf32>, %out: memref<65536xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 65536 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %x = memref.load %a[%i] : memref<65536xf32>
    %y = memref.load %b[%i] : memref<65536xf32>
    %s = arith.addf %x, %y : f32
    memref.store %s, %out[%i] : memref<65536xf32>
    scf.reduce
  }
  return
}

// -----

// An element count that is no multiple of the vector length (6 x 7 = 42 f32:
// 10 groups of 4 and 2 elements) with a 0-d operand: the groups
// vectorised, 10 threads, the tail taken by the last block's first thread
// one element at a time (the 0-d operand a scalar load there).
// CHECK-LABEL: func.func @tail
// CHECK-DAG: %[[A:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1]] : memref<6x7xf32> into memref<42xf32>
// CHECK-DAG: %[[O:.*]] = memref.collapse_shape %arg2 {{\[\[}}0, 1]] : memref<6x7xf32> into memref<42xf32>
// CHECK: scf.parallel (%[[B:.*]]) = (%c0{{.*}}) to (%c1{{.*}}) step (%c1{{.*}})
// CHECK: scf.parallel (%[[T:.*]]) = (%c0{{.*}}) to (%c10{{.*}}) step (%c1{{.*}})
// CHECK: %[[TID:.*]] = arith.addi
// CHECK: %[[OFF:.*]] = arith.muli %[[TID]], %c4{{.*}} : index
// CHECK: vector.load %[[A]][%[[OFF]]] {alignment = 16 : i64} : memref<42xf32>, vector<4xf32>
// CHECK: memref.load %arg1[] : memref<f32>
// CHECK: vector.store %{{.*}}, %[[O]][%[[OFF]]] {alignment = 16 : i64} : memref<42xf32>, vector<4xf32>
// CHECK: %[[LASTB:.*]] = arith.cmpi eq, %[[B]], %{{.*}} : index
// CHECK: %[[FIRSTT:.*]] = arith.cmpi eq, %[[T]], %c0{{.*}} : index
// CHECK: %[[TAKER:.*]] = arith.andi %[[LASTB]], %[[FIRSTT]] : i1
// CHECK: scf.if %[[TAKER]] {
// CHECK: scf.for %[[E:.*]] = %c40{{.*}} to %c42{{.*}} step %c1{{.*}} {
// CHECK: %[[X:.*]] = memref.load %[[A]][%[[E]]] : memref<42xf32>
// CHECK: %[[S:.*]] = memref.load %arg1[] : memref<f32>
// CHECK: %[[R:.*]] = arith.mulf %[[X]], %[[S]] : f32
// CHECK: memref.store %[[R]], %[[O]][%[[E]]] : memref<42xf32>
func.func @tail(%a: memref<6x7xf32>, %s: memref<f32>, %out: memref<6x7xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c6, %c7) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<6x7xf32>
    %v = memref.load %s[] : memref<f32>
    %r = arith.mulf %x, %v : f32
    memref.store %r, %out[%i, %j] : memref<6x7xf32>
    scf.reduce
  }
  return
}

// -----

// A dynamic batch of 3-element rows: the groups are the flat order's
// (batch x 3 / 4 of them); each block's share is ceil(groups / 16) rounded
// up to a multiple of 128 (at least 128: the count is not known to fit one
// group per thread), the blocks as many as the shares take (at least 1: an
// empty batch), and the tail is what is left of batch x 3.
// CHECK-LABEL: func.func @dynamic_tail
// CHECK-SAME: (%[[X:.*]]: memref<?x3xf32>, %[[OUT:.*]]: memref<?x3xf32>, %[[N:.*]]: index)
// CHECK: %[[TOTAL:.*]] = arith.muli %[[N]], %c3{{.*}} : index
// CHECK: %[[GROUPS:.*]] = arith.divui %[[TOTAL]], %c4{{.*}} : index
// CHECK: %[[PER:.*]] = arith.ceildivui %[[GROUPS]], %c16{{.*}} : index
// CHECK: %[[ROUNDS:.*]] = arith.ceildivui %[[PER]], %c128{{.*}} : index
// CHECK: %[[ATLEAST:.*]] = arith.maxui %[[ROUNDS]], %c1{{.*}} : index
// CHECK: %[[SHARE:.*]] = arith.muli %[[ATLEAST]], %c128{{.*}} : index
// CHECK: %[[NEEDED:.*]] = arith.ceildivui %[[GROUPS]], %[[SHARE]] : index
// CHECK: %[[BLOCKS:.*]] = arith.maxui %[[NEEDED]], %c1{{.*}} : index
// CHECK: scf.parallel (%{{.*}}) = (%c0{{.*}}) to (%[[BLOCKS]]) step (%c1{{.*}})
// CHECK: scf.for
// CHECK: vector.load %{{.*}} : memref<?xf32>, vector<4xf32>
// CHECK: scf.if
// CHECK: %[[START:.*]] = arith.muli %[[GROUPS]], %c4{{.*}} : index
// CHECK: scf.for %{{.*}} = %[[START]] to %[[TOTAL]] step %c1{{.*}} {
// CHECK: memref.load %{{.*}} : memref<?xf32>
func.func @dynamic_tail(%x: memref<?x3xf32>, %out: memref<?x3xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c3) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<?x3xf32>
    %r = arith.addf %v, %v : f32
    memref.store %r, %out[%i, %j] : memref<?x3xf32>
    scf.reduce
  }
  return
}

// -----

// Fewer elements than a group (3 f32), and a broadcast along rows of 6
// that a group of 4 would straddle: scalar, one element per thread.
// CHECK-LABEL: func.func @scalar
// CHECK-NOT: vector.
// CHECK: return
func.func @scalar(%a: memref<3xf32>, %x: memref<8x6xf32>, %bias: memref<6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i) = (%c0) to (%c3) step (%c1) {
    %v = memref.load %a[%i] : memref<3xf32>
    %r = arith.addf %v, %v : f32
    memref.store %r, %a[%i] : memref<3xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c6) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<8x6xf32>
    %b = memref.load %bias[%j] : memref<6xf32>
    %r = arith.addf %v, %b : f32
    memref.store %r, %x[%i, %j] : memref<8x6xf32>
    scf.reduce
  }
  return
}
