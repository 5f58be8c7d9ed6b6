// Contractions for comparing --lower-to-cpu's library calls
// (ampCpuLibraryGemm) with its generated loops (cpu-library.test).

// f16 operands, f32 accumulator and result.
func.func @matmul_f16(%a: tensor<48x96xf16>, %b: tensor<96x40xf16>) -> tensor<48x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x40xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<48x40xf32>) -> tensor<48x40xf32>
  %r = linalg.matmul ins(%a, %b : tensor<48x96xf16>, tensor<96x40xf16>) outs(%init : tensor<48x40xf32>) -> tensor<48x40xf32>
  return %r : tensor<48x40xf32>
}

// bf16 operands, an f32 accumulator that is only narrowed to bf16 (the
// epilogue the call writes itself).
func.func @matmul_bf16_narrowed(%a: tensor<33x70xbf16>, %b: tensor<70x65xbf16>) -> tensor<33x65xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<33x65xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<33x65xf32>) -> tensor<33x65xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<33x70xbf16>, tensor<70x65xbf16>) outs(%init : tensor<33x65xf32>) -> tensor<33x65xf32>
  %r = arith.truncf %mm : tensor<33x65xf32> to tensor<33x65xbf16>
  return %r : tensor<33x65xbf16>
}

// An f16 batch matmul whose narrowing is fused with a bias add and a ReLU.
func.func @batch_matmul_f16_bias_relu(%a: tensor<4x24x40xf16>, %b: tensor<4x40x16xf16>, %bias: tensor<16xf16>) -> tensor<4x24x16xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x24x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x24x16xf32>) -> tensor<4x24x16xf32>
  %mm = linalg.batch_matmul ins(%a, %b : tensor<4x24x40xf16>, tensor<4x40x16xf16>) outs(%init : tensor<4x24x16xf32>) -> tensor<4x24x16xf32>
  %out = tensor.empty() : tensor<4x24x16xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (j)>, affine_map<(b, i, j) -> (b, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%mm, %bias : tensor<4x24x16xf32>, tensor<16xf16>) outs(%out : tensor<4x24x16xf16>) {
  ^bb0(%x: f32, %c: f16, %o: f16):
    %t = arith.truncf %x : f32 to f16
    %s = arith.addf %t, %c : f16
    %z = arith.constant 0.0 : f16
    %m = arith.maximumf %s, %z : f16
    linalg.yield %m : f16
  } -> tensor<4x24x16xf16>
  return %r : tensor<4x24x16xf16>
}
