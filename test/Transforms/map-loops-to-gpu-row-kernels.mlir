// RUN: amp-opt %s --pass-pipeline="builtin.module(func.func(amp-map-loops-to-gpu{vector-bytes=0}))" --split-input-file | FileCheck %s
// RUN: amp-opt %s --pass-pipeline="builtin.module(func.func(amp-map-loops-to-gpu{vector-bytes=0 fuse-rows=false}))" --split-input-file | FileCheck %s --check-prefix=OFF
// RUN: amp-opt %s --pass-pipeline="builtin.module(func.func(amp-map-loops-to-gpu{vector-bytes=0},gpu-map-parallel-loops),convert-parallel-loops-to-gpu,func.func(amp-check-host-code),gpu-kernel-outlining)" --split-input-file | FileCheck %s --check-prefix=GPU

// A softmax over rows of 8 as the GPU pipeline bufferizes it: the row
// maximum, the sum of exponentials (reading the maximum at its row), and the
// division (reading both there). One kernel, a block per row: each phase's
// value replaces the loads of its result, the rows are read from global
// memory once and staged in workgroup memory for the later phases, and the
// maximum and the sum, read by nothing else, are no longer stored.
// CHECK-LABEL: func.func @softmax
// CHECK-NOT: memref.alloc() : memref<4xf32>
// CHECK: gpu.launch blocks(%[[ROW:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c4{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c32, %{{.*}}, %{{.*}}) workgroup(%[[ROWX:.*]] : memref<8xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[MAXP:.*]] = scf.for %[[E1:.*]] = %[[T]] to %{{.*}} step %c32
// CHECK:   %[[X1:.*]] = memref.load %{{.*}}[%[[ROW]], %[[E1]]] : memref<4x8xf32>
// CHECK:   memref.store %[[X1]], %[[ROWX]][%[[E1]]]
// CHECK: %[[MAX:.*]] = gpu.all_reduce maximumf %[[MAXP]]
// CHECK: %[[MAXV:.*]] = arith.maximumf %[[MAX]], %cst
// CHECK: %[[SUMP:.*]] = scf.for %[[E2:.*]] = %[[T]]
// CHECK:   %[[X2:.*]] = memref.load %[[ROWX]][%[[E2]]]
// CHECK:   arith.subf %[[X2]], %[[MAXV]]
// CHECK: %[[SUM:.*]] = gpu.all_reduce add %[[SUMP]]
// CHECK: %[[SUMV:.*]] = arith.addf %[[SUM]], %cst
// CHECK: scf.for %[[E3:.*]] = %[[T]]
// CHECK:   %[[X3:.*]] = memref.load %[[ROWX]][%[[E3]]]
// CHECK:   arith.subf %[[X3]], %[[MAXV]]
// CHECK:   %[[Y:.*]] = arith.divf %{{.*}}, %[[SUMV]]
// CHECK:   memref.store %[[Y]], %{{.*}}[%[[ROW]], %[[E3]]] : memref<4x8xf32>
// CHECK-NOT: memref.store
// CHECK: gpu.terminator
// CHECK-NOT: scf.parallel
// CHECK-NOT: gpu.launch
// OFF-LABEL: func.func @softmax
// OFF-COUNT-2: gpu.launch
// OFF: scf.parallel
// GPU-LABEL: gpu.module @softmax_kernel
// GPU: gpu.func @softmax_kernel({{.*}}) workgroup(%{{.*}} : memref<8xf32, #gpu.address_space<workgroup>>)
// GPU-NOT: gpu.module @softmax_kernel_0
func.func @softmax(%x: memref<4x8xf32>) -> memref<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %max = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %ninf, %max[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %x[%i, %k] : memref<4x8xf32>
      %acc = memref.load %max[%i] : memref<4xf32>
      %m = arith.maximumf %v, %acc : f32
      memref.store %m, %max[%i] : memref<4xf32>
    }
    scf.reduce
  }
  %sum = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %sum[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %x[%i, %k] : memref<4x8xf32>
      %m = memref.load %max[%i] : memref<4xf32>
      %acc = memref.load %sum[%i] : memref<4xf32>
      %d = arith.subf %v, %m : f32
      %e = math.exp %d : f32
      %s = arith.addf %e, %acc : f32
      memref.store %s, %sum[%i] : memref<4xf32>
    }
    scf.reduce
  }
  %out = memref.alloc() : memref<4x8xf32>
  scf.parallel (%i, %k) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %x[%i, %k] : memref<4x8xf32>
    %m = memref.load %max[%i] : memref<4xf32>
    %s = memref.load %sum[%i] : memref<4xf32>
    %d = arith.subf %v, %m : f32
    %e = math.exp %d : f32
    %y = arith.divf %e, %s : f32
    memref.store %y, %out[%i, %k] : memref<4x8xf32>
    scf.reduce
  }
  memref.dealloc %max : memref<4xf32>
  memref.dealloc %sum : memref<4xf32>
  return %out : memref<4x8xf32>
}

