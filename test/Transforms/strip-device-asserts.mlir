// RUN: amp-opt %s -split-input-file --amp-strip-device-asserts -verify-diagnostics | FileCheck %s

// An assert in a loop that becomes a kernel is erased, with a remark; one
// outside any parallel loop stays.
// CHECK-LABEL: func.func @gather
// CHECK: cf.assert %{{.*}}, "host check"
// CHECK: scf.parallel
// CHECK-NOT: cf.assert
// CHECK: memref.load
func.func @gather(%idx: memref<64xi64>, %t: memref<10xf32>, %out: memref<64xf32>, %ok: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %c64 = arith.constant 64 : index
  cf.assert %ok, "host check"
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %idx[%i] : memref<64xi64>
    %j = arith.index_cast %v : i64 to index
    %in = arith.cmpi slt, %j, %c10 : index
    // expected-remark @+1 {{amp: the GPU kernel drops this check ("index must be smaller than dim size"): the device does not report it; the CPU pipeline and the GPU simulator do}}
    cf.assert %in, "index must be smaller than dim size"
    %x = memref.load %t[%j] : memref<10xf32>
    memref.store %x, %out[%i] : memref<64xf32>
    scf.reduce
  }
  return
}

// -----

// In a reduction amp-map-loops-to-gpu mapped to a block: erased, with a
// remark.
// CHECK-LABEL: func.func @in_launch
// CHECK: gpu.launch
// CHECK-NOT: cf.assert
// CHECK: gpu.terminator
func.func @in_launch(%t: memref<8xi64>, %ok: i1) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-remark @+1 {{amp: the GPU kernel drops this check ("index must be larger or equal to 0")}}
    cf.assert %ok, "index must be larger or equal to 0"
    gpu.terminator
  }
  return
}
