// RUN: amp-opt %s --pass-pipeline="builtin.module(func.func(amp-map-loops-to-gpu{block-size=128 vector-bytes=0}))" --split-input-file | FileCheck %s
// Tiling and mapping one element per thread (vectorise.mlir: 16-byte
// accesses).
// RUN: amp-opt %s --pass-pipeline="builtin.module(func.func(amp-map-loops-to-gpu{block-size=128 vector-bytes=0},gpu-map-parallel-loops),convert-parallel-loops-to-gpu,func.func(amp-check-host-code),canonicalize)" --split-input-file | FileCheck %s --check-prefix=GPU

// The loop is flattened into one dimension and tiled by the block size: a
// 1-D launch of 128-thread blocks; the indices are recovered by division.
// CHECK-LABEL: func.func @tile
// CHECK: scf.parallel (%[[B:.*]]) = (%{{.*}}) to (%c65536) step (%c128{{.*}})
// CHECK: scf.parallel (%[[T:.*]]) =
// CHECK: %[[I:.*]] = arith.addi %[[T]], %[[B]] : index
// CHECK-DAG: %[[COL:.*]] = arith.remsi %[[I]], %c1024{{.*}} : index
// CHECK-DAG: %[[ROW:.*]] = arith.divsi %[[I]], %c1024{{.*}} : index
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[ROW]], %[[COL]]]
// GPU-LABEL: func.func @tile
// GPU: gpu.launch blocks({{.*}}) in (%{{.*}} = %c512, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c128, %{{.*}} = %c1, %{{.*}} = %c1)
func.func @tile(%m: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c1024) step (%c1, %c1) {
    memref.store %f, %m[%i, %j] : memref<64x1024xf32>
  }
  return
}

// -----

// Shorter than a block: one block of exactly its length.
// CHECK-LABEL: func.func @short
// CHECK: step (%c24
// GPU-LABEL: func.func @short
// GPU: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c24, %{{.*}} = %c1, %{{.*}} = %c1)
func.func @short(%m: memref<3x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c3, %c8) step (%c1, %c1) {
    memref.store %f, %m[%i, %j] : memref<3x8xf32>
  }
  return
}

// -----

// A 3-D loop with a 256-long innermost dimension: tiled per dimension it
// would put 256 threads on threadIdx.z (limit 64). Flattened, it is 64
// blocks of 128 threads.
// GPU-LABEL: func.func @three_d
// GPU: gpu.launch blocks({{.*}}) in (%{{.*}} = %c64, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c128, %{{.*}} = %c1, %{{.*}} = %c1)
// GPU-NOT: scf.parallel
func.func @three_d(%m: memref<4x8x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c256 = arith.constant 256 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c4, %c8, %c256) step (%c1, %c1, %c1) {
    memref.store %f, %m[%i, %j, %k] : memref<4x8x256xf32>
  }
  return
}

// -----

// Five dimensions (720 elements, 6 blocks): every element gets its own thread (gpu-map-parallel-loops
// alone leaves dimensions beyond the third to a loop in one thread).
// GPU-LABEL: func.func @five_d
// GPU: gpu.launch blocks({{.*}}) in (%{{.*}} = %c6, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c128, %{{.*}} = %c1, %{{.*}} = %c1)
// GPU-NOT: scf.for
func.func @five_d(%m: memref<2x3x4x5x6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%a, %b, %c, %d, %e) = (%c0, %c0, %c0, %c0, %c0) to (%c2, %c3, %c4, %c5, %c6) step (%c1, %c1, %c1, %c1, %c1) {
    memref.store %f, %m[%a, %b, %c, %d, %e] : memref<2x3x4x5x6xf32>
  }
  return
}

// -----

// Dynamic extents: the tile bound is a min with constants folded in. The
// blocks' loop runs at least once (an empty extent would be a grid of 0
// blocks, which CUDA refuses); its threads' bound, from the real extent,
// leaves that block idle.
// CHECK: #[[MAP:.*]] = affine_map<(d0, d1, d2) -> (128, d1 - d2)>
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%{{.*}}: memref<?xf32>, %[[N:.*]]: index)
// CHECK: %[[ONCE:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: %[[BLOCKS:.*]] = arith.maxsi %[[N]], %[[ONCE]] : index
// CHECK: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%[[BLOCKS]]) step
// CHECK: affine.min #[[MAP]](%{{.*}}, %[[N]], %[[I]])
// GPU-LABEL: func.func @dynamic
// GPU: gpu.launch blocks({{.*}}) threads({{.*}}) in (%{{.*}} = %c128, %{{.*}} = %c1, %{{.*}} = %c1)
// GPU-NOT: scf.parallel
func.func @dynamic(%m: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %f, %m[%i] : memref<?xf32>
  }
  return
}

// -----

