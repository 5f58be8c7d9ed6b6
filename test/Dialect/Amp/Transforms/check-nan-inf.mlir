// amp-check-nan-inf: after each low-precision op and narrowing conversion,
// "any element not finite" (x - x != 0); the first such op in execution
// order stores its number in @amp_nan_inf_site, and the module's
// amp.nan_inf_sites names the ops with their locations.
// RUN: amp-opt %s -split-input-file --amp-o2 --amp-check-nan-inf | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-o2 --amp-check-nan-inf="all=true" | FileCheck %s --check-prefix=ALL
// RUN: amp-opt %s -split-input-file --amp-check-nan-inf | FileCheck %s --check-prefix=F32
// RUN: not amp-opt %s -split-input-file --amp-o2 --amp-check-nan-inf --amp-check-nan-inf -o /dev/null 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: error: amp-check-nan-inf: the module already has a symbol named 'amp_nan_inf_site' (was the pass run twice?)
// The instrumented module lowers to the CPU.
// RUN: amp-opt %s -split-input-file --amp-o2 --amp-check-nan-inf --lower-to-cpu -o /dev/null

// CHECK-LABEL: module attributes
// CHECK-SAME: amp.nan_inf_sites = ["'arith.truncf' at {{.*}}check-nan-inf.mlir:[[#@LINE+20]]:{{[0-9]+}}", "'math.exp' at {{.*}}check-nan-inf.mlir:[[#@LINE+21]]:{{[0-9]+}}", "'arith.addf' at {{.*}}check-nan-inf.mlir:[[#@LINE+22]]:{{[0-9]+}}"]
// CHECK: memref.global @amp_nan_inf_site : memref<i32> = dense<-1>
// CHECK-LABEL: func.func @f
// CHECK: %[[X:.*]] = arith.truncf
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[X]] : tensor<4xf16>) outs(%{{.*}} : tensor<i1>)
// CHECK:   %[[D:.*]] = arith.subf %{{.*}}, %{{.*}} : f16
// CHECK:   arith.cmpf une, %[[D]], %{{.*}} : f16
// CHECK: scf.if
// CHECK:   memref.get_global @amp_nan_inf_site
// CHECK:   arith.cmpi slt
// CHECK:   scf.if
// CHECK:     arith.constant 0 : i32
// CHECK:     memref.store
// CHECK: math.exp %{{.*}} : tensor<4xf16>
// CHECK: arith.constant 1 : i32
// CHECK: arith.addf %{{.*}} : tensor<4xf16>
// CHECK: arith.constant 2 : i32
// The final widening is not checked (it cannot overflow).
// CHECK-NOT: arith.constant 3 : i32
// CHECK: return
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = math.exp %x : tensor<4xf32>
  %s = arith.addf %e, %e : tensor<4xf32>
  return %s : tensor<4xf32>
}

// ALL-LABEL: module attributes
// ALL-SAME: amp.nan_inf_sites = ["'arith.truncf' {{.*}}", "'math.exp' {{.*}}", "'arith.addf' {{.*}}"]

// Nothing is low without AMP: only with all=true would f32 ops be checked.
// F32-LABEL: module attributes
// F32-SAME: amp.nan_inf_sites = []

// -----

// f32 ops are checked with all=true; a sum reduction's f32 result too.
// CHECK-LABEL: module attributes
// CHECK-SAME: amp.nan_inf_sites = ["'arith.truncf' {{.*}}", "'math.exp' {{.*}}"]
// ALL-LABEL: module attributes
// ALL-SAME: amp.nan_inf_sites = ["'arith.truncf' {{.*}}", "'math.exp' {{.*}}", "'math.tanh' {{.*}}"]
func.func @pinned(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = math.exp %x : tensor<4xf32>
  %t = math.tanh %e {amp.precision = "f32"} : tensor<4xf32>
  return %t : tensor<4xf32>
}
