// RUN: amp-opt %s --amp-linalg-to-library-calls --canonicalize --split-input-file \
// RUN:     --mlir-print-op-on-diagnostic=false -verify-diagnostics | FileCheck %s

// A zero-filled f32 accumulator that is only narrowed by a conversion-only
// generic: the call writes the generic's f16 output (cType = 1, f32 compute),
// the generic and the f32 buffer are gone. The output's alloc moves before
// the call.
// CHECK-LABEL: func.func @gemm_conversion_only
// CHECK-DAG: %[[F16:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[BETA:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<64x256xf16>
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK: call @ampGpuGemm({{.*}}, %[[F16]], %{{.*}}, %{{.*}}, %[[BETA]])
// CHECK-NOT: linalg.
// CHECK-NOT: xf32
// CHECK: return %[[OUT]]
func.func @gemm_conversion_only(%a: memref<64x128xf16>, %b: memref<128x256xf16>) -> memref<64x256xf16> {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<64x256xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<64x256xf32>)
  linalg.matmul ins(%a, %b : memref<64x128xf16>, memref<128x256xf16>) outs(%acc : memref<64x256xf32>)
  %out = memref.alloc() : memref<64x256xf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<64x256xf32>) outs(%out : memref<64x256xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  memref.dealloc %acc : memref<64x256xf32>
  return %out : memref<64x256xf16>
}

// -----

// The narrowing is fused with a bias add and a ReLU: the call writes a bf16
// buffer that the epilogue reads in place of its truncf.
// CHECK-LABEL: func.func @gemm_fused_epilogue
// CHECK-DAG: %[[BF16:.*]] = arith.constant 2 : i32
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<4x16x8xbf16>
// CHECK: call @ampGpuGemm({{.*}}, %[[BF16]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[ACC]], %{{.*}} : memref<4x16x8xbf16>, memref<8xbf16>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: bf16, %[[BIAS:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: arith.addf %[[IN]], %[[BIAS]] : bf16
// CHECK-NOT: arith.truncf
// CHECK: memref.dealloc %[[ACC]] : memref<4x16x8xbf16>
// CHECK-NOT: f32>
func.func @gemm_fused_epilogue(%a: memref<4x16x32xbf16>, %b: memref<4x32x8xbf16>, %bias: memref<8xbf16>, %out: memref<4x16x8xbf16>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<4x16x8xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<4x16x8xf32>)
  linalg.batch_matmul ins(%a, %b : memref<4x16x32xbf16>, memref<4x32x8xbf16>) outs(%acc : memref<4x16x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (j)>, affine_map<(b, i, j) -> (b, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%acc, %bias : memref<4x16x8xf32>, memref<8xbf16>) outs(%out : memref<4x16x8xbf16>) {
  ^bb0(%x: f32, %c: bf16, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    %s = arith.addf %t, %c : bf16
    %z = arith.constant 0.0 : bf16
    %r = arith.maximumf %s, %z : bf16
    linalg.yield %r : bf16
  }
  memref.dealloc %acc : memref<4x16x8xf32>
  return
}

// -----

// A dynamic batch (a frontend's): the call reads M from the buffer it
// writes, the 16-bit one (canonicalized to the alloc's size), so the f32
// accumulator has no reader left but the epilogue and goes (the memref.dim
// of it that the call read M from used to keep it, and the call wrote f32).
// CHECK-LABEL: func.func @gemm_dynamic
// CHECK-SAME: (%[[A:.*]]: memref<?x32xf16>
// CHECK-DAG: %[[F16:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[N:.*]] = memref.dim %[[A]], %[[C0]]
// CHECK: %[[ACC:.*]] = memref.alloc(%[[N]]) : memref<?x8xf16>
// CHECK: %[[M:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: call @ampGpuGemm(%{{.*}}, %{{.*}}, %{{.*}}, %[[M]], {{.*}}, %[[F16]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[ACC]], %{{.*}} : memref<?x8xf16>, memref<8xf16>)
// CHECK-NOT: f32>
func.func @gemm_dynamic(%a: memref<?x32xf16>, %b: memref<32x8xf16>, %bias: memref<8xf16>, %out: memref<?x8xf16>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %a, %c0 : memref<?x32xf16>
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc(%n) : memref<?x8xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<?x8xf32>)
  linalg.matmul ins(%a, %b : memref<?x32xf16>, memref<32x8xf16>) outs(%acc : memref<?x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc, %bias : memref<?x8xf32>, memref<8xf16>) outs(%out : memref<?x8xf16>) {
  ^bb0(%x: f32, %c: f16, %o: f16):
    %t = arith.truncf %x : f32 to f16
    %s = arith.addf %t, %c : f16
    linalg.yield %s : f16
  }
  memref.dealloc %acc : memref<?x8xf32>
  return
}

