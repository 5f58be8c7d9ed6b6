// --amp-o2: every op that can goes low, except what must stay f32.
// RUN: amp-opt %s -split-input-file --amp-o2 | FileCheck %s

// Everything low, black ops included; the sum keeps an f32 accumulator.
// CHECK-LABEL: func.func @all_low
// CHECK: %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf16>, tensor<16x4xf16>) outs(%{{.*}} : tensor<8x4xf32>)
// CHECK: %[[T:.*]] = arith.truncf %[[MM]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK: %[[E:.*]] = math.exp %[[T]] : tensor<8x4xf16>
// CHECK: linalg.reduce ins(%[[E]] : tensor<8x4xf16>) outs(%{{.*}} : tensor<f32>)
// CHECK-NEXT: (%[[IN:.*]]: f16, %[[INIT:.*]]: f32) {
// CHECK-NEXT:   %[[W:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK-NEXT:   arith.addf %[[W]], %[[INIT]] : f32
func.func @all_low(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>)
      -> tensor<8x4xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x4xf32>)
                      outs(%acc : tensor<8x4xf32>) -> tensor<8x4xf32>
  %ex = math.exp %mm : tensor<8x4xf32>
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

// Batch-norm-like generic: the activation and the result go low, the
// per-channel mean/variance/scale/bias stay f32; the body computes in f32.
// The generic reads the activation in f16: the narrowing of the argument is
// not fused into its body, which would keep the activation in f32 in memory.
// The result's widening for the f32 return is fused (round to f16, store
// f32): the value is at the function interface, read in f32 anyway.
#act = affine_map<(n, c, h, w) -> (n, c, h, w)>
#chan = affine_map<(n, c, h, w) -> (c)>
// CHECK-LABEL: func.func @batch_norm_like
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8x8xf32>, %[[MEAN:.*]]: tensor<4xf32>, %[[VAR:.*]]: tensor<4xf32>)
// CHECK: %[[XL:.*]] = arith.truncf %[[X]] : tensor<2x4x8x8xf32> to tensor<2x4x8x8xf16>
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[XL]], %[[MEAN]], %[[VAR]] : tensor<2x4x8x8xf16>, tensor<4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<2x4x8x8xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f16, %[[M:.*]]: f32, %[[V:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:   %[[AW:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK-NEXT:   arith.subf %[[AW]], %[[M]] : f32
// CHECK:        %[[R:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:   %[[RL:.*]] = arith.truncf %[[R]] : f32 to f16
// CHECK-NEXT:   %[[RW:.*]] = arith.extf %[[RL]] : f16 to f32
// CHECK-NEXT:   linalg.yield %[[RW]] : f32
// CHECK:      return %[[G]]
func.func @batch_norm_like(%x: tensor<2x4x8x8xf32>, %mean: tensor<4xf32>,
                           %var: tensor<4xf32>) -> tensor<2x4x8x8xf32> {
  %e = tensor.empty() : tensor<2x4x8x8xf32>
  %0 = linalg.generic {indexing_maps = [#act, #chan, #chan, #act],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %mean, %var : tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>)
      outs(%e : tensor<2x4x8x8xf32>) {
  ^bb0(%a: f32, %m: f32, %v: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %r = math.rsqrt %v : f32
    %n = arith.mulf %d, %r : f32
    linalg.yield %n : f32
  } -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}

// -----

// Weight constants are converted at compile time (round to nearest even:
// 0.1 becomes 0.0999755859375 in f16). The user's exact widening is looked
// through instead of narrowed again, and the user's final truncf of AMP's
// exact widening is provably the f16 value itself.
// CHECK-LABEL: func.func @constants_converted
// CHECK-SAME: (%[[A:.*]]: tensor<2xf16>)
// CHECK-DAG: %[[C:.*]] = arith.constant dense<{{\[}}1.000000e+00, 9.997550e-02]> : tensor<2xf16>
// CHECK: %[[M:.*]] = arith.mulf %[[A]], %[[C]] : tensor<2xf16>
// CHECK-NEXT: return %[[M]]
func.func @constants_converted(%a: tensor<2xf16>) -> tensor<2xf16> {
  %c = arith.constant dense<[1.0, 0.1]> : tensor<2xf32>
  %x = arith.extf %a : tensor<2xf16> to tensor<2xf32>
  %y = arith.mulf %x, %c : tensor<2xf32>
  %z = arith.truncf %y : tensor<2xf32> to tensor<2xf16>
  return %z : tensor<2xf16>
}

// -----

// Pins win over the level; the custom black list wins over the level too
// (see custom-lists.mlir).
// CHECK-LABEL: func.func @pins
// CHECK: math.exp %{{.*}} {amp.precision = "f32"} : tensor<4xf32>
// CHECK: math.tanh %{{.*}} {amp.precision = "bf16"} : tensor<4xbf16>
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<4xf16>
func.func @pins(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = math.exp %a {amp.precision = "f32"} : tensor<4xf32>
  %1 = math.tanh %0 {amp.precision = "bf16"} : tensor<4xf32>
  %2 = arith.addf %1, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// linalg.map and linalg.generic bodies are converted in place: arguments
// take f16 and are extended where they are read, the yield narrows. A body
// that moves its input unchanged (a broadcast) stays free of conversions.
// CHECK-LABEL: func.func @map_and_broadcast
// CHECK: %[[M:.*]] = linalg.map ins(%{{.*}}, %{{.*}} : tensor<8xf16>, tensor<8xf16>) outs(%{{.*}} : tensor<8xf16>)
// CHECK-NEXT: (%[[X:.*]]: f16, %[[Y:.*]]: f16, %{{.*}}: f16) {
// CHECK-NEXT:   %[[XW:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:   %[[YW:.*]] = arith.extf %[[Y]] : f16 to f32
// CHECK-NEXT:   %[[S:.*]] = arith.addf %[[XW]], %[[YW]] : f32
// CHECK-NEXT:   %[[T:.*]] = math.tanh %[[S]] : f32
// CHECK-NEXT:   %[[TL:.*]] = arith.truncf %[[T]] : f32 to f16
// CHECK-NEXT:   linalg.yield %[[TL]] : f16
// CHECK: linalg.generic {{.*}} ins(%[[M]] : tensor<8xf16>) outs(%{{.*}} : tensor<8x8xf16>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT:   linalg.yield %[[IN]] : f16
func.func @map_and_broadcast(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %m = linalg.map ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>)
    (%x: f32, %y: f32, %out: f32) {
      %s = arith.addf %x, %y : f32
      %t = math.tanh %s : f32
      linalg.yield %t : f32
    }
  %r = tensor.empty() : tensor<8x8xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<8xf32>) outs(%r : tensor<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<8x8xf32>
  %s = arith.mulf %c, %c : tensor<8x8xf32>
  return %s : tensor<8x8xf32>
}

// -----

// A fill of a constant is not decided: the matmul's f32 accumulator gets it
// in f32 and the f16 maximum gets an f16 copy.
// CHECK-LABEL: func.func @shared_fill
// CHECK-DAG: %[[Z32:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[Z16:.*]] = arith.constant 0.000000e+00 : f16
// CHECK-DAG: %[[F32:.*]] = linalg.fill ins(%[[Z32]] : f32) outs(%{{.*}} : tensor<8x4xf32>)
// CHECK-DAG: %[[F16:.*]] = linalg.fill ins(%[[Z16]] : f16) outs(%{{.*}} : tensor<8x4xf16>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf16>, tensor<16x4xf16>) outs(%[[F32]] : tensor<8x4xf32>)
// CHECK: arith.maximumf %{{.*}}, %[[F16]] : tensor<8x4xf16>
func.func @shared_fill(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>,
                       %b: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x4xf32>)
                     outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  %m = arith.maximumf %b, %z : tensor<8x4xf32>
  return %y, %m : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// A count converted to a float (a batch norm's elements per channel with a
// dynamic batch, 64 * 1024 here) and scalar arithmetic on it stay f32 at
// O2: in f16 the count would overflow to infinity (or round from 2048);
// the tensor it scales is read low as usual.
// CHECK-LABEL: func.func @count_stays_f32
// CHECK: %[[N:.*]] = arith.sitofp %{{.*}} : i64 to f32
// CHECK: %[[PER:.*]] = arith.divf %[[N]], %{{.*}} : f32
// CHECK: %[[LESS:.*]] = arith.subf %[[PER]], %{{.*}} : f32
// CHECK: %[[CORR:.*]] = arith.divf %[[PER]], %[[LESS]] : f32
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<16xf16>)
// CHECK: arith.mulf %{{.*}}, %[[CORR]] : f32
func.func @count_stays_f32(%batch: index, %var: tensor<16xf32>)
    -> tensor<16xf32> {
  %c1024 = arith.constant 1024 : i64
  %channels = arith.constant 16.0 : f32
  %one = arith.constant 1.0 : f32
  %b = arith.index_cast %batch : index to i64
  %numel = arith.muli %b, %c1024 : i64
  %n = arith.sitofp %numel : i64 to f32
  %per = arith.divf %n, %channels : f32
  %less = arith.subf %per, %one : f32
  %corr = arith.divf %per, %less : f32
  %e = tensor.empty() : tensor<16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%var : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %corr : f32
    linalg.yield %m : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}
