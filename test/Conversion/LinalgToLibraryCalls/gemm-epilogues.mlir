// RUN: amp-opt %s --amp-linalg-to-library-calls --canonicalize --split-input-file \
// RUN:     --mlir-print-op-on-diagnostic=false -verify-diagnostics | FileCheck %s
// RUN: amp-opt %s --amp-linalg-to-library-calls=target=cpu --canonicalize \
// RUN:     --split-input-file | FileCheck %s --check-prefix=CPU

// The GPU's GEMM with epilogue (cuBLASLt's BIAS, RELU_BIAS and GELU_BIAS): a bias
// epilogue of a GEMM's zero-filled f32 accumulator is the call's, which
// writes the epilogue's output; the generic, the fill and the accumulator
// go. The CPU pipeline's GEMM has no epilogue: its calls stay as they were.

// An f32 GEMM and its bias (O0's linear): cType 0 (f32), beta 0, epilogue 1
// (BIAS), the bias, no addend.
// CHECK-LABEL: func.func @bias
// CHECK-SAME: (%{{.*}}: memref<64x32xf32>, %{{.*}}: memref<32x16xf32>, %[[BIAS:.*]]: memref<16xf32>)
// CHECK-DAG: %[[F32:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[BETA:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[BIAS_EPILOGUE:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<64x16xf32>
// CHECK: memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK: %[[BP:.*]] = memref.extract_aligned_pointer_as_index %[[BIAS]]
// CHECK: %[[BI:.*]] = arith.index_cast %[[BP]]
// CHECK: %[[B:.*]] = llvm.inttoptr %[[BI]]
// CHECK: call @ampGpuGemmEpilogue({{.*}}, %[[F32]], %{{.*}}, %{{.*}}, %[[BETA]], %[[BIAS_EPILOGUE]], %[[B]], %[[NULL]], %[[NULL]])
// CHECK-NOT: linalg.
// CHECK: return %[[OUT]]
// CPU-LABEL: func.func @bias
// CPU: llvm.call @ampCpuLibraryGemm
// CPU: linalg.generic
// CPU-NOT: Epilogue
func.func @bias(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>) -> memref<64x16xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<64x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<64x16xf32>)
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%acc : memref<64x16xf32>)
  %out = memref.alloc() : memref<64x16xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc, %bias : memref<64x16xf32>, memref<16xf32>) outs(%out : memref<64x16xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %s = arith.addf %c, %x : f32
    linalg.yield %s : f32
  }
  memref.dealloc %acc : memref<64x16xf32>
  return %out : memref<64x16xf32>
}

// -----

// A ReLU after the bias, as maximumf (tosa.clamp's) or as select(x > 0)
// (torch's), of a batched GEMM with a bias shared by the batch: epilogue 2
// (RELU_BIAS), bf16 bias and output (cType 2).
// CHECK-LABEL: func.func @relu_bias
// CHECK: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK: call @ampGpuGemmEpilogue({{.*}}, %[[TWO]], %{{.*}}, %{{.*}}, %{{.*}}, %[[TWO]], %{{.*}}, %{{.*}})
// CHECK: call @ampGpuGemmEpilogue({{.*}}, %[[TWO]], %{{.*}}, %{{.*}}, %{{.*}}, %[[TWO]], %{{.*}}, %{{.*}})
// CHECK-NOT: linalg.
// CHECK-NOT: f32>
func.func @relu_bias(%a: memref<4x16x32xbf16>, %b: memref<4x32x8xbf16>, %bias: memref<8xbf16>, %out: memref<4x16x8xbf16>, %out2: memref<4x16x8xbf16>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<4x16x8xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<4x16x8xf32>)
  linalg.batch_matmul ins(%a, %b : memref<4x16x32xbf16>, memref<4x32x8xbf16>) outs(%acc : memref<4x16x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (j)>, affine_map<(b, i, j) -> (b, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%acc, %bias : memref<4x16x8xf32>, memref<8xbf16>) outs(%out : memref<4x16x8xbf16>) {
  ^bb0(%x: f32, %c: bf16, %o: bf16):
    %w = arith.extf %c : bf16 to f32
    %s = arith.addf %x, %w : f32
    %r = arith.maximumf %s, %zero : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  }
  %acc2 = memref.alloc() : memref<4x16x8xf32>
  linalg.fill ins(%zero : f32) outs(%acc2 : memref<4x16x8xf32>)
  linalg.batch_matmul ins(%a, %b : memref<4x16x32xbf16>, memref<4x32x8xbf16>) outs(%acc2 : memref<4x16x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (j)>, affine_map<(b, i, j) -> (b, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%acc2, %bias : memref<4x16x8xf32>, memref<8xbf16>) outs(%out2 : memref<4x16x8xbf16>) {
  ^bb0(%x: f32, %c: bf16, %o: bf16):
    %w = arith.extf %c : bf16 to f32
    %s = arith.addf %x, %w : f32
    %p = arith.cmpf ugt, %s, %zero : f32
    %r = arith.select %p, %s, %zero : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  }
  return
}

// -----

// O2's linear on the GPU: f16 operands, the accumulator read narrowed (the
// GPU's 16-bit GEMM output) through a view, an f32 bias: the call reads the
// accumulator unrounded and the bias rounded to f16 (as cuBLASLt takes it,
// and PyTorch autocast's addmm passes it) by a generic of its own, and
// writes the f16 output through the view's inverse (cType 1).
// CHECK-LABEL: func.func @narrowed
// CHECK-SAME: %[[BIAS:[^:]*]]: memref<192xf32>
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<2x64x192xf16>
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[OUT]] {{\[}}[0, 1], [2]] : memref<2x64x192xf16> into memref<128x192xf16>
// CHECK: %[[NARROW:.*]] = memref.alloc() : memref<192xf16>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[BIAS]] : memref<192xf32>) outs(%[[NARROW]] : memref<192xf16>)
// CHECK: arith.truncf
// CHECK: memref.extract_aligned_pointer_as_index %[[FLAT]]
// CHECK: memref.extract_aligned_pointer_as_index %[[NARROW]]
// CHECK: call @ampGpuGemmEpilogue({{.*}}, %[[ONE]], %{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]], %{{.*}}, %{{.*}})
// CHECK-NOT: linalg.
// CHECK: return %[[OUT]]
func.func @narrowed(%a: memref<128x64xf16>, %b: memref<64x192xf16>, %bias: memref<192xf32>) -> memref<2x64x192xf16> {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<128x192xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<128x192xf32>)
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x192xf16>) outs(%acc : memref<128x192xf32>)
  %view = memref.expand_shape %acc [[0, 1], [2]] output_shape [2, 64, 192] : memref<128x192xf32> into memref<2x64x192xf32>
  %out = memref.alloc() : memref<2x64x192xf16>
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (j)>, affine_map<(b, i, j) -> (b, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%view, %bias : memref<2x64x192xf32>, memref<192xf32>) outs(%out : memref<2x64x192xf16>) {
  ^bb0(%x: f32, %c: f32, %o: f16):
    %n = arith.truncf %x : f32 to f16
    %w = arith.extf %n : f16 to f32
    %s = arith.addf %w, %c : f32
    %t = arith.truncf %s : f32 to f16
    linalg.yield %t : f16
  }
  return %out : memref<2x64x192xf16>
}

