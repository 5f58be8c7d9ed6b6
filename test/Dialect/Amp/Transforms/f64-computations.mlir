// f64 computations between f32 values (torch-mlir computes a norm's
// variance in f64 over f32 data: an extension to f64, f64 generics, a
// truncation back to f32) are demoted to f32 before the decisions
// (f64=demote, the default), then decided like the other ops: at O2 the
// variance reads the low input and accumulates in f32. f64=keep leaves
// them as written. A computation that takes or gives f64 values (an f64
// argument, a return, a loop), or whose constant does not fit f32, stays
// f64; when it reads f32 data a remark says why.
// RUN: amp-opt %s -split-input-file --amp-o2 -verify-diagnostics | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-o2="f64=keep" 2>/dev/null | FileCheck %s --check-prefix=KEEP
// RUN: amp-opt %s -split-input-file --amp-o1 -verify-diagnostics -o /dev/null
// RUN: amp-opt %s -split-input-file --amp-o2="explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: amp-opt %s -split-input-file --amp-o2 2>/dev/null | mlir-opt -split-input-file > /dev/null

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>

// The variance of torch-mlir's layer norm, as it writes it: the mean and
// the mean of the squared differences in f64, truncated to f32.
// CHECK-LABEL: func.func @variance
// CHECK-NOT: f64
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<2x8xf16>) outs(%{{.*}} : tensor<2x1xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<2x8xf16>) outs(%{{.*}} : tensor<2x1xf32>)
// CHECK: return %{{.*}} : tensor<2x1xf32>
// KEEP-LABEL: func.func @variance
// KEEP: arith.extf %{{.*}} : f32 to f64
// KEEP: } -> tensor<2x8xf64>
// KEEP: arith.truncf %{{.*}} : f64 to f32
// EXPLAIN: f64-computations.mlir:[[# @LINE + 7]]:{{[0-9]+}}: remark: amp: f64 computation demoted to f32 ({{[0-9]+}} ops between values of at most 32 bits; f64=keep keeps it)
func.func @variance(%x: tensor<2x8xf32>) -> tensor<2x1xf32> {
  %zero = arith.constant 0.000000e+00 : f64
  %n = arith.constant 8.000000e+00 : f64
  %e = tensor.empty() : tensor<2x8xf64>
  %xd = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x8xf32>) outs(%e : tensor<2x8xf64>) {
  ^bb0(%in: f32, %out: f64):
    %w = arith.extf %in : f32 to f64
    linalg.yield %w : f64
  } -> tensor<2x8xf64>
  %e1 = tensor.empty() : tensor<2x1xf64>
  %z = linalg.fill ins(%zero : f64) outs(%e1 : tensor<2x1xf64>) -> tensor<2x1xf64>
  %s = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%xd : tensor<2x8xf64>) outs(%z : tensor<2x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %a = arith.addf %in, %out : f64
    linalg.yield %a : f64
  } -> tensor<2x1xf64>
  %mean = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<2x1xf64>) outs(%e1 : tensor<2x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %d = arith.divf %in, %n : f64
    linalg.yield %d : f64
  } -> tensor<2x1xf64>
  %dev = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%xd, %mean : tensor<2x8xf64>, tensor<2x1xf64>) outs(%e : tensor<2x8xf64>) {
  ^bb0(%in: f64, %m: f64, %out: f64):
    %d = arith.subf %in, %m : f64
    %sq = arith.mulf %d, %d : f64
    linalg.yield %sq : f64
  } -> tensor<2x8xf64>
  %ss = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%dev : tensor<2x8xf64>) outs(%z : tensor<2x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %a = arith.addf %in, %out : f64
    linalg.yield %a : f64
  } -> tensor<2x1xf64>
  %e2 = tensor.empty() : tensor<2x1xf32>
  %var = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%ss : tensor<2x1xf64>) outs(%e2 : tensor<2x1xf32>) {
  ^bb0(%in: f64, %out: f32):
    %d = arith.divf %in, %n : f64
    %t = arith.truncf %d : f64 to f32
    linalg.yield %t : f32
  } -> tensor<2x1xf32>
  return %var : tensor<2x1xf32>
}

// -----

