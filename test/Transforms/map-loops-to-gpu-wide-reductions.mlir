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
