// RUN: amp-opt %s --amp-linalg-to-library-calls --canonicalize --split-input-file \
// RUN:     --mlir-print-op-on-diagnostic=false -verify-diagnostics | FileCheck %s

// A zero fill before the matmul becomes beta = 0 and is erased.
// CHECK-LABEL: func.func @gemm_beta0
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[BETA:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[M:.*]] = arith.constant 64 : i64
// CHECK-DAG: %[[N:.*]] = arith.constant 256 : i64
// CHECK-DAG: %[[K:.*]] = arith.constant 128 : i64
// CHECK: call @ampGpuGemm(%{{.*}}, %{{.*}}, %{{.*}}, %[[M]], %[[N]], %[[K]], {{.*}}, %[[BETA]])
// CHECK-NOT: linalg.matmul
// CHECK: func.func private @ampGpuGemm(i32, i32, i64, i64, i64, i64, !llvm.ptr, i32, i64, i64, !llvm.ptr, i32, i64, i64, !llvm.ptr, i32, i64, i64, f32)
func.func @gemm_beta0(%a: memref<64x128xf16>, %b: memref<128x256xf16>, %c: memref<64x256xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x256xf32>)
  linalg.matmul ins(%a, %b : memref<64x128xf16>, memref<128x256xf16>) outs(%c : memref<64x256xf32>)
  return
}

// -----

// Accumulating into an existing C: beta = 1, the non-zero fill stays.
// CHECK-LABEL: func.func @gemm_beta1
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: linalg.fill
// CHECK: call @ampGpuGemm({{.*}}, %[[ONE]])
func.func @gemm_beta1(%a: memref<64x128xf16>, %b: memref<128x256xf16>, %c: memref<64x256xf32>) {
  %two = arith.constant 2.0 : f32
  linalg.fill ins(%two : f32) outs(%c : memref<64x256xf32>)
  linalg.matmul ins(%a, %b : memref<64x128xf16>, memref<128x256xf16>) outs(%c : memref<64x256xf32>)
  return
}

// -----

// Transposed B (indexing map (n, k)), batched: transB = 1, batch strides.
// CHECK-LABEL: func.func @batch_transposed
// CHECK-DAG: %[[T:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[B:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[SA:.*]] = arith.constant 512 : i64
// CHECK: call @ampGpuGemm(%[[Z]], %[[T]], %[[B]], {{.*}}, %[[SA]],
func.func @batch_transposed(%a: memref<4x16x32xbf16>, %b: memref<4x8x32xbf16>, %c: memref<4x16x8xf32>) {
  linalg.batch_matmul
    indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                     affine_map<(b, m, n, k) -> (b, n, k)>,
                     affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%a, %b : memref<4x16x32xbf16>, memref<4x8x32xbf16>) outs(%c : memref<4x16x8xf32>)
  return
}

// -----

// Must not fire: mixed operand types, tensors.
// CHECK-LABEL: func.func @mixed
// CHECK: linalg.matmul
func.func @mixed(%a: memref<8x8xf16>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  // expected-remark @+1 {{amp: kept as a generated kernel, not a library call: element types must be f16, bf16 or f32 operands of one type and an f32 or same-typed result}}
  linalg.matmul ins(%a, %b : memref<8x8xf16>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  return
}

// -----

// Dynamic sizes (a frontend's dynamic batch): m from the descriptor, the
// leading dimensions static.
// CHECK-LABEL: func.func @dynamic
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[DIM:.*]] = memref.dim %{{.*}}, %[[C0]] : memref<?x8xf32>
// CHECK-DAG: %[[M:.*]] = arith.index_cast %[[DIM]] : index to i64
// CHECK: call @ampGpuGemm(%{{.*}}, %{{.*}}, %{{.*}}, %[[M]],
// CHECK-NOT: linalg.matmul
func.func @dynamic(%a: memref<?x8xf16>, %b: memref<8x8xf16>, %c: memref<?x8xf32>) {
  linalg.matmul ins(%a, %b : memref<?x8xf16>, memref<8x8xf16>) outs(%c : memref<?x8xf32>)
  return
}

// -----