// -----

// O2's layer norm over rows of 64 f16, written in place over its input (as
// bufferization does where the input dies, here a fresh buffer: a function
// argument might alias the weights), its mean read through a view
// with a unit dimension and returned (saved for the backward): the
// normalisation reads and writes the block's own row only, after the
// barriers of both reductions, so it joins the kernel; the mean is still
// stored by thread 0. The variance is not.
// CHECK-LABEL: func.func @layer_norm_in_place
// CHECK: %[[MEAN:.*]] = memref.alloc() : memref<2x16x1xf32>
// CHECK-NOT: memref.alloc() : memref<2x16x1xf32>
// CHECK: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c64{{(_[0-9]+)?}}, {{.*}} workgroup(%[[ROWX:.*]] : memref<64xf16, #gpu.address_space<workgroup>>)
// CHECK: gpu.all_reduce add
// CHECK: scf.if
// CHECK-NEXT: memref.store %{{.*}}, %[[MEAN]][%{{.*}}, %{{.*}}, %c0{{.*}}] : memref<2x16x1xf32>
// CHECK: memref.load %[[ROWX]]
// CHECK: gpu.all_reduce add
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK: memref.load %[[ROWX]]
// CHECK: math.rsqrt
// CHECK: memref.store %{{.*}} : memref<2x16x64xf16>
// CHECK: gpu.terminator
// CHECK-NOT: scf.parallel
// CHECK: return %{{.*}}, %[[MEAN]]
func.func @layer_norm_in_place(%in: memref<2x16x64xf16>, %w: memref<64xf32>) -> (memref<2x16x64xf16>, memref<2x16x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 64.0 : f32
  %eps = arith.constant 1.0e-05 : f32
  %x = memref.alloc() : memref<2x16x64xf16>
  memref.copy %in, %x : memref<2x16x64xf16> to memref<2x16x64xf16>
  %mean = memref.alloc() : memref<2x16x1xf32>
  scf.parallel (%a, %b, %u) = (%c0, %c0, %c0) to (%c2, %c16, %c1) step (%c1, %c1, %c1) {
    memref.store %zero, %mean[%a, %b, %u] : memref<2x16x1xf32>
    scf.reduce
  }
  scf.parallel (%a, %b) = (%c0, %c0) to (%c2, %c16) step (%c1, %c1) {
    scf.for %k = %c0 to %c64 step %c1 {
      %v = memref.load %x[%a, %b, %k] : memref<2x16x64xf16>
      %acc = memref.load %mean[%a, %b, %c0] : memref<2x16x1xf32>
      %w32 = arith.extf %v : f16 to f32
      %s = arith.addf %w32, %acc : f32
      memref.store %s, %mean[%a, %b, %c0] : memref<2x16x1xf32>
    }
    scf.reduce
  }
  %var = memref.alloc() : memref<2x16xf32>
  %flat = memref.collapse_shape %mean [[0], [1, 2]] : memref<2x16x1xf32> into memref<2x16xf32>
  scf.parallel (%a, %b) = (%c0, %c0) to (%c2, %c16) step (%c1, %c1) {
    memref.store %zero, %var[%a, %b] : memref<2x16xf32>
    scf.reduce
  }
  scf.parallel (%a, %b) = (%c0, %c0) to (%c2, %c16) step (%c1, %c1) {
    scf.for %k = %c0 to %c64 step %c1 {
      %v = memref.load %x[%a, %b, %k] : memref<2x16x64xf16>
      %m = memref.load %flat[%a, %b] : memref<2x16xf32>
      %acc = memref.load %var[%a, %b] : memref<2x16xf32>
      %mu = arith.divf %m, %n : f32
      %w32 = arith.extf %v : f16 to f32
      %d = arith.subf %w32, %mu : f32
      %sq = arith.mulf %d, %d : f32
      %s = arith.addf %sq, %acc : f32
      memref.store %s, %var[%a, %b] : memref<2x16xf32>
    }
    scf.reduce
  }
  scf.parallel (%a, %b, %k) = (%c0, %c0, %c0) to (%c2, %c16, %c64) step (%c1, %c1, %c1) {
    %v = memref.load %x[%a, %b, %k] : memref<2x16x64xf16>
    %m = memref.load %mean[%a, %b, %c0] : memref<2x16x1xf32>
    %s = memref.load %var[%a, %b] : memref<2x16xf32>
    %g = memref.load %w[%k] : memref<64xf32>
    %mu = arith.divf %m, %n : f32
    %sigma2 = arith.divf %s, %n : f32
    %se = arith.addf %sigma2, %eps : f32
    %r = math.rsqrt %se : f32
    %w32 = arith.extf %v : f16 to f32
    %d = arith.subf %w32, %mu : f32
    %y = arith.mulf %d, %r : f32
    %yg = arith.mulf %y, %g : f32
    %t = arith.truncf %yg : f32 to f16
    memref.store %t, %x[%a, %b, %k] : memref<2x16x64xf16>
    scf.reduce
  }
  memref.dealloc %var : memref<2x16xf32>
  return %x, %mean : memref<2x16x64xf16>, memref<2x16x1xf32>
}