// -----

// A residual added after the bias: in place (the generic writes the
// residual it reads: the call's C, beta 1, no addend), or into a new buffer
// (the residual is the call's addend, read through the view's inverse).
// CHECK-LABEL: func.func @residual
// CHECK-SAME: %[[RES:[^:]*]]: memref<2x64x64xf32>
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[BIAS_EPILOGUE:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[IN_PLACE:.*]] = memref.collapse_shape %[[RES]] {{\[}}[0, 1], [2]]
// CHECK: memref.extract_aligned_pointer_as_index %[[IN_PLACE]]
// CHECK: call @ampGpuGemmEpilogue({{.*}}, %[[ONE]], %[[BIAS_EPILOGUE]], %{{.*}}, %[[NULL]], %[[NULL]])
// CHECK: %[[NEW:.*]] = memref.alloc() : memref<2x64x64xf32>
// CHECK: %[[NEW_FLAT:.*]] = memref.collapse_shape %[[NEW]] {{\[}}[0, 1], [2]]
// CHECK: memref.extract_aligned_pointer_as_index %[[NEW_FLAT]]
// CHECK: %[[RES_FLAT:.*]] = memref.collapse_shape %[[RES]] {{\[}}[0, 1], [2]]
// CHECK: %[[RP:.*]] = memref.extract_aligned_pointer_as_index %[[RES_FLAT]]
// CHECK: %[[RI:.*]] = arith.index_cast %[[RP]]
// CHECK: %[[R:.*]] = llvm.inttoptr %[[RI]]
// CHECK: call @ampGpuGemmEpilogue({{.*}}, %[[ONE]], %[[BIAS_EPILOGUE]], %{{.*}}, %[[R]], %[[NULL]])
// CHECK-NOT: linalg.
// CHECK: return %[[NEW]]
func.func @residual(%a: memref<128x64xf16>, %b: memref<64x64xf16>, %bias: memref<64xf32>, %res: memref<2x64x64xf32>) -> memref<2x64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<128x64xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<128x64xf32>)
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x64xf16>) outs(%acc : memref<128x64xf32>)
  %view = memref.expand_shape %acc [[0, 1], [2]] output_shape [2, 64, 64] : memref<128x64xf32> into memref<2x64x64xf32>
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (j)>, affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%view, %bias, %res : memref<2x64x64xf32>, memref<64xf32>, memref<2x64x64xf32>) outs(%res : memref<2x64x64xf32>) {
  ^bb0(%x: f32, %c: f32, %r: f32, %o: f32):
    %s = arith.addf %x, %c : f32
    %t = arith.addf %s, %r : f32
    linalg.yield %t : f32
  }
  %acc2 = memref.alloc() : memref<128x64xf32>
  linalg.fill ins(%zero : f32) outs(%acc2 : memref<128x64xf32>)
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x64xf16>) outs(%acc2 : memref<128x64xf32>)
  %view2 = memref.expand_shape %acc2 [[0, 1], [2]] output_shape [2, 64, 64] : memref<128x64xf32> into memref<2x64x64xf32>
  %new = memref.alloc() : memref<2x64x64xf32>
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (j)>, affine_map<(b, i, j) -> (b, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%res, %view2, %bias : memref<2x64x64xf32>, memref<2x64x64xf32>, memref<64xf32>) outs(%new : memref<2x64x64xf32>) {
  ^bb0(%r: f32, %x: f32, %c: f32, %o: f32):
    %s = arith.addf %x, %c : f32
    %t = arith.addf %r, %s : f32
    linalg.yield %t : f32
  }
  return %new : memref<2x64x64xf32>
}

// -----

