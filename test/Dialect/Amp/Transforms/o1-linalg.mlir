// --amp-o1 on linalg/arith/math/tensor: white ops go low with an f32
// accumulator, black ops stay f32, gray ops follow their operands (results
// of low ops count as low); the same rules with dtype=bf16.
// (Greedy placement: gray ops follow their operands in program order.)
// RUN: amp-opt %s -split-input-file --amp-o1="placement=greedy" | FileCheck %s --check-prefixes=CHECK,F16
// RUN: amp-opt %s -split-input-file --amp-o1="dtype=bf16 placement=greedy" | FileCheck %s --check-prefixes=CHECK,BF16
// RUN: amp-opt %s -split-input-file --amp-o1 | FileCheck %s --check-prefix=OPT

// CHECK-LABEL: func.func @mlp
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[W:.*]]: tensor<16x4xf32>, %[[B:.*]]: tensor<8x4xf32>) -> tensor<f32>
// F16-DAG: %[[XL:.*]] = arith.truncf %[[X]] : tensor<8x16xf32> to tensor<8x16xf16>
// F16-DAG: %[[WL:.*]] = arith.truncf %[[W]] : tensor<16x4xf32> to tensor<16x4xf16>
// F16-DAG: %[[BL:.*]] = arith.truncf %[[B]] : tensor<8x4xf32> to tensor<8x4xf16>
// BF16-DAG: %[[XL:.*]] = arith.truncf %[[X]] : tensor<8x16xf32> to tensor<8x16xbf16>
// The accumulator (init and result) stays f32.
// CHECK: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8x4xf32>)
// F16: %[[MM:.*]] = linalg.matmul ins(%[[XL]], %[[WL]] : tensor<8x16xf16>, tensor<16x4xf16>) outs(%[[ACC]] : tensor<8x4xf32>) -> tensor<8x4xf32>
// BF16: %[[MM:.*]] = linalg.matmul ins(%[[XL]], %{{.*}} : tensor<8x16xbf16>, tensor<16x4xbf16>) outs(%[[ACC]] : tensor<8x4xf32>) -> tensor<8x4xf32>
// Gray: the add follows the matmul into low precision (one truncation).
// F16: %[[MML:.*]] = arith.truncf %[[MM]] : tensor<8x4xf32> to tensor<8x4xf16>
// F16-NEXT: %[[ADD:.*]] = arith.addf %[[MML]], %[[BL]] : tensor<8x4xf16>
// BF16: arith.addf %{{.*}}, %{{.*}} : tensor<8x4xbf16>
// Black: exp and the sum stay f32.
// F16-NEXT: %[[ADDW:.*]] = arith.extf %[[ADD]] : tensor<8x4xf16> to tensor<8x4xf32>
// F16-NEXT: %[[EXP:.*]] = math.exp %[[ADDW]] : tensor<8x4xf32>
// BF16: math.exp %{{.*}} : tensor<8x4xf32>
// CHECK: %[[SUM:.*]] = linalg.reduce ins(%{{.*}} : tensor<8x4xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK: return %[[SUM]] : tensor<f32>
// Optimal placement: the add between the matmul and the (black) exp stays
// f32, so only the matmul's inputs are converted.
// OPT-LABEL: func.func @mlp
// OPT-COUNT-2: arith.truncf
// OPT-NOT: arith.truncf
// OPT: arith.addf %{{.*}}, %{{.*}} : tensor<8x4xf32>
// OPT-NOT: arith.extf %{{.*}} : tensor
// OPT: return
func.func @mlp(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>, %b: tensor<8x4xf32>)
    -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>)
      -> tensor<8x4xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x4xf32>)
                      outs(%acc : tensor<8x4xf32>) -> tensor<8x4xf32>
  %add = arith.addf %mm, %b : tensor<8x4xf32>
  %ex = math.exp %add : tensor<8x4xf32>
  %le = tensor.empty() : tensor<f32>
  %lacc = linalg.fill ins(%zero : f32) outs(%le : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%ex : tensor<8x4xf32>) outs(%lacc : tensor<f32>)
      dimensions = [0, 1]
    (%in: f32, %s: f32) {
      %0 = arith.addf %in, %s : f32
      linalg.yield %0 : f32
    }
  return %sum : tensor<f32>
}

// -----

// Ops in no list and gray ops fed only by f32 values stay f32: nothing
// changes, not even a cast.
// CHECK-LABEL: func.func @nothing_to_do
// CHECK-NOT: truncf
// CHECK-NOT: extf
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK: math.tanh %{{.*}} : tensor<4xf32>
func.func @nothing_to_do(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a : tensor<4xf32>
  %1 = math.tanh %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// linalg.generic is classified from its body and iterators: a contraction
// is white (its body extends on read), a generic with exp is black.
#map_a = affine_map<(m, n, k) -> (m, k)>
#map_b = affine_map<(m, n, k) -> (k, n)>
#map_c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @generics
// F16: %[[C:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<8x4xf16>) outs(%{{.*}} : tensor<4x4xf32>)
// F16-NEXT: ^bb0(%[[IA:.*]]: f16, %[[IB:.*]]: f16, %[[OUT:.*]]: f32):
// F16-NEXT:   %[[EA:.*]] = arith.extf %[[IA]] : f16 to f32
// F16-NEXT:   %[[EB:.*]] = arith.extf %[[IB]] : f16 to f32
// F16-NEXT:   %[[M:.*]] = arith.mulf %[[EA]], %[[EB]] : f32
// F16-NEXT:   %[[S:.*]] = arith.addf %[[OUT]], %[[M]] : f32
// F16-NEXT:   linalg.yield %[[S]] : f32
// The exp generic stays f32.
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x4xf32>) outs(%{{.*}} : tensor<4x4xf32>)
// CHECK: math.exp %{{.*}} : f32
func.func @generics(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>,
                    %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = linalg.generic {indexing_maps = [#map_a, #map_b, #map_c],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c : tensor<4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  } -> tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}

// -----

// Softmax is black at O1; transposes and reshapes follow their producers.
// CHECK-LABEL: func.func @softmax_and_data_movement
// F16: %[[MM:.*]] = linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x4x8xf16>, tensor<2x8x4xf16>) outs(%{{.*}} : tensor<2x4x4xf32>)
// F16: %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<2x4x4xf16>) outs(%{{.*}} : tensor<2x4x4xf16>)
// F16: %[[R:.*]] = tensor.collapse_shape %[[T]] {{.*}} : tensor<2x4x4xf16> into tensor<8x4xf16>
// F16: %[[RW:.*]] = arith.extf %[[R]] : tensor<8x4xf16> to tensor<8x4xf32>
// F16: linalg.softmax dimension(1) ins(%[[RW]] : tensor<8x4xf32>) outs(%{{.*}} : tensor<8x4xf32>)
func.func @softmax_and_data_movement(%a: tensor<2x4x8xf32>, %b: tensor<2x8x4xf32>)
    -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<2x4x4xf32>
  %mm = linalg.batch_matmul ins(%a, %b : tensor<2x4x8xf32>, tensor<2x8x4xf32>)
                            outs(%e : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %t = linalg.transpose ins(%mm : tensor<2x4x4xf32>) outs(%e : tensor<2x4x4xf32>)
      permutation = [0, 2, 1]
  %r = tensor.collapse_shape %t [[0, 1], [2]] : tensor<2x4x4xf32> into tensor<8x4xf32>
  %se = tensor.empty() : tensor<8x4xf32>
  %s = linalg.softmax dimension(1) ins(%r : tensor<8x4xf32>)
                                   outs(%se : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}