// -----

// A convolution narrowed into an existing (argument) buffer: yType = f16.
// CHECK-LABEL: func.func @conv_narrowed
// CHECK-SAME: %[[Y:[a-z0-9]+]]: memref<1x8x8x8xf16>
// CHECK-DAG: %[[F16:.*]] = arith.constant 1 : i32
// CHECK: memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK: call @ampGpuConv2d({{.*}}, %[[F16]], %{{.*}}, %[[F16]], %{{.*}}, %[[F16]], %{{.*}})
// CHECK-NOT: linalg.
// CHECK-NOT: memref.alloc
func.func @conv_narrowed(%x: memref<1x3x10x10xf16>, %w: memref<8x3x3x3xf16>, %y: memref<1x8x8x8xf16>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<1x8x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x8x8x8xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x10x10xf16>, memref<8x3x3x3xf16>) outs(%acc : memref<1x8x8x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x8x8x8xf32>) outs(%y : memref<1x8x8x8xf16>) {
  ^bb0(%in: f32, %o: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  }
  return
}

// -----

// Negative: the f32 result is also read in f32 (a residual in f32), so the
// accumulator stays an f32 buffer (cType = 0) and the narrowing a kernel.
// CHECK-LABEL: func.func @gemm_f32_user
// CHECK-DAG: %[[F32:.*]] = arith.constant 0 : i32
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<8x8xf32>
// CHECK: call @ampGpuGemm({{.*}}, %[[F32]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[ACC]] : memref<8x8xf32>)
// CHECK: arith.truncf
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[ACC]] : memref<8x8xf32>)
func.func @gemm_f32_user(%a: memref<8x8xf16>, %b: memref<8x8xf16>, %n: memref<8x8xf16>, %f: memref<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<8x8xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<8x8xf32>)
  linalg.matmul ins(%a, %b : memref<8x8xf16>, memref<8x8xf16>) outs(%acc : memref<8x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<8x8xf32>) outs(%n : memref<8x8xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<8x8xf32>) outs(%f : memref<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Negative: not zero-initialised (the call accumulates into an f32 C), and
// narrowing to another type than the operands' (bf16 operands, f16 result).
// CHECK-LABEL: func.func @gemm_not_narrowable
// CHECK-DAG: %[[F32:.*]] = arith.constant 0 : i32
// CHECK: linalg.fill
// CHECK: call @ampGpuGemm({{.*}}, %[[F32]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: call @ampGpuGemm({{.*}}, %[[F32]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @gemm_not_narrowable(%a: memref<8x8xf16>, %b: memref<8x8xf16>, %c: memref<8x8xbf16>, %n: memref<8x8xf16>) {
  %two = arith.constant 2.0 : f32
  %acc = memref.alloc() : memref<8x8xf32>
  linalg.fill ins(%two : f32) outs(%acc : memref<8x8xf32>)
  linalg.matmul ins(%a, %b : memref<8x8xf16>, memref<8x8xf16>) outs(%acc : memref<8x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<8x8xf32>) outs(%n : memref<8x8xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  %zero = arith.constant 0.0 : f32
  %acc2 = memref.alloc() : memref<8x8xf32>
  linalg.fill ins(%zero : f32) outs(%acc2 : memref<8x8xf32>)
  linalg.matmul ins(%c, %c : memref<8x8xbf16>, memref<8x8xbf16>) outs(%acc2 : memref<8x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc2 : memref<8x8xf32>) outs(%n : memref<8x8xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  return
}

// -----

// The conversion-only output is read between the matmul and the narrowing:
// the call must not write it early, so it writes a new f16 buffer and the
// narrowing stays (as a copy).
// CHECK-LABEL: func.func @gemm_output_read_between
// CHECK-DAG: %[[F16:.*]] = arith.constant 1 : i32
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<8x8xf16>
// CHECK: call @ampGpuGemm({{.*}}, %[[F16]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: memref.copy %[[OUT:.*]], %{{.*}}
// CHECK: linalg.generic {{.*}} ins(%[[ACC]] : memref<8x8xf16>) outs(%[[OUT]] : memref<8x8xf16>)
func.func @gemm_output_read_between(%a: memref<8x8xf16>, %b: memref<8x8xf16>, %out: memref<8x8xf16>, %old: memref<8x8xf16>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<8x8xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<8x8xf32>)
  linalg.matmul ins(%a, %b : memref<8x8xf16>, memref<8x8xf16>) outs(%acc : memref<8x8xf32>)
  memref.copy %out, %old : memref<8x8xf16> to memref<8x8xf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<8x8xf32>) outs(%out : memref<8x8xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  return
}

// -----

// amp.scaled_matmul (amp-float8-contractions' FP8 GEMM) into an f32
// buffer that a bias epilogue reads: the call takes the op's scale as its
// A scale (bScale and dAmax NULL), overwrites (beta = 0), and the epilogue
// stays as it is.
// CHECK-LABEL: func.func @float8_scaled
// CHECK-SAME: (%{{.*}}: memref<16x32xf8E4M3FN>, %{{.*}}: memref<16x32xf8E4M3FN>, %[[S:.*]]: memref<f32>, %[[BIAS:.*]]: memref<16xf32>, %[[OUT:.*]]: memref<16x16xf32>)
// CHECK-DAG: %[[F32:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[BETA:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<16x16xf32>
// CHECK: %[[SP:.*]] = memref.extract_aligned_pointer_as_index %[[S]] : memref<f32> -> index
// CHECK: %[[SI:.*]] = arith.index_cast %[[SP]] : index to i64
// CHECK: %[[SPTR:.*]] = llvm.inttoptr %[[SI]] : i64 to !llvm.ptr
// CHECK: call @ampGpuScaledGemm({{.*}}, %[[F32]], %{{.*}}, %{{.*}}, %[[BETA]], %[[SPTR]], %[[NULL]], %[[NULL]])
// CHECK: linalg.generic {{.*}} ins(%[[ACC]], %[[BIAS]] : memref<16x16xf32>, memref<16xf32>) outs(%[[OUT]] : memref<16x16xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[Y:.*]] = arith.addf %[[X]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
// CHECK-NOT: amp.scaled_matmul
func.func @float8_scaled(%a: memref<16x32xf8E4M3FN>, %b: memref<16x32xf8E4M3FN>, %s: memref<f32>, %bias: memref<16xf32>, %out: memref<16x16xf32>) {
  %acc = memref.alloc() : memref<16x16xf32>
  amp.scaled_matmul ins(%a, %b : memref<16x32xf8E4M3FN>, memref<16x32xf8E4M3FN>)
      scale(%s : memref<f32>) outs(%acc : memref<16x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc, %bias : memref<16x16xf32>, memref<16xf32>) outs(%out : memref<16x16xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %y = arith.addf %x, %c : f32
    linalg.yield %y : f32
  }
  memref.dealloc %acc : memref<16x16xf32>
  return
}

// -----

// Scaled into f32, then only narrowed to bf16: the call writes the bf16
// output itself (cType = 2, cuBLASLt's bf16 D), and the generic and the
// f32 buffer are gone. A bf16 destination is the same call.
// CHECK-LABEL: func.func @float8_scaled_bf16
// CHECK-SAME: %[[S:[^:]*]]: memref<f32>, %[[OUT:[^:]*]]: memref<16x16xbf16>, %[[OUT2:.*]]: memref<16x16xbf16>)
// CHECK-DAG: %[[BF16:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[OP:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK: %[[SP:.*]] = memref.extract_aligned_pointer_as_index %[[S]]
// CHECK: call @ampGpuScaledGemm({{.*}}, %[[BF16]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NULL]], %[[NULL]])
// CHECK: memref.extract_aligned_pointer_as_index %[[OUT2]]
// CHECK: call @ampGpuScaledGemm({{.*}}, %[[BF16]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NULL]], %[[NULL]])
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.alloc
func.func @float8_scaled_bf16(%a: memref<16x32xf8E4M3FN>, %b: memref<16x32xf8E5M2>, %s: memref<f32>, %out: memref<16x16xbf16>, %out2: memref<16x16xbf16>) {
  %acc = memref.alloc() : memref<16x16xf32>
  amp.scaled_matmul ins(%a, %b : memref<16x32xf8E4M3FN>, memref<16x32xf8E5M2>)
      scale(%s : memref<f32>) outs(%acc : memref<16x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<16x16xf32>) outs(%out : memref<16x16xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  }
  amp.scaled_matmul ins(%a, %b : memref<16x32xf8E4M3FN>, memref<16x32xf8E5M2>)
      scale(%s : memref<f32>) outs(%out2 : memref<16x16xbf16>)
  return
}

// -----

// A linalg matmul of FP8 operands (not scaled): the call has no scale
// (NULL, 1), overwrites after a zero fill (beta = 0) and accumulates
// without one (beta = 1); its epilogue stays as it is.
// CHECK-LABEL: func.func @float8_unscaled
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<16x16xf32>
// CHECK-NOT: linalg.fill
// CHECK: call @ampGpuScaledGemm({{.*}}, %[[ZERO]], %[[NULL]], %[[NULL]], %[[NULL]])
// CHECK: linalg.generic {{.*}} ins(%[[ACC]], %{{.*}} : memref<16x16xf32>, memref<f32>)
// CHECK: arith.mulf
// CHECK: call @ampGpuScaledGemm({{.*}}, %[[ONE]], %[[NULL]], %[[NULL]], %[[NULL]])
func.func @float8_unscaled(%a: memref<16x32xf8E4M3FN>, %b: memref<16x32xf8E4M3FN>, %s: memref<f32>, %out: memref<16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<16x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<16x16xf32>)
  linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                     affine_map<(m, n, k) -> (n, k)>,
                     affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : memref<16x32xf8E4M3FN>, memref<16x32xf8E4M3FN>) outs(%acc : memref<16x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc, %s : memref<16x16xf32>, memref<f32>) outs(%out : memref<16x16xf32>) {
  ^bb0(%x: f32, %f: f32, %o: f32):
    %p = arith.mulf %x, %f : f32
    linalg.yield %p : f32
  }
  linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                     affine_map<(m, n, k) -> (n, k)>,
                     affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : memref<16x32xf8E4M3FN>, memref<16x32xf8E4M3FN>) outs(%out : memref<16x16xf32>)
  return
}

