// TOSA graphs: casts become tosa.cast, zero points and tosa.const weights are
// converted at compile time, clamp bounds saturate, matmul accumulates into
// f32 and convolutions get acc_type = f32; the output passes --tosa-validate.
// RUN: amp-opt %s --amp-o2 | FileCheck %s --check-prefix=O2
// RUN: amp-opt %s --amp-o1="placement=greedy" | FileCheck %s --check-prefix=O1
// RUN: amp-opt %s --amp-o2 | mlir-opt --tosa-validate > /dev/null
// RUN: amp-opt %s --amp-o1 | mlir-opt --tosa-validate > /dev/null
// RUN: amp-opt %s --amp-o2="dtype=bf16" | FileCheck %s --check-prefix=BF16
// RUN: amp-opt %s --amp-o2="dtype=bf16" | mlir-opt --tosa-attach-target="extensions=bf16" --tosa-validate > /dev/null

// O2-LABEL: func.func @classifier
// O2-DAG: %[[XL:.*]] = tosa.cast %{{.*}} : (tensor<1x8x16xf32>) -> tensor<1x8x16xf16>
// O2-DAG: %[[W:.*]] = "tosa.const"() <{values = dense<5.000000e-01> : tensor<1x16x4xf16>}>
// O2-DAG: %[[ZP:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}>
// O2: %[[MM:.*]] = tosa.matmul %[[XL]], %[[W]], %[[ZP]], %[[ZP]] : (tensor<1x8x16xf16>, tensor<1x16x4xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x4xf32>
// O2: %[[MML:.*]] = tosa.cast %[[MM]] : (tensor<1x8x4xf32>) -> tensor<1x8x4xf16>
// O2: tosa.clamp %[[MML]] {max_val = 6.550400e+04 : f16, min_val = 0.000000e+00 : f16} : (tensor<1x8x4xf16>) -> tensor<1x8x4xf16>
// O2: tosa.exp %{{.*}} : (tensor<1x8x4xf16>) -> tensor<1x8x4xf16>
// The sum reads and produces f32: TOSA has no accumulator type for it.
// O2: %[[EW:.*]] = tosa.cast %{{.*}} : (tensor<1x8x4xf16>) -> tensor<1x8x4xf32>
// O2: tosa.reduce_sum %[[EW]] {axis = 2 : i32} : (tensor<1x8x4xf32>) -> tensor<1x8x1xf32>
// O2: tosa.reciprocal %{{.*}} : (tensor<1x8x1xf16>) -> tensor<1x8x1xf16>
// O2: %[[P:.*]] = tosa.mul %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x8x4xf16>, tensor<1x8x1xf16>, tensor<1xi8>) -> tensor<1x8x4xf16>
// O2: %[[OUT:.*]] = tosa.cast %[[P]] : (tensor<1x8x4xf16>) -> tensor<1x8x4xf32>
// O2: return %[[OUT]] : tensor<1x8x4xf32>

// At O1 the softmax part (exp, sum, reciprocal) stays f32; clamp follows
// the matmul.
// O1-LABEL: func.func @classifier
// O1: tosa.matmul %{{.*}} : (tensor<1x8x16xf16>, tensor<1x16x4xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x4xf32>
// O1: tosa.clamp %{{.*}} : (tensor<1x8x4xf16>) -> tensor<1x8x4xf16>
// O1: tosa.exp %{{.*}} : (tensor<1x8x4xf32>) -> tensor<1x8x4xf32>
// O1: tosa.reduce_sum %{{.*}} : (tensor<1x8x4xf32>) -> tensor<1x8x1xf32>

// BF16-LABEL: func.func @classifier
// BF16: tosa.matmul %{{.*}} : (tensor<1x8x16xbf16>, tensor<1x16x4xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x8x4xf32>
// BF16: tosa.clamp %{{.*}} {max_val = 3.389530e+38 : bf16, min_val = 0.000000e+00 : bf16}
func.func @classifier(%x: tensor<1x8x16xf32>) -> tensor<1x8x4xf32> {
  %w = "tosa.const"() <{values = dense<0.5> : tensor<1x16x4xf32>}> : () -> tensor<1x16x4xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %mm = tosa.matmul %x, %w, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x4xf32>
  %relu = tosa.clamp %mm {min_val = 0.0 : f32, max_val = 3.4028235e38 : f32} : (tensor<1x8x4xf32>) -> tensor<1x8x4xf32>
  %e = tosa.exp %relu : (tensor<1x8x4xf32>) -> tensor<1x8x4xf32>
  %s = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<1x8x4xf32>) -> tensor<1x8x1xf32>
  %r = tosa.reciprocal %s : (tensor<1x8x1xf32>) -> tensor<1x8x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<1x8x4xf32>, tensor<1x8x1xf32>, tensor<1xi8>) -> tensor<1x8x4xf32>
  return %p : tensor<1x8x4xf32>
}

// O2-LABEL: func.func @conv
// O2: tosa.conv2d %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {acc_type = f32, {{.*}}} : (tensor<1x8x8x3xf16>, tensor<4x3x3x3xf16>, tensor<4xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x6x6x4xf16>
// O2: tosa.avg_pool2d %{{.*}}, %{{.*}}, %{{.*}} {acc_type = f32, {{.*}}} : (tensor<1x6x6x4xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x3x3x4xf16>
// O1-LABEL: func.func @conv
// O1: tosa.conv2d {{.*}} -> tensor<1x6x6x4xf16>
// O1: tosa.avg_pool2d {{.*}} -> tensor<1x3x3x4xf16>
func.func @conv(%x: tensor<1x8x8x3xf32>) -> tensor<1x3x3x4xf32> {
  %w = "tosa.const"() <{values = dense<0.25> : tensor<4x3x3x3xf32>}> : () -> tensor<4x3x3x3xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x4xf32>
  %p = tosa.avg_pool2d %c, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x6x6x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x4xf32>
  return %p : tensor<1x3x3x4xf32>
}
