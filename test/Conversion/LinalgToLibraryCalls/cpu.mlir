// RUN: amp-opt %s --amp-linalg-to-library-calls=target=cpu --canonicalize \
// RUN:     --split-input-file --mlir-print-op-on-diagnostic=false \
// RUN:     -verify-diagnostics | FileCheck %s
// RUN: not amp-opt %s --amp-linalg-to-library-calls=target=tpu \
// RUN:     --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD

// target=cpu: matmuls and batch matmuls become ampCpuLibraryGemm, declared
// as an llvm.func (a CPU call, not stream-ordered) and called with
// llvm.call on host pointers; the arguments are those of ampGpuGemm.
// Convolutions (ampCpuLibraryConv2d): cpu-conv.mlir.

// BAD: error: amp-linalg-to-library-calls: target must be gpu or cpu, got 'tpu'

// f32 matmul, zero-filled output: beta = 0, the fill is gone.
// CHECK-LABEL: func.func @matmul_f32
// CHECK-DAG: %[[F32:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[BETA:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[M:.*]] = arith.constant 16 : i64
// CHECK-DAG: %[[N:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[K:.*]] = arith.constant 32 : i64
// CHECK-NOT: linalg.fill
// CHECK: llvm.call @ampCpuLibraryGemm(%[[F32]], %[[F32]], %{{.*}}, %[[M]], %[[N]], %[[K]], %{{.*}}, %[[F32]], %[[K]], %{{.*}}, %{{.*}}, %[[F32]], %[[N]], %{{.*}}, %{{.*}}, %[[F32]], %[[N]], %{{.*}}, %[[BETA]])
// CHECK-NOT: linalg.
// CHECK: return
// CHECK: llvm.func @ampCpuLibraryGemm(i32, i32, i64, i64, i64, i64, !llvm.ptr, i32, i64, i64, !llvm.ptr, i32, i64, i64, !llvm.ptr, i32, i64, i64, f32) attributes {sym_visibility = "private"}
func.func @matmul_f32(%a: memref<16x32xf32>, %b: memref<32x8xf32>, %c: memref<16x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<16x8xf32>)
  linalg.matmul ins(%a, %b : memref<16x32xf32>, memref<32x8xf32>) outs(%c : memref<16x8xf32>)
  return
}

// -----

// f16 inputs, f32 accumulator kept (it is returned): aType = bType = 1
// (f16), cType = 0 (f32); no fill: beta = 1.
// CHECK-LABEL: func.func @matmul_f16_f32_acc
// CHECK-DAG: %[[F32:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[F16:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: llvm.call @ampCpuLibraryGemm({{.*}}, %[[F16]], %{{.*}}, %{{.*}}, %{{.*}}, %[[F16]], %{{.*}}, %{{.*}}, %{{.*}}, %[[F32]], %{{.*}}, %{{.*}}, %[[ONE]])
// CHECK-NOT: linalg.
func.func @matmul_f16_f32_acc(%a: memref<16x32xf16>, %b: memref<32x8xf16>, %c: memref<16x8xf32>) {
  linalg.matmul ins(%a, %b : memref<16x32xf16>, memref<32x8xf16>) outs(%c : memref<16x8xf32>)
  return
}

// -----

// bf16 inputs with an f32 accumulator that is only narrowed: the epilogue
// narrowing is kept, the call writes the bf16 output itself (cType = 2), the
// conversion-only generic and the f32 buffer are gone.
// CHECK-LABEL: func.func @matmul_bf16_narrowed
// CHECK-DAG: %[[BF16:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[BETA:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<64x256xbf16>
// CHECK: llvm.call @ampCpuLibraryGemm({{.*}}, %[[BF16]], %{{.*}}, %{{.*}}, %[[BETA]])
// CHECK-NOT: linalg.
// CHECK-NOT: xf32
// CHECK: return %[[OUT]]
func.func @matmul_bf16_narrowed(%a: memref<64x128xbf16>, %b: memref<128x256xbf16>) -> memref<64x256xbf16> {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<64x256xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<64x256xf32>)
  linalg.matmul ins(%a, %b : memref<64x128xbf16>, memref<128x256xbf16>) outs(%acc : memref<64x256xf32>)
  %out = memref.alloc() : memref<64x256xbf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<64x256xf32>) outs(%out : memref<64x256xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  }
  memref.dealloc %acc : memref<64x256xf32>
  return %out : memref<64x256xbf16>
}

// -----

