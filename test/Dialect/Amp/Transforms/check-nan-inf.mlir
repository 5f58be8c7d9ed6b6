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
// CHECK-SAME: amp.nan_inf_sites = ["reached 'arith.truncf' at {{.*}}check-nan-inf.mlir:[[#@LINE+32]]:{{[0-9]+}} from argument #0 of @f (check_nan_inf=all checks every float op)", "was produced by 'arith.truncf' at {{.*}}check-nan-inf.mlir:[[#@LINE+32]]:{{[0-9]+}}", "was produced by 'math.exp' at {{.*}}check-nan-inf.mlir:[[#@LINE+33]]:{{[0-9]+}}", "was produced by 'arith.addf' at {{.*}}check-nan-inf.mlir:[[#@LINE+34]]:{{[0-9]+}}"]
// CHECK: memref.global @amp_nan_inf_site : memref<i32> = dense<-1>
// CHECK-LABEL: func.func @f
// Each value is tested once, where it is defined: the argument first.
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%arg0 : tensor<4xf32>) outs(%{{.*}} : tensor<i1>)
// CHECK:   %[[D:.*]] = arith.subf %{{.*}}, %{{.*}} : f32
// CHECK:   arith.cmpf une, %[[D]], %{{.*}} : f32
// CHECK: %[[IN:.*]] = tensor.extract
// CHECK: %[[X:.*]] = arith.truncf
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<4xf16>)
// CHECK: %[[OUT:.*]] = tensor.extract
// "reached": the argument holds an Inf or a NaN.
// CHECK: scf.if %[[IN]]
// CHECK:   memref.get_global @amp_nan_inf_site
// CHECK:   arith.cmpi slt
// CHECK:   scf.if
// CHECK:     arith.constant 0 : i32
// CHECK:     memref.store
// "produced": the result does and the argument does not.
// CHECK: %[[FINITE:.*]] = arith.xori %[[IN]], %true
// CHECK: %[[NEW:.*]] = arith.andi %[[OUT]], %[[FINITE]]
// CHECK: scf.if %[[NEW]]
// CHECK:     arith.constant 1 : i32
// CHECK: math.exp %[[X]] : tensor<4xf16>
// The truncation's test is not repeated for exp, its reader.
// CHECK-NOT: ins(%[[X]] : tensor<4xf16>)
// CHECK: arith.constant 2 : i32
// CHECK: arith.addf %{{.*}} : tensor<4xf16>
// CHECK: arith.constant 3 : i32
// The final widening is not checked (it cannot overflow).
// CHECK-NOT: arith.constant 4 : i32
// CHECK: return
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = math.exp %x : tensor<4xf32>
  %s = arith.addf %e, %e : tensor<4xf32>
  return %s : tensor<4xf32>
}

// ALL-LABEL: module attributes
// ALL-SAME: amp.nan_inf_sites = ["reached 'arith.truncf' {{.*}}", "was produced by 'arith.truncf' {{.*}}", "was produced by 'math.exp' {{.*}}", "was produced by 'arith.addf' {{.*}}"]

// Nothing is low without AMP: only with all=true would f32 ops be checked.
// F32-LABEL: module attributes
// F32-SAME: amp.nan_inf_sites = []

// -----

// f32 ops are checked with all=true; a sum reduction's f32 result too.
// Without all=true, an Inf that tanh would get from its f32 producer... it
// is not checked at all; with all=true, the f32 tanh is.
// CHECK-LABEL: module attributes
// CHECK-SAME: amp.nan_inf_sites = ["reached 'arith.truncf' {{.*}}", "was produced by 'arith.truncf' {{.*}}", "was produced by 'math.exp' {{.*}}"]
// ALL-LABEL: module attributes
// ALL-SAME: amp.nan_inf_sites = ["reached 'arith.truncf' {{.*}}", "was produced by 'arith.truncf' {{.*}}", "was produced by 'math.exp' {{.*}}", "was produced by 'math.tanh' {{.*}}"]
func.func @pinned(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = math.exp %x : tensor<4xf32>
  %t = math.tanh %e {amp.precision = "f32"} : tensor<4xf32>
  return %t : tensor<4xf32>
}

// -----

// Max pooling's -inf is its identity: the tensor.pad that pads with -inf and
// the linalg.fill of -inf (the pool's init) are not checked, and the pool,
// which reads them, is tested on the input the pad read, not blamed for
// their -inf. Its result is tested; so is the conversion at the entry.
// CHECK-LABEL: module attributes
// CHECK-SAME: amp.nan_inf_sites = ["reached 'arith.truncf' {{.*}}", "was produced by 'arith.truncf' {{.*}}", "was produced by 'linalg.pooling_nchw_max' {{.*}}"]
// CHECK-NOT: tensor.pad
// CHECK-LABEL: func.func @max_pool
// CHECK: tensor.pad
// CHECK: linalg.fill
// CHECK: %[[POOL:.*]] = linalg.pooling_nchw_max
// CHECK: ins(%[[POOL]] : tensor<1x2x3x3xf16>)
func.func @max_pool(%x: tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<1x2x6x6xf32> to tensor<1x2x8x8xf32>
  %init = tensor.empty() : tensor<1x2x3x3xf32>
  %fill = linalg.fill ins(%ninf : f32) outs(%init : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %pool = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%padded, %window : tensor<1x2x8x8xf32>, tensor<3x3xf32>)
      outs(%fill : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %pool : tensor<1x2x3x3xf32>
}
