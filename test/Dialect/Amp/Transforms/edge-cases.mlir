// Unusual but valid inputs stay valid: unranked tensors (left alone: no
// arith.extf/truncf takes them), vectors, declarations, dynamic shapes,
// scf.forall, multi-result generics with linalg.index, tosa.cond_if.
// RUN: amp-opt %s -split-input-file --amp-o2 | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-o1 -o /dev/null

// CHECK-LABEL: func.func private @decl(tensor<4xf32>) -> tensor<4xf32>
func.func private @decl(tensor<4xf32>) -> tensor<4xf32>

// -----

// CHECK-LABEL: func.func @unranked
// CHECK: math.tanh %{{.*}} : tensor<*xf32>
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<*xf32>
func.func @unranked(%a: tensor<*xf32>) -> tensor<*xf32> {
  %0 = math.tanh %a : tensor<*xf32>
  %1 = arith.addf %0, %a : tensor<*xf32>
  return %1 : tensor<*xf32>
}

// -----

// CHECK-LABEL: func.func @vectors
// CHECK: math.exp %{{.*}} : vector<8xf16>
func.func @vectors(%a: vector<8xf32>) -> vector<8xf32> {
  %0 = math.exp %a : vector<8xf32>
  return %0 : vector<8xf32>
}

// -----

// CHECK-LABEL: func.func @dynamic
// CHECK: tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x4xf16>, tensor<4x?xf16>) outs(%{{.*}} : tensor<?x?xf32>)
func.func @dynamic(%a: tensor<?x4xf32>, %b: tensor<4x?xf32>, %n: index, %m: index) -> tensor<?x?xf32> {
  %e = tensor.empty(%n, %m) : tensor<?x?xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<?x4xf32>, tensor<4x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %mm : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func.func @forall
// CHECK: scf.forall {{.*}} shared_outs(%{{.*}} = %{{.*}}) -> (tensor<8xf32>)
// CHECK: math.tanh %{{.*}} : tensor<1xf16>
// CHECK: tensor.parallel_insert_slice %{{.*}} into %{{.*}} : tensor<1xf32> into tensor<8xf32>
func.func @forall(%a: tensor<8xf32>) -> tensor<8xf32> {
  %r = scf.forall (%i) in (8) shared_outs(%o = %a) -> tensor<8xf32> {
    %s = tensor.extract_slice %a[%i] [1] [1] : tensor<8xf32> to tensor<1xf32>
    %t = math.tanh %s : tensor<1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %t into %o[%i] [1] [1] : tensor<1xf32> into tensor<8xf32>
    }
  }
  return %r : tensor<8xf32>
}

// -----

#id = affine_map<(i) -> (i)>
// Both results are returned in f32: their conversions are fused into the
// body (round to f16, store f32).
// CHECK-LABEL: func.func @multi_result
// CHECK: %[[R:.*]]:2 = linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8xf32>)
// CHECK: linalg.index 0 : index
// CHECK: %[[Y:.*]] = arith.truncf %{{.*}} : f32 to f16
// CHECK: %[[Z:.*]] = arith.truncf %{{.*}} : f32 to f16
// CHECK-DAG: %[[ZW:.*]] = arith.extf %[[Z]] : f16 to f32
// CHECK-DAG: %[[YW:.*]] = arith.extf %[[Y]] : f16 to f32
// CHECK: linalg.yield %[[YW]], %[[ZW]] : f32, f32
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @multi_result(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %r:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%e, %e : tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%x: f32, %o1: f32, %o2: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %y = arith.addf %x, %fi : f32
    %z = arith.mulf %x, %x : f32
    linalg.yield %y, %z : f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>)
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @tosa_if
// CHECK: tosa.cond_if %{{.*}} (%{{.*}} = %{{.*}}) : tensor<i1> (tensor<4xf32>) -> tensor<4xf32>
// CHECK: tosa.tanh %{{.*}} : (tensor<4xf16>) -> tensor<4xf16>
// CHECK: tosa.yield %{{.*}} : tensor<4xf32>
func.func @tosa_if(%c: tensor<i1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  %r = tosa.cond_if %c (%arg = %a) : tensor<i1> (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %t = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
    tosa.yield %t : tensor<4xf32>
  } else {
  ^bb0(%x: tensor<4xf32>):
    tosa.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