// Epilogues the call does not compute exactly stay generated kernels after
// a plain GEMM: a bias along the rows, another op in the body (a scale), a
// second reader of the accumulator, a bias written between the GEMM and its
// epilogue, an f16 bias of an f32 output (cuBLASLt reads the output's
// type), and a view that splits the bias's dimension.
// CHECK-LABEL: func.func @not_fused
// CHECK-NOT: ampGpuGemmEpilogue
// CHECK-COUNT-6: call @ampGpuGemm(
// CHECK-NOT: ampGpuGemmEpilogue
func.func @not_fused(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %rows: memref<64xf32>, %bias: memref<16xf32>, %half: memref<16xf16>, %out: memref<64x16xf32>, %out2: memref<64x16xf32>, %split: memref<64x4x4xf32>, %quarter: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %acc = memref.alloc() : memref<64x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<64x16xf32>)
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%acc : memref<64x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc, %rows : memref<64x16xf32>, memref<64xf32>) outs(%out : memref<64x16xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %s = arith.addf %x, %c : f32
    linalg.yield %s : f32
  }
  %acc2 = memref.alloc() : memref<64x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc2 : memref<64x16xf32>)
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%acc2 : memref<64x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc2, %bias : memref<64x16xf32>, memref<16xf32>) outs(%out : memref<64x16xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %s = arith.addf %x, %c : f32
    %m = arith.mulf %s, %two : f32
    linalg.yield %m : f32
  }
  %acc3 = memref.alloc() : memref<64x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc3 : memref<64x16xf32>)
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%acc3 : memref<64x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc3, %bias : memref<64x16xf32>, memref<16xf32>) outs(%out : memref<64x16xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %s = arith.addf %x, %c : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc3 : memref<64x16xf32>) outs(%out2 : memref<64x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  %acc4 = memref.alloc() : memref<64x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc4 : memref<64x16xf32>)
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%acc4 : memref<64x16xf32>)
  linalg.fill ins(%two : f32) outs(%bias : memref<16xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc4, %bias : memref<64x16xf32>, memref<16xf32>) outs(%out : memref<64x16xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %s = arith.addf %x, %c : f32
    linalg.yield %s : f32
  }
  %acc5 = memref.alloc() : memref<64x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc5 : memref<64x16xf32>)
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%acc5 : memref<64x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc5, %half : memref<64x16xf32>, memref<16xf16>) outs(%out : memref<64x16xf32>) {
  ^bb0(%x: f32, %c: f16, %o: f32):
    %w = arith.extf %c : f16 to f32
    %s = arith.addf %x, %w : f32
    linalg.yield %s : f32
  }
  %acc6 = memref.alloc() : memref<64x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc6 : memref<64x16xf32>)
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%acc6 : memref<64x16xf32>)
  %view = memref.expand_shape %acc6 [[0], [1, 2]] output_shape [64, 4, 4] : memref<64x16xf32> into memref<64x4x4xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (k)>, affine_map<(i, j, k) -> (i, j, k)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%view, %quarter : memref<64x4x4xf32>, memref<4xf32>) outs(%split : memref<64x4x4xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %s = arith.addf %x, %c : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A residual added in place into A's own buffer: the call would write it
// while reading it (the GEMM read A whole before the generic wrote it).
// CHECK-LABEL: func.func @residual_is_the_input
// CHECK: call @ampGpuGemm(
// CHECK-NOT: ampGpuGemmEpilogue
// CHECK: linalg.generic
func.func @residual_is_the_input(%b: memref<64x64xf32>, %bias: memref<64xf32>, %res: memref<2x64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.collapse_shape %res [[0, 1], [2]] : memref<2x64x64xf32> into memref<128x64xf32>
  %acc = memref.alloc() : memref<128x64xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<128x64xf32>)
  linalg.matmul ins(%a, %b : memref<128x64xf32>, memref<64x64xf32>) outs(%acc : memref<128x64xf32>)
  %view = memref.expand_shape %acc [[0, 1], [2]] output_shape [2, 64, 64] : memref<128x64xf32> into memref<2x64x64xf32>
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (j)>, affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%view, %bias, %res : memref<2x64x64xf32>, memref<64xf32>, memref<2x64x64xf32>) outs(%res : memref<2x64x64xf32>) {
  ^bb0(%x: f32, %c: f32, %r: f32, %o: f32):
    %s = arith.addf %x, %c : f32
    %t = arith.addf %s, %r : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// GELU's tanh approximation after the bias (cuBLASLt's GELU_BIAS, epilogue
// 3): GPT-2's gelu_new as imported (x^3 by math.fpowi, x * 0.5 first) on
// O2's narrowed accumulator, and the form with x * x * x, the half applied
// last and an f64 constant truncated in the body (torch-mlir's, at O0).
// CHECK-LABEL: func.func @gelu_bias
// CHECK-DAG: %[[GELU_BIAS:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: call @ampGpuGemmEpilogue({{.*}}, %[[GELU_BIAS]], %{{.*}}, %[[NULL]], %[[NULL]])
// CHECK: call @ampGpuGemmEpilogue({{.*}}, %[[GELU_BIAS]], %{{.*}}, %[[NULL]], %[[NULL]])
// CHECK-NOT: math.tanh
// CHECK: return
func.func @gelu_bias(%a: memref<128x64xf16>, %b: memref<64x256xf16>, %bias: memref<256xf32>, %out: memref<128x256xf16>, %a32: memref<128x64xf32>, %b32: memref<64x256xf32>, %out32: memref<128x256xf32>) {
  %zero = arith.constant 0.0 : f32
  %c3 = arith.constant 3 : i64
  %cubic = arith.constant 4.471500e-02 : f32
  %scale = arith.constant 0.797884583 : f32
  %scale64 = arith.constant 0.79788456080286541 : f64
  %one = arith.constant 1.0 : f32
  %half = arith.constant 5.000000e-01 : f32
  %acc = memref.alloc() : memref<128x256xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<128x256xf32>)
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x256xf16>) outs(%acc : memref<128x256xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc, %bias : memref<128x256xf32>, memref<256xf32>) outs(%out : memref<128x256xf16>) {
  ^bb0(%in: f32, %c: f32, %o: f16):
    %0 = arith.truncf %in : f32 to f16
    %1 = arith.extf %0 : f16 to f32
    %2 = arith.addf %1, %c : f32
    %3 = math.fpowi %2, %c3 : f32, i64
    %4 = arith.mulf %3, %cubic : f32
    %5 = arith.addf %2, %4 : f32
    %6 = arith.mulf %5, %scale : f32
    %7 = math.tanh %6 : f32
    %8 = arith.addf %7, %one : f32
    %9 = arith.mulf %2, %half : f32
    %10 = arith.mulf %9, %8 : f32
    %11 = arith.truncf %10 : f32 to f16
    linalg.yield %11 : f16
  }
  %acc2 = memref.alloc() : memref<128x256xf32>
  linalg.fill ins(%zero : f32) outs(%acc2 : memref<128x256xf32>)
  linalg.matmul ins(%a32, %b32 : memref<128x64xf32>, memref<64x256xf32>) outs(%acc2 : memref<128x256xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc2, %bias : memref<128x256xf32>, memref<256xf32>) outs(%out32 : memref<128x256xf32>) {
  ^bb0(%in: f32, %c: f32, %o: f32):
    %0 = arith.addf %in, %c : f32
    %1 = arith.mulf %0, %0 : f32
    %2 = arith.mulf %1, %0 : f32
    %3 = arith.mulf %cubic, %2 : f32
    %4 = arith.addf %0, %3 : f32
    %s = arith.truncf %scale64 : f64 to f32
    %5 = arith.mulf %s, %4 : f32
    %6 = math.tanh %5 : f32
    %7 = arith.addf %one, %6 : f32
    %8 = arith.mulf %0, %7 : f32
    %9 = arith.mulf %8, %half : f32
    linalg.yield %9 : f32
  }
  return
}

