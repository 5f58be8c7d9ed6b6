// Every verifier rule of amp.scaled_matmul, one case each.
// RUN: amp-opt %s -split-input-file -verify-diagnostics

func.func @mixed(%a: memref<4x32xf8E4M3FN>, %b: tensor<16x32xf8E4M3FN>, %s: tensor<f32>, %e: tensor<4x16xf32>) {
  // expected-error @+1 {{'amp.scaled_matmul' op expects every operand to be a tensor, or every operand a buffer}}
  %y = amp.scaled_matmul ins(%a, %b : memref<4x32xf8E4M3FN>, tensor<16x32xf8E4M3FN>) scale(%s : tensor<f32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @no_result(%a: tensor<4x32xf8E4M3FN>, %b: tensor<16x32xf8E4M3FN>, %s: tensor<f32>, %e: tensor<4x16xf32>) {
  // expected-error @+1 {{'amp.scaled_matmul' op expects one result of the destination's type on tensors, and none on buffers}}
  amp.scaled_matmul ins(%a, %b : tensor<4x32xf8E4M3FN>, tensor<16x32xf8E4M3FN>) scale(%s : tensor<f32>) outs(%e : tensor<4x16xf32>)
  return
}

// -----

func.func @result_type(%a: tensor<4x32xf8E4M3FN>, %b: tensor<16x32xf8E4M3FN>, %s: tensor<f32>, %e: tensor<4x16xf32>) {
  // expected-error @+1 {{'amp.scaled_matmul' op expects one result of the destination's type on tensors, and none on buffers}}
  %y = amp.scaled_matmul ins(%a, %b : tensor<4x32xf8E4M3FN>, tensor<16x32xf8E4M3FN>) scale(%s : tensor<f32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xbf16>
  return
}

// -----

func.func @wide_operand(%a: tensor<4x32xbf16>, %b: tensor<16x32xf8E4M3FN>, %s: tensor<f32>, %e: tensor<4x16xf32>) {
  // expected-error @+1 {{'amp.scaled_matmul' op expects f8E4M3FN or f8E5M2 operands, got 'tensor<4x32xbf16>'}}
  %y = amp.scaled_matmul ins(%a, %b : tensor<4x32xbf16>, tensor<16x32xf8E4M3FN>) scale(%s : tensor<f32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @destination(%a: tensor<4x32xf8E4M3FN>, %b: tensor<16x32xf8E4M3FN>, %s: tensor<f32>, %e: tensor<4x16xf64>) {
  // expected-error @+1 {{'amp.scaled_matmul' op expects an f32, bf16 or f16 destination, got 'tensor<4x16xf64>'}}
  %y = amp.scaled_matmul ins(%a, %b : tensor<4x32xf8E4M3FN>, tensor<16x32xf8E4M3FN>) scale(%s : tensor<f32>) outs(%e : tensor<4x16xf64>) -> tensor<4x16xf64>
  return
}

// -----

func.func @scale(%a: tensor<4x32xf8E4M3FN>, %b: tensor<16x32xf8E4M3FN>, %s: tensor<1xf32>, %e: tensor<4x16xf32>) {
  // expected-error @+1 {{'amp.scaled_matmul' op expects the scale to be a 0-d f32, got 'tensor<1xf32>'}}
  %y = amp.scaled_matmul ins(%a, %b : tensor<4x32xf8E4M3FN>, tensor<16x32xf8E4M3FN>) scale(%s : tensor<1xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @rank(%a: tensor<2x4x32xf8E4M3FN>, %b: tensor<16x32xf8E4M3FN>, %s: tensor<f32>, %e: tensor<4x16xf32>) {
  // expected-error @+1 {{'amp.scaled_matmul' op expects operands and destination of rank 2 (m x k, n x k, m x n) or all of rank 3 (with a batch first)}}
  %y = amp.scaled_matmul ins(%a, %b : tensor<2x4x32xf8E4M3FN>, tensor<16x32xf8E4M3FN>) scale(%s : tensor<f32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

// B is n x k: a k x n B is refused.
func.func @shapes(%a: tensor<4x32xf8E4M3FN>, %b: tensor<32x16xf8E4M3FN>, %s: tensor<f32>, %e: tensor<4x16xf32>) {
  // expected-error @+1 {{'amp.scaled_matmul' op expects lhs [b x] m x k, rhs [b x] n x k and destination [b x] m x n, got 'tensor<4x32xf8E4M3FN>', 'tensor<32x16xf8E4M3FN>' and 'tensor<4x16xf32>'}}
  %y = amp.scaled_matmul ins(%a, %b : tensor<4x32xf8E4M3FN>, tensor<32x16xf8E4M3FN>) scale(%s : tensor<f32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @batch(%a: tensor<2x4x32xf8E4M3FN>, %b: tensor<3x16x32xf8E4M3FN>, %s: tensor<f32>, %e: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'amp.scaled_matmul' op expects lhs [b x] m x k, rhs [b x] n x k and destination [b x] m x n}}
  %y = amp.scaled_matmul ins(%a, %b : tensor<2x4x32xf8E4M3FN>, tensor<3x16x32xf8E4M3FN>) scale(%s : tensor<f32>) outs(%e : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  return
}