// -----

// Rows of a dynamic count (the batch): one kernel still, its grid at least
// one block (an idle one when the batch is empty), stores by thread 0 of a
// block that has a row only. A dynamic row length: nothing staged, each
// phase reads the row again (from the caches, on a GPU).
// CHECK-LABEL: func.func @dynamic_rows
// CHECK: %[[N:.*]] = memref.dim
// CHECK: %[[GRID:.*]] = arith.maxsi
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]], {{.*}} threads({{.*}}) in (%{{.*}} = %c256{{(_[0-9]+)?}}, %{{.*}}, %{{.*}}) {
// CHECK: %[[VALID:.*]] = arith.cmpi ult, %[[B]]
// CHECK: gpu.all_reduce add
// CHECK: %[[FIRST:.*]] = arith.andi %{{.*}}, %[[VALID]]
// CHECK: scf.if %[[FIRST]]
// CHECK: scf.for
// CHECK: memref.load %{{.*}} : memref<?x?xf32>
// CHECK: arith.divf
// CHECK: gpu.terminator
// CHECK-NOT: scf.parallel
// CHECK-NOT: gpu.launch
func.func @dynamic_rows(%x: memref<?x?xf32>) -> (memref<?x?xf32>, memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?x?xf32>
  %k = memref.dim %x, %c1 : memref<?x?xf32>
  %sum = memref.alloc(%n) : memref<?xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %zero, %sum[%i] : memref<?xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.for %j = %c0 to %k step %c1 {
      %v = memref.load %x[%i, %j] : memref<?x?xf32>
      %acc = memref.load %sum[%i] : memref<?xf32>
      %s = arith.addf %v, %acc : f32
      memref.store %s, %sum[%i] : memref<?xf32>
    }
    scf.reduce
  }
  %out = memref.alloc(%n, %k) : memref<?x?xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %k) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<?x?xf32>
    %s = memref.load %sum[%i] : memref<?xf32>
    %y = arith.divf %v, %s : f32
    memref.store %y, %out[%i, %j] : memref<?x?xf32>
    scf.reduce
  }
  return %out, %sum : memref<?x?xf32>, memref<?xf32>
}

// -----

// Rows of 4096 f32 (16 KiB) and a mask of the same size: the first read is
// staged, the second would pass kMaxStagedBytes (16 KiB) and is read again
// from global memory in the later phase.
// CHECK-LABEL: func.func @staging_budget
// CHECK: gpu.launch {{.*}} workgroup(%[[ROWX:.*]] : memref<4096xf32, #gpu.address_space<workgroup>>) {
// CHECK: scf.for
// CHECK:   memref.store %{{.*}}, %[[ROWX]]
// CHECK-NOT: memref.store %{{.*}}, %{{.*}} : memref<4096xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.all_reduce
// CHECK: scf.for
// CHECK:   memref.load %[[ROWX]]
// CHECK:   memref.load %{{.*}} : memref<2x4096xf32>
// CHECK: gpu.terminator
func.func @staging_budget(%x: memref<2x4096xf32>, %mask: memref<2x4096xf32>) -> memref<2x4096xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4096 = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() : memref<2xf32>
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    memref.store %zero, %sum[%i] : memref<2xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    scf.for %j = %c0 to %c4096 step %c1 {
      %v = memref.load %x[%i, %j] : memref<2x4096xf32>
      %m = memref.load %mask[%i, %j] : memref<2x4096xf32>
      %acc = memref.load %sum[%i] : memref<2xf32>
      %vm = arith.addf %v, %m : f32
      %s = arith.addf %vm, %acc : f32
      memref.store %s, %sum[%i] : memref<2xf32>
    }
    scf.reduce
  }
  %out = memref.alloc() : memref<2x4096xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c2, %c4096) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<2x4096xf32>
    %m = memref.load %mask[%i, %j] : memref<2x4096xf32>
    %s = memref.load %sum[%i] : memref<2xf32>
    %vm = arith.addf %v, %m : f32
    %y = arith.divf %vm, %s : f32
    memref.store %y, %out[%i, %j] : memref<2x4096xf32>
    scf.reduce
  }
  memref.dealloc %sum : memref<2xf32>
  return %out : memref<2x4096xf32>
}