// -----

// A scaled matmul that cuBLASLt does not take (n = 8, not a multiple of
// 16) stays, with a remark: amp-float8-scaling-to-linalg makes loops of it.
// CHECK-LABEL: func.func @float8_scaled_refused
// CHECK-NOT: call
// CHECK: amp.scaled_matmul
func.func @float8_scaled_refused(%a: memref<16x32xf8E4M3FN>, %b: memref<8x32xf8E4M3FN>, %s: memref<f32>, %out: memref<16x8xf32>) {
  // expected-remark @+1 {{amp: kept as a generated kernel, not a library call: an FP8 GEMM on the GPU needs k and n multiples of 16 (cuBLASLt)}}
  amp.scaled_matmul ins(%a, %b : memref<16x32xf8E4M3FN>, memref<8x32xf8E4M3FN>)
      scale(%s : memref<f32>) outs(%out : memref<16x8xf32>)
  return
}

// -----

// The amax of the scaled GEMM's f32 output (amp.amax, lowered: a zero fill
// and an abs-max reduction, as delayed scaling records it for the next
// contraction) is the call's dAmax: the reduction and its fill are gone and
// the amax buffer is allocated before the call.
// CHECK-LABEL: func.func @float8_output_amax
// CHECK-SAME: %[[S:[^:]*]]: memref<f32>, %[[OUT:[^:]*]]: memref<16x16xf32>, %[[R:.*]]: memref<f32>)
// CHECK: %[[AMAX:.*]] = memref.alloc() : memref<f32>
// CHECK-NOT: linalg.fill
// CHECK: %[[AP:.*]] = memref.extract_aligned_pointer_as_index %[[AMAX]] : memref<f32> -> index
// CHECK: %[[AI:.*]] = arith.index_cast %[[AP]] : index to i64
// CHECK: %[[APTR:.*]] = llvm.inttoptr %[[AI]] : i64 to !llvm.ptr
// CHECK: call @ampGpuScaledGemm({{.*}}, %[[APTR]])
// CHECK-NOT: linalg.generic
// CHECK: memref.copy %[[AMAX]], %[[R]]
func.func @float8_output_amax(%a: memref<16x32xf8E4M3FN>, %b: memref<16x32xf8E4M3FN>, %s: memref<f32>, %out: memref<16x16xf32>, %r: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  amp.scaled_matmul ins(%a, %b : memref<16x32xf8E4M3FN>, memref<16x32xf8E4M3FN>)
      scale(%s : memref<f32>) outs(%out : memref<16x16xf32>)
  %amax = memref.alloc() : memref<f32>
  linalg.fill ins(%zero : f32) outs(%amax : memref<f32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%out : memref<16x16xf32>) outs(%amax : memref<f32>) {
  ^bb0(%x: f32, %m: f32):
    %abs = math.absf %x : f32
    %max = arith.maximumf %m, %abs : f32
    linalg.yield %max : f32
  }
  memref.copy %amax, %r : memref<f32> to memref<f32>
  return
}

