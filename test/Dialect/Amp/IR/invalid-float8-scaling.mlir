// Every verifier and type rule of amp.amax, amp.quantize and amp.dequantize.
// RUN: amp-opt %s -split-input-file -verify-diagnostics

func.func @quantize_shape(%x: tensor<4x8xf32>, %s: f32) {
  // expected-error @+1 {{'amp.quantize' op expects the result to have the shape of the input 'tensor<4x8xf32>', got 'tensor<8x4xf8E4M3FN>'}}
  %q = amp.quantize %x by %s : tensor<4x8xf32>, f32 -> tensor<8x4xf8E4M3FN>
  return
}

// -----

func.func @quantize_not_fp8(%x: tensor<4xf32>, %s: f32) {
  // expected-error @+1 {{'amp.quantize' op result #0 must be ranked tensor of f8E4M3FN type or f8E5M2 type values, but got 'tensor<4xf16>'}}
  %q = amp.quantize %x by %s : tensor<4xf32>, f32 -> tensor<4xf16>
  return
}

// -----

func.func @quantize_f64(%x: tensor<4xf64>, %s: f32) {
  // expected-error @+1 {{'amp.quantize' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xf64>'}}
  %q = amp.quantize %x by %s : tensor<4xf64>, f32 -> tensor<4xf8E4M3FN>
  return
}

// -----

func.func @quantize_scale(%x: tensor<4xf32>, %s: f16) {
  // expected-error @+1 {{'amp.quantize' op operand #1 must be f32 or tensor<f32>, but got 'f16'}}
  %q = amp.quantize %x by %s : tensor<4xf32>, f16 -> tensor<4xf8E4M3FN>
  return
}

// -----

func.func @dequantize_shape(%q: tensor<4xf8E5M2>, %s: f32) {
  // expected-error @+1 {{'amp.dequantize' op expects the result to have the shape of the input 'tensor<4xf8E5M2>', got 'tensor<5xf32>'}}
  %y = amp.dequantize %q by %s : tensor<4xf8E5M2>, f32 -> tensor<5xf32>
  return
}

// -----

func.func @dequantize_not_fp8(%q: tensor<4xf16>, %s: f32) {
  // expected-error @+1 {{'amp.dequantize' op operand #0 must be ranked tensor of f8E4M3FN type or f8E5M2 type values, but got 'tensor<4xf16>'}}
  %y = amp.dequantize %q by %s : tensor<4xf16>, f32 -> tensor<4xf32>
  return
}

// -----

func.func @amax_result(%x: tensor<4xf32>) {
  // expected-error @+1 {{'amp.amax' op result #0 must be f32 or tensor<f32>, but got 'f16'}}
  %a = amp.amax %x : tensor<4xf32> -> f16
  return
}

// -----

func.func @amax_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %a = amp.amax %x : tensor<*xf32> -> f32
  return
}
