// amp-widen-float8-contractions: FP8 contractions that no FP8 library
// kernel takes read their operands widened exactly to bf16 (a convolution
// always; a GEMM that cuBLASLt refuses; with gemms=true, every GEMM).
// RUN: amp-opt %s --amp-widen-float8-contractions --split-input-file -verify-diagnostics | FileCheck %s
// RUN: amp-opt %s --amp-widen-float8-contractions=gemms=true --split-input-file 2>&1 | FileCheck %s --check-prefix=GEMMS

// CHECK-LABEL: func.func @conv
// CHECK: %[[X:.*]] = arith.extf %{{.*}} : tensor<1x16x6x6xf8E4M3FN> to tensor<1x16x6x6xbf16>
// CHECK: %[[W:.*]] = arith.extf %{{.*}} : tensor<16x16x3x3xf8E5M2> to tensor<16x16x3x3xbf16>
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[X]], %[[W]] : tensor<1x16x6x6xbf16>, tensor<16x16x3x3xbf16>)
func.func @conv(%x: tensor<1x16x6x6xf8E4M3FN>, %w: tensor<16x16x3x3xf8E5M2>, %y: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  // expected-remark @+1 {{amp: FP8 operands widened exactly to bf16 for the cuDNN call: cuDNN's legacy API has no FP8 convolution}}
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x6x6xf8E4M3FN>, tensor<16x16x3x3xf8E5M2>) outs(%y : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %r : tensor<1x16x4x4xf32>
}

// -----

// cuBLASLt's TN layout with k and n multiples of 16: kept FP8 (unless
// gemms=true); k = 24 or not TN: widened.
// CHECK-LABEL: func.func @gemms
// CHECK: linalg.matmul {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x32xf8E4M3FN>, tensor<16x32xf8E4M3FN>)
// CHECK: linalg.matmul {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x24xbf16>, tensor<16x24xbf16>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x32xbf16>, tensor<32x16xbf16>)
// GEMMS-COUNT-3: remark: amp: FP8 operands widened exactly to bf16 for the cuBLAS call: FP8 GEMMs need cuBLASLt on sm_89 or later
// GEMMS-LABEL: func.func @gemms
// GEMMS: linalg.matmul {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x32xbf16>, tensor<16x32xbf16>)
func.func @gemms(%a: tensor<8x32xf8E4M3FN>, %b: tensor<16x32xf8E4M3FN>, %a24: tensor<8x24xf8E4M3FN>, %b24: tensor<16x24xf8E4M3FN>, %bn: tensor<32x16xf8E4M3FN>, %c: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
  %tn = linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : tensor<8x32xf8E4M3FN>, tensor<16x32xf8E4M3FN>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-remark @+1 {{amp: FP8 operands widened exactly to bf16 for the cuBLAS call: cuBLASLt's FP8 GEMM takes E4M3 x E4M3, E4M3 x E5M2 or E5M2 x E4M3 in the TN layout with k and n multiples of 16}}
  %k24 = linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a24, %b24 : tensor<8x24xf8E4M3FN>, tensor<16x24xf8E4M3FN>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-remark @+1 {{amp: FP8 operands widened exactly to bf16 for the cuBLAS call: cuBLASLt's FP8 GEMM takes}}
  %nn = linalg.matmul ins(%a, %bn : tensor<8x32xf8E4M3FN>, tensor<32x16xf8E4M3FN>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %tn, %k24, %nn : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
}