// A dynamic innermost stride: not contiguous for cuBLAS.
// CHECK-LABEL: func.func @dynamic_inner_stride
// CHECK: linalg.matmul
func.func @dynamic_inner_stride(%a: memref<8x8xf16, strided<[?, ?]>>, %b: memref<8x8xf16>, %c: memref<8x8xf32>) {
  // expected-remark @+1 {{the innermost dimension of every operand must be contiguous}}
  linalg.matmul ins(%a, %b : memref<8x8xf16, strided<[?, ?]>>, memref<8x8xf16>) outs(%c : memref<8x8xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @tensors
// CHECK: linalg.matmul
func.func @tensors(%a: tensor<8x8xf16>, %b: tensor<8x8xf16>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-remark @+1 {{amp: kept as a generated kernel, not a library call: the op is on tensors (run after bufferization)}}
  %r = linalg.matmul ins(%a, %b : tensor<8x8xf16>, tensor<8x8xf16>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// A subview with an offset: the pointer advances by offset * element bytes.
// CHECK-LABEL: func.func @offset
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<8x8xf16, strided<[16, 1], offset: 8>>
// CHECK: arith.addi %[[P]], %c16
// CHECK: call @ampGpuGemm
func.func @offset(%a: memref<8x16xf16>, %b: memref<8x8xf16>, %c: memref<8x8xf32>) {
  %s = memref.subview %a[0, 8] [8, 8] [1, 1] : memref<8x16xf16> to memref<8x8xf16, strided<[16, 1], offset: 8>>
  linalg.matmul ins(%s, %b : memref<8x8xf16, strided<[16, 1], offset: 8>>, memref<8x8xf16>) outs(%c : memref<8x8xf32>)
  return
}

// -----

// FP8 operands (amp-float8-contractions) in cuBLASLt's TN layout: an
// ampGpuScaledGemm with the FP8 codes (5 = f8E4M3FN, 6 = f8E5M2), an f32 C,
// and no scales or amax (NULL: no epilogue multiplies C here).
// CHECK-LABEL: func.func @float8_tn
// CHECK-DAG: %[[T:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[E4M3:.*]] = arith.constant 5 : i32
// CHECK-DAG: %[[E5M2:.*]] = arith.constant 6 : i32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NOT: call @ampGpuGemm
// CHECK: call @ampGpuScaledGemm(%[[Z]], %[[T]], {{.*}}, %[[E4M3]], {{.*}}, %[[E5M2]], {{.*}}, %[[Z]], {{.*}}, %[[NULL]], %[[NULL]], %[[NULL]])
func.func @float8_tn(%a: memref<16x32xf8E4M3FN>, %b: memref<16x32xf8E5M2>, %c: memref<16x16xf32>) {
  linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                     affine_map<(m, n, k) -> (n, k)>,
                     affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : memref<16x32xf8E4M3FN>, memref<16x32xf8E5M2>) outs(%c : memref<16x16xf32>)
  return
}

// -----

// FP8 that cuBLASLt does not take stays a generated kernel, with the reason.
// CHECK-LABEL: func.func @float8_refused
// CHECK-COUNT-3: linalg.matmul
func.func @float8_refused(%a: memref<16x32xf8E4M3FN>, %b: memref<32x16xf8E4M3FN>,
    %bt: memref<16x32xf8E5M2>, %at: memref<16x32xf8E5M2>,
    %b24: memref<16x24xf8E4M3FN>, %a24: memref<16x24xf8E4M3FN>, %c: memref<16x16xf32>) {
  // expected-remark @+1 {{amp: kept as a generated kernel, not a library call: an FP8 GEMM on the GPU needs cuBLASLt's TN layout: A m x k and B stored n x k (a transposed B operand)}}
  linalg.matmul ins(%a, %b : memref<16x32xf8E4M3FN>, memref<32x16xf8E4M3FN>) outs(%c : memref<16x16xf32>)
  // expected-remark @+1 {{amp: kept as a generated kernel, not a library call: FP8 operands must be E4M3 x E4M3, E4M3 x E5M2 or E5M2 x E4M3 with an f32 result}}
  linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                     affine_map<(m, n, k) -> (n, k)>,
                     affine_map<(m, n, k) -> (m, n)>]
    ins(%at, %bt : memref<16x32xf8E5M2>, memref<16x32xf8E5M2>) outs(%c : memref<16x16xf32>)
  // expected-remark @+1 {{amp: kept as a generated kernel, not a library call: an FP8 GEMM on the GPU needs k and n multiples of 16 (cuBLASLt)}}
  linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                     affine_map<(m, n, k) -> (n, k)>,
                     affine_map<(m, n, k) -> (m, n)>]
    ins(%a24, %b24 : memref<16x24xf8E4M3FN>, memref<16x24xf8E4M3FN>) outs(%c : memref<16x16xf32>)
  return
}

// -----

// cuDNN's legacy API has no FP8 convolution: it stays a generated kernel.
// CHECK-LABEL: func.func @float8_conv_refused
// CHECK: linalg.conv_2d_nchw_fchw
func.func @float8_conv_refused(%x: memref<1x16x6x6xf8E4M3FN>, %w: memref<16x16x3x3xf8E4M3FN>, %y: memref<1x16x4x4xf32>) {
  // expected-remark @+1 {{amp: kept as a generated kernel, not a library call: cuDNN's legacy API has no FP8 convolution}}
  linalg.conv_2d_nchw_fchw ins(%x, %w : memref<1x16x6x6xf8E4M3FN>, memref<16x16x3x3xf8E4M3FN>) outs(%y : memref<1x16x4x4xf32>)
  return
}