// A reduction to a scalar: one block whose threads stride over the input
// (16 elements: one warp), each from the identity, then a gpu.all_reduce
// across the block; thread 0 folds the total into the accumulator.
// CHECK-LABEL: func.func @scalar
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[ONE:.*]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c32, %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]])
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[PART:.*]] = scf.for %[[I:.*]] = %[[T]] to %{{.*}} step %c32 iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32)
// CHECK:   %[[V:.*]] = memref.load %{{.*}}[%[[I]]]
// CHECK:   %[[S:.*]] = arith.addf %[[V]], %[[ACC]] : f32
// CHECK:   scf.yield %[[S]]
// CHECK: %[[TOTAL:.*]] = gpu.all_reduce add %[[PART]] uniform
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %{{.*}} : index
// CHECK: scf.if %[[FIRST]]
// CHECK:   %[[INIT:.*]] = memref.load %{{.*}}[] : memref<f32>
// CHECK:   %[[SUM:.*]] = arith.addf %[[TOTAL]], %[[INIT]] : f32
// CHECK:   memref.store %[[SUM]], %{{.*}}[] : memref<f32>
// GPU-LABEL: func.func @scalar
// GPU: gpu.all_reduce add
func.func @scalar(%x: memref<16xf32>, %acc: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %v = memref.load %x[%i] : memref<16xf32>
    %a = memref.load %acc[] : memref<f32>
    %s = arith.addf %v, %a : f32
    memref.store %s, %acc[] : memref<f32>
  }
  return
}

// -----

// Straight-line host code on memory (a 0-d copy, scalar arithmetic on loaded
// values): the loads that feed a store move into its one-thread kernel, and
// no load is left on the host.
// CHECK-LABEL: func.func @straight_line
// CHECK-NOT: memref.load
// CHECK: scf.parallel
// CHECK: %[[A:.*]] = memref.load %{{.*}}[] : memref<f32>
// CHECK-NEXT: %[[B:.*]] = memref.load %{{.*}}[] : memref<f32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT: memref.store %[[S]], %{{.*}}[] : memref<f32>
// CHECK: scf.reduce
// CHECK: scf.reduce
// CHECK-NOT: memref.load
// CHECK: scf.parallel
// CHECK: %[[V:.*]] = memref.load %{{.*}}[] : memref<f32>
// CHECK-NEXT: memref.store %[[V]], %{{.*}}[%{{.*}}] : memref<4xf32>
// CHECK: scf.reduce
// CHECK: scf.reduce
// CHECK-NOT: memref.load
// CHECK: return
// GPU-LABEL: func.func @straight_line
// GPU-COUNT-2: gpu.launch
// GPU-NOT: error
func.func @straight_line(%a: memref<f32>, %b: memref<f32>, %out: memref<f32>,
                         %hist: memref<4xf32>, %i: index) {
  %x = memref.load %a[] : memref<f32>
  %y = memref.load %b[] : memref<f32>
  %s = arith.addf %x, %y : f32
  memref.store %s, %out[] : memref<f32>
  %v = memref.load %out[] : memref<f32>
  memref.store %v, %hist[%i] : memref<4xf32>
  return
}

// -----

// Row reductions over a dynamic count of rows, which may be 0 (an empty
// batch): the grid is at least one block, and a block past the last row
// reduces nothing (its loop's bound is 0) and stores nothing.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK-SAME: (%{{.*}}: memref<?x300xf32>, %{{.*}}: memref<?xf32>, %[[N:.*]]: index)
// CHECK: %[[GRID:.*]] = arith.maxsi %[[N]], %{{.*}} : index
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]],
// CHECK: %[[VALID:.*]] = arith.cmpi ult, %[[B]], %[[N]] : index
// CHECK: %[[BOUND:.*]] = arith.select %[[VALID]], %{{.*}}, %{{.*}} : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[BOUND]] step %c256
// CHECK: gpu.all_reduce maxnumf
// CHECK: %[[FIRST:.*]] = arith.cmpi eq
// CHECK: %[[STORE:.*]] = arith.andi %[[FIRST]], %[[VALID]] : i1
// CHECK: scf.if %[[STORE]]
func.func @dynamic_rows(%x: memref<?x300xf32>, %m: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c300 = arith.constant 300 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.for %j = %c0 to %c300 step %c1 {
      %v = memref.load %x[%i, %j] : memref<?x300xf32>
      %a = memref.load %m[%i] : memref<?xf32>
      %r = arith.maxnumf %v, %a : f32
      memref.store %r, %m[%i] : memref<?xf32>
    }
  }
  return
}

// -----

