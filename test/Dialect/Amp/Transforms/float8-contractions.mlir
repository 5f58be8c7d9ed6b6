// amp-float8-contractions: each operand of a matmul or batch matmul gets
// amax -> scale -> amp.quantize, and the contraction becomes
// amp.scaled_matmul of the FP8 tensors, scaled by 1 / (scale_a * scale_b). min-size and the forms it does not take leave a
// contraction as it is, with a remark; bad options are errors.
// RUN: amp-opt %s -split-input-file --amp-float8-contractions | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-float8-contractions="format=e5m2 margin=2" | FileCheck %s --check-prefix=E5M2
// RUN: amp-opt %s -split-input-file --amp-float8-contractions="min-size=1000" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: amp-opt %s -split-input-file --amp-float8-contractions -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: not amp-opt %s --amp-float8-contractions=format=e3m4 -o /dev/null 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not amp-opt %s --amp-float8-contractions=margin=-1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=MARGIN

// FORMAT: error: amp-float8-contractions: format must be e4m3, hybrid or e5m2, got 'e3m4'
// MARGIN: error: amp-float8-contractions: margin must be in [0, 30], got -1

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x16xbf16>)
// CHECK: %[[AX:.*]] = amp.amax %[[X]] : tensor<4x8xf32> -> tensor<f32>
// The scales are one-element loops (a one-thread kernel on the GPU).
// CHECK: %[[AX1:.*]] = tensor.expand_shape %[[AX]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK: %[[SX1:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%[[AX1]] : tensor<1xf32>)
// CHECK: arith.constant 4.480000e+02 : f32
// CHECK: arith.divf
// CHECK: arith.select
// CHECK: %[[SX:.*]] = tensor.collapse_shape %[[SX1]] [] : tensor<1xf32> into tensor<f32>
// CHECK: %[[QX:.*]] = amp.quantize %[[X]] by %[[SX]] : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf8E4M3FN>
// CHECK: %[[AW:.*]] = amp.amax %[[W]] : tensor<8x16xbf16> -> tensor<f32>
// CHECK: %[[SW:.*]] = tensor.collapse_shape
// CHECK: %[[QW:.*]] = amp.quantize %[[W]] by %[[SW]] : tensor<8x16xbf16>, tensor<f32> -> tensor<8x16xf8E4M3FN>
// B in FP8, stored n x k (cuBLASLt's TN layout), read through its map.
// CHECK: %[[QWT:.*]] = linalg.transpose ins(%[[QW]] : tensor<8x16xf8E4M3FN>) outs(%{{.*}} : tensor<16x8xf8E4M3FN>) permutation = [1, 0]
// The factor 1 / (scale_a * scale_b) before the contraction, its scale (a
// library call's); its destination is only written (no zero fill).
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1xf32>, tensor<1xf32>)
// CHECK: arith.mulf
// CHECK: arith.divf
// CHECK: %[[INV:.*]] = tensor.collapse_shape
// CHECK-NOT: linalg.fill
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK: %[[Y:.*]] = amp.scaled_matmul ins(%[[QX]], %[[QWT]] : tensor<4x8xf8E4M3FN>, tensor<16x8xf8E4M3FN>) scale(%[[INV]] : tensor<f32>) outs(%[[E]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: return %[[Y]]
// E5M2-LABEL: func.func @matmul
// E5M2: arith.constant 1.433600e+04 : f32
// E5M2: amp.quantize {{.*}} -> tensor<4x8xf8E5M2>
// E5M2: amp.scaled_matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf8E5M2>, tensor<16x8xf8E5M2>)
// SMALL: remark: amp: contraction kept out of FP8: 512 multiply-adds, below min-size 1000
func.func @matmul(%x: tensor<4x8xf32>, %w: tensor<8x16xbf16>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xbf16>)
                     outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Dynamic batch: the epilogue's result takes the matmul's sizes, and
// min-size does not apply (the sizes are not known).
// CHECK-LABEL: func.func @batch_matmul
// CHECK: amp.quantize {{.*}} -> tensor<?x4x8xf8E4M3FN>
// CHECK: amp.quantize {{.*}} -> tensor<?x8x16xf8E4M3FN>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<?x8x16xf8E4M3FN>) outs(%{{.*}} : tensor<?x16x8xf8E4M3FN>) permutation = [0, 2, 1]
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x4x16xf32>
// CHECK: %[[P:.*]] = amp.scaled_matmul ins(%{{.*}}, %{{.*}} : tensor<?x4x8xf8E4M3FN>, tensor<?x16x8xf8E4M3FN>) scale(%{{.*}} : tensor<f32>) outs(%[[E]] : tensor<?x4x16xf32>)
// The accumulated values are added after (beta = 1 applies to them, not
// to the scales).
// CHECK: tensor.empty(%{{.*}}) : tensor<?x4x16xf32>
// CHECK: linalg.generic {{.*}} ins(%[[P]], %{{.*}} : tensor<?x4x16xf32>, tensor<?x4x16xf32>)
// CHECK: arith.addf
// SMALL-NOT: remark: amp: contraction kept out of FP8
func.func @batch_matmul(%x: tensor<?x4x8xf32>, %w: tensor<?x8x16xf32>,
                        %acc: tensor<?x4x16xf32>) -> tensor<?x4x16xf32> {
  %y = linalg.batch_matmul ins(%x, %w : tensor<?x4x8xf32>, tensor<?x8x16xf32>)
                           outs(%acc : tensor<?x4x16xf32>) -> tensor<?x4x16xf32>
  return %y : tensor<?x4x16xf32>
}

// -----

// f64 operands are not FP8 material: the matmul stays, with a remark.
// REMARK: remark: amp: contraction left as it is: FP8 operands need f32, f16 or bf16 tensors and an f32 accumulator
// CHECK-LABEL: func.func @f64
// CHECK-NOT: amp.quantize
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf64>, tensor<8x16xf64>)
func.func @f64(%x: tensor<4x8xf64>, %w: tensor<8x16xf64>, %acc: tensor<4x16xf64>) -> tensor<4x16xf64> {
  %y = linalg.matmul ins(%x, %w : tensor<4x8xf64>, tensor<8x16xf64>)
                     outs(%acc : tensor<4x16xf64>) -> tensor<4x16xf64>
  return %y : tensor<4x16xf64>
}

// -----

// An operand that an elementwise generic computes in f32 and stores in
// bf16 for the contraction alone: the generic yields the f32 value, which
// FP8 rounds once. The same operand with a second reader keeps its bf16.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @widened_producer
// CHECK: %[[P:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x8xf32>)
// CHECK-NOT: arith.truncf
// CHECK: linalg.yield %{{.*}} : f32
// CHECK: amp.quantize %[[P]] by %{{.*}} : tensor<4x8xf32>, tensor<f32>
// CHECK-LABEL: func.func @shared_producer
// CHECK: %[[S:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x8xbf16>)
// CHECK: arith.truncf
// CHECK: amp.quantize %[[S]] by %{{.*}} : tensor<4x8xbf16>, tensor<f32>
// CHECK: return {{.*}}, %[[S]]
// Kept out by min-size, the producer keeps its bf16 too.
// SMALL: remark: amp: contraction kept out of FP8: 512 multiply-adds
// SMALL: remark: amp: contraction kept out of FP8: 512 multiply-adds
func.func @widened_producer(%x: tensor<4x8xbf16>, %w: tensor<8x16xf32>, %acc: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x8xbf16>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xbf16>) outs(%e : tensor<4x8xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %w32 = arith.extf %in : bf16 to f32
    %t = math.tanh %w32 : f32
    %n = arith.truncf %t : f32 to bf16
    linalg.yield %n : bf16
  } -> tensor<4x8xbf16>
  %y = linalg.matmul ins(%g, %w : tensor<4x8xbf16>, tensor<8x16xf32>)
                     outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
func.func @shared_producer(%x: tensor<4x8xbf16>, %w: tensor<8x16xf32>, %acc: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x8xbf16>) {
  %e = tensor.empty() : tensor<4x8xbf16>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xbf16>) outs(%e : tensor<4x8xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %w32 = arith.extf %in : bf16 to f32
    %t = math.tanh %w32 : f32
    %n = arith.truncf %t : f32 to bf16
    linalg.yield %n : bf16
  } -> tensor<4x8xbf16>
  %y = linalg.matmul ins(%g, %w : tensor<4x8xbf16>, tensor<8x16xf32>)
                     outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y, %g : tensor<4x16xf32>, tensor<4x8xbf16>
}

