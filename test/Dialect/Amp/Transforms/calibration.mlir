// Range calibration: amp-apply-ranges attaches the maxima of a calibration
// file (amp.absmax); the precision pass keeps each op that reads or
// computes a tensor beyond the low type's largest finite value / margin out
// of it, with a remark, and drops the attributes once read.
// RUN: amp-opt %s --amp-apply-ranges=calibration=%S/Inputs/ranges-forward.json | FileCheck %s --check-prefix=APPLY
// RUN: amp-opt %s --amp-o2="calibration=%S/Inputs/ranges-forward.json" 2>&1 | FileCheck %s --check-prefix=O2
// RUN: amp-opt %s --amp-o2="calibration=%S/Inputs/ranges-forward.json calibration-fallback=bf16" 2>&1 | FileCheck %s --check-prefix=BF16
// RUN: amp-opt %s --amp-o2="calibration=%S/Inputs/ranges-bf16.json calibration-fallback=bf16" 2>&1 | FileCheck %s --check-prefix=BEYOND-BF16
// RUN: amp-opt %s --amp-o2="calibration=%S/Inputs/ranges-forward.json calibration-margin=1" 2>&1 | FileCheck %s --check-prefix=MARGIN
// RUN: amp-opt %s --amp-o2="calibration=%S/Inputs/ranges-forward.json dtype=bf16" 2>&1 | FileCheck %s --check-prefix=DTYPE-BF16
// RUN: amp-opt %s --amp-o2 | FileCheck %s --check-prefix=NONE

// The file's six values: %x, %w, the fill, the first matmul (70000: over
// f16), the second matmul and the relu.
// APPLY-LABEL: func.func @forward
// APPLY-SAME: (%{{.*}}: tensor<4x8xf32> {amp.absmax = 1.000000e+00 : f32}, %{{.*}}: tensor<8x8xf32> {amp.absmax = 2.000000e+00 : f32})
// APPLY: tensor.empty() : tensor<4x8xf32>
// APPLY-NOT: amp.absmax
// APPLY: linalg.fill {amp.absmax = array<f32: 0.000000e+00>}
// APPLY: linalg.matmul {amp.absmax = array<f32: 7.000000e+04>}
// APPLY: linalg.matmul {amp.absmax = array<f32: 3.000000e+00>}
// APPLY: linalg.generic
// APPLY-SAME: attrs = {amp.absmax = array<f32: 3.000000e+00>}

// The first matmul computes 70000 and the second reads it: both stay f32;
// the relu, on the second's result (3), goes low.
// O2: [[@LINE+38]]:8: remark: amp: kept in f32 by calibration: its result #0 reaches 7e+04, beyond f16's largest finite value 65504 / margin 4
// O2: [[@LINE+38]]:8: remark: amp: kept in f32 by calibration: its operand #0 reaches 7e+04, beyond f16's largest finite value 65504 / margin 4
// O2-NOT: remark
// O2-LABEL: func.func @forward
// O2-NOT: amp.absmax
// O2: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x8xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// O2: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x8xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// O2: linalg.generic
// O2-SAME: ins(%{{.*}} : tensor<4x8xf16>)

// BF16: remark: amp: kept in bf16 by calibration: its result #0 reaches 7e+04, beyond f16's largest finite value 65504 / margin 4
// BF16: remark: amp: kept in bf16 by calibration: its operand #0 reaches 7e+04
// BF16-LABEL: func.func @forward
// BF16: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xbf16>, tensor<8x8xbf16>) outs(%{{.*}} : tensor<4x8xf32>)
// BF16: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xbf16>, tensor<8x8xbf16>) outs(%{{.*}} : tensor<4x8xf32>)

// 1e38 is beyond bf16's range / 4 as well: that op stays f32.
// BEYOND-BF16: remark: amp: kept in bf16 by calibration: its result #0 reaches 7e+04
// BEYOND-BF16: remark: amp: kept in f32 by calibration: its result #0 reaches 1e+38, beyond f16's largest finite value 65504 / margin 4
// BEYOND-BF16: remark: amp: kept in f32 by calibration: its operand #0 reaches 1e+38

// With margin 1, 70000 is still beyond 65504.
// MARGIN: remark: amp: kept in f32 by calibration: its result #0 reaches 7e+04, beyond f16's largest finite value 65504 / margin 1

// bf16 holds 70000: nothing is kept.
// DTYPE-BF16-NOT: remark
// DTYPE-BF16-LABEL: func.func @forward
// DTYPE-BF16: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xbf16>, tensor<8x8xbf16>)

// Without calibration, both matmuls go low.
// NONE-LABEL: func.func @forward
// NONE: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<8x8xf16>)
// NONE: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<8x8xf16>)
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @forward(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.matmul ins(%m, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %relu = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c0 = arith.constant 0.0 : f32
    %v = arith.maximumf %in, %c0 : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %relu : tensor<4x8xf32>
}