// -----

// Not the call's amax: the reduction reads the output after something else
// wrote it, or takes maxnumf (which drops NaN, unlike the call's amax).
// CHECK-LABEL: func.func @float8_output_amax_kept
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: call @ampGpuScaledGemm({{.*}}, %[[NULL]], %[[NULL]])
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK: math.absf
// CHECK: call @ampGpuScaledGemm({{.*}}, %[[NULL]], %[[NULL]])
// CHECK: linalg.generic
// CHECK: arith.maxnumf
func.func @float8_output_amax_kept(%a: memref<16x32xf8E4M3FN>, %b: memref<16x32xf8E4M3FN>, %s: memref<f32>, %out: memref<16x16xf32>, %r: memref<f32>, %r2: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %acc = memref.alloc() : memref<16x16xf32>
  amp.scaled_matmul ins(%a, %b : memref<16x32xf8E4M3FN>, memref<16x32xf8E4M3FN>)
      scale(%s : memref<f32>) outs(%acc : memref<16x16xf32>)
  linalg.fill ins(%one : f32) outs(%acc : memref<16x16xf32>)
  %amax = memref.alloc() : memref<f32>
  linalg.fill ins(%zero : f32) outs(%amax : memref<f32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%acc : memref<16x16xf32>) outs(%amax : memref<f32>) {
  ^bb0(%x: f32, %m: f32):
    %abs = math.absf %x : f32
    %max = arith.maximumf %m, %abs : f32
    linalg.yield %max : f32
  }
  memref.copy %amax, %r : memref<f32> to memref<f32>
  %acc2 = memref.alloc() : memref<16x16xf32>
  amp.scaled_matmul ins(%a, %b : memref<16x32xf8E4M3FN>, memref<16x32xf8E4M3FN>)
      scale(%s : memref<f32>) outs(%acc2 : memref<16x16xf32>)
  %amax2 = memref.alloc() : memref<f32>
  linalg.fill ins(%zero : f32) outs(%amax2 : memref<f32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%acc2 : memref<16x16xf32>) outs(%amax2 : memref<f32>) {
  ^bb0(%x: f32, %m: f32):
    %abs = math.absf %x : f32
    %max = arith.maxnumf %m, %abs : f32
    linalg.yield %max : f32
  }
  memref.copy %amax2, %r2 : memref<f32> to memref<f32>
  return
}