// -----

// Not GELU's constants (0.04 for 0.044715): the epilogue stays a kernel.
// CHECK-LABEL: func.func @not_gelu
// CHECK: call @ampGpuGemm(
// CHECK-NOT: ampGpuGemmEpilogue
// CHECK: linalg.generic
// CHECK: math.tanh
func.func @not_gelu(%a32: memref<128x64xf32>, %b32: memref<64x256xf32>, %bias: memref<256xf32>, %out32: memref<128x256xf32>) {
  %zero = arith.constant 0.0 : f32
  %cubic = arith.constant 4.000000e-02 : f32
  %scale = arith.constant 0.797884583 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 5.000000e-01 : f32
  %acc = memref.alloc() : memref<128x256xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<128x256xf32>)
  linalg.matmul ins(%a32, %b32 : memref<128x64xf32>, memref<64x256xf32>) outs(%acc : memref<128x256xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc, %bias : memref<128x256xf32>, memref<256xf32>) outs(%out32 : memref<128x256xf32>) {
  ^bb0(%in: f32, %c: f32, %o: f32):
    %0 = arith.addf %in, %c : f32
    %1 = arith.mulf %0, %0 : f32
    %2 = arith.mulf %1, %0 : f32
    %3 = arith.mulf %cubic, %2 : f32
    %4 = arith.addf %0, %3 : f32
    %5 = arith.mulf %scale, %4 : f32
    %6 = math.tanh %5 : f32
    %7 = arith.addf %one, %6 : f32
    %8 = arith.mulf %0, %7 : f32
    %9 = arith.mulf %8, %half : f32
    linalg.yield %9 : f32
  }
  return
}

// -----

// A training step's forward: the bias epilogue's output %h is kept for the
// backward (returned here) and a GELU of it follows (the import's
// decomposition: x^3 by math.fpowi, x * 0.5 and one widening per reader).
// One call (cuBLASLt's GELU_AUX_BIAS, epilogue 4) writes the GELU into %g
// as C and %h as its aux output, through the accumulator's view; the
// bias epilogue and the GELU go.
// CHECK-LABEL: func.func @gelu_aux_bias
// CHECK-DAG: %[[GELU_AUX_BIAS:.*]] = arith.constant 4 : i32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-DAG: %[[H:.*]] = memref.alloc() {{.*}} : memref<2x64x256xf16>
// CHECK-DAG: %[[G:.*]] = memref.alloc() {{.*}} : memref<2x64x256xf16>
// CHECK-DAG: %[[G2D:.*]] = memref.collapse_shape %[[G]] {{\[\[}}0, 1], [2]]
// CHECK-DAG: %[[H2D:.*]] = memref.collapse_shape %[[H]] {{\[\[}}0, 1], [2]]
// The call's pointers in its order: C (the GELU), the bias, aux (%h).
// CHECK: memref.extract_aligned_pointer_as_index %[[G2D]]
// CHECK: memref.extract_aligned_pointer_as_index %{{.*}} : memref<256xf16>
// CHECK: memref.extract_aligned_pointer_as_index %[[H2D]]
// CHECK: call @ampGpuGemmEpilogue({{.*}}, %[[GELU_AUX_BIAS]], %{{.*}}, %[[NULL]], %{{.*}})
// CHECK-NOT: linalg.generic
// CHECK: return %[[H]], %[[G]]
func.func @gelu_aux_bias(%a: memref<128x64xf16>, %b: memref<64x256xf16>, %bias: memref<256xf32>) -> (memref<2x64x256xf16>, memref<2x64x256xf16>) {
  %zero = arith.constant 0.0 : f32
  %c3 = arith.constant 3 : i64
  %cubic = arith.constant 4.471500e-02 : f32
  %scale = arith.constant 0.797884583 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 5.000000e-01 : f32
  %acc = memref.alloc() : memref<128x256xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<128x256xf32>)
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x256xf16>) outs(%acc : memref<128x256xf32>)
  %view = memref.expand_shape %acc [[0, 1], [2]] output_shape [2, 64, 256] : memref<128x256xf32> into memref<2x64x256xf32>
  %h = memref.alloc() {alignment = 64 : i64} : memref<2x64x256xf16>
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (j)>, affine_map<(b, i, j) -> (b, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%view, %bias : memref<2x64x256xf32>, memref<256xf32>) outs(%h : memref<2x64x256xf16>) {
  ^bb0(%in: f32, %c: f32, %o: f16):
    %0 = arith.truncf %in : f32 to f16
    %1 = arith.extf %0 : f16 to f32
    %2 = arith.addf %1, %c : f32
    %3 = arith.truncf %2 : f32 to f16
    linalg.yield %3 : f16
  }
  %g = memref.alloc() {alignment = 64 : i64} : memref<2x64x256xf16>
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%h : memref<2x64x256xf16>) outs(%g : memref<2x64x256xf16>) {
  ^bb0(%in: f16, %o: f16):
    %0 = arith.extf %in : f16 to f32
    %1 = math.fpowi %0, %c3 : f32, i64
    %2 = arith.mulf %1, %cubic : f32
    %3 = arith.extf %in : f16 to f32
    %4 = arith.addf %3, %2 : f32
    %5 = arith.mulf %4, %scale : f32
    %6 = math.tanh %5 : f32
    %7 = arith.addf %6, %one : f32
    %8 = arith.extf %in : f16 to f32
    %9 = arith.mulf %8, %half : f32
    %10 = arith.mulf %9, %7 : f32
    %11 = arith.truncf %10 : f32 to f16
    linalg.yield %11 : f16
  }
  memref.dealloc %acc : memref<128x256xf32>
  return %h, %g : memref<2x64x256xf16>, memref<2x64x256xf16>
}