// -----

// The second reduction reads the first's result at another row (row 0):
// the two cannot share a kernel (a block would need a row another block
// computes). The first is a kernel of its own; the second and the division
// are a row kernel.
// CHECK-LABEL: func.func @result_at_another_row
// CHECK: gpu.launch
// CHECK-NOT: workgroup(
// CHECK: gpu.all_reduce
// CHECK: gpu.terminator
// CHECK: gpu.launch {{.*}} workgroup(
// CHECK: gpu.all_reduce
// CHECK: arith.divf
// CHECK: gpu.terminator
// CHECK-NOT: scf.parallel
func.func @result_at_another_row(%x: memref<4x8xf32>) -> memref<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %a[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %x[%i, %k] : memref<4x8xf32>
      %acc = memref.load %a[%i] : memref<4xf32>
      %s = arith.addf %v, %acc : f32
      memref.store %s, %a[%i] : memref<4xf32>
    }
    scf.reduce
  }
  %b = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %b[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %x[%i, %k] : memref<4x8xf32>
      %r = memref.load %a[%c0] : memref<4xf32>
      %acc = memref.load %b[%i] : memref<4xf32>
      %d = arith.subf %v, %r : f32
      %s = arith.addf %d, %acc : f32
      memref.store %s, %b[%i] : memref<4xf32>
    }
    scf.reduce
  }
  %out = memref.alloc() : memref<4x8xf32>
  scf.parallel (%i, %k) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %x[%i, %k] : memref<4x8xf32>
    %s = memref.load %b[%i] : memref<4xf32>
    %y = arith.divf %v, %s : f32
    memref.store %y, %out[%i, %k] : memref<4x8xf32>
    scf.reduce
  }
  return %out : memref<4x8xf32>
}

// -----

// The elementwise loop writes a buffer that the reduction reads at another
// element (row 0 of it, in every row): a block would read what another
// writes. The loop stays a kernel of its own, and the reduction alone is
// not a row kernel.
// CHECK-LABEL: func.func @output_read_at_another_element
// CHECK: gpu.launch
// CHECK: gpu.all_reduce
// CHECK: gpu.terminator
// CHECK: scf.parallel
// CHECK: memref.store %{{.*}} : memref<4x8xf32>
func.func @output_read_at_another_element(%x: memref<4x8xf32>) -> memref<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %out = memref.alloc() : memref<4x8xf32>
  memref.copy %x, %out : memref<4x8xf32> to memref<4x8xf32>
  %sum = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %sum[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %out[%c0, %k] : memref<4x8xf32>
      %acc = memref.load %sum[%i] : memref<4xf32>
      %s = arith.addf %v, %acc : f32
      memref.store %s, %sum[%i] : memref<4xf32>
    }
    scf.reduce
  }
  scf.parallel (%i, %k) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %x[%i, %k] : memref<4x8xf32>
    %s = memref.load %sum[%i] : memref<4xf32>
    %y = arith.divf %v, %s : f32
    memref.store %y, %out[%i, %k] : memref<4x8xf32>
    scf.reduce
  }
  return %out : memref<4x8xf32>
}

// -----

// Reductions over different rows (the second over columns): not one row
// kernel.
// CHECK-LABEL: func.func @different_rows
// CHECK-COUNT-2: gpu.launch
// CHECK-NOT: workgroup(
func.func @different_rows(%x: memref<4x8xf32>) -> (memref<4xf32>, memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %a[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %x[%i, %k] : memref<4x8xf32>
      %acc = memref.load %a[%i] : memref<4xf32>
      %s = arith.addf %v, %acc : f32
      memref.store %s, %a[%i] : memref<4xf32>
    }
    scf.reduce
  }
  %b = memref.alloc() : memref<8xf32>
  scf.parallel (%k) = (%c0) to (%c8) step (%c1) {
    memref.store %zero, %b[%k] : memref<8xf32>
    scf.reduce
  }
  scf.parallel (%k) = (%c0) to (%c8) step (%c1) {
    scf.for %i = %c0 to %c4 step %c1 {
      %v = memref.load %x[%i, %k] : memref<4x8xf32>
      %acc = memref.load %b[%k] : memref<8xf32>
      %s = arith.addf %v, %acc : f32
      memref.store %s, %b[%k] : memref<8xf32>
    }
    scf.reduce
  }
  return %a, %b : memref<4xf32>, memref<8xf32>
}