// A batch matmul with a transposed RHS (tosa.matmul's form after a
// transpose) whose narrowing is fused with a bias add: the call writes an
// f16 buffer (transB = 1, batch 4, batch strides) that the epilogue reads in
// place of its truncf.
// CHECK-LABEL: func.func @batch_matmul_fused_epilogue
// CHECK-DAG: %[[F16:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[BATCH:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[SA:.*]] = arith.constant 512 : i64
// CHECK-DAG: %[[SB:.*]] = arith.constant 256 : i64
// CHECK-DAG: %[[SC:.*]] = arith.constant 128 : i64
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<4x16x8xf16>
// CHECK: llvm.call @ampCpuLibraryGemm(%{{.*}}, %{{.*}}, %[[BATCH]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[F16]], %{{.*}}, %[[SA]], %{{.*}}, %[[F16]], %{{.*}}, %[[SB]], %{{.*}}, %[[F16]], %{{.*}}, %[[SC]], %{{.*}})
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[ACC]], %{{.*}} : memref<4x16x8xf16>, memref<8xf16>)
// CHECK-NOT: arith.truncf
// CHECK-NOT: f32>
func.func @batch_matmul_fused_epilogue(%a: memref<4x16x32xf16>, %b: memref<4x8x32xf16>, %bias: memref<8xf16>, %out: memref<4x16x8xf16>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<4x16x8xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<4x16x8xf32>)
  linalg.batch_matmul indexing_maps = [
      affine_map<(b, m, n, k) -> (b, m, k)>,
      affine_map<(b, m, n, k) -> (b, n, k)>,
      affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%a, %b : memref<4x16x32xf16>, memref<4x8x32xf16>) outs(%acc : memref<4x16x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (j)>, affine_map<(b, i, j) -> (b, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%acc, %bias : memref<4x16x8xf32>, memref<8xf16>) outs(%out : memref<4x16x8xf16>) {
  ^bb0(%x: f32, %c: f16, %o: f16):
    %t = arith.truncf %x : f32 to f16
    %s = arith.addf %t, %c : f16
    linalg.yield %s : f16
  }
  memref.dealloc %acc : memref<4x16x8xf32>
  return
}

// -----

// The same through a reshaped view (torch-mlir's [B*S, N] linear read as
// [B, S, N] by its epilogue): the call writes f16, and the epilogue reads the
// same view of the f16 buffer.
// CHECK-LABEL: func.func @matmul_narrowed_through_view
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<8x16xf16>
// CHECK: llvm.call @ampCpuLibraryGemm(
// CHECK: %[[VIEW:.*]] = memref.expand_shape %[[ACC]] {{\[\[}}0, 1], [2]] output_shape [2, 4, 16] : memref<8x16xf16> into memref<2x4x16xf16>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[VIEW]], %{{.*}} : memref<2x4x16xf16>, memref<2x4x16xf32>)
// CHECK-NOT: arith.truncf
// CHECK-NOT: memref<8x16xf32>
func.func @matmul_narrowed_through_view(%a: memref<8x32xf16>, %b: memref<32x16xf16>, %res: memref<2x4x16xf32>, %out: memref<2x4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<8x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<8x16xf32>)
  linalg.matmul ins(%a, %b : memref<8x32xf16>, memref<32x16xf16>) outs(%acc : memref<8x16xf32>)
  %view = memref.expand_shape %acc [[0, 1], [2]] output_shape [2, 4, 16] : memref<8x16xf32> into memref<2x4x16xf32>
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%view, %res : memref<2x4x16xf32>, memref<2x4x16xf32>) outs(%out : memref<2x4x16xf32>) {
  ^bb0(%x: f32, %r: f32, %o: f32):
    %t = arith.truncf %x : f32 to f16
    %e = arith.extf %t : f16 to f32
    %s = arith.addf %e, %r : f32
    linalg.yield %s : f32
  }
  memref.dealloc %acc : memref<8x16xf32>
  return
}

// -----

// A view that something other than a narrowing reads: the accumulator stays
// f32.
// CHECK-LABEL: func.func @matmul_view_read_wide
// CHECK: memref.alloc() : memref<8x16xf32>
// CHECK: memref.expand_shape %{{.*}} : memref<8x16xf32> into memref<2x4x16xf32>
func.func @matmul_view_read_wide(%a: memref<8x32xf16>, %b: memref<32x16xf16>, %out: memref<2x4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<8x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<8x16xf32>)
  linalg.matmul ins(%a, %b : memref<8x32xf16>, memref<32x16xf16>) outs(%acc : memref<8x16xf32>)
  %view = memref.expand_shape %acc [[0, 1], [2]] output_shape [2, 4, 16] : memref<8x16xf32> into memref<2x4x16xf32>
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%view : memref<2x4x16xf32>) outs(%out : memref<2x4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %x : f32
    linalg.yield %s : f32
  }
  memref.dealloc %acc : memref<8x16xf32>
  return
}

// -----