// -----

// Where cuBLASLt's aux output cannot go, or the GELU cannot be written
// early, the bias epilogue alone is the call's and the GELU stays: a
// leading dimension that is not a multiple of 8 (20), a write between the
// epilogue and the GELU, and a GELU in place (no buffer for the aux).
// CHECK-LABEL: func.func @gelu_aux_refused
// CHECK-DAG: %[[BIAS_EPILOGUE:.*]] = arith.constant 1 : i32
// CHECK: call @ampGpuGemmEpilogue({{.*}}, %[[BIAS_EPILOGUE]],
// CHECK: linalg.generic
// CHECK: math.tanh
// CHECK: call @ampGpuGemmEpilogue({{.*}}, %[[BIAS_EPILOGUE]],
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK: math.tanh
// CHECK: call @ampGpuGemmEpilogue({{.*}}, %[[BIAS_EPILOGUE]],
// CHECK: linalg.generic
// CHECK: math.tanh
// CHECK: return
func.func @gelu_aux_refused(%a: memref<128x64xf32>, %b20: memref<64x20xf32>, %bias20: memref<20xf32>, %b: memref<64x256xf32>, %bias: memref<256xf32>, %other: memref<8xf32>) -> (memref<128x20xf32>, memref<128x20xf32>, memref<128x256xf32>, memref<128x256xf32>, memref<128x256xf32>) {
  %zero = arith.constant 0.0 : f32
  %cubic = arith.constant 4.471500e-02 : f32
  %scale = arith.constant 0.797884583 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 5.000000e-01 : f32
  %acc = memref.alloc() : memref<128x20xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<128x20xf32>)
  linalg.matmul ins(%a, %b20 : memref<128x64xf32>, memref<64x20xf32>) outs(%acc : memref<128x20xf32>)
  %h = memref.alloc() : memref<128x20xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc, %bias20 : memref<128x20xf32>, memref<20xf32>) outs(%h : memref<128x20xf32>) {
  ^bb0(%in: f32, %c: f32, %o: f32):
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  }
  %g = memref.alloc() : memref<128x20xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%h : memref<128x20xf32>) outs(%g : memref<128x20xf32>) {
  ^bb0(%x: f32, %o: f32):
    %0 = arith.mulf %x, %x : f32
    %1 = arith.mulf %0, %x : f32
    %2 = arith.mulf %1, %cubic : f32
    %3 = arith.addf %x, %2 : f32
    %4 = arith.mulf %3, %scale : f32
    %5 = math.tanh %4 : f32
    %6 = arith.addf %5, %one : f32
    %7 = arith.mulf %x, %half : f32
    %8 = arith.mulf %7, %6 : f32
    linalg.yield %8 : f32
  }
  memref.dealloc %acc : memref<128x20xf32>
  %acc2 = memref.alloc() : memref<128x256xf32>
  linalg.fill ins(%zero : f32) outs(%acc2 : memref<128x256xf32>)
  linalg.matmul ins(%a, %b : memref<128x64xf32>, memref<64x256xf32>) outs(%acc2 : memref<128x256xf32>)
  %h2 = memref.alloc() : memref<128x256xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc2, %bias : memref<128x256xf32>, memref<256xf32>) outs(%h2 : memref<128x256xf32>) {
  ^bb0(%in: f32, %c: f32, %o: f32):
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  }
  linalg.fill ins(%zero : f32) outs(%other : memref<8xf32>)
  %g2 = memref.alloc() : memref<128x256xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%h2 : memref<128x256xf32>) outs(%g2 : memref<128x256xf32>) {
  ^bb0(%x: f32, %o: f32):
    %0 = arith.mulf %x, %x : f32
    %1 = arith.mulf %0, %x : f32
    %2 = arith.mulf %1, %cubic : f32
    %3 = arith.addf %x, %2 : f32
    %4 = arith.mulf %3, %scale : f32
    %5 = math.tanh %4 : f32
    %6 = arith.addf %5, %one : f32
    %7 = arith.mulf %x, %half : f32
    %8 = arith.mulf %7, %6 : f32
    linalg.yield %8 : f32
  }
  memref.dealloc %acc2 : memref<128x256xf32>
  %acc3 = memref.alloc() : memref<128x256xf32>
  linalg.fill ins(%zero : f32) outs(%acc3 : memref<128x256xf32>)
  linalg.matmul ins(%a, %b : memref<128x64xf32>, memref<64x256xf32>) outs(%acc3 : memref<128x256xf32>)
  %h3 = memref.alloc() : memref<128x256xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc3, %bias : memref<128x256xf32>, memref<256xf32>) outs(%h3 : memref<128x256xf32>) {
  ^bb0(%in: f32, %c: f32, %o: f32):
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%h3 : memref<128x256xf32>) outs(%h3 : memref<128x256xf32>) {
  ^bb0(%x: f32, %o: f32):
    %0 = arith.mulf %x, %x : f32
    %1 = arith.mulf %0, %x : f32
    %2 = arith.mulf %1, %cubic : f32
    %3 = arith.addf %x, %2 : f32
    %4 = arith.mulf %3, %scale : f32
    %5 = math.tanh %4 : f32
    %6 = arith.addf %5, %one : f32
    %7 = arith.mulf %x, %half : f32
    %8 = arith.mulf %7, %6 : f32
    linalg.yield %8 : f32
  }
  memref.dealloc %acc3 : memref<128x256xf32>
  return %h, %g, %h2, %g2, %h3 : memref<128x20xf32>, memref<128x20xf32>, memref<128x256xf32>, memref<128x256xf32>, memref<128x256xf32>
}

