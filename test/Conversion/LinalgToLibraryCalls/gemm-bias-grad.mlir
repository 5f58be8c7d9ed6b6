// RUN: amp-opt %s --amp-linalg-to-library-calls --split-input-file | FileCheck %s
// RUN: amp-opt %s --amp-linalg-to-library-calls=target=cpu --split-input-file \
// RUN:     | FileCheck %s --check-prefix=CPU

// The GPU's GEMM with the bias gradient (cuBLASLt's BGRADA or BGRADB): a
// linear layer's weight gradient, X^T dY (A read transposed, B = dY stored
// k x n) or torch.nn.Linear's dY^T X (A = dY stored k x m, read
// transposed), followed by the column sum of dY into a zero-filled buffer
// of the output's type (its bias gradient) is one call, which writes the
// sum: the reduction and its fill go, its buffer is allocated before the
// call. The operand argument (before the bias gradient's pointer) says
// which was summed: 2 (AMP_GEMM_BIAS_GRAD_B), 1 (AMP_GEMM_BIAS_GRAD_A). The
// CPU pipeline has no such call: its GEMM and reduction stay.

// f16 operands (O2's dY), f32 weight and bias gradients (the masters'):
// cType 0 (f32), the operand B, the bias gradient's buffer last.
// CHECK-LABEL: func.func @weight_and_bias_gradients
// CHECK-SAME: (%[[X:.*]]: memref<128x256xf16>, %[[DY:.*]]: memref<128x64xf16>)
// CHECK: %[[DB:.*]] = memref.alloc() : memref<1x64xf32>
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[OF:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[DB]]
// CHECK: %[[I:.*]] = arith.index_cast %[[P]]
// CHECK: %[[PTR:.*]] = llvm.inttoptr %[[I]]
// CHECK: call @ampGpuGemmBiasGrad({{.*}}, %[[OF]], %[[PTR]]) :
// CHECK-NOT: linalg.
// CHECK: return %{{.*}}, %[[DB]]
// CPU-LABEL: func.func @weight_and_bias_gradients
// CPU: llvm.call @ampCpuLibraryGemm
// CPU: linalg.fill
// CPU: linalg.generic
// CPU-NOT: BiasGrad
func.func @weight_and_bias_gradients(%x: memref<128x256xf16>, %dy: memref<128x64xf16>) -> (memref<256x64xf32>, memref<1x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %dw = memref.alloc() : memref<256x64xf32>
  linalg.fill ins(%zero : f32) outs(%dw : memref<256x64xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %dy : memref<128x256xf16>, memref<128x64xf16>) outs(%dw : memref<256x64xf32>)
  %unrelated = memref.alloc() : memref<1x64xf32>
  %db = memref.alloc() : memref<1x64xf32>
  linalg.fill ins(%zero : f32) outs(%db : memref<1x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (0, j)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%dy : memref<128x64xf16>) outs(%db : memref<1x64xf32>) {
  ^bb0(%in: f16, %acc: f32):
    %w = arith.extf %in : f16 to f32
    %s = arith.addf %w, %acc : f32
    linalg.yield %s : f32
  }
  memref.dealloc %unrelated : memref<1x64xf32>
  return %dw, %db : memref<256x64xf32>, memref<1x64xf32>
}

// -----