// -----

// The second reduction starts from a buffer's values, not a constant fill
// (a running total): every thread would have to read it, so it is not a
// phase. Two kernels.
// CHECK-LABEL: func.func @not_filled
// CHECK-COUNT-2: gpu.launch
func.func @not_filled(%x: memref<4x8xf32>, %b: memref<4xf32>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %a[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %x[%i, %k] : memref<4x8xf32>
      %acc = memref.load %a[%i] : memref<4xf32>
      %s = arith.addf %v, %acc : f32
      memref.store %s, %a[%i] : memref<4xf32>
    }
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %x[%i, %k] : memref<4x8xf32>
      %r = memref.load %a[%i] : memref<4xf32>
      %acc = memref.load %b[%i] : memref<4xf32>
      %d = arith.subf %v, %r : f32
      %s = arith.addf %d, %acc : f32
      memref.store %s, %b[%i] : memref<4xf32>
    }
    scf.reduce
  }
  return %a : memref<4xf32>
}

// -----

// O2's softmax over f16 scores: the row maximum is computed in f32 and
// stored in f16 at each step (the 16-bit form of an accumulation). The
// later phases widened it again; in the kernel they use its f32 value, so
// nothing is rounded that is not stored (round once), and the maximum,
// read by nothing else, is not stored.
// CHECK-LABEL: func.func @narrowed_max
// CHECK: gpu.launch
// CHECK: %[[TOTAL:.*]] = gpu.all_reduce maximumf
// CHECK: %[[MAX:.*]] = arith.maximumf %[[TOTAL]], %{{.*}} : f32
// CHECK: scf.for
// CHECK:   arith.subf %{{.*}}, %[[MAX]] : f32
// CHECK: gpu.all_reduce add
// CHECK: scf.for
// CHECK:   arith.subf %{{.*}}, %[[MAX]] : f32
// CHECK:   memref.store %{{.*}} : memref<4x64xf16>
// CHECK-NOT: memref.store
// CHECK: gpu.terminator
func.func @narrowed_max(%x: memref<4x64xf16>) -> memref<4x64xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %ninf = arith.constant 0xFC00 : f16
  %zero = arith.constant 0.0 : f32
  %max = memref.alloc() : memref<4xf16>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %ninf, %max[%i] : memref<4xf16>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c64 step %c1 {
      %v = memref.load %x[%i, %k] : memref<4x64xf16>
      %acc = memref.load %max[%i] : memref<4xf16>
      %v32 = arith.extf %v : f16 to f32
      %acc32 = arith.extf %acc : f16 to f32
      %m = arith.maximumf %v32, %acc32 : f32
      %m16 = arith.truncf %m : f32 to f16
      memref.store %m16, %max[%i] : memref<4xf16>
    }
    scf.reduce
  }
  %sum = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %sum[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c64 step %c1 {
      %v = memref.load %x[%i, %k] : memref<4x64xf16>
      %m = memref.load %max[%i] : memref<4xf16>
      %acc = memref.load %sum[%i] : memref<4xf32>
      %v32 = arith.extf %v : f16 to f32
      %m32 = arith.extf %m : f16 to f32
      %d = arith.subf %v32, %m32 : f32
      %e = math.exp %d : f32
      %s = arith.addf %e, %acc : f32
      memref.store %s, %sum[%i] : memref<4xf32>
    }
    scf.reduce
  }
  %out = memref.alloc() : memref<4x64xf16>
  scf.parallel (%i, %k) = (%c0, %c0) to (%c4, %c64) step (%c1, %c1) {
    %v = memref.load %x[%i, %k] : memref<4x64xf16>
    %m = memref.load %max[%i] : memref<4xf16>
    %s = memref.load %sum[%i] : memref<4xf32>
    %v32 = arith.extf %v : f16 to f32
    %m32 = arith.extf %m : f16 to f32
    %d = arith.subf %v32, %m32 : f32
    %e = math.exp %d : f32
    %y = arith.divf %e, %s : f32
    %y16 = arith.truncf %y : f32 to f16
    memref.store %y16, %out[%i, %k] : memref<4x64xf16>
    scf.reduce
  }
  return %out : memref<4x64xf16>
}
