// RUN: amp-opt %s --pass-pipeline="builtin.module(func.func(amp-map-loops-to-gpu{block-size=128 vector-bytes=0}))" --split-input-file | FileCheck %s
// RUN: amp-opt %s --pass-pipeline="builtin.module(func.func(amp-map-loops-to-gpu{block-size=128 vector-bytes=0},gpu-map-parallel-loops),convert-parallel-loops-to-gpu,func.func(amp-check-host-code),canonicalize)" --split-input-file | FileCheck %s --check-prefix=GPU

// Batch-norm statistics as torch-mlir imports them for training: an f64 sum
// over the batch, height and width for each channel, the batch loop (with
// a dynamic count) outside the parallel channels and the height and width
// inside. One block per channel, 256 threads striding over N*H*W, combined
// by gpu.all_reduce in f64. (Before, the nest ran on one GPU thread: on an
// H200 the first call of ResNet-50's training step at batch 128 ran for
// minutes.)
// CHECK-LABEL: func.func @channel_statistics_f64
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in ({{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256,
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: scf.for %[[R:.*]] = %[[T]] to %{{.*}} step %c256 iter_args(%{{.*}} = %[[ZERO]]) -> (f64)
// CHECK:   memref.load %{{.*}} : memref<?x64x32x32xf64>
// CHECK: gpu.all_reduce add %{{.*}} uniform {
// CHECK-NEXT: } : (f64) -> f64
// CHECK: memref.store %{{.*}}, %{{.*}}[%c0, %[[B]], %c0, %c0] : memref<1x64x1x1xf64>
// CHECK-NOT: scf.parallel
// GPU-LABEL: func.func @channel_statistics_f64
// GPU: gpu.launch blocks({{.*}}) in (%{{.*}} = %c64, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1)
// GPU-NOT: gpu.launch
func.func @channel_statistics_f64(%x: memref<?x64x32x32xf64>, %s: memref<1x64x1x1xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %n = memref.dim %x, %c0 : memref<?x64x32x32xf64>
  scf.for %b = %c0 to %n step %c1 {
    scf.parallel (%c) = (%c0) to (%c64) step (%c1) {
      scf.for %h = %c0 to %c32 step %c1 {
        scf.for %w = %c0 to %c32 step %c1 {
          %v = memref.load %x[%b, %c, %h, %w] : memref<?x64x32x32xf64>
          %a = memref.load %s[%c0, %c, %c0, %c0] : memref<1x64x1x1xf64>
          %r = arith.addf %v, %a : f64
          memref.store %r, %s[%c0, %c, %c0, %c0] : memref<1x64x1x1xf64>
        }
      }
      scf.reduce
    }
  }
  return
}

// -----

// An integer count to a scalar (the labels a cross-entropy does not ignore,
// over a dynamic batch): one block of 1024 threads and an i64 all-reduce.
// CHECK-LABEL: func.func @count_i64
// CHECK: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c1024,
// CHECK: arith.constant 0 : i64
// CHECK: gpu.all_reduce add %{{.*}} uniform {
// CHECK-NEXT: } : (i64) -> i64
// GPU-LABEL: func.func @count_i64
// GPU: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c1024, %{{.*}} = %c1, %{{.*}} = %c1)
func.func @count_i64(%labels: memref<?xi64>, %count: memref<i64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ignore = arith.constant -100 : i64
  %n = memref.dim %labels, %c0 : memref<?xi64>
  scf.for %i = %c0 to %n step %c1 {
    %l = memref.load %labels[%i] : memref<?xi64>
    %a = memref.load %count[] : memref<i64>
    %keep = arith.cmpi ne, %l, %ignore : i64
    %one = arith.extui %keep : i1 to i64
    %r = arith.addi %one, %a : i64
    memref.store %r, %count[] : memref<i64>
  }
  return
}

// -----

// Cross-entropy's sum over the targets as torch-mlir imports it: a gather
// of each target's log-probability, guarded by the frontend's index checks
// (cf.assert), summed to a scalar. The checks go into the kernel with the
// gather (amp-strip-device-asserts then drops them); the sum is one block
// of 1024 threads. (Before, the checks kept the loop on one GPU thread:
// 8192 iterations in GPT-2's training step at 8x1024 tokens.)
// CHECK-LABEL: func.func @checked_gather_sum
// CHECK: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c1024,
// CHECK: scf.for
// CHECK: cf.assert %{{.*}}, "index must be smaller than dim size"
// CHECK: memref.load %{{.*}} : memref<8192x64xf32>
// CHECK: gpu.all_reduce add %{{.*}} uniform {
// CHECK-NEXT: } : (f32) -> f32
// GPU-LABEL: func.func @checked_gather_sum
// GPU: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c1024, %{{.*}} = %c1, %{{.*}} = %c1)
// GPU-NOT: gpu.launch
func.func @checked_gather_sum(%targets: memref<8192xi64>, %logp: memref<8192x64xf32>, %sum: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c8192 = arith.constant 8192 : index
  scf.for %i = %c0 to %c8192 step %c1 {
    %t = memref.load %targets[%i] : memref<8192xi64>
    %acc = memref.load %sum[] : memref<f32>
    %j = arith.index_cast %t : i64 to index
    %in = arith.cmpi slt, %j, %c64 : index
    cf.assert %in, "index must be smaller than dim size"
    %v = memref.load %logp[%i, %j] : memref<8192x64xf32>
    %n = arith.negf %v : f32
    %r = arith.addf %n, %acc : f32
    memref.store %r, %sum[] : memref<f32>
  }
  return
}

// -----

// A batch norm's variance as the training step computes it: each element's
// square distance from its channel's mean, the mean a sum divided by the
// count (the `%n` of a dynamic batch times H*W). What does not change along
// the reduced loops (the mean's load at the block's channel, the count's
// conversion, the division) runs once per thread, above its loop; the
// element's load and what depends on it stay in the loop. Loads that are
// not invariant stay: the variance's own result (which the nest writes)
// and a buffer of a dynamic shape (%scale, which an empty reduction's block
// may not be able to read).
// CHECK-LABEL: func.func @variance_invariants
// CHECK: gpu.launch blocks(%[[B:[^,]*]], %{{.*}}, %{{.*}}) in
// CHECK: %[[MEAN:.*]] = memref.load %{{.*}}[%c0, %[[B]], %c0, %c0] : memref<1x64x1x1xf32>
// CHECK: %[[COUNT:.*]] = arith.sitofp %{{.*}} : i64 to f32
// CHECK: %[[AVG:.*]] = arith.divf %[[MEAN]], %[[COUNT]] : f32
// CHECK: scf.for
// CHECK-NOT: arith.divf
// CHECK:   memref.load %{{.*}} : memref<?x64x8x8xf16>
// CHECK:   memref.load %{{.*}} : memref<?xf32>
// CHECK:   arith.subf %{{.*}}, %[[AVG]] : f32
// CHECK: gpu.all_reduce add
// GPU-LABEL: func.func @variance_invariants
func.func @variance_invariants(%x: memref<?x64x8x8xf16>, %mean: memref<1x64x1x1xf32>, %count: i64, %scale: memref<?xf32>, %var: memref<1x64x1x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %n = memref.dim %x, %c0 : memref<?x64x8x8xf16>
  scf.parallel (%c) = (%c0) to (%c64) step (%c1) {
    scf.for %b = %c0 to %n step %c1 {
      scf.for %h = %c0 to %c8 step %c1 {
        scf.for %w = %c0 to %c8 step %c1 {
          %v = memref.load %x[%b, %c, %h, %w] : memref<?x64x8x8xf16>
          %m = memref.load %mean[%c0, %c, %c0, %c0] : memref<1x64x1x1xf32>
          %k = memref.load %scale[%c0] : memref<?xf32>
          %a = memref.load %var[%c0, %c, %c0, %c0] : memref<1x64x1x1xf32>
          %cnt = arith.sitofp %count : i64 to f32
          %avg = arith.divf %m, %cnt : f32
          %vf = arith.extf %v : f16 to f32
          %d = arith.subf %vf, %avg : f32
          %dk = arith.mulf %d, %k : f32
          %sq = arith.mulf %dk, %d : f32
          %r = arith.addf %sq, %a : f32
          memref.store %r, %var[%c0, %c, %c0, %c0] : memref<1x64x1x1xf32>
        }
      }
    }
    scf.reduce
  }
  return
}

// -----

// Two accumulations in one body (amp-fuse-sibling-reductions' generic of
// batch norm's backward sums): one block per channel, a partial per
// accumulation in the threads' loop (each element of %dy read once), an
// all-reduce each, and thread 0 folds each total into its own buffer.
// CHECK-LABEL: func.func @two_accumulations
// CHECK: gpu.launch blocks(%[[B:[^,]*]], %{{.*}}, %{{.*}}) in
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[Z2:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[P:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c256 iter_args(%[[A:.*]] = %[[Z]], %[[D:.*]] = %[[Z2]]) -> (f32, f32)
// CHECK-COUNT-2: memref.load %{{.*}} : memref<?x64x8x8xf16>
// CHECK-NOT: memref.load
// CHECK:   %[[S:.*]] = arith.addf %{{.*}}, %[[A]] : f32
// CHECK:   %[[T:.*]] = arith.addf %{{.*}}, %[[D]] : f32
// CHECK:   scf.yield %[[S]], %[[T]] : f32, f32
// CHECK: %[[SUM:.*]] = gpu.all_reduce add %[[P]]#0 uniform
// CHECK: %[[DOT:.*]] = gpu.all_reduce add %[[P]]#1 uniform
// CHECK: scf.if
// CHECK:   %[[OLD:.*]] = memref.load %[[SUMS:.*]][%[[B]]] : memref<64xf32>
// CHECK:   %[[NEW:.*]] = arith.addf %[[SUM]], %[[OLD]] : f32
// CHECK:   memref.store %[[NEW]], %[[SUMS]][%[[B]]] : memref<64xf32>
// CHECK:   %[[OLD2:.*]] = memref.load %[[DOTS:.*]][%[[B]]] : memref<64xf32>
// CHECK:   %[[NEW2:.*]] = arith.addf %[[DOT]], %[[OLD2]] : f32
// CHECK:   memref.store %[[NEW2]], %[[DOTS]][%[[B]]] : memref<64xf32>
// CHECK-NOT: scf.parallel
// GPU-LABEL: func.func @two_accumulations
// GPU: gpu.launch blocks({{.*}}) in (%{{.*}} = %c64, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1)
// GPU-NOT: gpu.launch
func.func @two_accumulations(%dy: memref<?x64x8x8xf16>, %xmu: memref<?x64x8x8xf16>, %sums: memref<64xf32>, %dots: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %n = memref.dim %dy, %c0 : memref<?x64x8x8xf16>
  scf.parallel (%c) = (%c0) to (%c64) step (%c1) {
    scf.for %b = %c0 to %n step %c1 {
      scf.for %h = %c0 to %c8 step %c1 {
        scf.for %w = %c0 to %c8 step %c1 {
          %g = memref.load %dy[%b, %c, %h, %w] : memref<?x64x8x8xf16>
          %x = memref.load %xmu[%b, %c, %h, %w] : memref<?x64x8x8xf16>
          %s = memref.load %sums[%c] : memref<64xf32>
          %d = memref.load %dots[%c] : memref<64xf32>
          %gf = arith.extf %g : f16 to f32
          %xf = arith.extf %x : f16 to f32
          %p = arith.mulf %gf, %xf : f32
          %s2 = arith.addf %gf, %s : f32
          %d2 = arith.addf %p, %d : f32
          memref.store %s2, %sums[%c] : memref<64xf32>
          memref.store %d2, %dots[%c] : memref<64xf32>
        }
      }
    }
    scf.reduce
  }
  return
}

// -----

// Accumulations that are not independent stay loops mapped as before (no
// all-reduce): the second reads the first's running value; a buffer
// accumulated twice at the same element.
// CHECK-LABEL: func.func @dependent_accumulations
// CHECK-NOT: gpu.all_reduce
// CHECK-LABEL: func.func @same_buffer_twice
// CHECK-NOT: gpu.all_reduce
// GPU-LABEL: func.func @dependent_accumulations
// GPU-LABEL: func.func @same_buffer_twice
func.func @dependent_accumulations(%x: memref<?x64xf32>, %sums: memref<64xf32>, %dots: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  scf.parallel (%c) = (%c0) to (%c64) step (%c1) {
    scf.for %b = %c0 to %n step %c1 {
      %v = memref.load %x[%b, %c] : memref<?x64xf32>
      %s = memref.load %sums[%c] : memref<64xf32>
      %running = memref.load %sums[%c] : memref<64xf32>
      %d = memref.load %dots[%c] : memref<64xf32>
      %s2 = arith.addf %v, %s : f32
      %p = arith.mulf %v, %running : f32
      %d2 = arith.addf %p, %d : f32
      memref.store %s2, %sums[%c] : memref<64xf32>
      memref.store %d2, %dots[%c] : memref<64xf32>
    }
    scf.reduce
  }
  return
}
func.func @same_buffer_twice(%x: memref<?x64xf32>, %sums: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  scf.parallel (%c) = (%c0) to (%c64) step (%c1) {
    scf.for %b = %c0 to %n step %c1 {
      %v = memref.load %x[%b, %c] : memref<?x64xf32>
      %s = memref.load %sums[%c] : memref<64xf32>
      %s2 = arith.addf %v, %s : f32
      memref.store %s2, %sums[%c] : memref<64xf32>
      %t = memref.load %sums[%c] : memref<64xf32>
      %t2 = arith.addf %v, %t : f32
      memref.store %t2, %sums[%c] : memref<64xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A reduction's own zero fill right before it (amp-prepare-contractions
// gives each one; bufferized, a loop storing the constant): the nest
// writes every element of the buffer, so thread 0 combines its total with
// the constant and stores it, and the fill loop (a kernel) is gone. Both
// accumulations of a merged nest fold their fills, the allocation between
// them notwithstanding.
// CHECK-LABEL: func.func @fills_folded
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: scf.parallel
// CHECK: gpu.launch blocks(%[[B:[^,]*]], %{{.*}}, %{{.*}}) in
// CHECK: %[[SUM:.*]] = gpu.all_reduce add
// CHECK: %[[DOT:.*]] = gpu.all_reduce add
// CHECK: scf.if
// CHECK-NOT: memref.load
// CHECK:   %[[NEW:.*]] = arith.addf %[[SUM]], %[[ZERO]] : f32
// CHECK:   memref.store %[[NEW]], %{{.*}}[%c0, %[[B]], %c0, %c0] : memref<1x64x1x1xf32>
// CHECK:   %[[NEW2:.*]] = arith.addf %[[DOT]], %[[ZERO]] : f32
// CHECK:   memref.store %[[NEW2]], %{{.*}}[%c0, %[[B]], %c0, %c0] : memref<1x64x1x1xf32>
// CHECK-NOT: scf.parallel
// GPU-LABEL: func.func @fills_folded
// GPU-COUNT-1: gpu.launch
// GPU-NOT: gpu.launch
func.func @fills_folded(%dy: memref<?x64x8x8xf16>, %xmu: memref<?x64x8x8xf16>) -> (memref<1x64x1x1xf32>, memref<1x64x1x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %dy, %c0 : memref<?x64x8x8xf16>
  %sums = memref.alloc() : memref<1x64x1x1xf32>
  scf.parallel (%i, %j, %k, %l) = (%c0, %c0, %c0, %c0) to (%c1, %c64, %c1, %c1) step (%c1, %c1, %c1, %c1) {
    memref.store %zero, %sums[%i, %j, %k, %l] : memref<1x64x1x1xf32>
    scf.reduce
  }
  %dots = memref.alloc() : memref<1x64x1x1xf32>
  scf.parallel (%i, %j, %k, %l) = (%c0, %c0, %c0, %c0) to (%c1, %c64, %c1, %c1) step (%c1, %c1, %c1, %c1) {
    memref.store %zero, %dots[%i, %j, %k, %l] : memref<1x64x1x1xf32>
    scf.reduce
  }
  scf.for %b = %c0 to %n step %c1 {
    scf.parallel (%c) = (%c0) to (%c64) step (%c1) {
      scf.for %h = %c0 to %c8 step %c1 {
        scf.for %w = %c0 to %c8 step %c1 {
          %g = memref.load %dy[%b, %c, %h, %w] : memref<?x64x8x8xf16>
          %x = memref.load %xmu[%b, %c, %h, %w] : memref<?x64x8x8xf16>
          %s = memref.load %sums[%c0, %c, %c0, %c0] : memref<1x64x1x1xf32>
          %d = memref.load %dots[%c0, %c, %c0, %c0] : memref<1x64x1x1xf32>
          %gf = arith.extf %g : f16 to f32
          %xf = arith.extf %x : f16 to f32
          %p = arith.mulf %gf, %xf : f32
          %s2 = arith.addf %gf, %s : f32
          %d2 = arith.addf %p, %d : f32
          memref.store %s2, %sums[%c0, %c, %c0, %c0] : memref<1x64x1x1xf32>
          memref.store %d2, %dots[%c0, %c, %c0, %c0] : memref<1x64x1x1xf32>
        }
      }
      scf.reduce
    }
  }
  return %sums, %dots : memref<1x64x1x1xf32>, memref<1x64x1x1xf32>
}

// -----

// Fills that do not fold: one with a store to its buffer between it and
// the nest, one of only part of the buffer (the nest reads what the rest
// holds), and one of a buffer the nest does not write whole (a fixed row).
// Each block loads its buffer's value, as before, and the fills stay.
// CHECK-LABEL: func.func @fills_kept
// CHECK: gpu.all_reduce add
// CHECK: scf.if
// CHECK-NEXT: memref.load %{{.*}} : memref<64xf32>
// CHECK: gpu.all_reduce add
// CHECK: scf.if
// CHECK-NEXT: memref.load %{{.*}} : memref<64xf32>
// CHECK: gpu.all_reduce add
// CHECK: scf.if
// CHECK-NEXT: memref.load %{{.*}} : memref<2x64xf32>
// CHECK-NOT: gpu.all_reduce
// GPU-LABEL: func.func @fills_kept
func.func @fills_kept(%x: memref<?x64xf32>, %i: index) -> (memref<64xf32>, memref<64xf32>, memref<2x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  %a = memref.alloc() : memref<64xf32>
  scf.parallel (%j) = (%c0) to (%c64) step (%c1) {
    memref.store %zero, %a[%j] : memref<64xf32>
    scf.reduce
  }
  memref.store %one, %a[%i] : memref<64xf32>
  scf.parallel (%c) = (%c0) to (%c64) step (%c1) {
    scf.for %b = %c0 to %n step %c1 {
      %v = memref.load %x[%b, %c] : memref<?x64xf32>
      %s = memref.load %a[%c] : memref<64xf32>
      %r = arith.addf %v, %s : f32
      memref.store %r, %a[%c] : memref<64xf32>
    }
    scf.reduce
  }
  %p = memref.alloc() : memref<64xf32>
  scf.parallel (%j) = (%c0) to (%c32) step (%c1) {
    memref.store %zero, %p[%j] : memref<64xf32>
    scf.reduce
  }
  scf.parallel (%c) = (%c0) to (%c64) step (%c1) {
    scf.for %b = %c0 to %n step %c1 {
      %v = memref.load %x[%b, %c] : memref<?x64xf32>
      %s = memref.load %p[%c] : memref<64xf32>
      %r = arith.addf %v, %s : f32
      memref.store %r, %p[%c] : memref<64xf32>
    }
    scf.reduce
  }
  %rows = memref.alloc() : memref<2x64xf32>
  scf.parallel (%j, %k) = (%c0, %c0) to (%c2, %c64) step (%c1, %c1) {
    memref.store %zero, %rows[%j, %k] : memref<2x64xf32>
    scf.reduce
  }
  scf.parallel (%c) = (%c0) to (%c64) step (%c1) {
    scf.for %b = %c0 to %n step %c1 {
      %v = memref.load %x[%b, %c] : memref<?x64xf32>
      %s = memref.load %rows[%c1, %c] : memref<2x64xf32>
      %r = arith.addf %v, %s : f32
      memref.store %r, %rows[%c1, %c] : memref<2x64xf32>
    }
    scf.reduce
  }
  return %a, %p, %rows : memref<64xf32>, memref<64xf32>, memref<2x64xf32>
}

// -----

// A short static row (49 elements, a block of 64 threads: at most one
// element each): nothing is hoisted, the invariant load stays in the loop
// (above it, every thread would run it, most for no element).
// CHECK-LABEL: func.func @short_row_invariants
// CHECK: gpu.launch
// CHECK-NOT: memref.load
// CHECK: scf.for
// CHECK: memref.load %{{.*}} : memref<2x64x7x7xf16>
// CHECK: memref.load %{{.*}} : memref<64xf32>
// CHECK: gpu.all_reduce add
// GPU-LABEL: func.func @short_row_invariants
func.func @short_row_invariants(%x: memref<2x64x7x7xf16>, %mean: memref<64xf32>, %var: memref<2x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%b, %c) = (%c0, %c0) to (%c2, %c64) step (%c1, %c1) {
    scf.for %h = %c0 to %c7 step %c1 {
      scf.for %w = %c0 to %c7 step %c1 {
        %v = memref.load %x[%b, %c, %h, %w] : memref<2x64x7x7xf16>
        %m = memref.load %mean[%c] : memref<64xf32>
        %a = memref.load %var[%b, %c] : memref<2x64xf32>
        %vf = arith.extf %v : f16 to f32
        %d = arith.subf %vf, %m : f32
        %sq = arith.mulf %d, %d : f32
        %r = arith.addf %sq, %a : f32
        memref.store %r, %var[%b, %c] : memref<2x64xf32>
      }
    }
    scf.reduce
  }
  return
}

// -----

// A softmax's row maxima at O2: computed in f32, stored in f16 at each
// step (`store truncf(maximumf(x, extf(acc)))`). Rounding is monotonic, so
// the block takes the maximum in f32 and thread 0 rounds the total once:
// one block per row, its threads over the row, and the -inf fill before it
// folded (thread 0 widens it). Before, the f16 store kept the nest a loop
// per thread, each thread walking a whole row.
// CHECK-LABEL: func.func @narrowed_row_max
// CHECK: %[[NINF:.*]] = arith.constant 0xFC00 : f16
// CHECK-NOT: scf.parallel
// CHECK: gpu.launch blocks(%[[B:[^,]*]], %{{.*}}, %{{.*}}) in
// CHECK: %[[IDENTITY:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[PARTIAL:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[IDENTITY]]) -> (f32)
// CHECK:   %[[X:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK:   %[[M:.*]] = arith.maximumf %[[X]], %[[ACC]] : f32
// CHECK:   scf.yield %[[M]] : f32
// CHECK: %[[TOTAL:.*]] = gpu.all_reduce maximumf %[[PARTIAL]] uniform
// CHECK: scf.if
// CHECK-NOT: memref.load
// CHECK:   %[[INIT:.*]] = arith.extf %[[NINF]] : f16 to f32
// CHECK:   %[[MAX:.*]] = arith.maximumf %[[TOTAL]], %[[INIT]] : f32
// CHECK:   %[[ROUNDED:.*]] = arith.truncf %[[MAX]] : f32 to f16
// CHECK:   memref.store %[[ROUNDED]], %{{.*}}[%[[B]]] : memref<16xf16>
// CHECK-NOT: scf.parallel
// GPU-LABEL: func.func @narrowed_row_max
// GPU-COUNT-1: gpu.launch
// GPU-NOT: gpu.launch
func.func @narrowed_row_max(%x: memref<16x1024xf16>) -> memref<16xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %ninf = arith.constant 0xFC00 : f16
  %max = memref.alloc() : memref<16xf16>
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    memref.store %ninf, %max[%i] : memref<16xf16>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    scf.for %j = %c0 to %c1024 step %c1 {
      %v = memref.load %x[%i, %j] : memref<16x1024xf16>
      %a = memref.load %max[%i] : memref<16xf16>
      %vf = arith.extf %v : f16 to f32
      %af = arith.extf %a : f16 to f32
      %m = arith.maximumf %vf, %af : f32
      %r = arith.truncf %m : f32 to f16
      memref.store %r, %max[%i] : memref<16xf16>
    }
    scf.reduce
  }
  return %max : memref<16xf16>
}

// -----

// A sum stored in f16 at each step rounds at every element: the order
// matters, so it stays a loop per thread (as before), in the order the IR
// gives.
// CHECK-LABEL: func.func @narrowed_row_sum
// CHECK-NOT: gpu.all_reduce
// CHECK: scf.for
// CHECK:   arith.addf %{{.*}}, %{{.*}} : f32
// CHECK:   arith.truncf
// CHECK-NOT: gpu.all_reduce
// GPU-LABEL: func.func @narrowed_row_sum
// GPU: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, {{.*}}) threads({{.*}}) in (%{{.*}} = %c16,
// GPU-NOT: gpu.all_reduce
func.func @narrowed_row_sum(%x: memref<16x1024xf16>, %sum: memref<16xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    scf.for %j = %c0 to %c1024 step %c1 {
      %v = memref.load %x[%i, %j] : memref<16x1024xf16>
      %a = memref.load %sum[%i] : memref<16xf16>
      %vf = arith.extf %v : f16 to f32
      %af = arith.extf %a : f16 to f32
      %s = arith.addf %vf, %af : f32
      %r = arith.truncf %s : f32 to f16
      memref.store %r, %sum[%i] : memref<16xf16>
    }
    scf.reduce
  }
  return
}
