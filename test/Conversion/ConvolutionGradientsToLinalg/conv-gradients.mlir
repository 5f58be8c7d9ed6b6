// RUN: amp-opt %s --amp-convolution-gradients-to-linalg --split-input-file | FileCheck %s

// The filter gradient as one generic: (f, c, r, s) parallel, (n, oy, ox)
// reductions, dy through the map, x read in the body at
// oy * 2 + r * 1 - 1 (zero outside), the product widened to f32.
// CHECK-DAG: #[[$DYMAP:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d0, d5, d6)>
// CHECK-DAG: #[[$OUTMAP:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @filter
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x8x8xf16>, %[[DY:.*]]: tensor<2x8x4x4xf16>, %[[INIT:.*]]: tensor<8x3x3x3xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[$DYMAP]], #[[$OUTMAP]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[DY]] : tensor<2x8x4x4xf16>) outs(%[[INIT]] : tensor<8x3x3x3xf32>)
// CHECK: ^bb0(%[[G:.*]]: f16, %[[ACC:.*]]: f32):
// CHECK-DAG: arith.cmpi sge
// CHECK-DAG: arith.cmpi slt
// CHECK: %[[V:.*]] = tensor.extract %[[X]][
// CHECK: %[[VW:.*]] = arith.extf %[[V]] : f16 to f32
// CHECK: arith.mulf
// CHECK: arith.select
// CHECK: arith.addf %[[ACC]]
// CHECK: return %[[R]]
func.func @filter(%x: tensor<2x3x8x8xf16>, %dy: tensor<2x8x4x4xf16>, %init: tensor<8x3x3x3xf32>) -> tensor<8x3x3x3xf32> {
  %dw = amp.conv2d_backward_filter ins(%x, %dy : tensor<2x3x8x8xf16>, tensor<2x8x4x4xf16>)
      outs(%init : tensor<8x3x3x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1]
      -> tensor<8x3x3x3xf32>
  return %dw : tensor<8x3x3x3xf32>
}

// -----

// The input gradient on buffers: (n, c, y, x) parallel, (f, r, s)
// reductions, the filter through the map, dy loaded in the body where
// y + 1 - r is a multiple of 2 and in range.
// CHECK-DAG: #[[$WMAP:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d5, d6)>
// CHECK-LABEL: func.func @data
// CHECK-SAME: (%[[DY:.*]]: memref<?x8x4x4xbf16>, %[[WT:.*]]: memref<8x3x3x3xbf16>, %[[DX:.*]]: memref<?x3x8x8xbf16>)
// CHECK: linalg.generic {indexing_maps = [#[[$WMAP]], #[[$OUTMAP2:.*]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[WT]] : memref<8x3x3x3xbf16>) outs(%[[DX]] : memref<?x3x8x8xbf16>)
// CHECK-DAG: arith.divsi
// CHECK-DAG: arith.remsi
// CHECK: memref.load %[[DY]][
// CHECK: arith.mulf %{{.*}}, %{{.*}} : bf16
// CHECK-NOT: amp.conv2d_backward_data
func.func @data(%dy: memref<?x8x4x4xbf16>, %w: memref<8x3x3x3xbf16>, %dx: memref<?x3x8x8xbf16>) {
  amp.conv2d_backward_data ins(%dy, %w : memref<?x8x4x4xbf16>, memref<8x3x3x3xbf16>)
      outs(%dx : memref<?x3x8x8xbf16>) strides = [2, 2] padding = [1, 1] dilations = [1, 1]
  return
}
