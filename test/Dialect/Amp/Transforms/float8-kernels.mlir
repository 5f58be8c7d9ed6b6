// amp-float8-contractions' `kernels`: which FP8 contractions the target
// computes from FP8 operands. The others read their FP8 operands widened
// exactly to bf16 (arith.extf), so that a bf16 library call computes the
// same products, each with a remark: with cublaslt (sm_89 and later) a
// convolution and a GEMM that cuBLASLt's FP8 GEMM does not take; with none
// (before sm_89) every one; with all (and auto, amp-opt's default) none.
// RUN: amp-opt %s -split-input-file --amp-float8-contractions="kernels=cublaslt scaling=current" -verify-diagnostics | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-float8-contractions="kernels=none scaling=current" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: amp-opt %s -split-input-file --amp-float8-contractions="scaling=current" 2>/dev/null | FileCheck %s --check-prefix=ALL
// RUN: amp-opt %s -split-input-file --amp-float8-contractions="scaling=current" 2>&1 >/dev/null | FileCheck %s --check-prefix=ALLREMARK
// RUN: not amp-opt %s --amp-float8-contractions=kernels=some -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: amp-float8-contractions: kernels must be auto, all, cublaslt or none, got 'some'
// NONE-COUNT-2: remark: amp: FP8 operands widened exactly to bf16 for the cuBLAS call: FP8 GEMMs need cuBLASLt on sm_89 or later
// NONE: remark: amp: FP8 operands widened exactly to bf16 for the cuDNN call: cuDNN's legacy API has no FP8 convolution
// ALL-NOT: bf16
// ALL: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x16x6x6xf8E4M3FN>, tensor<16x16x3x3xf8E4M3FN>)
// ALLREMARK-NOT: remark: amp:

// k = 32 and n = 16, in the TN layout the pass lays out: cuBLASLt's.
// CHECK-LABEL: func.func @cublaslt_gemm
// CHECK-NOT: arith.extf
// CHECK: amp.scaled_matmul ins(%{{.*}}, %{{.*}} : tensor<4x32xf8E4M3FN>, tensor<16x32xf8E4M3FN>)
func.func @cublaslt_gemm(%x: tensor<4x32xf32>, %w: tensor<32x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x32xf32>, tensor<32x16xf32>) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// k = 24: not cuBLASLt's.
// CHECK-LABEL: func.func @other_gemm
// CHECK: %[[A:.*]] = arith.extf %{{.*}} : tensor<4x24xf8E4M3FN> to tensor<4x24xbf16>
// CHECK: %[[B:.*]] = arith.extf %{{.*}} : tensor<16x24xf8E4M3FN> to tensor<16x24xbf16>
// CHECK: linalg.matmul {{.*}} ins(%[[A]], %[[B]] : tensor<4x24xbf16>, tensor<16x24xbf16>) outs(%{{.*}} : tensor<4x16xf32>)
func.func @other_gemm(%x: tensor<4x24xf32>, %w: tensor<24x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  // expected-remark @+1 {{amp: FP8 operands widened exactly to bf16 for the cuBLAS call: an FP8 GEMM on the GPU needs k and n multiples of 16 (cuBLASLt)}}
  %y = linalg.matmul ins(%x, %w : tensor<4x24xf32>, tensor<24x16xf32>) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func.func @convolution
// CHECK: %[[X:.*]] = arith.extf %{{.*}} : tensor<1x16x6x6xf8E4M3FN> to tensor<1x16x6x6xbf16>
// CHECK: %[[W:.*]] = arith.extf %{{.*}} : tensor<16x16x3x3xf8E4M3FN> to tensor<16x16x3x3xbf16>
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} ins(%[[X]], %[[W]] : tensor<1x16x6x6xbf16>, tensor<16x16x3x3xbf16>)
func.func @convolution(%x: tensor<1x16x6x6xf32>, %w: tensor<16x16x3x3xf32>) -> tensor<1x16x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  // expected-remark @+1 {{amp: FP8 operands widened exactly to bf16 for the cuDNN call: cuDNN's legacy API has no FP8 convolution}}
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x6x6xf32>, tensor<16x16x3x3xf32>) outs(%acc : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %y : tensor<1x16x4x4xf32>
}