// -----

// A training step's backward of the GELU: the GEMM's output gradient dy
// (read rounded to f16, the GPU's narrowing) times GELU's derivative at the
// kept input %h, in from_torch_training's form (T recomputed per reader,
// as a fused body does). One call (cuBLASLt's DGELU, epilogue 5, no bias)
// reads %h as its aux operand and writes %dx; it runs where the epilogue
// did, after the column sum in between (which reads other data).
// CHECK-LABEL: func.func @gelu_grad
// CHECK-DAG: %[[DGELU:.*]] = arith.constant 5 : i32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "parallel"]
// CHECK: memref.collapse_shape %[[H:.*]] {{\[\[}}0, 1], [2]]
// CHECK: call @ampGpuGemmEpilogue({{.*}}, %[[DGELU]], %[[NULL]], %[[NULL]], %{{.*}})
// CHECK-NOT: linalg.generic
// CHECK-NOT: math.tanh
// CHECK: return
func.func @gelu_grad(%dy: memref<128x64xf16>, %w: memref<64x256xf16>, %h: memref<2x64x256xf16>, %other: memref<32x8xf16>, %sum: memref<8xf32>) -> memref<2x64x256xf16> {
  %zero = arith.constant 0.0 : f32
  %beta = arith.constant 0.797884583 : f32
  %bk = arith.constant 0.0356774069 : f32
  %k3 = arith.constant 1.341450e-01 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 5.000000e-01 : f32
  %acc = memref.alloc() : memref<128x256xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<128x256xf32>)
  linalg.matmul ins(%dy, %w : memref<128x64xf16>, memref<64x256xf16>) outs(%acc : memref<128x256xf32>)
  %view = memref.expand_shape %acc [[0, 1], [2]] output_shape [2, 64, 256] : memref<128x256xf32> into memref<2x64x256xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%other : memref<32x8xf16>) outs(%sum : memref<8xf32>) {
  ^bb0(%in: f16, %s: f32):
    %0 = arith.extf %in : f16 to f32
    %1 = arith.addf %0, %s : f32
    linalg.yield %1 : f32
  }
  %dx = memref.alloc() {alignment = 64 : i64} : memref<2x64x256xf16>
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%view, %h : memref<2x64x256xf32>, memref<2x64x256xf16>) outs(%dx : memref<2x64x256xf16>) {
  ^bb0(%in: f32, %x16: f16, %o: f16):
    %0 = arith.truncf %in : f32 to f16
    %x = arith.extf %x16 : f16 to f32
    %x2 = arith.extf %x16 : f16 to f32
    %x3 = arith.extf %x16 : f16 to f32
    %sq = arith.mulf %x, %x2 : f32
    %sq2 = arith.mulf %x2, %x3 : f32
    %1 = arith.mulf %sq, %bk : f32
    %2 = arith.addf %1, %beta : f32
    %3 = arith.mulf %x, %2 : f32
    %t = math.tanh %3 : f32
    %4 = arith.mulf %sq2, %bk : f32
    %5 = arith.addf %4, %beta : f32
    %6 = arith.mulf %x3, %5 : f32
    %t2 = math.tanh %6 : f32
    %7 = arith.addf %t, %one : f32
    %left = arith.mulf %7, %half : f32
    %8 = arith.mulf %t2, %t : f32
    %9 = arith.subf %one, %8 : f32
    %10 = arith.mulf %x, %half : f32
    %11 = arith.mulf %10, %9 : f32
    %12 = arith.mulf %sq, %k3 : f32
    %13 = arith.addf %12, %one : f32
    %14 = arith.mulf %13, %beta : f32
    %right = arith.mulf %11, %14 : f32
    %15 = arith.addf %left, %right : f32
    %16 = arith.extf %0 : f16 to f32
    %17 = arith.mulf %16, %15 : f32
    %18 = arith.truncf %17 : f32 to f16
    linalg.yield %18 : f16
  }
  memref.dealloc %acc : memref<128x256xf32>
  return %dx : memref<2x64x256xf16>
}

// -----