// -----

// Attention's scores: a batched GEMM's [B*H, S, S] accumulator narrowed as
// [B, H, S, S] by a conversion-only generic. The call writes the generic's
// f16 output through the inverse reshape: no copy and no generic remain
// (the call used to write a new f16 buffer that the generic then copied).
// CHECK-LABEL: func.func @gemm_conversion_through_expand
// CHECK-DAG: %[[F16:.*]] = arith.constant 1 : i32
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<2x4x16x16xf16>
// CHECK: %[[VIEW:.*]] = memref.collapse_shape %[[OUT]] {{\[}}[0, 1], [2], [3]] : memref<2x4x16x16xf16> into memref<8x16x16xf16>
// CHECK: memref.extract_aligned_pointer_as_index %[[VIEW]]
// CHECK: call @ampGpuGemm({{.*}}, %[[F16]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NOT: linalg.
// CHECK-NOT: memref.copy
// CHECK-NOT: xf32
// CHECK: return %[[OUT]]
func.func @gemm_conversion_through_expand(%a: memref<8x16x32xf16>, %b: memref<8x32x16xf16>) -> memref<2x4x16x16xf16> {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<8x16x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<8x16x16xf32>)
  linalg.batch_matmul ins(%a, %b : memref<8x16x32xf16>, memref<8x32x16xf16>) outs(%acc : memref<8x16x16xf32>)
  %view = memref.expand_shape %acc [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : memref<8x16x16xf32> into memref<2x4x16x16xf32>
  %out = memref.alloc() : memref<2x4x16x16xf16>
  linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%view : memref<2x4x16x16xf32>) outs(%out : memref<2x4x16x16xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  memref.dealloc %acc : memref<8x16x16xf32>
  return %out : memref<2x4x16x16xf16>
}