// -----

// Through a reshape that only the contraction reads: the generic and the
// reshape carry f32.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @widened_through_reshape
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x8xf32>)
// CHECK: %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<1x4x8xf32> into tensor<4x8xf32>
// CHECK: amp.quantize %[[C]] by %{{.*}} : tensor<4x8xf32>, tensor<f32>
// SMALL: remark: amp: contraction kept out of FP8: 512 multiply-adds
func.func @widened_through_reshape(%x: tensor<1x4x8xbf16>, %w: tensor<8x16xf32>, %acc: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<1x4x8xbf16>
  %g = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x4x8xbf16>) outs(%e : tensor<1x4x8xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %w32 = arith.extf %in : bf16 to f32
    %t = math.tanh %w32 : f32
    %n = arith.truncf %t : f32 to bf16
    linalg.yield %n : bf16
  } -> tensor<1x4x8xbf16>
  %c = tensor.collapse_shape %g [[0, 1], [2]] : tensor<1x4x8xbf16> into tensor<4x8xbf16>
  %y = linalg.matmul ins(%c, %w : tensor<4x8xbf16>, tensor<8x16xf32>)
                     outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// A constant that dtype=fp8 kept in f32 (amp.fp8_source) for a contraction
// that this pass does not take (f64 accumulator): its narrowing folds into
// a bf16 constant and the mark goes. A user's cast of an unmarked constant
// is left to the canonicalizer.
// CHECK-LABEL: func.func @unused_fp8_source
// CHECK-NOT: amp.fp8_source
// CHECK-DAG: %[[FOLDED:.*]] = arith.constant dense<1.500000e+00> : tensor<4x4xbf16>
// CHECK-DAG: %[[USER:.*]] = arith.constant dense<2.500000e+00> : tensor<4x4xf32>
// CHECK-NOT: arith.constant dense<1.500000e+00> : tensor<4x4xf32>
// CHECK: arith.truncf %[[USER]]
// CHECK: return %[[FOLDED]]
func.func @unused_fp8_source(%x: tensor<4x4xbf16>, %acc: tensor<4x4xf64>) -> (tensor<4x4xbf16>, tensor<4x4xf64>, tensor<4x4xbf16>) {
  %w = arith.constant {amp.fp8_source} dense<1.5> : tensor<4x4xf32>
  %wb = arith.truncf %w : tensor<4x4xf32> to tensor<4x4xbf16>
  %m = linalg.matmul ins(%x, %wb : tensor<4x4xbf16>, tensor<4x4xbf16>) outs(%acc : tensor<4x4xf64>) -> tensor<4x4xf64>
  %u = arith.constant dense<2.5> : tensor<4x4xf32>
  %ub = arith.truncf %u : tensor<4x4xf32> to tensor<4x4xbf16>
  return %wb, %m, %ub : tensor<4x4xbf16>, tensor<4x4xf64>, tensor<4x4xbf16>
}

// -----

// A contraction that accumulates into values (beta = 1): the scaled matmul
// computes the scaled FP8 product alone, and an epilogue adds the values.
// CHECK-LABEL: func.func @accumulate
// CHECK-SAME: %[[C:[a-z0-9]+]]: tensor<4x16xf32>)
// CHECK-NOT: linalg.fill
// CHECK: %[[P:.*]] = amp.scaled_matmul {{.*}} -> tensor<4x16xf32>
// CHECK: linalg.generic {{.*}} ins(%[[P]], %[[C]] : tensor<4x16xf32>, tensor<4x16xf32>)
// CHECK-NOT: arith.mulf
// CHECK: %[[A:.*]] = arith.addf
// CHECK: linalg.yield %[[A]]
func.func @accumulate(%x: tensor<4x32xf32>, %w: tensor<32x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %m = linalg.matmul ins(%x, %w : tensor<4x32xf32>, tensor<32x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %m : tensor<4x16xf32>
}