// Not GELU's derivative, or not movable to its epilogue: the GEMM's own
// call, and the epilogue stays a kernel. The derivative with 0.05 for
// 3 kappa; and a derivative whose GEMM's B (%w) is written between the
// GEMM and the epilogue.
// CHECK-LABEL: func.func @gelu_grad_refused
// CHECK-NOT: arith.constant 5 : i32
// CHECK: call @ampGpuGemm(
// CHECK: linalg.generic
// CHECK: math.tanh
// CHECK: call @ampGpuGemm(
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK: math.tanh
// CHECK: return
func.func @gelu_grad_refused(%dy: memref<128x64xf32>, %w: memref<64x256xf32>, %h: memref<128x256xf32>) -> (memref<128x256xf32>, memref<128x256xf32>) {
  %zero = arith.constant 0.0 : f32
  %beta = arith.constant 0.797884583 : f32
  %bk = arith.constant 0.0356774069 : f32
  %k3 = arith.constant 1.341450e-01 : f32
  %wrong = arith.constant 5.000000e-02 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 5.000000e-01 : f32
  %acc = memref.alloc() : memref<128x256xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<128x256xf32>)
  linalg.matmul ins(%dy, %w : memref<128x64xf32>, memref<64x256xf32>) outs(%acc : memref<128x256xf32>)
  %dx = memref.alloc() : memref<128x256xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc, %h : memref<128x256xf32>, memref<128x256xf32>) outs(%dx : memref<128x256xf32>) {
  ^bb0(%g: f32, %x: f32, %o: f32):
    %sq = arith.mulf %x, %x : f32
    %1 = arith.mulf %sq, %bk : f32
    %2 = arith.addf %1, %beta : f32
    %3 = arith.mulf %x, %2 : f32
    %t = math.tanh %3 : f32
    %7 = arith.addf %t, %one : f32
    %left = arith.mulf %7, %half : f32
    %8 = arith.mulf %t, %t : f32
    %9 = arith.subf %one, %8 : f32
    %10 = arith.mulf %x, %half : f32
    %11 = arith.mulf %10, %9 : f32
    %12 = arith.mulf %sq, %wrong : f32
    %13 = arith.addf %12, %one : f32
    %14 = arith.mulf %13, %beta : f32
    %right = arith.mulf %11, %14 : f32
    %15 = arith.addf %left, %right : f32
    %17 = arith.mulf %g, %15 : f32
    linalg.yield %17 : f32
  }
  memref.dealloc %acc : memref<128x256xf32>
  %acc2 = memref.alloc() : memref<128x256xf32>
  linalg.fill ins(%zero : f32) outs(%acc2 : memref<128x256xf32>)
  linalg.matmul ins(%dy, %w : memref<128x64xf32>, memref<64x256xf32>) outs(%acc2 : memref<128x256xf32>)
  linalg.fill ins(%zero : f32) outs(%w : memref<64x256xf32>)
  %dx2 = memref.alloc() : memref<128x256xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc2, %h : memref<128x256xf32>, memref<128x256xf32>) outs(%dx2 : memref<128x256xf32>) {
  ^bb0(%g: f32, %x: f32, %o: f32):
    %sq = arith.mulf %x, %x : f32
    %1 = arith.mulf %sq, %bk : f32
    %2 = arith.addf %1, %beta : f32
    %3 = arith.mulf %x, %2 : f32
    %t = math.tanh %3 : f32
    %7 = arith.addf %t, %one : f32
    %left = arith.mulf %7, %half : f32
    %8 = arith.mulf %t, %t : f32
    %9 = arith.subf %one, %8 : f32
    %10 = arith.mulf %x, %half : f32
    %11 = arith.mulf %10, %9 : f32
    %12 = arith.mulf %sq, %k3 : f32
    %13 = arith.addf %12, %one : f32
    %14 = arith.mulf %13, %beta : f32
    %right = arith.mulf %11, %14 : f32
    %15 = arith.addf %left, %right : f32
    %17 = arith.mulf %g, %15 : f32
    linalg.yield %17 : f32
  }
  memref.dealloc %acc2 : memref<128x256xf32>
  return %dx, %dx2 : memref<128x256xf32>, memref<128x256xf32>
}

// -----

// A training step's ReLU at O2 (the MLP of from_torch_training): the bias
// epilogue's output %s (f16) is read by the ReLU (the forward) and by the
// backward, which recomputes the ReLU and keeps the output gradient (the
// GEMM %gacc's, read rounded) where it is positive (threshold_backward:
// select(relu(s) <= 0, 0, dy)). Only the sign of %s is needed: the
// forward's call is RELU_AUX_BIAS (6), writing the ReLU into %h and the
// ReLU mask (64 rows of 128 bits: 1024 bytes) as its aux output; the
// backward's GEMM is DRELU (7), reading that mask, with no bias, where its
// epilogue was (after the unrelated column sum). %s goes.
// CHECK-LABEL: func.func @relu_aux_bias
// CHECK-DAG: %[[RELU_AUX_BIAS:.*]] = arith.constant 6 : i32
// CHECK-DAG: %[[DRELU:.*]] = arith.constant 7 : i32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[MASK:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1024xi8>
// CHECK: %[[MP:.*]] = memref.extract_aligned_pointer_as_index %[[MASK]]
// CHECK: %[[MI:.*]] = arith.index_cast %[[MP]]
// CHECK: %[[M:.*]] = llvm.inttoptr %[[MI]]
// CHECK: call @ampGpuGemmEpilogue({{.*}}, %[[RELU_AUX_BIAS]], %{{.*}}, %[[NULL]], %[[M]])
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "parallel"]
// CHECK: %[[MP2:.*]] = memref.extract_aligned_pointer_as_index %[[MASK]]
// CHECK: %[[MI2:.*]] = arith.index_cast %[[MP2]]
// CHECK: %[[M2:.*]] = llvm.inttoptr %[[MI2]]
// CHECK: call @ampGpuGemmEpilogue({{.*}}, %[[DRELU]], %[[NULL]], %[[NULL]], %[[M2]])
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref<64x32xf16>
// CHECK: return %{{.*}}, %{{.*}} : memref<64x32xf16>, memref<64x32xf16>
func.func @relu_aux_bias(%x: memref<64x64xf16>, %w: memref<64x32xf16>, %bias: memref<32xf32>, %dy: memref<64x10xf16>, %w2: memref<10x32xf16>, %other: memref<32x8xf16>, %sum: memref<8xf32>) -> (memref<64x32xf16>, memref<64x32xf16>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<64x32xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<64x32xf32>)
  linalg.matmul ins(%x, %w : memref<64x64xf16>, memref<64x32xf16>) outs(%acc : memref<64x32xf32>)
  %s = memref.alloc() {alignment = 64 : i64} : memref<64x32xf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc, %bias : memref<64x32xf32>, memref<32xf32>) outs(%s : memref<64x32xf16>) {
  ^bb0(%in: f32, %c: f32, %o: f16):
    %0 = arith.truncf %in : f32 to f16
    %1 = arith.extf %0 : f16 to f32
    %2 = arith.addf %1, %c : f32
    %3 = arith.truncf %2 : f32 to f16
    linalg.yield %3 : f16
  }
  %h = memref.alloc() {alignment = 64 : i64} : memref<64x32xf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%s : memref<64x32xf16>) outs(%h : memref<64x32xf16>) {
  ^bb0(%in: f16, %o: f16):
    %0 = arith.extf %in : f16 to f32
    %1 = arith.cmpf ugt, %0, %zero : f32
    %2 = arith.select %1, %0, %zero : f32
    %3 = arith.truncf %2 : f32 to f16
    linalg.yield %3 : f16
  }
  %gacc = memref.alloc() : memref<64x32xf32>
  linalg.fill ins(%zero : f32) outs(%gacc : memref<64x32xf32>)
  linalg.matmul ins(%dy, %w2 : memref<64x10xf16>, memref<10x32xf16>) outs(%gacc : memref<64x32xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%other : memref<32x8xf16>) outs(%sum : memref<8xf32>) {
  ^bb0(%in: f16, %acc0: f32):
    %0 = arith.extf %in : f16 to f32
    %1 = arith.addf %0, %acc0 : f32
    linalg.yield %1 : f32
  }
  %dx = memref.alloc() {alignment = 64 : i64} : memref<64x32xf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%s, %gacc : memref<64x32xf16>, memref<64x32xf32>) outs(%dx : memref<64x32xf16>) {
  ^bb0(%in: f16, %g: f32, %o: f16):
    %0 = arith.extf %in : f16 to f32
    %1 = arith.cmpf ugt, %0, %zero : f32
    %2 = arith.select %1, %0, %zero : f32
    %3 = arith.truncf %g : f32 to f16
    %4 = arith.cmpf ole, %2, %zero : f32
    %5 = arith.extf %3 : f16 to f32
    %6 = arith.select %4, %zero, %5 : f32
    %7 = arith.truncf %6 : f32 to f16
    linalg.yield %7 : f16
  }
  return %h, %dx : memref<64x32xf16>, memref<64x32xf16>
}

