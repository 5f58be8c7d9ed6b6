// Values a linalg body captures from above (tables read with tensor.extract:
// gathers, embeddings, RoPE) whose producer went low: the body reads the
// low-precision tensor and widens the element, and the module verifies.
// RUN: amp-opt %s -split-input-file -allow-unregistered-dialect --amp-o2 | FileCheck %s
// RUN: amp-opt %s -split-input-file -allow-unregistered-dialect --amp-o1 | FileCheck %s --check-prefix=O1
// A second run on the output, without the amp.applied marker, changes
// nothing: the rewrite of linalg bodies is a fixed point.
// RUN: amp-opt %s -split-input-file -allow-unregistered-dialect --amp-o2 | sed -e 's/ attributes {amp.applied = "O2:f16", amp.rounding = "once"}//' > %t.1.mlir
// RUN: amp-opt %t.1.mlir -split-input-file -allow-unregistered-dialect --amp-o2 | sed -e 's/ attributes {amp.applied = "O2:f16", amp.rounding = "once"}//' > %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @rope_table
// CHECK:       %[[T:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<16x8xf16>)
// CHECK:       linalg.generic
// CHECK:         %[[E:.*]] = tensor.extract %[[T]][%{{.*}}, %{{.*}}] : tensor<16x8xf16>
// CHECK-NEXT:    %[[W:.*]] = arith.extf %[[E]] : f16 to f32
// CHECK-NEXT:    arith.mulf %{{.*}}, %[[W]] : f32
// O1-LABEL: func.func @rope_table
// O1:       tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<16x8xf32>
func.func @rope_table(%x: tensor<4x8xf32>, %table: tensor<16x8xf32>,
                      %pos: tensor<4xi64>) -> tensor<4x8xf32> {
  %e0 = tensor.empty() : tensor<16x8xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%table : tensor<16x8xf32>) outs(%e0 : tensor<16x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.sin %a : f32
    linalg.yield %s : f32
  } -> tensor<16x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %pos : tensor<4x8xf32>, tensor<4xi64>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %p: i64, %o: f32):
    %i = arith.index_cast %p : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %t[%i, %j] : tensor<16x8xf32>
    %m = arith.mulf %a, %v : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A captured value used by another op of the body than tensor.extract gets
// it back in its original type, converted once outside the body.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @captured_scalar_source
// CHECK:       %[[A:.*]] = arith.addf %{{.*}}, %{{.*}} : tensor<4xf16>
// CHECK:       %[[W:.*]] = arith.extf %[[A]] : tensor<4xf16> to tensor<4xf32>
// CHECK:       linalg.generic
// CHECK:         "test.reads"(%[[W]])
func.func @captured_scalar_source(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = arith.addf %x, %x : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%b: f32, %o: f32):
    %c = "test.reads"(%a) : (tensor<4xf32>) -> f32
    %m = arith.mulf %b, %c : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A body that already rounds an f32 operand to f16 (what an earlier AMP run
// may leave): going low makes the operand f16, and the rounding is the
// operand itself, with no extension added twice.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @rounds_in_body
// CHECK:       linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<4x8xf16>)
// CHECK-NEXT:  ^bb0(%[[A:.*]]: f16, %[[B:.*]]: f16, %{{.*}}: f32):
// CHECK-NEXT:    %[[AW:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK-NEXT:    %[[BW:.*]] = arith.extf %[[B]] : f16 to f32
// CHECK-NEXT:    arith.mulf %[[AW]], %[[BW]] : f32
// CHECK-NOT:     arith.extf %[[A]]
// CHECK:         linalg.yield
func.func @rounds_in_body(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.truncf %a : f32 to f16
    %w = arith.extf %t : f16 to f32
    %m = arith.mulf %w, %b : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