// torch.nn.Linear's weight gradient dY^T X: dY (64 rows of 10 outputs) is
// A, read transposed; X (64 rows of 32 inputs) is B, stored k x n too but
// not summed. The operand A (1), 10 sums.
// CHECK-LABEL: func.func @linear_weight_gradient
// CHECK-SAME: (%[[DY:.*]]: memref<64x10xf16>, %[[X:.*]]: memref<64x32xf16>)
// CHECK: %[[DB:.*]] = memref.alloc() : memref<1x10xf32>
// CHECK: %[[TA:.*]] = arith.constant 1 : i32
// CHECK: %[[TB:.*]] = arith.constant 0 : i32
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[OF:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[DB]]
// CHECK: %[[I:.*]] = arith.index_cast %[[P]]
// CHECK: %[[PTR:.*]] = llvm.inttoptr %[[I]]
// CHECK: call @ampGpuGemmBiasGrad(%[[TA]], %[[TB]], {{.*}}, %[[OF]], %[[PTR]]) :
// CHECK-NOT: linalg.
// CHECK: return %{{.*}}, %[[DB]]
func.func @linear_weight_gradient(%dy: memref<64x10xf16>, %x: memref<64x32xf16>) -> (memref<10x32xf32>, memref<1x10xf32>) {
  %zero = arith.constant 0.0 : f32
  %dw = memref.alloc() : memref<10x32xf32>
  linalg.fill ins(%zero : f32) outs(%dw : memref<10x32xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%dy, %x : memref<64x10xf16>, memref<64x32xf16>) outs(%dw : memref<10x32xf32>)
  %db = memref.alloc() : memref<1x10xf32>
  linalg.fill ins(%zero : f32) outs(%db : memref<1x10xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (0, j)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%dy : memref<64x10xf16>) outs(%db : memref<1x10xf32>) {
  ^bb0(%in: f16, %acc: f32):
    %w = arith.extf %in : f16 to f32
    %s = arith.addf %acc, %w : f32
    linalg.yield %s : f32
  }
  return %dw, %db : memref<10x32xf32>, memref<1x10xf32>
}

// -----

// f32 operands (O0), a rank-1 bias gradient, the accumulator first in the
// add, a plain GEMM (A not transposed) that accumulates (no fill: beta 1).
// CHECK-LABEL: func.func @f32_rank1
// CHECK: call @ampGpuGemmBiasGrad(
// CHECK-NOT: linalg.
func.func @f32_rank1(%a: memref<16x32xf32>, %b: memref<32x8xf32>, %c: memref<16x8xf32>) -> memref<8xf32> {
  %zero = arith.constant 0.0 : f32
  linalg.matmul ins(%a, %b : memref<16x32xf32>, memref<32x8xf32>) outs(%c : memref<16x8xf32>)
  %db = memref.alloc() : memref<8xf32>
  linalg.fill ins(%zero : f32) outs(%db : memref<8xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%b : memref<32x8xf32>) outs(%db : memref<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  return %db : memref<8xf32>
}

// -----

// Not taken, each a plain GEMM and the reduction as it was:
// B read transposed (cuBLASLt's BGRADA sums its A unmodified);
// CHECK-LABEL: func.func @transposed_b
// CHECK: call @ampGpuGemm(
// CHECK: linalg.generic
func.func @transposed_b(%a: memref<16x32xf32>, %b: memref<8x32xf32>, %c: memref<16x8xf32>) -> memref<1x32xf32> {
  %zero = arith.constant 0.0 : f32
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : memref<16x32xf32>, memref<8x32xf32>) outs(%c : memref<16x8xf32>)
  %db = memref.alloc() : memref<1x32xf32>
  linalg.fill ins(%zero : f32) outs(%db : memref<1x32xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (0, j)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%b : memref<8x32xf32>) outs(%db : memref<1x32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  }
  return %db : memref<1x32xf32>
}

// -----

// A not transposed (stored m x k: its column sums are over m, not k);
// CHECK-LABEL: func.func @untransposed_a
// CHECK: call @ampGpuGemm(
// CHECK: linalg.generic
func.func @untransposed_a(%a: memref<16x32xf32>, %b: memref<8x32xf32>, %c: memref<16x8xf32>) -> memref<1x32xf32> {
  %zero = arith.constant 0.0 : f32
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : memref<16x32xf32>, memref<8x32xf32>) outs(%c : memref<16x8xf32>)
  %db = memref.alloc() : memref<1x32xf32>
  linalg.fill ins(%zero : f32) outs(%db : memref<1x32xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (0, j)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<16x32xf32>) outs(%db : memref<1x32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  }
  return %db : memref<1x32xf32>
}

// -----

