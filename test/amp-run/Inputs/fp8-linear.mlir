// FP8 linear layers as frontends write them, for dtype=fp8's scaled GEMM
// (test/amp-run/dtype-fp8.test, test/Pipelines/GPU/float8-scaled-gemm.mlir).

// No bias, the output stored in bf16: the scaled GEMM writes bf16 itself.
func.func @linear_bf16(%x: tensor<64x96xf32>, %w: tensor<96x80xf32>) -> tensor<64x80xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  %y = linalg.matmul ins(%x, %w : tensor<64x96xf32>, tensor<96x80xf32>) outs(%acc : tensor<64x80xf32>) -> tensor<64x80xf32>
  %r = arith.truncf %y : tensor<64x80xf32> to tensor<64x80xbf16>
  return %r : tensor<64x80xbf16>
}

// A bias and a ReLU: the GEMM scales, the epilogue kernel adds and clamps.
func.func @linear_relu(%x: tensor<64x96xf32>, %w: tensor<96x80xf32>, %b: tensor<80xf32>) -> tensor<64x80xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  %y = linalg.matmul ins(%x, %w : tensor<64x96xf32>, tensor<96x80xf32>) outs(%acc : tensor<64x80xf32>) -> tensor<64x80xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%y, %b : tensor<64x80xf32>, tensor<80xf32>) outs(%e : tensor<64x80xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %s = arith.addf %v, %c : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x80xf32>
  return %r : tensor<64x80xf32>
}

// No bias, an f32 output: the scaled GEMM writes the output itself (the
// epilogue had nothing left but a copy).
func.func @linear_f32(%x: tensor<64x96xf32>, %w: tensor<96x80xf32>) -> tensor<64x80xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  %y = linalg.matmul ins(%x, %w : tensor<64x96xf32>, tensor<96x80xf32>) outs(%acc : tensor<64x80xf32>) -> tensor<64x80xf32>
  return %y : tensor<64x80xf32>
}

// Two linear layers without bias: the second quantizes the first's f32
// output, whose amax the first scaled GEMM computes (its dAmax).
func.func @linear_chain(%x: tensor<64x96xf32>, %w1: tensor<96x80xf32>, %w2: tensor<80x48xf32>) -> tensor<64x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  %y = linalg.matmul ins(%x, %w1 : tensor<64x96xf32>, tensor<96x80xf32>) outs(%acc : tensor<64x80xf32>) -> tensor<64x80xf32>
  %e2 = tensor.empty() : tensor<64x48xf32>
  %acc2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x48xf32>) -> tensor<64x48xf32>
  %z = linalg.matmul ins(%y, %w2 : tensor<64x80xf32>, tensor<80x48xf32>) outs(%acc2 : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %z : tensor<64x48xf32>
}