// -----

// Where the ReLU's input has another reader (here it is returned), or the
// backward's select is not the ReLU's gradient (it keeps the gradient
// where the input is negative), the input stays written: the forward is
// the plain bias epilogue (1) with the ReLU a kernel, and the backward's
// GEMM a plain call (O0's f32 form, the ReLU as maximumf).
// CHECK-LABEL: func.func @relu_aux_refused
// CHECK-NOT: arith.constant 6 : i32
// CHECK-NOT: arith.constant 7 : i32
// CHECK: call @ampGpuGemmEpilogue(
// CHECK: linalg.generic
// CHECK: arith.maximumf
// CHECK: call @ampGpuGemm(
// CHECK: linalg.generic
// CHECK: call @ampGpuGemmEpilogue(
// CHECK: linalg.generic
// CHECK: arith.maximumf
// CHECK: call @ampGpuGemm(
// CHECK: linalg.generic
// CHECK: return
func.func @relu_aux_refused(%x: memref<64x64xf32>, %w: memref<64x32xf32>, %bias: memref<32xf32>, %dy: memref<64x10xf32>, %w2: memref<10x32xf32>) -> (memref<64x32xf32>, memref<64x32xf32>, memref<64x32xf32>, memref<64x32xf32>, memref<64x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<64x32xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<64x32xf32>)
  linalg.matmul ins(%x, %w : memref<64x64xf32>, memref<64x32xf32>) outs(%acc : memref<64x32xf32>)
  %s = memref.alloc() : memref<64x32xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc, %bias : memref<64x32xf32>, memref<32xf32>) outs(%s : memref<64x32xf32>) {
  ^bb0(%in: f32, %c: f32, %o: f32):
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  }
  %h = memref.alloc() : memref<64x32xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%s : memref<64x32xf32>) outs(%h : memref<64x32xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.maximumf %in, %zero : f32
    linalg.yield %0 : f32
  }
  %gacc = memref.alloc() : memref<64x32xf32>
  linalg.fill ins(%zero : f32) outs(%gacc : memref<64x32xf32>)
  linalg.matmul ins(%dy, %w2 : memref<64x10xf32>, memref<10x32xf32>) outs(%gacc : memref<64x32xf32>)
  %dx = memref.alloc() : memref<64x32xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%s, %gacc : memref<64x32xf32>, memref<64x32xf32>) outs(%dx : memref<64x32xf32>) {
  ^bb0(%in: f32, %g: f32, %o: f32):
    %0 = arith.cmpf ogt, %in, %zero : f32
    %1 = arith.select %0, %g, %zero : f32
    linalg.yield %1 : f32
  }
  %acc2 = memref.alloc() : memref<64x32xf32>
  linalg.fill ins(%zero : f32) outs(%acc2 : memref<64x32xf32>)
  linalg.matmul ins(%x, %w : memref<64x64xf32>, memref<64x32xf32>) outs(%acc2 : memref<64x32xf32>)
  %s2 = memref.alloc() : memref<64x32xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc2, %bias : memref<64x32xf32>, memref<32xf32>) outs(%s2 : memref<64x32xf32>) {
  ^bb0(%in: f32, %c: f32, %o: f32):
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  }
  %h2 = memref.alloc() : memref<64x32xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%s2 : memref<64x32xf32>) outs(%h2 : memref<64x32xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.maximumf %in, %zero : f32
    linalg.yield %0 : f32
  }
  %gacc2 = memref.alloc() : memref<64x32xf32>
  linalg.fill ins(%zero : f32) outs(%gacc2 : memref<64x32xf32>)
  linalg.matmul ins(%dy, %w2 : memref<64x10xf32>, memref<10x32xf32>) outs(%gacc2 : memref<64x32xf32>)
  %dx2 = memref.alloc() : memref<64x32xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%s2, %gacc2 : memref<64x32xf32>, memref<64x32xf32>) outs(%dx2 : memref<64x32xf32>) {
  ^bb0(%in: f32, %g: f32, %o: f32):
    %0 = arith.cmpf olt, %in, %zero : f32
    %1 = arith.select %0, %g, %zero : f32
    linalg.yield %1 : f32
  }
  return %s, %h, %dx, %h2, %dx2 : memref<64x32xf32>, memref<64x32xf32>, memref<64x32xf32>, memref<64x32xf32>, memref<64x32xf32>
}