// A scalar f64 constant that an f32 body truncates (torch-mlir's epsilon),
// and an f64 comparison of widened f32 data (the fully-masked-row test of
// scaled_dot_product_attention's decomposition): both compute in f32.
// CHECK-LABEL: func.func @scalars
// CHECK-DAG: arith.constant 9.99999974E-6 : f32
// CHECK-DAG: arith.constant 0xFF800000 : f32
// CHECK-NOT: f64
// CHECK: arith.cmpf oeq, %{{.*}}, %{{.*}} : f32
// CHECK: return
func.func @scalars(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi1>) {
  %eps = arith.constant 1.000000e-05 : f64
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.truncf %eps : f64 to f32
    %a = arith.addf %in, %t : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %eb = tensor.empty() : tensor<4xi1>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%eb : tensor<4xi1>) {
  ^bb0(%in: f32, %out: i1):
    %w = arith.extf %in : f32 to f64
    %c = arith.cmpf oeq, %w, %ninf : f64
    linalg.yield %c : i1
  } -> tensor<4xi1>
  return %y, %b : tensor<4xf32>, tensor<4xi1>
}

// -----

// The f64 value is returned: the computation stays f64.
// CHECK-LABEL: func.func @returned
// CHECK: arith.extf %{{.*}} : tensor<4xf32> to tensor<4xf64>
// CHECK: arith.mulf %{{.*}}, %{{.*}} : tensor<4xf64>
func.func @returned(%x: tensor<4xf32>) -> tensor<4xf64> {
  %w = arith.extf %x : tensor<4xf32> to tensor<4xf64>
  %y = arith.mulf %w, %w : tensor<4xf64>
  // expected-remark @+1 {{amp: f64 computation on f32 data kept in f64: 'func.return' cannot compute in f32 or takes or gives its f64 values}}
  return %y : tensor<4xf64>
}

// -----

// An f64 argument: the user's f64 data, left alone (no remark: it does not
// read f32 data).
// CHECK-LABEL: func.func @f64_argument
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<4xf64>
// CHECK: arith.truncf %{{.*}} : tensor<4xf64> to tensor<4xf32>
func.func @f64_argument(%x: tensor<4xf64>) -> tensor<4xf32> {
  %y = arith.addf %x, %x : tensor<4xf64>
  %t = arith.truncf %y : tensor<4xf64> to tensor<4xf32>
  return %t : tensor<4xf32>
}

// -----

// An f64 constant out of f32's range: demoting would change its value.
// CHECK-LABEL: func.func @constant_out_of_range
// CHECK: arith.constant 1.000000e+300 : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @constant_out_of_range(%x: f32) -> f32 {
  // expected-remark @+1 {{amp: f64 computation on f32 data kept in f64: a constant does not fit in f32}}
  %big = arith.constant 1.000000e+300 : f64
  %w = arith.extf %x : f32 to f64
  %y = arith.mulf %w, %big : f64
  %z = arith.divf %y, %big : f64
  %t = arith.truncf %z : f64 to f32
  return %t : f32
}

// -----

// An f64 value carried by a loop: the loop is not plain arithmetic.
// CHECK-LABEL: func.func @loop
// CHECK: scf.for {{.*}} -> (f64)
func.func @loop(%x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %w = arith.extf %x : f32 to f64
  // expected-remark @+1 {{amp: f64 computation on f32 data kept in f64: 'scf.for' cannot compute in f32 or takes or gives its f64 values}}
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %w) -> (f64) {
    %n = arith.addf %acc, %acc : f64
    scf.yield %n : f64
  }
  %t = arith.truncf %s : f64 to f32
  return %t : f32
}

// -----

// Widened from f16 and narrowed back to f16: demoted, the widening is to
// f32, and the multiply is an f32 op like any other; at O2 it reads the
// f16 value itself.
// CHECK-LABEL: func.func @from_f16
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %arg0, %arg0 : tensor<4xf16>
// CHECK-NEXT: return %[[Y]] : tensor<4xf16>
// KEEP-LABEL: func.func @from_f16
// KEEP: arith.extf %{{.*}} : tensor<4xf16> to tensor<4xf64>
func.func @from_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %w = arith.extf %x : tensor<4xf16> to tensor<4xf64>
  %y = arith.mulf %w, %w : tensor<4xf64>
  %t = arith.truncf %y : tensor<4xf64> to tensor<4xf16>
  return %t : tensor<4xf16>
}