// Row reductions (a softmax's max): one block per row, 256 threads over
// its 300 elements, a max tree across them.
// CHECK-LABEL: func.func @rows
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256,
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: scf.for %[[J:.*]] = %[[T]] to %{{.*}} step %c256 iter_args(%[[ACC:.*]] = %[[NINF]])
// CHECK:   memref.load %{{.*}}[%[[B]], %[[J]]] : memref<8x300xf32>
// CHECK:   arith.maxnumf
// CHECK: gpu.all_reduce maxnumf
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[B]]] : memref<8xf32>
// CHECK-NOT: scf.parallel
// GPU-LABEL: func.func @rows
// GPU: gpu.launch blocks({{.*}}) in (%{{.*}} = %c8, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1)
func.func @rows(%x: memref<8x300xf32>, %m: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c300 = arith.constant 300 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    scf.for %j = %c0 to %c300 step %c1 {
      %v = memref.load %x[%i, %j] : memref<8x300xf32>
      %a = memref.load %m[%i] : memref<8xf32>
      %r = arith.maxnumf %v, %a : f32
      memref.store %r, %m[%i] : memref<8xf32>
    }
  }
  return
}

// -----

// Not a reduction this pass trees (an f16 accumulator; the shuffles are
// 32-bit): the usual one thread per output.
// CHECK-LABEL: func.func @f16_rows
// CHECK-NOT: gpu.all_reduce
// CHECK: scf.for
func.func @f16_rows(%x: memref<8x300xf16>, %m: memref<8xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c300 = arith.constant 300 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    scf.for %j = %c0 to %c300 step %c1 {
      %v = memref.load %x[%i, %j] : memref<8x300xf16>
      %a = memref.load %m[%i] : memref<8xf16>
      %r = arith.addf %v, %a : f16
      memref.store %r, %m[%i] : memref<8xf16>
    }
  }
  return
}

// -----

// A column sum (a bias gradient): the reduced rows loop is outside the
// parallel columns. One block per column, 256 threads striding over the
// 1000 rows.
// CHECK-LABEL: func.func @columns
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in ({{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256,
// CHECK: scf.for %[[R:.*]] = %[[T]] to %{{.*}} step %c256 iter_args(
// CHECK:   memref.load %{{.*}}[%[[R]], %[[B]]] : memref<1000x8xf32>
// CHECK: gpu.all_reduce add
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[B]]] : memref<8xf32>
// CHECK-NOT: scf.parallel
// GPU-LABEL: func.func @columns
// GPU: gpu.launch blocks({{.*}}) in (%{{.*}} = %c8, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1)
func.func @columns(%x: memref<1000x8xf32>, %g: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c1000 = arith.constant 1000 : index
  scf.for %r = %c0 to %c1000 step %c1 {
    scf.parallel (%c) = (%c0) to (%c8) step (%c1) {
      %v = memref.load %x[%r, %c] : memref<1000x8xf32>
      %a = memref.load %g[%c] : memref<8xf32>
      %s = arith.addf %v, %a : f32
      memref.store %s, %g[%c] : memref<8xf32>
    }
  }
  return
}

// -----

// A parallel loop that writes one element from every iteration is a race,
// not a reduction this pass trees: left to the usual mapping.
// CHECK-LABEL: func.func @racy
// CHECK-NOT: gpu.all_reduce
func.func @racy(%x: memref<8x8xf32>, %g: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %x[%j, %k] : memref<8x8xf32>
      %a = memref.load %g[%i] : memref<8xf32>
      %s = arith.addf %v, %a : f32
      memref.store %s, %g[%i] : memref<8xf32>
    }
  }
  return
}

// -----

// Two host stores read the same host load and add: each wrapped kernel gets
// its own copy, and the host copies are erased once (erasing them twice read
// freed memory; valgrind showed it, and a Python process crashed).
// CHECK-LABEL: func.func @shared_producer
// CHECK-NOT: memref.load
// CHECK: scf.parallel
// CHECK: %[[A:.*]] = memref.load %arg0[] : memref<f32>
// CHECK: %[[B:.*]] = arith.addf %[[A]], %[[A]] : f32
// CHECK: memref.store %[[B]], %arg1[] : memref<f32>
// CHECK: memref.store %{{.*}}, %arg2[%{{.*}}] : memref<4xf32>
// CHECK: %[[C:.*]] = memref.load %arg0[] : memref<f32>
// CHECK: %[[D:.*]] = arith.addf %[[C]], %[[C]] : f32
// CHECK: memref.store %[[D]], %arg3[] : memref<f32>
// CHECK: return
func.func @shared_producer(%m: memref<f32>, %n: memref<f32>, %o: memref<4xf32>,
                           %p: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f32
  %v = memref.load %m[] : memref<f32>
  %w = arith.addf %v, %v : f32
  memref.store %w, %n[] : memref<f32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %z, %o[%i] : memref<4xf32>
    scf.reduce
  }
  memref.store %w, %p[] : memref<f32>
  return
}
