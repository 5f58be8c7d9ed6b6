// RUN: amp-opt %s --pass-pipeline="builtin.module(amp-memref-to-gpu)" | FileCheck %s

// The buffer of a bufferized amp.all_reduce becomes a device buffer like any
// other; the collective itself stays, for
// amp-to-library-calls{device=true} (the GPU pipeline runs it
// next).
// CHECK-LABEL: func.func @all_reduce
// CHECK: %[[BUF:.*]] = gpu.alloc () : memref<8xf32>
// CHECK: linalg.copy ins(%{{.*}} : memref<8xf32>) outs(%[[BUF]] : memref<8xf32>)
// CHECK: amp.all_reduce_in_place mean %[[BUF]] : memref<8xf32>
// CHECK-NOT: ampGpuAllReduce
// CHECK-NOT: ampAllReduce
func.func @all_reduce(%arg0: memref<8xf32>) -> memref<8xf32> {
  %alloc = memref.alloc() : memref<8xf32>
  memref.copy %arg0, %alloc : memref<8xf32> to memref<8xf32>
  amp.all_reduce_in_place mean %alloc : memref<8xf32>
  return %alloc : memref<8xf32>
}
