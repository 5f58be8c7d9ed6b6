// RUN: amp-opt %s --amp-fuse-elementwise --split-input-file | FileCheck %s

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>

// A bias add, a tanh and a truncation become one generic.
// CHECK-LABEL: func.func @chain
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: math.tanh
// CHECK: arith.truncf
// CHECK-NOT: linalg.generic
func.func @chain(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf16> {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %e16 = tensor.empty() : tensor<4x8xf16>
  %2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<4x8xf32>) outs(%e16 : tensor<4x8xf16>) {
  ^bb0(%a: f32, %o: f16):
    %h = arith.truncf %a : f32 to f16
    linalg.yield %h : f16
  } -> tensor<4x8xf16>
  return %2 : tensor<4x8xf16>
}

// -----

// A named matmul fed by a reshape stays a named matmul (a library call on
// GPUs); upstream's reshape propagation would turn it into a generic.
// CHECK-LABEL: func.func @keeps_matmul
// CHECK: tensor.collapse_shape
// CHECK: linalg.matmul
func.func @keeps_matmul(%x: tensor<1x2x4xf32>, %w: tensor<8x3xf32>, %init: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %flat = tensor.collapse_shape %x [[0], [1, 2]] : tensor<1x2x4xf32> into tensor<1x8xf32>
  %r = linalg.matmul ins(%flat, %w : tensor<1x8xf32>, tensor<8x3xf32>) outs(%init : tensor<1x3xf32>) -> tensor<1x3xf32>
  return %r : tensor<1x3xf32>
}

// -----

// A producer with two users is not duplicated.
// CHECK-LABEL: func.func @shared
// CHECK-COUNT-3: linalg.generic
func.func @shared(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.exp %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%0 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.negf %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%0 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.sqrt %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %1, %2 : tensor<8xf32>, tensor<8xf32>
}
