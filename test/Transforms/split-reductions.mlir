// RUN: amp-opt %s --amp-split-reductions --split-input-file -verify-diagnostics | FileCheck %s
// RUN: amp-opt %s --amp-split-reductions=ratio=4 --split-input-file | FileCheck %s --check-prefix=FOUR
// RUN: amp-opt %s --amp-split-reductions=ratio=0 --split-input-file | FileCheck %s --check-prefix=OFF
// RUN: amp-opt %s --lower-to-cpu=split-reductions=0 --split-input-file -o /dev/null
// RUN: amp-opt %s --lower-to-cpu --split-input-file -o /dev/null

// An f32 sum along the innermost dimension: 512 = 64 steps of 8 lanes, the
// lanes (innermost, parallel) summed by a second reduction.
// CHECK-LABEL: func.func @sum_f32
// CHECK: %[[X:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [16, 64, 8]
// CHECK: %[[LANES:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<16x8xf32>)
// CHECK: %[[P:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]] : tensor<16x64x8xf32>) outs(%[[LANES]] : tensor<16x8xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[P]] : tensor<16x8xf32>) outs(%{{.*}} : tensor<16xf32>)
// CHECK: arith.addf
// FOUR-LABEL: func.func @sum_f32
// FOUR: output_shape [16, 128, 4]
// OFF-LABEL: func.func @sum_f32
// OFF-NOT: tensor.expand_shape
// OFF: iterator_types = ["parallel", "reduction"]
// OFF-NOT: linalg.generic
// OFF: return
func.func @sum_f32(%x: tensor<16x512xf32>) -> tensor<16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<16x512xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

// A max into f16 whose body rounds the accumulator at every step (as
// amp-round-once leaves it) accumulates in f32 from the extended init, and
// is rounded once afterwards.
// CHECK-LABEL: func.func @max_f16
// CHECK: %[[NEG:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[NEG]] : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%{{.*}} : tensor<4x32x8xf16>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: arith.truncf
// CHECK: linalg.yield %{{.*}} : f32
// CHECK: %[[WIDE:.*]] = linalg.generic {{.*}} outs(%[[INIT]] : tensor<4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[WIDE]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @max_f16(%x: tensor<4x256xf16>) -> tensor<4xf16> {
  %ninf = arith.constant 0xFC00 : f16
  %e = tensor.empty() : tensor<4xf16>
  %init = linalg.fill ins(%ninf : f16) outs(%e : tensor<4xf16>) -> tensor<4xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x256xf16>) outs(%init : tensor<4xf16>) {
  ^bb0(%in: f16, %acc: f16):
    %a = arith.extf %in : f16 to f32
    %b = arith.extf %acc : f16 to f32
    %m = arith.maximumf %a, %b : f32
    %t = arith.truncf %m : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4xf16>
  return %r : tensor<4xf16>
}

// -----

// A softmax's sum as torch-mlir writes it (keepdim: the result indexed by a
// constant 0) with a broadcast mask, exp fused: the unit dimensions are
// dropped, then the sum is split.
// CHECK-LABEL: func.func @keepdim_broadcast
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: tensor.expand_shape {{.*}} into tensor<1x2x16x1xf32>
func.func @keepdim_broadcast(%x: tensor<1x2x16x64xf32>, %mask: tensor<1x1x16x64xf32>) -> tensor<1x2x16x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x16x1xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x16x1xf32>) -> tensor<1x2x16x1xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %mask : tensor<1x2x16x64xf32>, tensor<1x1x16x64xf32>) outs(%init : tensor<1x2x16x1xf32>) {
  ^bb0(%in: f32, %m: f32, %acc: f32):
    %a = arith.addf %in, %m : f32
    %x2 = math.exp %a : f32
    %s = arith.addf %x2, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1x2x16x1xf32>
  return %r : tensor<1x2x16x1xf32>
}

// -----

// Left as they are: a size that is not a multiple of the ratio, a
// dimension shorter than two steps, a reduction that is not innermost, a
// dynamic size, linalg.index (the split would renumber the iterations).
// CHECK-LABEL: func.func @kept
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @kept(%a: tensor<4x100xf32>, %b: tensor<4x8xf32>, %c: tensor<64x4xf32>, %d: tensor<4x?xf32>, %i: tensor<4x64xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<4x100xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %r1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%b : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %r2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%c : tensor<64x4xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %r3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%d : tensor<4x?xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %r4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%i : tensor<4x64xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %j = linalg.index 1 : index
    %k = arith.index_cast %j : index to i32
    %f = arith.sitofp %k : i32 to f32
    %p = arith.mulf %in, %f : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r0, %r1, %r2, %r3, %r4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