// a sum of another type than the GEMM's output (an f16 C, an f32 sum);
// CHECK-LABEL: func.func @other_type
// CHECK: call @ampGpuGemm(
// CHECK: linalg.generic
func.func @other_type(%a: memref<16x32xf16>, %b: memref<32x8xf16>, %c: memref<16x8xf16>) -> memref<1x8xf32> {
  %zero = arith.constant 0.0 : f32
  linalg.matmul ins(%a, %b : memref<16x32xf16>, memref<32x8xf16>) outs(%c : memref<16x8xf16>)
  %db = memref.alloc() : memref<1x8xf32>
  linalg.fill ins(%zero : f32) outs(%db : memref<1x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (0, j)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%b : memref<32x8xf16>) outs(%db : memref<1x8xf32>) {
  ^bb0(%in: f16, %acc: f32):
    %w = arith.extf %in : f16 to f32
    %s = arith.addf %w, %acc : f32
    linalg.yield %s : f32
  }
  return %db : memref<1x8xf32>
}

// -----

// a write between the GEMM and the sum;
// CHECK-LABEL: func.func @write_between
// CHECK: call @ampGpuGemm(
// CHECK: linalg.generic
func.func @write_between(%a: memref<16x32xf32>, %b: memref<32x8xf32>, %c: memref<16x8xf32>, %other: memref<4xf32>) -> memref<8xf32> {
  %zero = arith.constant 0.0 : f32
  linalg.matmul ins(%a, %b : memref<16x32xf32>, memref<32x8xf32>) outs(%c : memref<16x8xf32>)
  %db = memref.alloc() : memref<8xf32>
  linalg.fill ins(%zero : f32) outs(%db : memref<8xf32>)
  linalg.fill ins(%zero : f32) outs(%other : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%b : memref<32x8xf32>) outs(%db : memref<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  return %db : memref<8xf32>
}

// -----

// a sum into a buffer that was not zero-filled (it accumulates);
// CHECK-LABEL: func.func @no_fill
// CHECK: call @ampGpuGemm(
// CHECK: linalg.generic
func.func @no_fill(%a: memref<16x32xf32>, %b: memref<32x8xf32>, %c: memref<16x8xf32>, %db: memref<8xf32>) {
  linalg.matmul ins(%a, %b : memref<16x32xf32>, memref<32x8xf32>) outs(%c : memref<16x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%b : memref<32x8xf32>) outs(%db : memref<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// a row sum (over n), not a column sum;
// CHECK-LABEL: func.func @row_sum
// CHECK: call @ampGpuGemm(
// CHECK: linalg.generic
func.func @row_sum(%a: memref<16x32xf32>, %b: memref<32x8xf32>, %c: memref<16x8xf32>) -> memref<32xf32> {
  %zero = arith.constant 0.0 : f32
  linalg.matmul ins(%a, %b : memref<16x32xf32>, memref<32x8xf32>) outs(%c : memref<16x8xf32>)
  %db = memref.alloc() : memref<32xf32>
  linalg.fill ins(%zero : f32) outs(%db : memref<32xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%b : memref<32x8xf32>) outs(%db : memref<32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  return %db : memref<32xf32>
}

// -----

// and a batched GEMM.
// CHECK-LABEL: func.func @batched
// CHECK: call @ampGpuGemm(
// CHECK: linalg.generic
func.func @batched(%a: memref<2x16x32xf32>, %b: memref<2x32x8xf32>, %c: memref<2x16x8xf32>, %b0: memref<32x8xf32>) -> memref<8xf32> {
  %zero = arith.constant 0.0 : f32
  linalg.batch_matmul ins(%a, %b : memref<2x16x32xf32>, memref<2x32x8xf32>) outs(%c : memref<2x16x8xf32>)
  %db = memref.alloc() : memref<8xf32>
  linalg.fill ins(%zero : f32) outs(%db : memref<8xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%b0 : memref<32x8xf32>) outs(%db : memref<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  return %db : memref<8xf32>
}
