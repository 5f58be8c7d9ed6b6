// Reduction epilogues on the GPU: the elementwise loop that is the only
// reader of a reduction's f32 result (a mean's division and its narrowing to
// f16) runs in the reduction's kernel, on thread 0's total, and stores the
// low type; the f32 result, its initialisation and the second kernel go.
// RUN: amp-opt %s --pass-pipeline="builtin.module(func.func(amp-map-loops-to-gpu{vector-bytes=0}))" --split-input-file | FileCheck %s
// RUN: amp-opt %s --pass-pipeline="builtin.module(func.func(amp-map-loops-to-gpu{vector-bytes=0 fuse-reduction-epilogues=false}))" --split-input-file | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: func.func @mean
// CHECK-NOT: memref<2x64xf32>
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<2x64xf16>
// CHECK: gpu.launch
// CHECK: gpu.all_reduce add
// CHECK: scf.if
// CHECK: %[[SUM:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: %[[MEAN:.*]] = arith.divf %[[SUM]], %{{.*}} : f32
// CHECK: %[[LOW:.*]] = arith.truncf %[[MEAN]] : f32 to f16
// CHECK: memref.store %[[LOW]], %[[OUT]]
// CHECK: gpu.terminator
// CHECK-NOT: scf.parallel
// CHECK: return %[[OUT]]
// OFF-LABEL: func.func @mean
// OFF: memref.alloc() : memref<2x64xf32>
// OFF: gpu.launch
// OFF: memref.store %{{.*}} : memref<2x64xf32>
// OFF: scf.parallel
// OFF: arith.truncf
func.func @mean(%x: memref<2x64x49xf16>) -> memref<2x64xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c49 = arith.constant 49 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 49.0 : f32
  %sum = memref.alloc() : memref<2x64xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c2, %c64) step (%c1, %c1) {
    memref.store %zero, %sum[%i, %j] : memref<2x64xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c2, %c64) step (%c1, %c1) {
    scf.for %k = %c0 to %c49 step %c1 {
      %v = memref.load %x[%i, %j, %k] : memref<2x64x49xf16>
      %acc = memref.load %sum[%i, %j] : memref<2x64xf32>
      %w = arith.extf %v : f16 to f32
      %s = arith.addf %w, %acc : f32
      memref.store %s, %sum[%i, %j] : memref<2x64xf32>
    }
    scf.reduce
  }
  %out = memref.alloc() : memref<2x64xf16>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c2, %c64) step (%c1, %c1) {
    %s = memref.load %sum[%i, %j] : memref<2x64xf32>
    %m = arith.divf %s, %n : f32
    %t = arith.truncf %m : f32 to f16
    memref.store %t, %out[%i, %j] : memref<2x64xf16>
    scf.reduce
  }
  memref.dealloc %sum : memref<2x64xf32>
  return %out : memref<2x64xf16>
}

// -----

// The result is also returned: not an epilogue, it is stored whole.
// CHECK-LABEL: func.func @result_returned
// CHECK: memref.store %{{.*}} : memref<4xf32>
// CHECK: scf.parallel
// CHECK: arith.truncf
func.func @result_returned(%x: memref<4x8xf32>) -> (memref<4xf32>, memref<4xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %sum[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %x[%i, %k] : memref<4x8xf32>
      %acc = memref.load %sum[%i] : memref<4xf32>
      %s = arith.addf %v, %acc : f32
      memref.store %s, %sum[%i] : memref<4xf32>
    }
    scf.reduce
  }
  %out = memref.alloc() : memref<4xf16>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %s = memref.load %sum[%i] : memref<4xf32>
    %t = arith.truncf %s : f32 to f16
    memref.store %t, %out[%i] : memref<4xf16>
    scf.reduce
  }
  return %sum, %out : memref<4xf32>, memref<4xf16>
}

// -----

// Read through a broadcast (a softmax's division by its row sum): each
// total is read by many threads, so the loop is no epilogue (thread 0 does
// not run it). It is the second phase of a row kernel instead
// (map-loops-to-gpu-row-kernels.mlir): the block's threads divide the row.
// CHECK-LABEL: func.func @broadcast_reader
// CHECK: gpu.launch
// CHECK: %[[TOTAL:.*]] = gpu.all_reduce add
// CHECK: %[[SUM:.*]] = arith.addf %[[TOTAL]], %cst
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK: arith.divf %{{.*}}, %[[SUM]]
// CHECK: gpu.terminator
// CHECK-NOT: scf.parallel
func.func @broadcast_reader(%x: memref<4x8xf32>) -> memref<4x8xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %sum[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %x[%i, %k] : memref<4x8xf32>
      %acc = memref.load %sum[%i] : memref<4xf32>
      %s = arith.addf %v, %acc : f32
      memref.store %s, %sum[%i] : memref<4xf32>
    }
    scf.reduce
  }
  %out = memref.alloc() : memref<4x8xf16>
  scf.parallel (%i, %k) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %x[%i, %k] : memref<4x8xf32>
    %s = memref.load %sum[%i] : memref<4xf32>
    %d = arith.divf %v, %s : f32
    %t = arith.truncf %d : f32 to f16
    memref.store %t, %out[%i, %k] : memref<4x8xf16>
    scf.reduce
  }
  memref.dealloc %sum : memref<4xf32>
  return %out : memref<4x8xf16>
}

// -----

// A max whose initialisation is not one constant (a bias, read from a
// buffer): the epilogue still runs in the kernel, which starts from the
// initialised buffer instead of a constant.
// CHECK-LABEL: func.func @max_with_init
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<4xf32>
// CHECK: gpu.launch
// CHECK: gpu.all_reduce maxnumf
// CHECK: scf.if
// CHECK: %[[INIT:.*]] = memref.load %[[ACC]]
// CHECK: arith.maxnumf %[[INIT]], %{{.*}} : f32
// CHECK: arith.truncf
// CHECK-NOT: memref.store %{{.*}}, %[[ACC]][
// CHECK: gpu.terminator
func.func @max_with_init(%x: memref<4x8xf32>, %b: memref<4xf32>) -> memref<4xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %acc = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %b[%i] : memref<4xf32>
    memref.store %v, %acc[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %x[%i, %k] : memref<4x8xf32>
      %a = memref.load %acc[%i] : memref<4xf32>
      %m = arith.maxnumf %a, %v : f32
      memref.store %m, %acc[%i] : memref<4xf32>
    }
    scf.reduce
  }
  %out = memref.alloc() : memref<4xf16>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %s = memref.load %acc[%i] : memref<4xf32>
    %t = arith.truncf %s : f32 to f16
    memref.store %t, %out[%i] : memref<4xf16>
    scf.reduce
  }
  memref.dealloc %acc : memref<4xf32>
  return %out : memref<4xf16>
}