// Mixed operand types do not fit the call: loops, with the reason.
// CHECK-LABEL: func.func @mixed_types_stay_loops
// CHECK: linalg.matmul
// CHECK-NOT: llvm.call
func.func @mixed_types_stay_loops(%a: memref<16x32xf16>, %b: memref<32x8xf32>, %c: memref<16x8xf32>) {
  // expected-remark @+1 {{amp: kept as loops, not a library call: element types must be f16, bf16 or f32 operands of one type and an f32 or same-typed result}}
  linalg.matmul ins(%a, %b : memref<16x32xf16>, memref<32x8xf32>) outs(%c : memref<16x8xf32>)
  return
}

// -----

// On tensors (before bufferization) nothing is rewritten.
// CHECK-LABEL: func.func @on_tensors
// CHECK: linalg.matmul
func.func @on_tensors(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-remark @+1 {{amp: kept as loops, not a library call: the op is on tensors (run after bufferization)}}
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x8xf32>) outs(%c : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

// -----

// FP8 operands: any layout on the CPU (the runtime widens them exactly).
// CHECK-LABEL: func.func @float8
// CHECK-DAG: %[[E4M3:.*]] = arith.constant 5 : i32
// CHECK-DAG: %[[E5M2:.*]] = arith.constant 6 : i32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: llvm.call @ampCpuLibraryScaledGemm({{.*}}, %[[E5M2]], {{.*}}, %[[E4M3]], {{.*}}, %[[NULL]], %[[NULL]], %[[NULL]])
func.func @float8(%a: memref<8x24xf8E5M2>, %b: memref<24x8xf8E4M3FN>, %c: memref<8x8xf32>) {
  linalg.matmul ins(%a, %b : memref<8x24xf8E5M2>, memref<24x8xf8E4M3FN>) outs(%c : memref<8x8xf32>)
  return
}

// -----

// An FP8 convolution is a call too (the CPU call widens FP8 exactly), with
// an f32 result; FP8 inputs of one kind and another are refused.
// CHECK-LABEL: func.func @float8_conv
// CHECK-DAG: %[[E4M3:.*]] = arith.constant 5 : i32
// CHECK-DAG: %[[E5M2:.*]] = arith.constant 6 : i32
// CHECK-DAG: %[[F32:.*]] = arith.constant 0 : i32
// CHECK: llvm.call @ampCpuLibraryConv2d({{.*}}, %[[E4M3]], %{{.*}}, %[[E5M2]], %{{.*}}, %[[F32]],
// CHECK: linalg.conv_2d_nchw_fchw
func.func @float8_conv(%x: memref<1x2x6x6xf8E4M3FN>, %w: memref<3x2x3x3xf8E5M2>, %y: memref<1x3x4x4xf32>, %xb: memref<1x2x6x6xbf16>, %we: memref<3x2x3x3xf8E4M3FN>) {
  linalg.conv_2d_nchw_fchw ins(%x, %w : memref<1x2x6x6xf8E4M3FN>, memref<3x2x3x3xf8E5M2>) outs(%y : memref<1x3x4x4xf32>)
  // expected-remark @+1 {{amp: kept as loops, not a library call: FP8 operands must be E4M3 x E4M3, E4M3 x E5M2 or E5M2 x E4M3 with an f32 result}}
  linalg.conv_2d_nchw_fchw ins(%xb, %we : memref<1x2x6x6xbf16>, memref<3x2x3x3xf8E4M3FN>) outs(%y : memref<1x3x4x4xf32>)
  return
}

// -----

// amp.scaled_matmul on the CPU: its scale is the call's
// (ampCpuLibraryScaledGemm scales the f32 product in f32), and a
// narrowing-only reader of its f32 destination goes (a bf16 C).
// CHECK-LABEL: func.func @float8_scaled
// CHECK-SAME: %[[S:[^:]*]]: memref<f32>, %[[OUT:.*]]: memref<8x8xbf16>)
// CHECK-DAG: %[[BF16:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK: %[[SP:.*]] = memref.extract_aligned_pointer_as_index %[[S]] : memref<f32> -> index
// CHECK: %[[SI:.*]] = arith.index_cast %[[SP]] : index to i64
// CHECK: %[[SPTR:.*]] = llvm.inttoptr %[[SI]] : i64 to !llvm.ptr
// CHECK: llvm.call @ampCpuLibraryScaledGemm({{.*}}, %[[BF16]], {{.*}}, %[[SPTR]], %[[NULL]], %[[NULL]])
// CHECK-NOT: linalg.generic
func.func @float8_scaled(%a: memref<8x24xf8E4M3FN>, %b: memref<8x24xf8E4M3FN>, %s: memref<f32>, %out: memref<8x8xbf16>) {
  %acc = memref.alloc() : memref<8x8xf32>
  amp.scaled_matmul ins(%a, %b : memref<8x24xf8E4M3FN>, memref<8x24xf8E4M3FN>)
      scale(%s : memref<f32>) outs(%acc : memref<8x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<8x8xf32>) outs(%out : memref<8x8xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  }
  return
}