// -----

// The other way round, with a dynamic batch: a batched GEMM's [?, 16, 8]
// accumulator narrowed as [? * 16, 8]. The call writes the generic's
// output expanded back to the accumulator's sizes (the batch is the
// accumulator's dynamic size).
// CHECK-LABEL: func.func @gemm_conversion_through_collapse
// CHECK-SAME: (%[[A:.*]]: memref<?x16x32xbf16>, %{{.*}}: memref<?x32x8xbf16>, %[[OUT:.*]]: memref<?x8xbf16>)
// CHECK-DAG: %[[BF16:.*]] = arith.constant 2 : i32
// CHECK: %[[N:.*]] = memref.dim %[[A]]
// CHECK: %[[VIEW:.*]] = memref.expand_shape %[[OUT]] {{\[}}[0, 1], [2]] output_shape [%[[N]], 16, 8] : memref<?x8xbf16> into memref<?x16x8xbf16>
// CHECK: memref.extract_aligned_pointer_as_index %[[VIEW]]
// CHECK: call @ampGpuGemm({{.*}}, %[[BF16]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NOT: linalg.
// CHECK-NOT: xf32
func.func @gemm_conversion_through_collapse(%a: memref<?x16x32xbf16>, %b: memref<?x32x8xbf16>, %out: memref<?x8xbf16>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %a, %c0 : memref<?x16x32xbf16>
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc(%n) : memref<?x16x8xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<?x16x8xf32>)
  linalg.batch_matmul ins(%a, %b : memref<?x16x32xbf16>, memref<?x32x8xbf16>) outs(%acc : memref<?x16x8xf32>)
  %view = memref.collapse_shape %acc [[0, 1], [2]] : memref<?x16x8xf32> into memref<?x8xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%view : memref<?x8xf32>) outs(%out : memref<?x8xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  }
  memref.dealloc %acc : memref<?x16x8xf32>
  return
}

// -----

// The generic's output is a strided view (half the heads of a larger
// buffer) whose batch and heads the inverse reshape cannot collapse: the
// call writes a new f16 buffer and the generic copies it, as before.
// CHECK-LABEL: func.func @gemm_conversion_through_expand_strided
// CHECK-DAG: %[[F16:.*]] = arith.constant 1 : i32
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<8x16x16xf16>
// CHECK: call @ampGpuGemm({{.*}}, %[[F16]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: %[[VIEW:.*]] = memref.expand_shape %[[ACC]]
// CHECK: linalg.generic {{.*}} ins(%[[VIEW]] : memref<2x4x16x16xf16>)
func.func @gemm_conversion_through_expand_strided(%a: memref<8x16x32xf16>, %b: memref<8x32x16xf16>, %big: memref<2x8x16x16xf16>) {
  %out = memref.subview %big[0, 0, 0, 0] [2, 4, 16, 16] [1, 1, 1, 1] : memref<2x8x16x16xf16> to memref<2x4x16x16xf16, strided<[2048, 256, 16, 1]>>
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<8x16x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<8x16x16xf32>)
  linalg.batch_matmul ins(%a, %b : memref<8x16x32xf16>, memref<8x32x16xf16>) outs(%acc : memref<8x16x16xf32>)
  %view = memref.expand_shape %acc [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : memref<8x16x16xf32> into memref<2x4x16x16xf32>
  linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%view : memref<2x4x16x16xf32>) outs(%out : memref<2x4x16x16xf16, strided<[2048, 256, 16, 1]>>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  memref.dealloc %acc : memref<8x16x16xf32>
  return
}
