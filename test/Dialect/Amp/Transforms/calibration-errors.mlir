// A calibration file that does not fit the module, or cannot be read, and
// calibration options out of range: errors before anything changes.
// RUN: not amp-opt %s --amp-o2="calibration=%S/Inputs/ranges-short.json" 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not amp-opt %s --amp-o2="calibration=%S/Inputs/ranges-other.json" 2>&1 | FileCheck %s --check-prefix=FUNCTION
// RUN: not amp-opt %s --amp-o2="calibration=%S/Inputs/no-such-file.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not amp-opt %s --amp-o2="calibration=%S/Inputs/malformed.json" 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not amp-opt %s --amp-o2="calibration=%S/Inputs/policy.json" 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not amp-opt %s --amp-o2="calibration=%S/Inputs/ranges-negative.json" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not amp-opt %s --amp-apply-ranges 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not amp-opt %s --amp-o2="calibration-margin=0.5" 2>&1 | FileCheck %s --check-prefix=LOW-MARGIN
// RUN: not amp-opt %s --amp-o2="calibration-fallback=f16" 2>&1 | FileCheck %s --check-prefix=FALLBACK

// COUNT: [[@LINE+12]]:1: error: amp-apply-ranges: '{{.*}}ranges-short.json' holds 2 ranges, but '@forward' has 6 float tensors to range: it was recorded on another module
// COUNT-NOT: amp.applied
// FUNCTION: error: amp-apply-ranges: no function with a body named 'backward'
// MISSING: error: amp-apply-ranges: cannot read '{{.*}}no-such-file.json'
// MALFORMED: error: amp-apply-ranges: '{{.*}}malformed.json' is not JSON
// SHAPE: error: amp-apply-ranges: '{{.*}}policy.json' must hold an object with "function" (a string) and "absmax" (an array of numbers)
// NEGATIVE: error: amp-apply-ranges: '{{.*}}ranges-negative.json': absmax[1] must be a finite number at least 0
// NOFILE: error: amp-apply-ranges: no calibration file (calibration=)
// LOW-MARGIN: calibration-margin must be at least 1, not 0.5
// FALLBACK: calibration-fallback
// FALLBACK-SAME: f16
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
